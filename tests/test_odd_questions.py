"""Odd questions get one answer at every entry point: the library's ``Router.ask``, ``krouter ask``
(with ``--also`` and ``--json``), the MCP tool ``krouter_ask`` and, in test_ask_socket.py, the ask
socket of a running watcher.

A question over the length bound, or with nothing to look up (empty; no letter or digit: punctuation,
emoji, control characters, a NUL, an undecodable byte; only question and grammar words), is the
asker's to reword: exit 2 (usage error) with a message naming what is wrong, never a refusal (exit 3,
"the notes do not cover it") and never a lookup the nightly learner would later pick up.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.types import TextContent
from mcp_stdio import server_params
from typer.testing import CliRunner

from krouter.cli import app
from krouter.routing import querylog
from krouter.routing.phrasings import MAX_QUESTION_CHARS, BadQuestion
from krouter.routing.router import Router, route

runner = CliRunner()

# Only question and grammar words (English, Chinese, a question frame, a single letter).
NO_CONTENT = ["的了吗", "the of a", "what is it", "how long", "x"]
# No letter or digit in any script.
NO_WORDS = ["？？？", "???", "😀🎉", "\x01\x02\x1b\x07", "\x00", "\udce9"]
# 12,000 characters, 11,999 without the trailing space.
LONG = "which database do we use " * 480


def _vault(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    (root / "Decisions").mkdir(parents=True)
    (root / "Decisions" / "Primary database.md").write_text(
        "# Primary database\n\nWe use PostgreSQL 16 as the primary database.\n", encoding="utf-8"
    )
    return root


def _logged() -> list[str]:
    return [str(entry["question"]) for _offset, entry in querylog.read()]


def _message(stderr: str) -> str:
    (line,) = stderr.splitlines()
    assert line.startswith("krouter: "), line
    return line.removeprefix("krouter: ")


def _ask(vault: Path, *args: str) -> tuple[int, str, dict[str, object]]:
    """``krouter ask ARGS`` as text and as --json: the exit code, the message on stderr, the JSON object."""
    text = runner.invoke(app, ["ask", "--vault", str(vault), *args])
    as_json = runner.invoke(app, ["ask", "--vault", str(vault), "--json", *args])
    assert text.exception is None or isinstance(text.exception, SystemExit), text.exception
    assert text.stdout == "" and as_json.exit_code == text.exit_code
    return text.exit_code, _message(text.stderr), json.loads(as_json.stdout)


@pytest.mark.parametrize("question", NO_CONTENT)
def test_a_question_of_only_grammar_words_is_a_usage_error_not_a_refusal(
    tmp_path: Path, question: str
) -> None:
    vault = _vault(tmp_path)
    code, message, out = _ask(vault, "--", question)
    assert code == 2
    assert message.startswith("the question has no content words to look up (question and grammar words")
    assert "name what you are asking about" in message
    # One JSON object, the usage error's.
    assert out == {"error": message, "exit_code": 2}
    # A phrasing does not stand in for a question that names nothing.
    assert _ask(vault, "--also", "which database do we use", "--", question)[:2] == (code, message)
    assert _logged() == []
    # The library looks it up and refuses it for the reason the CLI's message starts with.
    receipt = route(question, vault)
    assert receipt.decision == "refuse" and message.startswith(receipt.reason)


@pytest.mark.parametrize("question", NO_WORDS)
def test_a_question_with_no_letter_or_digit_is_a_usage_error(tmp_path: Path, question: str) -> None:
    code, message, out = _ask(_vault(tmp_path), "--", question)
    assert code == 2
    assert message.startswith("the question has no words to look up (only punctuation, symbols or emoji)")
    assert out == {"error": message, "exit_code": 2}
    assert _logged() == []


def test_a_question_with_a_content_word_is_still_asked(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    for question in ("what is the database", "🙂 database?", "primary\x00database", "数据库"):
        assert runner.invoke(app, ["ask", question, "--vault", str(vault)]).exit_code == 0, question
    for question in ("what is the capital of Mongolia", "\x1b[2K"):
        assert runner.invoke(app, ["ask", question, "--vault", str(vault)]).exit_code == 3, question


def test_a_question_over_the_bound_is_refused_alike_by_the_cli_and_the_library(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    code, message, out = _ask(vault, LONG)
    assert code == 2
    assert message == (
        f"the question is {len(LONG.strip())} characters long; at most {MAX_QUESTION_CHARS}: ask a sentence "
        "or two, not a pasted text"
    )
    assert "11999 characters long; at most 1000" in message
    assert out == {"error": message, "exit_code": 2}
    assert _ask(vault, LONG, "--also", "which database")[:2] == (code, message)
    # Refused before any lookup: nothing logged, no index built.
    assert _logged() == []
    assert not any((Path(os.environ["KROUTER_CACHE_DIR"]) / "indexes").glob("*.sqlite3"))
    # The library refuses it with the same words (Router.ask and route()).
    with Router(vault) as router, pytest.raises(BadQuestion) as raised:
        router.ask(LONG)
    assert str(raised.value) == message
    with pytest.raises(BadQuestion):
        route(LONG, vault)
    assert _logged() == []
    # At the bound it is asked.
    at_bound = ("database " * 200)[:MAX_QUESTION_CHARS]
    assert runner.invoke(app, ["ask", at_bound, "--vault", str(vault)]).exit_code == 0


def _text(result: object) -> str:
    return "".join(c.text for c in result.content if isinstance(c, TextContent))  # type: ignore[attr-defined]


def test_the_mcp_tool_refuses_the_same_questions_with_the_clis_words(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    params = server_params(vault)
    # A lone surrogate is left out: the official client cannot send one (test_hostile_input sends it raw).
    questions = [*NO_CONTENT, *NO_WORDS[:-1], LONG]

    async def session() -> list[object]:
        with anyio.fail_after(120):
            async with Client(params, read_timeout_seconds=60) as client:
                replies = [await client.call_tool("krouter_ask", {"question": q}) for q in questions]
                for args in (
                    {"question": "which database do we use"},
                    {"question": "the of a", "phrasings": ["which database do we use"]},
                ):
                    replies.append(await client.call_tool("krouter_ask", args))
                return replies

    *odd, answered, phrased = anyio.run(session)
    for question, reply in zip(questions, odd, strict=True):
        cli = runner.invoke(app, ["ask", "--vault", str(vault), "--", question])
        assert cli.exit_code == 2
        assert reply.is_error, (question, _text(reply))  # type: ignore[attr-defined]
        # The SDK puts "Error executing tool krouter_ask: " before a tool's own message.
        assert _text(reply).endswith(f": krouter_ask refused: {_message(cli.stderr)}"), _text(reply)
    assert not answered.is_error and _text(answered).startswith("cite: Decisions/Primary database.md")  # type: ignore[attr-defined]
    assert _text(phrased) == _text(odd[1])
    # Refused before the lookup: only the one real question was logged.
    assert _logged() == ["which database do we use"]
