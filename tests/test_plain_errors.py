"""File-system errors reach the user as one plain line naming the path and the problem, never as a
traceback or a raw ``[Errno N]`` message (a file where a folder is needed, a read-only folder)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from learn_vault import CODE_REVIEW, GOOD_QUOTE, MERGE_Q, PAGES, snapshot, write_vault
from typer.testing import CliRunner

from krouter.cli import app

REPO = Path(__file__).resolve().parents[1]
runner = CliRunner()


def krouter_bound_by_permissions(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the real command where permission bits bind: as root, without the capabilities that let
    root write into a read-only folder (so a chmod'ed folder refuses writes as it would for a user)."""
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: permission bits do not bind")
        prefix = [setpriv, "--bounding-set=-dac_override,-dac_read_search"]
    return subprocess.run(
        [*prefix, sys.executable, "-m", "krouter", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[Path]:
    """An empty folder nobody may write into (restored afterwards, so tmp_path can be removed)."""
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    yield folder
    folder.chmod(0o755)


def one_plain_line(stderr: str) -> str:
    """The error's one line, checked free of tracebacks and errno numbers."""
    assert "Traceback" not in stderr and "Errno" not in stderr, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


# --- krouter init ------------------------------------------------------------------------------------


def test_init_under_a_file_names_the_file_in_the_way(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("a file", encoding="utf-8")
    result = runner.invoke(app, ["init", str(tmp_path / "f" / "sub")])
    assert result.exit_code == 1
    line = one_plain_line(result.stderr)
    assert line.startswith("krouter: cannot create the vault ") and str(tmp_path / "f" / "sub") in line
    assert f"{tmp_path / 'f'} is a file, not a folder" in line
    assert (tmp_path / "f").read_text(encoding="utf-8") == "a file"


def test_init_where_the_system_allows_no_folder_says_so(tmp_path: Path) -> None:
    if not Path("/proc/self").is_dir():
        pytest.skip("no /proc here")
    result = runner.invoke(app, ["init", "/proc/krouter-vault"])
    assert result.exit_code == 1
    line = one_plain_line(result.stderr)
    assert "cannot create the vault /proc/krouter-vault" in line


def test_init_in_a_read_only_folder_says_the_folder_is_read_only(tmp_path: Path, read_only: Path) -> None:
    result = krouter_bound_by_permissions("init", "ro/v", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    line = one_plain_line(result.stderr)
    assert line == "krouter: cannot create the vault ro/v: the folder ro is read-only (permission denied)"
    assert not (read_only / "v").exists()


# --- import, setup --write, learn --accept -----------------------------------------------------------


TRANSCRIPT = (
    '{"session_id": "s1", "role": "user", "content": "which database do we use"}\n'
    '{"session_id": "s1", "role": "assistant", "content": "PostgreSQL 16, for every service"}\n'
)


def test_import_into_a_read_only_vault_names_the_folder(tmp_path: Path) -> None:
    (tmp_path / "s.jsonl").write_text(TRANSCRIPT, encoding="utf-8")
    vault = tmp_path / "notes"
    (vault / "Decisions").mkdir(parents=True)
    vault.chmod(0o555)
    try:
        plain = krouter_bound_by_permissions("import", "s.jsonl", "--vault", "notes", cwd=tmp_path)
        as_json = krouter_bound_by_permissions(
            "import", "s.jsonl", "--vault", "notes", "--json", cwd=tmp_path
        )
    finally:
        vault.chmod(0o755)
    expected = "cannot create Inputs: the folder notes is read-only (permission denied)"
    assert plain.returncode == 1
    assert one_plain_line(plain.stderr) == f"krouter: {expected}"
    assert as_json.returncode == 1
    assert json.loads(as_json.stdout) == {"error": expected, "exit_code": 1}


def test_setup_write_into_a_file_says_the_project_is_not_a_folder(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("a file", encoding="utf-8")
    args = ["setup", "cursor", "--write", "--vault", str(tmp_path), "--project", str(tmp_path / "f")]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert (
        one_plain_line(result.stderr) == f"krouter: project folder {tmp_path / 'f'} is a file, not a folder"
    )


def test_setup_write_never_creates_a_misspelt_project_folder(tmp_path: Path) -> None:
    args = ["setup", "cursor", "--write", "--vault", str(tmp_path), "--project", str(tmp_path / "typo_dir")]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert one_plain_line(result.stderr) == f"krouter: project folder not found: {tmp_path / 'typo_dir'}"
    assert not (tmp_path / "typo_dir").exists()


def test_accepting_into_a_read_only_folder_names_the_page_not_a_temp_file(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "vault", PAGES)
    taught = runner.invoke(
        app, ["teach", MERGE_Q, "--page", CODE_REVIEW, "--quote", GOOD_QUOTE, "--vault", str(vault)]
    )
    assert taught.exit_code == 3, taught.output
    pid = taught.stdout.split("krouter learn --accept ", 1)[1].split()[0]
    before = snapshot(vault)
    (vault / "Runbooks").chmod(0o555)
    try:
        plain = krouter_bound_by_permissions("learn", "--accept", pid, "--vault", "vault", cwd=tmp_path)
        as_json = krouter_bound_by_permissions(
            "learn", "--accept", pid, "--vault", "vault", "--json", cwd=tmp_path
        )
    finally:
        (vault / "Runbooks").chmod(0o755)
    # Skipped and reported as a read-only page is (the nightly run and undo go on to their next page);
    # the pick stays pending for an accept once the folder can be written.
    expected = (
        f"Code review.md could not be written: the folder {vault / 'Runbooks'} is read-only (permission denied); "
        "left as it is"
    )
    assert plain.returncode == 3
    assert plain.stdout.strip() == f"pending {pid} not written, it stays pending: {expected}"
    assert ".tmp" not in plain.stdout + plain.stderr
    assert json.loads(as_json.stdout) == {
        "pending_id": pid,
        "status": "skipped",
        "reason": expected,
        "run_id": None,
    }
    assert snapshot(vault) == before


def test_teaching_with_a_read_only_state_folder_names_it(
    tmp_path: Path, read_only: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_vault(tmp_path / "vault", PAGES)
    monkeypatch.setenv("KROUTER_STATE_DIR", str(read_only / "state"))
    args = ("teach", MERGE_Q, "--page", CODE_REVIEW, "--quote", GOOD_QUOTE, "--vault", "vault")
    result = krouter_bound_by_permissions(*args, cwd=tmp_path)
    assert result.returncode == 1
    assert one_plain_line(result.stderr) == (
        f"krouter: cannot create {read_only / 'state'}: the folder {read_only} is read-only (permission denied)"
    )


def test_a_file_system_error_no_command_words_is_still_one_line(
    tmp_path: Path, read_only: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KROUTER_CONFIG_DIR", str(read_only / "config"))
    result = krouter_bound_by_permissions("config", "set", "semantic", "off", cwd=tmp_path)
    assert result.returncode == 1
    assert one_plain_line(result.stderr) == (
        f"krouter: cannot create {read_only / 'config'}: the folder {read_only} is read-only (permission denied)"
    )


@pytest.mark.parametrize("command", [["status", "--json"], ["check"], ["index"], ["ask", "hello", "--json"]])
def test_a_vault_under_a_folder_nobody_may_read_is_one_plain_line(tmp_path: Path, command: list[str]) -> None:
    """A cold review: Path.exists raised PermissionError inside the error handler itself, so every
    command printed two chained tracebacks (and no JSON under --json)."""
    parent = tmp_path / "locked"
    (parent / "vault").mkdir(parents=True)
    (parent / "vault" / "Page.md").write_text("# Page\n\nText.\n", encoding="utf-8")
    parent.chmod(0)
    try:
        res = krouter_bound_by_permissions(*command, "--vault", str(parent / "vault"), cwd=tmp_path)
    finally:
        parent.chmod(0o755)
    assert res.returncode == 1
    assert "permission denied" in one_plain_line(res.stderr)
    if "--json" in command:
        assert "permission denied" in json.loads(res.stdout)["error"]
