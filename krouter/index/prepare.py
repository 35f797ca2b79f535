"""Reading and tokenising pages into the rows the index stores, in this process or in worker processes.

A cold build or a large refresh hands batches of pages to forked worker processes (one per core by
default), which read, parse and tokenise them and send back finished rows; the refreshing process only
writes them. Small refreshes, and processes that run other threads (a fork copies only the calling
thread, and a lock another thread held stays held in the child), do the same work here with the same
functions, so the rows never depend on where they were made.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import zlib
from array import array
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import accumulate, compress, repeat
from pathlib import Path
from typing import NamedTuple

from krouter.errors import ConfigError
from krouter.index.packed import Block, pack_columns, rebased
from krouter.index.passages import ZLEVEL, split_passages
from krouter.tokens.terms import index_terms, length_of, query_terms
from krouter.vault.fields import tagged_clipping
from krouter.vault.files import FileStat, PageTooLarge, content_hash, read_page_bytes
from krouter.vault.page import Page, Problem, decode, parse_page
from krouter.vault.templates import template_message

# Worker processes pay only past this many pages to read: forking and a worker's first Chinese page
# (which loads jieba's dictionary in it) cost tens to hundreds of milliseconds.
PARALLEL_MIN = 1000
# Pages per task sent to a worker in a refresh (a cold build sends one build chunk per task).
BATCH = 250
# How many processes tokenise; 0 or 1 keeps everything in this process. Default: one per core.
WORKERS_ENV = "KROUTER_BUILD_WORKERS"
# Terms per staged block of a cold build's segment (see `Block`): the merge reads a chunk's segment a
# block at a time.
BLOCK_TERMS = 256


class Postings(NamedTuple):
    """A page's postings: its terms in order, and each term's count in the title/alias field, the
    triggers and the body (a term a field lacks counts 0 there). Kept as the counts themselves, not a
    tuple per posting: a build inverts them at once, and short-lived tuples by the million fragment
    the heap of a long build."""

    terms: list[str]
    meta: Counter[str]
    trig: Counter[str]
    body: Counter[str]

    def rows(self) -> Iterator[tuple[str, int, int, int]]:
        """(term, title/alias tf, trigger tf, body tf), by term."""
        meta, trig, body = self.meta, self.trig, self.body
        return ((t, meta[t], trig[t], body[t]) for t in self.terms)


class Prepared(NamedTuple):
    """One file read and tokenised: its content hash and either the problem that keeps it out of the
    index or its ``pages`` row (every column but ``id``) with its postings; neither when its hash is
    the one it was stored with. ``postings`` is None when a batch's postings were inverted into its
    segment (see `prepare_batch`)."""

    fs: FileStat
    digest: str
    problem: Problem | None
    row: tuple[object, ...] | None
    postings: Postings | None


class Batch(NamedTuple):
    """A batch of pages prepared together. ``segment``, when asked for, holds the batch's postings
    inverted, in term order, cut into blocks (see `Block`); their page ids are counted 0, 1, ... over
    the batch's pages that have a row, in order: the writer adds the id its first page gets
    (`Batch.rows`)."""

    pages: list[Prepared]
    segment: list[Block] | None

    def rows(self, first: int) -> Iterator[tuple[int, int, str, bytes, bytes, bytes, bytes]]:
        """The segment as staged rows: (first, block number, terms, counts, sizes, ids, tfs), page ids
        counted from ``first``."""
        for number, (terms, counts, sizes, ids, tfs) in enumerate(self.segment or ()):
            yield first, number, terms, counts, sizes, rebased(ids, first), tfs


def meta_text(page: Page) -> str:
    """What a page's title/alias field holds: title, file name stem, aliases and tags."""
    name = page.path.rsplit("/", 1)[-1]
    stem = name[:-3] if name.lower().endswith(".md") else name
    return "\n".join([page.title, stem, *page.aliases, *page.tags])


def page_row(page: Page, fs: FileStat, digest: str) -> tuple[tuple[object, ...], Postings]:
    """A parsed page's ``pages`` row (without its id) and its postings."""
    meta_terms = Counter(index_terms(meta_text(page)))
    # Most pages have no triggers and replace nothing: their columns are known without tokenising or
    # encoding anything (a few µs a page, as `index_terms("")` and `json.dumps([])` give them).
    trig_terms = Counter(index_terms("\n".join(page.triggers))) if page.triggers else Counter()
    # The passages' terms counted once, all together: a `Counter.update` per passage cost ~1 µs of
    # Python around each count, ~12 passages a page.
    body_list: list[str] = []
    passages = []
    for line, text in split_passages(page):
        terms = index_terms(text)
        body_list += terms
        passages.append([line, " ".join(sorted(set(terms)))])
    body_terms = Counter(body_list)
    named = meta_terms.keys() | trig_terms.keys()
    every = body_terms.keys() | named
    row = (
        page.path,
        fs.mtime_ns,
        fs.size,
        digest,
        page.title,
        page.status,
        int(page.replaced),
        _json_list(page.superseded_by),
        _json_list(page.supersedes),
        length_of(body_terms),
        length_of(meta_terms),
        page.body_line,
        page.yaml_error,
        zlib.compress(_to_json(passages).encode(), ZLEVEL),
        _json_list([[q.term for q in query_terms(t)] for t in page.triggers]),
        " ".join(sorted(named - body_terms.keys())),
        int(tagged_clipping(page.tags)),
    )
    # In term order even for a cold build, whose chunk is sorted whole: that sort took 19-26 ms a chunk
    # over pages whose terms come in order (runs it merges), 32-36 ms over unordered pages, more than
    # the pages' own sorts (~9 ms a chunk).
    return row, Postings(sorted(every), meta_terms, trig_terms, body_terms)


# `json.dumps(obj, ensure_ascii=False)`, without making a new encoder for each call as `dumps` does for
# any argument but the defaults (~5 µs of a passages list's 17, one or two calls a page).
_to_json = json.JSONEncoder(ensure_ascii=False).encode


def _json_list(items: Sequence[object]) -> str:
    """``items`` as JSON (non-ASCII kept as is); an empty list, most pages' case, without the encoder."""
    return _to_json(items) if items else "[]"


def prepare_page(root: Path, fs: FileStat, stored_hash: str = "") -> Prepared:
    """Read one file and tokenise it, or say why it cannot be indexed. A file whose content hash is
    ``stored_hash`` is not tokenised again (a racy file re-read by every refresh costs a hash)."""
    try:
        data = read_page_bytes(root, fs.path)
    except OSError as exc:
        kind = "too_large" if isinstance(exc, PageTooLarge) else "unreadable"
        message = str(exc) if kind == "too_large" else exc.strerror or str(exc)
        return Prepared(fs, "", Problem(fs.path, kind, message), None, None)
    digest = content_hash(data)
    if digest == stored_hash:
        return Prepared(fs, digest, None, None, None)
    text = decode(fs.path, data)
    if isinstance(text, Problem):
        return Prepared(fs, digest, text, None, None)
    page = parse_page(fs.path, text)
    if page.template:
        return Prepared(fs, digest, Problem(fs.path, "template", template_message(page.template)), None, None)
    row, postings = page_row(page, fs, digest)
    return Prepared(fs, digest, None, row, postings)


# A file to prepare and the content hash it is stored with ("" if none).
Task = tuple[FileStat, str]


def prepare_batch(root: Path, files: Sequence[Task], invert: bool) -> Batch:
    """Prepare a batch of files; ``invert`` turns their postings into the batch's segment."""
    if not invert:
        return Batch([prepare_page(root, fs, stored_hash) for fs, stored_hash in files], None)
    pages = []
    # The batch's postings as five parallel columns (term, page, title tf, trigger tf, body tf), each
    # page's appended in C; then put in term order with one sort and packed term by term.
    terms_col: list[str] = []
    page_col: list[int] = []
    tf_cols: tuple[list[int], list[int], list[int]] = ([], [], [])
    # The terms with a title/alias or trigger count on some page (see `_invert`): the counts' keys, a
    # dozen a page, rather than a scan of the two columns, zero in most postings.
    named: set[str] = set()
    n = 0
    for fs, stored_hash in files:
        prepared = prepare_page(root, fs, stored_hash)
        if prepared.postings is not None:
            terms, meta, trig, body = prepared.postings
            terms_col += terms
            page_col += repeat(n, len(terms))
            for col, counts in zip(tf_cols, (meta, trig, body), strict=True):
                # Most pages have no trigger: a column of zeros is extended in C without a lookup.
                col += map(counts.get, terms, repeat(0)) if counts else repeat(0, len(terms))
            named.update(meta)
            named.update(trig)
            n += 1
            prepared = Prepared(*prepared[:4], None)
        pages.append(prepared)
    return Batch(pages, _invert(terms_col, page_col, tf_cols, named))


def _invert(
    terms_col: list[str],
    page_col: list[int],
    tf_cols: tuple[list[int], list[int], list[int]],
    named: set[str],
) -> list[Block]:
    """A batch's segment (see `Batch`) from its postings in page order, each term's list packed as
    `krouter.index.packed.pack_columns` packs it.

    Done in whole-column passes in C rather than a step per posting or per term: a column whose
    counts fit a byte is kept as bytes, most of a batch's terms are body words only (title/alias and
    trigger columns all zero), and their packed tfs are ``zzB`` and their body bytes; the few others
    are packed one by one (`pack_columns` reads a slice of bytes as the small ints it holds)."""
    keys = sorted(set(terms_col))
    rank = dict(zip(keys, range(len(keys)), strict=True))
    ranks = list(map(rank.__getitem__, terms_col))
    # A stable sort on each posting's term rank (ints compare fast): a term's postings stay in page
    # order, as the segment needs them.
    order = sorted(range(len(terms_col)), key=ranks.__getitem__)
    # An array from a list, not from an iterator: the array grows one item at a time from an
    # iterator, ~4x the time of the list's.
    ids = array("i", list(map(page_col.__getitem__, order))).tobytes()
    # How many pages hold each term, counted by rank: the ranks are the rank table's own int objects,
    # found by identity, where counting the terms themselves compared strings (~15 % less for these
    # steps than a `Counter` of the terms, one set of them and its lengths looked up by term).
    counts = Counter(ranks)
    lengths = list(map(counts.__getitem__, range(len(keys))))
    starts = list(accumulate(lengths, initial=0))
    meta_col, trig_col, body_col = tf_cols
    # Terms packed one by one: those with a title/alias or trigger count anywhere in the batch
    # (``named``), and those with a body count past a byte (a long page's common word). Only the body
    # column is put in term order whole, the title/alias and trigger columns (zero in most postings)
    # only for these terms.
    wide = bool(body_col) and max(body_col) > 0xFF
    special = named.union(compress(terms_col, map(0xFF.__lt__, body_col))) if wide else named
    body: bytes | list[int] = (
        list(map(body_col.__getitem__, order)) if wide else bytes(map(body_col.__getitem__, order))
    )
    # The body bytes of the terms not packed one by one (a wide column's bytes are never read).
    body_bytes = body if isinstance(body, bytes) else bytes(min(v, 0xFF) for v in body)
    tfs = list(map(b"zzB".__add__, map(body_bytes.__getitem__, map(slice, starts, starts[1:]))))
    for term in special:
        k = rank[term]
        at, end = starts[k], starts[k + 1]
        picked = order[at:end]
        tfs[k] = pack_columns(
            (),
            [list(map(meta_col.__getitem__, picked)), list(map(trig_col.__getitem__, picked)), body[at:end]],
        )[1]
    blocks = []
    for lo in range(0, len(keys), BLOCK_TERMS):
        hi = min(lo + BLOCK_TERMS, len(keys))
        blocks.append(
            Block(
                "\n".join(keys[lo:hi]),
                array("i", lengths[lo:hi]).tobytes(),
                array("i", map(len, tfs[lo:hi])).tobytes(),
                ids[4 * starts[lo] : 4 * starts[hi]],
                b"".join(tfs[lo:hi]),
            )
        )
    return blocks


def worker_count(pages: int) -> int:
    """How many worker processes to prepare ``pages`` files with; 0 means in this process.

    Workers are forked, so only where a fork is safe and cheap: on Linux (macOS frameworks are not
    fork-safe, Windows has no fork) and from a process with no other thread running."""
    if pages < PARALLEL_MIN or not sys.platform.startswith("linux"):
        return 0
    raw = os.environ.get(WORKERS_ENV, "").strip()
    try:
        wanted = int(raw) if raw else os.cpu_count() or 1
    except ValueError:
        raise ConfigError(f"{WORKERS_ENV}={raw!r}: not a whole number of worker processes") from None
    if wanted < 2 or threading.active_count() > 1:
        return 0
    return min(wanted, -(-pages // BATCH))


def prepared_batches(
    root: Path, batches: Sequence[Sequence[Task]], *, invert: bool, workers: int
) -> Iterator[Batch]:
    """Every batch prepared, in order: by ``workers`` worker processes, or here (lazily) when 0."""
    if workers < 2:
        for files in batches:
            yield prepare_batch(root, files, invert)
        return
    from krouter.index.workers import Workers  # the forking machinery: only a build or a large refresh

    with Workers(root, workers, batches, invert=invert) as pool:
        yield from pool.run()
