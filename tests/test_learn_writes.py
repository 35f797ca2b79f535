"""The learner's one write path (``trigger_writes.write_trigger``): what it refuses to write, how it
journals, and how two writers on one page are kept from losing a write."""

from __future__ import annotations

import json
import multiprocessing
import os
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from pathlib import Path

import pytest
from typer.testing import CliRunner
from waiting import TIMEOUT

from krouter import atomic
from krouter.cli import app
from krouter.learner import journal as learn_journal
from krouter.learner import trigger_writes
from krouter.learner.report import LEARNED, SKIPPED
from krouter.vault.files import MAX_PAGE_BYTES
from krouter.vault.page import parse_page


def _write(root: Path, rel: str, question: str, run_id: str) -> tuple[str, str]:
    page = trigger_writes.read_for_edit(root, rel)
    return trigger_writes.write_trigger(root, page, question, run_id, dry_run=False, record={})


def test_a_trigger_that_would_take_a_page_over_the_read_limit_is_not_written(tmp_path: Path) -> None:
    """A cold review: the write happened, then the page could neither be read nor undone."""
    page = tmp_path / "big.md"
    head = b"---\ntitle: big\n---\n"
    data = head + b"x" * (MAX_PAGE_BYTES - len(head) - 1) + b"\n"
    page.write_bytes(data)
    status, reason = _write(tmp_path, "big.md", "how big is the big page", "R1")
    assert status == SKIPPED
    assert "8 MiB" in reason
    assert page.read_bytes() == data
    assert learn_journal.journal_entries() == []
    # A page with room to spare is still written.
    page.write_bytes(head + b"small\n")
    assert _write(tmp_path, "big.md", "how big is the big page", "R2") == (LEARNED, "")


def _race_writer(root: str, k: int, trials: int, barrier: Barrier, results: Queue) -> None:
    """One of two writers: each trial, read the page, wait for the other, then write a trigger."""
    for i in range(trials):
        barrier.wait(TIMEOUT)  # the page is reset
        page = trigger_writes.read_for_edit(Path(root), "p.md")
        barrier.wait(TIMEOUT)  # both have read it
        status, _ = trigger_writes.write_trigger(
            Path(root), page, f"question {k} of trial {i}", f"R{i}-{k}", dry_run=False, record={}
        )
        results.put((i, status))
        barrier.wait(TIMEOUT)  # both have written


def test_two_writers_on_one_page_never_lose_a_write(tmp_path: Path) -> None:
    """A cold review: two processes that read the page, then both wrote, were both told "learned" while
    one trigger was lost (176 of 300 trials). The compare and the rename are one critical section."""
    trials = 200
    page = tmp_path / "p.md"
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(3), ctx.Queue()
    writers = [
        ctx.Process(target=_race_writer, args=(str(tmp_path), k, trials, barrier, results)) for k in (1, 2)
    ]
    for w in writers:
        w.start()
    lost: list[tuple[int, list[str], list[str]]] = []
    try:
        for i in range(trials):
            page.write_bytes(b"---\ntitle: p\n---\nbody\n")
            barrier.wait(TIMEOUT)
            barrier.wait(TIMEOUT)
            barrier.wait(TIMEOUT)
            statuses = [s for _ in range(2) for t, s in [results.get(timeout=TIMEOUT)] if t == i]
            triggers = parse_page("p.md", page.read_text(encoding="utf-8")).triggers
            assert statuses.count(LEARNED) >= 1
            if len(triggers) != statuses.count(LEARNED):
                lost.append((i, statuses, triggers))
    finally:
        for w in writers:
            w.join(timeout=TIMEOUT)
    assert lost == []


def test_a_page_saved_while_it_was_written_leaves_no_trigger_taught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold review: the journal line was written before the last check, and stayed when the check
    failed, so ``learn --list`` showed a trigger as taught that was never written."""
    page = tmp_path / "p.md"
    page.write_bytes(b"---\ntitle: p\n---\nbody\n")
    read = trigger_writes.read_for_edit(tmp_path, "p.md")
    saved = b"---\ntitle: p\n---\nbody, saved by the editor\n"
    real_fsync = os.fsync

    def editor_saves(fd: int) -> None:
        # The temp file's fsync: after the first check, before the journal and the last check.
        real_fsync(fd)
        if page.read_bytes() != saved:
            page.write_bytes(saved)

    with monkeypatch.context() as m:
        m.setattr(atomic.os, "fsync", editor_saves)
        status, reason = trigger_writes.write_trigger(
            tmp_path, read, "what does the page say", "R1", dry_run=False, record={}
        )
    assert (status, page.read_bytes()) == (SKIPPED, saved)
    assert "changed" in reason
    listed = CliRunner().invoke(app, ["learn", "--list", "--json"])
    assert json.loads(listed.output) == []
    res = CliRunner().invoke(app, ["learn", "--undo", "R1"])
    assert res.exit_code == 0, res.output
    assert "never written" in res.output
    assert page.read_bytes() == saved


def test_a_read_only_page_is_never_written(tmp_path: Path) -> None:
    """A cold review: teach rewrote a page the owner made read-only (the rename ignores the bit)."""
    page = tmp_path / "p.md"
    data = b"---\ntitle: p\n---\nbody\n"
    page.write_bytes(data)
    page.chmod(0o444)
    status, reason = _write(tmp_path, "p.md", "what does the page say", "R1")
    assert status == SKIPPED
    assert "read-only" in reason
    assert page.read_bytes() == data
    assert page.stat().st_mode & 0o777 == 0o444
    assert learn_journal.journal_entries() == []


def test_a_page_with_other_hard_links_is_replaced_and_its_other_names_keep_the_old_bytes(
    tmp_path: Path,
) -> None:
    """A snapshot backup (rsnapshot, cp -al) hard-links every page: the write replaces the page by a
    rename, and the snapshot keeps what it held. A cold review found teach and undo refusing every page
    of such a vault after a first version refused hard-linked pages."""
    page = tmp_path / "vault" / "p.md"
    page.parent.mkdir()
    data = b"---\ntitle: p\n---\nThe parking garage code is 4411.\n"
    page.write_bytes(data)
    snapshot = tmp_path / "snapshot.md"
    os.link(page, snapshot)
    status, reason = _write(page.parent, "p.md", "visitor garage pin", "R1")
    assert (status, reason) == (LEARNED, "")
    assert parse_page("p.md", page.read_text(encoding="utf-8")).triggers == ["visitor garage pin"]
    assert snapshot.read_bytes() == data and not os.path.samefile(page, snapshot)


@pytest.mark.parametrize("killed", [False, True], ids=["interrupted", "killed"])
def test_a_write_cut_short_at_the_rename_is_never_taken_for_a_later_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, killed: bool
) -> None:
    """A cold review: a teach cut short between its journal entry and the rename left the entry unmarked;
    once another run wrote the same trigger, the journal took the dead run for its writer, and undoing
    the dead run took the other run's trigger off (and recorded the owner as refusing the question)."""
    page = tmp_path / "p.md"
    before = b"---\ntitle: p\n---\nbody\n"
    page.write_bytes(before)
    real_replace = os.replace

    def dies_at_the_rename(src: str, dst: str) -> None:
        if str(dst).endswith(".md"):
            raise KeyboardInterrupt
        real_replace(src, dst)

    with monkeypatch.context() as m:
        m.setattr(atomic.os, "replace", dies_at_the_rename)
        if killed:
            # A process killed outright marks nothing: the entry is left for the page to settle.
            m.setattr(trigger_writes, "mark", lambda *a, **k: None)
        with pytest.raises(KeyboardInterrupt):
            _write(tmp_path, "p.md", "what does the page say", "R1")
    assert page.read_bytes() == before
    assert _write(tmp_path, "p.md", "what does the page say", "R2") == (LEARNED, "")
    taught = page.read_bytes()
    listed = CliRunner().invoke(app, ["learn", "--list", "--json"])
    assert [item["run_id"] for item in json.loads(listed.output)] == ["R2"]
    res = CliRunner().invoke(app, ["learn", "--undo", "R1"])
    assert "never written" in res.output
    assert page.read_bytes() == taught
