"""The persistent, incrementally refreshed index of one vault, in SQLite.

One database file per vault under the cache dir. Postings are our own table rather than FTS5: the
router needs per-field term frequencies, document frequencies for IDF and per-passage term sets for
its evidence, and our tokeniser (jieba words + bigrams, stemmed English) would have to be re-encoded
for FTS5's tokenisers anyway. Many processes may share the file: WAL lets readers go on while one
refresher writes, ``BEGIN IMMEDIATE`` makes refreshers take turns, and a file that is not a database
is deleted and rebuilt.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import operator
import os
import re
import sqlite3
import time
import zlib
from array import array
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from krouter import config
from krouter.errors import IndexBusy, IndexUnavailable
from krouter.links import LinkResolver
from krouter.ops.watch_lease import watched_clean
from krouter.tokenizer import TOKENIZER_VERSION, counts_toward_length, index_terms, query_terms
from krouter.vault import (
    FileStat,
    Page,
    PageTooLarge,
    Problem,
    check_vault,
    content_hash,
    decode,
    parse_page,
    read_page_bytes,
    stat_pages,
    walk,
)

# Bumped when the tables or what is stored in them change, so an index built by an older KRouter is
# rebuilt, not misread (3: field names read case-insensitively and salvaged from broken YAML; 4:
# replaced_by / replaces, more replaced statuses, status lists and phrases, wikilinks in lists; 5: link
# resolution rules, whose results the links table keeps until a page changes; 6: postings packed per
# term with a table of fresh rows beside them, passages and page terms compressed).
SCHEMA_VERSION = "6"
# Up to this many changed paths, a refresh looks their rows up by path instead of reading every row.
_FEW_PATHS = 2000
# A cold build (an empty index) writes into a staging database next to it and commits every this many
# pages: an interrupted build keeps what it committed, and no transaction grows with the vault. The
# staging postings table has no key, so rows are appended; the postings then go into the index once,
# sorted by key, which writes its B-tree front to back. A build inside one transaction spilled SQLite's
# page cache to the WAL over and over (15.5 GB written for a 1.5 GB index at 100k pages).
BUILD_CHUNK = 500
# Postings are stored packed, one row per term (``_pack``): a lookup reads a term's list as one blob and
# decodes it in C. An edit does not rewrite the packed lists of its terms (a common word's list spans
# every page): the page's rows go to ``fresh_postings``, its id to ``stale_pages`` (which voids its packed
# entries) and its old terms to ``stale_terms``. Readers merge the three. Once the fresh rows pass
# PACK_ROWS or PACK_ROWS_PER_PAGE per page of the vault (~5% of its postings), or the stale pages
# PACK_STALE or one in PACK_STALE_SHARE of the pages, the refresh that got them there folds them into
# the packed lists, rewriting only the terms they touch. The limits grow with the vault because a fold
# rewrites whole lists, which grow with it: at 100k pages, folding after every 50k rows made a refresh
# of 1,000 edited pages take 30 s.
PACK_ROWS = 50_000
PACK_ROWS_PER_PAGE = 16
PACK_STALE = 1_000
PACK_STALE_SHARE = 20
# Decoded postings lists of at least _HELD_MIN pages are kept for later lookups of the same generation,
# up to _HELD_BUDGET postings in all (~15 MB).
_HELD_MIN = 256
_HELD_BUDGET = 100_000
BUSY_TIMEOUT_S = 30.0
# Coarse file systems (FAT, SMB, older kernels) stamp mtimes in up to 2-second ticks.
RACY_NS = 2_000_000_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pages (
    id INTEGER PRIMARY KEY,
    path TEXT UNIQUE NOT NULL,
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL,
    hash TEXT NOT NULL,
    title TEXT NOT NULL,
    status TEXT NOT NULL,
    replaced INTEGER NOT NULL,
    superseded_by TEXT NOT NULL,
    supersedes TEXT NOT NULL,
    n_body INTEGER NOT NULL,
    n_meta INTEGER NOT NULL,
    body_line INTEGER NOT NULL,
    yaml_error TEXT,
    passages BLOB NOT NULL,
    trigger_terms TEXT NOT NULL,
    other_terms TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS postings (term TEXT PRIMARY KEY, ids BLOB NOT NULL, tfs BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS fresh_postings (
    term TEXT NOT NULL,
    page_id INTEGER NOT NULL,
    meta_tf INTEGER NOT NULL,
    trig_tf INTEGER NOT NULL,
    body_tf INTEGER NOT NULL,
    PRIMARY KEY (term, page_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS fresh_postings_page ON fresh_postings(page_id);
CREATE TABLE IF NOT EXISTS stale_pages (page_id INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS stale_terms (term TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS problems (
    path TEXT PRIMARY KEY, kind TEXT NOT NULL, message TEXT NOT NULL, mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS links (
    src TEXT NOT NULL, dst TEXT, kind TEXT NOT NULL, raw TEXT NOT NULL
);
"""

_POSTINGS_KEYED = "    body_tf INTEGER NOT NULL,\n    PRIMARY KEY (term, page_id)\n) WITHOUT ROWID;"
_POSTINGS_INDEX = "CREATE INDEX IF NOT EXISTS fresh_postings_page ON fresh_postings(page_id);"
if _POSTINGS_KEYED not in _SCHEMA or _POSTINGS_INDEX not in _SCHEMA:  # kept in step with _SCHEMA
    raise RuntimeError("krouter.index: the staging schema no longer matches the postings table")
# The staging database of a cold build: the same tables, fresh postings as a plain append-only table
# (read sorted and packed into the index's ``postings`` when the build is merged).
_STAGING_SCHEMA = _SCHEMA.replace(_POSTINGS_KEYED, "    body_tf INTEGER NOT NULL\n);").replace(
    _POSTINGS_INDEX, ""
)

_TABLES = ("pages", "postings", "fresh_postings", "stale_pages", "stale_terms", "problems", "links")

# A new passage starts at a blank line and at each list item, table row, heading, quote or dialogue
# turn, so "key terms in one passage" means one fact, not one page.
_PASSAGE_START = re.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s|\||#|>|\*\*[^*]+\*\*\s*[:：]|[^\s:：]{1,40}[:：]\s)")


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


@dataclass(frozen=True)
class Passage:
    """A stretch of a page (paragraph, list item, table row, turn) and the terms it holds."""

    line: int
    terms: frozenset[str]


def index_path(vault_root: Path) -> Path:
    """Where the index of a vault lives: one file per vault, named after its resolved path."""
    safe = re.sub(r"[^A-Za-z0-9_-]+", "_", vault_root.name)[:40] or "vault"
    return config.cache_dir() / "indexes" / f"{safe}-{config.vault_id(vault_root)}.sqlite3"


def split_passages(page: Page) -> list[tuple[int, str]]:
    """Cut a page body into passages: (1-based file line, text)."""
    out: list[tuple[int, list[str]]] = []
    current: list[str] | None = None
    for i, line in enumerate(page.body.splitlines()):
        lineno = page.body_line + i
        if not line.strip():
            current = None
            continue
        if current is None or _PASSAGE_START.match(line):
            current = [line]
            out.append((lineno, current))
        else:
            current.append(line)
    return [(n, "\n".join(lines)) for n, lines in out]


def _meta_text(page: Page) -> str:
    name = page.path.rsplit("/", 1)[-1]
    stem = name[:-3] if name.lower().endswith(".md") else name
    return "\n".join([page.title, stem, *page.aliases, *page.tags])


def _bad_names(found: list[Problem]) -> dict[str, str]:
    return {p.path: p.message for p in found if p.kind == "name"}


def _mark_racy(todo: list[FileStat], racy_after: int) -> list[FileStat]:
    """A file modified just before we read it could change again within the same timestamp tick and
    keep its (mtime, size): it is stored with mtime 0, so later refreshes re-read it (the hash check
    keeps that cheap) until its mtime is safely in the past. Git calls these "racy" entries."""
    return [fs._replace(mtime_ns=0) if fs.mtime_ns >= racy_after else fs for fs in todo]


# zlib level for passages: read for a few pages per lookup, written once per edit.
_ZLEVEL = 1


def _pack(rows: list[tuple[int, int, int, int]]) -> tuple[bytes, bytes]:
    """One term's postings, (page id, title/alias tf, trigger tf, body tf) in page id order, as two
    blobs: the ids as 4-byte ints, and the three tf columns, each in the narrowest of 1/2/4-byte ints
    that holds it ("z": all zero, stored as nothing), behind a 3-letter header naming those widths.
    Native byte order: the index is a cache of this machine's, rebuilt if unreadable."""
    ids, *cols = zip(*rows, strict=True)
    return _pack_columns(ids, cols)


def _pack_columns(ids: Sequence[int], cols: Sequence[Sequence[int]]) -> tuple[bytes, bytes]:
    """``_pack`` of postings given as a column of page ids and the three tf columns."""
    codes, data = [], []
    for col in cols:
        top = max(col)
        code = "z" if not top else "B" if top < 0x100 else "H" if top < 0x10000 else "I"
        codes.append(code)
        if code != "z":
            data.append(array(code, col).tobytes())
    return array("i", ids).tobytes(), "".join(codes).encode() + b"".join(data)


def _columns(ids_blob: bytes, tfs_blob: bytes) -> tuple[array[int], list[array[int]]]:
    """The page ids and the three tf columns of a packed list, as arrays (all-zero ones filled)."""
    ids = array("i", ids_blob)
    cols, at = [], 3
    for code in tfs_blob[:3].decode():
        if code == "z":
            cols.append(array("B", bytes(len(ids))))
            continue
        size = len(ids) * array(code).itemsize
        cols.append(array(code, tfs_blob[at : at + size]))
        at += size
    return ids, cols


def _unpack(ids_blob: bytes, tfs_blob: bytes) -> dict[int, tuple[int, int, int]]:
    """The postings ``_pack`` stored, as (title/alias tf, trigger tf, body tf) by page id, in id order.
    Decoding and the dict are built in C: no Python code runs per posting."""
    ids = array("i", ids_blob)
    n = len(ids)
    cols: list[Iterable[int]] = []
    at = 3
    for code in tfs_blob[:3].decode():
        if code == "z":
            cols.append(itertools.repeat(0, n))
            continue
        col = array(code, tfs_blob[at : at + n * array(code).itemsize])
        at += len(col) * col.itemsize
        cols.append(col)
    return dict(zip(ids, zip(*cols, strict=True), strict=True))


def _passages_of(blob: bytes) -> list[Passage]:
    """The passages stored for a page (zlib-compressed JSON of [line, "term term ..."])."""
    return [Passage(line, frozenset(terms.split())) for line, terms in json.loads(zlib.decompress(blob))]


def _page_terms(passages: bytes, other_terms: str) -> set[str]:
    """Every term of a page: its body's are the union of its passages' (no copy of them is kept)."""
    return set(other_terms.split()).union(*(p.terms for p in _passages_of(passages)))


class Index:
    """An open index of one vault. Use ``refresh()`` to bring it up to date with the files."""

    def __init__(self, vault: Path, *, path: Path | None = None) -> None:
        self.root = check_vault(vault)
        self.path = path or index_path(self.root)
        self._stored: tuple[tuple[str, ...], dict[str, tuple[int, int]]] | None = None
        # (generation, stale page ids, whether there are fresh rows): see _delta.
        self._stale: tuple[int, frozenset[int], bool] | None = None
        # Decoded passages of recently read pages, for one generation (a lookup reads the top page's
        # twice, and questions about one subject cite the same pages).
        self._passages: tuple[int, dict[int, list[Passage]]] = (-1, {})
        # Decoded long postings lists of this generation, least recently used first, and their total
        # length (see _keep_held).
        self._held: tuple[int, dict[str, dict[int, tuple[int, int, int]]], int] = (-1, {}, 0)
        # What the current refresh changed, for re-resolving only the links it can affect.
        self._touched: set[str] = set()
        self._paths_changed = False
        self.conn = self._open()

    def _open(self) -> sqlite3.Connection:
        hint = "set KROUTER_CACHE_DIR to a folder you can write"
        try:
            # The index holds every word of the notes, secrets included: owner-only, like the query log.
            if self.path.parent.parent == config.cache_dir():
                config.private_dir(self.path.parent.parent)
            config.private_dir(self.path.parent)
        except OSError as exc:
            raise IndexUnavailable(
                f"cannot create the index folder {self.path.parent}: {exc}; {hint}"
            ) from exc
        for attempt in range(2):
            try:
                self._private_files()
                conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
            except (sqlite3.Error, OSError) as exc:
                raise IndexUnavailable(f"cannot open the index {self.path}: {exc}; {hint}") from exc
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                self._check_versions(conn)
                return conn
            except sqlite3.DatabaseError as exc:
                conn.close()
                # Locked or busy means another process is writing, not that the file is damaged:
                # deleting it would pull the index from under that process.
                if "locked" in str(exc) or "busy" in str(exc):
                    raise IndexBusy(f"index {self.path} is locked by another process; try again") from exc
                if attempt:
                    raise IndexUnavailable(f"cannot open the index {self.path}: {exc}; {hint}") from exc
                try:
                    self._delete_files()
                except OSError as os_exc:
                    raise IndexUnavailable(f"cannot replace the index {self.path}: {os_exc}; {hint}") from exc
        raise AssertionError("unreachable")

    def _check_versions(self, conn: sqlite3.Connection) -> None:
        """Create the tables; a schema or tokeniser change makes every stored row stale: start over,
        dropping the old tables (their columns may differ from this version's)."""
        want = {"schema": SCHEMA_VERSION, "tokenizer": TOKENIZER_VERSION, "vault": str(self.root)}
        conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        have = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        if all(have.get(k) == v for k, v in want.items()):
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            have = dict(conn.execute("SELECT key, value FROM meta").fetchall())
            if not all(have.get(k) == v for k, v in want.items()):
                for table in _TABLES:
                    conn.execute(f"DROP TABLE IF EXISTS {table}")
                conn.execute("DELETE FROM meta")
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.executemany("INSERT INTO meta VALUES (?, ?)", [*list(want.items()), ("generation", "0")])
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _private_files(self) -> None:
        """Create the database file 0600 before SQLite does (its -wal and -shm files take the database
        file's mode), and narrow the files an older version left 0644."""
        with contextlib.suppress(FileExistsError):
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError, PermissionError):  # best effort, like private_dir
                if os.stat(f"{self.path}{suffix}").st_mode & 0o077:
                    os.chmod(f"{self.path}{suffix}", 0o600)

    def _delete_files(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{self.path}{suffix}")

    def close(self) -> None:
        """Close the database connection."""
        self.conn.close()

    def rebuild(self, progress: Callable[[int, int], None] | None = None) -> RefreshStats:
        """Drop every row and index the vault from scratch, in one transaction.

        Done inside the database rather than by deleting the file, so processes that have the index
        open (a watcher, the MCP server) keep answering from the old rows until the new ones commit,
        then see them. Only a file that is not a usable database any more is deleted and recreated."""
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
                for table in _TABLES:
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
            self.conn.close()
            self._delete_files()
            self.conn = self._open()
            # A new file starts its generations over: nothing cached by generation may carry over.
            self._stored, self._stale, self._passages, self._held = None, None, (-1, {}), (-1, {}, 0)
            return self.refresh(progress=progress)
        self._stored = None
        stats.problems = self.problems()
        stats.seconds = time.perf_counter() - started
        return stats

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """A read transaction: in WAL mode every read inside it sees one consistent state of the index."""
        self.conn.execute("BEGIN")
        try:
            yield
        finally:
            self.conn.execute("COMMIT")

    def generation(self) -> int:
        """A counter that goes up with every refresh that changed the index (for caches)."""
        row = self.conn.execute("SELECT value FROM meta WHERE key='generation'").fetchone()
        return int(row[0]) if row else 0

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
        """
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
            gone = [p for p in stored if p not in on_disk and not p.startswith(tuple(unreadable))]
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
                self.conn.execute("ROLLBACK")
                raise
        stats.problems = self.problems()
        stats.seconds = time.perf_counter() - started
        return stats

    def _staging_path(self) -> Path:
        return Path(f"{self.path}.build")

    def _open_staging(self) -> sqlite3.Connection:
        """The cold build's staging database, created or reopened (a build of another KRouter version
        or another vault is discarded)."""
        path = self._staging_path()
        want = {"schema": SCHEMA_VERSION, "tokenizer": TOKENIZER_VERSION, "vault": str(self.root)}
        for _ in range(2):
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
                    for statement in _STAGING_SCHEMA.split(";"):
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
        one transaction, postings sorted by key, and delete the staging database."""
        main, self.conn = self.conn, self._open_staging()
        self._stored = None
        try:
            racy_after = time.time_ns() - RACY_NS
            stored = self._stored_stats()
            todo = _mark_racy(
                [fs for p, fs in on_disk.items() if stored.get(p) != (fs.mtime_ns, fs.size)], racy_after
            )
            gone = [p for p in stored if p not in on_disk and not p.startswith(tuple(unreadable))]
            for start in range(0, max(len(todo), 1), BUILD_CHUNK):
                chunk = todo[start : start + BUILD_CHUNK]
                self.conn.execute("BEGIN IMMEDIATE")
                try:
                    self._apply(
                        chunk,
                        gone if start + BUILD_CHUNK >= len(todo) else [],
                        stats,
                        (lambda i, _t, d=start: progress(d + i, len(todo))) if progress else None,
                        building=True,
                    )
                    self.conn.execute("COMMIT")
                except BaseException:
                    self.conn.execute("ROLLBACK")
                    raise
        finally:
            staging, self.conn = self.conn, main
            self._stored = None
        staging.close()
        self._merge_staging()
        stats.problems = self.problems()
        stats.seconds = time.perf_counter() - started
        return stats

    def _merge_staging(self) -> None:
        """Move the staging database's rows into the (empty) index, then delete the staging files."""
        path = self._staging_path()
        self.conn.execute("ATTACH DATABASE ? AS staging", (str(path),))
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                # Another process building the same index may have merged first.
                if self.conn.execute("SELECT 1 FROM main.pages LIMIT 1").fetchone() is None:
                    self.conn.execute("INSERT INTO main.pages SELECT * FROM staging.pages")
                    self.conn.execute("INSERT INTO main.problems SELECT * FROM staging.problems")
                    rows = self.conn.execute(
                        "SELECT term, page_id, meta_tf, trig_tf, body_tf "
                        "FROM staging.fresh_postings ORDER BY term, page_id"
                    )
                    self.conn.executemany(
                        "INSERT INTO main.postings VALUES (?, ?, ?)",
                        (
                            (term, *_pack([r[1:] for r in group]))
                            for term, group in itertools.groupby(rows, operator.itemgetter(0))
                        ),
                    )
                    self._resolve_links()
                    n_pages, avg_body = self.conn.execute(
                        "SELECT COUNT(*), COALESCE(AVG(n_body), 0) FROM main.pages"
                    ).fetchone()
                    self.conn.executemany(
                        "INSERT OR REPLACE INTO main.meta VALUES (?, ?)",
                        [
                            ("generation", str(self.generation() + 1)),
                            ("n_pages", str(n_pages)),
                            ("avg_body", repr(float(avg_body))),
                            ("refreshed_at", repr(time.time())),
                        ],
                    )
                self.conn.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self.conn.execute("ROLLBACK")
                raise
        finally:
            self.conn.execute("DETACH DATABASE staging")
        self._delete_staging()

    def _delete_staging(self) -> None:
        for suffix in ("", "-journal", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{self._staging_path()}{suffix}")

    def _stored_stats_of(self, paths: list[str]) -> dict[str, tuple[int, int]]:
        """The stored (mtime, size) of just these paths, as ``_stored_stats`` has them."""
        out: dict[str, tuple[int, int]] = {}
        for start in range(0, len(paths), 400):  # under SQLite's bound-parameter limit
            chunk = paths[start : start + 400]
            marks = ", ".join("?" * len(chunk))
            rows = self.conn.execute(
                f"SELECT path, mtime_ns, size FROM pages WHERE path IN ({marks}) UNION ALL "
                f"SELECT path, mtime_ns, size FROM problems WHERE kind != 'yaml' AND path IN ({marks})",
                chunk * 2,
            )
            out.update((p, (m, s)) for p, m, s in rows)
        return out

    def _stored_stats(self) -> dict[str, tuple[int, int]]:
        # Every refresh that writes also bumps the generation and stamps refreshed_at, so an unchanged
        # pair means the stored (mtime, size) table is unchanged: re-reading it on every lookup cost a
        # query over every page (~60 ms at 100k pages) for nothing.
        key = tuple(
            v
            for (v,) in self.conn.execute(
                "SELECT value FROM meta WHERE key IN ('generation', 'refreshed_at') ORDER BY key"
            )
        )
        if self._stored is not None and self._stored[0] == key:
            return self._stored[1]
        rows = self.conn.execute(
            "SELECT path, mtime_ns, size FROM pages "
            "UNION ALL SELECT path, mtime_ns, size FROM problems WHERE kind NOT IN ('yaml', 'name')"
        )
        stored = {p: (m, s) for p, m, s in rows}
        self._stored = (key, stored)
        return stored

    def _stored_bad_names(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT path, message FROM problems WHERE kind='name'"))

    def _store_bad_names(self, bad_names: dict[str, str]) -> None:
        """Keep the files and folders skipped for their names in the problems table, so ``status`` and
        every reader of ``problems()`` report them (under their path with each bad byte as ``\\xNN``)."""
        self.conn.execute("DELETE FROM problems WHERE kind='name'")
        self.conn.executemany(
            "INSERT OR REPLACE INTO problems VALUES (?, 'name', ?, -1, -1)", sorted(bad_names.items())
        )

    def _apply(
        self,
        todo: list[FileStat],
        gone: list[str],
        stats: RefreshStats,
        progress: Callable[[int, int], None] | None,
        *,
        building: bool = False,
    ) -> None:
        """Index ``todo`` and drop ``gone`` inside the caller's transaction. ``building``: a chunk of a
        cold build, written to the staging database; links are resolved when it is merged."""
        # Another refresher may have done part of the work while we waited for the lock.
        stored = self._stored_rows([fs.path for fs in todo] + gone)
        problem_paths = {p for (p,) in self.conn.execute("SELECT path FROM problems")}
        self._touched, self._paths_changed = set(), False
        for n, fs in enumerate(todo, 1):
            if progress:
                progress(n, len(todo))
            old = stored.get(fs.path)
            # mtime 0 marks a racy file: always re-read it (by hash), never trust its stored stat.
            if old and fs.mtime_ns and (old[1], old[2]) == (fs.mtime_ns, fs.size):
                continue
            self._index_file(fs, old, fs.path in problem_paths, stats)
        for path in gone:
            row = stored.get(path)
            if row:
                self._delete_page(row[0])
                self._paths_changed = True
            self.conn.execute("DELETE FROM problems WHERE path=?", (path,))
            stats.deleted += 1
        if not (stats.added or stats.updated or stats.deleted):
            # Only stored mtimes moved (touched files, racy re-checks): the pages are as they were, so
            # the generation stays and readers keep their cached tables; refreshed_at still changes,
            # which is what the stored-stats cache keys on.
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('refreshed_at', ?)", (repr(time.time()),))
            return
        if not building:
            self._resolve_links(None if self._paths_changed else self._touched)
            self._pack_fresh()
        n_pages, avg_body = self.conn.execute(
            "SELECT COUNT(*), COALESCE(AVG(n_body), 0) FROM pages"
        ).fetchone()
        self.conn.executemany(
            "INSERT OR REPLACE INTO meta VALUES (?, ?)",
            [
                ("generation", str(self.generation() + 1)),
                ("n_pages", str(n_pages)),
                ("avg_body", repr(float(avg_body))),
                ("refreshed_at", repr(time.time())),
            ],
        )

    def _pack_fresh(self) -> None:
        """Fold the fresh rows and stale pages into the packed lists once there are enough of them
        (see PACK_ROWS), rewriting only the terms they touch. A first index of a small vault (no packed
        list yet) is packed whole."""
        if self.conn.execute("SELECT 1 FROM postings LIMIT 1").fetchone() is not None:
            (rows,) = self.conn.execute("SELECT COUNT(*) FROM fresh_postings").fetchone()
            (n_stale,) = self.conn.execute("SELECT COUNT(*) FROM stale_pages").fetchone()
            row = self.conn.execute("SELECT value FROM meta WHERE key='n_pages'").fetchone()
            n_pages = int(row[0]) if row else 0
            if rows <= max(PACK_ROWS, PACK_ROWS_PER_PAGE * n_pages) and n_stale <= max(
                PACK_STALE, n_pages // PACK_STALE_SHARE
            ):
                return
        terms = sorted(
            t
            for (t,) in self.conn.execute(
                "SELECT term FROM stale_terms UNION SELECT term FROM fresh_postings"
            )
        )
        stale = frozenset(p for (p,) in self.conn.execute("SELECT page_id FROM stale_pages"))
        for term in terms:  # one term at a time: a rebuild folds every posting of the vault
            self._fold(term, stale)
        for table in ("fresh_postings", "stale_pages", "stale_terms"):
            self.conn.execute(f"DELETE FROM {table}")
        self._stale = None

    def _fold(self, term: str, stale: frozenset[int]) -> None:
        """Rewrite a term's packed list with its stale pages dropped and its fresh rows merged in (or
        delete it: no page holds the term any more; or leave it: neither touches it). Column by column
        in C: a common word's list spans every page, and a fold rewrites it whenever one page holding
        it was edited."""
        row = self.conn.execute("SELECT ids, tfs FROM postings WHERE term=?", (term,)).fetchone()
        ids: Sequence[int]
        cols: list[Sequence[int]]
        ids, cols = _columns(*row) if row else (array("i"), [array("B")] * 3)
        dropped = bool(stale) and not stale.isdisjoint(ids)
        if dropped:
            keep = list(map(operator.not_, map(stale.__contains__, ids)))
            ids = list(itertools.compress(ids, keep))
            cols = [list(itertools.compress(col, keep)) for col in cols]
        fresh = self.conn.execute(
            "SELECT page_id, meta_tf, trig_tf, body_tf FROM fresh_postings WHERE term=?", (term,)
        ).fetchall()
        if fresh:
            # An edited page's packed entry is stale, so no page is both packed and fresh here.
            new_ids, *new_cols = zip(*fresh, strict=True)
            after = not ids or new_ids[0] > ids[-1]
            ids = [*ids, *new_ids]
            cols = [[*col, *extra] for col, extra in zip(cols, new_cols, strict=True)]
            if not after:
                order = sorted(range(len(ids)), key=ids.__getitem__)
                ids = list(map(ids.__getitem__, order))
                cols = [list(map(col.__getitem__, order)) for col in cols]
        if not ids:
            self.conn.execute("DELETE FROM postings WHERE term=?", (term,))
        elif dropped or fresh:
            self.conn.execute(
                "INSERT OR REPLACE INTO postings VALUES (?, ?, ?)", (term, *_pack_columns(ids, cols))
            )

    def _stored_rows(self, paths: list[str]) -> dict[str, tuple[int, int, int, str]]:
        """(id, mtime, size, hash) of the given pages, by path. A few edited pages are looked up by
        path rather than by reading every row (~15 % of a one-page refresh at 10k pages)."""
        sql = "SELECT id, path, mtime_ns, size, hash FROM pages"
        if len(paths) > _FEW_PATHS:
            rows = self.conn.execute(sql).fetchall()
        else:
            rows = []
            for start in range(0, len(paths), 500):  # under SQLite's bound-parameter limit
                chunk = paths[start : start + 500]
                marks = ", ".join("?" * len(chunk))
                rows.extend(self.conn.execute(f"{sql} WHERE path IN ({marks})", chunk))
        return {p: (i, m, s, h) for i, p, m, s, h in rows}

    def _index_file(
        self, fs: FileStat, old: tuple[int, int, int, str] | None, was_problem: bool, stats: RefreshStats
    ) -> None:
        try:
            data = read_page_bytes(self.root, fs.path)
        except OSError as exc:
            kind = "too_large" if isinstance(exc, PageTooLarge) else "unreadable"
            self._record_problem(
                Problem(fs.path, kind, str(exc) if kind == "too_large" else exc.strerror or str(exc)), fs, old
            )
            if old:  # its rows are gone: readers must reload their tables
                stats.updated += 1
            self._paths_changed = self._paths_changed or bool(old)
            return
        digest = content_hash(data)
        if old and old[3] == digest:
            self.conn.execute(
                "UPDATE pages SET mtime_ns=?, size=? WHERE id=?", (fs.mtime_ns, fs.size, old[0])
            )
            stats.unchanged += 1
            return
        text = decode(fs.path, data)
        if isinstance(text, Problem):
            self._record_problem(text, fs, old)
            if old:  # a page that became unreadable leaves the index; a new unreadable file adds nothing
                stats.updated += 1
                self._paths_changed = True
            return
        if was_problem:
            self.conn.execute("DELETE FROM problems WHERE path=?", (fs.path,))
        page = parse_page(fs.path, text)
        # The old page goes first: deleting it also deletes its YAML problem, which must not take the
        # new version's problem with it.
        if old:
            self._delete_page(old[0])
            stats.updated += 1
            self._touched.add(fs.path)
        else:
            stats.added += 1
            self._paths_changed = True
        if page.yaml_error:
            self.conn.execute(
                "INSERT OR REPLACE INTO problems VALUES (?, ?, ?, ?, ?)",
                (fs.path, "yaml", page.yaml_error, -1, -1),
            )
        self._insert_page(page, fs, digest, old[0] if old else None)
        stats.tokenized += 1

    def _record_problem(self, problem: Problem, fs: FileStat, old: tuple[int, int, int, str] | None) -> None:
        if old:
            self._delete_page(old[0])
        self.conn.execute(
            "INSERT OR REPLACE INTO problems VALUES (?, ?, ?, ?, ?)",
            (problem.path, problem.kind, problem.message, fs.mtime_ns, fs.size),
        )

    def _delete_page(self, page_id: int) -> None:
        row = self.conn.execute(
            "SELECT path, passages, other_terms FROM pages WHERE id=?", (page_id,)
        ).fetchone()
        # Its packed entries are voided, not rewritten: see PACK_ROWS.
        self.conn.execute("DELETE FROM fresh_postings WHERE page_id=?", (page_id,))
        self.conn.execute("INSERT OR IGNORE INTO stale_pages VALUES (?)", (page_id,))
        self.conn.execute("DELETE FROM pages WHERE id=?", (page_id,))
        if row:
            self.conn.executemany(
                "INSERT OR IGNORE INTO stale_terms VALUES (?)", ((t,) for t in _page_terms(row[1], row[2]))
            )
            self.conn.execute("DELETE FROM problems WHERE path=? AND kind='yaml'", (row[0],))

    def _insert_page(self, page: Page, fs: FileStat, digest: str, page_id: int | None) -> None:
        meta_terms = Counter(index_terms(_meta_text(page)))
        trig_terms = Counter(index_terms("\n".join(page.triggers)))
        body_terms: Counter[str] = Counter()
        passages = []
        for line, text in split_passages(page):
            terms = index_terms(text)
            body_terms.update(terms)
            passages.append([line, " ".join(sorted(set(terms)))])
        terms = sorted(set(meta_terms) | set(trig_terms) | set(body_terms))
        cur = self.conn.execute(
            "INSERT INTO pages (id, path, mtime_ns, size, hash, title, status, replaced, superseded_by, "
            "supersedes, n_body, n_meta, body_line, yaml_error, passages, trigger_terms, other_terms) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                page_id,
                page.path,
                fs.mtime_ns,
                fs.size,
                digest,
                page.title,
                page.status,
                int(page.replaced),
                json.dumps(page.superseded_by, ensure_ascii=False),
                json.dumps(page.supersedes, ensure_ascii=False),
                sum(n for term, n in body_terms.items() if counts_toward_length(term)),
                sum(n for term, n in meta_terms.items() if counts_toward_length(term)),
                page.body_line,
                page.yaml_error,
                zlib.compress(json.dumps(passages, ensure_ascii=False).encode(), _ZLEVEL),
                json.dumps([[q.term for q in query_terms(t)] for t in page.triggers], ensure_ascii=False),
                " ".join(sorted((set(meta_terms) | set(trig_terms)) - set(body_terms))),
            ),
        )
        new_id = cur.lastrowid
        self.conn.executemany(
            "INSERT INTO fresh_postings VALUES (?, ?, ?, ?, ?)",
            ((t, new_id, meta_terms[t], trig_terms[t], body_terms[t]) for t in terms),
        )

    def _resolve_links(self, only: set[str] | None = None) -> None:
        """Re-resolve replacement links: every one when pages were added or removed (a new page can make
        a dangling link resolve, or a link ambiguous), else only those of the ``only`` pages — a link's
        target depends on the set of page paths and on the page it is written on, nothing else."""
        if only is None:
            self.conn.execute("DELETE FROM links")
            rows = self.conn.execute(
                "SELECT path, superseded_by, supersedes FROM pages "
                "WHERE superseded_by != '[]' OR supersedes != '[]'"
            ).fetchall()
        else:
            rows = []
            for start in range(0, len(only), 500):  # under SQLite's bound-parameter limit
                chunk = sorted(only)[start : start + 500]
                marks = ", ".join("?" * len(chunk))
                self.conn.execute(f"DELETE FROM links WHERE src IN ({marks})", chunk)
                rows += self.conn.execute(
                    f"SELECT path, superseded_by, supersedes FROM pages WHERE path IN ({marks}) "
                    "AND (superseded_by != '[]' OR supersedes != '[]')",
                    chunk,
                ).fetchall()
            if not rows:
                return
        resolver = LinkResolver([p for (p,) in self.conn.execute("SELECT path FROM pages")])
        out = []
        for path, by_json, sup_json in rows:
            for raw in json.loads(by_json):
                out.append((path, resolver.resolve(raw, path), "superseded_by", raw))
            for raw in json.loads(sup_json):
                out.append((path, resolver.resolve(raw, path), "supersedes", raw))
        self.conn.executemany("INSERT INTO links VALUES (?, ?, ?, ?)", out)

    def problems(self) -> list[Problem]:
        """Every file the index had trouble with: non-UTF-8 (skipped), broken YAML (read as text)."""
        rows = self.conn.execute("SELECT path, kind, message FROM problems ORDER BY path")
        return [Problem(p, k, m) for p, k, m in rows]

    def links(self) -> list[tuple[str, str | None, str, str]]:
        """Replacement links: (page, resolved target or None, 'superseded_by'|'supersedes', raw text)."""
        return self.conn.execute("SELECT src, dst, kind, raw FROM links ORDER BY src").fetchall()

    def meta(self) -> dict[str, str]:
        """The index's bookkeeping values (generation, page count, average body length, ...)."""
        return dict(self.conn.execute("SELECT key, value FROM meta").fetchall())

    def postings(self, term: str) -> list[tuple[int, int, int, int]]:
        """(page id, title/alias tf, trigger tf, body tf) for every page holding a term, by page id."""
        return [(pid, *tfs) for pid, tfs in self.holding(term).items()]

    def holding(self, term: str) -> dict[int, tuple[int, int, int]]:
        """(title/alias tf, trigger tf, body tf) by page id, in page id order, for every page holding a
        term: its packed list less the stale pages, with its fresh rows merged in."""
        stale, has_fresh = self._delta()
        cache = self._held[1]
        if term in cache:
            cache[term] = cache.pop(term)  # most recently used last
            return dict(cache[term])
        row = self.conn.execute("SELECT ids, tfs FROM postings WHERE term=?", (term,)).fetchone()
        held = _unpack(*row) if row else {}
        if stale and held:
            for pid in stale & held.keys():
                del held[pid]
        fresh = (
            self.conn.execute(
                "SELECT page_id, meta_tf, trig_tf, body_tf FROM fresh_postings WHERE term=?", (term,)
            ).fetchall()
            if has_fresh
            else []
        )
        if fresh:
            # Page id order, as one table of rows gave it (ties in the ranking keep their order). The
            # keys are two ascending runs (packed, then fresh: an edited page's packed entry is stale),
            # which sorted() merges in one pass, in C.
            ordered = not held or fresh[0][0] > next(reversed(held))
            held.update((r[0], r[1:]) for r in fresh)
            if not ordered:
                order = sorted(held)
                held = dict(zip(order, map(held.__getitem__, order), strict=True))
        self._keep_held(term, held)
        return dict(held) if len(held) >= _HELD_MIN else held

    def _keep_held(self, term: str, held: dict[int, tuple[int, int, int]]) -> None:
        """Keep a long decoded list for the next lookups of this generation (a copy of a dict costs a
        fraction of decoding it again), dropping the least recently used past _HELD_BUDGET postings."""
        if len(held) < _HELD_MIN:
            return
        gen, cache, size = self._held
        cache[term] = held
        size += len(held)
        while size > _HELD_BUDGET and cache:
            size -= len(cache.pop(next(iter(cache))))
        self._held = (gen, cache, size)

    def _delta(self) -> tuple[frozenset[int], bool]:
        """The page ids whose packed postings are void, and whether any fresh rows exist; kept per
        generation (a refresh that writes either changes the index, so the generation moves), which
        spares a vault with nothing to merge a query per term."""
        gen = self.generation()
        if self._stale is None or self._stale[0] != gen:
            stale = frozenset(p for (p,) in self.conn.execute("SELECT page_id FROM stale_pages"))
            fresh = self.conn.execute("SELECT 1 FROM fresh_postings LIMIT 1").fetchone() is not None
            self._stale = (gen, stale, fresh)
            self._held = (gen, {}, 0)
        return self._stale[1], self._stale[2]

    def has_term(self, term: str) -> bool:
        """True when at least one page holds the term."""
        return self._held_between(term, term)

    def has_term_between(self, low: str, high: str) -> bool:
        """True when some page holds a term in [low, high] (which scripts the vault is written in)."""
        return self._held_between(low, high)

    def _held_between(self, low: str, high: str) -> bool:
        stale, has_fresh = self._delta()
        if has_fresh:
            fresh = self.conn.execute(
                "SELECT 1 FROM fresh_postings WHERE term BETWEEN ? AND ? LIMIT 1", (low, high)
            )
            if fresh.fetchone() is not None:
                return True
        rows = self.conn.execute("SELECT ids FROM postings WHERE term BETWEEN ? AND ?", (low, high))
        # A packed list holding only stale pages holds nothing; one with a live page ends the search.
        return any(not stale or not stale.issuperset(array("i", ids)) for (ids,) in rows)

    def all_postings(self) -> list[tuple[str, int, int, int, int]]:
        """Every (term, page id, title/alias tf, trigger tf, body tf), packed and fresh, sorted."""
        terms = {
            t for (t,) in self.conn.execute("SELECT term FROM postings UNION SELECT term FROM fresh_postings")
        }
        return [(t, *row) for t in sorted(terms) for row in self.postings(t)]

    def page_table(self) -> list[tuple[int, str, str, str, int, int, int]]:
        """(id, path, title, status, replaced, n_body, n_meta) of every page."""
        return self.conn.execute(
            "SELECT id, path, title, status, replaced, n_body, n_meta FROM pages ORDER BY id"
        ).fetchall()

    def passages(self, page_id: int) -> list[Passage]:
        """A page's passages with their term sets."""
        gen = self.generation()
        if self._passages[0] != gen or len(self._passages[1]) >= 256:
            self._passages = (gen, {})
        cached = self._passages[1].get(page_id)
        if cached is not None:
            return cached
        row = self.conn.execute("SELECT passages FROM pages WHERE id=?", (page_id,)).fetchone()
        if not row:
            return []
        found = _passages_of(row[0])
        self._passages[1][page_id] = found
        return found

    def trigger_terms(self, page_id: int) -> list[set[str]]:
        """Each trigger of a page as the set of terms a question holding that phrasing would have."""
        row = self.conn.execute("SELECT trigger_terms FROM pages WHERE id=?", (page_id,)).fetchone()
        return [set(terms) for terms in json.loads(row[0])] if row else []

    def page_terms(self, page_id: int) -> set[str]:
        """Every term a page holds (title, aliases, triggers, body)."""
        row = self.conn.execute("SELECT passages, other_terms FROM pages WHERE id=?", (page_id,)).fetchone()
        return _page_terms(*row) if row else set()
