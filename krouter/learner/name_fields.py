"""Which of another page's names holds a word: what a teach doubt says of "another page".

An agent-loop run read "it lacks 'call', which names another page (Runbooks/Cloud incident
response.md)", looked for "call" in that title and did not find it: the word was in an alias. The doubt
now says which name holds it (D133).
"""

from __future__ import annotations

from pathlib import Path

from krouter.errors import KRouterError
from krouter.tokens.scripts import is_cjk
from krouter.tokens.terms import index_terms
from krouter.vault.files import contained_path, read_contained
from krouter.vault.page import parse_page


def naming_field(root: Path, rel: str, word: str) -> str | None:
    """How the page at ``rel`` holds ``word`` among its names: "its title 'X'", "its alias 'X'", "its tag
    'X'" or "its path"; None when none does or the page cannot be read. ``word`` as a doubt shows it: a
    word matched through the dictionary ("work→工作") is held as its translation."""
    held = word.rsplit("→", 1)[-1]
    try:
        page = parse_page(rel, read_contained(root, contained_path(root, rel)).decode("utf-8-sig"))
    except (KRouterError, OSError, UnicodeDecodeError):
        return None
    terms = set(index_terms(held))

    def holds(name: str) -> bool:
        # A single Han character is part of a name (电 of 电池供应商), not a term of its own there.
        if len(held) == 1 and is_cjk(held):
            return held in name
        return bool(terms) and terms <= set(index_terms(name))

    for kind, names in (("title", [page.title]), ("alias", page.aliases), ("tag", page.tags)):
        found = next((name for name in names if name and holds(name)), None)
        if found is not None:
            return f"its {kind} {found!r}"
    return "its path" if holds(rel) else None
