"""File-system errors in plain words, for the command line: which file or folder, and what is wrong.

Python's ``[Errno 13] Permission denied: '/…/Runbooks/.Incident response.md.786c1b8d9c303a8c.tmp'``
names a temp file the user never made and an error number they need not know. Here the same error
reads ``cannot write Runbooks/Incident response.md: the folder Runbooks is read-only (permission
denied)``.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from krouter.atomic import written_through

# What an errno means for the user, when the path alone says no more.
_PLAIN = {
    errno.EROFS: "the file system is read-only",
    errno.ENOSPC: "no space left on the disk",
    errno.EDQUOT: "the disk quota is used up",
    errno.EISDIR: "it is a folder, not a file",
    errno.ENAMETOOLONG: "the name is too long for the file system",
    errno.ELOOP: "too many symbolic links, or a link where a folder was expected",
    errno.EPERM: "the operation is not permitted",
    errno.EEXIST: "something of that name is already there",
}

# Errors only a write meets.
_WRITING = (errno.EROFS, errno.ENOSPC, errno.EDQUOT)


def error_path(exc: OSError) -> Path | None:
    """The file or folder the error is about: the page an atomic write was for rather than its temp
    file, the target of a rename rather than its source."""
    name = exc.filename2 if exc.filename2 is not None else exc.filename
    if name is None:
        return None
    path = Path(os.fsdecode(name))
    return written_through(path) or path


def _through_temp(exc: OSError) -> bool:
    """Whether the error names one of ``krouter.atomic``'s temp files."""
    return exc.filename is not None and written_through(Path(os.fsdecode(exc.filename))) is not None


def shown(path: Path, root: Path | None = None) -> str:
    """``path`` as the user should read it: relative to ``root`` when it lies inside it (``root`` itself
    in full, never ".")."""
    if root is not None:
        try:
            rel = path.resolve().relative_to(root.resolve()).as_posix()
        except (OSError, ValueError):
            return str(path)
        return rel if rel != "." else str(root)
    return str(path)


def reason(exc: OSError, root: Path | None = None) -> str:
    """What went wrong, in words, naming the folder or file at fault (a file where a folder is
    needed, the read-only folder)."""
    path = error_path(exc)
    why = (exc.strerror or str(exc)).lower()
    if path is None:
        return why
    if exc.errno == errno.ENOTDIR:
        in_the_way = next((p for p in reversed(path.parents) if _exists(p) and not _is_dir(p)), None)
        if in_the_way is None and _exists(path) and not _is_dir(path):
            in_the_way = path
        if in_the_way is not None:
            return f"{shown(in_the_way, root)} is a file, not a folder"
    if exc.errno == errno.EACCES:
        # A file or folder being created (an atomic write's temp file is one) is refused by its folder.
        if _exists(path) and not _through_temp(exc):
            return "permission denied"
        return f"the folder {shown(path.parent, root)} is read-only (permission denied)"
    if exc.errno == errno.ENOENT:
        missing = next((p for p in reversed(path.parents) if not _exists(p)), None)
        if missing is not None:
            return f"the folder {shown(missing, root)} does not exist"
        return f"{shown(path.parent, root)} does not allow creating it ({why})"
    return _PLAIN.get(exc.errno or 0, why)


def os_error_message(exc: OSError, root: Path | None = None, action: str | None = None) -> str:
    """``cannot ACTION PATH: REASON`` for a file-system error; paths inside ``root`` are shown
    vault-relative. Without ``action`` it is told from the error: ``write`` for an atomic write's temp
    file or a full or read-only disk, ``create`` for a path not there, else ``open``."""
    path = error_path(exc)
    if path is None:
        return f"cannot {action}: {reason(exc, root)}" if action else reason(exc, root)
    if action is None:
        if _through_temp(exc) or exc.errno in _WRITING:
            action = "write"
        else:
            action = "open" if _exists(path) else "create"
    return f"cannot {action} {shown(path, root)}: {reason(exc, root)}"


def _exists(path: Path) -> bool:
    """Whether ``path`` exists; a path that cannot be looked at (its folder unreadable) exists as far
    as the message is concerned: Path.exists raises PermissionError there, which crashed the handler
    and turned a one-line error into two tracebacks."""
    try:
        return path.exists()
    except OSError:
        return True


def _is_dir(path: Path) -> bool:
    """Whether ``path`` is a folder; one that cannot be looked at counts as one (see ``_exists``)."""
    try:
        return path.is_dir()
    except OSError:
        return True
