"""Pages read and tokenised by worker processes: a cold build, a large refresh and a rebuild must write
exactly what the same work done in this process writes, and a build killed mid-way (workers and all)
must go on from its committed chunks without losing or doubling a page.

The limits that keep workers to large jobs are lowered so a small vault takes the worker path. The
worker side runs in a fresh process (`run_in_child`): workers are only forked from a process with no
other thread, and a test may leave one running in this one.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from krouter.errors import ConfigError
from krouter.index import prepare as index_prepare
from krouter.index import refresh as index_refresh
from krouter.index import workers as index_workers
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


WORKER_SIDE = """
import json, os, sys
from pathlib import Path
from krouter.index import merge, prepare, refresh, workers
from krouter.index.store import Index

vault, path, steps = json.loads(sys.argv[1])
refresh.BUILD_CHUNK = 3
prepare.PARALLEL_MIN = 10
prepare.BATCH = 4
pools = []
real_workers = workers.Workers.__init__

def counting(self, *args, **kwargs):
    pools.append(1)
    real_workers(self, *args, **kwargs)

workers.Workers.__init__ = counting
helpers = []
real_helper = merge.Helper.__init__

def counting_helpers(self, *args, **kwargs):
    helpers.append(1)
    real_helper(self, *args, **kwargs)

merge.Helper.__init__ = counting_helpers
parent = os.getpid()
real_write_part = merge.write_part

def helper_dies(*args):
    os._exit(1)

def killed_after_the_helper(part):
    os.kill(os.getpid(), 9)
    yield from ()
real_batch = prepare.prepare_batch

def dies_in_a_worker(root, files, invert):
    if os.getpid() != parent and any("Topic 1" in fs.path for fs, _hash in files):
        os._exit(1)  # a worker killed by the OOM killer, say
    return real_batch(root, files, invert)

marks = Path(vault).parent / "marks"

def held_until_three_others_are_done(root, files, invert):
    # The first batch a worker starts waits (a minute at most) until three batches are done by the
    # other worker, and says which came first.
    import time
    if os.getpid() == parent:
        return real_batch(root, files, invert)
    marks.mkdir(exist_ok=True)
    try:
        os.close(os.open(marks / "held", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        batch = real_batch(root, files, invert)
        (marks / f"done-{os.getpid()}-{time.monotonic_ns()}").touch()
        return batch
    deadline = time.monotonic() + 60
    while len(list(marks.glob("done-*"))) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    (marks / ("released" if len(list(marks.glob("done-*"))) >= 3 else "timed out")).touch()
    return real_batch(root, files, invert)

def hangs_in_a_worker(root, files, invert):
    # A page that sends a worker's tokeniser into a loop, say: the worker never answers.
    import time
    if os.getpid() != parent:
        for fs, _hash in files:
            if "Topic 15" in fs.path:
                marks.mkdir(exist_ok=True)
                (marks / "hung").write_text(json.dumps(fs.path))
                while True:
                    time.sleep(60)
    return real_batch(root, files, invert)

def hangs_before_its_first_page(root, files, invert):
    # Stuck before reading a page of the batch (the batch is looked at by index, not read in order).
    import time
    paths = [files[k][0].path for k in range(len(files))]
    if os.getpid() != parent and any("Topic 15" in path for path in paths):
        marks.mkdir(exist_ok=True)
        (marks / "hung").write_text(json.dumps([paths[0], paths[-1]]))
        while True:
            time.sleep(60)
    return real_batch(root, files, invert)

def stops_in_a_worker(root, files, invert):
    # A worker stopped by a signal (a debugger, a freezer): it ignores SIGTERM until continued.
    import signal
    if os.getpid() != parent and any("Topic 15" in fs.path for fs, _hash in files):
        os.kill(os.getpid(), signal.SIGSTOP)
    return real_batch(root, files, invert)

def kill_at_20(done, _total):
    if done == 20:
        os.kill(os.getpid(), 9)

index = Index(Path(vault), path=Path(path) if path else None)
for step in steps:
    if step == "die in a worker":
        prepare.prepare_batch = dies_in_a_worker
    elif step in ("hang in a worker", "hang before its first page", "stop in a worker"):
        prepare.prepare_batch = {
            "hang in a worker": hangs_in_a_worker,
            "hang before its first page": hangs_before_its_first_page,
            "stop in a worker": stops_in_a_worker,
        }[step]
        # jieba loaded before the fork: the other batches take milliseconds, far under the limit.
        from krouter.tokens.chinese import _load_jieba
        _load_jieba()
        workers.ANSWER_TIMEOUT_S = 2.0
    elif step == "hold a worker's first batch":
        prepare.prepare_batch = held_until_three_others_are_done
    elif step == "die in the merge helper":
        merge.write_part = helper_dies
    elif step == "kill the build once the merge helper is done":
        merge.read_part = killed_after_the_helper
    elif step == "rebuild":
        index.rebuild()
    else:
        index.refresh(progress=kill_at_20 if step == "refresh, killed at page 20" else None)
index.close()
print(json.dumps({"pools": len(pools), "helpers": len(helpers)}))
"""


def run_in_child(vault: Path, path: Path | None, *steps: str, workers: str = "2") -> int:
    """Run ``steps`` on the index in a fresh process with small limits; how many worker pools ran."""
    return run_counts(vault, path, *steps, workers=workers)["pools"]


def run_counts(vault: Path, path: Path | None, *steps: str, workers: str = "2") -> dict[str, int]:
    """Run ``steps`` on the index in a fresh process with small limits; how many worker pools and
    merge helpers were started (``pools`` -1 when the process was killed)."""
    env = {**os.environ, index_prepare.WORKERS_ENV: workers}
    args = json.dumps([str(vault), str(path) if path else "", steps])
    done = subprocess.run(
        [sys.executable, "-c", WORKER_SIDE, args], env=env, capture_output=True, text=True, timeout=300
    )
    if done.returncode == -signal.SIGKILL:
        return {"pools": -1, "helpers": -1}
    assert done.returncode == 0, done.stderr
    return {k: int(v) for k, v in json.loads(done.stdout.splitlines()[-1]).items()}


def opened(vault: Path, path: Path | None = None) -> dict[str, list[tuple[object, ...]]]:
    index = Index(vault, path=path)
    try:
        assert index.conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        return dump(index)
    finally:
        index.close()


@pytest.fixture
def one_transaction(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The vault, and a reference index of it as one in-process transaction writes it (no staging)."""
    vault = make_vault(tmp_path / "vault")
    monkeypatch.setattr(index_refresh, "BUILD_CHUNK", 10_000)
    monkeypatch.setenv(index_prepare.WORKERS_ENV, "0")
    index = Index(vault, path=tmp_path / "reference.sqlite3")
    index.refresh()
    index.close()
    return vault


def test_a_build_by_workers_writes_what_one_process_writes(tmp_path: Path, one_transaction: Path) -> None:
    vault = one_transaction
    reference = opened(vault, tmp_path / "reference.sqlite3")
    assert run_in_child(vault, tmp_path / "workers.sqlite3", "refresh") == 1
    assert run_in_child(vault, tmp_path / "here.sqlite3", "refresh", workers="0") == 0
    assert (
        opened(vault, tmp_path / "workers.sqlite3") == opened(vault, tmp_path / "here.sqlite3") == reference
    )
    assert len(reference["pages"]) == 43 and ("Latin1.md", "encoding") in [
        p[:2] for p in reference["problems"]
    ]


def test_a_large_refresh_and_a_rebuild_by_workers_write_what_one_process_writes(tmp_path: Path) -> None:
    results = []
    for workers in ("2", "0"):
        vault = make_vault(tmp_path / f"vault{workers}")
        path = tmp_path / f"{workers}.sqlite3"
        run_in_child(vault, path, "refresh", workers=workers)
        # 15 pages edited (one now undecodable), one gone, one new: a refresh past PARALLEL_MIN.
        for i in range(15):
            write(
                vault / f"Notes/{i // 10}/Topic {i:02d}.md",
                f"# Topic {i}\n\nNow about osprey{i}.\n",
                2 * 10**9,
            )
        write(vault / "Notes/0/Topic 03.md", b"\xff\xfe not text", 2 * 10**9)
        (vault / "Notes/3/Topic 39.md").unlink()
        write(vault / "Decisions/Newer db.md", "---\nsupersedes: [[New db]]\n---\nCockroach.\n", 2 * 10**9)
        assert run_in_child(vault, path, "refresh", workers=workers) == (1 if workers == "2" else 0)
        refreshed = opened(vault, path)
        assert run_in_child(vault, path, "rebuild", workers=workers) == (1 if workers == "2" else 0)
        results.append((refreshed, opened(vault, path)))
    assert results[0] == results[1]
    postings = {(term, pid) for term, pid, *_tfs in results[0][0]["postings"]}
    paths = dict((pid, path) for pid, path, *_rest in results[0][0]["pages"])
    assert ("osprey7", next(pid for pid, p in paths.items() if p == "Notes/0/Topic 07.md")) in postings
    assert not any(term == "widget7" for term, _pid in postings)


def test_a_build_killed_mid_way_goes_on_and_loses_or_doubles_no_page(
    tmp_path: Path, one_transaction: Path
) -> None:
    vault = one_transaction
    reference = opened(vault, tmp_path / "reference.sqlite3")
    assert run_in_child(vault, None, "refresh, killed at page 20") == -1
    index = Index(vault)
    staging = Path(f"{index.path}.build")
    try:
        assert staging.exists()
        index.conn.execute("ATTACH DATABASE ? AS s", (str(staging),))
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
        index.close()


def test_a_worker_that_dies_has_its_batches_done_by_the_build(tmp_path: Path, one_transaction: Path) -> None:
    vault = one_transaction
    assert run_in_child(vault, None, "die in a worker", "refresh") == 1
    assert opened(vault) == opened(vault, tmp_path / "reference.sqlite3")


def test_a_worker_held_up_by_a_batch_does_not_hold_up_the_batches_after_it(
    tmp_path: Path, one_transaction: Path
) -> None:
    """Batches go to whichever worker is free: while one worker is stuck on its first batch, the other
    does three (taken in turn, the stuck worker's next batch waited behind it and the other worker
    stopped after two), and the index is still what one process writes."""
    vault = one_transaction
    assert run_in_child(vault, None, "hold a worker's first batch", "refresh") == 1
    marks = {p.name for p in (vault.parent / "marks").iterdir() if not p.name.startswith("done-")}
    assert marks == {"held", "released"}
    assert opened(vault) == opened(vault, tmp_path / "reference.sqlite3")


def stalled_build(vault: Path, step: str) -> str:
    """Run a refresh with two workers and the WORKER_SIDE ``step`` that makes one of them stall; the
    build must fail: returns the last line of its error output (BuildStalled's message)."""
    env = {**os.environ, index_prepare.WORKERS_ENV: "2"}
    args = json.dumps([str(vault), "", [step, "refresh"]])
    done = subprocess.run(
        [sys.executable, "-c", WORKER_SIDE, args], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1, done.stderr
    return done.stderr.strip().splitlines()[-1]


def test_a_worker_that_never_answers_stops_the_build_with_an_error_naming_its_pages(
    tmp_path: Path, one_transaction: Path
) -> None:
    """A stuck worker used to hang the build for ever; now the pool's wait is bounded (two seconds here)
    and the build stops with an error naming the pages the silent worker holds. What was committed
    is kept: the next build, with a worker that answers, completes the index."""
    vault = one_transaction
    message = stalled_build(vault, "hang in a worker")
    assert message.startswith("krouter.errors.BuildStalled: a worker process gave no answer in 2 s")
    page = json.loads((vault.parent / "marks" / "hung").read_text())
    assert f"while preparing the page {page!r} (page " in message and "of 3 in its batch)" in message
    assert "the workers were stopped" in message
    with Router(vault, auto_refresh=False) as reader:
        assert reader.index.page_table() == []  # nothing half-built is served
    assert run_in_child(vault, None, "refresh") == 1
    assert opened(vault) == opened(vault, tmp_path / "reference.sqlite3")


def test_a_worker_stuck_before_its_first_page_is_named_by_its_batch(
    tmp_path: Path, one_transaction: Path
) -> None:
    """The page a worker is on is what the error names (a batch holds up to 250 pages in the folder's
    order); a worker that never reached a page of its batch is named by the batch's first and last."""
    vault = one_transaction
    message = stalled_build(vault, "hang before its first page")
    first, last = json.loads((vault.parent / "marks" / "hung").read_text())
    assert f"while preparing 3 pages from {first!r} to {last!r}" in message, message


def test_a_stopped_worker_stops_the_build_and_is_killed_not_waited_for(
    tmp_path: Path, one_transaction: Path
) -> None:
    """A worker stopped by a signal ignores the SIGTERM the clean-up sent, and the clean-up then waited
    for it with no limit: the build hung in its clean-up instead of in its wait."""
    message = stalled_build(one_transaction, "stop in a worker")
    assert "BuildStalled: a worker process gave no answer in 2 s" in message


def test_time_the_build_spent_stopped_is_not_counted_as_a_workers_silence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-Z on a build, then `fg` ten minutes later: the wait's clock ran on while every process
    was stopped, and the build stopped with BuildStalled, blaming pages of healthy workers."""
    import multiprocessing.connection

    clock = [0.0]
    waits: list[float] = []

    def stopped_during_each_wait(conns: list[object], timeout: float) -> list[object]:
        waits.append(timeout)
        clock[0] += 1000.0  # the whole process group stopped far past the limit, then continued
        return conns if len(waits) == 4 else []

    monkeypatch.setattr(multiprocessing.connection, "wait", stopped_during_each_wait)
    monkeypatch.setattr(index_workers, "monotonic", lambda: clock[0])
    monkeypatch.setattr(index_workers, "ANSWER_TIMEOUT_S", 30.0)
    assert index_workers._answers(["pipe"]) == ["pipe"]

    def silent(conns: list[object], timeout: float) -> list[object]:
        clock[0] += timeout
        return []

    # A worker that really stays silent is still given up on after ANSWER_TIMEOUT_S.
    monkeypatch.setattr(multiprocessing.connection, "wait", silent)
    start = clock[0]
    assert index_workers._answers(["pipe"]) == []
    assert clock[0] - start == 30.0


def test_a_merge_split_with_a_helper_process_writes_what_one_process_writes(
    tmp_path: Path, one_transaction: Path
) -> None:
    vault = one_transaction
    reference = opened(vault, tmp_path / "reference.sqlite3")
    assert run_counts(vault, tmp_path / "split.sqlite3", "refresh") == {"pools": 1, "helpers": 1}
    assert run_counts(vault, tmp_path / "here.sqlite3", "refresh", workers="0") == {"pools": 0, "helpers": 0}
    assert opened(vault, tmp_path / "split.sqlite3") == opened(vault, tmp_path / "here.sqlite3") == reference
    assert not list(tmp_path.glob("*.merge*"))


def test_a_merge_helper_that_dies_has_its_half_joined_by_the_build(
    tmp_path: Path, one_transaction: Path
) -> None:
    vault = one_transaction
    counts = run_counts(vault, tmp_path / "split.sqlite3", "die in the merge helper", "refresh")
    assert counts == {"pools": 1, "helpers": 1}
    assert opened(vault, tmp_path / "split.sqlite3") == opened(vault, tmp_path / "reference.sqlite3")
    assert not list(tmp_path.glob("*.merge*"))


def test_a_build_killed_in_its_merge_serves_nothing_half_merged_and_the_next_build_completes(
    tmp_path: Path, one_transaction: Path
) -> None:
    vault = one_transaction
    path = tmp_path / "split.sqlite3"
    killed = "kill the build once the merge helper is done"
    assert run_counts(vault, path, killed, "refresh")["pools"] == -1
    assert Path(f"{path}.build").exists() and Path(f"{path}.merge").exists()
    with Router(vault, auto_refresh=False, index_path=path) as reader:
        assert reader.index.page_table() == []  # the merge's transaction never committed
    assert run_counts(vault, path, "refresh") == {"pools": 0, "helpers": 1}  # every chunk was staged
    assert opened(vault, path) == opened(vault, tmp_path / "reference.sqlite3")
    assert not list(tmp_path.glob("*.merge*")) and not Path(f"{path}.build").exists()


def test_a_worker_count_that_is_not_a_number_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(index_prepare.WORKERS_ENV, "many")
    with pytest.raises(ConfigError, match="KROUTER_BUILD_WORKERS='many'"):
        index_prepare.worker_count(10_000)
