"""A page is mentioned by any of its names: a page that writes "Solapi" mentions the page 솔라피, aliased
Solapi, though not as a question wrote it (docs/decisions.md D113)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

from krouter.lazy_pattern import lazy_pattern
from krouter.routing.question import Unit
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
        return any(_Phrase(name).search(text) for name in names for text in texts)

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


class _Phrase:
    """The name's words in a row, as ``word_text`` writes them: whole, not inside a longer word, unless
    written in CJK, which runs its words and particles together (솔라피를). Searched in texts ``word_text``
    wrote. The pattern is compiled only for a text holding every word: most names searched are not in
    the text, and compiling a new name's pattern cost a Chinese lookup ~4 % at 10k pages."""

    def __init__(self, name: str) -> None:
        self.words = word_text(name).split()
        self._pattern: re.Pattern[str] | None = None

    def _compiled(self) -> re.Pattern[str]:
        if self._pattern is None:
            joined = r"\s*".join(map(re.escape, self.words))
            cjk = all(is_cjk(w) for w in self.words)
            self._pattern = re.compile(joined if cjk else rf"(?<!\w){joined}(?!\w)")
        return self._pattern

    def _may_hold(self, text: str) -> bool:
        return all(w in text for w in self.words)

    def search(self, text: str) -> bool:
        """True when ``text`` writes the name as a phrase."""
        return self._may_hold(text) and self._compiled().search(text) is not None

    def sub(self, repl: str, text: str) -> str:
        """``text`` with every place it writes the name replaced by ``repl``."""
        return self._compiled().sub(repl, text) if self._may_hold(text) else text


# A qualifier in brackets closing a title (a year, a sense: "Firmware release window (2025)", "第1舰队
# (日本海军)") is not written by a question that names the page.
_QUALIFIER = lazy_pattern(r"\s*[(（][^()（）]*[)）]\s*$")


def named_alone(
    t: Tables, top: int, runner_up: int, question: str, units: list[Unit], read: Callable[[str], str]
) -> str | None:
    """The top page's name (its title or file name, without a closing qualifier in brackets) when the
    question writes it whole, as a phrase, the name tells a page (``_telling_name``), no other current
    page's title or file name holds it (``_unique``), and the question writes none of the runner-up's
    names (its title, file name and aliases; ``read`` reads a page's text) outside it: the question says
    which page it asks about (docs/decisions.md D178, D179, D180). "Weekly sync" of two meetings, "Deploy
    guide" beside "Kubernetes deploy guide", 黄蝉 beside 软枝黄蝉 do not say which."""
    asked = word_text(question)
    found = next((n for n in _plain_names(t, top) if _Phrase(n).search(asked) and _telling_name(n)), None)
    if found is None or not _unique(found, t, top, units, read):
        return None
    rest = _Phrase(found).sub(" ", asked)
    return None if any(_Phrase(n).search(rest) for n in _all_names(t, runner_up, read)) else found


# The most pages the rarest word of a name may title for the name to be checked as telling one page.
_MOST_TITLED = 1000


def _unique(name: str, t: Tables, top: int, units: list[Unit], read: Callable[[str], str]) -> bool:
    """True when no page but ``top`` and the pages it replaced has a title, file name or alias that holds
    ``name`` as a phrase (a closing qualifier dropped: "Budget (2024)" holds "Budget"; a replaced page's
    name is its replacement's too), found through the rarest question word the name writes; False when
    none can be read (it titles more than _MOST_TITLED pages). ``read`` reads a page's text, for its
    aliases."""
    own = word_text(name)
    words = set(own.split())
    parts = [
        u for u in units if (w := word_text(u.text).strip()) and (w in words or (is_cjk(w) and w in own))
    ]
    if not parts:
        return False
    rarest = min(parts, key=lambda u: len(u.postings))
    if len(rarest.postings) > _MOST_TITLED:
        return False
    phrase = _Phrase(name)
    mine = {top, *t.predecessors.get(top, ())}
    for pid, tf in rarest.postings.items():
        if pid in mine or not tf[0] or pid not in t.pages:
            continue
        if any(phrase.search(word_text(other)) for other in _all_names(t, pid, read)):
            return False
    return True


def _all_names(t: Tables, pid: int, read: Callable[[str], str]) -> Iterator[str]:
    """The page's title and file name (each without a closing qualifier), then its aliases, read from
    the page only when a caller's search gets past the first two (which usually settle it)."""
    from krouter.vault.page import parse_page

    yield from (n for n in _plain_names(t, pid) if word_text(n).strip())
    path = t.pages[pid].path
    yield from (n for n in parse_page(path, read(path)).aliases if word_text(n).strip())


def _plain_names(t: Tables, pid: int) -> list[str]:
    """The page's title and file name, each without its closing qualifier in brackets."""
    return list(dict.fromkeys(_QUALIFIER.sub("", name).strip() for name, _parts in t.names_of(pid)))


def _telling_name(name: str) -> bool:
    """True for a name that tells a page, as a Latin one must: of several words, or one word that is a
    name (``is_name``: Zorvane, 黄蝉, not Travel, 旅行) of four letters or two Han characters or more."""
    parts = word_text(name).split()
    if not parts or not any(map(has_letter, parts)):
        return False
    if len(parts) > 1:
        return True
    shortest = _SHORTEST_CJK if is_cjk(parts[0]) else _SHORTEST_LATIN
    return len(parts[0]) >= shortest and is_name(parts[0])
