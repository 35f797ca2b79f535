"""A running watcher spares other processes the walk: the lease next to the index (krouter.ops.watch_lease).

Real processes throughout: ``krouter watch`` as a subprocess, lease checks from another interpreter
(a process never trusts a lease it holds itself). ``walk`` is wrapped, not replaced, to count walks.
Conditions are polled, never timed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from waiting import wait_for, write

from krouter.index.schema import index_path
from krouter.ops.watch import VaultWatcher
from krouter.ops.watch_lease import WatchLease, lease_path, settings_stamp, watched_clean
from krouter.routing.router import Router

TIMEOUT = 20.0


def clean_seen_elsewhere(index: Path) -> bool:
    """What another process reads from the lease."""
    code = "import sys; from pathlib import Path; from krouter.ops.watch_lease import watched_clean; "
    code += "print(watched_clean(Path(sys.argv[1])))"
    out = subprocess.run([sys.executable, "-c", code, str(index)], capture_output=True, text=True, check=True)
    return out.stdout.strip() == "True"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    write(
        root / "Decisions" / "Primary database.md",
        "# Primary database\n\nWe use PostgreSQL for everything.\n",
    )
    return root


@contextlib.contextmanager
def watching(vault: Path) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    """``krouter watch`` running on ``vault`` with its index clean: (the process, the index path)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "krouter", "watch", "--vault", str(vault), "--debounce", "0.05"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    index = index_path(vault.resolve())
    try:
        wait_for(lambda: watched_clean(index))
        yield proc, index
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=TIMEOUT)


def test_the_lease_says_clean_only_while_held_and_marked(tmp_path: Path) -> None:
    index = tmp_path / "idx.sqlite3"
    assert not clean_seen_elsewhere(index)  # no lease file at all
    lease = WatchLease.acquire(index)
    assert lease is not None
    try:
        assert oct(os.stat(lease_path(index)).st_mode & 0o777) == "0o600"
        assert WatchLease.acquire(index) is None  # one watcher publishes per index
        assert not clean_seen_elsewhere(index)  # held, but dirty until its first refresh
        lease.mark(dirty=False, settings=settings_stamp())
        assert clean_seen_elsewhere(index)
        assert not watched_clean(index)  # never trusted by the process that holds it
    finally:
        lease.release()
    assert not clean_seen_elsewhere(index)  # the file still says so, but nobody holds it


def test_an_event_marks_the_lease_dirty_before_it_is_pending(vault: Path, tmp_path: Path) -> None:
    index = tmp_path / "idx.sqlite3"
    watcher = VaultWatcher(vault, debounce=0.05, index_path=index)
    watcher.start()
    try:
        watcher.take()
        watcher.indexed()
        assert clean_seen_elsewhere(index)
        write(vault / "Queue.md", "# Queue\n\nJobs go through NATS.\n")
        assert watcher.wait(timeout=TIMEOUT, take=False) == {"Queue.md"}
        assert not clean_seen_elsewhere(index)
        # A refresh that took the batch, then an event before it ends: still dirty.
        watcher.take()
        write(vault / "Mail.md", "# Mail\n\nPostmark.\n")
        assert watcher.wait(timeout=TIMEOUT, take=False) == {"Mail.md"}
        watcher.indexed()
        assert not clean_seen_elsewhere(index)
        watcher.take()
        watcher.indexed()
        assert clean_seen_elsewhere(index)
    finally:
        watcher.stop()
    assert not clean_seen_elsewhere(index)


def test_lookups_skip_the_walk_while_krouter_watch_runs(vault: Path, walks: list[str]) -> None:
    with watching(vault) as (proc, index), Router(vault) as router:
        before = len(walks)
        for _ in range(3):
            assert router.decide("which database do we use").cited[0].path == "Decisions/Primary database.md"
        assert len(walks) == before
        # An edit: the lookup walks while the watcher has it pending, or reads what it indexed.
        write(vault / "Decisions" / "Payments.md", "# Payments provider\n\nWe use Stripe for cards.\n")
        wait_for(lambda: router.decide("stripe payments provider").decision == "cite")
        wait_for(lambda: watched_clean(index))
        before = len(walks)
        router.decide("stripe payments provider")
        assert len(walks) == before
        # The watcher dies without a word (a crash): the lock goes with it, lookups walk again.
        proc.send_signal(signal.SIGKILL)
        proc.wait(TIMEOUT)
        assert not watched_clean(index)
        write(vault / "Decisions" / "Queue.md", "# Queue\n\nJobs go through NATS.\n")
        assert router.decide("nats jobs queue").cited[0].path == "Decisions/Queue.md"
        assert len(walks) > before


def test_a_settings_change_is_pending_before_it_is_taken_as_read(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The late commits' review: the watcher took the new config.toml as read before marking the lease
    dirty, and in between its own `fresh` said clean with the change not yet indexed."""
    from krouter import config
    from krouter.ops import vault_watcher

    watcher = VaultWatcher(vault, debounce=0.05, index_path=tmp_path / "idx.sqlite3")
    watcher.start()
    try:
        watcher.take()
        watcher.indexed()
        assert watcher.fresh
        seen: list[bool] = []
        monkeypatch.setattr(vault_watcher.log, "info", lambda *args: seen.append(watcher.fresh))
        config.config_path().parent.mkdir(parents=True, exist_ok=True)
        config.config_path().write_text('ignore = ["Decisions/"]\n', encoding="utf-8")
        watcher.wait(timeout=0.2)
        assert seen and not any(seen)
    finally:
        watcher.stop()


def test_settings_changed_under_a_clean_lease_are_not_trusted(vault: Path) -> None:
    """A cold review: an `ignore` line added to config.toml while `krouter watch` ran left the lease
    clean until the watcher's next look (~0.5 s), and `krouter ask` cited the page just ignored."""
    from krouter import config

    with watching(vault) as (proc, index):
        # Stopped, the watcher cannot look between the write and the check: on a loaded machine the
        # checking interpreter took longer to start than the watcher's half second between looks.
        proc.send_signal(signal.SIGSTOP)
        try:
            config.config_path().parent.mkdir(parents=True, exist_ok=True)
            config.config_path().write_text('ignore = ["Decisions/"]\n', encoding="utf-8")
            assert not clean_seen_elsewhere(index)  # at once: not after the watcher looks
        finally:
            proc.send_signal(signal.SIGCONT)
        wait_for(lambda: clean_seen_elsewhere(index))  # the watcher looked, and indexed the vault again
        with Router(vault) as router:
            assert router.decide("which database do we use").decision == "refuse"


QUEUE_LIMIT = Path("/proc/sys/fs/inotify/max_queued_events")


@pytest.mark.skipif(not QUEUE_LIMIT.exists(), reason="the kernel's event queue limit is inotify's (Linux)")
def test_events_the_kernel_lost_make_the_watcher_walk_the_whole_vault(vault: Path) -> None:
    """A cold review: when the kernel's queue overflowed (an editor rewriting its state file, a git
    checkout) watchdog said events were lost, the watcher ignored it and kept the lease clean, and every
    lookup skipped the walk and missed a page added meanwhile until the rescan minutes later."""
    (vault / ".obsidian").mkdir()
    with watching(vault) as (proc, _index):
        # The watcher is descheduled while more events arrive than the kernel queues for it.
        os.kill(proc.pid, signal.SIGSTOP)
        try:
            churn = vault / ".obsidian" / "workspace.json"
            for i in range(int(QUEUE_LIMIT.read_text()) + 1000):
                churn.write_text(str(i))
            write(vault / "Okapi.md", "# Okapi\n\nThe okapi enclosure code is 4471.\n")
        finally:
            os.kill(proc.pid, signal.SIGCONT)
        with Router(vault) as router:
            wait_for(lambda: router.decide("okapi enclosure code").decision == "cite")


def test_an_index_deleted_under_a_running_watcher_is_not_trusted(vault: Path) -> None:
    """A cold review: the cache cleared while `krouter watch` ran, the watcher went on writing to the
    deleted file and its lease said clean, so every other process trusted the new, empty index and
    refused everything, a page added afterwards too."""
    with watching(vault) as (_proc, index):
        for suffix in ("", "-wal", "-shm"):
            Path(f"{index}{suffix}").unlink(missing_ok=True)
        with Router(vault) as router:
            assert not watched_clean(index)
            assert router.decide("which database do we use").cited[0].path == "Decisions/Primary database.md"


def test_a_stopped_watcher_s_lease_is_not_trusted_once_it_stops_beating(vault: Path) -> None:
    """A cold review: a `krouter watch` (or `krouter mcp`) stopped with Ctrl-Z kept its lock and its
    "clean", and every lookup answered from an index that no longer followed the vault, for as long as
    it stayed stopped; each fresh `krouter ask` also waited a second for its greeting."""
    from krouter.ops.ask_socket.protocol import LEASE_STALE_S

    with watching(vault) as (proc, index), Router(vault) as router:
        assert router.decide("which database do we use").cited[0].path == "Decisions/Primary database.md"
        lease = lease_path(index)
        beaten = os.stat(lease).st_mtime
        wait_for(lambda: os.stat(lease).st_mtime > beaten)  # a running watcher beats its lease
        proc.send_signal(signal.SIGSTOP)
        try:
            write(vault / "Decisions" / "Primary database.md", "# Primary database\n\nWe use CockroachDB.\n")
            then = os.stat(lease).st_mtime - LEASE_STALE_S - 1
            os.utime(lease, (then, then))  # as long after as a lease goes stale
            assert not watched_clean(index)
            receipt = router.decide("cockroachdb database")
            assert receipt.decision == "cite" and receipt.cited[0].path == "Decisions/Primary database.md"
        finally:
            proc.send_signal(signal.SIGCONT)


def test_a_watcher_continued_after_a_stop_checks_the_whole_vault_before_it_vouches_again(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A review: continued after Ctrl-Z, the watcher beat its lease (clean) before the events queued
    while it was stopped reached it, and for those milliseconds vouched for edits it had not seen."""
    import time

    from krouter.ops import vault_watcher

    monkeypatch.setattr(vault_watcher, "LEASE_STALE_S", 0.2)
    index = tmp_path / "idx.sqlite3"
    watcher = VaultWatcher(vault, debounce=0.05, index_path=index)
    watcher.start()
    try:
        watcher.wait(timeout=0.1)
        watcher.take()
        watcher.indexed()
        assert clean_seen_elsewhere(index)
        time.sleep(0.3)  # no look for longer than a lease stays trusted: as if stopped
        assert watcher.wait(timeout=TIMEOUT, take=False) == {"."}
        assert not clean_seen_elsewhere(index)
    finally:
        watcher.stop()
