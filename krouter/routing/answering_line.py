"""Which line of a cited passage answers: the receipt points a reader at it.

A passage runs from a heading, a list item, a table row or a paragraph's first line; the line shown is
the one holding most of the question's weight, where a section heading's words count for the lines
under it and words inside wiki links name other pages (docs/decisions.md D138).
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable

from krouter.lazy_pattern import lazy_pattern
from krouter.routing.question import Unit
from krouter.tokens.grouped_numbers import grouped_beside
from krouter.tokens.terms import AMOUNT, english_terms, word_text
from krouter.vault.md_tables import cells, headers

# A passage as a lookup reads it: (first line, the question's terms it holds).
HeldPassage = tuple[int, frozenset[str]]


def answering_line(best: HeldPassage, rows: list[str], units: list[Unit]) -> int:
    """The line of passage ``best`` (its lines ``rows``) that holds most of the question's weight: a
    heading and the sentence under it with no blank line between are one passage, and the receipt's
    line should be the sentence ("Flags are reviewed monthly."), not the heading, whose words count in
    every line under it (a line's own words break the tie). Words inside wiki links are not weighed
    ("([[Decisions/Card processor]])" continuing the sentence above it). Lines are matched on their text
    (a unit's route terms found in it; a number grouped in thousands either way); with no line
    matching, the passage's first line stands, or under a heading the first line stating something. A
    passage may run to the end of a long page (a transcript or log with no blank line): only the lines
    holding a route term are weighed, found by searching the passage's text at once."""
    first = best[0]
    block = grouped_beside(word_text("\n".join(rows)))
    plain_rows = block.split("\n")
    if len(plain_rows) != len(rows):
        # A character that normalises to a line break (none known): weigh every line on its own.
        plain_rows = [grouped_beside(word_text(row)) for row in rows]
        block = "\n".join(plain_rows)
    starts = list(itertools.accumulate((len(row) + 1 for row in plain_rows[:-1]), initial=0))
    candidates: set[int] = set()
    for term in {term.removeprefix(AMOUNT) for term in route_terms(units)}:
        at = block.find(term)
        while at != -1:
            candidates.add(bisect.bisect_right(starts, at) - 1)
            at = block.find(term, at + 1)

    def held(plain: str) -> set[int]:
        return {
            i
            for i, u in enumerate(units)
            if any(all(on_line(plain, term.removeprefix(AMOUNT)) for term in alt) for alt in u.alts)
        }

    def weight(found: set[int]) -> float:
        return sum(units[u].weight for u in found)

    chosen, top = first, (0.0, 0.0)
    over: set[int] = set()
    stating = 0
    if len(rows) > 1 and rows[0].startswith("#"):
        over = held(plain_rows[0])
        stating = next((i for i in range(1, len(rows)) if _states(rows[i])), 0)
        chosen = first + stating
    for i in sorted(candidates):
        # The heading itself stands only when nothing under it states anything.
        if i == 0 and stating:
            continue
        own = held(plain_rows[i] if "[[" not in rows[i] else grouped_beside(word_text(_unlinked(rows[i]))))
        if not own:
            continue
        score = (weight(own | over) if i else weight(own), weight(own))
        if score > top:
            chosen, top = first + i, score
    return chosen


def on_line(plain: str, term: str) -> bool:
    """Whether a line (read as ``word_text`` reads it) writes a term: a Latin word or a number where a
    word of the line starts with it (a stem, "rotat" of "rotates"), not inside another word ("day" of
    "Monday" made the handoff line answer "who gets a day off after on-call", a first-hour trial), where
    a Han character may stand just before it (用Redis, 超时30秒: a cold review); a Chinese term anywhere,
    as Chinese is written without spaces."""
    if not term or not term[0].isascii() or not term[0].isalnum():
        return term in plain
    at = plain.find(term)
    while at != -1:
        if at == 0 or not (plain[at - 1].isascii() and plain[at - 1].isalnum()):
            return True
        at = plain.find(term, at + 1)
    return False


def keyed_row(
    best: HeldPassage,
    passages: list[HeldPassage],
    text_lines: list[str],
    units: list[Unit],
    fenced: set[int],
) -> HeldPassage:
    """The body row of ``best``'s table (``best`` one of its rows) that the question names by its
    first cell, whole, when that row states more of the question's weight than ``best`` does ("P1 告警
    要几分钟内 ack": the P1 row, not the P0 row, whose "30 分钟内" holds one more of its words: a page
    whose aliases name P0 and P1 holds P1 in every passage). ``fenced``: the page's lines inside code
    fences, 0-based (a table there is none)."""
    n = best[0]
    if not 0 < n <= len(text_lines) or "|" not in text_lines[n - 1]:
        return best
    lo, hi = n, n
    while lo > 1 and "|" in text_lines[lo - 2]:
        lo -= 1
    while hi < len(text_lines) and "|" in text_lines[hi]:
        hi += 1
    above = headers(text_lines[lo - 1 : hi], {i - lo + 1 for i in fenced if lo - 1 <= i < hi})
    if above[n - lo] is None:
        return best
    ours = terms_in(best[1], text_lines[n - 1])
    # Only a row holding a word the shown row does not state can name one: the others are passed over
    # unread (a table of 40,000 rows doubled a lookup's time when each was read).
    lacking = {t for u in units if not u.in_terms(ours) for alt in u.alts for t in alt}

    def stated(p: HeldPassage) -> float:
        own = terms_in(p[1], text_lines[p[0] - 1])
        return sum(u.weight for u in units if u.in_terms(own))

    floor = stated(best)

    def names(p: HeldPassage) -> bool:
        key = cells(text_lines[p[0] - 1])[:1]
        if not key or not _whole(key[0], p[1]):
            return False
        held = terms_in(p[1], key[0])
        return any(u.in_terms(held) and not u.in_terms(ours) for u in units) and stated(p) >= floor

    rows = [
        p
        for p in passages
        if lo <= p[0] <= hi and p[0] != n and not lacking.isdisjoint(p[1]) and above[p[0] - lo] is not None
    ]
    return max(filter(names, rows), key=lambda p: (stated(p), -p[0]), default=best)


def _whole(cell: str, held: frozenset[str]) -> bool:
    """True when a table cell is written wholly in the question's terms its row holds (``held``):
    "**P1**", not "整个登录流程" for 登录 nor "2024 plan" for plan."""
    rest = grouped_beside(word_text(cell))
    if not any(map(str.isalnum, rest)):
        return False
    for term in sorted(terms_in(held, rest), key=len, reverse=True):
        rest = rest.replace(term.removeprefix(AMOUNT), " ")
    words = _WORD.findall(rest)
    return (
        not any(map(str.isdigit, rest))
        and all(w.isascii() for w in words)
        and set(english_terms(" ".join(words))) <= held
    )


def _states(row: str) -> bool:
    """True for a line that states something: a letter or digit outside links, embeds, comments and
    fences (not "---", "```", "<!-- TODO -->" or "![[office-net.png]]")."""
    if row.startswith(("```", "~~~", "<!--")):
        return False
    return any(map(str.isalnum, _unlinked(row)))


def passage_rows(first: int, starts: list[int], queries: set[int], text_lines: list[str]) -> list[str]:
    """The lines of the passage starting at line ``first``: up to the next passage's, a blank line or a
    query block, as ``split_passages`` cut it (a dataview query after an index page's heading is no
    answering line)."""
    at = bisect.bisect_right(starts, first)
    end = starts[at] if at < len(starts) else len(text_lines) + 1
    end = next((n for n in range(first + 1, end) if n - 1 in queries or not text_lines[n - 1].strip()), end)
    return [line.strip() for line in text_lines[first - 1 : end - 1]]


_WIKI_LINK = lazy_pattern(r"!?\[\[[^\[\]]*\]\]")
_WORD = lazy_pattern(r"[^\W\d_]+")
# A heading (a "#tag" line is none), and a section's: the second level or deeper.
HEADING = lazy_pattern(r"#{1,6}\s")
SECTION = lazy_pattern(r"#{2,6}\s")


def _unlinked(text: str) -> str:
    """A text without its wiki links and embeds."""
    return _WIKI_LINK.sub(" ", text)


def outside_links(held: frozenset[str], rows: list[str]) -> frozenset[str]:
    """The terms of ``held`` a passage states outside its wiki links."""
    return terms_in(held, _unlinked("\n".join(rows)))


def route_terms(units: Iterable[Unit]) -> frozenset[str]:
    """Every index term of the units' routes: what ``terms_in`` looks for in a text."""
    return frozenset(term for u in units for alt in u.alts for term in alt)


def terms_in(held: frozenset[str], text: str) -> frozenset[str]:
    """The terms of ``held`` (index terms of a passage that holds them) that ``text``, a part of it,
    writes: stems read as the index reads them ("polici" of "policy"), anything else as written (a
    Chinese word, a number either way it is grouped). Without the page's segmenter: loading it for a
    heading cost a lookup 0.3 s."""
    plain = grouped_beside(word_text(text))
    found = {term for term in held if term.removeprefix(AMOUNT) in plain}
    if len(found) < len(held):
        # A stem the text does not write as it stands ("polici"): its words that start like it, stemmed
        # (stemming a whole page of links took seconds).
        rest = held - found
        starts = tuple({term[:3] for term in rest})
        words = " ".join(w for w in _WORD.findall(plain) if w.startswith(starts))
        found |= rest & set(english_terms(words))
    return frozenset(found)
