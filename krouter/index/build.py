"""A cold build: every page of an empty index written into a staging database in committed chunks,
then merged into the index in one transaction.

Pages are read and tokenised by worker processes when there are enough of them
(krouter.index.prepare); each chunk's postings come back inverted, a packed list per term, staged as
a few blocks of terms (a segment), and the merge joins a term's segments into its packed list. An
interrupted build keeps the chunks it committed, and the next refresh goes on from there.
"""

from __future__ import annotations

import contextlib
import gc
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from krouter.errors import IndexBusy
from krouter.file_lock import Taken, held
from krouter.index import merge
from krouter.index.pages import _YAML_ERROR, PAGE_COLUMNS, PAGE_MARKS
from krouter.index.prepare import Batch, prepared_batches, worker_count
from krouter.index.refresh import RACY_NS, RefreshStats, _chunks, _gone, _mark_racy
from krouter.vault.files import FileStat, content_hash, read_page_bytes


class ColdBuild:
    """The cold build. A part of `krouter.index.store.Index`: `Refresh.refresh` calls ``_build`` for an
    empty index, and the rows are written by its `PageRows`."""

    root: Path
    path: Path
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
        staged as a few blocks of terms (a segment), which the merge joins term by term.

        One process builds at a time (``<index>.lock``, kept beside the index, held to the end of
        the merge): two at once wrote the same pages into the staging database, and each process
        opening the index during a first build (an agent's ask, the watcher) ended in an
        IntegrityError. Another process is told the index is being built, as a refresh that cannot
        get its turn is."""
        with self._sole_builder():
            if self.conn.execute("SELECT 1 FROM pages LIMIT 1").fetchone():
                # Another process's build committed between this one's look at the index and its lock.
                self._stored = None
                return self.refresh(progress)
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
                batches = prepared_batches(
                    self.root, _chunks(todo), invert=True, workers=worker_count(len(todo))
                )
                for batch in batches:
                    self.conn.execute("BEGIN IMMEDIATE")
                    try:
                        done = self._write_batch(batch, stats, progress, done, len(todo))
                        self.conn.execute("COMMIT")
                    except BaseException:
                        with contextlib.suppress(sqlite3.Error):
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

    @contextlib.contextmanager
    def _sole_builder(self) -> Iterator[None]:
        """Hold ``<index>.lock`` for the block; IndexBusy at once when another process holds it."""
        with contextlib.ExitStack() as lock:
            try:
                lock.enter_context(held(Path(f"{self.path}.lock"), wait=False))
            except Taken:
                raise IndexBusy(f"index {self.path} is being built by another process; try again") from None
            yield

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
            with contextlib.suppress(sqlite3.Error):
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
            pivot = merge.pivot(self.conn, "staging.segments") if worker_count(staged) >= 2 else None
            if pivot is not None:
                try:
                    helper = merge.Helper(path, part, pivot)
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
                            insert, merge.joined(self.conn, "staging.segments", dropped, high=pivot)
                        )
                        if helper is not None and helper.finished():
                            self.conn.executemany(insert, merge.read_part(part))
                        elif pivot is not None:
                            self.conn.executemany(
                                insert, merge.joined(self.conn, "staging.segments", dropped, low=pivot)
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
            part.unlink(missing_ok=True)
        self._delete_staging()


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
