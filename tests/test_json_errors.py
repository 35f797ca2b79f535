"""With ``--json`` every error is one JSON object on stdout, ``{"error": ..., "exit_code": ...}``, as the
README promises: an agent parsing stdout never meets an empty line or plain text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from learn_vault import PAGES, write_vault
from typer.testing import CliRunner

from krouter.cli import app

runner = CliRunner()


@pytest.mark.parametrize(
    ("question", "vault", "message"),
    [
        ("", "v", "the question is empty"),
        ("???", "v", "the question has no words to look up"),
        ("", "demo", "the bundled demo vault is read-only"),
        ("how many approvals", "/nope", "vault folder not found: /nope"),
    ],
)
def test_teach_usage_errors_under_json_are_a_json_object(
    tmp_path: Path, question: str, vault: str, message: str
) -> None:
    write_vault(tmp_path / "v", PAGES)
    where = str(tmp_path / vault) if vault == "v" else vault
    args = ["teach", question, "--page", "a.md", "--quote", "q", "--json", "--vault", where]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    out = json.loads(result.stdout)
    assert out["exit_code"] == 2 and out["error"].startswith(message), out
    assert result.stderr == f"krouter: {out['error']}\n"


def test_config_json_errors_are_a_json_object() -> None:
    result = runner.invoke(app, ["config", "--json", "get", "bogus"])
    assert result.exit_code == 2
    out = json.loads(result.stdout)
    assert out["exit_code"] == 2 and out["error"].startswith("unknown setting 'bogus'; known: vault,")
    result = runner.invoke(app, ["config", "--json", "set", "semantic", "sometimes"])
    assert result.exit_code == 2 and json.loads(result.stdout)["error"].startswith("semantic is one of")


def test_config_json_get_prints_the_value_as_json() -> None:
    result = runner.invoke(app, ["config", "--json", "get", "semantic"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["key"] == "semantic"


@pytest.mark.parametrize("where", ["group", "subcommand"])
def test_config_subcommands_under_json_print_one_json_object(where: str) -> None:
    """A cold review: `krouter config --json set|unset|path` printed plain text on stdout, and
    `krouter config get KEY --json` (--json last, as every other command takes it) was a usage error."""
    from krouter.config import config_path

    def run(*args: str) -> dict[str, object]:
        argv = ["config", "--json", *args] if where == "group" else ["config", *args, "--json"]
        result = runner.invoke(app, argv)
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    assert run("path") == {"path": str(config_path())}
    assert run("unset", "semantic") == {"key": "semantic", "removed": False, "path": str(config_path())}
    # Nothing was set: nothing is written.
    assert not config_path().exists()
    assert run("set", "semantic", "off") == {"key": "semantic", "value": "off", "path": str(config_path())}
    assert run("get", "semantic") == {"key": "semantic", "value": "off"}
    assert run("unset", "semantic")["removed"] is True


def test_config_unset_of_a_setting_never_set_says_so() -> None:
    result = runner.invoke(app, ["config", "unset", "learn_model"])
    assert result.exit_code == 0 and "learn_model is not set in" in result.stdout
    assert "removed" not in result.stdout
