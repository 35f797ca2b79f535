"""The last step of a cold build: the staged chunks' segments merged term by term into the index's
packed postings, in this process, or in two halves with a forked helper process.

Each chunk of a cold build (krouter.index.build) is staged as a segment: its postings inverted, in term
order, in blocks of terms (`krouter.index.packed.Block`). The merge reads every chunk's blocks in term
order and joins each term's parts into its packed list (`krouter.index.packed.join_segments`).
"""

from __future__ import annotations

import bisect
import contextlib
import gc
import itertools
import operator
import os
import signal
import sqlite3
import struct
from array import array
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from krouter.index.packed import Block, block_lists, join_segments

# Terms (each with its ids and tfs, ~300 bytes) the merge holds of all staged chunks together, ~20 MB.
MERGE_TERMS = 65_536


# A merge helper's file: its rows in frames of up to PART_ROWS, each a header of five 8-byte lengths
# and the fields of a `Block` (terms joined by newlines, posting counts, tf sizes, ids, tfs); a header
# of zeros ends the file. Not SQLite: writing the rows into a database and reading them back cost more
# than the helper saved (7 s of CPU at 100k pages).
PART_ROWS = 4096
_FRAME = struct.Struct("<5q")
# A staged block's first term, in SQL (its terms are joined by newlines).
_FIRST_TERM = "substr(terms, 1, instr(terms || char(10), char(10)) - 1)"


def pivot(conn: sqlite3.Connection, table: str) -> str | None:
    """The term that cuts the staged blocks in two parts, the lower two fifths of the blocks for this
    process (which also writes every row) and the rest for the helper: the first term of the block
    two fifths of the way, in term order. None when there are too few blocks to share."""
    firsts = sorted(t for (t,) in conn.execute(f"SELECT {_FIRST_TERM} FROM {table}"))
    return firsts[len(firsts) * 2 // 5] if len(firsts) >= 2 else None


def joined(
    conn: sqlite3.Connection,
    table: str,
    dropped: frozenset[int],
    low: str | None = None,
    high: str | None = None,
) -> Iterator[tuple[str, bytes, bytes]]:
    """The index's postings rows (term, ids, tfs) of the staged terms from ``low`` (included) to
    ``high`` (excluded), in term order, the ids of ``dropped`` pages left out."""
    return (
        (term, *packed)
        for term, parts in merged_segments(conn, table, low, high)
        if (packed := join_segments(parts, dropped))
    )


class Helper:
    """A forked process joining the staged terms from ``low`` on into the file ``part`` (thrown away
    unless the helper finished), for `krouter.index.build`'s merge."""

    def __init__(self, staging: Path, part: Path, low: str) -> None:
        part.unlink(missing_ok=True)
        # Created here, so a file that cannot be made stops the split before a process is forked.
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
        self.pid = os.fork()
        if self.pid == 0:  # pragma: no cover - runs in the child, which never returns
            code = 1
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
                gc.disable()  # this process is ours and short-lived; see krouter.index.build
                with os.fdopen(fd, "wb") as out:
                    write_part(staging, out, low)
                code = 0
            finally:
                os._exit(code)
        os.close(fd)

    def finished(self) -> bool:
        """Wait for the helper; True when it wrote its half."""
        pid, self.pid = self.pid, 0
        if not pid:
            return False
        _, status = os.waitpid(pid, 0)
        return os.waitstatus_to_exitcode(status) == 0

    def stop(self) -> None:
        """Stop a helper not waited for (the merge was cut short)."""
        if self.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.pid = 0


def write_part(staging: Path, out: BinaryIO, low: str) -> None:
    """A merge helper's work: the staged terms from ``low`` on, joined, written to ``out`` in frames."""
    src = sqlite3.connect(staging)
    try:
        dropped = frozenset(p for (p,) in src.execute("SELECT page_id FROM stale_pages"))
        rows = joined(src, "segments", dropped, low=low)
        while batch := list(itertools.islice(rows, PART_ROWS)):
            terms, ids, tfs = zip(*batch, strict=True)
            fields = (
                "\n".join(terms).encode(),
                array("i", [len(i) // 4 for i in ids]).tobytes(),
                array("i", map(len, tfs)).tobytes(),
                b"".join(ids),
                b"".join(tfs),
            )
            out.write(_FRAME.pack(*map(len, fields)))
            out.writelines(fields)
        out.write(_FRAME.pack(0, 0, 0, 0, 0))
    finally:
        src.close()


def read_part(part: Path) -> Iterator[tuple[str, bytes, bytes]]:
    """The rows a merge helper wrote, in order; ValueError when the file is not whole."""
    with open(part, "rb") as data:
        while True:
            head = data.read(_FRAME.size)
            if len(head) != _FRAME.size:
                raise ValueError(f"{part}: cut short")
            sizes = _FRAME.unpack(head)
            if not any(sizes):
                return
            fields = [data.read(n) for n in sizes]
            if list(map(len, fields)) != list(sizes):
                raise ValueError(f"{part}: cut short")
            terms, ids, tfs = block_lists(Block(fields[0].decode(), *fields[1:]))
            yield from zip(terms, ids, tfs, strict=True)


class _Chunk:
    """The terms of one staged chunk the merge holds (with their ids and tfs), from ``at`` on; only
    those from ``low`` (included) to ``high`` (excluded) when given."""

    def __init__(
        self,
        first: int,
        blocks: Iterator[tuple[str, bytes, bytes, bytes, bytes]],
        low: str | None = None,
        high: str | None = None,
    ) -> None:
        self.first, self.blocks, self.at, self.done = first, blocks, 0, False
        self.low, self.high = low, high
        self.terms: list[str] = []
        self.ids: list[bytes] = []
        self.tfs: list[bytes] = []

    def fill(self, want: int) -> None:
        """Hold at least ``want`` terms not merged yet, loading the chunk's next blocks (``done`` once
        there is none left)."""
        if self.done or len(self.terms) - self.at >= want:
            return
        terms, ids, tfs = self.terms[self.at :], self.ids[self.at :], self.tfs[self.at :]
        while len(terms) < want:
            block = next(self.blocks, None)
            if block is None:
                self.done = True
                break
            more = block_lists(Block(*block))
            # Only the blocks at either end of the range hold terms outside it.
            if self.low is not None and more[0] and more[0][0] < self.low:
                cut = bisect.bisect_left(more[0], self.low)
                more = (more[0][cut:], more[1][cut:], more[2][cut:])
            if self.high is not None and more[0] and more[0][-1] >= self.high:
                cut = bisect.bisect_left(more[0], self.high)
                more = (more[0][:cut], more[1][:cut], more[2][:cut])
            terms += more[0]
            ids += more[1]
            tfs += more[2]
        self.terms, self.ids, self.tfs, self.at = terms, ids, tfs, 0


def merged_segments(
    conn: sqlite3.Connection, table: str, low: str | None = None, high: str | None = None
) -> Iterator[tuple[str, list[tuple[str, int, bytes, bytes]]]]:
    """Every term of the staged chunks (from ``low``, included, to ``high``, excluded, when given), in
    term order, with its (term, first, ids, tfs) parts in chunk order (which is page order), holding
    about MERGE_TERMS terms of all chunks at a time.

    Merged in rounds rather than entry by entry: every term up to the smallest last term held of a
    chunk with blocks left is complete (a chunk's later blocks hold only larger terms), so a round
    takes those of every chunk, chunk after chunk, and one stable sort by term merges them, in C."""
    # Each chunk's blocks that may hold terms of the range, found by their first terms: those from the
    # last one starting at or before ``low`` to the last one starting before ``high``.
    starts: dict[int, list[str]] = {}
    for first, head in conn.execute(f"SELECT first, {_FIRST_TERM} FROM {table} ORDER BY first, block"):
        starts.setdefault(first, []).append(head)
    chunks = []
    for first, heads in starts.items():
        lo = max(bisect.bisect_right(heads, low) - 1, 0) if low is not None else 0
        hi = bisect.bisect_left(heads, high) if high is not None else len(heads)
        if lo >= hi:
            continue
        rows = conn.execute(
            f"SELECT terms, counts, sizes, ids, tfs FROM {table} WHERE first=? AND block >= ? AND block < ? "
            "ORDER BY block",
            (first, lo, hi),
        )
        chunks.append(_Chunk(first, rows, low, high))
    # Each chunk holds up to `want` terms: more per chunk when there are few of them, so the rounds'
    # per-chunk steps stay few against the terms they move.
    want = max(MERGE_TERMS // max(len(chunks), 1), 1)
    by_term = operator.itemgetter(0)
    while chunks:
        for chunk in chunks:
            if len(chunk.terms) - chunk.at < (want + 1) // 2:
                chunk.fill(want)
        chunks = [chunk for chunk in chunks if chunk.at < len(chunk.terms)]
        held = [chunk.terms[-1] for chunk in chunks if not chunk.done]
        last = min(held) if held else None
        entries: list[tuple[str, int, bytes, bytes]] = []
        for chunk in chunks:
            at = chunk.at
            end = len(chunk.terms) if last is None else bisect.bisect_right(chunk.terms, last, at)
            entries += zip(
                chunk.terms[at:end], itertools.repeat(chunk.first), chunk.ids[at:end], chunk.tfs[at:end]
            )
            chunk.at = end
        entries.sort(key=by_term)
        for term, group in itertools.groupby(entries, by_term):
            yield term, list(group)
