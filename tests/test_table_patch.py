"""The page tables a lookup needs, patched after a refresh from the pages it changed, are the tables a
full load makes: same pages in the same order, same replacement graph, same length terms."""

from __future__ import annotations

import os
import random
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from krouter import Router, config
from krouter.index import refresh as index_refresh
from krouter.index.store import Index
from krouter.routing.tables import Tables, load_tables


def write(root: Path, rel: str, text: str | bytes) -> None:
    """Write a page and move its mtime a second on, so a rewrite within a clock tick is seen."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    before = path.stat().st_mtime_ns if path.exists() else 0
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    mtime = max(path.stat().st_mtime_ns, before + 1_000_000_000)
    os.utime(path, ns=(mtime, mtime))


def snapshot(t: Tables) -> dict[str, Any]:
    """Every field of the tables, dicts as item lists (key order included: a full load's is id order)."""
    return {
        "generation": t.generation,
        "pages": list(t.pages.items()),
        "by_path": sorted(t.by_path.items()),
        "n_pages": t.n_pages,
        "avg_body": t.avg_body,
        "graph": (t.graph.successor, t.graph.replaced, t.graph.dangling),
        "inputs": t.inputs,
        "length_norm": list(t.length_norm.items()),
        "norm_by_id": t.norm_by_id,
        "redirect": list(t.redirect.items()),
        "predecessors": list(t.predecessors.items()),
        "unread": t.unread,
        "scripts": (t.has_han, t.has_latin, t.has_closed),
        "stored_replaced": t.stored_replaced,
    }


def decision(n: int, status: str = "", by: str = "", supersedes: str = "") -> str:
    head = [f"title: Decision {n}"]
    if status:
        head.append(f"status: {status}")
    if by:
        head.append(f"superseded_by: '[[{by}]]'")
    if supersedes:
        head.append(f"supersedes: '[[{supersedes}]]'")
    words = " ".join(
        random.Random(n).choice(["queue", "retry", "数据库", "部署", "timeout", "cache"]) for _ in range(9)
    )
    return "---\n" + "\n".join(head) + f"\n---\n# Decision {n}\n\nWe chose option {n}: {words}.\n"


def test_random_edits_patch_to_what_a_full_load_makes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index_refresh, "RACY_NS", 0)
    rng = random.Random(16)
    vault = tmp_path / "vault"
    for n in range(12):
        write(vault, f"Decisions/D{n}.md", decision(n))
    write(vault, "Inputs/Clip.md", "# Clip\n\nPasted text about the retry queue.\n")
    folders = list(config.input_folders())
    patched_steps = 0
    with closing(Index(vault)) as index:
        index.refresh()
        tables = load_tables(index, folders)
        for step in range(60):
            names = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))
            kind = rng.choice(["edit", "add", "delete", "replace", "unreplace", "clip", "garble", "rename"])
            target = rng.choice(names)
            n = rng.randrange(100)
            if kind == "edit":
                write(
                    vault, target, (vault / target).read_bytes().decode("utf-8", "replace") + f"\nmore {n}\n"
                )
            elif kind == "add":
                write(vault, f"Decisions/New{step}.md", decision(n + 100, by=rng.choice(["", "D1", "Gone"])))
            elif kind == "delete" and len(names) > 3:
                (vault / target).unlink()
            elif kind == "replace":
                other = Path(rng.choice(names)).stem
                write(vault, target, decision(n, status="superseded", by=other))
            elif kind == "unreplace":
                write(vault, target, decision(n))
            elif kind == "clip":
                # Pasted text may not retire a page of the vault (the graph ignores it).
                write(vault, f"Inputs/Clip{step}.md", decision(n, supersedes=Path(target).stem))
            elif kind == "garble":
                write(vault, target, b"\xff\xfe\x00garbled")
            elif kind == "rename":
                (vault / target).rename(vault / f"M{step}.md")
            index.refresh()
            with index.snapshot():
                patched_steps += index.changed_since(tables.generation, tables.token) is not None
                patched = load_tables(index, folders, tables)
                full = load_tables(index, folders)
            assert snapshot(patched) == snapshot(full), (step, kind, target)
            tables = patched
    # Most steps changed one or two pages: patched, not loaded whole (the test would hold vacuously).
    assert patched_steps >= 40


def test_after_an_edit_only_the_changed_rows_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first lookup after an edit re-read every page's row (~26 ms of ~31 at 10k pages)."""
    monkeypatch.setattr(index_refresh, "RACY_NS", 0)
    vault = tmp_path / "vault"
    write(vault, "Decisions/Database.md", "# Database\n\nWe use Postgres for the primary database.\n")
    write(vault, "Ops/Queue.md", "# Queue\n\nJobs go through Redis.\n")
    with Router(vault) as router:
        assert router.ask("which database do we use").top.path == "Decisions/Database.md"
        write(vault, "Ops/Queue.md", "# Queue\n\nJobs go through NATS since March.\n")

        def every_row(self: Index) -> list[object]:
            raise AssertionError("every page's row was read again")

        monkeypatch.setattr(Index, "page_table", every_row)
        receipt = router.ask("what do jobs go through")
        assert receipt.decision == "cite" and receipt.top.path == "Ops/Queue.md"
        assert "NATS" in receipt.top.snippet


def test_tables_two_refreshes_behind_are_loaded_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process refreshed twice: the step named is not the one from these tables."""
    monkeypatch.setattr(index_refresh, "RACY_NS", 0)
    vault = tmp_path / "vault"
    write(vault, "A.md", "# A\n\nAlpha.\n")
    write(vault, "B.md", "# B\n\nBravo.\n")
    folders = list(config.input_folders())
    with closing(Index(vault)) as mine, closing(Index(vault)) as other:
        mine.refresh()
        other.refresh()
        write(vault, "A.md", "# A\n\nAlpha two.\n")
        other.refresh()
        tables = load_tables(mine, folders)
        write(vault, "B.md", "# B\n\nBravo two.\n")
        other.refresh()
        write(vault, "C.md", "---\nstatus: superseded\nsuperseded_by: '[[B]]'\n---\n# C\n\nCharlie.\n")
        other.refresh()
        with mine.snapshot():
            assert mine.changed_since(tables.generation, tables.token) is None
            assert snapshot(load_tables(mine, folders, tables)) == snapshot(load_tables(mine, folders))
        mine.rebuild()
        with mine.snapshot():
            latest = load_tables(mine, folders)
            assert mine.changed_since(latest.generation - 1, latest.token) is None
