"""Rough edges a new user met on a first walkthrough: each through the surface the user touched (the
CLI through typer's CliRunner or a subprocess, the MCP server over stdio with the official client)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from learn_vault import MERGE_Q, PAGES, log_weak, write_vault
from mcp import Client
from mcp.types import TextContent
from mcp_stdio import server_params
from typer.testing import CliRunner

from krouter import config
from krouter.cli import DEMO_NOTE, app
from krouter.ops.ask_socket.client import ask_through_socket
from krouter.ops.ask_socket.server import AskServer
from krouter.ops.vault_watcher import VaultWatcher
from krouter.routing.router import Router

runner = CliRunner()
REPO = Path(__file__).resolve().parent.parent
QUESTION = "which database do we use"


def _vault(tmp_path: Path, name: str = "notes") -> Path:
    root = tmp_path / name
    (root / "Decisions").mkdir(parents=True)
    (root / "Decisions" / "Primary database.md").write_text(
        "# Primary database\n\nWe use PostgreSQL 16 as the primary database.\n", encoding="utf-8"
    )
    (root / "People").mkdir()
    (root / "People" / "王芳.md").write_text(
        "---\ntitle: Wang Fang\n---\n# 王芳\n\n王芳负责支付系统。\n", encoding="utf-8"
    )
    return root


# ----- 1. init --with-examples does not take over an existing default ----------------------------------


def test_init_with_examples_keeps_the_existing_default_and_says_how_to_change_it(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    assert runner.invoke(app, ["init", str(mine)]).exit_code == 0
    examples = tmp_path / "examples"
    result = runner.invoke(app, ["init", str(examples), "--with-examples"])
    assert result.exit_code == 0, result.output
    assert (examples / "Decisions" / "Primary database.md").is_file()
    assert config.load_config().vault == mine.resolve()
    assert "not recorded as the default vault (its pages are fictional examples)" in result.stdout
    assert f"the default stays {mine.resolve()}" in result.stdout
    assert f"krouter config set vault {examples.resolve()}" in result.stdout
    # A plain ask still answers from the user's own (empty) vault, not from the fictional pages.
    asked = runner.invoke(app, ["ask", QUESTION, "--json"])
    assert json.loads(asked.stdout)["vault"] == str(mine.resolve())
    # Asked for explicitly, it becomes the default.
    again = tmp_path / "examples2"
    result = runner.invoke(app, ["init", str(again), "--with-examples", "--default"])
    assert result.exit_code == 0 and config.load_config().vault == again.resolve()
    assert "fictional examples" in result.stdout


def test_init_with_examples_is_the_default_when_none_is_recorded(tmp_path: Path) -> None:
    examples = tmp_path / "examples"
    result = runner.invoke(app, ["init", str(examples), "--with-examples"])
    assert result.exit_code == 0, result.output
    assert config.load_config().vault == examples.resolve()
    assert "its pages are fictional examples" in result.stdout


# ----- 2. ask --json says whether the answer came from the demo vault ----------------------------------


@pytest.mark.parametrize("name", ["demo", "vault_template", "bundled"])
def test_ask_json_flags_the_demo_vault_and_stderr_says_so(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)  # the README's first command names vault_template from the checkout
    vault = str(config.bundled_vault()) if name == "bundled" else name
    result = runner.invoke(app, ["ask", QUESTION, "--vault", vault, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["demo_vault"] is True
    assert DEMO_NOTE in result.stderr
    plain = runner.invoke(app, ["ask", QUESTION, "--vault", vault])
    assert DEMO_NOTE in plain.stderr


def test_ask_json_on_the_users_vault_is_not_the_demo(tmp_path: Path) -> None:
    result = runner.invoke(app, ["ask", QUESTION, "--vault", str(_vault(tmp_path)), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["demo_vault"] is False
    assert DEMO_NOTE not in result.stderr


def test_a_running_watcher_answers_ask_json_with_the_same_demo_flag(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with Router(config.bundled_vault()) as router:
        router.refresh()
        srv = AskServer(router.root, router.index.path, VaultWatcher(router.root))
        assert srv.start()
        try:
            code = ask_through_socket([QUESTION, "--vault", "demo", "--json"])
            served = capsys.readouterr()
            # A question with nothing to look up is the ordinary path's usage error, not the socket's.
            assert ask_through_socket(["?", "--vault", "demo"]) is None
        finally:
            srv.stop()
    assert code == 0
    assert json.loads(served.out)["demo_vault"] is True
    ordinary = runner.invoke(app, ["ask", QUESTION, "--vault", "demo", "--json"])
    assert served.out == ordinary.stdout


# ----- 3. learn --dry-run without a model ---------------------------------------------------------------


def test_dry_run_without_a_model_says_so_once_and_lists_what_would_be_sent(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "vault", PAGES)
    # Refused when it was logged; the vault now answers it ("The Postmark API timeout is 5 seconds").
    cites_now = "What is the Postmark API timeout for all calls?"
    log_weak(vault, MERGE_Q, cites_now)
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    env["PATH"] = str(Path(sys.executable).parent)  # no claude CLI either: no lane at all
    res = subprocess.run(
        [sys.executable, "-m", "krouter", "learn", "--vault", str(vault), "--dry-run"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.count("ANTHROPIC_API_KEY") == 1, res.stdout
    assert "uncertain" not in res.stdout
    assert "2 weak questions from 2 log entries; 1 would be sent to the model, 1 skipped" in res.stdout
    lines = res.stdout.splitlines()
    assert f"  would-send {MERGE_Q!r}" in lines, res.stdout
    skipped = [line for line in lines if cites_now in line]
    assert len(skipped) == 1 and "skipped" in skipped[0]
    assert "KRouter now cites Runbooks/Email API timeouts.md" in skipped[0]


# ----- 4. newcomer mistakes ------------------------------------------------------------------------------


def test_an_unquoted_question_gets_a_hint_to_quote_it(tmp_path: Path) -> None:
    vault = str(_vault(tmp_path))
    result = runner.invoke(app, ["ask", "which", "message", "queue", "do", "we", "use", "--vault", vault])
    assert result.exit_code == 2
    assert "put the question in quotes, e.g. krouter ask 'which message queue do we use'" in result.stderr
    # With --json the usage error is a JSON object on stdout (the entry point's run() makes it one).
    as_json = subprocess.run(
        [sys.executable, "-m", "krouter", "ask", "--json", "which", "queue", "--vault", vault],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert as_json.returncode == 2
    assert "put the question in quotes" in json.loads(as_json.stdout)["error"]


@pytest.mark.parametrize("question", ["?", "？", "!!! ...", "—"])
def test_a_question_with_no_words_is_a_usage_error_like_an_empty_one(tmp_path: Path, question: str) -> None:
    vault = str(_vault(tmp_path))
    assert runner.invoke(app, ["ask", "", "--vault", vault]).exit_code == 2
    result = runner.invoke(app, ["ask", question, "--vault", vault])
    assert result.exit_code == 2, result.output
    assert "the question has no words to look up" in result.stderr
    as_json = runner.invoke(app, ["ask", question, "--vault", vault, "--json"])
    assert json.loads(as_json.stdout)["exit_code"] == 2


@pytest.mark.parametrize("question", ["王芳?", "2024?", "DB?"])
def test_a_short_question_with_a_word_is_still_asked(tmp_path: Path, question: str) -> None:
    result = runner.invoke(app, ["ask", question, "--vault", str(_vault(tmp_path))])
    assert result.exit_code in (0, 3), result.output


@pytest.mark.parametrize("typed", ["王芳", "王芳.md", "wang fang"])
def test_read_by_a_pages_name_suggests_its_path(tmp_path: Path, typed: str) -> None:
    result = runner.invoke(app, ["read", typed, "--vault", str(_vault(tmp_path))])
    assert result.exit_code == 2
    assert f"no page at {typed!r}" in result.stderr
    assert "did you mean People/王芳.md?" in result.stderr


def test_read_of_an_unknown_name_suggests_nothing(tmp_path: Path) -> None:
    result = runner.invoke(app, ["read", "李雷", "--vault", str(_vault(tmp_path))])
    assert result.exit_code == 2
    assert "no page at '李雷'" in result.stderr and "did you mean" not in result.stderr


# A cold review: `krouter check` (and `mcp`, `watch`) said only "vault folder not found: PATH".
DEFAULT_VAULT_COMMANDS = [
    ["ask", "hi"],
    ["status"],
    ["index"],
    ["check"],
    ["check", "--json"],
    ["learn"],
    ["learn", "--accept", "p1"],
    ["teach", "which queue", "--page", "a.md", "--quote", "NATS."],
]


@pytest.mark.parametrize("command", DEFAULT_VAULT_COMMANDS)
def test_a_missing_vault_from_the_environment_says_where_it_came_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    missing = tmp_path / "nonexist"
    monkeypatch.setenv("KROUTER_VAULT", str(missing))
    result = runner.invoke(app, command)
    assert result.exit_code == 2
    assert f"vault folder not found: {missing} (named by $KROUTER_VAULT" in result.stderr
    # Named on the command line, the path needs no origin.
    named = runner.invoke(app, [*command, "--vault", str(missing)])
    assert named.exit_code == 2 and "$KROUTER_VAULT" not in named.stderr


@pytest.mark.parametrize("command", DEFAULT_VAULT_COMMANDS)
def test_a_missing_default_vault_names_config_toml(tmp_path: Path, command: list[str]) -> None:
    missing = tmp_path / "gone"
    config.config_path().write_text(f'vault = "{missing}"\n', encoding="utf-8")
    result = runner.invoke(app, command)
    assert result.exit_code == 2
    assert f"vault folder not found: {missing} (the default vault in {config.config_path()}" in result.stderr


def _text(result: object) -> str:
    return "".join(c.text for c in result.content if isinstance(c, TextContent))  # type: ignore[attr-defined]


def test_mcp_bad_inputs_get_short_plain_messages(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    params = server_params(vault)

    async def session() -> dict[str, object]:
        with anyio.fail_after(60):
            async with Client(params, read_timeout_seconds=30) as client:
                tools = {t.name: t for t in (await client.list_tools()).tools}
                return {
                    "schema": tools["krouter_ask"].input_schema["properties"]["question"],
                    "empty": await client.call_tool("krouter_ask", {"question": ""}),
                    "blank": await client.call_tool("krouter_ask", {"question": "   "}),
                    "long": await client.call_tool("krouter_ask", {"question": "database " * 200}),
                    "no_path": await client.call_tool("krouter_read", {"path": ""}),
                    "dotfile": await client.call_tool("krouter_read", {"path": "../../.bashrc"}),
                    "txt": await client.call_tool("krouter_read", {"path": "Decisions/notes.txt"}),
                }

    got = anyio.run(session)
    # The model still reads the bounds in the schema: the length in words, since a maxLength would
    # count the spaces around the question that the bound does not (tests/test_question_first.py).
    assert got["schema"]["minLength"] == 1  # type: ignore[index]
    assert "at most 1000 characters, not counting spaces" in got["schema"]["description"]  # type: ignore[index]
    for key in ("empty", "blank"):
        assert got[key].is_error  # type: ignore[attr-defined]
        text = _text(got[key])
        assert "the question is empty" in text and "pydantic" not in text, text
    long = _text(got["long"])
    # Counted as phrasings are, without the spaces around it ("database " * 200 ends in one).
    assert "1799 characters long; at most 1000" in long and "pydantic" not in long, long
    no_path = _text(got["no_path"])
    assert "the path is empty" in no_path and "pydantic" not in no_path, no_path
    dotfile = _text(got["dotfile"])
    assert got["dotfile"].is_error  # type: ignore[attr-defined]
    assert "leaves the vault" in dotfile and "inside the vault" in dotfile, dotfile
    assert "not a Markdown page" not in dotfile
    # Inside the vault, a file that is not a page is still named as that.
    assert "not a Markdown page" in _text(got["txt"])


# ----- 5. import counts only the files it imported from ------------------------------------------------


def test_import_counts_only_the_files_that_gave_something(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    (sessions / "good.jsonl").write_text(
        '{"session_id": "s1", "role": "user", "content": "which queue do we use"}\n'
        '{"session_id": "s1", "role": "assistant", "content": "RabbitMQ, since 2023."}\n',
        encoding="utf-8",
    )
    (sessions / "bad.jsonl").write_text('{"foo": 1}\n', encoding="utf-8")
    result = runner.invoke(app, ["import", str(sessions), "--vault", str(vault)])
    assert result.exit_code == 1
    assert "imported 1 of 2 file(s): 1 created" in result.stdout, result.stdout
    assert "bad.jsonl: not a transcript KRouter reads" in result.stderr
    as_json = runner.invoke(app, ["import", str(sessions), "--vault", str(vault), "--json"])
    out = json.loads(as_json.stdout)
    assert (out["files"], out["imported_files"]) == (2, 1)
    (sessions / "bad.jsonl").unlink()
    clean = runner.invoke(app, ["import", str(sessions), "--vault", str(vault)])
    assert clean.exit_code == 0 and "imported 1 file(s): 0 created, 0 updated, 1 unchanged" in clean.stdout


# ----- 6. learn --list names a vault that is not there -------------------------------------------------


def test_learn_list_of_a_vault_not_there_is_an_error_not_an_empty_list(tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent"
    result = runner.invoke(app, ["learn", "--list", "--vault", str(missing)])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == f"krouter: vault folder not found: {missing}\n"
    as_json = runner.invoke(app, ["learn", "--list", "--vault", str(missing), "--json"])
    assert as_json.exit_code == 2
    assert json.loads(as_json.stdout) == {"error": f"vault folder not found: {missing}", "exit_code": 2}
    (tmp_path / "f").write_text("a file", encoding="utf-8")
    a_file = runner.invoke(app, ["learn", "--list", "--vault", str(tmp_path / "f")])
    assert a_file.exit_code == 2 and "not a folder" in a_file.stderr
    assert runner.invoke(app, ["learn", "--list", "--vault", str(_vault(tmp_path))]).exit_code == 0


# ----- 7. messages that pointed the wrong way ------------------------------------------------------------


def test_config_set_vault_to_a_file_says_it_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("a file", encoding="utf-8")
    result = runner.invoke(app, ["config", "set", "vault", str(tmp_path / "f")])
    assert result.exit_code == 2
    assert (
        result.stderr
        == f"krouter: {tmp_path / 'f'} is a file, not a folder: a vault is a folder of Markdown pages\n"
    )
    assert not config.config_path().exists()


@pytest.mark.parametrize("command", [["ask", QUESTION], ["check"], ["status"], ["import", "s.jsonl"]])
def test_krouter_vault_demo_says_the_demo_is_never_a_default(tmp_path: Path, command: list[str]) -> None:
    """$KROUTER_VAULT=demo read "vault folder not found: /cwd/demo", as if --vault demo were not the demo:
    the message now says why the environment cannot name the demo vault, and what can."""
    (tmp_path / "s.jsonl").write_text(
        '{"session_id": "s", "role": "user", "content": "hi"}\n', encoding="utf-8"
    )
    done = subprocess.run(
        [sys.executable, "-m", "krouter", *command],
        capture_output=True,
        text=True,
        env={**os.environ, "KROUTER_VAULT": "demo", "PYTHONPATH": str(REPO)},
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        f"krouter: $KROUTER_VAULT is 'demo', read as a folder, and there is none ({tmp_path / 'demo'}): the "
        "bundled demo vault is never a default; name it per command with --vault demo, or point "
        "$KROUTER_VAULT at your vault"
    )


def test_config_shows_the_semantic_setting_in_effect_and_where_it_comes_from(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("KROUTER_SEMANTIC", "off")
    result = runner.invoke(app, ["config", "get", "semantic"])
    assert result.exit_code == 0 and result.stdout == "off\n"
    assert result.stderr == 'krouter: from $KROUTER_SEMANTIC (config.toml: "auto")\n'
    shown = runner.invoke(app, ["config"]).stdout
    assert '  semantic = "off"  (from $KROUTER_SEMANTIC; config.toml: "auto")\n' in shown
    out = json.loads(runner.invoke(app, ["config", "--json"]).stdout)
    assert out["settings"]["semantic"] == "off" and out["from_environment"] == {
        "semantic": "$KROUTER_SEMANTIC"
    }
    as_json = json.loads(runner.invoke(app, ["config", "--json", "get", "semantic"]).stdout)
    assert as_json == {"key": "semantic", "value": "off", "from": "$KROUTER_SEMANTIC"}
    monkeypatch.delenv("KROUTER_SEMANTIC")
    result = runner.invoke(app, ["config", "get", "semantic"])
    assert result.stdout == "auto\n" and result.stderr == ""


def test_config_get_vault_prints_the_vault_krouter_vault_names(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A docs review: `config get vault` printed config.toml's vault while $KROUTER_VAULT named
    another, the one every command used."""
    other = tmp_path / "other"
    other.mkdir()
    monkeypatch.setenv("KROUTER_VAULT", str(other))
    result = runner.invoke(app, ["config", "get", "vault"])
    assert result.stdout == f"{other}\n" and result.stderr.startswith("krouter: from $KROUTER_VAULT")
    as_json = json.loads(runner.invoke(app, ["config", "--json", "get", "vault"]).stdout)
    assert as_json == {"key": "vault", "value": str(other), "from": "$KROUTER_VAULT"}
    # As every command reads it: a relative path from here (the review: printed as typed).
    other = other.resolve()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KROUTER_VAULT", "../" + tmp_path.name + "/other")
    assert runner.invoke(app, ["config", "get", "vault"]).stdout == f"{other}\n"
    assert f"vault in use: {other} ($KROUTER_VAULT)" in runner.invoke(app, ["config"]).stdout


def test_config_names_where_the_cache_and_state_are_kept() -> None:
    """A documentation audit: nothing told a user who installed with pip where KRouter keeps the indexes
    (their notes' words) and the query log (their questions), to remove them. `krouter recall-context
    --help` said "never the demo vault" of a hook that answers from it when named."""
    shown = runner.invoke(app, ["config"]).stdout
    assert f"cache dir:    {config.cache_dir()}" in shown and f"state dir:    {config.state_dir()}" in shown
    as_json = json.loads(runner.invoke(app, ["config", "--json"]).stdout)
    assert as_json["cache_dir"] == str(config.cache_dir()) and as_json["state_dir"] == str(config.state_dir())
    helped = runner.invoke(app, ["recall-context", "--help"], terminal_width=200).stdout
    assert "never the demo vault" not in helped and "'demo' for the bundled demo vault" in helped
