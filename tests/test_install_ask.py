"""install.sh --ask, the questions a person answers at a terminal, run under a pseudo-terminal.

The installer's venv is a stand-in whose python is this interpreter with ``-m pip`` made a no-op (the
real install is ``test_install``'s, a minute long): what is tested is what the questions lead to.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import sys
import time
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
INSTALL_SH = ROOT / "install.sh"

pytestmark = pytest.mark.skipif(
    sys.platform == "win32" or shutil.which("sh") is None, reason="install.sh is for POSIX systems"
)


def _answer(args: list[str], env: dict[str, str], answers: list[str], timeout: float = 120) -> str:
    """Run ``args`` on a pseudo-terminal, typing each answer when a question ends in ':' or ']'."""
    import pty

    pid, fd = pty.fork()
    if pid == 0:
        os.execve(args[0], args, env)
    out, left = b"", list(answers)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        # Never a blocking read: a question nobody answers must end the test, not hang it.
        if not select.select([fd], [], [], 0.5)[0]:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
        if left and out.rstrip().endswith((b":", b"]")):
            os.write(fd, left.pop(0).encode())
            out += b"\n"
    else:
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    os.close(fd)
    return out.decode(errors="replace")


def _stand_in(tmp_path: Path) -> dict[str, str]:
    """A HOME whose KRouter venv is a stand-in (this interpreter, pip a no-op), and the environment."""
    home = tmp_path / "home"
    venv_bin = home / ".local/share/krouter/venv/bin"
    venv_bin.mkdir(parents=True)
    python = venv_bin / "python"
    python.write_text(f'#!/bin/sh\n[ "$1 $2" = "-m pip" ] && exit 0\nexec {sys.executable} "$@"\n')
    krouter = venv_bin / "krouter"
    krouter.write_text(f'#!/bin/sh\nexec {sys.executable} -m krouter "$@"\n')
    python.chmod(0o755)
    krouter.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KROUTER_", "XDG_"))}
    env.update(
        HOME=str(home),
        KROUTER_CONFIG_DIR=str(tmp_path / "config"),
        KROUTER_STATE_DIR=str(tmp_path / "state"),
        KROUTER_CACHE_DIR=str(tmp_path / "cache"),
        KROUTER_NO_TIMER="1",
        KROUTER_PYTHON=sys.executable,
        KROUTER_SOURCE=str(ROOT),
        PYTHONPATH=str(ROOT),
    )
    return env


def test_creating_a_vault_when_asked_records_it_once(tmp_path: Path) -> None:
    """A cold review: ``krouter init`` recorded the new vault in config.toml, then the installer, which
    had read the setting before init ran, put a second ``vault =`` line above it: invalid TOML, and every
    later krouter command failed."""
    env = _stand_in(tmp_path)
    notes = tmp_path / "notes"
    out = _answer(["/bin/sh", str(INSTALL_SH), "--ask"], env, [f"{notes}\n", "y\n"])
    config = (tmp_path / "config" / "config.toml").read_text(encoding="utf-8")
    assert tomllib.loads(config)["vault"] == str(notes.resolve()), out
    assert config.count("vault =") == 1, config


def test_an_existing_vault_is_recorded_through_a_linked_config_keeping_its_lines(tmp_path: Path) -> None:
    """A cold review: the installer wrote config.toml as a new file renamed over it: a config.toml linked
    from a dotfiles folder became a file of its own, and the dotfiles copy never got the vault."""
    env = _stand_in(tmp_path)
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "Pager.md").write_text("# Pager\n\nThe pager rotation is weekly.\n", encoding="utf-8")
    dotfiles = tmp_path / "dotfiles" / "config.toml"
    dotfiles.parent.mkdir()
    dotfiles.write_bytes(b"# my settings\r\nquery_log = false\r\n")
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.toml").symlink_to(dotfiles)
    out = _answer(["/bin/sh", str(INSTALL_SH), "--ask"], env, [f"{notes}\n"])
    assert (tmp_path / "config" / "config.toml").is_symlink(), out
    assert dotfiles.read_bytes() == (
        f'vault = "{notes.resolve()}"\r\n# my settings\r\nquery_log = false\r\n'.encode()
    ), out
