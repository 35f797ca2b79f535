"""Put an edited page in place of the one read: atomically, and only when nothing forbids it.

The learner's and undo's only way to replace a page's bytes. Refused (PageNotWritten, nothing written)
when the result is larger than KRouter reads (``MAX_PAGE_BYTES``: a page the router, and undo, could not
read back), when the page is read-only, or when it no longer holds the bytes the caller read
(PageChanged). The write itself is ``krouter.atomic``'s: a hidden temp file, fsynced, then renamed over
the page (a page's other hard links keep the old bytes, as a snapshot backup made with them must).
"""

from __future__ import annotations

import stat
from collections.abc import Callable
from pathlib import Path

from krouter.atomic import atomic_write
from krouter.errors import KRouterError
from krouter.os_errors import reason
from krouter.vault.files import MAX_PAGE_BYTES


class PageNotWritten(KRouterError):
    """The page was left as it was; the message says why."""


class PageChanged(PageNotWritten):
    """The page's bytes changed after they were read: the edit is skipped, never merged."""


def size_problem(data: bytes) -> str | None:
    """Why a page of these bytes must not be written (KRouter could not read it back), or None."""
    if len(data) <= MAX_PAGE_BYTES:
        return None
    return (
        f"the page would be {len(data)} bytes, over the {MAX_PAGE_BYTES // (1024 * 1024)} MiB KRouter "
        "reads: it could no longer be read, nor undone"
    )


def atomic_replace(
    path: Path, data: bytes, expected: bytes, before_rename: Callable[[], None] | None = None
) -> None:
    """Write ``data`` over ``path`` atomically (``krouter.atomic``), keeping the page's permission bits.

    Raises PageChanged (and writes nothing) when the page no longer holds ``expected``, PageNotWritten
    when ``data`` is too large to be read back, the page is read-only (no write bit for its owner), or
    the file system refuses the write (a read-only folder, a full disk): one page that cannot be
    written is skipped and reported, and a nightly run or an undo goes on to the next.
    ``before_rename`` runs after the temp file is durable and just before the final check and the
    rename (the learner journals there).
    """
    try:
        _replace(path, data, expected, before_rename)
    except OSError as exc:
        raise PageNotWritten(f"{path.name} could not be written: {reason(exc)}; left as it is") from exc


def _replace(path: Path, data: bytes, expected: bytes, before_rename: Callable[[], None] | None) -> None:
    problem = size_problem(data)
    if problem:
        raise PageNotWritten(f"{path.name}: {problem}; left as it is")
    if not path.stat().st_mode & stat.S_IWUSR:
        # A rename replaces a read-only file as readily as any other: the bit is the owner's word.
        raise PageNotWritten(f"{path.name} is read-only: its owner made it so; left as it is")
    if path.read_bytes() != expected:
        raise PageChanged(f"{path.name} changed since it was read; skipped")

    def last_checks() -> None:
        if before_rename is not None:
            before_rename()
        # Checked again as late as possible: an editor may have saved while we wrote.
        if path.read_bytes() != expected:
            raise PageChanged(f"{path.name} changed while it was being edited; skipped")

    atomic_write(path, data, mode=path.stat().st_mode & 0o7777, before_replace=last_checks)
