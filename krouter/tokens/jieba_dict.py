"""jieba's dictionary file, where the installed package keeps it, and the word counts it holds."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def counts() -> dict[str, int]:
    """How often jieba's dictionary says each Chinese word occurs; empty when jieba's file is missing."""
    path = location()
    found: dict[str, int] = {}
    if path is None:
        return found
    try:
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                parts = line.split(maxsplit=2)
                if len(parts) >= 2 and parts[1].isdigit():
                    found[parts[0]] = int(parts[1])
    except (OSError, UnicodeDecodeError):
        # Unread counts leave the translations in the dictionary's order, not the dictionary unusable.
        return {}
    return found


def location() -> Path | None:
    """jieba's dictionary file (a word, its count and its part of speech a line), or None."""
    spec = importlib.util.find_spec("jieba")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "dict.txt"
    return path if path.is_file() else None
