"""Keep a vault's index fresh as files change: ``krouter watch`` and the watcher the MCP server uses.

File events only *trigger* a refresh; what to re-index is always decided by ``Index.refresh()``, which
compares every page's (mtime, size) with the index. That makes the watcher indifferent to how an editor
saves (write a temp file, fsync, rename over the page; vim's backup dance; Obsidian's rename-on-save) and
to mass renames or a whole folder being moved: whatever sequence of events arrives, one debounced refresh
after the burst sees the final state of the files. Events the platform says it lost (an inotify queue
overflow) make the next refresh walk the whole vault; one dropped without a word is healed by the
periodic safety rescan.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from typing import TYPE_CHECKING, Annotated

import typer

from krouter.cli_options import VaultOption, exit_codes
from krouter.config import default_vault
from krouter.errors import ConfigError, KRouterError
from krouter.ops import watch_lease
from krouter.ops.vault_watcher import DEBOUNCE_S, VaultWatcher

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from krouter.index.refresh import RefreshStats
    from krouter.ops.ask_socket.server import AskServer
    from krouter.routing.router import Router

log = logging.getLogger("krouter.watch")

# Without events, the vault is walked this often anyway, in case the platform dropped one.
RESCAN_S = 300.0
# While config.toml cannot be read at start, it is read again this often.
SETTINGS_RETRY_S = 1.0


def describe(stats: RefreshStats, changed: set[str]) -> str:
    """One log line for a refresh: counts, time, and the paths the events named."""
    names = sorted("the whole vault" if name == "." else name for name in changed)
    shown = ", ".join(names[:8]) + (f" (+{len(names) - 8} more)" if len(names) > 8 else "")
    if not stats.changed:
        # "0 added, 0 updated" beside the pages just saved read as a watcher that missed them (a bug
        # hunt): their text is as indexed (a touch, a save of the same text) or another krouter
        # process indexed them first.
        return f"index already up to date for: {shown}"
    return (
        f"re-indexed: {stats.added} added, {stats.updated} updated, {stats.deleted} deleted "
        f"({stats.seconds:.2f}s){'; changed: ' + shown if shown else ''}"
    )


# After a failed refresh, how soon the whole vault is looked at again.
RETRY_S = 5.0


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
    # The problems logged already: every refresh reports all of the vault's, and the log says each once
    # (again if it comes back after being fixed).
    logged: set[tuple[str, str, str]] = set()
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
            # A broken config.toml (fixing it is a change the watcher reports), or a full disk: the
            # batch was taken, so the whole vault is looked at again soon, when it may succeed.
            log.warning("refresh failed: %s", exc)
            last_scan = time.monotonic() - rescan + min(rescan, RETRY_S)
            continue
        if not stats.stale:
            watcher.indexed(router.index.identity)
        background.refreshed(router.vectors is not None)
        # The observer follows a vault folder moved away, so edits there still arrive: none is the vault's
        # and none was indexed, where "already up to date" said they were (a bug hunt). The watcher said
        # the folder is gone; nothing more until it is back.
        if (stats.changed or changed) and router.root.is_dir():
            log.info(describe(stats, changed))
        current = {(p.path, p.kind, p.message) for p in stats.problems}
        for path, _kind, message in sorted(current - logged):
            log.info("problem: %s: %s", path, message)
        logged = current
        if on_refresh is not None:
            on_refresh(stats)


def open_router(vault: Path, stop: threading.Event) -> Router | None:
    """The Router ``krouter watch`` keeps fresh, opened once config.toml can be read; None when ``stop``
    is set first. A broken file is logged once and read again every SETTINGS_RETRY_S: failing to start
    instead would make a service manager give up on the watcher for good (systemd's start limit),
    where the watcher, started anyway, indexes as soon as the file is fixed."""
    from krouter.routing.router import Router

    said = ""
    while not stop.is_set():
        try:
            # Its refreshes leave embedding to the loop's background slices (the fresh asks this process
            # answers use the model's other instance).
            router = Router(vault, auto_refresh=False, embed_budget_s=0)
        except ConfigError as exc:
            if str(exc) != said:
                said = str(exc)
                log.warning("%s; the vault is indexed once the file is fixed", exc)
            stop.wait(SETTINGS_RETRY_S)
            continue
        if said:
            log.info("config.toml can be read again")
        return router
    return None


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
    """Keep the vault's index fresh as pages change (Ctrl-C to stop). Logs each re-index to stderr.

    A broken config.toml does not stop it: it says so and indexes once the file is fixed. Only when
    the vault itself is to come from that file (no --vault, no $KROUTER_VAULT) does it refuse to start."""
    configure_stderr_logging()
    with exit_codes(default_vault=vault is None):
        # The vault named in a broken config.toml is not known: that is the one case refused at start.
        root = vault if vault is not None else default_vault()
    stop = threading.Event()
    # Ctrl-C and systemd's SIGTERM set a flag the loop checks between steps (every half second, or
    # after an embedding slice), rather than raising KeyboardInterrupt at whatever line happens to
    # run (inside a refresh, a lock wait, the wait for a fixed config.toml).
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    with exit_codes(default_vault=vault is None):
        router = open_router(root, stop)
    if router is None:
        log.info("stopped")
        return
    watcher = VaultWatcher(router.root, debounce=debounce, index_path=router.index.path)
    server: AskServer | None = None
    try:
        # Watch first, then index: an edit made during the first refresh is caught by the watcher.
        # And start watching before saying so: a caller waiting for this line may edit right away.
        watcher.start()
        try:
            if not router.refresh().stale:
                watcher.indexed(router.index.identity)
        except KRouterError as exc:
            # config.toml broken since the Router was opened: fixing it is a change the watcher reports.
            log.warning("refresh failed: %s", exc)

        # The process holding the lease answers fresh `krouter ask` processes (krouter.ops.ask_socket);
        # one that takes the lease over later (its holder gone) starts answering then.
        def serve_once_leased(_stats: RefreshStats | None = None) -> None:
            nonlocal server
            from krouter.ops.ask_socket.server import serving

            server = serving(server, router.root, router.index.path, watcher)

        serve_once_leased()
        if not watcher.leased and watch_lease.supported():
            log.info(
                "another process (krouter watch or krouter mcp) already watches %s; this one keeps the "
                "index fresh too, and the other answers fresh `krouter ask` runs",
                router.root,
            )
        log.info(
            "watching %s (%s pages indexed, %s)",
            router.root,
            router.index.meta().get("n_pages", 0),
            router.index.path,
        )
        watch_loop(router, watcher, stop=stop, on_refresh=serve_once_leased)
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
