"""Template pages and query blocks are scaffolding, not notes: never cited, never the answering line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner
from vault_files import write

from krouter import Router
from krouter.cli import app

runner = CliRunner()

DATABASE = """---
title: Primary database
status: current
---
# Primary database

All application data lives in PostgreSQL 16, in the Frankfurt region.
"""
DECISION_TEMPLATE = """---
title: "{{title}}"
date: {{date}}
tags: [decision]
---
# {{title}}

## Context
What made this decision necessary? Which database or provider is affected?

## Decision
What we chose, and the version or region.
"""
TEMPLATER = """# Weekly review

Created <% tp.date.now("YYYY-MM-DD") %>.

## Deploys
Which deploy windows and release versions did we ship this week?
"""
INDEX = """# Database decisions

```dataview
TABLE status, date AS "Decided", version
FROM "Decisions"
WHERE contains(file.name, "database")
```
"""


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write(
        tmp_path / "notes",
        {
            "Decisions/Primary database.md": DATABASE,
            "Templates/Decision.md": DECISION_TEMPLATE,
            "Templates/Weekly.md": TEMPLATER,
            "Indexes/Database decisions.md": INDEX,
        },
    )


def _ask(vault: Path, question: str) -> dict:
    result = runner.invoke(app, ["ask", question, "--vault", str(vault), "--json", "-k", "5"])
    assert result.exit_code in (0, 3), result.output
    return json.loads(result.stdout)


def test_a_template_page_is_never_cited_nor_a_candidate(vault: Path) -> None:
    for question in ("which version of the database", "what region did we choose", "release versions"):
        paths = [c["path"] for c in _ask(vault, question)["candidates"]]
        assert not any(p.startswith("Templates/") for p in paths), (question, paths)
    assert (
        _ask(vault, "which region is the database in")["cited"][0]["path"] == "Decisions/Primary database.md"
    )


def test_check_and_status_say_which_pages_are_templates(vault: Path) -> None:
    report = json.loads(runner.invoke(app, ["check", "--vault", str(vault), "--json"]).stdout)
    found = {f["path"]: f for f in report["findings"] if f["kind"] == "template"}
    assert set(found) == {"Templates/Decision.md", "Templates/Weekly.md"}
    assert "{{title}}" in found["Templates/Decision.md"]["message"]
    assert "tp.date.now" in found["Templates/Weekly.md"]["message"]
    # A notice: the vault is not broken for holding templates.
    assert report["ok"] is True
    status = json.loads(runner.invoke(app, ["status", "--vault", str(vault), "--json"]).stdout)
    assert {p["path"] for p in status["problems"] if p["kind"] == "template"} == set(found)
    assert status["pages"] == 2


def test_a_note_that_shows_template_syntax_is_still_a_note(tmp_path: Path) -> None:
    vault = write(
        tmp_path / "notes",
        {
            "Howto/Daily note setup.md": (
                "# Daily note setup\n\nThe daily note's title is `{{date:YYYY-MM-DD}}`; in a template:\n\n"
                "```\n# {{title}}\nCreated {{date}} at {{time}}\n```\n"
            ),
            "Mail/Welcome email.md": "# Welcome email\n\nThe subject line reads Welcome, sent {{date}}.\n",
        },
    )
    assert _ask(vault, "daily note setup title")["cited"][0]["path"] == "Howto/Daily note setup.md"
    assert _ask(vault, "welcome email subject line")["cited"][0]["path"] == "Mail/Welcome email.md"


def test_query_block_words_are_not_the_page_text(vault: Path) -> None:
    # "version", "status" and "date" are only in the dataview query: the index page does not hold them.
    reply = _ask(vault, "what date and status did the version get")
    index = [c for c in reply["candidates"] if c["path"] == "Indexes/Database decisions.md"]
    assert not index or not set(index[0]["matched"]) & {"date", "status", "version"}
    # Found by its title, its line is the heading, not a line of the query.
    near = [
        c for c in _ask(vault, "database decisions index")["candidates"] if c["path"].startswith("Indexes/")
    ]
    assert near and near[0]["line"] == 1


def test_an_unclosed_query_block_runs_to_the_end(tmp_path: Path) -> None:
    vault = write(
        tmp_path / "notes",
        {
            "Indexes/Open.md": "# Open tasks\n\n```tasks\nnot done\npath includes Projects/rollout\n",
            "Projects/Rollout.md": "# Rollout\n\nThe rollout path is staged: 5%, 50%, 100%.\n",
        },
    )
    paths = [c["path"] for c in _ask(vault, "rollout path")["candidates"]]
    assert paths[0] == "Projects/Rollout.md"
    assert "Indexes/Open.md" not in paths


def test_a_page_turned_into_a_template_and_back_follows_the_edit(vault: Path) -> None:
    page = vault / "Templates" / "Ingress.md"
    note = "# Ingress timeouts\n\nThe ingress read timeout is 60 seconds.\n"
    page.write_text(note, encoding="utf-8")
    router = Router(vault)
    try:
        assert router.ask("what is the ingress read timeout").cited[0].path == "Templates/Ingress.md"
        page.write_text("---\ncreated: {{date}}\n---\n" + note, encoding="utf-8")
        assert router.ask("what is the ingress read timeout").decision == "refuse"
        page.write_text(note, encoding="utf-8")
        assert router.ask("what is the ingress read timeout").cited[0].path == "Templates/Ingress.md"
    finally:
        router.close()


def test_a_note_with_a_placeholder_left_in_it_is_still_a_note(tmp_path: Path) -> None:
    """The diff review: a note copied from a template with a placeholder left unfilled, or one Templater
    did not run on, was dropped from the index as a template. Only pages kept where templates are (a
    folder or file named for them) are read for placeholders."""
    vault = write(
        tmp_path / "notes",
        {
            "Daily/2025-05-01.md": "---\ncreated: {{date}}\n---\n# <% tp.date.now() %>\n\n"
            "The deploy freeze starts on Thursday at noon.\n",
            "Decisions/Queue.md": "# {{title}}\n\nWe chose NATS for the event queue.\n",
        },
    )
    assert _ask(vault, "when does the deploy freeze start")["cited"][0]["path"] == "Daily/2025-05-01.md"
    assert _ask(vault, "which event queue did we choose")["cited"][0]["path"] == "Decisions/Queue.md"


def test_teaching_a_template_page_says_it_is_left_out(vault: Path) -> None:
    result = runner.invoke(
        app,
        [
            "teach",
            "what goes under context in a decision",
            "--page",
            "Templates/Decision.md",
            "--quote",
            "What made this decision necessary?",
            "--vault",
            str(vault),
            "--json",
        ],
    )
    reply = json.loads(result.stdout)
    assert reply["status"] == "not-taught"
    assert "a template" in reply["reason"]
    assert (vault / "Templates" / "Decision.md").read_text(encoding="utf-8") == DECISION_TEMPLATE


def test_a_refusal_does_not_say_a_template_could_not_be_read(vault: Path) -> None:
    """A review: the refusal's "in the pages it could read: Templates/Decision.md and 1 more could not be
    read" was false (the templates were read, and left out) and named them in every refusal."""
    reason = _ask(vault, "what is the kubernetes ingress timeout")["reason"]
    assert "could not be read" not in reason and "Templates/" not in reason, reason


def test_a_tab_indented_fence_is_code_not_a_query_block(tmp_path: Path) -> None:
    """The diff review: a tab before ```dataview made it a query fence (CommonMark reads indented code),
    and never closed, it took the rest of the page out of the index."""
    vault = write(
        tmp_path / "notes",
        {
            "Howto/Dataview.md": "# Dataview\n\nThe query we use:\n\n\t```dataview\n\tLIST FROM #decision\n\n"
            "Dataview indexes refresh every two seconds.\n",
            "Office.md": "# Office\n\nThe office opens at nine.\n",
        },
    )
    assert (
        _ask(vault, "how often does dataview refresh its indexes")["cited"][0]["path"] == "Howto/Dataview.md"
    )
