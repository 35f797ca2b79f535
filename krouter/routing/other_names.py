"""A page is mentioned by any of its names: a page that writes "Solapi" mentions the page 솔라피, aliased
Solapi, though not as a question wrote it (docs/decisions.md D113)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from krouter.index.store import Index
from krouter.routing.tables import Tables
from krouter.tokens.names import is_name
from krouter.tokens.terms import query_terms, word_text


def mentioned_by_name(index: Index, t: Tables, root: Path, mine: set[int]) -> Callable[[int], bool]:
    """Whether the pages ``mine`` hold every word of one of a page's names that is a name (``is_name``):
    its title, file name or an alias. A runbook that writes Solapi mentions the page 솔라피, aliased
    Solapi, though not as the question wrote it (an agent-loop run: its Korean question was refused on
    the runbook that answers it). The page is read only when a question names it."""

    def mentioned(pid: int) -> bool:
        from krouter.vault.page import parse_page

        path = t.pages[pid].path
        try:
            text = (root / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return False
        page = parse_page(path, text)
        for name in {page.title, Path(path).stem, *page.aliases}:
            parts = word_text(name).split()
            if not parts or not all(map(is_name, parts)):
                continue
            terms = [qt.term for qt in query_terms(name, known=index.has_term)]
            if terms and all(_held_by(index, term, mine) for term in terms):
                return True
        return False

    return mentioned


def _held_by(index: Index, term: str, pages: set[int]) -> bool:
    """True when one of ``pages`` holds ``term`` in its title, aliases, tags, path or text."""
    found = index.holding(term, copy=False)
    return any(found[p][0] or found[p][2] for p in pages if p in found)
