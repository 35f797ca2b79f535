"""``krouter learn --undo RUN_ID``: every page a run changed back to its bytes from before the run, or,
edited since, without the run's trigger; and refusing what is not a run id."""

from __future__ import annotations

from pathlib import Path

import pytest
from learn_vault import snapshot
from typer.testing import CliRunner

from krouter.cli import app
from krouter.learner import journal, trigger_writes
from krouter.learner.report import LEARNED
from krouter.vault.page import parse_page


@pytest.mark.parametrize("run_id", ["", "   ", "R1\nR2", "--list"])
def test_undo_refuses_what_is_not_a_run_id_and_learns_nothing(tmp_path: Path, run_id: str) -> None:
    """A cold review: ``krouter learn --undo ""`` (an empty $RUN in a script) ran a learning pass."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "p.md").write_text("---\ntitle: p\n---\nbody\n", encoding="utf-8")
    before = snapshot(tmp_path)
    res = CliRunner().invoke(app, ["learn", "--undo", run_id, "--vault", str(vault)])
    assert res.exit_code == 2, res.output
    assert "run id" in res.output
    assert "weak question" not in res.output
    assert snapshot(tmp_path) == before
    assert not journal.outcomes_path().exists()


def _teach(vault: Path, rel: str, question: str, run_id: str) -> None:
    page = trigger_writes.read_for_edit(vault, rel)
    assert trigger_writes.write_trigger(vault, page, question, run_id, dry_run=False, record={}) == (
        LEARNED,
        "",
    )


def _undo(run_id: str) -> tuple[int, str]:
    res = CliRunner().invoke(app, ["learn", "--undo", run_id])
    return res.exit_code, res.output


SHAPES = {
    "no frontmatter": b"Just a body line.\n",
    "empty flow list": b"---\ntriggers: []\n---\nbody\n",
    "flow list": b"---\ntriggers: [a]\n---\nbody\n",
    "no triggers key": b"---\ntitle: t\n---\nbody\n",
    "scalar": b"---\ntriggers: a\n---\nbody\n",
    "block list": b"---\r\ntriggers:\r\n  - a\r\n---\r\nbody\r\n",
}


@pytest.mark.parametrize("before", SHAPES.values(), ids=SHAPES.keys())
@pytest.mark.parametrize("order", ["older first", "newer first"])
def test_undoing_one_run_of_several_on_a_page_takes_out_exactly_its_trigger(
    tmp_path: Path, before: bytes, order: str
) -> None:
    """A cold review: undoing the older of two runs on one page was refused ("no longer a plain item"),
    or claimed the page was edited since, and undoing both did not give the original bytes back."""
    page = tmp_path / "p.md"
    page.write_bytes(before)
    _teach(tmp_path, "p.md", "first question", "A")
    _teach(tmp_path, "p.md", "second question", "B")
    first, second = ("A", "B") if order == "older first" else ("B", "A")
    code, out = _undo(first)
    assert code == 0, out
    assert "edited since" not in out
    left = parse_page("p.md", page.read_text(encoding="utf-8")).triggers
    kept = "second question" if first == "A" else "first question"
    assert [t for t in left if t.endswith("question")] == [kept]
    code, out = _undo(second)
    assert code == 0, out
    assert "edited since" not in out
    assert page.read_bytes() == before


def test_undo_on_a_page_without_frontmatter_edited_since_leaves_no_empty_block(tmp_path: Path) -> None:
    """The frontmatter block the learner made for its trigger goes with it; the owner's edit stays."""
    page = tmp_path / "p.md"
    page.write_bytes(b"Just a body line.\n")
    _teach(tmp_path, "p.md", "first question", "A")
    page.write_bytes(page.read_bytes() + b"A line the owner added.\n")
    code, out = _undo("A")
    assert code == 0, out
    assert "edited since" in out
    assert page.read_bytes() == b"Just a body line.\nA line the owner added.\n"


def test_undo_of_a_middle_trigger_in_a_flow_list_edited_since(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_bytes(b"---\ntriggers: [a]\n---\nbody\n")
    _teach(tmp_path, "p.md", "first question", "A")
    _teach(tmp_path, "p.md", "second question", "B")
    page.write_bytes(page.read_bytes() + b"more\n")
    code, out = _undo("A")
    assert code == 0, out
    assert page.read_bytes() == b'---\ntriggers: [a, "second question"]\n---\nbody\nmore\n'


def test_undo_of_a_run_that_wrote_one_page_several_times_counts_pages_as_pages(tmp_path: Path) -> None:
    """A cold review: "3 triggers removed (3 pages edited since…)" for one page, and "run X wrote this
    page later: undo it first" naming the run being undone."""
    page = tmp_path / "p.md"
    page.write_bytes(b"---\ntitle: p\n---\nbody\n")
    for q in ("first question", "second question", "third question"):
        _teach(tmp_path, "p.md", q, "NIGHT")
    page.write_bytes(page.read_bytes() + b"A line the owner added.\n")
    code, out = _undo("NIGHT")
    assert code == 0, out
    assert out.startswith(
        "undo of run NIGHT: 3 triggers removed (page edited since: its later edits kept)"
    ), out
    assert "NIGHT wrote this page later" not in out
    assert page.read_bytes() == b"---\ntitle: p\n---\nbody\nA line the owner added.\n"


def test_undo_finds_a_page_moved_or_renamed_since(tmp_path: Path) -> None:
    """A cold review: after a move, undo said "gone … (the page no longer exists)", exit 0, while the
    trigger stayed on the moved page and was still cited."""
    import unicodedata

    nfc = unicodedata.normalize("NFC", "Entrées.md")
    before = b"---\ntitle: p\n---\nbody\n"
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / nfc).write_bytes(before)
    _teach(tmp_path, f"notes/{nfc}", "first question", "A")
    _teach(tmp_path, f"notes/{nfc}", "second question", "B")
    (tmp_path / "archive").mkdir()
    moved = tmp_path / "archive" / unicodedata.normalize("NFD", "Entrées.md")
    (tmp_path / "notes" / nfc).rename(moved)
    code, out = _undo("B")
    assert code == 0, out
    assert "moved to archive/" in out
    # Edited since as well: found by the trigger it holds.
    moved.write_bytes(moved.read_bytes() + b"more\n")
    code, out = _undo("A")
    assert code == 0, out
    assert "moved to archive/" in out
    assert moved.read_bytes() == before + b"more\n"


def test_undo_of_a_page_gone_whose_trigger_two_pages_hold_names_them_and_fails(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_bytes(b"---\ntitle: p\n---\nbody\n")
    _teach(tmp_path, "p.md", "first question", "A")
    (tmp_path / "copy one.md").write_bytes(page.read_bytes() + b"one\n")
    (tmp_path / "copy two.md").write_bytes(page.read_bytes() + b"two\n")
    page.unlink()
    code, out = _undo("A")
    assert code == 1, out
    assert "copy one.md" in out and "copy two.md" in out and "'first question'" in out


@pytest.mark.parametrize("option", ["--accept", "--reject"])
def test_settling_a_blank_pending_id_is_a_usage_error_not_a_learning_run(tmp_path: Path, option: str) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "p.md").write_text("---\ntitle: p\n---\nbody\n", encoding="utf-8")
    before = snapshot(tmp_path)
    res = CliRunner().invoke(app, ["learn", option, "", "--vault", str(vault)])
    assert res.exit_code == 2 and "needs a pending id" in res.output, res.output
    assert "model lane" not in res.output and snapshot(tmp_path) == before
