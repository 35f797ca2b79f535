"""Helpers for tests that wait on another process or thread (a watcher, a server): poll, never sleep a
fixed time, and fail with a message when the condition never comes."""

from __future__ import annotations

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
