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
import json
import shutil
import sqlite3
from array import array
from collections.abc import Iterator
from pathlib import Path

from krouter import config
from krouter.errors import IndexBusy, IndexUnavailable
from krouter.index.build import ColdBuild
from krouter.index.packed import PackedPostings, unpack
from krouter.index.pages import PAGE_TABLE_COLUMNS, PageRows
from krouter.index.passages import passage_rows, terms_of_page
from krouter.index.refresh import Refresh
from krouter.index.schema import (
    BUSY_TIMEOUT_S,
    SCHEMA,
    SCHEMA_VERSION,
    TABLES,
    damaged,
    delete_database,
    file_identity,
    index_path,
    private_database,
    remove_other_versions,
)
from krouter.tokens.version import TOKENIZER_VERSION
from krouter.vault.files import check_vault
from krouter.vault.page import Problem

# Decoded postings lists of at least _HELD_MIN pages are kept for later lookups of the same generation,
# up to _HELD_BUDGET postings in all (a decoded posting holds ~70 bytes: ~35 MB at most), the least
# recently used dropped first. A warm server sees the same characters and words again: at 10k pages
# every list the 200 bench questions read (~350k postings) stays decoded, which spares a Chinese lookup
# its reads and decoding (~0.5-0.9 ms of ~4); the 100,000 kept before held under a third of them
# (docs/PERFORMANCE.md, eighth session). A short list costs its query more than its decoding: kept too.
_HELD_MIN = 16
_HELD_BUDGET = 500_000
# Pages whose decoded passages are kept, the least recently read dropped first (a few KB a page).
_PASSAGES_KEPT = 1024
# ... and the characters of their terms kept at most: a page may hold up to 8 MB (a transcript, a log),
# and 1024 of those would be gigabytes in a long-lived server (~16 MB of ASCII terms; more for CJK).
_PASSAGES_CHARS = 16_000_000
# Less free room than this on the index's disk, and an index that cannot be opened is said to be on a
# full disk.
_ROOM_BYTES = 4 * 1024 * 1024
# has_term's answers of one generation kept at most (a few MB).
_KNOWN_MAX = 50_000


def _hint(folder: Path) -> str:
    """What to do when the index cannot be made or opened in ``folder``: a full disk says "disk I/O
    error" in SQLite's words, and "a folder you can write" sent people to fix permissions that were fine."""
    with contextlib.suppress(OSError):
        if shutil.disk_usage(folder if folder.exists() else folder.parent).free < _ROOM_BYTES:
            return (
                f"the disk holding {folder} is full: free some room, or set KROUTER_CACHE_DIR to another disk"
            )
    return "set KROUTER_CACHE_DIR to a folder you can write"


class Index(Refresh, ColdBuild, PageRows, PackedPostings):
    """An open index of one vault. Use ``refresh()`` to bring it up to date with the files.

    Opening, versions and the read queries of a lookup are here; refreshing is `Refresh`
    (krouter.index.refresh), a cold build `ColdBuild` (krouter.index.build), writing a page's rows
    `PageRows` (krouter.index.pages) and folding
    edits into the packed postings `PackedPostings` (krouter.index.packed)."""

    # The file this index has open (``file_identity``), for a watcher's lease to name.
    identity: str | None

    def __init__(self, vault: Path, *, path: Path | None = None) -> None:
        self.root = check_vault(vault)
        self.path = path or index_path(self.root)
        self._stored: tuple[tuple[str, ...], dict[str, tuple[int, int]]] | None = None
        # (generation, stale page ids, whether there are fresh rows): see _delta.
        self._stale: tuple[int, frozenset[int], bool] | None = None
        # Decoded passages of recently read pages, for one generation (see passage_rows).
        self._passages: tuple[int, dict[int, list[tuple[int, str]]]] = (-1, {})
        # The characters of the terms those passages hold (see _PASSAGES_CHARS).
        self._passage_chars = 0
        # Decoded long postings lists of this generation, least recently used first, and their total
        # length (see _keep_held).
        self._held: tuple[int, dict[str, dict[int, tuple[int, int, int]]], int] = (-1, {}, 0)
        # Whether a page holds a term, as has_term found it in this generation.
        self._known: dict[str, bool] = {}
        # What the current refresh changed, for re-resolving only the links it can affect.
        self._touched: set[str] = set()
        self._paths_changed = False
        # The ids of the pages the current refresh wrote or removed (see ``changed_since``).
        self._changed_ids: set[int] = set()
        # The generation as read once inside the current read snapshot (see generation()).
        self._in_snapshot = False
        self._snapshot_gen: int | None = None
        self.conn = self._open()

    def _open(self) -> sqlite3.Connection:
        hint = _hint(self.path.parent)
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
                self.identity = file_identity(self.path)
                remove_other_versions(self.path)
                return conn
            except sqlite3.DatabaseError as exc:
                conn.close()
                # Locked or busy means another process is writing, not that the file is damaged:
                # deleting it would pull the index from under that process.
                if "locked" in str(exc) or "busy" in str(exc):
                    raise IndexBusy(f"index {self.path} is locked by another process; try again") from exc
                # Only a file SQLite calls damaged is started over: a full disk ("disk I/O error" making
                # the -shm file) or a -wal that cannot be opened deleted an intact index, which then had
                # to be built again from every page.
                if attempt or not damaged(exc):
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
                for table in TABLES:
                    conn.execute(f"DROP TABLE IF EXISTS {table}")
                conn.execute("DELETE FROM meta")
                for statement in SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.executemany("INSERT INTO meta VALUES (?, ?)", [*list(want.items()), ("generation", "0")])
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _private_files(self) -> None:
        private_database(self.path)

    def _delete_files(self) -> None:
        delete_database(self.path)

    def _start_over(self) -> None:
        """Replace a damaged index file with a new, empty one (the next refresh builds it)."""
        self.conn.close()
        self._delete_files()
        self.conn = self._open()
        # A new file starts its generations over: nothing cached by generation may carry over.
        self._stored, self._stale, self._passages, self._held = None, None, (-1, {}), (-1, {}, 0)

    def close(self) -> None:
        """Close the database connection."""
        self.conn.close()

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """A read transaction: in WAL mode every read inside it sees one consistent state of the index.
        Inside another snapshot it is that one."""
        if self._in_snapshot:
            yield
            return
        self.conn.execute("BEGIN")
        self._snapshot_gen = None
        self._in_snapshot = True
        try:
            yield
        finally:
            self._in_snapshot = False
            self._snapshot_gen = None
            self.conn.execute("COMMIT")

    def generation(self) -> int:
        """A counter that goes up with every refresh that changed the index (for caches)."""
        # Inside a read snapshot the index cannot change, so one query answers for the whole lookup
        # (every term read and passage decoded asked it again: ~40 queries a lookup).
        if self._in_snapshot and self._snapshot_gen is not None:
            return self._snapshot_gen
        row = self.conn.execute("SELECT value FROM meta WHERE key='generation'").fetchone()
        gen = int(row[0]) if row else 0
        if self._in_snapshot:
            self._snapshot_gen = gen
        return gen

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

    def holding(self, term: str, *, copy: bool = True) -> dict[int, tuple[int, int, int]]:
        """(title/alias tf, trigger tf, body tf) by page id, in page id order, for every page holding a
        term: its packed list less the stale pages, with its fresh rows merged in. With ``copy=False``
        the dict may be the one kept for later lookups (see _keep_held): the caller must not change it
        (a lookup that only reads a list spares copying it and freeing the copy)."""
        stale, has_fresh = self._delta()
        cache = self._held[1]
        if term in cache:
            cache[term] = cache.pop(term)  # most recently used last
            return dict(cache[term]) if copy else cache[term]
        if self._known.get(term) is False:
            # No page holds it (found out in this generation): most of an English question's candidate
            # Chinese words are not in the vault, and the same ones come back with the same words.
            return {}
        row = self.conn.execute("SELECT ids, tfs FROM postings WHERE term=?", (term,)).fetchone()
        held = unpack(*row) if row else {}
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
        self._remember(term, bool(held))
        return dict(held) if copy and len(held) >= _HELD_MIN else held

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
            self._known = {}
        return self._stale[1], self._stale[2]

    def has_term(self, term: str) -> bool:
        """True when at least one page holds the term."""
        self._delta()  # resets what is kept when the generation moved
        if term in self._held[1]:
            # A kept list is never empty: it holds the term's live pages (see _keep_held).
            return True
        found = self._known.get(term)
        if found is None:
            # A Chinese question asks for ~6 candidate words.
            found = self._held_between(term, term)
            self._remember(term, found)
        return found

    def _remember(self, term: str, held: bool) -> None:
        """Keep whether a page holds ``term`` for this generation; only from inside a read snapshot,
        where the generation _delta read is the state every query sees."""
        if self._in_snapshot:
            if len(self._known) >= _KNOWN_MAX:
                self._known.clear()
            self._known[term] = held

    def has_term_between(self, low: str, high: str) -> bool:
        """True when some page holds a term in [low, high] (which scripts the vault is written in)."""
        return self._held_between(low, high)

    def has_han(self) -> bool:
        """True when some page holds a term in Han characters (the range the BMP's Han words start in)."""
        return self._held_between("\u3400", "\u9fff")

    def _held_between(self, low: str, high: str) -> bool:
        stale, has_fresh = self._delta()
        if has_fresh:
            fresh = self.conn.execute(
                "SELECT 1 FROM fresh_postings WHERE term BETWEEN ? AND ? LIMIT 1", (low, high)
            )
            if fresh.fetchone() is not None:
                return True
        if not stale:
            # Every packed list holds a live page: whether one exists is enough (not its blob).
            found = self.conn.execute(
                "SELECT 1 FROM postings WHERE term BETWEEN ? AND ? LIMIT 1", (low, high)
            )
            return found.fetchone() is not None
        rows = self.conn.execute("SELECT ids FROM postings WHERE term BETWEEN ? AND ?", (low, high))
        # A packed list holding only stale pages holds nothing; one with a live page ends the search.
        return any(not stale.issuperset(array("i", ids)) for (ids,) in rows)

    def all_postings(self) -> list[tuple[str, int, int, int, int]]:
        """Every (term, page id, title/alias tf, trigger tf, body tf), packed and fresh, sorted."""
        terms = {
            t for (t,) in self.conn.execute("SELECT term FROM postings UNION SELECT term FROM fresh_postings")
        }
        return [(t, *row) for t in sorted(terms) for row in self.postings(t)]

    def page_table(self) -> list[tuple[int, str, str, str, int, int, int, int]]:
        """(id, path, title, status, replaced, n_body, n_meta, clipped) of every page: ``clipped``, tagged
        as a clipping."""
        return self.conn.execute(f"SELECT {PAGE_TABLE_COLUMNS} FROM pages ORDER BY id").fetchall()

    def passage_rows(self, page_id: int) -> list[tuple[int, str]]:
        """A page's passages as stored: (first line, its terms joined by spaces); decoded once per
        generation for the pages read lately (a lookup reads the top page's twice, and questions
        about one subject cite the same pages). Not to be changed by the caller."""
        gen = self.generation()
        if self._passages[0] != gen:
            self._passages, self._passage_chars = (gen, {}), 0
        kept = self._passages[1]
        cached = kept.pop(page_id, None)
        if cached is not None:
            kept[page_id] = cached  # most recently read last
            return cached
        row = self.conn.execute("SELECT passages FROM pages WHERE id=?", (page_id,)).fetchone()
        if not row:
            return []
        found = passage_rows(row[0])
        kept[page_id] = found
        self._passage_chars += _chars(found)
        while len(kept) > 1 and (len(kept) > _PASSAGES_KEPT or self._passage_chars > _PASSAGES_CHARS):
            self._passage_chars -= _chars(kept.pop(next(iter(kept))))
        return found

    def trigger_terms(self, page_id: int) -> list[set[str]]:
        """Each trigger of a page as the set of terms a question holding that phrasing would have."""
        row = self.conn.execute("SELECT trigger_terms FROM pages WHERE id=?", (page_id,)).fetchone()
        return [set(terms) for terms in json.loads(row[0])] if row else []

    def page_terms(self, page_id: int) -> set[str]:
        """Every term a page holds (title, aliases, triggers, body)."""
        row = self.conn.execute("SELECT passages, other_terms FROM pages WHERE id=?", (page_id,)).fetchone()
        return terms_of_page(*row) if row else set()


def _chars(passages: list[tuple[int, str]]) -> int:
    """The characters of a page's passage terms, what keeping them decoded costs."""
    return sum(len(terms) for _line, terms in passages)
