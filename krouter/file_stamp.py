"""One version of a file, cheaply: enough to see that config.toml was edited or replaced since it was
read (the router, the watcher, its lease and the ask socket all ask)."""

from __future__ import annotations

import os
from pathlib import Path


def file_stamp(path: Path) -> tuple[int, int, int] | None:
    """(mtime, size, inode) of a file, or None when there is none: enough to see it changed."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino
