"""A lock file held for a block, across every process of the user: the operating system's own lock
(``flock``; ``msvcrt.locking`` on Windows, which has no ``fcntl``), so it dies with its process and a
crashed holder never leaves a stale lock behind."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from krouter import config


class Taken(Exception):
    """Another process holds the lock, and the caller would not wait for it (or not that long)."""


# How often a bounded wait tries the lock again.
_RETRY_S = 0.05


if sys.platform == "win32":
    import msvcrt

    def _acquire(fd: int, wait: bool = True) -> None:
        while True:
            try:
                msvcrt.locking(fd, msvcrt.LK_LOCK if wait else msvcrt.LK_NBLCK, 1)
                return
            except OSError as exc:
                if not wait:
                    raise Taken from exc
                continue  # LK_LOCK gives up after about ten seconds of retries; a writer holds it for less

    def _release(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _acquire(fd: int, wait: bool = True) -> None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise Taken from exc

    def _release(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


def _acquire_within(fd: int, timeout: float) -> None:
    """Take the lock, trying again until ``timeout`` seconds have passed; then raise Taken."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            _acquire(fd, wait=False)
            return
        except Taken:
            if time.monotonic() >= deadline:
                raise
            time.sleep(_RETRY_S)


@contextlib.contextmanager
def held(path: Path, wait: bool = True, timeout: float | None = None) -> Iterator[None]:
    """Hold the lock file ``path`` (created 0600) for the block, waiting for another process to let
    it go (at most ``timeout`` seconds, when given: then Taken); without ``wait``, raise Taken at once
    when one holds it. Not re-entrant: a block holding it must not take it again (the second wait never
    ends)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if wait and timeout is not None:
            _acquire_within(fd, timeout)
        else:
            _acquire(fd, wait)
        try:
            yield
        finally:
            _release(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def state_lock(name: str, wait: bool = True, timeout: float | None = None) -> Iterator[None]:
    """Hold the lock file ``name`` in the state dir (private, KRouter's own) for the block, across
    every process of the user; without ``wait``, raise Taken at once when another holds it (after
    ``timeout`` seconds, when given)."""
    path = config.state_dir() / name
    config.private_dir(path.parent)
    with held(path, wait, timeout):
        yield
