"""Answer a fresh ``krouter ask`` from a running watcher, over a Unix socket next to the index.

A fresh ``krouter ask`` spends most of its time starting up: imports (typer, the router, the
tokeniser, jieba for a Chinese question) and loading the vault's page table, where the lookup itself
takes a few milliseconds. ``krouter watch`` has all of that loaded already. So the watcher that holds
the vault's lease (``krouter.watch_lease``) also listens on a socket in the index folder, and the
``krouter`` command (``krouter.entry``), before importing anything heavy, hands a plain ``ask`` to it
and prints the reply. Anything the client is not sure of makes it run the command as before, silently:
no socket, a socket that is not the user's own (or is a symlink), a dead watcher's leftover socket, a
watcher running other code than this command's, another config file, options the client does not
parse, a timeout, any error. So the reply is always what the ordinary path would print:

- the server runs the ``ask`` command's own steps (``clean``, the empty-question and phrasing checks,
  ``Router.decide``) on a router of its own; when its watcher has changes not yet indexed it walks the
  vault first, as a fresh ``ask`` does then;
- it returns the exact stdout (the receipt as text or JSON), stderr (the demo vault's note) and exit
  code, and the query-log entry, which the *client* writes: the log lives where the client's
  environment says, is written once, and a client that gave up waiting (and fell back) never leaves a
  second line behind.

Security: the socket is bound under a temporary name, narrowed to 0600 and renamed into place, inside
the index folder (0700). The client uses it only when neither it nor its folder is a symlink, both are
the user's own, and the socket is not readable by others; on Linux each side also checks the other's
uid (``SO_PEERCRED``). Through it, a process of the same user can ask questions of the vault and read
the receipts: what ``krouter ask`` would show that user anyway.

This module's top level imports only the standard library's light modules: the client runs before
anything else of KRouter is loaded.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import socket
import stat
import struct
import sys
import threading
from pathlib import Path

TYPE_CHECKING = False  # not typing's: the client path avoids importing typing
if TYPE_CHECKING:
    from krouter.routing.router import Router
    from krouter.watch import VaultWatcher

# Bumped whenever the request or the reply changes shape.
PROTOCOL = 1
# How long the client waits for a connection and for the reply before it asks the ordinary way. A
# reply can take a walk of the vault (when the watcher has changes pending) or a page-table reload.
CONNECT_TIMEOUT_S = 1.0
REPLY_TIMEOUT_S = 10.0
# How long the server waits for a client's request (a client that connects and says nothing).
REQUEST_TIMEOUT_S = 5.0
MAX_REQUEST = 4 * 1024 * 1024
MAX_REPLY = 64 * 1024 * 1024
_PACKAGE = Path(__file__).resolve().parent


def socket_path(index_path: Path) -> Path:
    """The socket of an index: in the index's folder, named after the index path's hash (a Unix socket
    path has a ~104-byte limit, which an index named after a long vault name could pass)."""
    digest = hashlib.sha1(os.fsencode(index_path)).hexdigest()[:16]
    return index_path.parent / f"{digest}.sock"


def default_index_path(root: Path) -> Path:
    """``krouter.index.schema.index_path``, without importing the index module and what it imports (the
    tokeniser, SQLite, the vault reader); a test keeps the two in step."""
    from krouter import config

    safe = re.sub(r"[^A-Za-z0-9_-]+", "_", root.name)[:40] or "vault"
    return config.cache_dir() / "indexes" / f"{safe}-{config.vault_id(root)}.sqlite3"


def code_id() -> str:
    """What identifies the code answering: the version and the newest change to the package's
    modules. A watcher started before an upgrade (or an edit of a checkout) answers no client."""
    from krouter import __version__

    newest = 0
    folders = [_PACKAGE]
    while folders:
        with os.scandir(folders.pop()) as entries:
            for entry in entries:
                if entry.name.endswith(".py"):
                    newest = max(newest, entry.stat().st_mtime_ns)
                elif entry.is_dir() and os.path.exists(os.path.join(entry.path, "__init__.py")):
                    # The lookup core and the learner are subpackages: an edit there changes the code too.
                    folders.append(Path(entry.path))
    return f"{__version__}:{newest}"


def _peer_uid(sock: socket.socket) -> int | None:
    """The uid of the process at the other end (Linux); None where the platform does not tell."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    pid_uid_gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    return pid_uid_gid[1]


def _read_all(sock: socket.socket, limit: int) -> bytes:
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


# ---------------------------------------------------------------------------------------------------
# Client
# ---------------------------------------------------------------------------------------------------


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


def _exchange(path: Path, request: dict[str, object]) -> dict[str, object]:
    """Send the request, return the reply; raises on any doubt."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(CONNECT_TIMEOUT_S)
        sock.connect(os.fspath(path))
        peer = _peer_uid(sock)
        if peer is not None and peer != os.getuid():
            raise _NotPlain
        sock.settimeout(REPLY_TIMEOUT_S)
        sock.sendall(json.dumps(request).encode("ascii") + b"\n")
        sock.shutdown(socket.SHUT_WR)
        reply = json.loads(_read_all(sock, MAX_REPLY))
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

        path = socket_path(default_index_path(root))
        _own_socket(path)
        request = {
            "protocol": PROTOCOL,
            "code": code_id(),
            "root": str(root),
            "config": str(config.config_path()),
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


# ---------------------------------------------------------------------------------------------------
# Server
# ---------------------------------------------------------------------------------------------------

_DECLINE: dict[str, object] = {"protocol": PROTOCOL, "ok": False}


def _config_stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


class AskServer:
    """Answers ``krouter ask`` clients for one vault while its watcher runs (see the module's doc).

    One background thread accepts one connection at a time and owns a Router of its own (SQLite
    objects stay on their thread), which refreshes only when the watcher has changes not yet indexed.
    Start it only in the process whose watcher holds the vault's lease: one socket per index.
    """

    def __init__(self, root: Path, index_path: Path, watcher: VaultWatcher) -> None:
        self.root = root
        self.index_path = index_path
        self.path = socket_path(index_path)
        self.watcher = watcher
        self.code = code_id()
        self._listener: socket.socket | None = None
        self._bound: tuple[int, int] | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._router: Router | None = None
        self._config: tuple[int, int, int] | None = None

    def start(self) -> bool:
        """Listen and answer in a background thread. False (and nothing listens) where there are no
        Unix sockets or the path cannot be bound (too long, a read-only folder)."""
        if os.name != "posix" or not hasattr(socket, "AF_UNIX"):
            return False
        # Bound under a temporary name and renamed into place once private: the rename also replaces
        # a socket a killed watcher left behind, and no client ever sees a half-made one.
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            listener.bind(os.fspath(tmp))
            os.chmod(tmp, 0o600)
            listener.listen(16)
            os.replace(tmp, self.path)
            st = os.lstat(self.path)
        except OSError:
            listener.close()
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            return False
        self._bound = (st.st_dev, st.st_ino)
        listener.settimeout(0.5)  # the accept loop checks for stop() this often
        self._listener = listener
        self._thread = threading.Thread(target=self._serve, name="krouter-ask-socket", daemon=True)
        self._thread.start()
        return True

    def stop(self) -> None:
        """Stop answering and remove the socket (unless another watcher has replaced it since)."""
        self._stop.set()
        self._withdraw()
        if self._thread is not None:
            self._thread.join(timeout=REPLY_TIMEOUT_S)
            self._thread = None

    def _withdraw(self) -> None:
        """Remove the socket if it is still ours, then stop listening: from now on a client finds no
        socket, or one that refuses at once, and asks the ordinary way (never waits for a reply)."""
        with contextlib.suppress(OSError):
            st = os.lstat(self.path)
            if (st.st_dev, st.st_ino) == self._bound:
                os.unlink(self.path)
        if self._listener is not None:
            # shutdown() wakes an accept() waiting in the server's thread (Linux), so a stopping watcher
            # or MCP server does not wait out the accept timeout.
            with contextlib.suppress(OSError):
                self._listener.shutdown(socket.SHUT_RDWR)
            self._listener.close()

    def _serve(self) -> None:
        import logging

        log = logging.getLogger("krouter.watch")
        listener = self._listener
        assert listener is not None
        try:
            while not self._stop.is_set():
                try:
                    conn, _ = listener.accept()
                except TimeoutError:
                    continue
                except OSError as exc:
                    if not self._stop.is_set():
                        log.warning("krouter ask socket %s stopped answering: %s", self.path, exc)
                    return
                with conn:
                    try:
                        self._handle(conn)
                    except Exception as exc:  # one bad request must not stop the server
                        log.debug("ask socket: request failed: %s", exc)
        finally:
            self._withdraw()
            if self._router is not None:
                self._router.close()
                self._router = None

    def _handle(self, conn: socket.socket) -> None:
        conn.settimeout(REQUEST_TIMEOUT_S)
        peer = _peer_uid(conn)
        if peer is not None and peer != os.getuid():
            return
        try:
            request = json.loads(_read_all(conn, MAX_REQUEST))
        except ValueError:
            request = None
        try:
            reply = self.answer(request)
        except Exception:  # whatever went wrong, the client asks the ordinary way
            reply = _DECLINE
        conn.settimeout(REPLY_TIMEOUT_S)
        conn.sendall(json.dumps(reply).encode("ascii"))

    def answer(self, request: object) -> dict[str, object]:
        """The reply to one request: what ``krouter ask`` would print and its exit code, or a decline
        (``ok: false``) when the client must ask the ordinary way. Runs on the server's thread."""
        from krouter import config
        from krouter.cli import DEMO_NOTE, EXIT_REFUSED
        from krouter.index.refresh import RefreshStats
        from krouter.routing import querylog
        from krouter.routing.phrasings import BadPhrasings
        from krouter.routing.phrasings import check as check_phrasings
        from krouter.routing.router import Router
        from krouter.safe_text import clean

        if not isinstance(request, dict) or request.get("protocol") != PROTOCOL:
            return _DECLINE
        question, k, also, as_json = (request.get(key) for key in ("question", "k", "also", "json"))
        if (
            request.get("code") != self.code
            or request.get("root") != str(self.root)
            # Another config file may name other input folders: that client asks the ordinary way.
            or request.get("config") != str(config.config_path())
            or not isinstance(question, str)
            or not (isinstance(k, int) and 1 <= k <= 50)
            or not (isinstance(also, list) and all(isinstance(p, str) for p in also))
            or not isinstance(as_json, bool)
        ):
            return _DECLINE
        # The ask command's own steps, in its order; its errors are the ordinary path's to report.
        question = clean(question)
        if not question.strip():
            return _DECLINE
        try:
            phrasings = [clean(p) for p in check_phrasings(also)]
        except BadPhrasings:
            return _DECLINE
        stamp = _config_stamp(config.config_path())
        if self._router is not None and stamp != self._config:
            self._router.close()  # config.toml changed: read it again, as a fresh process would
            self._router = None
        if self._router is None:
            self._config = stamp
            self._router = Router(self.root, auto_refresh=False, index_path=self.index_path)
        router = self._router
        if self.watcher.fresh:
            # What a fresh ask's refresh reports while a watcher keeps the index: nothing walked, nothing
            # re-read (the receipt's "index" part shows it).
            router.last_refresh = RefreshStats()
        else:
            # Changes not yet indexed: a fresh ask would walk the vault now, and so does this.
            router.refresh()
        receipt = router.decide(question, k=k, also=phrasings)
        text = json.dumps(receipt.to_dict(), ensure_ascii=False) if as_json else receipt.to_text()
        return {
            "protocol": PROTOCOL,
            "ok": True,
            "stdout": text + "\n",
            "stderr": DEMO_NOTE + "\n" if config.is_demo(self.root) else "",
            "exit": EXIT_REFUSED if receipt.decision == "refuse" else 0,
            "log": querylog.entry(receipt, self.root),
        }
