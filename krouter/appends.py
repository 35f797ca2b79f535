"""Appending to the private line logs (the learner's journal, its outcomes log, the query log): whole
lines, each on a line of its own. Imports nothing heavy: the `krouter ask` client appends to the query
log before anything else is loaded.
"""

from __future__ import annotations

import os
from pathlib import Path


def append_whole(path: Path, data: bytes, *, fsync: bool) -> None:
    """Append ``data`` (one or more lines) to a private file (0600), whole and on a line of its own.

    A line cut short earlier (a power cut, a full disk) would swallow the next one: an entry glued onto
    it is unreadable, and undo never found the write it recorded (a cold review). So a file that does
    not end its last line gets one ended first, and a short write is carried on. A write that fails
    raises: what it left is a torn line that readers skip and the next append starts after."""
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if fsync:
            os.fsync(fd)
    finally:
        os.close(fd)
