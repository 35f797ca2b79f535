"""What the tests that drive the real MCP server over stdio (official client) share: how to start it on
a vault, and the text of a tool's reply."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mcp import StdioServerParameters
from mcp.types import CallToolResult, TextContent


def server_params(vault: Path | str) -> StdioServerParameters:
    """`krouter mcp --vault VAULT` in this interpreter. The SDK passes only a minimal environment to the
    server: it is handed the test's isolated dirs (the KROUTER_* variables)."""
    env = {k: v for k, v in os.environ.items() if k.startswith("KROUTER_")}
    return StdioServerParameters(
        command=sys.executable, args=["-m", "krouter", "mcp", "--vault", str(vault)], env=env
    )


def text_of(result: CallToolResult) -> str:
    """The text parts of a tool's reply, joined."""
    return "".join(c.text for c in result.content if isinstance(c, TextContent))
