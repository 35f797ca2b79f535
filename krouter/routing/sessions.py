"""Imported agent sessions: a question the user asked there is not an answer to it.

`krouter import` writes one page per agent session: its title is the user's first question, and its
body the turns, ``**User**: ...`` and ``**Assistant**: ...``. Asked again, that question matched the
page by every word of it (title and turn), at full confidence, also when the reply was "I could not
find it" (a cold review). On such a page the answer is in the assistant's turns: when none of them
holds a word of the question, the page only shows the question was asked before.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from krouter.errors import KRouterError
from krouter.routing.receipt import Receipt
from krouter.routing.tables import Tables
from krouter.tokens.scripts import char_bigrams, is_cjk
from krouter.tokens.terms import index_terms, query_terms
from krouter.vault.page import parse_page

# What `krouter import` writes in a session page's ``format`` field (agents/sessions/transcripts.py).
_FORMATS = frozenset({"claude-code", "codex", "jsonl"})
_TURN = re.compile(r"^\*\*(User|Assistant)\*\*: ?", re.M)


def not_only_asked(question: str, chosen: Receipt, tables: Tables, read: Callable[[str], str]) -> Receipt:
    """``chosen``, or its citation refused when it cites an imported agent session (a clipping) in which
    the user only asked ``question`` (``only_asked``). Other citations are left as they are, unread."""
    top = chosen.top
    if chosen.decision != "cite" or top is None or tables.by_path.get(top.path) not in tables.inputs:
        return chosen
    try:
        why = only_asked(question, top.path, read(top.path))
    except (KRouterError, OSError):
        return chosen
    return refused(chosen, why) if why else chosen


def only_asked(question: str, path: str, text: str) -> str | None:
    """Why the imported session at ``path`` does not answer ``question``: none of its assistant turns
    holds a content word of it (then every word it matched is the user's own asking); None when the page
    is no imported session, or a reply holds one."""
    page = parse_page(path, text)
    if str(page.meta.get("format")) not in _FORMATS or "session_id" not in page.meta:
        return None
    replies: list[str] = []
    turns = _TURN.split(page.body)
    # split gives [before, role, text, role, text, ...]
    for role, said in zip(turns[1::2], turns[2::2], strict=True):
        if role == "Assistant":
            replies.append(said)
    held = set(index_terms("\n".join(replies)))
    words = [qt for qt in query_terms(question) if qt.term]
    if not words or any(_holds(held, qt.term) for qt in words):
        return None
    return (
        f"{path} is an imported agent session in which the user asked this; none of its replies holds "
        f"{', '.join(repr(qt.text) for qt in words)}: it shows the question was asked, not its answer"
    )


def _holds(terms: set[str], term: str) -> bool:
    # A CJK word the replies do not hold as a word may hold it by its characters' bigrams, as pages do.
    if term in terms:
        return True
    grams = char_bigrams(term) if is_cjk(term) and len(term) > 1 else []
    return bool(grams) and all(g in terms for g in grams)


def refused(receipt: Receipt, why: str) -> Receipt:
    """``receipt``'s citation refused for ``why``, its confidence none (as a veto's), the words' kept in
    the reason."""
    words = receipt.evidence.confidence
    return replace(
        receipt,
        decision="refuse",
        evidence=replace(receipt.evidence, confidence=0.0),
        reason=f"{why} (the words' confidence {words:.0%})",
    )
