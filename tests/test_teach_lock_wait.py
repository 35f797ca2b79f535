"""A teacher waits a bounded time for another process's turn: a `krouter teach` or `krouter learn` stopped
with Ctrl-Z while it holds the teaching lock or the learner's write lock must not hang every agent's MCP
server (its other calls wait behind the teaching on the server's one worker)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from learn_vault import CODE_REVIEW, GOOD_QUOTE, MERGE_Q, PAGES, write_vault
from typer.testing import CliRunner

from krouter.cli import app
from krouter.learner import journal, write_lock
from krouter.learner.write_lock import LOCK_NAME, TEACH_LOCK_NAME
from krouter.routing.router import Router

pytestmark = pytest.mark.usefixtures("teaching_writes_at_once")

HOLDER = (
    "import sys\nfrom krouter.file_lock import state_lock\n"
    "with state_lock(sys.argv[1]):\n    print('held', flush=True)\n    sys.stdin.read()\n"
)


@contextmanager
def held_elsewhere(name: str) -> Iterator[None]:
    """The state lock ``name`` held by another process (as by one stopped with Ctrl-Z) for the block."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, name], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "held\n"
        yield
    finally:
        proc.communicate("", timeout=60)


@pytest.mark.parametrize("lock", [TEACH_LOCK_NAME, LOCK_NAME])
def test_teaching_while_another_process_holds_a_lock_says_so_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lock: str
) -> None:
    """A bug hunt: with another process holding the lock, krouter_teach waited for ever, and so did
    every later call to that MCP server, krouter_ask included."""
    vault = write_vault(tmp_path / "vault", PAGES)
    before = (vault / CODE_REVIEW).read_bytes()
    monkeypatch.setattr(write_lock, "LOCK_WAIT_S", 0.2)
    args = ["teach", MERGE_Q, "--page", CODE_REVIEW, "--quote", GOOD_QUOTE, "--vault", str(vault)]
    with held_elsewhere(lock):
        res = CliRunner().invoke(app, args)
    assert res.exit_code == 3, res.output
    assert "another KRouter process" in res.output and "try again" in res.output, res.output
    assert (vault / CODE_REVIEW).read_bytes() == before
    assert [e for e in journal.journal_entries() if not e.get("taken_back")] == []
    # Its turn come, the same teaching is written.
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0 and res.output.startswith("taught"), res.output


def test_the_index_is_built_before_the_teaching_waits_for_its_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold review: the first teaching after an upgrade to a new index version built the index inside
    the teaching lock (74 s at 45k pages), and a second teacher was refused after its bounded wait as if
    the first had been stopped. The index is now built or caught up before the turn is taken: a teacher
    refused for the turn has built it already."""
    vault = write_vault(tmp_path / "vault", PAGES)
    monkeypatch.setattr(write_lock, "LOCK_WAIT_S", 0.2)
    args = ["teach", MERGE_Q, "--page", CODE_REVIEW, "--quote", GOOD_QUOTE, "--vault", str(vault)]
    with held_elsewhere(TEACH_LOCK_NAME):
        res = CliRunner().invoke(app, args)
    assert res.exit_code == 3 and "try again" in res.output, res.output
    with Router(vault, auto_refresh=False) as router:
        assert router.decide(MERGE_Q, lexical_only=True).candidates, "the index was not built"
