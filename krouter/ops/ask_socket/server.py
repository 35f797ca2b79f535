"""The server side of the ask socket: answer ``krouter ask`` clients from a running watcher's process."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sqlite3
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from krouter.errors import KRouterError
from krouter.ops.ask_socket.protocol import (
    HELLO,
    MAX_REQUEST,
    PROTOCOL,
    REPLY_TIMEOUT_S,
    REQUEST_TIMEOUT_S,
    code_id,
    peer_uid,
    read_all,
    socket_path,
)

if TYPE_CHECKING:
    from krouter.ops.vault_watcher import VaultWatcher
    from krouter.routing.router import Router

_DECLINE: dict[str, object] = {"protocol": PROTOCOL, "ok": False}


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
        # Whether this server's first answer has frozen the heap (see krouter.ops.watch.freeze_heap).
        self._frozen = False

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
        # The router this socket answers with is made by its first question; the dictionary it may need
        # (compiled once per install, ~5 s) is not left to that question to wait for.
        from krouter.tokens import bilingual

        bilingual.open_in_background()
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

        from krouter.ops.watch import freeze_heap

        log = logging.getLogger("krouter.watch")
        listener = self._listener
        assert listener is not None
        try:
            while not self._stop.is_set():
                try:
                    conn, _ = listener.accept()
                except TimeoutError:
                    if self._router is not None and self.watcher.fresh:
                        # Idle: load the page table of the index the watcher just refreshed now, not in
                        # the next ask (27-44 ms at 10k pages). A failure is the next ask's to report.
                        with contextlib.suppress(KRouterError, OSError, sqlite3.Error):
                            self._router.warm()
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
                if self._router is not None and not self._frozen:
                    # The first answer loaded what this thread keeps (the ask command's modules, a
                    # Router and its page table); the client has its reply already.
                    freeze_heap()
                    self._frozen = True
        finally:
            self._withdraw()
            if self._router is not None:
                self._router.close()
                self._router = None

    def _handle(self, conn: socket.socket) -> None:
        conn.settimeout(REQUEST_TIMEOUT_S)
        peer = peer_uid(conn)
        if peer is not None and peer != os.getuid():
            return
        conn.sendall(HELLO)
        try:
            request = json.loads(read_all(conn, MAX_REQUEST))
        except (ValueError, RecursionError):
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
        from krouter.cli import DEMO_NOTE, EXIT_REFUSED, ask_output
        from krouter.file_stamp import file_stamp
        from krouter.index.refresh import RefreshStats
        from krouter.routing import querylog
        from krouter.routing.phrasings import BadPhrasings, BadQuestion, check_question
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
            or request.get("semantic_env") != os.environ.get("KROUTER_SEMANTIC")
            or not isinstance(question, str)
            or not (isinstance(k, int) and 1 <= k <= 50)
            or not (isinstance(also, list) and all(isinstance(p, str) for p in also))
            or not isinstance(as_json, bool)
        ):
            return _DECLINE
        # The ask command's own steps, in its order; its errors are the ordinary path's to report.
        question = clean(question)
        try:
            check_question(question)
            phrasings = [clean(p) for p in check_phrasings(also)]
        except (BadQuestion, BadPhrasings):
            return _DECLINE
        # A broken config.toml declines (ConfigError): the ordinary path reports it, as it must.
        config.load_config()
        stamp = file_stamp(config.config_path())
        if self._router is not None and stamp != self._config:
            self._router.close()  # config.toml changed: read it again, as a fresh process would
            self._router = None
        if self._router is None:
            self._config = stamp
            # Its refreshes do not embed: the watcher's process embeds in the background, on the
            # model's other instance, and a question must not wait behind a batch of passages.
            self._router = Router(self.root, auto_refresh=False, index_path=self.index_path, embed_budget_s=0)
        router = self._router
        if self.watcher.fresh:
            # What a fresh ask's refresh reports while a watcher keeps the index: nothing walked, nothing
            # re-read (the receipt's "index" part shows it).
            router.last_refresh = RefreshStats()
        else:
            # Changes not yet indexed: a fresh ask would walk the vault now, and so does this.
            router.refresh()
        receipt = router.decide(question, k=k, also=phrasings)
        text = ask_output(receipt, router, [question, *phrasings], as_json)
        return {
            "protocol": PROTOCOL,
            "ok": True,
            "stdout": text + "\n",
            "stderr": DEMO_NOTE + "\n" if config.is_demo(self.root) else "",
            "exit": EXIT_REFUSED if receipt.decision == "refuse" else 0,
            "log": querylog.entry(receipt, self.root),
        }


def serving(
    server: AskServer | None, root: Path, index_path: Path, watcher: VaultWatcher
) -> AskServer | None:
    """``server``; or, while there is none and ``watcher`` holds the index's lease, a new one started
    (None when it cannot listen). The process holding the lease answers fresh `krouter ask` processes,
    from its start or once its watcher took the lease over from a process gone since (a review: a
    `krouter watch` or `krouter mcp` that took it over answered none)."""
    if server is not None or not watcher.leased:
        return server
    started = AskServer(root, index_path, watcher)
    return started if started.start() else None
