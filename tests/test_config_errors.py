"""A config.toml KRouter cannot read is an error everywhere, never a silent fallback to the defaults.

The defaults log every question and ignore nothing: falling back to them over a typo in one setting
("semantic = "of"") indexed and cited the pages the user's ``ignore`` patterns leave out, and logged the
questions of a user who had turned the log off. So a lookup refuses to run until the file is fixed,
and says which file and which setting (as git does over a broken .git/config).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp_stdio import server_params, text_of
from typer.testing import CliRunner
from waiting import TIMEOUT, wait_for, write

from krouter import Router, config
from krouter.cli import app
from krouter.errors import ConfigError
from krouter.index.store import Index
from krouter.routing import querylog

runner = CliRunner()

BROKEN = {
    "a wrong value": 'semantic = "of"\n',
    "a wrong type": "query_log = 'no'\n",
    "not TOML": 'learn_model = "claude\n',
    # A cold review: a misspelt setting left the default in force, and questions were logged.
    "a misspelt setting": "query_logs = false\n",
    # The late commits' review: tomllib recursed and the RecursionError killed `krouter watch`.
    "nested too deeply": "x = " + "[" * 5000 + "]" * 5000 + "\n",
    # A bug hunt: a path where a folder's name belongs was accepted, matched no folder, and `krouter
    # import` then blamed a --folder the user never passed.
    "a path for an input folder": 'input_folders = ["../outside"]\n',
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    write(root / "Team" / "Salaries.md", "# Salaries\n\nEveryone earns 90k a year.\n")
    write(root / "Runbooks" / "Deploy.md", "# Deploy\n\nDeploys go out with fly deploy from main.\n")
    return root


def settings(text: str) -> None:
    config.config_path().parent.mkdir(parents=True, exist_ok=True)
    config.config_path().write_text(text, encoding="utf-8")


@pytest.mark.parametrize("problem", sorted(BROKEN))
def test_a_broken_setting_stops_the_lookup_and_says_where(vault: Path, problem: str) -> None:
    settings('ignore = ["Team/"]\nquery_log = false\n' + BROKEN[problem])
    result = runner.invoke(app, ["ask", "how much does everyone earn", "--vault", str(vault)])
    assert result.exit_code == 1, result.output
    assert "config.toml" in result.stderr and "90k" not in result.stdout
    assert "Team/Salaries.md" not in result.stdout
    assert not querylog.log_path().exists()


def test_input_folders_are_names_not_paths(vault: Path) -> None:
    for value in ('["../outside"]', '["Notes/Inputs"]', '[".."]', '[""]', "['Inputs\\Web']"):
        settings(f"input_folders = {value}\n")
        result = runner.invoke(app, ["status", "--vault", str(vault)])
        assert result.exit_code == 1 and "'input_folders' must be a list of folder names such as" in (
            result.stderr
        ), value
    settings('input_folders = ["Inputs/", "Clippings", "03 资料与证据"]\n')
    assert runner.invoke(app, ["status", "--vault", str(vault)]).exit_code == 0


def test_a_misspelt_setting_is_named_with_the_one_meant(vault: Path) -> None:
    settings("query_logs = false\n")
    result = runner.invoke(app, ["ask", "how do we deploy", "--vault", str(vault)])
    assert result.exit_code == 1
    assert "unknown setting 'query_logs' (did you mean 'query_log'?)" in result.stderr


def test_a_folder_where_config_toml_belongs_stops_the_lookup(vault: Path) -> None:
    """A cold review: a folder at that path was read as "no settings", every default in force."""
    config.config_path().mkdir(parents=True)
    result = runner.invoke(app, ["ask", "how do we deploy", "--vault", str(vault)])
    assert result.exit_code == 1
    assert "is a folder, not a file" in result.stderr


def test_the_library_raises_rather_than_index_what_the_user_left_out(vault: Path) -> None:
    settings('ignore = ["Team/"]\nsemantic = "of"\n')
    with pytest.raises(ConfigError, match="semantic"), Router(vault) as router:
        router.ask("how much does everyone earn")
    settings('ignore = ["Team/"]\nsemantic = "off"\n')
    with Router(vault) as router:
        assert router.ask("how much does everyone earn").decision == "refuse"


def test_status_names_the_broken_file(vault: Path) -> None:
    settings('semantic = "of"\n')
    result = runner.invoke(app, ["status", "--vault", str(vault)])
    assert result.exit_code == 1 and "config.toml" in result.stderr and "'semantic'" in result.stderr


def test_an_mcp_call_says_the_settings_are_broken_until_they_are_fixed(vault: Path) -> None:
    from krouter.agents.mcp.replies import ask_result
    from krouter.agents.mcp.service import VaultService

    service = VaultService(vault, debounce=0.05, rescan=3600)
    service.start()

    def cited() -> str | None:
        out = asyncio.run(service.run(lambda r: ask_result(r, "how much does everyone earn", 3)))
        return out["cited"][0]["path"] if out["decision"] == "cite" else None

    def refused_for_config() -> bool:
        try:
            cited()
        except ConfigError:
            return True
        return False

    try:
        assert cited() == "Team/Salaries.md"
        settings('ignore = ["Team/"]\nsemantic = "of"\n')
        wait_for(refused_for_config)
        settings('ignore = ["Team/"]\n')
        wait_for(lambda: not refused_for_config() and cited() is None)
    finally:
        service.close()


def test_setup_write_over_a_broken_config_writes_nothing(vault: Path, tmp_path: Path) -> None:
    settings('semantic = "of"\n')
    project = tmp_path / "project"
    project.mkdir()
    result = runner.invoke(
        app, ["setup", "claude-code", "--vault", str(vault), "--write", "--project", str(project)]
    )
    assert result.exit_code == 1, result.output
    assert "config.toml" in result.stderr and "'semantic'" in result.stderr
    assert list(project.iterdir()) == []
    assert not (config.state_dir() / "agent_configs.txt").exists()


def test_config_set_refuses_while_another_setting_is_broken_and_writes_nothing() -> None:
    before = 'semantic = "of"  # typo\nlearn_model = "x"\n'
    settings(before)
    result = runner.invoke(app, ["config", "set", "query_log", "false"])
    assert result.exit_code == 1, result.output
    assert "config.toml" in result.stderr and "'semantic'" in result.stderr
    assert "left as it was" in result.stderr
    assert config.config_path().read_text(encoding="utf-8") == before
    result = runner.invoke(app, ["config", "unset", "learn_model"])
    assert result.exit_code == 1 and "'semantic'" in result.stderr
    assert config.config_path().read_text(encoding="utf-8") == before


def test_config_set_fixes_the_broken_setting_even_while_another_stays_broken() -> None:
    settings("semantic = \"of\"  # typo\nquery_log = 'no'\n")
    # Either one alone would be refused if a fix had to leave the file whole: neither could be fixed.
    result = runner.invoke(app, ["config", "set", "semantic", "off"])
    assert result.exit_code == 0, result.output
    assert "still broken" in result.stderr and "'query_log'" in result.stderr
    assert (
        config.config_path().read_text(encoding="utf-8") == "semantic = \"off\"  # typo\nquery_log = 'no'\n"
    )
    result = runner.invoke(app, ["config", "set", "query_log", "false"])
    assert result.exit_code == 0 and result.stderr == "", result.output
    assert config.load_config().query_log is False and config.load_config().semantic == "off"


def test_config_set_never_writes_a_wrong_value_of_its_own() -> None:
    from krouter.config_edit import set_config_value

    settings('learn_model = "x"\n')
    with pytest.raises(ConfigError, match="'semantic' must be one of"):
        set_config_value("semantic", "of")
    assert config.config_path().read_text(encoding="utf-8") == 'learn_model = "x"\n'


def test_config_shows_what_it_can_read_of_a_broken_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KROUTER_SEMANTIC")
    settings('semantic = "of"\nlearn_model = "claude-opus"\nvault = 3\n')
    result = runner.invoke(app, ["config"])
    assert result.exit_code == 1
    assert '  learn_model = "claude-opus"\n' in result.stdout
    assert "  semantic = (broken" in result.stdout and "  vault = (broken" in result.stdout
    assert "'vault' in config.toml is broken" in result.stdout
    path = str(config.config_path())
    assert f"{path}: 'semantic' must be one of 'auto', 'on', 'off', not 'of'" in result.stderr
    assert f"{path}: 'vault' must be a string path, not 3" in result.stderr
    out = json.loads(runner.invoke(app, ["config", "--json"]).stdout)
    assert out["settings"]["learn_model"] == "claude-opus" and "semantic" not in out["settings"]
    assert set(out["problems"]) == {"semantic", "vault"}


def test_config_get_reads_a_sound_setting_and_names_a_broken_one() -> None:
    settings('semantic = "of"\nlearn_model = "claude-opus"\n')
    result = runner.invoke(app, ["config", "get", "learn_model"])
    assert result.exit_code == 0 and result.stdout == "claude-opus\n"
    assert "'semantic'" in result.stderr
    result = runner.invoke(app, ["config", "get", "semantic"])
    assert result.exit_code == 1 and result.stdout == ""
    assert f"{config.config_path()}: 'semantic' must be one of" in result.stderr


def test_config_says_where_a_file_that_is_not_toml_breaks() -> None:
    settings('learn_model = "claude\n')
    for args in (["config"], ["config", "get", "learn_model"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 1
        assert str(config.config_path()) in result.stderr and "line 1" in result.stderr


def stderr_lines(proc: subprocess.Popen[str]) -> queue.Queue[str]:
    """The lines a process writes to stderr, as they come."""
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stderr], daemon=True).start()  # type: ignore[union-attr]
    return lines


def expect(lines: queue.Queue[str], word: str) -> str:
    """The first line holding ``word`` (failing after TIMEOUT)."""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        with contextlib.suppress(queue.Empty):
            line = lines.get(timeout=0.2)
            if word in line:
                return line
    raise AssertionError(f"no {word!r} on stderr")


def test_krouter_watch_starts_over_a_broken_config_and_indexes_once_it_is_fixed(vault: Path) -> None:
    # Exiting instead made systemd's Restart=on-failure give up on the watcher for good.
    settings('ignore = ["Team/"]\nsemantic = "of"\n')
    proc = subprocess.Popen(
        [sys.executable, "-m", "krouter", "watch", "--vault", str(vault), "--debounce", "0.1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines = stderr_lines(proc)
    try:
        said = expect(lines, "config.toml")
        assert "'semantic' must be one of" in said and proc.poll() is None
        settings('ignore = ["Team/"]\n')
        expect(lines, "watching")
        index = Index(vault)
        try:
            wait_for(lambda: {row[1] for row in index.page_table()} == {"Runbooks/Deploy.md"})
        finally:
            index.close()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(TIMEOUT) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_krouter_watch_stopped_while_it_waits_for_the_config_exits_cleanly(vault: Path) -> None:
    settings('semantic = "of"\n')
    proc = subprocess.Popen(
        [sys.executable, "-m", "krouter", "watch", "--vault", str(vault)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines = stderr_lines(proc)
    try:
        expect(lines, "config.toml")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(TIMEOUT) == 0
        expect(lines, "stopped")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_the_servers_refuse_to_start_only_when_the_vault_itself_is_in_the_broken_config(
    vault: Path,
) -> None:
    settings(f'vault = {json.dumps(str(vault))}\nsemantic = "of"\n')
    for command in ("watch", "mcp"):
        result = subprocess.run(
            [sys.executable, "-m", "krouter", command],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        assert result.returncode == 1, (command, result.stderr)
        assert f"{config.config_path()}: 'semantic' must be one of" in result.stderr


def test_krouter_mcp_starts_over_a_broken_config_and_answers_once_it_is_fixed(vault: Path) -> None:
    settings('ignore = ["Team/"]\nsemantic = "of"\n')

    async def session() -> None:
        with anyio.fail_after(60):
            async with Client(server_params(vault), read_timeout_seconds=30) as client:
                ask = {"question": "how much does everyone earn"}
                broken = await client.call_tool("krouter_ask", ask)
                assert broken.is_error and "config.toml" in text_of(broken), text_of(broken)
                assert "'semantic' must be one of" in text_of(broken) and "90k" not in text_of(broken)
                status = await client.call_tool("krouter_status", {})
                assert status.is_error and "'semantic'" in text_of(status)
                settings('ignore = ["Team/"]\n')
                refused = await client.call_tool("krouter_ask", ask)
                assert not refused.is_error, text_of(refused)
                assert "Team/Salaries.md" not in text_of(refused) and "90k" not in text_of(refused)
                deploy = await client.call_tool("krouter_ask", {"question": "how do deploys go out"})
                assert "Runbooks/Deploy.md" in text_of(deploy)

    anyio.run(session)


def test_config_set_on_a_broken_file_names_the_files_own_line() -> None:
    """A cold review: the error's line numbers were those of KRouter's edited copy (line 2 of a
    one-line file)."""
    settings('learn_model = "x" \\\n')
    result = runner.invoke(app, ["config", "set", "semantic", "off"])
    assert result.exit_code == 1 and "at line 1" in result.stderr and "not TOML" in result.stderr


def test_config_set_replaces_a_setting_written_with_a_quoted_key() -> None:
    """A cold review: `"vault" = ...` was not recognised, a second vault line was added, and TOML refused
    the result."""
    settings('"vault" = "/tmp"\n')
    result = runner.invoke(app, ["config", "set", "query_log", "false"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["config", "set", "learn_model", "claude-x"])
    assert result.exit_code == 0, result.output
    text = config.config_path().read_text(encoding="utf-8")
    assert text.count("vault") == 1 and 'learn_model = "claude-x"' in text


def test_config_set_on_a_file_that_is_not_utf8_says_so_and_keeps_it() -> None:
    """A cold review: `krouter config set` over a config.toml saved in another encoding died with a
    UnicodeDecodeError traceback."""
    config.config_path().parent.mkdir(parents=True, exist_ok=True)
    config.config_path().write_bytes(b"\xff\xfeq\x00")
    result = runner.invoke(app, ["config", "set", "semantic", "off"])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert "config.toml is not UTF-8 text" in result.stderr
    assert config.config_path().read_bytes() == b"\xff\xfeq\x00"


@pytest.mark.parametrize("target", ["loop", "missing"])
def test_a_config_toml_link_that_leads_nowhere_stops_the_lookup(vault: Path, target: str) -> None:
    """A cold review: a config.toml linked into a dotfiles folder that is not there (or linked to
    itself) was read as "no settings", every default in force, and `krouter config` said "not created
    yet"; `krouter config set` over the loop died with a traceback."""
    link = config.config_path()
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(link.name if target == "loop" else link.parent / "dotfiles" / "config.toml")
    for args in (["ask", "how do we deploy", "--vault", str(vault)], ["config"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
        assert "config.toml is a symbolic link to" in result.stderr
    result = runner.invoke(app, ["config", "set", "semantic", "off"])
    if target == "loop":
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
        assert "a loop of links" in result.stderr
    else:
        # Written where the link points, as over a link whose file is there.
        assert result.exit_code == 0, result.output
        assert config.load_config().semantic == "off"


def test_a_config_toml_with_a_byte_order_mark_is_read_and_edited() -> None:
    """A cold review: saved by Windows Notepad (a UTF-8 byte-order mark), every command stopped on
    "Invalid statement (at line 1, column 1)", a line that looks right."""
    config.config_path().parent.mkdir(parents=True, exist_ok=True)
    config.config_path().write_bytes(b"\xef\xbb\xbfquery_log = false\n")
    assert config.load_config().query_log is False
    result = runner.invoke(app, ["config", "set", "semantic", "off"])
    assert result.exit_code == 0, result.output
    assert config.config_path().read_bytes() == b'semantic = "off"\nquery_log = false\n'


def test_the_daily_teaching_cap_is_set_read_and_checked() -> None:
    """``teach_daily_cap``: the owner's bound on agents' teaching a day (20 unless set)."""
    assert json.loads(runner.invoke(app, ["config", "--json"]).stdout)["settings"]["teach_daily_cap"] == 20
    result = runner.invoke(app, ["config", "set", "teach_daily_cap", "50"])
    assert result.exit_code == 0, result.output
    assert "teach_daily_cap = 50\n" in config.config_path().read_text(encoding="utf-8")
    assert config.load_config().teach_daily_cap == 50
    assert runner.invoke(app, ["config", "get", "teach_daily_cap"]).stdout == "50\n"
    # A superscript two is a digit to str.isdigit() and not a number to int().
    for wrong in ("0", "1001", "twenty", "2.5", "²", "", "9" * 5000):
        result = runner.invoke(app, ["config", "set", "teach_daily_cap", wrong])
        assert result.exit_code == 2, (wrong, result.output)
        assert "teach_daily_cap is a whole number from 1 to 1000, no decimal point" in result.stderr
    assert config.load_config().teach_daily_cap == 50
    assert runner.invoke(app, ["config", "unset", "teach_daily_cap"]).exit_code == 0
    assert config.load_config().teach_daily_cap == 20


@pytest.mark.parametrize("written", ["true", '"30"', "0", "2.0", "5000"])
def test_a_daily_teaching_cap_of_the_wrong_kind_stops_every_command(vault: Path, written: str) -> None:
    settings(f"teach_daily_cap = {written}\n")
    result = runner.invoke(app, ["ask", "how do we deploy", "--vault", str(vault)])
    assert result.exit_code == 1
    assert f"{config.config_path()}: 'teach_daily_cap' must be a whole number from 1 to 1000" in result.stderr


def test_an_integer_of_thousands_of_digits_in_config_toml_is_a_config_error(vault: Path) -> None:
    """Past int's digit limit tomllib raises a plain ValueError, which reached the user as a traceback."""
    settings("teach_daily_cap = " + "9" * 5000 + "\n")
    result = runner.invoke(app, ["ask", "how do we deploy", "--vault", str(vault)])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.exception
    assert str(config.config_path()) in result.stderr and "Traceback" not in result.output
    result = runner.invoke(app, ["config", "set", "query_log", "false"])
    assert result.exit_code == 1 and "fix it by hand" in result.stderr


def test_a_config_refuses_a_setting_it_does_not_have() -> None:
    for name in ("teach_cap", "_CHECKS", "__init__"):
        with pytest.raises(TypeError, match=f"no setting {name!r}"):
            config.Config(**{name: 3})
    assert config.Config(query_log=False).query_log is False and config.Config().query_log is True
