"""What the index database holds: its tables, and where the file lives.

Bumping ``SCHEMA_VERSION`` (``krouter.index.version``) makes every older index rebuild itself rather
than be misread.
"""

from __future__ import annotations

import contextlib
import glob
import os
import sqlite3
import time
from pathlib import Path

from krouter import config
from krouter.atomic import OTHER_INSTALLS_KEPT_S
from krouter.index.version import SCHEMA_VERSION as SCHEMA_VERSION
from krouter.index.version import file_name, shared_stem

BUSY_TIMEOUT_S = 30.0

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pages (
    id INTEGER PRIMARY KEY,
    path TEXT UNIQUE NOT NULL,
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL,
    hash TEXT NOT NULL,
    title TEXT NOT NULL,
    status TEXT NOT NULL,
    replaced INTEGER NOT NULL,
    superseded_by TEXT NOT NULL,
    supersedes TEXT NOT NULL,
    n_body INTEGER NOT NULL,
    n_meta INTEGER NOT NULL,
    body_line INTEGER NOT NULL,
    yaml_error TEXT,
    passages BLOB NOT NULL,
    trigger_terms TEXT NOT NULL,
    other_terms TEXT NOT NULL,
    clipped INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS postings (term TEXT PRIMARY KEY, ids BLOB NOT NULL, tfs BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS fresh_postings (
    term TEXT NOT NULL,
    page_id INTEGER NOT NULL,
    meta_tf INTEGER NOT NULL,
    trig_tf INTEGER NOT NULL,
    body_tf INTEGER NOT NULL,
    PRIMARY KEY (term, page_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS fresh_postings_page ON fresh_postings(page_id);
CREATE TABLE IF NOT EXISTS stale_pages (page_id INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS stale_terms (term TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS problems (
    path TEXT PRIMARY KEY, kind TEXT NOT NULL, message TEXT NOT NULL, mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS links (
    src TEXT NOT NULL, dst TEXT, kind TEXT NOT NULL, raw TEXT NOT NULL
);
"""

_POSTINGS_KEYED = "    body_tf INTEGER NOT NULL,\n    PRIMARY KEY (term, page_id)\n) WITHOUT ROWID;"
_POSTINGS_INDEX = "CREATE INDEX IF NOT EXISTS fresh_postings_page ON fresh_postings(page_id);"
if _POSTINGS_KEYED not in SCHEMA or _POSTINGS_INDEX not in SCHEMA:  # kept in step with SCHEMA
    raise RuntimeError("krouter.index: the staging schema no longer matches the postings table")
# The staging database of a cold build: the same tables, fresh postings as a plain table (only a
# resumed build's dropped pages touch it), and ``segments``: each committed chunk's postings inverted,
# in term order, as a few blocks of terms with their packed lists (`krouter.index.prepare.Block`);
# ``first`` is the id of the chunk's first page. The chunks are merged term by term into the index's
# ``postings`` when the build is done. Its own version: a staging file of another layout is discarded,
# while the index itself is not affected.
STAGING_VERSION = "3"
STAGING_SCHEMA = SCHEMA.replace(_POSTINGS_KEYED, "    body_tf INTEGER NOT NULL\n);").replace(
    _POSTINGS_INDEX,
    "CREATE TABLE IF NOT EXISTS segments (first INTEGER NOT NULL, block INTEGER NOT NULL, terms TEXT NOT NULL, "
    "counts BLOB NOT NULL, sizes BLOB NOT NULL, ids BLOB NOT NULL, tfs BLOB NOT NULL, PRIMARY KEY (first, block));",
)

TABLES = ("pages", "postings", "fresh_postings", "stale_pages", "stale_terms", "problems", "links")


def index_path(vault_root: Path) -> Path:
    """Where the index of a vault lives: one file per vault and KRouter version (``version.file_name``)."""
    return config.cache_dir() / "indexes" / file_name(vault_root.name, config.vault_id(vault_root))


# An index of another KRouter version unused for OTHER_INSTALLS_KEPT_S (its file and its -wal untouched)
# is deleted: an upgrade builds the new one beside it (``version.file_name``). A process of that version
# still running (an agent's MCP server idle for weeks) keeps reading the deleted file and builds its own
# again when it next opens it.
# What lives beside an index file, named after it (the lease, the build's staging files, SQLite's).
_BESIDE = ("-wal", "-shm", ".watch", ".lock", ".build", ".merge", ".warming")


def other_versions(path: Path) -> list[Path]:
    """The indexes of the same vault that other KRouter versions left beside the index ``path`` (the
    unversioned name of the versions before the file was named by version included)."""
    stem = shared_stem(path)
    return [
        other
        for other in path.parent.glob(f"{glob.escape(stem)}*.sqlite3")
        if other != path and not other.name.endswith(".vectors.sqlite3") and shared_stem(other) == stem
    ]


def remove_other_versions(path: Path) -> None:
    """Delete the indexes of the same vault left by other KRouter versions (``other_versions``), once
    unused for ``atomic.OTHER_INSTALLS_KEPT_S``."""
    now = time.time()
    for other in other_versions(path):
        with contextlib.suppress(OSError):
            used = max(
                os.stat(f"{other}{suffix}").st_mtime
                for suffix in ("", "-wal")
                if os.path.exists(f"{other}{suffix}")
            )
            if now - used < OTHER_INSTALLS_KEPT_S:
                continue
            for suffix in ("", *_BESIDE):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(f"{other}{suffix}")


def private_database(path: Path) -> None:
    """Create a SQLite database file 0600 before SQLite does (its -wal and -shm files take the database
    file's mode), and narrow the files an older version left 0644."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError, PermissionError):  # best effort, like private_dir
            if os.stat(f"{path}{suffix}").st_mode & 0o077:
                os.chmod(f"{path}{suffix}", 0o600)


def file_identity(path: Path) -> str | None:
    """Which file is at ``path`` now (its device and inode), None when there is none: an index deleted
    and made again under the same name is another file."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return f"{st.st_dev}:{st.st_ino}"


def damaged(exc: sqlite3.Error) -> bool:
    """Whether SQLite says the database file itself is damaged (corrupt, or not a database)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def delete_database(path: Path, *, journal: bool = False) -> None:
    """Delete a SQLite database and its -wal and -shm files (and, with ``journal``, its rollback
    journal); files already gone are not an error."""
    for suffix in ("", "-journal", "-wal", "-shm") if journal else ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")
