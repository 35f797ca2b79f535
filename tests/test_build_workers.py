"""Pages read and tokenised by worker processes: a cold build, a large refresh and a rebuild must write
exactly what the same work done in this process writes, and a build killed mid-way (workers and all)
must go on from its committed chunks without losing or doubling a page.

The limits that keep workers to large jobs are lowered so a small vault takes the worker path.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from krouter.index import prepare as index_prepare
from krouter.index import refresh as index_refresh
from krouter.index.store import Index
from krouter.routing.router import Router


def write(path: Path, text: str | bytes, mtime_s: int = 10**9) -> None:
    """Write a page, its mtime set apart from the previous version's."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(mtime_s * 10**9, mtime_s * 10**9))


def make_vault(root: Path, n: int = 40) -> Path:
    for i in range(n):
        zh = "数据库迁移的步骤在周三执行，回滚计划见附录。" * (1 + i % 4)
        write(
            root / f"Notes/{i // 10}/Topic {i:02d}.md",
            f"---\ntitle: Topic {i}\ntags: [t{i % 3}]\naliases: [T{i}]\n---\n# Topic {i}\n\n"
            f"Note {i} covers widget{i} and the migration step {i}.\n\n- {zh}\n- shared line\n"
            + ("long paragraph about kestrel rotations. " * 300 if i % 13 == 0 else ""),
        )
    write(root / "Decisions/Old db.md", '---\nstatus: superseded\nsuperseded_by: "[[New db]]"\n---\nMySQL.\n')
    write(
        root / "Decisions/New db.md",
        "---\nsupersedes: [[Old db]]\ntriggers: [which database]\n---\nPostgres.\n",
    )
    write(root / "Broken yaml.md", "---\ntitle: [unclosed\n---\nStill indexed as text.\n")
    write(root / "Latin1.md", "caf\xe9 au lait".encode("latin-1"))
    return root


def dump(index: Index) -> dict[str, list[tuple[object, ...]]]:
    """Every row a lookup reads, ids included (the worker path must give pages the same ids); not the
    stored (mtime, size), which depends on when the file was read (racy files are stored with 0)."""
    c = index.conn
    meta = index.meta()
    return {
        "pages": c.execute(
            "SELECT id, path, hash, title, status, replaced, superseded_by, supersedes, n_body, n_meta, "
            "body_line, yaml_error, passages, trigger_terms, other_terms FROM pages ORDER BY id"
        ).fetchall(),
        "postings": index.all_postings(),
        "problems": c.execute("SELECT path, kind, message FROM problems ORDER BY path").fetchall(),
        "links": c.execute("SELECT src, dst, kind, raw FROM links ORDER BY src, kind, raw").fetchall(),
        "stats": [(meta["n_pages"], meta["avg_body"])],
    }


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of 3 pages, workers from 10 pages on, 2 of them."""
    monkeypatch.setattr(index_refresh, "BUILD_CHUNK", 3)
    monkeypatch.setattr(index_prepare, "PARALLEL_MIN", 10)
    monkeypatch.setattr(index_prepare, "BATCH", 4)
    monkeypatch.setenv(index_prepare.WORKERS_ENV, "2")
    assert threading.active_count() == 1  # else the workers would be skipped and nothing compared


def built(vault: Path, path: Path, workers: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, list]:
    monkeypatch.setenv(index_prepare.WORKERS_ENV, workers)
    index = Index(vault, path=path)
    try:
        index.refresh()
        assert index.conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        return dump(index)
    finally:
        index.close()


def test_a_build_by_workers_writes_what_one_process_writes(
    tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = make_vault(tmp_path / "vault")
    assert index_prepare.worker_count(42) == 2
    by_workers = built(vault, tmp_path / "workers.sqlite3", "2", monkeypatch)
    here = built(vault, tmp_path / "here.sqlite3", "0", monkeypatch)
    monkeypatch.setattr(index_refresh, "BUILD_CHUNK", 10_000)  # one transaction, no staging at all
    one_transaction = built(vault, tmp_path / "one.sqlite3", "0", monkeypatch)
    assert by_workers == here == one_transaction
    assert len(by_workers["pages"]) == 43 and ("Latin1.md", "encoding") in [
        p[:2] for p in by_workers["problems"]
    ]


def test_a_large_refresh_and_a_rebuild_by_workers_write_what_one_process_writes(
    tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    results = []
    for workers in ("2", "0"):
        vault = make_vault(tmp_path / f"vault{workers}")
        index = Index(vault, path=tmp_path / f"{workers}.sqlite3")
        try:
            index.refresh()
            monkeypatch.setenv(index_prepare.WORKERS_ENV, workers)
            # 15 pages edited (one now undecodable), one gone, one new: a refresh past PARALLEL_MIN.
            for i in range(15):
                write(
                    vault / f"Notes/{i // 10}/Topic {i:02d}.md",
                    f"# Topic {i}\n\nNow about osprey{i}.\n",
                    10**9,
                )
            write(vault / "Notes/0/Topic 03.md", b"\xff\xfe not text", 2 * 10**9)
            (vault / "Notes/3/Topic 39.md").unlink()
            write(
                vault / "Decisions/Newer db.md", "---\nsupersedes: [[New db]]\n---\nCockroach.\n", 2 * 10**9
            )
            stats = index.refresh()
            assert (stats.updated, stats.added, stats.deleted) == (15, 1, 1)
            refreshed = dump(index)
            index.rebuild()
            results.append((refreshed, dump(index)))
        finally:
            index.close()
    assert results[0][0] == results[1][0]
    assert results[0][1] == results[1][1]


KILLED_BUILD = """
import os, signal, sys
from pathlib import Path
from krouter.index import prepare, refresh
from krouter.index.store import Index

refresh.BUILD_CHUNK = 3
prepare.PARALLEL_MIN = 10

def kill_at_20(done, _total):
    if done == 20:
        os.kill(os.getpid(), signal.SIGKILL)

Index(Path(sys.argv[1])).refresh(progress=kill_at_20)
"""


def test_a_build_killed_mid_way_goes_on_and_loses_or_doubles_no_page(
    tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = make_vault(tmp_path / "vault")
    monkeypatch.setattr(index_refresh, "BUILD_CHUNK", 10_000)
    reference = built(vault, tmp_path / "reference.sqlite3", "0", monkeypatch)
    monkeypatch.setattr(index_refresh, "BUILD_CHUNK", 3)
    monkeypatch.setenv(index_prepare.WORKERS_ENV, "2")
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_BUILD, str(vault)], env=os.environ.copy(), timeout=120
    )
    assert killed.returncode == -signal.SIGKILL
    index = Index(vault)
    staging = Path(f"{index.path}.build")
    try:
        assert staging.exists()
        staged = index.conn.execute("ATTACH DATABASE ? AS s", (str(staging),))
        (n_staged,) = index.conn.execute("SELECT COUNT(*) FROM s.pages").fetchone()
        index.conn.execute("DETACH DATABASE s")
        assert 15 <= n_staged < 20  # six chunks of 3 committed (one holds the undecodable file)
        with Router(vault, auto_refresh=False) as reader:
            assert reader.index.page_table() == []  # nothing half-built is served
        stats = index.refresh()
        assert stats.tokenized == 43 - n_staged
        assert dump(index) == reference
        assert not staging.exists()
    finally:
        del staged
        index.close()


def test_a_worker_count_that_is_not_a_number_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(index_prepare.WORKERS_ENV, "many")
    with pytest.raises(ValueError, match="KROUTER_BUILD_WORKERS='many'"):
        index_prepare.worker_count(10_000)


def test_a_worker_that_dies_has_its_batches_done_by_the_build(
    tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = make_vault(tmp_path / "vault")
    reference = built(vault, tmp_path / "reference.sqlite3", "0", monkeypatch)
    real = index_prepare.prepare_batch
    parent = os.getpid()

    def dies_in_a_worker(root: Path, files: list, invert: bool) -> object:
        if os.getpid() != parent and any("Topic 1" in fs.path for fs, _hash in files):
            os._exit(1)  # a worker killed by the OOM killer, say
        return real(root, files, invert)

    monkeypatch.setattr(index_prepare, "prepare_batch", dies_in_a_worker)
    assert built(vault, tmp_path / "workers.sqlite3", "2", monkeypatch) == reference
