"""Answer a fresh ``krouter ask`` from a running watcher, over a Unix socket next to the index.

A fresh ``krouter ask`` spends most of its time starting up: imports (typer, the router, the
tokeniser, jieba for a Chinese question) and loading the vault's page table, where the lookup itself
takes a few milliseconds. ``krouter watch`` has all of that loaded already. So the watcher that holds
the vault's lease (``krouter.ops.watch_lease``) also listens on a socket in the index folder, and the
``krouter`` command (``krouter.entry``), before importing anything heavy, hands a plain ``ask`` to it
and prints the reply. Anything the client is not sure of makes it run the command as before, silently:
no socket, a socket that is not the user's own (or is a symlink), a dead watcher's leftover socket, a
watcher running other code than this command's, another config file, options the client does not
parse, a timeout, any error. So the reply is always what the ordinary path would print:

- the server runs the ``ask`` command's own steps (``clean``, the question and phrasing checks,
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

``protocol.py`` holds what both sides share (the socket's path, the code id, the framing), ``client.py``
the client (``ask_through_socket``, run by ``krouter.entry``), ``server.py`` the server (``AskServer``,
started by ``krouter watch`` and ``krouter mcp``). The client and the protocol import only the standard
library's light modules at their top level: the client runs before anything else of KRouter is loaded.
"""
