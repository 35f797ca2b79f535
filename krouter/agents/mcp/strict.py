"""An MCP server that refuses a tool call naming an argument its tool does not take.

The SDK validates the arguments a tool declares and drops every other one silently: an agent that
writes ``phrasing`` for ``phrasings`` (or ``page`` for ``path``) got an answer to the bare question,
or a read of the wrong lines, and no sign that part of its call was never read. Here the call is
refused with the name it misspelt, the closest real one and the tool's arguments, and the published
input schemas say ``additionalProperties: false`` so a client that checks them knows beforehand.
"""

from __future__ import annotations

import difflib
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver import exceptions as _exceptions
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import Tool
from pydantic import ValidationError

# A tool's own crash, in SDKs that tell it apart (2.3 does; 2.0 has only ToolError).
_UNEXPECTED: type[Exception] | tuple[()] = getattr(_exceptions, "UnexpectedToolError", ())


class StrictArgumentsServer(MCPServer):
    """``MCPServer`` whose tools take only the arguments they declare."""

    _arguments: dict[str, tuple[str, ...]] | None = None

    async def list_tools(self) -> list[Tool]:
        """The tools, each input schema closed to arguments it does not declare."""
        tools = await super().list_tools()
        for tool in tools:
            tool.input_schema["additionalProperties"] = False
        return tools

    async def call_tool(self, name: str, arguments: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        """Run the tool, or refuse a call that names an argument the tool does not take."""
        if self._arguments is None:
            self._arguments = {
                tool.name: tuple(tool.input_schema.get("properties", {}))
                for tool in await super().list_tools()
            }
        known = self._arguments.get(name)
        if known is not None:
            unknown = [key for key in arguments if key not in known]
            if unknown:
                raise ToolError(unknown_arguments(name, unknown, known))
        try:
            return await super().call_tool(name, arguments, *args, **kwargs)
        except ToolError as exc:
            # Only the arguments' own validation: a crash inside a tool may wrap a ValidationError of its
            # own, which is no argument's fault.
            if (
                known is None
                or isinstance(exc, _UNEXPECTED)
                or not isinstance(exc.__cause__, ValidationError)
            ):
                raise
            # The SDK's text is pydantic's, written for a developer (the model's class name, a link to
            # pydantic's docs): the agent is told which argument, what it must be, and what it sent.
            raise ToolError(invalid_arguments(name, exc.__cause__, known)) from exc.__cause__


def unknown_arguments(tool: str, unknown: list[str], known: tuple[str, ...]) -> str:
    """The refusal of a call to ``tool`` naming arguments it does not take, with the likely intended ones."""
    named = []
    for key in unknown:
        close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
        named.append(f"{key!r} (did you mean {close[0]!r}?)" if close else repr(key))
    noun = "argument" if len(unknown) == 1 else "arguments"
    return (
        f"{tool} has no {noun} {', '.join(named)}; nothing was done. "
        f"Its arguments: {', '.join(known) or 'none'}."
    )


def invalid_arguments(tool: str, error: ValidationError, known: tuple[str, ...]) -> str:
    """The refusal of a call to ``tool`` whose arguments are of the wrong kind, one clause per problem."""
    problems = []
    for e in error.errors(include_url=False):
        where = ".".join(str(part) for part in e["loc"]) or "the arguments"
        if e["type"] == "missing":
            problems.append(f"{where!r} is required")
            continue
        got = repr(e.get("input"))
        got = got if len(got) <= _SHOWN else got[: _SHOWN - 3] + "..."
        msg = str(e["msg"])
        problems.append(f"{where!r}: {msg[:1].lower()}{msg[1:]} (got {got})")
    return f"{tool} refused: {'; '.join(problems)}; nothing was done. Its arguments: {', '.join(known) or 'none'}."


# How much of a wrong value the refusal repeats: an argument may be any size.
_SHOWN = 60
