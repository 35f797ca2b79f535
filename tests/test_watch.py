"""``krouter watch``: a real watchdog observer on a tmp_path vault, checked by polling the index."""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from waiting import start_watch_loop, wait_for, write

from krouter.index.store import Index
from krouter.ops.vault_watcher import VaultWatcher, _relevant_path

TIMEOUT = 15.0


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    write(
        root / "Decisions" / "Primary database.md",
        "# Primary database\n\nWe use PostgreSQL for everything.\n",
    )
    return root


@pytest.fixture
def watching(vault: Path) -> Iterator[Index]:
    """Run the watch loop on its own thread (which owns its index connection); yield a reader."""
    stop = threading.Event()
    thread, errors = start_watch_loop(vault, stop, debounce=0.1)
    assert not errors, errors
    reader = Index(vault)
    try:
        yield reader
    finally:
        reader.close()
        stop.set()
        thread.join(TIMEOUT)
        assert not thread.is_alive()
        assert not errors, errors


def paths(index: Index) -> set[str]:
    return {row[1] for row in index.page_table()}


def body_has(index: Index, rel: str, term: str) -> bool:
    row = index.conn.execute("SELECT id FROM pages WHERE path=?", (rel,)).fetchone()
    return row is not None and term in index.page_terms(row[0])


def test_create_edit_delete(vault: Path, watching: Index) -> None:
    page = vault / "Runbooks" / "Deploy.md"
    write(page, "# Deploy\n\nRun fly deploy.\n")
    wait_for(lambda: "Runbooks/Deploy.md" in paths(watching))
    write(page, "# Deploy\n\nRun kubectl apply.\n")
    wait_for(lambda: body_has(watching, "Runbooks/Deploy.md", "kubectl"))
    page.unlink()
    wait_for(lambda: "Runbooks/Deploy.md" not in paths(watching))


def test_atomic_saves(vault: Path, watching: Index) -> None:
    page = vault / "Decisions" / "Primary database.md"
    # Write a temp file, then rename it over the page (most editors, Obsidian, our own writes).
    tmp = page.with_name(".Primary database.md.tmp")
    tmp.write_text("# Primary database\n\nWe use CockroachDB now.\n", encoding="utf-8")
    os.replace(tmp, page)
    wait_for(lambda: body_has(watching, "Decisions/Primary database.md", "cockroachdb"))
    # vim's backup dance: move the page aside, write a fresh file, delete the backup.
    backup = page.with_name("Primary database.md~")
    os.rename(page, backup)
    page.write_text("# Primary database\n\nWe use SQLite now.\n", encoding="utf-8")
    backup.unlink()
    wait_for(lambda: body_has(watching, "Decisions/Primary database.md", "sqlite"))
    assert paths(watching) == {"Decisions/Primary database.md"}


def test_mass_renames(vault: Path, watching: Index) -> None:
    for i in range(60):
        write(vault / "Inbox" / f"note {i}.md", f"# Note {i}\n\nTopic number {i}.\n")
    wait_for(lambda: len(paths(watching)) == 61)
    # A whole folder moved at once, then every file in it renamed.
    (vault / "Inbox").rename(vault / "Archive")
    wait_for(lambda: not any(p.startswith("Inbox/") for p in paths(watching)))
    for i in range(60):
        os.rename(vault / "Archive" / f"note {i}.md", vault / "Archive" / f"renamed {i}.md")
    expected = {"Decisions/Primary database.md"} | {f"Archive/renamed {i}.md" for i in range(60)}
    wait_for(lambda: paths(watching) == expected)


def test_a_vault_folder_deleted_and_made_again_is_watched_again(vault: Path, watching: Index) -> None:
    # A restore from backup, a re-clone or a sync tool replacing the folder: the observer watched the
    # old folder, so the new one's pages were never indexed and the old ones were served on.
    shutil.rmtree(vault)
    write(vault / "Lunch.md", "# Lunch\n\nLunch is at noon.\n")
    wait_for(lambda: paths(watching) == {"Lunch.md"})
    write(vault / "Runbooks" / "Deploy.md", "# Deploy\n\nRun fly deploy.\n")
    wait_for(lambda: paths(watching) == {"Lunch.md", "Runbooks/Deploy.md"})


def test_a_folder_moved_into_a_folder_made_a_moment_before_is_still_watched(tmp_path: Path) -> None:
    """A cold review: made and moved into at once (a script, a file manager's "new folder with
    selection"), the moved folder lost its watch in watchdog: edits in it went unseen for minutes, and
    other processes trusted the index all that time."""
    root = tmp_path / "vault"
    write(root / "Decisions" / "Database.md", "# Database\n\nPostgreSQL.\n")
    watcher = VaultWatcher(root, debounce=0.05)
    watcher.start()
    try:
        os.mkdir(root / "Archive")
        os.rename(root / "Decisions", root / "Archive" / "Decisions")
        time.sleep(0.5)  # what the kernel reports of the move has arrived
        assert "Archive/Decisions" in watcher.wait(timeout=TIMEOUT)
        page = root / "Archive" / "Decisions" / "Database.md"
        tmp = page.with_name(".sed-tmp")  # saved as sed -i and editors save: a temp file renamed over it
        tmp.write_text("# Database\n\nCockroachDB.\n", encoding="utf-8")
        os.replace(tmp, page)
        # Seen, or the whole vault reported changed (".": the next refresh walks it all) once the
        # folder's move is understood; and the edits after that are seen one by one again.
        for round_ in range(2):
            seen: set[str] = set()
            deadline = time.monotonic() + TIMEOUT
            while not {"Archive/Decisions/Database.md", "."} & seen and time.monotonic() < deadline:
                seen |= watcher.wait(timeout=0.5)
            assert {"Archive/Decisions/Database.md", "."} & seen, (round_, seen)
            time.sleep(1.0)  # late reports of the move land in this round, not the next
            watcher.wait(timeout=0.5)
            tmp.write_text(f"# Database\n\nRound {round_}.\n", encoding="utf-8")
            os.replace(tmp, page)
    finally:
        watcher.stop()


def test_git_making_folders_under_dot_git_does_not_rewatch_the_vault(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    write(root / "Page.md", "# Page\n\nText.\n")
    watcher = VaultWatcher(root, debounce=0.05)
    watcher.start()
    try:
        for i in range(5):
            os.makedirs(root / ".git" / "objects" / f"{i:02x}")
        time.sleep(0.5)
        assert watcher.wait(timeout=1) == set()
    finally:
        watcher.stop()


def test_a_page_ignored_while_krouter_watch_runs_leaves_the_index(vault: Path, watching: Index) -> None:
    write(vault / "Private" / "Salaries.md", "# Salaries\n\nEveryone earns the same.\n")
    wait_for(lambda: "Private/Salaries.md" in paths(watching))
    write(vault / ".krouterignore", "Private/\n")
    wait_for(lambda: "Private/Salaries.md" not in paths(watching))


def test_relevant_paths(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    assert _relevant_path(root, str(root / "A" / "b.md"), False) == "A/b.md"
    assert _relevant_path(root, str(root / "A" / "b.txt"), False) is None
    assert _relevant_path(root, str(root / ".obsidian" / "x.md"), False) is None
    # Ignore rules: any page may be in or out now.
    assert _relevant_path(root, str(root / ".krouterignore"), False) == "."
    assert _relevant_path(root, str(root / ".obsidian" / "app.json"), False) == "."
    assert _relevant_path(root, str(root / "A" / ".krouterignore"), False) is None
    assert _relevant_path(root, str(root / "A" / ".b.md.swp"), False) is None
    assert _relevant_path(root, str(root / "A"), True) == "A"
    assert _relevant_path(root, "/elsewhere/x.md", False) is None


def test_debounce_batches_a_burst(tmp_path: Path) -> None:
    watcher = VaultWatcher(tmp_path, debounce=0.2)
    watcher.start()
    try:
        for i in range(20):
            (tmp_path / f"p{i}.md").write_text("x", encoding="utf-8")
        batch: set[str] = set()
        deadline = time.monotonic() + TIMEOUT
        while len(batch) < 20 and time.monotonic() < deadline:
            batch |= watcher.wait(timeout=1.0)
        assert batch == {f"p{i}.md" for i in range(20)}
    finally:
        watcher.stop()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_cli_logs_and_exits_on_ctrl_c(vault: Path, sig: signal.Signals) -> None:
    """The real command: logs each re-index to stderr; Ctrl-C (SIGINT) or systemd's SIGTERM ends it
    cleanly with exit 0."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "krouter", "watch", "--vault", str(vault), "--debounce", "0.1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stderr], daemon=True).start()  # type: ignore[union-attr]

    def expect(word: str) -> str:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.2)
            except queue.Empty:
                continue
            if word in line:
                return line
        raise AssertionError(f"no {word!r} on stderr")

    try:
        expect("watching")
        write(vault / "People" / "Mara.md", "# Mara\n\nMara owns billing.\n")
        assert "People/Mara.md" in expect("re-indexed")
        proc.send_signal(sig)
        assert proc.wait(TIMEOUT) == 0
        expect("stopped")
        assert proc.stdout is not None and proc.stdout.read() == ""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_second_krouter_watch_says_another_process_watches(vault: Path, watching: Index) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "krouter", "watch", "--vault", str(vault)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stderr], daemon=True).start()  # type: ignore[union-attr]
    try:
        seen = ""
        deadline = time.monotonic() + TIMEOUT
        while "watching" not in seen and time.monotonic() < deadline:
            with contextlib.suppress(queue.Empty):
                seen += lines.get(timeout=0.2)
        assert "already watches" in seen and "watching" in seen, seen
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(TIMEOUT)


def test_edits_in_a_vault_folder_moved_away_are_not_said_to_be_indexed(
    vault: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A bug hunt: once the vault folder was moved away, the observer, following it, reported the edits
    made there, and the log said "index already up to date for: g.md" about pages never indexed."""
    caplog.set_level(logging.INFO, logger="krouter")
    stop = threading.Event()
    thread, errors = start_watch_loop(vault, stop, debounce=0.1)
    moved = vault.with_name("vault-moved")
    try:
        vault.rename(moved)
        wait_for(lambda: any("is gone: nothing is indexed" in r.getMessage() for r in caplog.records))
        write(moved / "New.md", "# New\n\nA page written after the move.\n")
        write(moved / "Decisions" / "Primary database.md", "# Primary database\n\nWe use MySQL.\n")
        time.sleep(1.5)  # several debounce periods: the events the observer reports are handled
    finally:
        stop.set()
        thread.join(TIMEOUT)
    assert not errors, errors
    said = [r.getMessage() for r in caplog.records]
    gone = next(i for i, m in enumerate(said) if "is gone" in m)
    assert not [m for m in said[gone:] if "up to date" in m or "re-indexed" in m], said


def test_a_problem_page_is_logged_once_not_on_every_re_index(
    vault: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (vault / "Broken.md").write_bytes(b"# Broken\n\nnot utf-8 \xff\n")
    caplog.set_level(logging.INFO, logger="krouter.watch")

    def logged() -> int:
        return sum("problem: Broken.md" in r.getMessage() for r in caplog.records)

    stop = threading.Event()
    thread, errors = start_watch_loop(vault, stop, debounce=0.1)
    reader = Index(vault)
    try:
        for i in range(3):
            write(vault / f"Note {i}.md", f"# Note {i}\n\nTopic {i}.\n")
            wait_for(lambda i=i: f"Note {i}.md" in paths(reader))
        assert logged() == 1  # three re-indexes, the problem said once
        # Fixed, then broken again: said again.
        (vault / "Broken.md").write_text("# Broken\n\nfixed now.\n", encoding="utf-8")
        wait_for(lambda: "Broken.md" in paths(reader))
        (vault / "Broken.md").write_bytes(b"# Broken\n\nbroken again \xfe\n")
        wait_for(lambda: logged() == 2)
    finally:
        reader.close()
        stop.set()
        thread.join(TIMEOUT)
    assert not errors, errors


def test_a_vault_folder_gone_again_before_it_can_be_watched_is_tried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A cold review: the folder vanished between the look and the new observer's start, and the
    # error left wait() (krouter watch exited; the MCP server's refresher died).
    root = tmp_path / "vault"
    write(root / "A.md", "# A\n\nalpha\n")
    watcher = VaultWatcher(root, debounce=0.05)
    watcher.start()
    try:
        shutil.rmtree(root)
        write(root / "B.md", "# B\n\nbeta\n")
        real = watcher._observe
        calls: list[int] = []

        def gone_once() -> object:
            calls.append(1)
            if len(calls) == 1:
                raise FileNotFoundError(2, "No such file or directory", str(root))
            return real()

        monkeypatch.setattr(watcher, "_observe", gone_once)
        wait_for(lambda: watcher.wait(timeout=0.1) is not None and len(calls) >= 2)
        assert watcher.running
        write(root / "C.md", "# C\n\ngamma\n")
        wait_for(lambda: "C.md" in watcher.wait(timeout=0.1) or "C.md" in watcher.take())
    finally:
        watcher.stop()
    assert not watcher.running


def test_a_batch_another_process_indexed_first_is_not_logged_as_nothing_done() -> None:
    """A bug hunt: "re-indexed: 0 added, 0 updated, 0 deleted; changed: a.md, b.md" read as a watcher
    that missed the pages just saved; a fresh `krouter ask` had indexed them first (or the save kept
    the text: a cold review)."""
    from krouter.index.refresh import RefreshStats
    from krouter.ops.watch import describe

    line = describe(RefreshStats(unchanged=3), {"b.md", "a.md"})
    assert line == "index already up to date for: a.md, b.md"
    # A touch or a save of the same text is no other process's doing; a whole-vault look is no ".".
    assert describe(RefreshStats(unchanged=3), {"."}) == "index already up to date for: the whole vault"
    assert describe(RefreshStats(added=1, seconds=0.05), {"a.md"}).startswith("re-indexed: 1 added")
