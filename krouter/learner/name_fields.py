"""Question words that other pages' names hold (a teach doubt, D130), and which name holds each.

An agent-loop run read "it lacks 'call', which names another page (Runbooks/Cloud incident
response.md)", looked for "call" in that title and did not find it: the word was in an alias. The doubt
now says which name holds it (D133).
"""

from __future__ import annotations

from pathlib import Path

from krouter.errors import KRouterError
from krouter.routing.router import Router
from krouter.tokens.scripts import has_han, is_cjk
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


def lacked_name_words(router: Router, question: str, page: str, written: str) -> list[tuple[str, str]]:
    """The question's words this page lacks (as written and by every route) while another current
    page's title, aliases, tags or path hold them as written, each with such a page: every one, not the
    first alone, for the owner vouches for what a hold lists (a cold review, D133).

    Such a word may name another subject ("frontend" when a "Frontend team" page exists): written onto
    this page it makes a trigger that the router counts only for a question holding it whole
    (``fired_triggers.fired_triggers``), and it may be the mark of a neighbour, not of a rewording, as often
    as an everyday word a name or a tag holds (D130). A single Han character is only part of what
    another page is called (电 of 电池供应商), and the reply says so; it is checked all the same: on the
    learner bench, letting it pass let a plausible-but-wrong teacher make one more neighbour citeable.
    ``written`` is the page's title and text (not its triggers).
    """
    rows = router.index.page_table()
    pid = next((r[0] for r in rows if r[1] == page), None)
    live = {r[0]: r[1] for r in rows if not r[4]}
    # A word the page holds through a route (db→database of its title, a translation) is not lacking;
    # nor is a single Han character on a page that writes none (it has no translation to be held by).
    held = router.held_words(question, page)
    han = has_han(written)
    found: list[tuple[str, str]] = []
    for qt in router.question_words(question):
        if qt.text in held or (len(qt.term) == 1 and is_cjk(qt.term) and not han):
            continue
        postings = {r[0]: r[1:] for r in router.index.postings(qt.term)}
        own = postings.get(pid) if pid is not None else None
        if own and (own[0] or own[2]):
            continue
        other = sorted(live[p] for p, tf in postings.items() if tf[0] and p != pid and p in live)
        if other and all(qt.text != word for word, _ in found):
            found.append((qt.text, other[0]))
    return found


def only_replaced(router: Router, question: str, words: list[str], ignore: set[int]) -> str | None:
    """A replaced page holding ``words`` (the question's, as shown) when only replaced pages do (besides
    ``ignore``), or None: a teach doubt over such a word says so, as the lookup's reason does."""
    rows = router.index.page_table()
    replaced = {row[0]: row[1] for row in rows if row[4]}
    holders: set[int] = set()
    for qt in router.question_words(question):
        if qt.text in words:
            holders |= {row[0] for row in router.index.postings(qt.term)} - ignore
    if not holders or not holders <= replaced.keys():
        return None
    return min(replaced[pid] for pid in holders)
