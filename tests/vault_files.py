"""Writing a test vault's pages: one helper for the tests that build theirs page by page."""

from __future__ import annotations

from pathlib import Path


def write(root: Path, pages: dict[str, str]) -> Path:
    """Write each page (its path under ``root``: its text, UTF-8), making folders as needed."""
    for rel, text in pages.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
