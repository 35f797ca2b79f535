"""``krouter learn --undo RUN_ID``: every page a run changed back to its bytes from before the run, or,
edited since, without the run's trigger; and refusing what is not a run id."""

from __future__ import annotations

from pathlib import Path

import pytest
from learn_vault import snapshot
from typer.testing import CliRunner

from krouter.cli import app
from krouter.learner import journal


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
