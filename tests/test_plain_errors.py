"""File-system errors reach the user as one plain line naming the path and the problem, never as a
traceback or a raw ``[Errno N]`` message (a file where a folder is needed, a read-only folder)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
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
