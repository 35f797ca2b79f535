"""The client side of the ask socket: hand a plain ``krouter ask`` to a running watcher, or decline.

Runs in a fresh ``krouter`` process before typer, the router or the tokeniser are imported
(``krouter.entry``): its top level imports only the standard library's light modules.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import sys
import time
from pathlib import Path

from krouter.ops.ask_socket.protocol import (
    CONNECT_TIMEOUT_S,
    HELLO,
    HELLO_TIMEOUT_S,
    MAX_REPLY,
    PROTOCOL,
    REPLY_TIMEOUT_S,
    beaten_lately,
    code_id,
    default_index_path,
    peer_uid,
    read_all,
    socket_path,
)


class _NotPlain(Exception):
    """The command line is not a plain ``ask`` this client can hand over."""


def _parse(args: list[str]) -> dict[str, object]:
    """The arguments after ``ask``, parsed as the ``ask`` command would; _NotPlain for anything else
    (help, unknown or repeated options, a value that looks like an option, a bad ``-k``)."""
    question: list[str] = []
    vault: str | None = None
    k = 3
    also: list[str] = []
    as_json = False
    i = 0
    while i < len(args):
        arg = args[i]
        name, eq, inline = arg.partition("=")
        if arg == "--json":
            as_json = True
        elif name in ("--vault", "--also") or arg == "-k" or (arg.startswith("-k") and arg[2:].isdigit()):
            if eq or (arg.startswith("-k") and arg != "-k"):
                value = inline if eq else arg[2:]
            elif i + 1 < len(args):
                i += 1
                value = args[i]
            else:
                raise _NotPlain
            if value.startswith("-"):
                raise _NotPlain
            if name == "--vault":
                if vault is not None:
                    raise _NotPlain
                vault = value
            elif name == "--also":
                also.append(value)
            else:
                if not (value.isascii() and value.isdigit() and 1 <= int(value) <= 50):
                    raise _NotPlain
                k = int(value)
        elif arg.startswith("-"):
            raise _NotPlain
        else:
            question.append(arg)
        i += 1
    if len(question) != 1:
        raise _NotPlain
    return {"question": question[0], "vault": vault, "k": k, "also": also, "json": as_json}


def _vault_root(named: str | None) -> Path:
    """The vault's resolved folder as ``Router`` finds it (``--vault``, then the defaults)."""
    from krouter import config

    root = (config.named_vault(Path(named)) if named is not None else config.default_vault()).expanduser()
    if not root.is_dir():
        raise _NotPlain  # the ordinary path reports the missing folder
    return root.resolve()


def _own_socket(path: Path) -> None:
    """Raise unless ``path`` is a socket of this user's that only this user can reach, in a folder of
    this user's that is no symlink and that nobody else can write."""
    uid = os.getuid()
    folder = os.lstat(path.parent)
    if stat.S_ISLNK(folder.st_mode) or folder.st_uid != uid or folder.st_mode & 0o022:
        raise _NotPlain
    st = os.lstat(path)
    if not stat.S_ISSOCK(st.st_mode) or st.st_uid != uid or st.st_mode & 0o077:
        raise _NotPlain


def _lease_age(lease: Path) -> float:
    """Seconds since the watcher's lease was last beaten (``krouter.ops.watch_lease``); 0 without one."""
    try:
        return time.time() - os.stat(lease).st_mtime
    except FileNotFoundError:
        return 0.0


def _exchange(path: Path, request: dict[str, object]) -> dict[str, object]:
    """Send the request, return the reply; raises on any doubt."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(CONNECT_TIMEOUT_S)
        sock.connect(os.fspath(path))
        peer = peer_uid(sock)
        if peer is not None and peer != os.getuid():
            raise _NotPlain
        sock.settimeout(HELLO_TIMEOUT_S)
        greeting = b""
        while len(greeting) < len(HELLO):
            chunk = sock.recv(len(HELLO) - len(greeting))
            if not chunk:
                raise _NotPlain
            greeting += chunk
        if greeting != HELLO:
            raise _NotPlain
        sock.settimeout(REPLY_TIMEOUT_S)
        sock.sendall(json.dumps(request).encode("ascii") + b"\n")
        sock.shutdown(socket.SHUT_WR)
        reply = json.loads(read_all(sock, MAX_REPLY))
    if not isinstance(reply, dict) or reply.get("protocol") != PROTOCOL or reply.get("ok") is not True:
        raise _NotPlain
    if not (
        isinstance(reply.get("stdout"), str)
        and isinstance(reply.get("stderr"), str)
        and reply.get("exit") in (0, 3)
        and isinstance(reply.get("log"), dict)
    ):
        raise _NotPlain
    return reply


def ask_through_socket(args: list[str]) -> int | None:
    """Run ``krouter ask ARGS`` through a running watcher's socket: print what the command would and
    return its exit code, or return None, having printed nothing, when the command must run the
    ordinary way (no watcher, any doubt)."""
    if os.name != "posix" or not hasattr(socket, "AF_UNIX"):
        return None
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("_", "-")
    if encoding not in ("utf-8", "utf8"):
        return None  # the ordinary path's output encoding is click's business
    try:
        parsed = _parse(args)
        root = _vault_root(parsed.pop("vault"))  # type: ignore[arg-type]
        from krouter import config

        index = default_index_path(root)
        if not beaten_lately(_lease_age(Path(f"{index}.watch"))):
            return None  # the watcher is stopped (Ctrl-Z): its greeting would be waited for in vain
        path = socket_path(index)
        _own_socket(path)
        request = {
            "protocol": PROTOCOL,
            "code": code_id(),
            "root": str(root),
            "config": str(config.config_path()),
            # The server's process has its own environment: a client that turned the semantic second
            # opinion on or off for itself asks the ordinary way when they differ.
            "semantic_env": os.environ.get("KROUTER_SEMANTIC"),
            **parsed,
        }
        reply = _exchange(path, request)
    except Exception:  # any doubt means: ask the ordinary way
        return None
    from krouter.routing import querylog

    if querylog.enabled():
        querylog.append(reply["log"])  # type: ignore[arg-type]
    if reply["stderr"]:
        sys.stderr.write(reply["stderr"])  # type: ignore[arg-type]
        sys.stderr.flush()
    sys.stdout.write(reply["stdout"])  # type: ignore[arg-type]
    sys.stdout.flush()
    return reply["exit"]  # type: ignore[return-value]
