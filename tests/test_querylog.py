"""The private query log: what a lookup writes, file modes, the off switches, rotation, corrupt lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from krouter.routing import querylog
from krouter.routing.router import Router


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "Database.md").write_text(
        "# Database\n\nWe use PostgreSQL 16 as the main store.\n", encoding="utf-8"
    )
    return root


@pytest.fixture(autouse=True)
def log_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KROUTER_NO_QUERY_LOG", raising=False)


def test_lookup_appends_one_private_line(vault: Path) -> None:
    with Router(vault) as router:
        router.ask("which database do we use")
        router.decide("not logged: decide is the learner's lookup")
    path = querylog.log_path()
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1
    entry = json.loads(lines[0])
    assert entry["question"] == "which database do we use"
    assert entry["vault_id"] == querylog.vault_id(vault.resolve())
    assert entry["decision"] in ("cite", "refuse")
    assert entry["candidates"] and {"path", "score"} <= set(entry["candidates"][0])
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize("value", ["1", "true", "yes"])
def test_env_switch_turns_it_off(vault: Path, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("KROUTER_NO_QUERY_LOG", value)
    with Router(vault) as router:
        router.ask("which database do we use")
    assert not querylog.log_path().exists()


def test_config_switch_turns_it_off(vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from krouter import config

    config.config_path().parent.mkdir(parents=True, exist_ok=True)
    config.config_path().write_text("query_log = false\n", encoding="utf-8")
    with Router(vault) as router:
        router.ask("which database do we use")
    assert not querylog.log_path().exists()


def test_rotation_bounds_the_log(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(querylog, "MAX_BYTES", 200)
    with Router(vault) as router:
        for i in range(12):
            router.ask(f"which database do we use, take {i}")
    path = querylog.log_path()
    rotated = sorted(p.name for p in path.parent.glob("queries.jsonl.*"))
    assert rotated == ["queries.jsonl.1", "queries.jsonl.2", "queries.jsonl.3"]
    assert path.stat().st_size < 200 + 1000


def test_corrupt_lines_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_bytes(b'{"question": "a"}\nnot json\n\xff\xfe\n[1, 2]\n{"question": "b"}\n')
    assert [item["question"] for _off, item in querylog.read(path)] == ["a", "b"]
    offsets = [off for off, _ in querylog.read(path)]
    # Reading on from an offset gives the rest.
    assert [item["question"] for _o, item in querylog.read(path, offsets[0])] == ["b"]


def test_unwritable_log_never_fails_a_lookup(
    vault: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("KROUTER_STATE_DIR", str(blocker / "state"))
    with Router(vault) as router:
        receipt = router.ask("which database do we use")
    assert receipt.decision in ("cite", "refuse")


def test_a_line_cut_short_does_not_swallow_the_next_question(vault: Path) -> None:
    """The learner reads refused questions from this log: one glued onto a torn line was lost."""
    path = querylog.log_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b'{"question": "half a li')
    with Router(vault) as router:
        router.ask("which database do we use")
    assert [e["question"] for _, e in querylog.read(path)] == ["which database do we use"]
