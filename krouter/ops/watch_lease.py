"""Tell other processes that a file watcher keeps a vault's index fresh, so they need not walk the vault.

A process running a watcher (``krouter watch``, ``krouter mcp``) holds an exclusive ``flock`` on a small
file next to the index (``<index>.watch``, mode 0600) and writes in it whether every change it has been
told about is indexed (``clean``) or not yet (``dirty``). A process about to walk the vault before a
lookup first checks it: a lock it cannot share means a live watcher; ``clean`` means nothing changed
since its last refresh, so the walk can be skipped. The lock dies with the watcher's process (a crash
included), and then every lookup walks again, as without a watcher.

A running watcher beats the lease (touches the file) every few seconds; a lease not beaten for
``LEASE_STALE_S`` is a stopped watcher's (Ctrl-Z), and lookups walk again.

The file is rewritten in place, never renamed: the lock belongs to the file, and a reader must see the
one the watcher holds. Where ``fcntl`` does not exist (Windows) nothing is published and every lookup walks.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from pathlib import Path

from krouter import config
from krouter.file_stamp import file_stamp
from krouter.index.schema import file_identity
from krouter.ops.ask_socket.protocol import LEASE_BEAT_S, beaten_lately

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

_ACQUIRE_TRIES = 20
CLEAN = b"clean\n"
DIRTY = b"dirty\n"

# Leases this process holds: its own lookups must not trust them (the refresher is this process).
_held: set[str] = set()
_held_lock = threading.Lock()


def lease_path(index_path: Path) -> Path:
    """The lease file of an index."""
    return Path(f"{index_path}.watch")


def supported() -> bool:
    """Whether this platform has the file locks a lease needs (not on Windows)."""
    return fcntl is not None


class WatchLease:
    """The lease a watcher holds while it runs. Create with ``acquire``; ``release`` when it stops."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd = fd
        self._state = b""
        self._beaten = 0.0

    @classmethod
    def acquire(cls, index_path: Path, tries: int = _ACQUIRE_TRIES) -> WatchLease | None:
        """Take the lease of an index, marked dirty; None when another watcher holds it (or no flock).
        ``tries``: how many times to try, 10 ms apart (a reader holds a shared lock for microseconds)."""
        if fcntl is None:
            return None
        path = lease_path(index_path)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            return None
        for attempt in range(tries):
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError:
                # A reader checking the lease holds a shared lock for microseconds; another watcher
                # holds it for as long as it runs.
                if attempt == tries - 1:
                    os.close(fd)
                    return None
                time.sleep(0.01)
        lease = cls(path, fd)
        lease.mark(dirty=True)
        with _held_lock:
            _held.add(str(path))
        return lease

    def mark(self, *, dirty: bool, index: str | None = None, settings: str = "") -> None:
        """Publish whether changes are waiting to be indexed. Dirty must be marked before the change is
        handed to the refresher, clean only after a refresh that saw every change reported so far;
        ``index`` names the index file that refresh wrote (``file_identity``), which a reader must
        find at the index's path: one deleted and made again there (the cache cleared) is empty;
        ``settings`` is config.toml as that refresh read it (``settings_stamp``), which a reader must
        find unchanged: an ``ignore`` line added since may leave out a page the index still holds."""
        state = DIRTY if dirty else CLEAN + f"{index or ''}\n{settings}\n".encode()
        if state != self._state:
            with contextlib.suppress(OSError):
                os.pwrite(self._fd, state, 0)
                os.ftruncate(self._fd, len(state))
                self._state = state

    def beat(self) -> None:
        """Say the watcher is running (its file's mtime, every ``LEASE_BEAT_S`` at most): a watcher
        stopped by Ctrl-Z keeps its lock and its "clean", and every lookup trusted an index that no
        longer followed the vault, for as long as it stayed stopped (a cold review)."""
        now = time.monotonic()
        if now - self._beaten >= LEASE_BEAT_S:
            with contextlib.suppress(OSError):
                os.utime(self._fd)
            self._beaten = now

    @property
    def clean(self) -> bool:
        """True when this lease last published ``clean``."""
        return self._state.startswith(CLEAN)

    def release(self) -> None:
        """Give the lease up: lookups walk the vault again."""
        with _held_lock:
            _held.discard(str(self.path))
        with contextlib.suppress(OSError):
            os.pwrite(self._fd, DIRTY, 0)
        os.close(self._fd)


def watched_clean(index_path: Path) -> bool:
    """True when a watcher in another process holds the index's lease and has indexed every change it
    was told about: a lookup may then skip walking the vault."""
    if fcntl is None:
        return False
    path = lease_path(index_path)
    if str(path) in _held:
        return False
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            # Locked: a watcher is alive. Clean, and of the index file that is at the path now.
            state = os.pread(fd, 256, 0)
            if not state.startswith(CLEAN):
                return False
            written, _, settings = state[len(CLEAN) :].decode("ascii", "replace").partition("\n")
            return (
                (not written or written == file_identity(index_path))
                and settings.strip() == settings_stamp()
                and beaten_lately(time.time() - os.fstat(fd).st_mtime)  # not a stopped watcher's
            )
        except OSError:
            return False
        fcntl.flock(fd, fcntl.LOCK_UN)  # nobody holds it: no watcher runs
        return False
    finally:
        os.close(fd)


def settings_stamp(identity: tuple[int, int, int] | None = None) -> str:
    """config.toml as a lease line: its (mtime, size, inode), given or read now; "none" without one."""
    identity = identity or file_stamp(config.config_path())
    return ":".join(map(str, identity)) if identity else "none"


def folder_identity(root: Path) -> tuple[int, int] | None:
    """A folder's (device, inode), or None when there is none: one made again under the same name is
    another folder."""
    try:
        st = os.stat(root)
    except OSError:
        return None
    return st.st_dev, st.st_ino
