"""Replace a file atomically: every KRouter write that must never leave half a file goes through here.

A reader (an agent, a vault walk, systemd) sees the old file or the new one, never a mix, and a crash
leaves at most a hidden temp file. The temp file sits in the target's folder (a rename is atomic only
within one file system), has a random name created with ``O_EXCL`` (so two writers never share one,
and a planted symlink of the same name is never followed), and starts with a dot (the vault walker
skips dot-files, so a temp file left by a crash is never indexed).
"""

from __future__ import annotations

import contextlib
import glob
import os
import secrets
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from krouter.lazy_pattern import lazy_pattern

# Kept short so that the temp name of a long page name still fits in a folder entry (255 bytes).
_NAME_CHARS = 64
# The temp file's name: the target's (cut to _NAME_CHARS), 16 random hex digits.
_TEMP = lazy_pattern(r"\.(?P<name>.+)\.[0-9a-f]{16}\.tmp")


def atomic_write(
    path: Path,
    data: bytes | str,
    *,
    mode: int | None = None,
    before_replace: Callable[[], None] | None = None,
) -> None:
    """Write ``data`` (text is written as UTF-8, no newline translation) over ``path``, durably.

    Steps: a new temp file in the same folder, write, fsync, set ``mode``, run ``before_replace``,
    rename over ``path``, fsync the folder (so the rename itself survives a power cut). ``mode`` is
    the exact permission bits of the result; without it the file gets what any new file gets (0666
    less the umask), and a ``mode`` of 0600 is applied from the start, so a private file is never
    readable by others, not even for a moment. ``before_replace`` runs once the temp file is durable:
    it may raise to cancel the write. On any failure the temp file is removed and ``path`` is left as
    it was.
    """
    payload = data.encode("utf-8") if isinstance(data, str) else data
    folder = path.parent
    tmp = folder / f".{path.name[:_NAME_CHARS]}.{secrets.token_hex(8)}.tmp"
    # The kernel applies the umask to this; an explicit mode is set exactly below.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666 if mode is None else mode & 0o777)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        if before_replace is not None:
            before_replace()
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(folder)


def written_through(path: Path) -> Path | None:
    """The file ``atomic_write`` was writing when ``path`` is one of its temp files, else None: an
    error names the temp file, the user knows the page. A name cut to fit is completed from the folder
    when one file there matches, else ends in "…"."""
    match = _TEMP.fullmatch(path.name)
    if match is None:
        return None
    name = match["name"]
    if len(name) == _NAME_CHARS:
        with contextlib.suppress(OSError):
            longer = [p.name for p in path.parent.iterdir() if p.name.startswith(name) and p != path]
            name = longer[0] if len(longer) == 1 else f"{name}…"
    return path.parent / name


def _fsync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable; a no-op where a folder cannot be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems refuse fsync on a folder; the data itself is already synced
    finally:
        os.close(fd)


@contextlib.contextmanager
def sqlite_aside(path: Path) -> Iterator[sqlite3.Connection]:
    """A new SQLite file built beside ``path`` and renamed onto it when the block ends without error,
    owner-only: a reader opens the old file or the whole new one, never one half built (the compiled
    dictionary stores in the cache dir)."""
    _remove_abandoned(path)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    # One left by an earlier process that had this pid would be opened and built on as it is.
    tmp.unlink(missing_ok=True)
    try:
        conn = sqlite3.connect(tmp)
        try:
            yield conn
            conn.commit()
        finally:
            conn.close()
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _remove_abandoned(path: Path) -> None:
    """Delete the half-built files beside ``path`` (``<name>.<pid>.tmp`` and SQLite's journal of it) whose
    process is gone: one killed mid-build (the recall hook ends itself at its time bound) left ~7 MB
    behind each time."""
    if os.name != "posix":
        return  # os.kill(pid, 0) asks whether a process lives on POSIX only (on Windows it ends it)
    for tmp in path.parent.glob(f"{glob.escape(path.name)}.*.tmp*"):
        pid = tmp.name[len(path.name) + 1 :].split(".", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            with contextlib.suppress(OSError):
                tmp.unlink()
        except OSError:
            continue  # alive, another user's: not ours to judge


# What another KRouter install left in a shared cache (its index, its dictionary store), used this
# recently, is kept: that install is still run (an agent's server not yet upgraded) and would build it
# again each time. Unused this long, it goes: at 100k pages an index is a gigabyte or more.
OTHER_INSTALLS_KEPT_S = 14 * 24 * 3600


def remove_others(keep: Path, pattern: str, spare: int = 0, used_within_s: float = 0.0) -> None:
    """Delete the files beside ``keep`` that match ``pattern`` but are not ``keep``: stores built for
    another version, never read again (rebuilt on demand if that version comes back). The ``spare``
    most recently modified of them are kept too, and any modified in the last ``used_within_s`` seconds
    (a store its install marks as used each time it opens it)."""
    others = [old for old in keep.parent.glob(pattern) if old != keep]
    mtimes: dict[Path, float] = {}
    for old in others:
        with contextlib.suppress(OSError):
            mtimes[old] = old.stat().st_mtime
    others.sort(key=lambda old: mtimes.get(old, 0.0), reverse=True)
    now = time.time()
    for old in others[spare:]:
        if now - mtimes.get(old, 0.0) < used_within_s:
            continue
        with contextlib.suppress(OSError):
            old.unlink()
