"""Keep a vault's index fresh as files change: ``krouter watch`` and the watcher the MCP server uses.

File events only *trigger* a refresh; what to re-index is always decided by ``Index.refresh()``, which
compares every page's (mtime, size) with the index. That makes the watcher indifferent to how an editor
saves (write a temp file, fsync, rename over the page; vim's backup dance; Obsidian's rename-on-save) and
to mass renames or a whole folder being moved: whatever sequence of events arrives, one debounced refresh
after the burst sees the final state of the files. A missed event (an inotify queue overflow) is healed
by the next event or by the periodic safety rescan.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from krouter.cli_options import VaultOption, exit_codes
from krouter.config import default_vault
from krouter.errors import KRouterError
from krouter.vault.files import shown_path

if TYPE_CHECKING:
    from collections.abc import Callable

    from watchdog.events import FileSystemEvent
    from watchdog.observers.api import BaseObserver

    from krouter.index.refresh import RefreshStats
    from krouter.ops.ask_socket.server import AskServer
    from krouter.ops.watch_lease import WatchLease
    from krouter.routing.router import Router

log = logging.getLogger("krouter.watch")

DEBOUNCE_S = 0.3
# A steady stream of events (a sync client unpacking thousands of files) must not postpone the refresh
# forever: after this long with changes pending, refresh anyway and pick up the rest next round.
MAX_DELAY_S = 2.0
RESCAN_S = 300.0

# Events that can change what a page says or where it is; opened/closed-without-writing cannot.
_RELEVANT = frozenset({"created", "modified", "deleted", "moved", "closed"})


def _relevant_path(root: Path, path: str, is_directory: bool) -> str | None:
    """The vault-relative path an event touches, or None when no page can be affected.

    Dot-folders and dot-files are skipped like the indexer skips them (``.obsidian``, ``.git``, vim's
    ``.page.md.swp``). A directory counts because renaming or deleting a folder moves every page in it,
    and some platforms report only the folder.
    """
    try:
        rel = Path(os.fsdecode(path)).relative_to(root)
    except ValueError:
        return None
    if any(part.startswith(".") for part in rel.parts):
        return None
    if not is_directory and not rel.name.lower().endswith(".md"):
        return None
    # A name that is not UTF-8 is only ever shown (in the log line), never stored.
    return shown_path(rel.as_posix()) or "."


class VaultWatcher:
    """Watches a vault with watchdog and collects changed paths until a caller takes them.

    Thread-safe: watchdog's thread adds paths, a consumer waits for a quiet batch with ``wait()`` or
    takes whatever is pending with ``take()``. It never touches the index itself, so the consumer can
    keep the SQLite connection on the one thread that owns it.
    """

    def __init__(
        self,
        root: Path,
        *,
        debounce: float = DEBOUNCE_S,
        max_delay: float = MAX_DELAY_S,
        index_path: Path | None = None,
    ) -> None:
        self.root = Path(root).resolve()
        self.debounce = debounce
        self.max_delay = max_delay
        self._cond = threading.Condition()
        self._pending: set[str] = set()
        self._first = 0.0
        self._last = 0.0
        self._observer: BaseObserver | None = None
        # With an index path, the watcher tells other processes whether every change it saw is indexed
        # (krouter.ops.watch_lease), so their lookups can skip walking the vault.
        self._index_path = index_path
        self._lease: WatchLease | None = None
        self._seq = 0  # events seen so far
        self._taken_seq = 0  # events seen when the last batch was taken

    def start(self) -> None:
        """Start watching (recursively). Raises OSError when the platform refuses (inotify limits)."""
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer

        watcher = self

        class _Handler(FileSystemEventHandler):
            def on_any_event(self, event: FileSystemEvent) -> None:
                watcher._on_event(event)

        observer = Observer()
        observer.daemon = True
        observer.schedule(_Handler(), str(self.root), recursive=True)
        observer.start()
        self._observer = observer
        if self._index_path is not None:
            from krouter.ops.watch_lease import WatchLease

            self._lease = WatchLease.acquire(self._index_path)

    def stop(self) -> None:
        """Stop the observer thread and wait for it (bounded)."""
        with self._cond:
            if self._lease is not None:
                self._lease.release()
                self._lease = None
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
            self._observer = None
        with self._cond:
            self._cond.notify_all()

    @property
    def leased(self) -> bool:
        """True while this watcher holds the index's lease (no other process's watcher does)."""
        with self._cond:
            return self._lease is not None

    @property
    def fresh(self) -> bool:
        """True while this watcher holds the lease and every change it was told about is indexed: what
        the lease tells other processes, for this process's own lookups (the ask socket's)."""
        with self._cond:
            return self._lease is not None and self._lease.clean

    @property
    def running(self) -> bool:
        """True while the observer thread is alive."""
        return self._observer is not None and self._observer.is_alive()

    def _on_event(self, event: FileSystemEvent) -> None:
        if event.event_type not in _RELEVANT:
            return
        # A directory "modified" event accompanies every file change inside it: it says nothing new.
        if event.is_directory and event.event_type in ("modified", "closed"):
            return
        paths = {_relevant_path(self.root, event.src_path, event.is_directory)}
        dest = getattr(event, "dest_path", "")
        if dest:
            # An atomic save is "temp file moved onto page.md": only the destination is a page.
            paths.add(_relevant_path(self.root, dest, event.is_directory))
        paths.discard(None)
        if not paths:
            return
        now = time.monotonic()
        with self._cond:
            self._seq += 1
            if self._lease is not None:
                # Before the change is pending: a lookup elsewhere must never see "clean" while a change
                # waits to be indexed.
                self._lease.mark(dirty=True)
            if not self._pending:
                self._first = now
            self._pending.update(p for p in paths if p is not None)
            self._last = now
            self._cond.notify_all()

    def take(self) -> set[str]:
        """Take every pending path now, quiet or not (a caller about to answer must see every edit)."""
        with self._cond:
            out, self._pending = self._pending, set()
            self._taken_seq = self._seq
            return out

    def indexed(self) -> None:
        """Say that a refresh which started after the last ``take()`` has committed: when no event came
        since, other processes may trust the index without walking the vault."""
        with self._cond:
            if self._lease is not None and not self._pending and self._seq == self._taken_seq:
                self._lease.mark(dirty=False)

    def wait(self, timeout: float | None = None, *, take: bool = True) -> set[str]:
        """Block until a batch is ready (no event for ``debounce`` s, or ``max_delay`` s of changes).

        Returns the batch, or an empty set when ``timeout`` passes first or the watcher stops. With
        ``take=False`` the batch stays pending, for a ``take()`` on the thread that will refresh: no
        moment exists where a change is neither pending nor indexed.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while True:
                now = time.monotonic()
                if self._pending:
                    ready_at = min(self._last + self.debounce, self._first + self.max_delay)
                    if now >= ready_at:
                        if not take:
                            return set(self._pending)
                        out, self._pending = self._pending, set()
                        self._taken_seq = self._seq
                        return out
                    wake = ready_at
                else:
                    wake = None
                if deadline is not None:
                    if now >= deadline:
                        return set()
                    wake = deadline if wake is None else min(wake, deadline)
                if self._observer is None and not self._pending:
                    return set()
                # Short slices keep Ctrl-C responsive on platforms where a blocked wait ignores it.
                self._cond.wait(timeout=min(0.5, wake - now) if wake is not None else 0.5)


def describe(stats: RefreshStats, changed: set[str]) -> str:
    """One log line for a refresh: counts, time, and the paths the events named."""
    names = sorted(changed)
    shown = ", ".join(names[:8]) + (f" (+{len(names) - 8} more)" if len(names) > 8 else "")
    return (
        f"re-indexed: {stats.added} added, {stats.updated} updated, {stats.deleted} deleted "
        f"({stats.seconds:.2f}s){'; changed: ' + shown if shown else ''}"
    )


def watch_loop(
    router: Router,
    watcher: VaultWatcher,
    *,
    stop: threading.Event | None = None,
    rescan: float = RESCAN_S,
    on_refresh: Callable[[RefreshStats], None] | None = None,
) -> None:
    """Refresh ``router``'s index after every quiet batch of changes until ``stop`` is set.

    Runs on the caller's thread, which owns the index connection. Every ``rescan`` seconds without
    events the vault is re-checked anyway, in case the platform dropped events. In between, pages that
    have no vectors yet for the semantic second opinion are embedded a slice at a time.
    """
    from krouter.ops.background_embedding import EMBED_POLL_S, BackgroundEmbedding

    stop = stop or threading.Event()
    last_scan = time.monotonic()
    background = BackgroundEmbedding(router.vectors is not None)
    while not stop.is_set():
        if not watcher.running:
            raise OSError("the file watcher stopped")
        embedding = background.ready() and router.vectors is not None
        changed = watcher.wait(timeout=EMBED_POLL_S if embedding else 0.5)
        if not changed and time.monotonic() - last_scan < rescan:
            if embedding:
                background.slice(router)
            continue
        last_scan = time.monotonic()
        try:
            stats = router.refresh()
        except KRouterError as exc:
            log.warning("refresh failed: %s", exc)
            continue
        if not stats.stale:
            watcher.indexed()
        background.refreshed(router.vectors is not None)
        if stats.changed or changed:
            log.info(describe(stats, changed))
        for p in stats.problems if stats.changed else []:
            log.info("problem: %s: %s", p.path, p.message)
        if on_refresh is not None:
            on_refresh(stats)


def freeze_heap() -> None:
    """Collect, then move every object alive now out of the garbage collector's reach (``gc.freeze``):
    for a long-running server, once it holds what it keeps for its life (imports, the MCP SDK, a Router
    and its page table). A full collection walks every tracked object, ~60 ms at 10k pages with the SDK
    loaded, and stalls whichever call is running; frozen objects are still freed when their last
    reference goes, they are only never walked again. Process-wide, so servers only, not the library."""
    import gc

    gc.collect()
    gc.freeze()


def configure_stderr_logging() -> None:
    """Log KRouter's messages to stderr (stdout is for output, or for the MCP protocol)."""
    logger = logging.getLogger("krouter")
    if not any(getattr(h, "_krouter", False) for h in logger.handlers):
        handler = logging.StreamHandler()  # stderr
        handler.setFormatter(logging.Formatter("%(asctime)s krouter: %(message)s", "%H:%M:%S"))
        handler._krouter = True  # type: ignore[attr-defined]
        logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False


def watch_command(
    vault: VaultOption = None,
    debounce: Annotated[
        float,
        typer.Option(
            "--debounce", metavar="SECONDS", min=0.05, max=30.0, help="Seconds of quiet before re-indexing."
        ),
    ] = DEBOUNCE_S,
) -> None:
    """Keep the vault's index fresh as pages change (Ctrl-C to stop). Logs each re-index to stderr."""
    from krouter.routing.router import Router

    configure_stderr_logging()
    with exit_codes():
        # Its refreshes leave embedding to the loop's background slices (the fresh asks this process
        # answers use the model's other instance).
        router = Router(vault if vault is not None else default_vault(), auto_refresh=False, embed_budget_s=0)
    watcher = VaultWatcher(router.root, debounce=debounce, index_path=router.index.path)
    server: AskServer | None = None
    try:
        # Watch first, then index: an edit made during the first refresh is caught by the watcher.
        # And start watching before saying so: a caller waiting for this line may edit right away.
        watcher.start()
        if not router.refresh().stale:
            watcher.indexed()
        if watcher.leased:
            # The process holding the lease answers fresh `krouter ask` processes (krouter.ops.ask_socket).
            from krouter.ops.ask_socket.server import AskServer

            server = AskServer(router.root, router.index.path, watcher)
            if not server.start():
                server = None
        log.info(
            "watching %s (%s pages indexed, %s)",
            router.root,
            router.index.meta().get("n_pages", 0),
            router.index.path,
        )
        stop = threading.Event()
        # Ctrl-C and systemd's SIGTERM set a flag the loop checks between steps (every half second, or
        # after an embedding slice), rather than raising KeyboardInterrupt at whatever line happens to
        # run (inside a refresh, a lock wait).
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
        watch_loop(router, watcher, stop=stop)
        log.info("stopped")
    except KeyboardInterrupt:
        log.info("stopped")
    except OSError as exc:
        typer.echo(f"krouter: cannot watch {router.root}: {exc}", err=True)
        raise typer.Exit(1) from exc
    finally:
        if server is not None:
            server.stop()
        watcher.stop()
        router.close()
