"""What a fresh-HOME walkthrough of the README tripped on (issue #14's follow-up), through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from krouter.cli import app

runner = CliRunner()


def _vault(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    (root / "Decisions").mkdir(parents=True)
    (root / "Decisions" / "Primary database.md").write_text("# Primary database\n\nWe use PostgreSQL 16.\n")
    return root


def test_an_empty_question_is_a_usage_error(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    for question in ("", "   "):
        result = runner.invoke(app, ["ask", question, "--vault", str(vault)])
        assert result.exit_code == 2, result.output
        assert "the question is empty" in result.output
    as_json = runner.invoke(app, ["ask", "", "--vault", str(vault), "--json"])
    assert as_json.exit_code == 2 and "question is empty" in json.loads(as_json.stdout)["error"]


def test_a_file_given_as_the_vault_is_named_as_not_a_folder(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "hostname"
    not_a_folder.write_text("box\n")
    result = runner.invoke(app, ["ask", "which database", "--vault", str(not_a_folder)])
    assert result.exit_code != 0
    assert "not a folder" in result.output and "not found" not in result.output


def test_importing_a_folder_with_no_transcript_fails_and_says_why(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    empty = tmp_path / "sessions"
    empty.mkdir()
    result = runner.invoke(app, ["import", str(empty), "--vault", str(vault)])
    assert result.exit_code == 1, result.output
    assert "no *.jsonl transcript" in result.output
    assert not (vault / "Inputs").exists()
