"""The index survives being deleted, corrupted, and shared by many processes while pages change."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from krouter import Router
from krouter.index.schema import index_path
from krouter.index.store import Index

PAGES = {
    "Ops/Pager.md": "# Pager\n\nThe pager rotation is weekly.\n",
    "Ops/Backups.md": "# Backups\n\nNightly database dumps go to object storage.\n",
    "Notes/Cooking.md": "# Cooking\n\nBake bread at high heat with steam.\n",
    "决策/消息队列.md": "# 消息队列\n\n我们使用Kafka作为消息队列。\n",
}


def make_vault(root: Path, n_extra: int = 0, cjk: bool = True) -> Path:
    for rel, text in PAGES.items():
        if not cjk and not rel.isascii():
            continue
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    for i in range(n_extra):
        (root / "Gen").mkdir(exist_ok=True)
        (root / "Gen" / f"Page {i}.md").write_text(f"# Page {i}\n\nItem w{i} costs {i} coins.\n")
    return root


def snapshot(index: Index) -> dict[str, tuple[str, frozenset[str]]]:
    """Every page's title and term set, by path."""
    return {row[1]: (row[2], frozenset(index.page_terms(row[0]))) for row in index.page_table()}


def test_deleted_index_is_rebuilt(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "v")
    with Router(vault) as router:
        assert router.ask("pager rotation").top.path == "Ops/Pager.md"
        path = router.index.path
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    with Router(vault) as router:
        receipt = router.ask("pager rotation")
        assert receipt.decision == "cite" and receipt.top.path == "Ops/Pager.md"
        assert router.last_refresh.tokenized == len(PAGES)
    assert path.is_file()


def test_corrupt_index_is_rebuilt(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "v")
    path = index_path(vault.resolve())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(os.urandom(8192))
    with Router(vault) as router:
        receipt = router.ask("pager rotation")
        assert receipt.decision == "cite" and receipt.top.path == "Ops/Pager.md"
    # And a garbage file over an index that existed before.
    path.write_bytes(b"SQLite format 3\x00" + os.urandom(8192))
    Path(f"{path}-wal").unlink(missing_ok=True)
    with Router(vault) as router:
        assert router.ask("nightly database dumps").top.path == "Ops/Backups.md"


WORKER = """
import json, sys
from krouter import route
vault = sys.argv[1]
for i in range(2):
    for q in ("pager rotation", "nightly database dumps", "giraffe vaccination"):
        r = route(q, vault)
        print(json.dumps({"decision": r.decision, "top": r.top.path if r.top else None}), flush=True)
"""


def test_many_processes_ask_while_pages_change(tmp_path: Path) -> None:
    # No Han text: jieba's start-up in every process is not what is tested here.
    vault = make_vault(tmp_path / "v", n_extra=100, cjk=False)
    # No index yet: the askers also race to create it.
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(vault)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=os.environ.copy(),
        )
        for _ in range(8)
    ]
    edited = vault / "Ops" / "Pager.md"
    last = ""
    for i in range(30):
        # Each version is longer than the last, so (mtime, size) always changes.
        last = f"# Pager\n\nThe pager rotation is weekly.{' edit' * i} marker{i}\n"
        edited.write_text(last, encoding="utf-8")
        (vault / "Gen" / f"Added {i}.md").write_text(f"# Added {i}\n\nExtra page number {i}.\n")
        if i % 5 == 4:
            (vault / "Gen" / f"Added {i - 1}.md").unlink()
        time.sleep(0.05)
    for proc in workers:
        out, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err
        lines = [json.loads(line) for line in out.splitlines()]
        assert len(lines) == 6
        for line in lines:
            assert line["decision"] in ("cite", "refuse")
            if line["decision"] == "cite":
                assert line["top"] in {"Ops/Pager.md", "Ops/Backups.md"}
    assert edited.read_text(encoding="utf-8") == last
    with Router(vault) as router:
        receipt = router.ask("marker29")
        assert receipt.decision == "cite" and receipt.top.path == "Ops/Pager.md"
        live = snapshot(router.index)
    fresh = Index(vault, path=tmp_path / "fresh.sqlite3")
    try:
        fresh.refresh()
        assert snapshot(fresh) == live
    finally:
        fresh.close()


def test_index_from_an_older_schema_is_rebuilt(tmp_path: Path) -> None:
    """An index written by an older KRouter (other columns) is dropped and rebuilt, not fatal."""
    vault = make_vault(tmp_path / "vault", cjk=False)
    with Router(vault) as router:
        assert router.decide("pager rotation").decision == "cite"
    con = sqlite3.connect(index_path(vault.resolve()))
    con.execute("UPDATE meta SET value = '0' WHERE key = 'schema'")
    con.execute("ALTER TABLE pages DROP COLUMN trigger_terms")
    con.commit()
    con.close()
    (vault / "Ops" / "Oncall.md").write_text("# Escalation\n\nEscalate to the duty manager.\n")
    with Router(vault) as router:
        receipt = router.decide("duty manager escalation")
    assert receipt.decision == "cite" and receipt.top is not None
    assert receipt.top.path == "Ops/Oncall.md"
