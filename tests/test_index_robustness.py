"""The index survives being deleted, corrupted, and shared by many processes while pages change."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from krouter import Router
from krouter.errors import IndexBusy, IndexUnavailable
from krouter.file_lock import held
from krouter.index.refresh import BUILD_CHUNK
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


def _zero_page(path: Path, table: str) -> None:
    """Zero the root page of ``table`` in the index file, its header left intact: a bad sector, a torn
    copy by a sync tool."""
    conn = sqlite3.connect(path)
    try:
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    with open(path, "r+b") as fh:
        fh.seek((root - 1) * size)
        fh.write(bytes(size))


def test_an_index_damaged_past_its_header_is_built_again(tmp_path: Path) -> None:
    """A cold review: a zeroed page of the pages table made every command (rebuild included) end in
    "database disk image is malformed"; the only way out was deleting the file by hand."""
    vault = make_vault(tmp_path / "v")
    with Router(vault) as router:
        assert router.ask("pager rotation").top.path == "Ops/Pager.md"
        path = router.index.path
    _zero_page(path, "pages")
    with Router(vault) as router:
        receipt = router.ask("pager rotation")
    assert receipt.decision == "cite" and receipt.top.path == "Ops/Pager.md"
    _zero_page(path, "pages")
    index = Index(vault.resolve())
    try:
        index.rebuild()
        assert {row[1] for row in index.page_table()} == set(PAGES)
    finally:
        index.close()


def test_an_index_that_cannot_be_opened_for_another_reason_is_kept(tmp_path: Path) -> None:
    """A cold review: any error but "locked" or "busy" deleted the index, a full disk's "disk I/O error"
    and a -wal that could not be opened included: an intact index then had to be built again."""
    vault = make_vault(tmp_path / "v")
    with Router(vault) as router:
        router.refresh()
        path = router.index.path
    before = path.read_bytes()
    wal = Path(f"{path}-wal")
    wal.unlink(missing_ok=True)
    wal.mkdir()
    try:
        with pytest.raises(IndexUnavailable, match="cannot open the index"):
            Index(vault.resolve())
        assert path.read_bytes() == before
    finally:
        wal.rmdir()
    with Router(vault) as router:
        assert router.ask("pager rotation").top.path == "Ops/Pager.md"


def test_a_second_process_opening_an_index_during_its_first_build_is_told_so(tmp_path: Path) -> None:
    """A cold review: an ask, a second `krouter index` or a watcher starting while a first build ran
    staged the same pages into the build file and ended in "UNIQUE constraint failed: pages.path"."""
    vault = make_vault(tmp_path / "v", n_extra=BUILD_CHUNK + 10, cjk=False)
    path = index_path(vault.resolve())
    path.parent.mkdir(parents=True, exist_ok=True)
    # Another process's build holds the lock.
    with (
        held(Path(f"{path}.lock")),
        Router(vault, auto_refresh=False) as router,
        pytest.raises(IndexBusy, match="being built by another process"),
    ):
        router.refresh()
    with Router(vault) as router:
        assert router.ask("pager rotation").top.path == "Ops/Pager.md"
        assert router.index.meta()["n_pages"] == str(len(PAGES) - 1 + BUILD_CHUNK + 10)


def test_a_watcher_reported_edit_of_an_ignored_page_does_not_index_it(tmp_path: Path) -> None:
    """A cold review: a refresh of just the pages a watcher saw change (the MCP server's) did not apply
    the ignore rules, so editing a page .krouterignore leaves out indexed it, and it was cited."""
    vault = make_vault(tmp_path / "v")
    (vault / "Private").mkdir()
    secret = vault / "Private" / "salary.md"
    secret.write_text("# Salary\n\nThe frobnicator salary is 99999.\n", encoding="utf-8")
    (vault / ".krouterignore").write_text("Private/\n", encoding="utf-8")
    index = Index(vault.resolve())
    try:
        index.refresh()
        secret.write_text("# Salary\n\nThe frobnicator salary is 123456.\n", encoding="utf-8")
        index.refresh(paths=["Private/salary.md"])
        assert "Private/salary.md" not in {row[1] for row in index.page_table()}
    finally:
        index.close()


def test_a_refresh_that_runs_out_of_room_says_so_and_keeps_the_index(tmp_path: Path) -> None:
    """A cold review: on a full cache disk SQLite rolled the write back itself, and the refresh's own
    ROLLBACK then raised "cannot rollback - no transaction is active", a traceback hiding the cause."""
    vault = make_vault(tmp_path / "v")
    index = Index(vault.resolve())
    try:
        index.refresh()
        before = {row[1] for row in index.page_table()}
        pages = index.conn.execute("PRAGMA page_count").fetchone()[0]
        index.conn.execute(f"PRAGMA max_page_count = {pages}")  # as a full disk refuses more pages
        for i in range(300):
            (vault / f"New {i}.md").write_text(" ".join(f"w{i}x{j}" for j in range(200)), encoding="utf-8")
        with pytest.raises(IndexUnavailable, match="database or disk is full"):
            index.refresh()
        assert {row[1] for row in index.page_table()} == before
    finally:
        index.close()


@pytest.mark.parametrize("which", ["SCHEMA_VERSION", "TOKENIZER_VERSION"])
def test_two_krouter_versions_on_one_vault_never_share_an_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, which: str
) -> None:
    """A cold review: an older KRouter (an agent's MCP server started before an upgrade) opening the same
    index file dropped every table, and a watcher's lease, seeing no file change, told every lookup the
    emptied index was fresh: "the vault has no pages to answer from" for up to five minutes."""
    from krouter.index import store, version
    from krouter.tokens import version as tokens_version

    vault = make_vault(tmp_path / "vault")
    with Router(vault) as router:
        router.refresh()
        pages = len(router.index.page_table())
    current = index_path(vault)
    owner = tokens_version if which == "TOKENIZER_VERSION" else version
    with monkeypatch.context() as older:
        older.setattr(owner, which, "1")
        older.setattr(store, which, "1")
        if which == "TOKENIZER_VERSION":
            older.setattr(version, which, "1")
        other = Index(vault)
        assert other.path != current and other.path.parent == current.parent
        other.close()
    reopened = Index(vault)
    assert reopened.path == current
    assert len(reopened.page_table()) == pages  # as the current version left it, not emptied
    reopened.close()


def test_an_index_that_cannot_be_made_on_a_full_disk_says_the_disk_is_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold review: with the cache disk full, "disk I/O error; set KROUTER_CACHE_DIR to a folder you can
    write" sent people to fix permissions that were fine."""
    import shutil
    from collections import namedtuple

    from krouter import config

    vault = make_vault(tmp_path / "vault")
    (config.cache_dir() / "indexes").parent.mkdir(parents=True, exist_ok=True)
    (config.cache_dir() / "indexes").write_text("in the way", encoding="utf-8")
    usage = namedtuple("usage", "total used free")
    with monkeypatch.context() as full, pytest.raises(IndexUnavailable, match="is full: free some room"):
        full.setattr(shutil, "disk_usage", lambda path: usage(10**9, 10**9, 0))
        Index(vault)
    with pytest.raises(IndexUnavailable, match="a folder you can write"):
        Index(vault)


def test_indexes_other_versions_left_unused_for_weeks_are_deleted(tmp_path: Path) -> None:
    """An upgrade builds its index beside the old version's (one file per version): left there, a
    gigabyte at 100k pages stayed in the cache for good. One unused for two weeks goes; a recent one
    (a process of that version may still use it) and the shared page vectors stay."""
    vault = make_vault(tmp_path / "vault")
    current = index_path(vault)
    current.parent.mkdir(parents=True, exist_ok=True)
    stem = current.name.split("-v")[0]
    old = time.time() - 30 * 24 * 3600
    unversioned, older, recent = (current.with_name(f"{stem}{v}.sqlite3") for v in ("", "-v8.21", "-v8.20"))
    vectors = current.with_name(f"{stem}.vectors.sqlite3")
    other_vault = current.with_name("othervault-0123456789abcdef.sqlite3")
    for path in (
        unversioned,
        older,
        Path(f"{older}-wal"),
        Path(f"{older}.watch"),
        recent,
        vectors,
        other_vault,
    ):
        path.write_bytes(b"x")
        if path != recent:
            os.utime(path, (old, old))
    Index(vault).close()
    assert not unversioned.exists() and not older.exists()
    assert not Path(f"{older}-wal").exists() and not Path(f"{older}.watch").exists()
    assert recent.exists() and vectors.exists() and other_vault.exists() and current.exists()
