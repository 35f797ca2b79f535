"""What the ask socket's client and server share: where the socket is, which code answers, the framing.

Imports only the standard library's light modules: the client loads it before anything else.
"""

from __future__ import annotations

import hashlib
import os
import socket
import struct
from pathlib import Path

# Bumped whenever the request or the reply changes shape.
PROTOCOL = 2
# What the server sends as soon as it takes a connection, before the client sends its request. The
# kernel accepts connections for a listener whose process is stopped (Ctrl-Z on `krouter watch`): the
# greeting, not the connection, is what says a server is there, and the client waits for it only
# HELLO_TIMEOUT_S before it asks the ordinary way.
HELLO = b"krouter-ask\n"
# How long the client waits for a connection, for the greeting and for the reply before it asks the
# ordinary way. A reply can take a walk of the vault (when the watcher has changes pending) or a
# page-table reload.
CONNECT_TIMEOUT_S = 1.0
HELLO_TIMEOUT_S = 1.0
REPLY_TIMEOUT_S = 10.0
# A watcher beats its lease (krouter.ops.watch_lease: the file's mtime) at least every LEASE_BEAT_S while
# it runs; a lease not beaten for LEASE_STALE_S is a stopped watcher's (Ctrl-Z, SIGSTOP, a debugger): it
# holds its lock and says "clean", but indexes nothing. Here because the client reads it first.
LEASE_BEAT_S = 2.0
LEASE_STALE_S = 10.0
# How long the server waits for a client's request (a client that connects and says nothing).
REQUEST_TIMEOUT_S = 5.0
MAX_REQUEST = 4 * 1024 * 1024
MAX_REPLY = 64 * 1024 * 1024
_PACKAGE = Path(__file__).resolve().parents[2]  # the krouter package (this is krouter/ops/ask_socket)


def socket_path(index_path: Path) -> Path:
    """The socket of an index: in the index's folder, named after the index path's hash (a Unix socket
    path has a ~104-byte limit, which an index named after a long vault name could pass)."""
    digest = hashlib.sha1(os.fsencode(index_path)).hexdigest()[:16]
    return index_path.parent / f"{digest}.sock"


def default_index_path(root: Path) -> Path:
    """``krouter.index.schema.index_path``, without importing the index's modules and what they import
    (SQLite, the vault reader); a test keeps the two in step."""
    from krouter import config
    from krouter.index.version import file_name

    return config.cache_dir() / "indexes" / file_name(root.name, config.vault_id(root))


def beaten_lately(age: float) -> bool:
    """Whether a lease last beaten ``age`` seconds ago is a running watcher's. One beaten "in the future"
    (the clock stepped back while the watcher was stopped) is not: a running one beats it again within
    LEASE_BEAT_S, by the clock as it is now."""
    return -1.0 < age < LEASE_STALE_S


def code_id() -> str:
    """What identifies the code answering: the version and the newest change to the package's
    modules. A watcher started before an upgrade (or an edit of a checkout) answers no client."""
    from krouter import __version__

    newest = 0
    # The package and its subpackages (folders with an __init__.py), not the data folders shipped in it.
    folders = [_PACKAGE]
    while folders:
        with os.scandir(folders.pop()) as entries:
            for entry in entries:
                if entry.name.endswith(".py"):
                    newest = max(newest, entry.stat().st_mtime_ns)
                elif entry.is_dir(follow_symlinks=False) and os.path.isfile(
                    os.path.join(entry.path, "__init__.py")
                ):
                    folders.append(Path(entry.path))
    return f"{__version__}:{newest}"


def peer_uid(sock: socket.socket) -> int | None:
    """The uid of the process at the other end (Linux); None where the platform does not tell."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    pid_uid_gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    return pid_uid_gid[1]


def read_all(sock: socket.socket, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            raise ValueError("message too long")
        chunks.append(chunk)
