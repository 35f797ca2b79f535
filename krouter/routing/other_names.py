"""A page is mentioned by any of its names: a page that writes "Solapi" mentions the page 솔라피, aliased
Solapi, though not as a question wrote it (docs/decisions.md D113)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from krouter.lazy_pattern import lazy_pattern
from krouter.routing.tables import Tables
from krouter.tokens.names import has_letter, is_name
from krouter.tokens.scripts import is_cjk
from krouter.tokens.terms import word_text

# A name this short is an abbreviation or a fragment that other words share (DB, HR, Jan, 王): a page
# writing it has not been shown to mention the page it names (a cold review: Deutsche Bahn, aliased DB,
# "mentioned" by every page about a database).
_SHORTEST_LATIN = 4
_SHORTEST_CJK = 2


def mentioned_by_name(t: Tables, read: Callable[[str], str], mine: set[int]) -> Callable[[int], bool]:
    """Whether one of the pages ``mine`` writes one of a page's names whole, as a phrase: its title,
    file name or an alias that is a name (every word ``is_name``, none of it too short to tell). A
    runbook that writes Solapi mentions the page 솔라피, aliased Solapi, though not as the question wrote
    it (an agent-loop run: its Korean question was refused on the runbook that answers it). Pages are
    read (``read``: the lookup's ``PageReads.text``, which has the cited page's text already) only
    when a question names another page."""
    texts: list[str] = []

    def mentioned(pid: int) -> bool:
        from krouter.vault.page import parse_page

        path = t.pages[pid].path
        page = parse_page(path, read(path))
        names = [n for n in {page.title, Path(path).stem, *page.aliases} if _telling(n)]
        if not names:
            return False
        if not texts:
            texts.extend(word_text(read(t.pages[p].path)) for p in sorted(mine) if p in t.pages)
        return any(_phrase(name).search(text) for name in names for text in texts)

    return mentioned


# A service's or a repository's name as code writes it (pay-api, notify_svc): one name, whatever the
# dictionary says of its parts. An agent-loop run (D136) had "결제 서버 PR…" refused on the code review
# page, which writes `pay-api`, the payment server page's alias, as a page that "never mentions" it.
_IDENTIFIER = lazy_pattern(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+")


def _telling(name: str) -> bool:
    """True for a name long enough, and made of names only (or written as code writes an identifier),
    to tell which page it is."""
    parts = word_text(name).split()
    if _IDENTIFIER.fullmatch(name.strip()) and len("".join(parts)) >= _SHORTEST_LATIN:
        return True
    if not parts or not all(map(is_name, parts)):
        return False
    shortest = _SHORTEST_CJK if all(is_cjk(p) for p in parts) else _SHORTEST_LATIN
    return len("".join(parts)) >= shortest


def _phrase(name: str) -> re.Pattern[str]:
    """The name's words in a row, as ``word_text`` writes them: whole, not inside a longer word, unless
    written in CJK, which runs its words and particles together (솔라피를)."""
    words = word_text(name).split()
    joined = r"\s*".join(map(re.escape, words))
    return re.compile(joined if all(is_cjk(w) for w in words) else rf"(?<!\w){joined}(?!\w)")


# A qualifier in brackets closing a title (a year, a sense: "Firmware release window (2025)", "第1舰队
# (日本海军)") is not written by a question that names the page.
_QUALIFIER = lazy_pattern(r"\s*[(（][^()（）]*[)）]\s*$")


def named_alone(t: Tables, top: int, runner_up: int, question: str) -> str | None:
    """The top page's name (its title or file name, without a closing qualifier in brackets) when the
    question writes it whole, as a phrase, and writes none of the runner-up's outside it: the question
    says which page it asks about (docs/decisions.md D178). A name must tell a page: a Han name two characters or
    more, a Latin one of one word a name (``is_name``: Zorvane, not Travel) of four letters or more."""
    asked = word_text(question)
    found = next((name for name in _names(t, top) if _phrase(name).search(asked)), None)
    if found is None:
        return None
    # A name written only inside the top page's (黄蝉 of 软枝黄蝉) is not written by the question.
    rest = _phrase(found).sub(" ", asked)
    return None if any(_phrase(name).search(rest) for name in _names(t, runner_up)) else found


def _names(t: Tables, pid: int) -> list[str]:
    """The page's title and file name that can tell it, each without its closing qualifier."""
    names = []
    for name, _parts in t.names_of(pid):
        plain = _QUALIFIER.sub("", name).strip()
        parts = word_text(plain).split()
        if not parts or not any(map(has_letter, parts)):
            continue
        if all(is_cjk(p) for p in parts):
            telling = len("".join(parts)) >= _SHORTEST_CJK
        elif len(parts) == 1:
            telling = len(parts[0]) >= _SHORTEST_LATIN and is_name(parts[0])
        else:
            telling = True
        if telling and plain not in names:
            names.append(plain)
    return names
