"""``learn.env``: the learner's API key, in the config dir, for a manual ``krouter learn`` or a cron line
to see what the service units read themselves."""

from __future__ import annotations

import os
import re
from pathlib import Path

from krouter.config import config_dir
from krouter.errors import KRouterError


def learn_env_path() -> Path:
    """``learn.env`` in the config dir: the learner's API key (``ANTHROPIC_API_KEY=...``), mode 0600."""
    return config_dir() / "learn.env"


def load_learn_env(path: Path | None = None) -> list[str]:
    """Put the variables of ``learn.env`` into this process's environment; returns their names.

    The service units read the file themselves (systemd's EnvironmentFile, launchd's wrapper); this
    makes a manual ``krouter learn`` and a cron line see the same key. A variable already set in the
    environment wins. Syntax: ``NAME=value`` lines (``export`` and surrounding quotes allowed, ``#``
    comments), as both systemd and ``sh`` read it. A missing file is no error; one that cannot be read
    is (KRouterError, naming it).
    """
    path = path or learn_env_path()
    try:
        # A stray byte that is not UTF-8 (a pasted comment) made the whole file silently unread, and the
        # run then said to put the key in the file that held it (a bug hunt). On POSIX the environment
        # holds bytes: surrogateescape carries any byte through to it unchanged.
        text = path.read_bytes().decode("utf-8", errors="surrogateescape")
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise KRouterError(f"cannot read {path}: {exc.strerror or exc}") from exc
    loaded = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        line = line.removeprefix("export ").strip()
        name, sep, value = line.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            continue
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        if name not in os.environ:
            os.environ[name] = value
            loaded.append(name)
    return loaded


def loose_permissions(path: Path | None = None) -> str | None:
    """A warning when other users than its owner can read or change ``learn.env`` (SECURITY.md says
    0600), else None."""
    path = path or learn_env_path()
    try:
        mode = path.stat().st_mode & 0o777
    except OSError:
        return None
    if not mode & 0o066:
        return None
    return (
        f"warning: {path} (where the API key goes) can be read or changed by other users (mode "
        f"{mode:04o}): chmod 600 {path}"
    )
