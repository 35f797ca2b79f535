"""How an agent runs this very KRouter: the command an MCP config or a hook starts, and the one a shell
snippet or a recall block tells the agent to type."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

# What the console script is called where pip installs it (POSIX, and Windows' launcher).
_SCRIPT_NAMES = ("krouter", "krouter.exe")


def server_command() -> list[str]:
    """How an agent should start this very KRouter: the running ``krouter`` script's absolute path, or
    this interpreter with ``-m krouter``.

    Never a PATH lookup: GUI editors such as Cursor do not inherit the shell's PATH, and the first
    ``krouter`` on PATH may be another install than the one the user is setting up.
    """
    script = Path(sys.argv[0] if sys.argv else "").resolve()
    if script.name in _SCRIPT_NAMES and script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    # Not resolved: a venv's python is a symlink, and following it would leave the venv behind.
    return [sys.executable, "-m", "krouter"]


def shell_words() -> list[str]:
    """What a shell command of an agent's snippet or a recall block starts with: ``krouter`` when that
    is this KRouter on PATH, else ``server_command()``. A venv install is on no PATH: "run krouter ask"
    failed in the agent's shell, 127 (a bug hunt)."""
    words = server_command()
    found = shutil.which("krouter")
    if len(words) == 1 and found is not None and Path(found).resolve() == Path(words[0]).resolve():
        return ["krouter"]
    return words
