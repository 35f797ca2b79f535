"""What a fresh-HOME walkthrough of the README tripped on (issue #14's follow-up), through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
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
    # A bug hunt: teach and learn said "vault folder not found" of the same file.
    for args in (["teach", "which database", "--page", "a.md", "--quote", "x"], ["learn", "--dry-run"]):
        result = runner.invoke(app, [*args, "--vault", str(not_a_folder)])
        assert result.exit_code == 2, (args, result.output)
        assert f"not a folder: {not_a_folder} (a vault is a folder of Markdown pages)" in result.output, args


def test_importing_a_folder_with_no_transcript_fails_and_says_why(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    empty = tmp_path / "sessions"
    empty.mkdir()
    result = runner.invoke(app, ["import", str(empty), "--vault", str(vault)])
    assert result.exit_code == 1, result.output
    assert "no *.jsonl transcript" in result.output
    assert not (vault / "Inputs").exists()


def test_reading_an_indexed_page_that_cannot_be_read_does_not_suggest_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A walkthrough's page in a folder without read permission: "no page at 'Locked/a.md' …; did you
    # mean Locked/a.md?" (root ignores permissions, so the refusal is made here).
    vault = _vault(tmp_path)
    assert runner.invoke(app, ["index", "--vault", str(vault)]).exit_code == 0
    locked = (vault / "Decisions" / "Primary database.md").resolve()
    real_is_file = Path.is_file

    def is_file(self: Path) -> bool:
        if self == locked:
            raise PermissionError(13, "Permission denied", str(self))
        return real_is_file(self)

    monkeypatch.setattr(Path, "is_file", is_file)
    for typed in (
        "Decisions/Primary database.md",
        "./Decisions/Primary database.md",
        "Decisions//Primary database.md",
    ):
        result = runner.invoke(app, ["read", typed, "--vault", str(vault)])
        assert result.exit_code != 0
        assert "Permission denied" in result.output and "did you mean" not in result.output, typed


def test_a_refusal_says_which_pages_could_not_be_read(tmp_path: Path) -> None:
    # A walkthrough's unreadable page: the refusal said "the vault never mentions 'postmark'" about a
    # vault whose page on Postmark could not be read.
    vault = _vault(tmp_path)
    (vault / "Decisions" / "Email provider.md").write_bytes(
        b"# Email provider\n\nWe send through Postmark \xff.\n"
    )
    result = runner.invoke(
        app, ["ask", "which address does Postmark send from", "--vault", str(vault), "--json"]
    )
    reason = json.loads(result.stdout)["reason"]
    assert "the vault never mentions" in reason and "'postmark'" in reason
    assert (
        "(in the pages it could read: Decisions/Email provider.md could not be read; krouter status says why)"
        in reason
    )
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "Email provider.md").write_bytes(b"\xff\xfe postmark\n")
    result = runner.invoke(
        app, ["ask", "which address does Postmark send from", "--vault", str(alone), "--json"]
    )
    assert "no page KRouter could read (Email provider.md could not be" in json.loads(result.stdout)["reason"]
