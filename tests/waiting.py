"""Helpers for tests that wait on another process or thread (a watcher, a server): poll, never sleep a
fixed time, and fail with a message when the condition never comes."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

# Generous: a loaded CI machine may take seconds to deliver a file event; this bounds a hang, it is not
# a speed requirement.
TIMEOUT = 30.0


def write(path: Path, text: str) -> None:
    """Write a page, making its folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def wait_for(check: Callable[[], bool], timeout: float = TIMEOUT) -> None:
    """Poll until ``check()`` holds; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    assert check(), "condition not reached in time"


def start_watch_loop(
    vault: Path, stop: threading.Event, debounce: float
) -> tuple[threading.Thread, list[BaseException]]:
    """Run `krouter watch`'s loop on its own thread (which owns its index connection) until ``stop`` is
    set, as the command runs it (the watcher holds the index's lease); return once it watches. Errors
    the thread raised are appended to the returned list."""
    from krouter.ops.vault_watcher import VaultWatcher
    from krouter.ops.watch import watch_loop
    from krouter.routing.router import Router

    ready = threading.Event()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            with Router(vault, auto_refresh=False, embed_budget_s=0) as router:
                router.refresh()
                watcher = VaultWatcher(router.root, debounce=debounce, index_path=router.index.path)
                watcher.start()
                ready.set()
                try:
                    watch_loop(router, watcher, stop=stop)
                finally:
                    watcher.stop()
        except BaseException as exc:
            errors.append(exc)
            ready.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(TIMEOUT), "the watch loop did not start"
    return thread, errors
