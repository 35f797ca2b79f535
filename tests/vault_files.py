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


_FILLER_WORDS = (
    "garden budget holiday recipe invoice laptop printer dentist birthday football piano insurance mortgage "
    "passport hotel flight train museum library coffee bakery bicycle helmet camera lens battery charger "
    "keyboard monitor desk chair lamp plant tomato basil garlic onion pepper salt sugar flour butter cheese"
).split()


def filler(n: int = 30) -> dict[str, str]:
    """``n`` unrelated notes (Misc/Note 000.md …), so that words weigh as in a real vault: in a vault of a
    few pages every word is rare, and a page matching one word of a question clears any floor."""
    pages = {}
    for i in range(n):
        words = [_FILLER_WORDS[(i * 7 + j * 3) % len(_FILLER_WORDS)] for j in range(16)]
        pages[f"Misc/Note {i:03d}.md"] = f"# Note {i:03d}\n\n{' '.join(words[:8])}.\n{' '.join(words[8:])}.\n"
    return pages
