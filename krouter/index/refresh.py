"""Bringing the index up to date with the files: what changed, and in which transactions.

An incremental refresh re-reads only pages whose (mtime, size) changed, in one transaction; a rebuild
replaces every row in one transaction; a cold build (an empty index) writes into a staging database in
chunks and merges it once. The rows of each page are written by `krouter.index.pages`.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path

from krouter.errors import IndexBusy, IndexUnavailable
from krouter.index.schema import (
    BUSY_TIMEOUT_S,
    SCHEMA_VERSION,
    STAGING_SCHEMA,
    STAGING_VERSION,
    TABLES,
    damaged,
    delete_database,
    private_database,
)
from krouter.ops.watch_lease import watched_clean
from krouter.tokens.version import TOKENIZER_VERSION
from krouter.vault.files import (
    FileStat,
    stat_pages,
    walk,
)
from krouter.vault.page import Problem

# A cold build (an empty index) writes into a staging database next to it and commits every this many
# pages: an interrupted build keeps what it committed, and no transaction grows with the vault. A
# chunk's postings are staged inverted (a packed list per term, in blocks of terms); they go into the
# index once, merged in term order and joined, which writes its B-tree front to back. A build inside
# one transaction spilled SQLite's page cache to the WAL over and over (15.5 GB written for a 1.5 GB
# index at 100k pages); one staged row per posting cost 3.35M rows at 10k pages, one per term 1M, one
# per block of terms 4,000.
BUILD_CHUNK = 500
# ... and at most this many bytes of Markdown per chunk: a chunk's postings are held inverted in memory
# while it is prepared, so long pages (clippings) make shorter chunks.
BUILD_CHUNK_BYTES = 1_000_000
# Coarse file systems (FAT, SMB, older kernels) stamp mtimes in up to 2-second ticks.
RACY_NS = 2_000_000_000


@dataclass
class RefreshStats:
    """What one refresh did. ``tokenized`` counts pages whose text was re-tokenised."""

    added: int = 0
    updated: int = 0
    deleted: int = 0
    unchanged: int = 0
    tokenized: int = 0
    problems: list[Problem] = field(default_factory=list)
    seconds: float = 0.0
    stale: bool = False
    unreadable: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """True when the refresh changed the index."""
        return bool(self.added or self.updated or self.deleted)


def _bad_names(found: list[Problem]) -> dict[str, str]:
    return {p.path: p.message for p in found if p.kind == "name"}


def _mark_racy(todo: list[FileStat], racy_after: int) -> list[FileStat]:
    """A file modified just before we read it could change again within the same timestamp tick and
    keep its (mtime, size): it is stored with mtime 0, so later refreshes re-read it (the hash check
    keeps that cheap) until its mtime is safely in the past. Git calls these "racy" entries."""
    return [fs._replace(mtime_ns=0) if fs.mtime_ns >= racy_after else fs for fs in todo]


def _gone(stored: Collection[str], on_disk: Collection[str], unreadable: list[str]) -> list[str]:
    """The stored paths that are not on disk any more, in stored order, but for those under a folder
    that could not be listed right now (``unreadable``: a sync mount hiccup, permissions), which have
    not lost their pages. A set difference in C first: most walks find nothing gone, and testing every
    stored path against the unreadable prefixes cost a tuple per path (~15 ms a walk at 10k pages)."""
    missing = set(stored).difference(on_disk)
    if not missing:
        return []
    prefixes = tuple(unreadable)
    return [p for p in stored if p in missing and not (prefixes and p.startswith(prefixes))]


def _chunks(todo: list[FileStat]) -> list[list[tuple[FileStat, str]]]:
    """A cold build's files cut into chunks of at most BUILD_CHUNK pages and BUILD_CHUNK_BYTES bytes
    (a longer page makes a chunk of its own), as tasks for `krouter.index.prepare`."""
    chunks: list[list[tuple[FileStat, str]]] = []
    size = 0
    for fs in todo:
        if not chunks or len(chunks[-1]) >= BUILD_CHUNK or size + fs.size > BUILD_CHUNK_BYTES:
            chunks.append([])
            size = 0
        chunks[-1].append((fs, ""))
        size += fs.size
    return chunks


class Refresh:
    """Refresh, rebuild and cold build. A part of `krouter.index.store.Index`: the per-page rows are
    written by its `PageRows` (krouter.index.pages), the packed lists folded by its `PackedPostings`."""

    root: Path
    path: Path
    conn: sqlite3.Connection

    def rebuild(self, progress: Callable[[int, int], None] | None = None) -> RefreshStats:
        """Drop every row and index the vault from scratch, in one transaction.

        Done inside the database rather than by deleting the file, so processes that have the index
        open (a watcher, the MCP server) keep answering from the old rows until the new ones commit,
        then see them. Only a file that is not a usable database any more is deleted and recreated."""
        return self._started_over_when_damaged(lambda: self._rebuild(progress), progress)

    def _started_over_when_damaged(
        self, run: Callable[[], RefreshStats], progress: Callable[[int, int], None] | None
    ) -> RefreshStats:
        """``run()``; when SQLite finds the file damaged (a bad sector, a torn copy), the index is
        started over and built again."""
        try:
            return run()
        except sqlite3.DatabaseError as exc:
            if not damaged(exc):
                raise
        self._start_over()
        return self._refresh(progress, force=True)

    def _rebuild(self, progress: Callable[[int, int], None] | None) -> RefreshStats:
        if not self._stored_stats():
            # Nothing to keep answering from: build in chunks, which an interruption does not undo.
            return self.refresh(progress, force=True)
        started = time.perf_counter()
        stats = RefreshStats()
        found: list[Problem] = []
        todo = _mark_racy(list(walk(self.root, findings=found)), time.time_ns() - RACY_NS)
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                for table in TABLES:
                    self.conn.execute(f"DELETE FROM {table}")
                self.conn.execute(
                    "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'"
                )
                self._apply(todo, [], stats, progress)
                self._store_bad_names(_bad_names(found))
                self.conn.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self.conn.execute("ROLLBACK")
                raise
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError):
                raise  # locked or busy: another process is writing, the file is fine
            self._start_over()
            return self._refresh(progress)
        self._stored = None
        stats.problems = self.problems()
        stats.seconds = time.perf_counter() - started
        return stats

    def refresh(
        self,
        progress: Callable[[int, int], None] | None = None,
        *,
        paths: Collection[str] | None = None,
        force: bool = False,
    ) -> RefreshStats:
        """Bring the index up to date: re-tokenise only files whose (mtime, size) changed.

        ``paths`` (vault-relative, as a file watcher reports them) limits the check to those pages: the
        rest of the vault is not stat-ed. A path that names a folder, or that ``walk`` would not yield
        as written, makes it walk the whole vault as without ``paths``.

        When a watcher in another process (``krouter watch``, ``krouter mcp``) keeps this index and has
        indexed every change it saw, nothing is walked either (``krouter.watch_lease``); ``force``
        walks anyway.

        Safe to call from many processes at once: refreshers take turns, and one that cannot get its
        turn within the busy timeout answers from the index as it is (``stale``) rather than fail.

        A file SQLite finds damaged (a bad sector, a torn copy) is started over and built again.
        """
        try:
            return self._started_over_when_damaged(
                lambda: self._refresh(progress, paths=paths, force=force), progress
            )
        except sqlite3.DatabaseError as exc:
            if exc.sqlite_errorcode & 0xFF in (sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR):
                # Said in a line, not a traceback; the index is left as it was.
                raise IndexUnavailable(
                    f"cannot update the index {self.path}: {exc} (is the disk holding it full?); "
                    "set KROUTER_CACHE_DIR to a folder with room"
                ) from exc
            raise

    def _refresh(
        self,
        progress: Callable[[int, int], None] | None = None,
        *,
        paths: Collection[str] | None = None,
        force: bool = False,
    ) -> RefreshStats:
        started = time.perf_counter()
        racy_after = time.time_ns() - RACY_NS
        stats = RefreshStats()
        if paths is None and not force and watched_clean(self.path):
            stats.problems = self.problems()
            stats.seconds = time.perf_counter() - started
            return stats
        unreadable: list[str] = []
        named = stat_pages(self.root, paths) if paths is not None else None
        # Names that are not UTF-8 are reported by a walk; a refresh of named pages leaves them as stored.
        bad_names: dict[str, str] | None = None
        if named is not None:
            on_disk = {fs.path: fs for fs in named[0]}
            # Just these paths' rows: reading every row (~25 ms at 10k pages) would cost more than the rest.
            stored = self._stored_stats_of([*on_disk, *named[1]])
            gone = [p for p in named[1] if p in stored]
        else:
            found: list[Problem] = []
            on_disk = {fs.path: fs for fs in walk(self.root, unreadable, findings=found)}
            bad_names = _bad_names(found)
            stored = self._stored_stats()
            # A folder that cannot be listed right now (a sync mount hiccup, permissions) has not lost
            # its pages: keep them until the folder can be read again, and say so.
            gone = _gone(stored, on_disk, unreadable)
        todo = _mark_racy(
            [fs for p, fs in on_disk.items() if stored.get(p) != (fs.mtime_ns, fs.size)], racy_after
        )
        stats.unreadable = unreadable
        stats.unchanged = len(on_disk) - len(todo)
        names_moved = bad_names is not None and bad_names != self._stored_bad_names()
        if named is None:
            if not stored and (len(todo) > BUILD_CHUNK or self._staging_path().exists()):
                return self._build(on_disk, unreadable, stats, progress, started)
            if stored and self._staging_path().exists():
                self._delete_staging()  # left by a build whose merge committed, then was cut short
        if todo or gone or names_moved:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                if not stored and (
                    named is None or not self.conn.execute("SELECT 1 FROM pages LIMIT 1").fetchone()
                ):
                    raise IndexBusy(
                        f"index {self.path} is being built by another process; try again"
                    ) from exc
                stats.stale = True
                stats.seconds = time.perf_counter() - started
                return stats
            try:
                if todo or gone:
                    self._apply(todo, gone, stats, progress)
                if names_moved and bad_names is not None:
                    self._store_bad_names(bad_names)
                self.conn.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self.conn.execute("ROLLBACK")
                raise
        stats.problems = self.problems()
        stats.seconds = time.perf_counter() - started
        return stats

    def _staging_path(self) -> Path:
        return Path(f"{self.path}.build")

    def _merge_part_path(self) -> Path:
        """The file a cold build's merge helper writes its half of the terms to (not SQLite)."""
        return Path(f"{self.path}.merge")

    def _open_staging(self) -> sqlite3.Connection:
        """The cold build's staging database, created or reopened (a build of another KRouter version
        or another vault is discarded)."""
        path = self._staging_path()
        want = {
            "schema": SCHEMA_VERSION,
            "staging": STAGING_VERSION,
            "tokenizer": TOKENIZER_VERSION,
            "vault": str(self.root),
        }
        for _ in range(2):
            # Every page's words are staged in it, as in the index: owner-only from the start.
            private_database(path)
            conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
            try:
                # Rows are only appended, and SQLite journals no page past the file's old end: a rollback
                # journal writes them once (WAL wrote them twice). No fsync: a build cut short by a
                # crash of the machine, not just of the process, may start over (a damaged file is
                # discarded below).
                conn.execute("PRAGMA journal_mode=TRUNCATE")
                conn.execute("PRAGMA synchronous=OFF")
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
                have = dict(conn.execute("SELECT key, value FROM meta").fetchall())
                if not have:
                    for statement in STAGING_SCHEMA.split(";"):
                        if statement.strip():
                            conn.execute(statement)
                    conn.executemany("INSERT INTO meta VALUES (?, ?)", [*want.items(), ("generation", "0")])
                    have = want
                conn.execute("COMMIT")
                if all(have.get(k) == v for k, v in want.items()):
                    return conn
            except sqlite3.DatabaseError as exc:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                conn.close()
                if "locked" in str(exc) or "busy" in str(exc):
                    raise IndexBusy(
                        f"index {self.path} is being built by another process; try again"
                    ) from exc
            else:
                conn.close()
            self._delete_staging()
        raise IndexUnavailable(
            f"cannot create the build file {path}; set KROUTER_CACHE_DIR to a folder you can write"
        )

    def _delete_staging(self) -> None:
        # The staging database, and the file of a merge helper whose build was killed mid-merge.
        delete_database(self._staging_path(), journal=True)
        self._merge_part_path().unlink(missing_ok=True)
