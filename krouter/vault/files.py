"""The vault's files: the walk, path containment, and bounded reads.

Every path that comes from outside (a read request, a link) is confined to the vault: ``..``, absolute
paths and symbolic links leading out are refused, and files are opened one component at a time.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from krouter.errors import PageNotFound, PathOutsideVault, VaultNotFound
from krouter.lazy_pattern import lazy_pattern
from krouter.vault.ignore import excluded_by, ignore_rules
from krouter.vault.page import Problem

# Bounds on the work one page may cost, so a single clipped or imported file cannot deny service to
# every lookup. A real page is far below each: notes run to kilobytes, frontmatter to a few hundred
# bytes. A larger file is reported as a problem and skipped; larger frontmatter is read line by line.
MAX_PAGE_BYTES = 8 * 1024 * 1024
# A page path an agent names (read, teach): longer than any real page's, short enough to echo back.
MAX_PATH_CHARS = 1024


class FileStat(NamedTuple):
    """What refresh compares to decide whether a page changed.

    A named tuple rather than a frozen dataclass: every lookup with auto-refresh makes one per page,
    and a frozen dataclass's ``__init__`` made up about half of walking a 10k-page vault.
    ``mtime_ns`` is the later of the file's modification and status-change (ctime) times.
    """

    path: str
    mtime_ns: int
    size: int


def check_vault(root: Path) -> Path:
    """Resolve a vault folder, raising VaultNotFound when it does not exist."""
    root = Path(root).expanduser()
    if not root.is_dir():
        raise VaultNotFound.at(root)
    resolved = root.resolve()
    try:
        str(resolved).encode("utf-8")
    except UnicodeEncodeError:
        # The path is stored in the index, the logs and every receipt, all UTF-8: said at once, not as
        # a traceback from the first of them (a Latin-1 folder name on an old disk or share).
        shown = os.fsencode(resolved).decode("utf-8", "backslashreplace")
        raise VaultNotFound(f"the vault's path is not UTF-8: {shown}; rename the folder") from None
    return resolved


def walk(
    root: Path,
    unreadable: list[str] | None = None,
    symlinks: list[str] | None = None,
    findings: list[Problem] | None = None,
) -> Iterator[FileStat]:
    """Every ``.md`` file under the vault, skipping dot-folders (.obsidian, .trash, .git, ...) and
    what the vault's ignore rules leave out (``krouter.vault.ignore``: .krouterignore, config, Obsidian).

    Symlinks are not followed: a link could lead out of the vault or into a loop; those to folders or
    ``.md`` files are appended to ``symlinks``. Folders that cannot be listed are appended to
    ``unreadable`` (vault-relative, ending in ``/``; ``""`` for the root). ``findings`` gets what else
    a person should know: a file or folder whose name is not valid UTF-8 (kind ``name``: skipped, since
    no index, log or terminal can hold it), a page with other hard links (``hardlink``: its bytes may
    also live outside the vault) and a temp file left by an interrupted write (``leftover_tmp``).
    """
    # Every lookup with auto-refresh walks the whole vault, so this loop is hot: relative paths are
    # built by joining names (a pathlib object per file cost ~70 % of a no-change refresh).
    stack: list[tuple[str, str]] = [(str(root), "")]
    rules = ignore_rules(Path(root))
    while stack:
        folder, prefix = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            if unreadable is not None:
                unreadable.append(prefix)
            continue
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                if findings is not None and _LEFTOVER_TMP.match(name):
                    findings.append(Problem(prefix + name, "leftover_tmp", _LEFTOVER_MESSAGE))
                continue
            try:
                if not name.isascii() and not _encodable(name):
                    if findings is not None and (name.lower().endswith(".md") or entry.is_dir()):
                        findings.append(_bad_name(prefix, name, entry.is_dir(follow_symlinks=False)))
                    continue
                if rules is not None and rules.ignored(prefix + name, entry.is_dir(follow_symlinks=False)):
                    continue
                if symlinks is not None and entry.is_symlink():
                    if name.lower().endswith(".md") or entry.is_dir():
                        symlinks.append(prefix + name)
                    continue
                if entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, f"{prefix}{name}/"))
                elif entry.is_file(follow_symlinks=False) and name.lower().endswith(".md"):
                    st = entry.stat(follow_symlinks=False)
                    if findings is not None and st.st_nlink > 1:
                        findings.append(Problem(prefix + name, "hardlink", _HARDLINK_MESSAGE % st.st_nlink))
                    # The later of mtime and ctime: a copy that keeps an old mtime (cp -p, rsync -t,
                    # a restored backup) still moves ctime, which no tool can set back.
                    yield FileStat(prefix + name, max(st.st_mtime_ns, st.st_ctime_ns), st.st_size)
            except OSError:
                continue


# The temp files of ``atomic.atomic_write``: hidden, the target's name, 16 hex digits.
_LEFTOVER_TMP = lazy_pattern(r"^\..+\.[0-9a-f]{16}\.tmp$")
_LEFTOVER_MESSAGE = (
    "a temp file left by an interrupted write (the page itself is intact); never read: delete it"
)
_HARDLINK_MESSAGE = (
    "has %d hard links: the same bytes may sit outside the vault, and are indexed and may be sent to "
    "the learner's model as this page; containment cannot see hard links"
)


def _encodable(name: str) -> bool:
    """False for a name the OS gave us with lone surrogates: its bytes were not valid UTF-8."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown_path(path: str) -> str:
    """A path that may hold undecodable bytes (as lone surrogates), as text any output can carry:
    each bad byte is written ``\\xNN``."""
    if _encodable(path):
        return path
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def _bad_name(prefix: str, name: str, is_dir: bool) -> Problem:
    what = "folder" if is_dir else "file"
    skipped = "its pages are skipped" if is_dir else "skipped"
    return Problem(
        shown_path(prefix + name) + ("/" if is_dir else ""),
        "name",
        f"{what} name is not valid UTF-8 (old archives, SMB shares and sync clients write such names); "
        f"{skipped}: rename it",
    )


class PageTooLarge(OSError):
    """A file over MAX_PAGE_BYTES: reported and skipped, never read whole."""


def read_page_bytes(root: Path, rel_path: str, limit: int = MAX_PAGE_BYTES) -> bytes:
    """The bytes of a vault-relative file, opened without following a symlink anywhere below ``root``.

    The path is opened one folder at a time with ``O_NOFOLLOW``, and what was opened is checked to be a
    regular file: a folder swapped for a symlink after the path was checked fails with OSError (ELOOP
    or ENOTDIR) instead of reading outside the vault. More than ``limit`` bytes raise PageTooLarge.
    """
    parts = PurePosixPath(rel_path).parts
    if not parts or any(p in ("..", "/") for p in parts):
        raise PathOutsideVault(f"not a vault-relative path: {rel_path!r}")
    if os.open not in os.supports_dir_fd or not hasattr(os, "O_NOFOLLOW"):
        return _read_capped(os.open(Path(root, *parts), os.O_RDONLY | getattr(os, "O_BINARY", 0)), limit)
    nofollow = os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    try:
        for part in parts[:-1]:
            nxt = os.open(part, os.O_RDONLY | os.O_DIRECTORY | nofollow, dir_fd=fd)
            os.close(fd)
            fd = nxt
        # O_NONBLOCK: a FIFO put in a page's place must not hang the reader; no effect on files.
        file_fd = os.open(parts[-1], os.O_RDONLY | os.O_NONBLOCK | nofollow, dir_fd=fd)
    finally:
        os.close(fd)
    return _read_capped(file_fd, limit)


def _read_capped(fd: int, limit: int) -> bytes:
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(handle.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise IsADirectoryError(f"not a regular file ({_kind_of(handle.fileno())})")
        # A read sized to the file: asking for limit + 1 bytes allocated (and returned to the system)
        # 8 MB per page, most of the cost of reading a vault. A file that grew since the stat is read
        # on up to the limit, as before.
        data = handle.read(min(st.st_size, limit) + 1)
        if st.st_size < len(data) <= limit:
            data += handle.read(limit + 1 - len(data))
    if len(data) > limit:
        raise PageTooLarge(f"larger than {limit // (1024 * 1024)} MiB; skipped")
    return data


def _kind_of(fd: int) -> str:
    """What kind of file an open descriptor is, for an error message."""
    mode = os.fstat(fd).st_mode
    return "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "a special file"


def read_contained(root: Path, path: Path) -> bytes:
    """The bytes of a path ``contained_path`` returned, read without following symlinks again.

    ``contained_path`` resolves and checks; between that and the read a folder could be swapped for a
    symlink leading out. Reading the checked, already resolved path with ``O_NOFOLLOW`` at every step
    closes that gap: such a swap makes the read fail with PathOutsideVault, never return outside bytes.
    """
    base = root.resolve()
    try:
        return read_page_bytes(base, path.relative_to(base).as_posix())
    except PageTooLarge as exc:
        raise PageNotFound(f"{path.relative_to(base).as_posix()!r} is too large to serve: {exc}") from exc
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise PathOutsideVault(
                f"path changed to a symlink while being read: {path.relative_to(base).as_posix()!r}"
            ) from exc
        raise PageNotFound(
            f"cannot read {path.relative_to(base).as_posix()!r}: {exc.strerror or exc}"
        ) from exc


def stat_pages(root: Path, paths: Iterable[str]) -> tuple[list[FileStat], list[str]] | None:
    """What ``walk`` would say about just these vault-relative page paths, without walking the vault.

    Returns (the FileStat of each path that is a page, the paths that are not a page any more), or None
    when a path is not one ``walk`` yields as it is written: a folder, a dot-name, a symlinked folder on
    the way, a name spelled otherwise on disk (another Unicode form or case) — the caller walks then.
    """
    found: list[FileStat] = []
    missing: list[str] = []
    listed: dict[str, set[str]] = {}
    rules = ignore_rules(Path(root))
    for rel in paths:
        parts = rel.split("/")
        if not rel.lower().endswith(".md") or any(not p or p.startswith(".") for p in parts):
            return None
        if excluded_by(rules, rel):
            # Left out by the ignore rules, as walk() leaves it: an edit must not bring it in (a
            # watcher's refresh of the pages it saw change indexed a .krouterignore'd page).
            missing.append(rel)
            continue
        folder = os.path.join(root, *parts[:-1])
        # walk() does not follow symlinks: a page reached through a linked folder is not in the vault.
        if os.path.realpath(folder) != os.path.normpath(folder):
            return None
        try:
            st = os.lstat(os.path.join(folder, parts[-1]))
        except FileNotFoundError:
            missing.append(rel)
            continue
        except OSError:
            return None
        if stat.S_ISDIR(st.st_mode):
            return None
        if not stat.S_ISREG(st.st_mode):  # a symlink or a device: walk() skips it too
            missing.append(rel)
            continue
        try:
            names = listed.get(folder)
            if names is None:
                names = listed[folder] = set(os.listdir(folder))
        except OSError:
            return None
        if parts[-1] not in names:
            return None
        found.append(FileStat(rel, max(st.st_mtime_ns, st.st_ctime_ns), st.st_size))
    return found, missing


def content_hash(data: bytes) -> str:
    """A fingerprint of a file's bytes, so a touched-but-unchanged page is not re-tokenised."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def contained_path(root: Path, rel_path: str) -> Path:
    """The absolute path of a vault-relative path, refusing anything that leaves the vault.

    ``..``, absolute paths, symlinks that resolve outside the vault and paths into hidden folders all
    raise PathOutsideVault.
    """
    if not rel_path or Path(rel_path).is_absolute() or rel_path.startswith(("/", "\\")):
        raise PathOutsideVault(f"not a vault-relative path: {rel_path!r}")
    root = root.resolve()
    try:
        candidate = (root / rel_path).resolve()
    except (OSError, ValueError) as exc:  # a NUL byte, a name too long for the file system
        raise PageNotFound(f"no page at {rel_path!r} in {root}: {exc}") from exc
    if not candidate.is_relative_to(root):
        raise PathOutsideVault(f"path leaves the vault: {rel_path!r}")
    if any(part.startswith(".") for part in candidate.relative_to(root).parts):
        # .trash, .git, .obsidian: never indexed, so never served either.
        raise PathOutsideVault(f"not a page of the vault (hidden folder or file): {rel_path!r}")
    try:
        is_file = candidate.is_file()
    except (OSError, ValueError) as exc:
        raise PageNotFound(f"no page at {rel_path!r} in {root}: {exc}") from exc
    if not is_file:
        raise PageNotFound(f"no page at {rel_path!r} in {root}")
    return candidate
