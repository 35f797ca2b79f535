"""What every lookup needs about all pages, built once per index generation.

The page table, where each replaced page leads (the replacement graph resolved), the BM25 length
term per page, clipped pages, and which scripts the vault holds.
"""

from __future__ import annotations

from array import array
from collections import defaultdict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path

from krouter import config
from krouter.index.store import Index
from krouter.routing.receipt import Redirect
from krouter.routing.replacements import Replacements
from krouter.tokens.compounds import CLOSED
from krouter.tokens.terms import word_text

# BM25's term-frequency saturation and length normalisation (scoring uses K1 too): the length term of
# every page is worked out here, once per generation.
K1 = 1.2
B = 0.75


@dataclass
class PageInfo:
    id: int
    path: str
    title: str
    status: str
    replaced: bool
    n_body: int


@dataclass
class Tables:
    """Per-generation snapshot of what every lookup needs about all pages."""

    generation: int
    pages: dict[int, PageInfo]
    by_path: dict[str, int]
    n_pages: int
    avg_body: float
    graph: Replacements
    inputs: frozenset[int]
    # K1 * (1 - B + B * length / average), per page: the BM25 length term, computed once per generation.
    length_norm: dict[int, float]
    # The same by page id as a list index (None: no page has that id), which the scoring loop reads
    # once per posting: indexing a list costs less than a dict lookup. Page ids are the index's own
    # row ids, from 1 up.
    norm_by_id: list[float | None]
    # Where each replaced page leads, resolved once per generation rather than on every hit.
    redirect: dict[int, Redirect]
    # Replaced pages by the current page they lead to, so a target's weaker contributors can be found
    # without scoring every page in order.
    predecessors: dict[int, list[int]]
    # Pages of the vault the index could not read (no permission, not UTF-8, too large): a word "the vault
    # never mentions" may be on one of them, and a refusal says so.
    unread: tuple[str, ...]
    # Which scripts the vault holds: a question word is translated only into a script the vault has.
    has_han: bool
    has_latin: bool
    # Whether any page writes a hyphenated word (indexed closed and marked: `tokens.compounds`): if none
    # does, a question's English words are not looked up in that form.
    has_closed: bool = False
    # The BM25F shares of the long units looked up in this generation (see `KeptShares`).
    shares: KeptShares = field(default_factory=lambda: KeptShares())
    # Each page's names as `names_of` gives them, filled as lookups ask.
    _names: dict[int, tuple[tuple[str, tuple[str, ...]], ...]] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )

    def names_of(self, pid: int) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The page's title and file name, each with its normalised words: worked out once per
        generation (a question naming a word many titles hold looked at hundreds of them per lookup)."""
        found = self._names.get(pid)
        if found is None:
            info = self.pages[pid]
            found = tuple(
                (name, tuple(word_text(name).split())) for name in (info.title, Path(info.path).stem)
            )
            self._names[pid] = found
        return found


class KeptShares:
    """A unit's BM25F share per page, kept for the next lookups of one index generation.

    A unit's postings and weight depend on nothing but its routes within one generation, so the share
    it adds to each page (``weight x (K1 + 1) x tf / (tf + length term)``) is the same float in every
    lookup that holds it; a question word asked again (an agent asks about the same subjects) is then
    summed, not worked out again. The shares are kept in the order of the unit's postings, which are
    the same pages in the same order in every lookup of the generation: they are summed against the
    postings' own page ids (ints that exist already; an array of ids made one per posting). Kept for
    units of at least MIN pages, BUDGET pages in all, the least recently used dropped first, as arrays
    (8 bytes a page, ~24 MB at most): kept as lists of Python floats they saved more instructions, but
    the memory they held cost as much again in cache misses (cachegrind) and the lookups were no
    faster. A tenth of this budget holds a pass over the 10k bench's questions (a quarter of that, 5 %
    more CPU per Chinese lookup); at 100k pages a Chinese question's units hold ~40,000 pages, and this
    budget made a warm server's Chinese lookups ~15 % cheaper than a fifth of it did
    (docs/PERFORMANCE.md, eighth session)."""

    MIN = 256
    BUDGET = 3_000_000

    def __init__(self) -> None:
        self._kept: dict[Hashable, array[float]] = {}
        self._size = 0

    def get(self, key: Hashable) -> array[float] | None:
        """The shares kept under ``key``, in the order the unit's postings list its pages."""
        found = self._kept.pop(key, None)
        if found is not None:
            self._kept[key] = found  # most recently used last
        return found

    def keep(self, key: Hashable, shares: list[float]) -> None:
        """Keep a unit's shares (in the order of its postings), dropping the least recently used past
        BUDGET."""
        if len(shares) < self.MIN or key in self._kept:
            return
        self._kept[key] = array("d", shares)
        self._size += len(shares)
        while self._size > self.BUDGET and self._kept:
            self._size -= len(self._kept.pop(next(iter(self._kept))))


def load_tables(index: Index, generation: int, input_folders: list[str]) -> Tables:
    """The tables of ``index`` at ``generation`` (pages in ``input_folders`` are clipped material)."""
    rows = index.page_table()
    pages = {r[0]: PageInfo(r[0], r[1], r[2], r[3], bool(r[4]), r[5]) for r in rows}
    by_path = {p.path: p.id for p in pages.values()}
    clipped = _clipped(input_folders)
    graph = Replacements.build(
        (p.path for p in pages.values() if p.replaced),
        index.links(),
        untrusted=clipped,
    )
    for page in pages.values():
        page.replaced = page.path in graph.replaced
    n_pages = len(pages)
    avg = sum(p.n_body for p in pages.values()) / n_pages if n_pages else 0.0
    avg = max(avg, 1.0)
    inputs = frozenset(p.id for p in pages.values() if clipped(p.path))
    length_norm = {p.id: K1 * (1 - B + B * p.n_body / avg) for p in pages.values()}
    norm_by_id: list[float | None] = [None] * (max(pages, default=0) + 1)
    for pid, norm in length_norm.items():
        norm_by_id[pid] = norm
    redirect = {p.id: graph.resolve(p.path) for p in pages.values() if p.replaced}
    predecessors: dict[int, list[int]] = defaultdict(list)
    for pid, red in redirect.items():
        if red.to_path in by_path:
            predecessors[by_path[red.to_path]].append(pid)
    return Tables(
        generation,
        pages,
        by_path,
        n_pages,
        avg,
        graph,
        inputs,
        length_norm,
        norm_by_id,
        redirect,
        dict(predecessors),
        tuple(
            p.path
            for p in index.problems()
            if p.path not in by_path and p.path.lower().endswith((".md", "/"))
        ),
        has_han=index.has_han(),
        # Letters only: a number ("至少 2 人") does not make a Chinese vault bilingual.
        has_latin=index.has_term_between("a", "z\uffff"),
        has_closed=index.has_term_between(CLOSED, CLOSED + "\uffff"),
    )


def _clipped(input_folders: list[str]) -> Callable[[str], bool]:
    """Whether a page path lies in one of ``input_folders`` (`config.in_folders`), worked out once per
    folder: a vault's pages share a few hundred folders, and this is asked of every page."""
    folders = tuple(input_folders)
    known: dict[str, bool] = {}

    def clipped(path: str) -> bool:
        folder = path.rpartition("/")[0]
        found = known.get(folder)
        if found is None:
            # "" is the vault's top level, which is in no folder.
            found = known[folder] = bool(folder) and config.in_folders(f"{folder}/", folders)
        return found

    return clipped
