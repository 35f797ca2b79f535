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
