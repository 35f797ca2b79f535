"""The ``krouter`` command's entry point (and ``python -m krouter``'s).

A plain ``krouter ask`` is first offered to a running ``krouter watch`` over its socket
(``krouter.ops.ask_socket.client``), before typer, the router or the tokeniser are imported: that answer costs
about an interpreter's start-up. Everything else, and every ask the socket cannot serve, runs the
typer app in ``krouter.cli`` as before.
"""

from __future__ import annotations

import sys


def run() -> None:
    """Run the ``krouter`` command."""
    try:
        _dispatch()
    except KeyboardInterrupt:
        # Ctrl-C while a command's modules load (the first ~0.3 s) came out as a traceback; once the
        # command runs, typer ends it with the same exit code.
        sys.stderr.write("\nAborted!\n")
        sys.exit(130)


def _dispatch() -> None:
    if sys.argv[1:2] == ["ask"]:
        from krouter.ops.ask_socket.client import ask_through_socket

        code = ask_through_socket(sys.argv[2:])
        if code is not None:
            sys.exit(code)
    if sys.argv[1:2] == ["recall-context"]:
        from krouter.agents.recall import run_hook

        run_hook(sys.argv[1:])
    from krouter.cli import run as run_cli

    run_cli()
