"""The MCP tools of ``krouter mcp``, kept apart from the command so the SDK is imported only by the server.

The SDK reads each tool's signature (evaluated in this module's globals) for the input schema and its
docstring for the description the model sees: both are written for the model.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from krouter import __version__
from krouter.errors import KRouterError, PageNotFound, PathOutsideVault
from krouter.mcp_server import DEFAULT_K, INSTRUCTIONS, VaultService, ask_result, read_page


def build_server(service: VaultService) -> MCPServer:
    """The MCP server with KRouter's three read-only tools, bound to one vault service."""
    server = MCPServer(
        name="krouter",
        title="KRouter memory",
        version=__version__,
        instructions=INSTRUCTIONS,
        log_level="WARNING",
    )

    def hints(title: str) -> ToolAnnotations:
        # Read-only, idempotent, closed world: nothing here writes to the vault or reaches the network.
        return ToolAnnotations(
            title=title,
            read_only_hint=True,
            idempotent_hint=True,
            destructive_hint=False,
            open_world_hint=False,
        )

    @server.tool(annotations=hints("Ask the user's notes"))
    async def krouter_ask(
        question: Annotated[
            str,
            Field(
                description="The question, in plain words (any language), e.g. 'which database do we use'."
            ),
        ],
        k: Annotated[
            int, Field(ge=1, le=20, description="How many ranked candidate pages to return.")
        ] = DEFAULT_K,
    ) -> dict[str, Any]:
        """Find the page of the user's notes (their Markdown vault) that answers a question — or learn that none does.

        Call this before answering from memory about the user's own projects, decisions, preferences,
        people, runbooks or past sessions ("which database do we use", "what is our deploy process").
        The result has a `decision`:
        - "cite": `cited[0].path` is the page that holds the answer, with the best `line` and a
          `snippet`. Read the page with krouter_read before relying on it, and name the page path in
          your answer. If `redirects` is not empty, an older page was replaced and the cited page is
          the current one: do not answer from the replaced page.
        - "refuse": the vault does not hold the answer (`reason` says why). Do not guess and do not
          answer from the closest candidate; tell the user their notes don't cover it.
        """
        try:
            return await service.run(lambda r: ask_result(r, question, k))
        except KRouterError as exc:
            raise ToolError(f"krouter_ask failed: {exc}") from exc

    @server.tool(annotations=hints("Read a page of the user's notes"))
    async def krouter_read(
        path: Annotated[
            str,
            Field(
                description="Vault-relative page path exactly as krouter_ask cited it, e.g. 'Decisions/Primary database.md'."
            ),
        ],
        start_line: Annotated[
            int | None, Field(ge=1, description="First line to return (1-based). Omit for the whole page.")
        ] = None,
        end_line: Annotated[
            int | None, Field(ge=1, description="Last line to return (inclusive). Omit to read to the end.")
        ] = None,
    ) -> str:
        """Read a page of the user's notes, usually the one krouter_ask just cited.

        Read the cited page before relying on it: the snippet alone can miss conditions, dates or a
        newer note further down. Pass the path exactly as cited. Only pages inside the vault can be
        read; paths with `..`, absolute paths and links that lead outside the vault are refused. A page
        that was replaced ends with a note naming its current page: do not rely on a replaced page.
        """
        try:
            return await service.run(lambda r: read_page(r, path, start_line, end_line))
        except PathOutsideVault as exc:
            raise ToolError(f"refused: {exc}. Only pages inside the vault can be read.") from exc
        except PageNotFound as exc:
            raise ToolError(f"{exc}. Use the path exactly as krouter_ask cited it.") from exc
        except (ValueError, KRouterError, OSError) as exc:
            raise ToolError(str(exc)) from exc

    @server.tool(annotations=hints("Status of the user's notes"))
    async def krouter_status() -> dict[str, Any]:
        """Describe the vault KRouter answers from: its folder, how many pages (and how many are replaced),
        pages it could not read, broken replacement links, and where the index lives.

        Call this when krouter_ask refuses everything or the user asks whether their notes are set up.
        """
        try:
            # A full walk on request: the status also catches a change the file watcher missed.
            return await service.run(lambda r: r.status(r.last_refresh), rescan=True)
        except KRouterError as exc:
            raise ToolError(f"krouter_status failed: {exc}") from exc

    return server
