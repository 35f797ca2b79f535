"""``krouter mcp``: the vault as MCP tools over stdio (official ``mcp`` SDK).

stdout carries the protocol and nothing else: every log line goes to stderr. The tools are defined in
``tools.py``; the Router behind them lives in ``service.py``.
"""

from __future__ import annotations

from krouter.agents.mcp.service import VaultService
from krouter.cli_options import VaultOption, exit_codes
from krouter.config import default_vault
from krouter.ops.watch import configure_stderr_logging, freeze_heap


def mcp_command(
    vault: VaultOption = None,
) -> None:
    """Serve the vault to an agent over MCP (stdio): tools krouter_ask, krouter_read, krouter_teach,
    krouter_status.

    A broken config.toml does not stop it: each call says what is wrong until the file is fixed. Only
    when the vault itself is to come from that file (no --vault, no $KROUTER_VAULT) does it refuse to
    start."""
    configure_stderr_logging()
    with exit_codes(default_vault=vault is None):
        service = VaultService(vault if vault is not None else default_vault())
    try:
        service.start()
        from krouter.agents.mcp.tools import build_server  # the SDK takes a second to import: only here

        server = build_server(service)
        # Everything the server keeps is loaded now: the SDK, the index, the page table.
        service.warm()
        freeze_heap()
        server.run("stdio")
    except KeyboardInterrupt:
        pass
    finally:
        service.close()
