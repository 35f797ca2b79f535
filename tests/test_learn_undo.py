"""``krouter learn --undo RUN_ID``: every page a run changed back to its bytes from before the run, or,
edited since, without the run's trigger; and refusing what is not a run id."""

from __future__ import annotations

import json
import os
import sys
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


@pytest.mark.parametrize(
    "args",
    [
        ["--undo", "R1", "--dry-run"],
        ["--list", "--undo", "R1"],
        ["--list", "--accept", "P1"],
        ["--list", "--reject", "P1"],
        ["--list", "--dry-run"],
    ],
)
def test_options_that_would_be_dropped_are_a_usage_error(tmp_path: Path, args: list[str]) -> None:
    """A cold review: `learn --undo RUN --dry-run` restored the page anyway (and the report said
    dry_run false); --list beside an action dropped the action and exited 0."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "p.md").write_text("---\ntitle: p\n---\nbody\n", encoding="utf-8")
    _teach(vault, "p.md", "what is p", "20260101T000000Z-abcdef")
    before = snapshot(tmp_path)
    res = CliRunner().invoke(app, ["learn", *[a if a != "R1" else "20260101T000000Z-abcdef" for a in args]])
    assert res.exit_code == 2, res.output
    assert snapshot(tmp_path) == before


def _teach(vault: Path, rel: str, question: str, run_id: str) -> None:
    page = trigger_writes.read_for_edit(vault, rel)
    assert trigger_writes.write_trigger(vault, page, question, run_id, dry_run=False, record={}) == (
        LEARNED,
        "",
    )


def _undo(run_id: str) -> tuple[int, str]:
    res = CliRunner().invoke(app, ["learn", "--undo", run_id])
    return res.exit_code, res.output


def test_undo_naming_another_vault_restores_nothing(tmp_path: Path) -> None:
    """A bug hunt: `--vault B` beside a run taught in vault A was ignored, and A's page restored."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "wifi.md").write_bytes(b"The office wifi password rotates every Monday.\n")
    (b / "b.md").write_bytes(b"Unrelated.\n")
    _teach(a, "wifi.md", "wifi passcode change day", "R1")
    taught = (a / "wifi.md").read_bytes()
    res = CliRunner().invoke(app, ["learn", "--undo", "R1", "--vault", str(b)])
    assert res.exit_code == 2
    assert f"run R1 changed pages in {a.resolve()}, not in {b}" in res.output
    assert (a / "wifi.md").read_bytes() == taught
    res = CliRunner().invoke(app, ["learn", "--undo", "R1", "--vault", str(a)])
    assert res.exit_code == 0, res.output
    assert (a / "wifi.md").read_bytes() == b"The office wifi password rotates every Monday.\n"


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


def test_undo_of_a_deleted_page_leaves_the_owners_own_trigger_on_another_page(tmp_path: Path) -> None:
    """A cold review: the page deleted, undo took the one other page holding the same trigger for it
    moved, and took out the trigger its owner had typed there."""
    page = tmp_path / "p.md"
    page.write_bytes(b"---\ntitle: p\n---\nbody\n")
    _teach(tmp_path, "p.md", "first question", "A")
    # Written as the learner would write it: undo could take it out cleanly.
    owners = b'---\ntitle: Mine\ntriggers:\n  - "first question"\n---\nmy own notes\n'
    mine = tmp_path / "mine.md"
    mine.write_bytes(owners)
    page.unlink()
    code, out = _undo("A")
    assert code == 0, out
    assert mine.read_bytes() == owners
    assert "gone" in out and "the page no longer exists" in out
    assert "mine.md" in out and "left as it is" in out


@pytest.mark.parametrize("change", ["body edited", "title edited"])
def test_undo_finds_a_page_renamed_and_edited_since(tmp_path: Path, change: str) -> None:
    """Moved under another name and edited as well: its title, or else its body, still tells it."""
    before = b"---\ntitle: Payments\n---\n# Payments\n\nbody\n"
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "pay.md").write_bytes(before)
    _teach(tmp_path, "notes/pay.md", "first question", "A")
    (tmp_path / "archive").mkdir()
    moved = tmp_path / "archive" / "Payments 2024.md"
    (tmp_path / "notes" / "pay.md").rename(moved)
    if change == "body edited":
        moved.write_bytes(moved.read_bytes() + b"more\n")
        want = before + b"more\n"
    else:
        moved.write_bytes(moved.read_bytes().replace(b"title: Payments", b"title: Payments (old)"))
        want = before.replace(b"title: Payments", b"title: Payments (old)")
    code, out = _undo("A")
    assert code == 0, out
    assert "moved to archive/Payments 2024.md" in out
    assert moved.read_bytes() == want


def _as_written_before_identity() -> None:
    """The journal as KRouter wrote it before it recorded what identifies a page."""
    path = journal.journal_path()
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        line.pop("page_title", None)
        line.pop("body_sha256", None)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def test_undo_of_an_older_entry_finds_a_page_moved_under_its_own_name_only(tmp_path: Path) -> None:
    """An entry that does not say what the page was: a page of the same file name in another folder
    is taken for it; another page holding the trigger is not."""
    for rel in ("notes/a.md", "notes/b.md"):
        (tmp_path / rel).parent.mkdir(exist_ok=True)
        (tmp_path / rel).write_bytes(b"---\ntitle: t\n---\nbody\n")
    _teach(tmp_path, "notes/a.md", "first question", "A")
    _teach(tmp_path, "notes/b.md", "second question", "B")
    _as_written_before_identity()
    (tmp_path / "archive").mkdir()
    (tmp_path / "notes" / "a.md").rename(tmp_path / "archive" / "a.md")
    (tmp_path / "archive" / "a.md").write_bytes((tmp_path / "archive" / "a.md").read_bytes() + b"more\n")
    (tmp_path / "notes" / "b.md").rename(tmp_path / "archive" / "renamed.md")
    (tmp_path / "archive" / "renamed.md").write_bytes(
        (tmp_path / "archive" / "renamed.md").read_bytes() + b"more\n"
    )
    renamed = (tmp_path / "archive" / "renamed.md").read_bytes()
    code, out = _undo("A")
    assert code == 0 and "moved to archive/a.md" in out, out
    assert (tmp_path / "archive" / "a.md").read_bytes() == b"---\ntitle: t\n---\nbody\nmore\n"
    code, out = _undo("B")
    assert code == 0 and "the page no longer exists" in out, out
    assert (tmp_path / "archive" / "renamed.md").read_bytes() == renamed


@pytest.mark.skipif(sys.platform == "win32", reason="flock")
def test_undo_reads_the_vault_for_a_moved_page_without_the_learner_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole-vault read for a moved page made every other learner write wait on it, without a
    timeout: it runs before the lock is taken (and what it found is checked again under it)."""
    import fcntl

    from krouter.learner import moved, write_lock

    page = tmp_path / "p.md"
    page.write_bytes(b"---\ntitle: p\n---\nbody\n")
    _teach(tmp_path, "p.md", "first question", "A")
    page.rename(tmp_path / "q.md")
    held: list[bool] = []
    real = moved.walk

    def watching(root: Path, *args: object, **kwargs: object) -> object:
        fd = os.open(journal.journal_path().parent / write_lock.LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            held.append(False)
        except BlockingIOError:
            held.append(True)
        finally:
            os.close(fd)  # closing the descriptor lets go of a lock taken through it
        return real(root, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(moved, "walk", watching)
    code, out = _undo("A")
    assert code == 0 and "moved to q.md" in out, out
    assert held == [False]


def test_undo_reads_the_vault_once_for_several_moved_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run whose pages were all moved since walked and read the whole vault once per page (a 10k-page
    vault, once per lesson); one walk and one read of each page serve every one of them."""
    from krouter.learner import moved

    for name in ("p", "r"):
        (tmp_path / f"{name}.md").write_bytes(f"---\ntitle: {name}\n---\nbody\n".encode())
        _teach(tmp_path, f"{name}.md", f"question about {name}", "A")
        (tmp_path / f"{name}.md").rename(tmp_path / f"{name}-moved.md")
    (tmp_path / "other.md").write_bytes(b"---\ntitle: other\n---\nbody\n")
    walks: list[Path] = []
    reads: list[str] = []
    real_walk, real_read = moved.walk, moved.read_page_bytes

    def counting_walk(root: Path, *args: object, **kwargs: object) -> object:
        walks.append(root)
        return real_walk(root, *args, **kwargs)  # type: ignore[arg-type]

    def counting_read(root: Path, rel: str) -> bytes:
        reads.append(rel)
        return real_read(root, rel)

    monkeypatch.setattr(moved, "walk", counting_walk)
    monkeypatch.setattr(moved, "read_page_bytes", counting_read)
    code, out = _undo("A")
    assert code == 0 and "moved to p-moved.md" in out and "moved to r-moved.md" in out, out
    assert "( (" not in out and "))" not in out, out  # the reason's parentheses, once
    assert len(walks) == 1
    # The first pass reads each of the three pages once; under the lock, each entry reads its own
    # candidate again.
    assert sorted(reads[:3]) == ["other.md", "p-moved.md", "r-moved.md"] and len(reads) == 5, reads
    for name in ("p", "r"):
        assert (tmp_path / f"{name}-moved.md").read_bytes() == f"---\ntitle: {name}\n---\nbody\n".encode()


@pytest.mark.parametrize("option", ["--accept", "--reject"])
def test_settling_a_blank_pending_id_is_a_usage_error_not_a_learning_run(tmp_path: Path, option: str) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "p.md").write_text("---\ntitle: p\n---\nbody\n", encoding="utf-8")
    before = snapshot(tmp_path)
    res = CliRunner().invoke(app, ["learn", option, "", "--vault", str(vault)])
    assert res.exit_code == 2 and "needs a pending id" in res.output, res.output
    assert "model lane" not in res.output and snapshot(tmp_path) == before


@pytest.mark.parametrize(
    "field", [b"triggers: code review rules", b"triggers: null", b"triggers:", b"triggers: []"]
)
def test_undo_after_a_later_edit_gives_the_owners_triggers_field_back_as_written(
    tmp_path: Path, field: bytes
) -> None:
    """A cold review: once the body was edited, undo took the trigger's item out of the list the learner
    had made of the field, leaving a scalar as a block list, null as [], a bare key deleted."""
    page = tmp_path / "p.md"
    before = b"---\ntitle: Code review\n" + field + b"\n---\n# Code review\n\nTwo approvals per merge.\n"
    page.write_bytes(before)
    _teach(tmp_path, "p.md", "how many sign-offs does a merge need", "A")
    page.write_bytes(page.read_bytes() + b"Reviewed by the platform team.\n")
    code, out = _undo("A")
    assert code == 0, out
    assert page.read_bytes() == before + b"Reviewed by the platform team.\n"


def test_undo_of_a_page_whose_frontmatter_no_longer_parses_says_why_and_goes_on(tmp_path: Path) -> None:
    """A cold review: frontmatter the owner broke later made undo end in a traceback, the trigger left on
    the page and the run's other pages not restored."""
    (tmp_path / "a.md").write_bytes(b"---\ntitle: A\n---\nbody\n")
    (tmp_path / "b.md").write_bytes(b"---\ntitle: B\n---\nbody\n")
    _teach(tmp_path, "a.md", "what is on page a", "A")
    _teach(tmp_path, "b.md", "what is on page b", "A")
    broken = (tmp_path / "a.md").read_bytes().replace(b"title: A\n", b"title: A\nreviewed: [2024\n")
    (tmp_path / "a.md").write_bytes(broken)
    code, out = _undo("A")
    assert code == 1, out
    assert "Traceback" not in out
    assert "does not parse now" in out and "fix it and undo again" in out
    assert (tmp_path / "a.md").read_bytes() == broken
    assert (tmp_path / "b.md").read_bytes() == b"---\ntitle: B\n---\nbody\n"


def test_undo_takes_a_trigger_off_a_page_with_a_date_no_calendar_has(tmp_path: Path) -> None:
    """A date the owner mistyped later (2024-02-30) is text to the router (D223), and was "not valid YAML"
    to the learner's editor, whose undo left the trigger "no longer a plain item" of the list."""
    (tmp_path / "a.md").write_bytes(b"---\ntitle: A\n---\nbody\n")
    _teach(tmp_path, "a.md", "what is on page a", "A")
    edited = (tmp_path / "a.md").read_bytes().replace(b"title: A\n", b"title: A\nreviewed: 2024-02-30\n")
    (tmp_path / "a.md").write_bytes(edited)
    code, out = _undo("A")
    assert code == 0, out
    assert (tmp_path / "a.md").read_bytes() == b"---\ntitle: A\nreviewed: 2024-02-30\n---\nbody\n"


def test_a_write_after_a_journal_line_cut_short_is_still_undone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold review: the journal's last line cut short (a power cut, a full disk) swallowed the next
    entry, so the page held a trigger that undo said no run had written; a short write was not carried
    on either."""
    journal.journal_path().parent.mkdir(parents=True, exist_ok=True)
    journal.journal_path().write_bytes(b'{"run_id": "20250101T000000Z-aaaaaa", "page": "x.md", "trig')
    real_write = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: real_write(fd, bytes(data[:7])))
    page = tmp_path / "p.md"
    page.write_bytes(b"---\ntitle: t\n---\nbody\n")
    _teach(tmp_path, "p.md", "what is the body", "R1")
    monkeypatch.setattr(os, "write", real_write)
    assert [e["trigger"] for e in journal.journal_entries("R1")] == ["what is the body"]
    code, out = _undo("R1")
    assert code == 0, out
    assert page.read_bytes() == b"---\ntitle: t\n---\nbody\n"


@pytest.mark.parametrize("away", ["moved", "empty mount point"])
def test_undo_while_the_vault_is_away_leaves_it_for_later(tmp_path: Path, away: str) -> None:
    """A cold review: undo with the vault renamed (a drive not mounted) said "gone: nothing to undo",
    exited 0 and counted the entry dealt with, so the trigger was never undone once the vault was back."""
    vault = tmp_path / "vault"
    vault.mkdir()
    original = b"---\ntitle: t\n---\nbody\n"
    (vault / "p.md").write_bytes(original)
    _teach(vault, "p.md", "what is the body", "R1")
    vault.rename(tmp_path / "elsewhere")
    if away == "empty mount point":
        vault.mkdir()
    code, out = _undo("R1")
    assert code != 0 and "is not there" in out, out
    if away == "empty mount point":
        vault.rmdir()
    (tmp_path / "elsewhere").rename(vault)
    code, out = _undo("R1")
    assert code == 0, out
    assert (vault / "p.md").read_bytes() == original


@pytest.mark.parametrize(
    "resaved",
    [
        b"---\ntitle: t\ntags:\n  - process\ntriggers:\n  - what is the body\n---\nbody\nmore\n",
        b"---\ntitle: t\ntags:\n  - process\ntriggers:\n  - 'what is the body'\n---\nbody\nmore\n",
        b"---\ntitle: t\ntags: [process]\ntriggers: [what is the body]\n---\nbody\nmore\n",
    ],
    ids=["plain", "single-quoted", "flow"],
)
def test_undo_after_a_tool_saved_the_fields_again_takes_the_trigger_out(
    tmp_path: Path, resaved: bytes
) -> None:
    """A cold review: a tool that saves the frontmatter again (unquoting the learner's "…", turning a
    [ ] list into a block) made undo refuse: "no longer a plain item of the triggers list"."""
    page = tmp_path / "p.md"
    page.write_bytes(b"---\ntitle: t\ntags: [process]\n---\nbody\n")
    _teach(tmp_path, "p.md", "what is the body", "R1")
    page.write_bytes(resaved)
    code, out = _undo("R1")
    assert code == 0, out
    after = parse_page("p.md", page.read_text(encoding="utf-8"))
    assert after.triggers == [] and after.body.strip() == "body\nmore"


@pytest.mark.parametrize(
    "before", [SHAPES["no frontmatter"], SHAPES["no triggers key"]], ids=["none", "no key"]
)
@pytest.mark.parametrize("order", ["older first", "newer first"])
def test_undoing_two_runs_on_a_page_edited_since_leaves_no_triggers_key_the_owner_never_wrote(
    tmp_path: Path, before: bytes, order: str
) -> None:
    """A bug hunt (two agents teaching one page, the owner adding a line, each run undone): undoing the
    older run first left the page with a bare ``triggers:`` key (and, on a page without frontmatter, a
    block around it) that only the learner had written: the newer run's own "before" held the key."""
    page = tmp_path / "p.md"
    page.write_bytes(before)
    _teach(tmp_path, "p.md", "first question", "A")
    _teach(tmp_path, "p.md", "second question", "B")
    page.write_bytes(page.read_bytes() + b"A line the owner added.\n")
    for run in ("A", "B") if order == "older first" else ("B", "A"):
        code, out = _undo(run)
        assert code == 0, out
    assert page.read_bytes() == before + b"A line the owner added.\n"


def test_an_undo_cut_short_before_its_record_counts_once_it_is_run_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug hunt (kill -9 while agents teach): an undo killed after it restored the page and before it
    recorded the undo left the run listed as taught, and undoing it again found the page as before the
    run and recorded nothing either, so the owner's undo never counted (an agent taught it again)."""
    from krouter.learner import pending, undo

    page = tmp_path / "p.md"
    before = b"---\ntitle: Wifi\n---\nThe office wifi password rotates every Monday.\n"
    page.write_bytes(before)
    _teach(tmp_path, "p.md", "wifi passcode change day", "R1")

    def killed(*_args: object) -> None:
        raise SystemExit(137)

    with monkeypatch.context() as m:
        m.setattr(undo, "append_jsonl", killed)
        with pytest.raises(SystemExit):
            undo.undo("R1")
    assert page.read_bytes() == before
    code, out = _undo("R1")
    assert code == 0, out
    assert "R1" in journal.undone_runs()
    assert "undid this trigger" in str(pending.owner_refusal(tmp_path, "wifi passcode change day", "p.md"))
    listed = CliRunner().invoke(app, ["learn", "--list", "--vault", str(tmp_path)])
    assert "(undone)" in listed.output, listed.output


def test_an_undo_of_an_older_krouter_leaves_what_it_could_not_undo_to_this_one(tmp_path: Path) -> None:
    """An upgrade hunt: an undo by a KRouter that recorded no entries ({"undo", "restored"} alone; before
    2026-12-05) restored one page of a run and, following no moved page, called a renamed one gone. The
    upgraded `--undo`, which follows moves, took every entry of the run as undone: "undone already", and
    the renamed page kept the trigger its owner had asked to take back."""
    vault = tmp_path / "vault"
    vault.mkdir()
    for name in ("a.md", "b.md"):
        (vault / name).write_text(f"---\ntitle: {name[0]}\n---\nThe {name[0]} body.\n", encoding="utf-8")
    before = snapshot(vault)
    run = "20260101T000000Z-abcdef"
    _teach(vault, "a.md", "what is a", run)
    _teach(vault, "b.md", "what is b", run)
    # The older undo: a.md restored; b.md, renamed before it ran, left with the trigger.
    (vault / "a.md").write_bytes(before["a.md"])
    (vault / "b.md").rename(vault / "b renamed.md")
    with journal.outcomes_path().open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"undo": run, "time": 1.0, "restored": 1}) + "\n")
    code, out = _undo(run)
    assert code == 0, out
    assert (vault / "b renamed.md").read_bytes() == before["b.md"], out
    assert (vault / "a.md").read_bytes() == before["a.md"]
