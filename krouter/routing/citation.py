"""A citation of the receipt: the page, its score, what it matched and lacked, and its best snippet."""

from __future__ import annotations

import contextlib
import errno
import itertools
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path

from krouter.errors import KRouterError
from krouter.index.store import Index
from krouter.routing.answering_line import (
    HEADING,
    SECTION,
    HeldPassage,
    answering_line,
    keyed_row,
    outside_links,
    passage_rows,
    route_terms,
    terms_in,
)
from krouter.routing.line_search import as_read, searchable
from krouter.routing.question import Unit
from krouter.routing.receipt import Citation
from krouter.routing.scoring import Target
from krouter.routing.sessions import in_replies
from krouter.routing.tables import Tables
from krouter.tokens.grouped_numbers import grouped_form
from krouter.tokens.terms import AMOUNT
from krouter.vault.files import PageTooLarge, content_hash, read_page_bytes
from krouter.vault.md_tables import is_rule
from krouter.vault.page_lines import body_start, file_lines
from krouter.vault.templates import fenced_lines, query_block_lines

SNIPPET_CHARS = 240
# The matches of one term weighed for a line's snippet window: enough for any real line, and a bound on
# a line of one word repeated for megabytes (per term, so that one term cannot crowd out the others).
_MAX_HITS = 20000


class PageGone(KRouterError):
    """A page the index holds is no longer in the vault as indexed (gone, or ``changed`` since): the
    index is behind the files."""

    def __init__(self, path: str, *, changed: bool = False) -> None:
        super().__init__(
            f"{path} {'changed since it was indexed' if changed else 'is no longer in the vault'}"
        )
        self.path = path
        self.changed = changed


_AS_THEY_ARE: ContextVar[bool] = ContextVar("as_they_are", default=False)


@contextlib.contextmanager
def as_they_are() -> Iterator[None]:
    """Within the block a page saved since it was indexed is read as it is, not raised as PageGone: a
    lookup's last try, once it has indexed what it could (a page written again faster than a lookup
    runs, or the index's writer busy, made the lookup fail where it had answered: a cold review)."""
    token = _AS_THEY_ARE.set(True)
    try:
        yield
    finally:
        _AS_THEY_ARE.reset(token)


class PageReads:
    """What one lookup reads of the pages it cites, each read once: a page's text as a receipt reads it,
    and which of the question's terms each of its passages holds.

    A passage holds a unit when it holds every term of one of the unit's routes, so the question's
    terms a passage holds answer that as its whole term set would; finding those few among its stored
    terms costs a fraction of building the set of all of them, which is most of what decoding a
    cited page's passages cost."""

    def __init__(self, index: Index, root: Path, units: list[Unit]) -> None:
        self.index = index
        self._root = root
        self._terms = route_terms(units)
        self._texts: dict[str, str] = {}
        # Pages whose file could not be read now (a folder made unreadable: its pages are kept in the
        # index as last indexed), with why: read as "", such a page is not cited (``decision``).
        self.unread: dict[str, str] = {}
        self._held: dict[int, list[HeldPassage]] = {}
        self._rows: dict[int, list[tuple[int, str]]] = {}

    def text(self, path: str) -> str:
        """A page's text as ``Path.read_text`` reads it (undecodable bytes replaced, newlines made
        ``\\n``), "" when it cannot be read; PageGone when it is not there as indexed. Read without
        following a symlink (``read_page_bytes``): with a watcher running, a folder swapped for a link
        out of the vault was read through it, and its text cited, for the half second before the
        watcher reported the swap (a bug hunt)."""
        found = self._texts.get(path)
        if found is None:
            try:
                data = read_page_bytes(self._root, path)
            except (FileNotFoundError, NotADirectoryError, IsADirectoryError, PageTooLarge) as exc:
                # Read as "" it was cited with an empty line, or its stored passages ran past the
                # text's end (IndexError): the lookup walks the vault and asks again (``Router``).
                raise PageGone(path) from exc
            except OSError as exc:
                if exc.errno == errno.ELOOP:  # a symlink where the page or a folder of it was
                    raise PageGone(path) from exc
                self.unread[path] = exc.strerror or str(exc)
                data = b""
            else:
                # Saved since the index read it (a moment before the watcher reports it): read as it is,
                # it was cited for words it no longer holds, or its stored passages ran past its end
                # (IndexError, a bug hunt): it is indexed again and the question asked again.
                stored = None if _AS_THEY_ARE.get() else self.index.stored_hash(path)
                if stored is not None and stored != content_hash(data):
                    raise PageGone(path, changed=True)
            found = data.decode("utf-8", "replace")
            if "\r" in found:
                # What text mode's universal newlines make of them.
                found = found.replace("\r\n", "\n").replace("\r", "\n")
            self._texts[path] = found
        return found

    def prefetch(self, page_id: int, path: str) -> None:
        """Read a page's text and take its passages from the index now, so that working out its passage
        later reads neither (a receipt's runner-up is worked out when read: maybe on another thread
        than the index's, after the page changed, or by two threads at once)."""
        self.text(path)
        if page_id not in self._held and page_id not in self._rows:
            self._rows[page_id] = self.index.passage_rows(page_id)

    def passages(self, page_id: int) -> list[HeldPassage]:
        """(first line, the question's terms it holds) for each passage of a page."""
        found = self._held.get(page_id)
        if found is None:
            terms = self._terms
            rows = self._rows.get(page_id)
            found = self._held[page_id] = [
                (line, terms.intersection(stored.split()) if _any_in(terms, stored) else _NONE)
                for line, stored in (rows if rows is not None else self.index.passage_rows(page_id))
            ]
        return found


_NONE: frozenset[str] = frozenset()


def _any_in(terms: frozenset[str], stored: str) -> bool:
    """False when no question term is even a substring of a passage's stored terms (then it holds none
    of them): a substring search in C spares splitting and hashing every term of such a passage."""
    return any(term in stored for term in terms)


def citation(
    x: Target,
    units: list[Unit],
    meta_hits: dict[int, set[int]],
    t: Tables,
    reads: PageReads,
    *,
    now: bool = True,
) -> Citation:
    """The receipt's entry for target ``x``; the page is read through ``reads``. With ``now`` false its
    line and snippet are worked out when first read (``Citation.later``) from the page's text and
    passages, both read here."""
    info = t.pages[x.page_id]
    in_title = meta_hits.get(x.page_id, set())
    fields = {
        "path": info.path,
        "title": info.title,
        "score": round(x.score, 4),
        "matched": [units[i].shown_for(x.contributors) for i in sorted(x.matched)],
        "missing": [u.text for i, u in enumerate(units) if i not in x.matched],
        "via": t.pages[x.via].path if x.via is not None else None,
        **_via_words(x, units, t),
    }
    page_id, path = x.page_id, info.path
    if now:
        line, snippet = _snippet(page_id, path, units, in_title, reads)
        return Citation(line=line, snippet=snippet, **fields)
    reads.prefetch(page_id, path)
    return Citation.later(lambda: _snippet(page_id, path, units, in_title, reads), **fields)


def _via_words(x: Target, units: list[Unit], t: Tables) -> dict[str, list[str]]:
    """The matched words the cited page does not hold: those its ``via`` page holds, and, each with its
    page, those only another replaced page leading to it holds (a cold review: "only on the replaced
    page A.md" listed a word only B.md, also replaced by the cited page, holds). A page that outscores
    every replaced page leading to it (no ``via``) still matches what they hold: "matched: month" on a
    page that never says month, only the page it replaced, named no page for it (an audit)."""
    on_via, elsewhere = [], []
    for i in sorted(x.matched):
        unit = units[i]
        if x.page_id in unit.postings:
            continue
        if x.via is not None and x.via in unit.postings:
            on_via.append(unit.shown_for([x.via]))
        else:
            # A matched unit is held by one of the target's contributors: that is what matched means.
            holder = next(p for p in x.contributors if p in unit.postings)
            elsewhere.append(f"{unit.shown_for([holder])} ({t.pages[holder].path})")
    return {"via_words": on_via, "via_elsewhere": elsewhere}


def _snippet(
    page_id: int,
    path: str,
    units: list[Unit],
    in_title: set[int],
    reads: PageReads,
) -> tuple[int, str]:
    """The passage of the cited page that holds most of the question's weight.

    Words matched by the title, aliases or triggers count as present in every passage (they say
    what the whole page is about), so a page found by its title shows its first paragraph, not
    the one line that happens to repeat a title word. On a tie, content beats a heading."""
    text = reads.text(path)
    if not (passages := in_replies(text, reads.passages(page_id))):
        return 1, ""
    text_lines = file_lines(text)

    def line_text(n: int) -> str:
        return text_lines[n - 1].strip() if 0 < n <= len(text_lines) else ""

    # Passages holding the same question terms (most hold none) weigh the same: summed once per set.
    weights: dict[frozenset[str], float] = {}

    def weight(held: frozenset[str]) -> float:
        found = weights.get(held)
        if found is None:
            found = weights[held] = sum(
                u.weight for i, u in enumerate(units) if i in in_title or u.in_terms(held)
            )
        return found

    # A passage with no word at all (a "---" fence left in the body of a page whose frontmatter is
    # broken, a rule) never stands for the page while another one holds a word. On a tie, the body's
    # passages beat the frontmatter's other fields: a page found by its title showed "source: ~/x.jsonl"
    # or "owner: alice@example.com" as the line that answers (a cold review).
    lines = text_lines
    if lines and lines[0].startswith("\ufeff"):  # the index read the page without its byte-order mark
        lines = [lines[0][1:], *lines[1:]]
    body = body_start(lines)

    starts = sorted({p[0] for p in passages})
    queries = query_block_lines(text_lines)

    def rows_of(n: int) -> list[str]:
        return passage_rows(n, starts, queries, text_lines)

    # A passage whose question words are all inside wiki links names other pages and states nothing of
    # its own ("取代 [[决策/周报-周四邮件]]"): it ranks after a passage that states as much. A section's
    # heading says what the passages under it are about, as a title does for the page: its words count
    # in each of them, and a heading with the sentence under it is content ("## Decision" over "Move all
    # error tracking from Bugsnag to Sentry"), while a heading alone over a list loses a tie to its items.
    stated: dict[int, frozenset[str]] = {}
    if "[[" in text:
        for n, held in passages:
            rows = rows_of(n) if held else []
            stated[n] = outside_links(held, rows) if any("[[" in row for row in rows) else held
    # The heading's own words, not its passage's (the sentence under it): a section's first sentence
    # lends nothing to its other lines. A first-level heading is the page's title, not a section, and
    # ends the section before it.
    section: dict[int, frozenset[str]] = {}
    heading: frozenset[str] = _NONE
    fenced = fenced_lines(text_lines)  # 0-based, as a passage's first line is not
    for n, held in passages:
        first = line_text(n)
        if n >= body and HEADING.match(first) and n - 1 not in fenced:
            heading = terms_in(held, first) if SECTION.match(first) else _NONE
        elif n >= body:
            section[n] = heading

    titled = weight(_NONE)  # what every passage holds: the words the title, aliases or triggers matched

    def rank(p: HeldPassage) -> tuple[float, bool, float, bool, bool, bool, int]:
        first = line_text(p[0])
        over = section.get(p[0], _NONE)
        held = p[1] | over
        linked = not stated.get(p[0], p[1]) and weight(p[1]) > titled
        bare = first.startswith("#") and len(rows_of(p[0])) == 1
        own = over if linked else held
        return (
            weight(own),
            not linked,
            weight(held),
            any(map(str.isalnum, first)),
            p[0] >= body,
            not bare,
            -p[0],
        )

    best = max(passages, key=rank)
    if "|" in line_text(best[0]) and "|" in line_text(best[0] + 1) and is_rule(line_text(best[0] + 1)):
        # A table's header row holds the question's column words ("ops cost"); the row it asks about
        # holds the rest (RabbitMQ), and is the line that answers (a cold review). Read at display only:
        # stored with every row, the header's words raised the coverage of neighbour pages that share a
        # table's template (docs/decisions.md D99).
        rows = [p for p in passages if p[0] > best[0] + 1 and "|" in line_text(p[0])]
        rows = [p for i, p in enumerate(rows) if p[0] == best[0] + 2 + i]  # the table's own, in a run
        row = max(rows, key=lambda p: (weight(p[1] | best[1]), -p[0]), default=None)
        if row is not None and weight(row[1] | best[1]) > weight(best[1]):
            best = row
    best = keyed_row(best, passages, text_lines, units, fenced)
    line = answering_line(best, rows_of(best[0]), units)
    return line, _around_matches(as_read(line_text(line)), units)


def _written(term: str) -> tuple[str, ...]:
    """How a line may write an index term: as it is, and a number (an amount's, ¤1000) also grouped in
    thousands (1,000), as pages often write it (a cold review: the window missed "starts at 1,000")."""
    number = term.removeprefix(AMOUNT)
    grouped = grouped_form(number)
    return (number, grouped) if grouped else (number,)


def _around_matches(text: str, units: list[Unit]) -> str:
    """A line as the snippet shows it: whole when short, else the ``SNIPPET_CHARS`` of it that hold
    the most of the question's weight, marked "…" where cut. Notes often keep a paragraph on one line:
    its first characters (what was shown before) may not hold the answer at all."""
    if len(text) <= SNIPPET_CHARS:
        return text
    width = SNIPPET_CHARS - 2  # room for the two "…"
    low, origin = searchable(text)  # as the question's terms are read (Inês is ines, ﾄﾞ is ド)
    hits: list[tuple[int, int, float]] = []  # (position, unit, weight)
    for i, u in enumerate(units):
        for term in {written for alt in u.alts for t in alt if t for written in _written(t)}:
            at, taken = low.find(term), 0
            while at != -1 and taken < _MAX_HITS:
                hits.append((origin[at], i, u.weight))
                at, taken = low.find(term, at + 1), taken + 1
    hits.sort()
    # A hit counts where its whole word fits: one at the window's very end was cut off (the review's
    # "t" of "timeout").
    reach = width - min(width // 2, max((len(t) for u in units for alt in u.alts for t in alt), default=0))
    # Windows opening a little before each hit (so its sentence reads from its start), weighed by the
    # distinct units inside, swept along the hits once: both ends move forward only (a sum per hit was
    # quadratic: a 240 KB line of repeated words took seconds).
    start, best = 0, 0.0
    inside: dict[int, int] = {}
    weight_in = 0.0
    first = last = 0
    for at, _i, _w in hits:
        s = max(0, min(at - 40, len(text) - width))
        while last < len(hits) and hits[last][0] < s + reach:
            _p, i, w = hits[last]
            weight_in += w if not inside.get(i) else 0.0
            inside[i] = inside.get(i, 0) + 1
            last += 1
        while hits[first][0] < s:
            _p, i, w = hits[first]
            inside[i] -= 1
            weight_in -= w if not inside[i] else 0.0
            first += 1
        if weight_in > best:
            start, best = s, weight_in
    if start > 0:
        space = text.find(" ", start, start + 20)
        start = space + 1 if space != -1 else start
    end = min(len(text), start + width)
    return ("…" if start > 0 else "") + text[start:end].strip() + ("…" if end < len(text) else "")


def title_units(units: list[Unit], page_id: int) -> set[int]:
    """The question units the page's title or aliases hold (present in every passage of it)."""
    return {i for i, u in enumerate(units) if u.postings.get(page_id, (0, 0, 0))[0]}


def passage_coverage(
    reads: PageReads,
    page_id: int,
    matched: set[int],
    units: list[Unit],
    everywhere: dict[int, set[int]],
    total: float,
) -> float:
    """The best passage's (or pair of neighbouring passages') share of the question's weight, counting
    the units in ``everywhere[page_id]`` as present in every passage."""
    passages = reads.passages(page_id)
    base = everywhere.get(page_id, set()) & matched
    best = sum(units[i].weight for i in base)
    seen: set[frozenset[str]] = set()
    for a, b in _windows(passages):
        terms = a[1] | b[1] if b else a[1]
        if terms in seen:  # most passages hold none of the question's terms, or the same few
            continue
        seen.add(terms)
        hit = {i for i in matched if units[i].in_terms(terms)} | base
        best = max(best, sum(units[i].weight for i in hit))
    return best / total


def _windows(passages: list[HeldPassage]) -> list[tuple[HeldPassage, HeldPassage | None]]:
    """Each passage alone and with its successor: an answer often spans a question and its reply."""
    out: list[tuple[HeldPassage, HeldPassage | None]] = [(p, None) for p in passages]
    out.extend(itertools.pairwise(passages))
    return out
