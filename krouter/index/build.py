"""A cold build: every page of an empty index written into a staging database in committed chunks,
then merged into the index in one transaction.

Pages are read and tokenised by worker processes when there are enough of them
(krouter.index.prepare); each chunk's postings come back inverted, a packed list per term, staged as
a few blocks of terms (a segment), and the merge joins a term's segments into its packed list. An
interrupted build keeps the chunks it committed, and the next refresh goes on from there.
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
import threading
import time
from array import array
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

from krouter.index.packed import Block, block_lists, join_segments
from krouter.index.pages import _YAML_ERROR, PAGE_COLUMNS, PAGE_MARKS
from krouter.index.prepare import Batch, prepared_batches, worker_count
from krouter.index.refresh import RACY_NS, RefreshStats, _chunks, _gone, _mark_racy
from krouter.vault.files import FileStat, content_hash, read_page_bytes

# Terms (each with its ids and tfs, ~300 bytes) the merge holds of all staged chunks together, ~20 MB.
MERGE_TERMS = 65_536


class ColdBuild:
    """The cold build. A part of `krouter.index.store.Index`: `Refresh.refresh` calls ``_build`` for an
    empty index, and the rows are written by its `PageRows`."""

    root: Path
    conn: sqlite3.Connection

    def _build(
        self,
        on_disk: dict[str, FileStat],
        unreadable: list[str],
        stats: RefreshStats,
        progress: Callable[[int, int], None] | None,
        started: float,
    ) -> RefreshStats:
        """A cold build: index every page into the staging database in chunks (each one committed, so
        a build cut short goes on from there next time), then move everything into the empty index in
        one transaction and delete the staging database.

        Pages are read and tokenised by worker processes when there are enough of them
        (krouter.index.prepare); each chunk's postings come back inverted, a packed list per term
        staged as a few blocks of terms (a segment), which the merge joins term by term."""
        main, self.conn = self.conn, self._open_staging()
        self._stored = None
        try:
            racy_after = time.time_ns() - RACY_NS
            stored = self._stored_stats()
            todo = _mark_racy(
                [fs for p, fs in on_disk.items() if stored.get(p) != (fs.mtime_ns, fs.size)], racy_after
            )
            gone = _gone(stored, on_disk, unreadable)
            todo = self._drop_staged(todo, gone, stats)
            done = 0
            batches = prepared_batches(self.root, _chunks(todo), invert=True, workers=worker_count(len(todo)))
            for batch in batches:
                self.conn.execute("BEGIN IMMEDIATE")
                try:
                    done = self._write_batch(batch, stats, progress, done, len(todo))
                    self.conn.execute("COMMIT")
                except BaseException:
                    self.conn.execute("ROLLBACK")
                    batches.close()  # stops the workers now, not when the generator is collected
                    raise
        finally:
            staging, self.conn = self.conn, main
            self._stored = None
        staging.close()
        self._merge_staging()
        stats.problems = self.problems()
        stats.seconds = time.perf_counter() - started
        return stats

    def _drop_staged(self, todo: list[FileStat], gone: list[str], stats: RefreshStats) -> list[FileStat]:
        """In a resumed build, bring the staged pages up to date before going on: drop the deleted
        ones and the changed ones (indexed again as new pages), and keep those whose content is as
        staged (a racy stat, a touched file). Returns the files left to index."""
        self._touched = set()
        staged = self._stored_rows([fs.path for fs in todo] + gone)
        problem_paths = {p for (p,) in self.conn.execute("SELECT path FROM problems")}
        if not staged and not gone and not problem_paths.intersection(fs.path for fs in todo):
            return todo
        left = []
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            for fs in todo:
                old = staged.get(fs.path)
                if old:
                    try:
                        digest = content_hash(read_page_bytes(self.root, fs.path))
                    except OSError:
                        digest = ""
                    if digest == old[3]:
                        self.conn.execute(
                            "UPDATE pages SET mtime_ns=?, size=? WHERE id=?", (fs.mtime_ns, fs.size, old[0])
                        )
                        stats.unchanged += 1
                        continue
                    self._delete_page(old[0])
                    self._touched.add(fs.path)
                    stats.updated += 1
                if fs.path in problem_paths:
                    self.conn.execute("DELETE FROM problems WHERE path=? AND kind != 'name'", (fs.path,))
                left.append(fs)
            for path in gone:
                if path in staged:
                    self._delete_page(staged[path][0])
                self.conn.execute("DELETE FROM problems WHERE path=?", (path,))
                stats.deleted += 1
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        return left

    def _write_batch(
        self,
        batch: Batch,
        stats: RefreshStats,
        progress: Callable[[int, int], None] | None,
        done: int,
        total: int,
    ) -> int:
        """Write one prepared chunk into the staging database: its pages with the next ids, its
        problems, and its segment. Returns how many pages are done."""
        (top,) = self.conn.execute(
            "SELECT MAX(COALESCE((SELECT MAX(id) FROM pages), 0), "
            "COALESCE((SELECT MAX(page_id) FROM stale_pages), 0))"
        ).fetchone()
        # Ids follow the walk's order, as one transaction gives them; a page dropped from the staging
        # database keeps its id out of use (its postings are dropped by id when merging).
        first = next_id = top + 1
        # The chunk's rows are written with one statement per table, not one per page.
        rows: list[tuple[object, ...]] = []
        problems: list[tuple[object, ...]] = []
        for prepared in batch.pages:
            done += 1
            if progress:
                progress(done, total)
            fs = prepared.fs
            if prepared.problem is not None:
                problems.append(
                    (fs.path, prepared.problem.kind, prepared.problem.message, fs.mtime_ns, fs.size)
                )
                continue
            assert prepared.row is not None
            if yaml_error := prepared.row[_YAML_ERROR]:  # as `PageRows._insert_page` records it
                problems.append((prepared.row[0], "yaml", yaml_error, -1, -1))
            rows.append((next_id, *prepared.row))
            next_id += 1
            if fs.path not in self._touched:  # else counted as updated when its old rows were dropped
                stats.added += 1
            stats.tokenized += 1
        self.conn.executemany("INSERT OR REPLACE INTO problems VALUES (?, ?, ?, ?, ?)", problems)
        self.conn.executemany(f"INSERT INTO pages ({PAGE_COLUMNS}) VALUES ({PAGE_MARKS})", rows)
        self.conn.executemany("INSERT INTO segments VALUES (?, ?, ?, ?, ?, ?, ?)", batch.rows(first))
        return done

    def _merge_staging(self) -> None:
        """Move the staging database's rows into the (empty) index, then delete the staging files.

        The terms are joined in two halves at once when a second process may be forked (as for the
        workers, `worker_count`): a forked helper joins the upper half into a file of its own while
        this process joins and writes the lower half, then copies the helper's rows after its own (the
        merge was alone on one core at the end of a build: 2 s at 10k pages, 31 s at 100k). A helper
        that fails has its half joined here instead."""
        path = self._staging_path()
        part = self._merge_part_path()
        self.conn.execute("ATTACH DATABASE ? AS staging", (str(path),))
        helper = None
        try:
            (staged,) = self.conn.execute("SELECT COUNT(*) FROM staging.pages").fetchone()
            pivot = _pivot(self.conn, "staging.segments") if worker_count(staged) >= 2 else None
            if pivot is not None:
                try:
                    helper = _Helper(path, part, pivot)
                except (OSError, sqlite3.Error):
                    helper = None  # no fork or no file for it: the upper half is joined here
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                # Another process building the same index may have merged first.
                if self.conn.execute("SELECT 1 FROM main.pages LIMIT 1").fetchone() is None:
                    self.conn.execute("INSERT INTO main.pages SELECT * FROM staging.pages")
                    self.conn.execute("INSERT INTO main.problems SELECT * FROM staging.problems")
                    dropped = frozenset(
                        p for (p,) in self.conn.execute("SELECT page_id FROM staging.stale_pages")
                    )
                    insert = "INSERT INTO main.postings VALUES (?, ?, ?)"
                    with _no_cyclic_gc():
                        self.conn.executemany(
                            insert, joined(self.conn, "staging.segments", dropped, high=pivot)
                        )
                        if helper is not None and helper.finished():
                            self.conn.executemany(insert, _read_part(part))
                        elif pivot is not None:
                            self.conn.executemany(
                                insert, joined(self.conn, "staging.segments", dropped, low=pivot)
                            )
                    self._resolve_links()
                    self._new_generation()
                self.conn.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self.conn.execute("ROLLBACK")
                raise
        finally:
            if helper is not None:
                helper.stop()
            self.conn.execute("DETACH DATABASE staging")
            _delete_files(part)
        self._delete_staging()

    def _merge_part_path(self) -> Path:
        return Path(f"{self.path}.merge")


# A merge helper's file: its rows in frames of up to PART_ROWS, each a header of five 8-byte lengths
# and the fields of a `Block` (terms joined by newlines, posting counts, tf sizes, ids, tfs); a header
# of zeros ends the file. Not SQLite: writing the rows into a database and reading them back cost more
# than the helper saved (7 s of CPU at 100k pages).
PART_ROWS = 4096
_FRAME = struct.Struct("<5q")


def _delete_files(path: Path) -> None:
    for suffix in ("", "-journal", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")


def _pivot(conn: sqlite3.Connection, table: str) -> str | None:
    """The term that cuts the staged blocks in two parts, the lower two fifths of the blocks for this
    process (which also writes every row) and the rest for the helper: the first term of the block
    two fifths of the way, in term order. None when there are too few blocks to share."""
    firsts = sorted(
        t
        for (t,) in conn.execute(
            f"SELECT substr(terms, 1, instr(terms || char(10), char(10)) - 1) FROM {table}"
        )
    )
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


class _Helper:
    """A forked process joining the staged terms from ``low`` on into the file ``part`` (thrown away
    unless the helper finished), for `_merge_staging`."""

    def __init__(self, staging: Path, part: Path, low: str) -> None:
        _delete_files(part)
        # Created here, so a file that cannot be made stops the split before a process is forked.
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
        self.pid = os.fork()
        if self.pid == 0:  # pragma: no cover - runs in the child, which never returns
            code = 1
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
                gc.disable()  # this process is ours and short-lived; see _no_cyclic_gc
                with os.fdopen(fd, "wb") as out:
                    _write_part(staging, out, low)
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


def _write_part(staging: Path, out: BinaryIO, low: str) -> None:
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


def _read_part(part: Path) -> Iterator[tuple[str, bytes, bytes]]:
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


@contextlib.contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """The cyclic garbage collector held off: the merge makes and frees millions of tuples and bytes
    (none in a cycle, all freed by reference count), and each collection walked the tuples of the
    round being merged (~a fifth of the merge's time at 10k pages). Only in a process with no other
    thread, whose garbage it would leave uncollected meanwhile."""
    if not gc.isenabled() or threading.active_count() > 1:
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


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
    for first, head in conn.execute(
        f"SELECT first, substr(terms, 1, instr(terms || char(10), char(10)) - 1) FROM {table} ORDER BY first, block"
    ):
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
