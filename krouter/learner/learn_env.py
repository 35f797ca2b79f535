"""``learn.env``: the learner's API key, in the config dir, for a manual ``krouter learn`` or a cron line
to see what the service units read themselves."""

from __future__ import annotations

import os
import re
from pathlib import Path

from krouter.config import config_dir


def learn_env_path() -> Path:
    """``learn.env`` in the config dir: the learner's API key (``ANTHROPIC_API_KEY=...``), mode 0600."""
    return config_dir() / "learn.env"


def load_learn_env(path: Path | None = None) -> list[str]:
    """Put the variables of ``learn.env`` into this process's environment; returns their names.

    The service units read the file themselves (systemd's EnvironmentFile, launchd's wrapper); this
    makes a manual ``krouter learn`` and a cron line see the same key. A variable already set in the
    environment wins. Syntax: ``NAME=value`` lines (``export`` and surrounding quotes allowed, ``#``
    comments), as both systemd and ``sh`` read it. A missing file is no error.
    """
    path = path or learn_env_path()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
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
