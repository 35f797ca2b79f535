"""What every lookup needs about all pages, built once per index generation.

The page table, where each replaced page leads (the replacement graph resolved), the BM25 length
term per page, clipped pages, and which scripts the vault holds.
"""

from __future__ import annotations

import functools
from array import array
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from krouter import config
from krouter.index.store import Index
from krouter.lazy_pattern import lazy_pattern
from krouter.routing.receipt import Redirect
from krouter.routing.replacements import Replacements
from krouter.tokens.compounds import CLOSED
from krouter.tokens.scripts import writing
from krouter.tokens.terms import index_terms, word_text

# How many of the pages titled in Han characters alone are read to tell the Japanese ones (議事録,
# 経費精算) from the Chinese ones: the hint and a Japanese question need the share, not each page's
# language. A page writes Japanese when six or more of its terms hold hiragana other than の: one short
# Japanese sentence does (締め日は毎月25日です: め日, 日は, は毎, です…), a Chinese page quoting a name
# (小鹿の家, 哈利・波特) or one Japanese word (ありがとう) does not. A count, not a share of the page's
# terms: a kanji-heavy memo's distinct kanji bigrams outnumber its few particles (a fourth review).
# Reading a Japanese vault as Chinese is the worse mistake: its Japanese questions then count as ones
# KRouter cannot read, and a citation lists none of their missing words. Pages are taken evenly by path
# (the same notes, the same sample), the longest left out while others remain (a page's terms are
# decoded to be read: 64 pages of 100,000 characters took 1.5 s).
_SAMPLE = 64
_SAMPLE_MAX_TERMS = 5000
_JAPANESE_TERMS = 6
_HIRAGANA_BUT_NO = lazy_pattern("[\u3041-\u306d\u306f-\u309f]")


def _writes_japanese(terms: set[str]) -> bool:
    """True when six or more of a page's terms hold hiragana other than の."""
    return sum(1 for term in terms if _HIRAGANA_BUT_NO.search(term)) >= _JAPANESE_TERMS


def _japanese_share(index: Index, han_titled: list[PageInfo]) -> float:
    """The share of the pages ``han_titled`` whose text writes Japanese, read from an even sample."""
    pages = sorted(han_titled, key=lambda p: p.path)
    pages = [p for p in pages if p.n_body <= _SAMPLE_MAX_TERMS] or pages
    if not pages:
        return 0.0
    sample = pages[:: -(-len(pages) // _SAMPLE)]
    return sum(_writes_japanese(index.page_terms(p.id)) for p in sample) / len(sample)


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
    # Tagged as a clipping (``fields.CLIPPING_TAGS``): clipped material wherever it is kept.
    clipping: bool = False


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
    # The token of the refresh that made this generation, and the paths whose stored status says they
    # are replaced (before the graph's links add more): what the next generation's tables are patched
    # from (`load_tables`).
    token: str | None = None
    stored_replaced: frozenset[str] = frozenset()
    # The BM25F shares of the long units looked up in this generation (see `KeptShares`).
    shares: KeptShares = field(default_factory=lambda: KeptShares())
    # The share of current pages written in each language (`writings`: by titles alone, and with the
    # text of the pages titled in Han characters read), worked out when first asked.
    _writings: dict[str, float] | None = field(default=None, init=False, compare=False, repr=False)
    _text_writings: dict[str, float] | None = field(default=None, init=False, compare=False, repr=False)
    # Each page's names as `names_of` gives them, filled as lookups ask.
    _names: dict[int, tuple[tuple[str, tuple[str, ...]], ...]] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )
    # Every folder of the pages, by its own name (`folder_holding`), listed when first asked.
    _folders: dict[str, list[str]] | None = field(default=None, init=False, compare=False, repr=False)
    # Whether any page holds a term with hiragana (`writes_japanese`), and which wordings are in a
    # language KRouter cannot read (`unread_language.unreadable`), worked out when first asked.
    _hiragana: bool | None = field(default=None, init=False, compare=False, repr=False)
    unreadable_of: dict[str, bool] = field(default_factory=dict, init=False, compare=False, repr=False)

    def is_input(self, path: str, input_folders: tuple[str, ...] | list[str]) -> bool:
        """True for clipped material: a page in an input folder or tagged as a clipping (``inputs``); a
        path these tables do not know, by its folder alone."""
        pid = self.by_path.get(path)
        return pid in self.inputs if pid is not None else config.in_folders(path, tuple(input_folders))

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

    def folder_holding(self, terms: tuple[str, ...]) -> str | None:
        """The first folder (by path) whose own name holds every one of ``terms`` (a question word's), or
        None. Pages are indexed by their file's name, not their folders': a word only a folder's name
        holds ("Vendors/Zendesk/") is on no page, yet the vault is not without it, and a receipt that
        said "the vault never mentions 'zendesk'" of a page in that folder contradicted itself (an
        audit). The folders are listed once per generation, by name; only the names that hold each term
        as written are cut into words (thousands of client folders took 60 ms to cut up front)."""
        if self._folders is None:
            self._folders = _folders_by_name(self.by_path)
        found = [
            {
                f
                for name, folders in self._folders.items()
                if term in name and term in _terms_of(name)
                for f in folders
            }
            for term in terms
        ]
        return min(set.intersection(*found), default=None) if found else None

    def writings(self, index: Index | None = None) -> dict[str, float]:
        """The share of the current pages written in each language (``scripts.writing``: "Chinese",
        "Japanese", "Korean", "Latin"), largest first, as their titles say (their file names when they
        have none): a Chinese page writes its title in Chinese. With ``index``, the pages titled in kanji
        alone (議事録, 経費精算) count as Japanese in the share of them whose text writes Japanese.
        Worked out once per generation, each way."""
        if index is None:
            if self._writings is None:
                self._writings = self._shares(None)
            return self._writings
        if self._text_writings is None:
            self._text_writings = self._shares(index)
        return self._text_writings

    def writes_japanese(self, index: Index, path: str) -> bool:
        """True when the page ``path`` writes Japanese, as ``writings`` reads a page titled in Han
        characters (a katakana brand name in a Chinese page does not make it Japanese)."""
        pid = self.by_path.get(path)
        # A refusal asks of its closest pages: in a vault with no hiragana, none is read.
        return pid is not None and self._holds_hiragana(index) and _writes_japanese(index.page_terms(pid))

    def _holds_hiragana(self, index: Index) -> bool:
        """Whether any page holds a term that starts with hiragana (any Japanese text): one range read
        per generation."""
        if self._hiragana is None:
            self._hiragana = index.has_term_between("\u3041", "\u309f\uffff")
        return self._hiragana

    def _shares(self, index: Index | None) -> dict[str, float]:
        """Each language's share of the current pages by their titles; with ``index``, the pages
        titled in Han characters split by the share of them whose text writes Japanese."""
        titled = {
            pid: lang
            for pid, info in self.pages.items()
            if not info.replaced and (lang := writing(info.title))
        }
        counts: dict[str, float] = dict(Counter(titled.values()))
        han = [self.pages[pid] for pid, lang in titled.items() if lang == "Chinese"]
        # No page read in a vault no term of which starts with hiragana (any Chinese one).
        if index is not None and han and self._holds_hiragana(index):
            japanese = len(han) * _japanese_share(index, han)
            counts["Chinese"] -= japanese
            counts["Japanese"] = counts.get("Japanese", 0) + japanese
        total = sum(counts.values())
        ranked = sorted(((n, lang) for lang, n in counts.items() if n > 0), key=lambda x: -x[0])
        return {lang: n / total for n, lang in ranked} if total else {}


def _folders_by_name(paths: Iterable[str]) -> dict[str, list[str]]:
    """Every folder of the pages ``paths`` (their parents' too), by its own name folded as the index
    folds text (``word_text``)."""
    folders = {path.rpartition("/")[0] for path in paths} - {""}
    for folder in list(folders):
        while "/" in folder and (folder := folder.rpartition("/")[0]) not in folders:
            folders.add(folder)
    by_name: dict[str, list[str]] = defaultdict(list)
    for folder in folders:
        by_name[word_text(folder.rpartition("/")[2])].append(folder)
    return dict(by_name)


@functools.lru_cache(maxsize=1024)
def _terms_of(name: str) -> frozenset[str]:
    """A folder's name's index terms."""
    return frozenset(index_terms(name))


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


def load_tables(index: Index, input_folders: list[str], previous: Tables | None = None) -> Tables:
    """The tables of ``index`` as it is now (pages in ``input_folders``, and pages tagged as clippings,
    are clipped material).

    ``previous``: this reader's tables of the generation before, with the same input folders. When the
    index names the pages the step from it changed (``Index.changed_since``), only their rows are read
    and the rest is worked out again from the previous tables: reading every row and making its
    PageInfo was two thirds of a reload (~20 of 30 ms at 10k pages), paid by the first lookup after
    every edit. The tables are the same as a full load's, key order included."""
    generation, token = index.stamp()
    in_folder = _clipped(input_folders)
    changed = (
        index.changed_since(previous.generation, previous.token)
        if previous is not None and previous.generation == generation - 1
        else None
    )
    if previous is None or changed is None:
        pages = {
            r[0]: PageInfo(r[0], r[1], r[2], r[3], bool(r[4]), r[5], bool(r[7])) for r in index.page_table()
        }
        stored_replaced = frozenset(p.path for p in pages.values() if p.replaced)
        inputs = frozenset(p.id for p in pages.values() if p.clipping or in_folder(p.path))
    else:
        pages, stored_replaced = _patched(index, previous, changed)
        inputs = previous.inputs.difference(changed) | {
            pid for pid in changed if pid in pages and (pages[pid].clipping or in_folder(pages[pid].path))
        }
    # A clipping's own words never retire a page: in an input folder or tagged as one (``inputs``; a path
    # no page has, by its folder).
    clipped = frozenset(pages[pid].path for pid in inputs if pid in pages)
    graph = Replacements.build(
        stored_replaced, index.links(), untrusted=lambda path: path in clipped or in_folder(path)
    )
    for pid, page in pages.items():
        if page.replaced != (page.path in graph.replaced):
            # A new PageInfo: the previous tables' stay as they were (a load that fails keeps them).
            pages[pid] = replace(page, replaced=not page.replaced)
    by_path = {p.path: p.id for p in pages.values()}
    n_pages = len(pages)
    avg = sum(p.n_body for p in pages.values()) / n_pages if n_pages else 0.0
    avg = max(avg, 1.0)
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
            # A template is read and left out on purpose (``vault.templates``): no note of the vault is
            # on it, and "Templates/Decision.md could not be read" in every refusal would be false.
            if p.path not in by_path and p.kind != "template" and p.path.lower().endswith((".md", "/"))
        ),
        has_han=index.has_han(),
        # Letters only: a number ("至少 2 人") does not make a Chinese vault bilingual.
        has_latin=index.has_term_between("a", "z\uffff"),
        has_closed=index.has_term_between(CLOSED, CLOSED + "\uffff"),
        token=token,
        stored_replaced=stored_replaced,
    )


def _patched(
    index: Index, previous: Tables, changed: list[int]
) -> tuple[dict[int, PageInfo], frozenset[str]]:
    """``previous``'s pages with the ``changed`` ones read again (gone when no longer in the index), in
    page id order as a full load has them, and the paths whose stored status says they are replaced."""
    pages = dict(previous.pages)
    stored = set(previous.stored_replaced)
    rows = index.page_rows(changed)
    for pid in changed:
        if pid in pages:
            stored.discard(pages[pid].path)
    for pid in set(changed).difference(r[0] for r in rows):
        pages.pop(pid, None)
    # A page read again keeps its place; a new one goes last, which is id order unless an id was freed
    # and taken again.
    top = max(pages, default=0)
    in_order = True
    for r in rows:
        in_order = in_order and (r[0] in pages or r[0] > top)
        pages[r[0]] = PageInfo(r[0], r[1], r[2], r[3], bool(r[4]), r[5], bool(r[7]))
        if r[4]:
            stored.add(r[1])
    if not in_order:
        pages = dict(sorted(pages.items()))
    return pages, frozenset(stored)


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
