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

from krouter import __version__, teach
from krouter.errors import KRouterError, PageNotFound, PathOutsideVault
from krouter.mcp_server import DEFAULT_K, INSTRUCTIONS, VaultService, ask_result, read_page
from krouter.phrasings import MAX_PHRASING_CHARS, MAX_PHRASINGS, BadPhrasings
from krouter.phrasings import check as check_phrasings
from krouter.safe_text import clean


def build_server(service: VaultService) -> MCPServer:
    """The MCP server with KRouter's tools (three read-only, and krouter_teach), bound to one vault service."""
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
        phrasings: Annotated[
            list[str] | None,
            Field(
                description=f"Optional: the same question in other words, above all translated into the "
                f"language the notes are written in (at most {MAX_PHRASINGS}, {MAX_PHRASING_CHARS} "
                f"characters each). `phrasing` in the reply names the wording that decided.",
            ),
        ] = None,
    ) -> dict[str, Any]:
        """Find the page of the user's notes (their Markdown vault) that answers a question — or learn that none does.

        Call this before answering from memory about the user's own projects, decisions, preferences,
        people, runbooks or past sessions ("which database do we use", "what is our deploy process").
        The result has a `decision`:
        - "cite": `cited[0].path` is the page that holds the answer, with the best `line` and a
          `snippet`. Read the page with krouter_read before relying on it, and name the page path in
          your answer. If `redirects` is not empty, an older page was replaced and the cited page is
          the current one: do not answer from the replaced page.
        - "refuse": no page answers it as asked (`reason` says why). Do not guess. `candidates` are
          the closest pages with their `line`: read them; if one really answers, answer from it and
          call krouter_teach with the sentence. Otherwise tell the user their notes don't cover it.
        Ask in the notes' language: pass a translation (or a rewording in the notes' terms) in
        `phrasings`; `phrasing` in the reply names the wording that decided.
        """
        try:
            also = check_phrasings(phrasings or [])
            return await service.run(lambda r: ask_result(r, question, k, also))
        except BadPhrasings as exc:
            raise ToolError(f"krouter_ask refused: {exc}") from exc
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

    @server.tool(
        annotations=ToolAnnotations(
            title="Teach KRouter which page answers a question",
            # It adds one trigger to one page (journaled, undoable); repeating a call adds nothing.
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=False,
        )
    )
    async def krouter_teach(
        question: Annotated[
            str, Field(description="The question krouter_ask refused, exactly as you asked it.")
        ],
        path: Annotated[
            str,
            Field(description="Vault-relative path of the page you read that answers it (a closest page)."),
        ],
        quote: Annotated[
            str,
            Field(description="The sentence of that page that answers the question, copied word for word."),
        ],
        phrasings: Annotated[
            list[str] | None,
            Field(
                description=f"Optional: other phrasings of the question you used, e.g. its translation into "
                f"the notes' language (at most {MAX_PHRASINGS}, {MAX_PHRASING_CHARS} characters each).",
            ),
        ] = None,
    ) -> str:
        """Tell KRouter that a page answers a question it refused, so the next asking cites it.

        Use only after krouter_ask refused, you read one of the closest pages with krouter_read, and
        that page really answers the question. KRouter checks the pick (the quote is on the page, is a
        sentence, shares a word with the question or a phrasing; the page is a current note, not a
        clipping, and not a neighbour lacking the question's key word) and only then adds the question
        to the page's triggers. The reply says what was written, with the run id the user can undo
        (`krouter learn --undo RUN_ID`), or why nothing was. Never teach a page that only looks related.
        """
        try:
            result = await service.run(
                lambda r: teach.teach(
                    r,
                    clean(question),
                    clean(path),
                    clean(quote),
                    [clean(p) for p in phrasings or []],
                    client="mcp",
                )
            )
        except BadPhrasings as exc:
            raise ToolError(f"krouter_teach refused: {exc}") from exc
        except KRouterError as exc:
            raise ToolError(f"krouter_teach failed: {exc}") from exc
        return result.to_text()

    @server.tool(annotations=hints("Status of the user's notes"))
    async def krouter_status() -> dict[str, Any]:
        """Describe the vault KRouter answers from: its folder, how many pages (and how many are replaced),
        pages it could not read, broken replacement links, and where the index lives.

        Call this when krouter_ask refuses everything or the user asks whether their notes are set up.
        """
        try:
            return await service.run(lambda r: r.status(r.last_refresh))
        except KRouterError as exc:
            raise ToolError(f"krouter_status failed: {exc}") from exc

    return server
