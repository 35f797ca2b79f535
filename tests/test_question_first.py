"""A call with a bad question and bad phrasings gets one answer at every entry point: the question's
problem, since the question is checked first (``krouter ask --also``, the MCP tool ``krouter_ask`` over
stdio with the official client, the library's ``Router.ask``). And the MCP tool's input schema bounds the
question as the library does: never below what the library accepts (the surrounding spaces are not
counted)."""

from __future__ import annotations

from pathlib import Path

import anyio
import jsonschema
import pytest
from mcp import Client
from mcp.types import CallToolResult
from test_mcp import server_params, text_of
from typer.testing import CliRunner

from krouter.cli import app
from krouter.routing.phrasings import (
    MAX_PHRASING_CHARS,
    MAX_PHRASINGS,
    MAX_QUESTION_CHARS,
    BadPhrasings,
    BadQuestion,
)
from krouter.routing.router import Router

runner = CliRunner()

TOO_LONG_PHRASING = ["x" * (MAX_PHRASING_CHARS + 1)]
TOO_MANY_PHRASINGS = [f"wording {n}" for n in range(MAX_PHRASINGS + 1)]
LONG = "which database do we use " * 48  # 1,200 characters
# (question, phrasings): both bad. Each question is one kind of problem check_question reports.
BOTH_BAD = [
    ("", TOO_LONG_PHRASING),
    ("   ", TOO_MANY_PHRASINGS),
    ("???", TOO_LONG_PHRASING),
    ("😀🎉", TOO_MANY_PHRASINGS),
    ("the of a", TOO_LONG_PHRASING),
    ("what is it", TOO_MANY_PHRASINGS),
    (LONG, TOO_LONG_PHRASING),
    (LONG, TOO_MANY_PHRASINGS),
]


def _vault(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    (root / "Decisions").mkdir(parents=True)
    (root / "Decisions" / "Primary database.md").write_text(
        "# Primary database\n\nWe use PostgreSQL 16 as the primary database.\n", encoding="utf-8"
    )
    return root


def _cli_error(vault: Path, question: str, phrasings: list[str]) -> str:
    """The usage error `krouter ask QUESTION --also ...` prints (exit 2), without the "krouter: " prefix."""
    args = ["ask", "--vault", str(vault), *[a for p in phrasings for a in ("--also", p)], "--", question]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    return line.removeprefix("krouter: ")


def test_the_question_is_checked_before_the_phrasings_everywhere(tmp_path: Path) -> None:
    vault = _vault(tmp_path)

    async def session() -> list[CallToolResult]:
        with anyio.fail_after(120):
            async with Client(server_params(vault), read_timeout_seconds=60) as client:
                return [
                    await client.call_tool("krouter_ask", {"question": q, "phrasings": p})
                    for q, p in BOTH_BAD
                ]

    replies = anyio.run(session)
    for (question, phrasings), reply in zip(BOTH_BAD, replies, strict=True):
        cli = _cli_error(vault, question, phrasings)
        # The question's problem, the same with good phrasings or none: the phrasings were not reached.
        assert cli.startswith("the question"), (question, cli)
        assert cli == _cli_error(vault, question, []) == _cli_error(vault, question, ["which database"])
        assert reply.is_error, (question, text_of(reply))
        # The SDK puts "Error executing tool krouter_ask: " before the tool's own message.
        assert text_of(reply).endswith(f": krouter_ask refused: {cli}"), (question, text_of(reply))


def test_the_library_checks_the_question_length_before_the_phrasings(tmp_path: Path) -> None:
    """Router.ask raises for a question over the bound (the one question problem the library raises
    for; a question with no content words gets a refusal), with the CLI's words, whatever the phrasings."""
    vault = _vault(tmp_path)
    with Router(vault) as router:
        for phrasings in (TOO_LONG_PHRASING, TOO_MANY_PHRASINGS):
            with pytest.raises(BadQuestion) as raised:
                router.ask(LONG, also=phrasings)
            assert str(raised.value) == _cli_error(vault, LONG, phrasings)
            # A question within the bound: the phrasings' problem, as the CLI reports it.
            with pytest.raises(BadPhrasings) as bad:
                router.ask("which database do we use", also=phrasings)
            assert str(bad.value) == _cli_error(vault, "which database do we use", phrasings)


def test_the_schema_never_rejects_a_question_the_library_accepts(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    at_bound = ("primary database " * 100)[:MAX_QUESTION_CHARS]
    # The library counts a question without the spaces around it: these are all within the bound.
    padded = [
        f"  {at_bound}   ",
        f"\n{at_bound}\t",
        f"{'which database do we use':^{MAX_QUESTION_CHARS + 200}}",
    ]
    over = at_bound + "s"
    with Router(vault) as router:
        for question in padded:
            router.ask(question)
        with pytest.raises(BadQuestion):
            router.ask(over)

    async def session() -> tuple[dict[str, object], list[CallToolResult], CallToolResult]:
        with anyio.fail_after(120):
            async with Client(server_params(vault), read_timeout_seconds=60) as client:
                tools = {t.name: t for t in (await client.list_tools()).tools}
                schema = tools["krouter_ask"].input_schema
                accepted = [await client.call_tool("krouter_ask", {"question": q}) for q in padded]
                refused = await client.call_tool("krouter_ask", {"question": over})
                return schema, accepted, refused

    schema, accepted, refused = anyio.run(session)
    for question, reply in zip(padded, accepted, strict=True):
        # What an agent's client checks before sending, and what the server answers.
        jsonschema.validate({"question": question}, schema)
        assert not reply.is_error, text_of(reply)
    assert refused.is_error
    assert text_of(refused).endswith(
        f"krouter_ask refused: the question is {len(over)} characters long; at most {MAX_QUESTION_CHARS}: "
        "ask a sentence or two, not a pasted text"
    )
    # The model reads the bound, and what it counts, in the description.
    description = schema["properties"]["question"]["description"]  # type: ignore[index]
    assert f"at most {MAX_QUESTION_CHARS} characters" in description
    assert "not counting" in description and "spaces" in description
