"""The vault as ``krouter mcp`` serves it: a Router kept fresh on one thread, and the replies of its tools.

One Router stays open for the life of the server, on one worker thread that alone touches its SQLite
connection (the SDK runs tools on the event loop or on a pool of threads, neither of which may share
it). A watchdog observer reports the pages that change; a call first re-reads the pages reported since
the last call (only those: no walk of the vault), and a debounced refresh in between keeps calls fast.
A full walk still runs every ``rescan`` seconds in the background and on ``krouter_status``, so an event
the platform dropped is healed; without a working watcher every call walks the vault, as before. With
the optional semantic second opinion, the refresher also embeds the pages that have no vectors yet,
a slice at a time while nothing changes, on its own thread with its own connections: the vault gets
embedded while the server runs, and a call does not embed nor wait for the embedding (the model's
background instance embeds the pages, so a question's embedding does not wait for its batch; they
share the cores).

The replies of the tools are built in ``replies.py``. Nothing here imports the MCP SDK.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from krouter import config
from krouter.errors import KRouterError
from krouter.ops.background_embedding import EMBED_POLL_S, BackgroundEmbedding
from krouter.ops.vault_watcher import VaultWatcher
from krouter.ops.watch import RESCAN_S, describe
from krouter.routing.router import Router
from krouter.routing.vectors import LOOKUP_BUDGET_S

if TYPE_CHECKING:
    from krouter.ops.ask_socket.server import AskServer

log = logging.getLogger("krouter.mcp")

T = TypeVar("T")


class VaultService:
    """A Router owned by one worker thread and kept fresh by a file watcher.

    While the watcher runs, a call re-reads only the pages it reported (none: no file is touched), and
    a background walk every ``rescan`` seconds catches what it may have missed. An edit is therefore seen
    by the first call after the watcher reports it (watchdog delivers an inotify event within about half
    a second of the save); a call made in that half second answers from the index as it was.
    """

    def __init__(self, vault: Path, *, debounce: float = 0.3, rescan: float = RESCAN_S) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="krouter-index")
        # Its refreshes do not embed (a `krouter_teach` write's included): the refresher does, in the
        # background, or `_refresh` for a call when no refresher runs.
        self.router: Router = self._executor.submit(
            Router, vault, auto_refresh=False, embed_budget_s=0
        ).result()
        self.root = self.router.root
        self.watcher = VaultWatcher(self.root, debounce=debounce, index_path=self.router.index.path)
        self.rescan = rescan
        self._last_walk = 0.0
        # The pages waiting for vectors (the semantic second opinion), embedded by the refresher.
        self._background = BackgroundEmbedding(self.router.vectors is not None)
        self._stop = threading.Event()
        self._pump: threading.Thread | None = None
        self._asks: AskServer | None = None

    def start(self) -> None:
        """Start watching the vault, index it, and start the background refresher."""
        try:
            # Watch before the first refresh, so an edit made while it runs is not missed.
            self.watcher.start()
        except OSError as exc:
            # Without events (inotify limit reached, odd filesystem) calls still re-check the files,
            # they just find more left to re-tokenise.
            log.warning("cannot watch %s (%s); indexing changes at call time only", self.root, exc)
        pages = self._executor.submit(self._refresh_and_count, not self.watcher.running).result()
        log.info("vault %s: %s pages indexed", self.root, pages)
        if self.watcher.running:
            self._pump = threading.Thread(target=self._pump_loop, name="krouter-watch", daemon=True)
            self._pump.start()
        if self.watcher.leased:
            # Holding the lease, this server also answers fresh `krouter ask` processes (krouter.ops.ask_socket).
            from krouter.ops.ask_socket.server import AskServer

            asks = AskServer(self.root, self.router.index.path, self.watcher)
            self._asks = asks if asks.start() else None

    def warm(self) -> None:
        """Load what every call needs (the page table of the index as it is now) before the first call."""
        self._executor.submit(self.router.warm).result()

    @property
    def watching(self) -> bool:
        """True while file events keep the index fresh (the watcher and its refresher both run)."""
        return self.watcher.running and self._pump is not None and self._pump.is_alive()

    def _refresh_and_count(self, embed: bool) -> str:
        """Refresh, then the page count (on the router's own thread: SQLite objects stay on theirs);
        ``embed``: embed a little too (no watcher, so no refresher will)."""
        self._refresh(set(), embed=embed)
        return self.router.index.meta().get("n_pages", "0")

    def _pump_loop(self) -> None:
        """Refresh after each quiet batch of changes, so the next call has little left to do; walk
        the whole vault every ``rescan`` seconds in case the platform dropped an event; in between,
        embed the pages that have no vectors yet (``BackgroundEmbedding``), on this thread with its own
        connections (``embedder``): a call never waits for a slice."""
        embedder: Router | None = None
        try:
            while not self._stop.is_set():
                # The batch stays pending until the worker takes it: a call queued meanwhile takes it
                # itself, so no change is ever out of both the pending set and the index.
                ready = self.router.vectors is not None and self._background.ready()
                idle = EMBED_POLL_S if ready else min(0.5, self.rescan)
                changed = self.watcher.wait(timeout=idle, take=False)
                if self._stop.is_set():
                    return
                walk = time.monotonic() - self._last_walk >= self.rescan
                if changed or walk:
                    try:
                        self._executor.submit(self._refresh_pending, walk).result()
                    except RuntimeError:  # executor shut down while we waited
                        return
                elif ready:
                    if embedder is None:
                        try:
                            embedder = Router(
                                self.root, auto_refresh=False, index_path=self.router.index.path
                            )
                        except (KRouterError, OSError, sqlite3.Error) as exc:
                            log.warning("cannot open the index to embed pages: %s", exc)
                            self._background.refreshed(False)
                            continue
                    self._background.slice(embedder)
                    if embedder.vectors is None:
                        # The slice failed and turned the option off for that Router only: a new one
                        # tries again after the next refresh (lookups go on with theirs).
                        embedder.close()
                        embedder = None
        finally:
            if embedder is not None:
                embedder.close()

    @property
    def embedding(self) -> bool:
        """True while the refresher has pages left to embed for the semantic second opinion (pages over
        the lookup budget's size limits are left to ``krouter index`` and do not count)."""
        return self.router.vectors is not None and self._background.pending

    def _refresh_pending(self, walk: bool) -> None:
        self._refresh(self.watcher.take(), walk=walk)

    def _refresh(self, changed: set[str], *, walk: bool = True, embed: bool | None = None) -> None:
        """Refresh the index: the ``changed`` pages only, or (``walk``) every page of the vault."""
        if walk:
            self._last_walk = time.monotonic()
        elif not changed:
            return
        try:
            # Router.refresh() always walks; the index can check just the reported pages.
            stats = self.router.index.refresh() if walk else self.router.index.refresh(paths=changed)
            if not self.watching if embed is None else embed:
                # No refresher between calls: a call embeds a little, as a fresh lookup does.
                self.router.embed(budget_s=LOOKUP_BUDGET_S)
        except KRouterError as exc:
            log.warning("refresh failed: %s", exc)
            return
        self._background.refreshed(self.router.vectors is not None)
        self.router.last_refresh = stats
        if not stats.stale:
            self.watcher.indexed()
        if stats.changed:
            log.info(describe(stats, changed))

    def _ensure_fresh(self, rescan: bool = False) -> None:
        """Runs on the worker before every call: re-read what the watcher reported since the last call.

        Without a working watcher (or when asked to ``rescan``) it re-checks every file, a stat per
        page, as a call must when nothing reports changes. A broken config.toml fails the call (ConfigError):
        the index may hold pages its ``ignore`` patterns leave out, since the refresher could not read them.
        """
        config.load_config()
        self._refresh(self.watcher.take(), walk=rescan or not self.watching)

    async def run(self, fn: Callable[[Router], T], *, rescan: bool = False) -> T:
        """Run ``fn(router)`` on the worker thread, after bringing the index up to date (``rescan``:
        by walking the whole vault, whatever the watcher reported)."""

        def job() -> T:
            self._ensure_fresh(rescan)
            return fn(self.router)

        import asyncio  # already loaded by the running event loop; kept out of `krouter ask`'s imports

        return await asyncio.wrap_future(self._executor.submit(job))

    def close(self) -> None:
        """Stop watching, close the index on its own thread, and stop the worker (once: closing
        again does nothing)."""
        if self._stop.is_set():
            return
        self._stop.set()
        if self._asks is not None:
            self._asks.stop()
        self.watcher.stop()
        if self._pump is not None:
            # An embedding slice under way ends with the page it is embedding (seconds for a long one).
            self._pump.join(timeout=30)
        try:
            self._executor.submit(self.router.close).result(timeout=10)
        finally:
            self._executor.shutdown(wait=False)
