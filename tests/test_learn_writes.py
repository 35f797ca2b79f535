"""The learner's one write path (``trigger_writes.write_trigger``): what it refuses to write, how it
journals, and how two writers on one page are kept from losing a write."""

from __future__ import annotations

from pathlib import Path

from krouter.learner import trigger_writes
from krouter.learner.report import LEARNED, SKIPPED
from krouter.vault.files import MAX_PAGE_BYTES


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
    assert trigger_writes.journal_entries() == []
    # A page with room to spare is still written.
    page.write_bytes(head + b"small\n")
    assert _write(tmp_path, "big.md", "how big is the big page", "R2") == (LEARNED, "")
