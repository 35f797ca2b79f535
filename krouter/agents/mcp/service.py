"""The vault as ``krouter mcp`` serves it: a Router kept fresh on one thread, and the replies of its tools.

One Router stays open for the life of the server, on one worker thread that alone touches its SQLite
connection (the SDK runs tools on the event loop or on a pool of threads, neither of which may share
it). A watchdog observer reports the pages that change; a call first re-reads the pages reported since
the last call (only those: no walk of the vault), and a debounced refresh in between keeps calls fast.
Events the platform says it lost (a queue overflow) make the next refresh walk the whole vault, and a
full walk still runs every ``rescan`` seconds in the background and on ``krouter_status``, so an event
the platform dropped without a word is healed; without a working watcher every call walks the vault, as before. With
the optional semantic second opinion, the refresher also embeds the pages that have no vectors yet,
a slice at a time while nothing changes, on its own thread with its own connections: the vault gets
embedded while the server runs, and a call does not embed nor wait for the embedding (the model's
background instance embeds the pages, so a question's embedding does not wait for its batch; they
share the cores).

The replies of the tools are built in ``replies.py``. Nothing here imports the MCP SDK.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from krouter import config
from krouter.errors import ConfigError, IndexUnavailable, KRouterError
from krouter.index.schema import index_path
from krouter.ops.background_embedding import EMBED_POLL_S, BackgroundEmbedding
from krouter.ops.vault_watcher import VaultWatcher
from krouter.ops.watch import RESCAN_S, describe
from krouter.routing.router import Router
from krouter.routing.vectors import LOOKUP_BUDGET_S
from krouter.vault.files import check_vault

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

    A broken config.toml does not stop the server (a service manager would give up on one that keeps
    failing to start): every call fails with the error naming the file and the setting, and the Router
    is opened once the file is fixed (``router`` is None until then).
    """

    def __init__(self, vault: Path, *, debounce: float = 0.3, rescan: float = RESCAN_S) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="krouter-index")
        self.root = check_vault(config.named_vault(Path(vault)))
        self.index_path = index_path(self.root)
        self.router: Router | None = None
        # Whether the next refresh must walk the vault: the first one once the Router is open, and the
        # one after a refresh that failed (the pages the watcher had reported were dropped with it).
        self._walk_due = False
        # Why the last refresh failed (a full disk, a cold build in another process), until one succeeds.
        self._refresh_failed: str | None = None
        try:
            self._executor.submit(self._router).result()
        except ConfigError:
            # Said by the first refresh (``start``). The first call after the fix opens the Router, or
            # the refresher does, the watcher reporting the fix as a change to the whole vault.
            self._walk_due = True
        self.watcher = VaultWatcher(self.root, debounce=debounce, index_path=self.index_path)
        self.rescan = rescan
        self._last_walk = 0.0
        # The pages waiting for vectors (the semantic second opinion), embedded by the refresher.
        self._background = BackgroundEmbedding(self._semantic_on())
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
        if pages is None:
            log.warning("vault %s: not indexed until config.toml is fixed; every call says why", self.root)
        else:
            log.info("vault %s: %s pages indexed", self.root, pages)
        if self.watcher.running:
            self._pump = threading.Thread(target=self._pump_loop, name="krouter-watch", daemon=True)
            self._pump.start()
        self._serve_asks()

    def _serve_asks(self) -> None:
        """Holding the lease, this server also answers fresh `krouter ask` processes (``serving``)."""
        if not self._stop.is_set():
            from krouter.ops.ask_socket.server import serving

            self._asks = serving(self._asks, self.root, self.index_path, self.watcher)

    def warm(self) -> None:
        """Load what every call needs (the page table of the index as it is now) before the first call."""
        if self.router is not None:
            self._executor.submit(self.router.warm).result()

    def _router(self) -> Router:
        """The Router, opened now if it is not yet (on the worker thread, which alone may use it);
        ConfigError while config.toml is broken."""
        if self.router is None:
            # Its refreshes do not embed (a `krouter_teach` write's included): the refresher does, in
            # the background, or `_refresh` for a call when no refresher runs.
            self.router = Router(self.root, auto_refresh=False, index_path=self.index_path, embed_budget_s=0)
        return self.router

    def _semantic_on(self) -> bool:
        """Whether the Router (once open) asks the semantic second opinion, so has pages to embed."""
        return self.router is not None and self.router.vectors is not None

    @property
    def watching(self) -> bool:
        """True while file events keep the index fresh (the watcher and its refresher both run)."""
        return self.watcher.running and self._pump is not None and self._pump.is_alive()

    def _refresh_and_count(self, embed: bool) -> str | None:
        """Refresh, then the page count (on the router's own thread: SQLite objects stay on theirs);
        ``embed``: embed a little too (no watcher, so no refresher will). None while the Router waits
        for config.toml to be fixed."""
        self._refresh(set(), embed=embed)
        return None if self.router is None else self.router.index.meta().get("n_pages", "0")

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
                ready = self._semantic_on() and self._background.ready()
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
                            embedder = Router(self.root, auto_refresh=False, index_path=self.index_path)
                        except ConfigError as exc:
                            self._background.settings_broken(exc)
                            continue
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
        return self._semantic_on() and self._background.pending

    def _refresh_pending(self, walk: bool) -> None:
        self._refresh(self.watcher.take(), walk=walk)
        self._serve_asks()
        if self.router is not None:
            # The refresher's, between calls: the page table of the index as it is now is loaded here,
            # not by the next call (27-44 ms at 10k pages that the agent's next call waited for). What
            # fails here (a config.toml broken since) the next call meets and reports itself.
            with contextlib.suppress(KRouterError, OSError, sqlite3.Error):
                self.router.warm()

    def _refresh(self, changed: set[str], *, walk: bool = True, embed: bool | None = None) -> None:
        """Refresh the index: the ``changed`` pages only, or (``walk``) every page of the vault."""
        walk = walk or self._walk_due
        if walk:
            self._last_walk = time.monotonic()
        elif not changed:
            return
        try:
            router = self._router()
            # Router.refresh() always walks; the index can check just the reported pages.
            stats = router.index.refresh() if walk else router.index.refresh(paths=changed)
            if not self.watching if embed is None else embed:
                # No refresher between calls: a call embeds a little, as a fresh lookup does.
                router.embed(budget_s=LOOKUP_BUDGET_S)
        except KRouterError as exc:
            log.warning("refresh failed: %s", exc)
            self._walk_due, self._refresh_failed = True, str(exc)
            return
        # A refresh that could not get its turn (another writer held the index) indexed nothing of the
        # batch it took: the next one walks, or the batch was lost and the lease later said clean.
        self._walk_due, self._refresh_failed = stats.stale, None
        self._background.refreshed(router.vectors is not None)
        router.last_refresh = stats
        if not stats.stale:
            self.watcher.indexed(router.index.identity)
        if stats.changed:
            log.info(describe(stats, changed))

    def _ensure_fresh(self, rescan: bool = False, *, ranks: bool = True) -> None:
        """Runs on the worker before every call: re-read what the watcher reported since the last call.

        Without a working watcher (or when asked to ``rescan``) it re-checks every file, a stat per
        page, as a call must when nothing reports changes. A broken config.toml fails the call (ConfigError):
        the index may hold pages its ``ignore`` patterns leave out, since the refresher could not read them.
        A refresh that failed fails a call that ranks pages (``ranks``) too (``IndexUnavailable``), until
        one succeeds; reading a page the agent was cited goes on (the file is read, not the index).
        """
        config.load_config()
        self.watcher.follow_settings()
        self._refresh(self.watcher.take(), walk=rescan or not self.watching)
        if self._refresh_failed is not None and ranks:
            # Answered from the index as it was, a refusal read "the notes don't cover it" (a cold review:
            # a full disk, a cold build running in another process): the call fails with the reason.
            raise _not_up_to_date(self._refresh_failed)

    async def run(self, fn: Callable[[Router], T], *, rescan: bool = False, ranks: bool = True) -> T:
        """Run ``fn(router)`` on the worker thread, after bringing the index up to date (``rescan``:
        by walking the whole vault, whatever the watcher reported; ``ranks``: ``fn`` answers from the
        index, so a failed refresh fails it)."""

        def job() -> T:
            self._ensure_fresh(rescan, ranks=ranks)
            # Opened by that refresh if config.toml was broken when the server started; failing to open,
            # an error for the call.
            router = self._router()
            try:
                return fn(router)
            except IndexUnavailable as exc:
                # A lookup that found a page saved since it was indexed (before the watcher said so)
                # refreshes it, and that refresh can fail as the server's own does: said the same way.
                raise _not_up_to_date(exc) from exc

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
            if self.router is not None:
                self._executor.submit(self.router.close).result(timeout=10)
        finally:
            self._executor.shutdown(wait=False)


def _not_up_to_date(why: object) -> IndexUnavailable:
    """The error a call fails with when the index could not be refreshed before answering."""
    return IndexUnavailable(
        f"the index could not be brought up to date ({why}); its answers could miss or contradict the "
        "notes, so none is given: try again"
    )
