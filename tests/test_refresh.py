"""Incremental refresh: every change to the files shows in the next lookup, and only changed pages are
re-tokenised."""

from __future__ import annotations

import os
from pathlib import Path

from krouter import Router
from krouter.index import refresh as index_refresh
from krouter.index.store import Index
from krouter.vault.files import MAX_PAGE_BYTES

FILLER = {
    "Notes/Gardening.md": "# Gardening\n\nTomatoes need sun and water every morning.\n",
    "Notes/Cooking.md": "# Cooking\n\nBake bread at high heat with steam for a crisp crust.\n",
    "Notes/Cycling.md": "# Cycling\n\nPump the tyres before a long ride on gravel roads.\n",
}


def write(root: Path, rel: str, text: str) -> Path:
    """Write a page and move its mtime forward a second, so a same-tick rewrite still counts as a change."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    before = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(text, encoding="utf-8")
    mtime = max(path.stat().st_mtime_ns, before + 1_000_000_000)
    os.utime(path, ns=(mtime, mtime))
    return path


def make_vault(root: Path, pages: dict[str, str]) -> Path:
    for rel, text in {**FILLER, **pages}.items():
        write(root, rel, text)
    return root


def cited(router: Router, question: str) -> str | None:
    receipt = router.ask(question)
    return receipt.top.path if receipt.decision == "cite" else None


def test_edit_add_delete_rename(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, {"Ops/Pager.md": "# Pager\n\nThe pager rotation is weekly.\n"})
    with Router(vault) as router:
        assert cited(router, "pager rotation") == "Ops/Pager.md"
        assert cited(router, "kestrel escalation") is None

        write(
            vault,
            "Ops/Pager.md",
            "# Pager\n\nThe pager rotation is weekly; kestrel escalation after 5 min.\n",
        )
        assert cited(router, "kestrel escalation") == "Ops/Pager.md"

        write(vault, "Ops/Vpn.md", "# VPN\n\nConnect to the wombat gateway for the VPN.\n")
        assert cited(router, "wombat gateway") == "Ops/Vpn.md"

        (vault / "Ops/Vpn.md").unlink()
        receipt = router.ask("wombat gateway")
        assert receipt.decision == "refuse" and receipt.cited == []

        os.rename(vault / "Ops/Pager.md", vault / "Ops/On-call.md")
        assert cited(router, "kestrel escalation") == "Ops/On-call.md"
        assert router.status()["pages"] == len(FILLER) + 1


def test_edit_one_page_of_2000_retokenises_one(tmp_path: Path) -> None:
    for i in range(2000):
        path = tmp_path / f"F{i % 20}" / f"Page {i}.md"
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"# Page {i}\n\nItem w{i} costs {i * 7} coins.\n", encoding="utf-8")
    index = Index(tmp_path)
    try:
        first = index.refresh()
        assert (first.added, first.tokenized) == (2000, 2000)
        assert index.refresh().tokenized == 0

        write(tmp_path, "F7/Page 1007.md", "# Page 1007\n\nItem w1007 now costs 12 coins and a gryphon.\n")
        stats = index.refresh()
        assert (stats.tokenized, stats.updated, stats.added, stats.deleted) == (1, 1, 0, 0)
    finally:
        index.close()
    with Router(tmp_path) as router:
        assert cited(router, "gryphon") == "F7/Page 1007.md"
        assert router.last_refresh is not None and router.last_refresh.tokenized == 0


def test_touch_without_change_retokenises_nothing(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, {"Ops/Pager.md": "# Pager\n\nThe pager rotation is weekly.\n"})
    with Router(vault) as router:
        router.refresh()
        st = (vault / "Ops/Pager.md").stat()
        os.utime(vault / "Ops/Pager.md", ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
        assert router.refresh().tokenized == 0
        # The new mtime was recorded: the next refresh does not even re-read the file.
        assert router.refresh().unchanged == len(FILLER) + 1
        assert cited(router, "pager rotation") == "Ops/Pager.md"


def test_every_file_a_refresh_reads_again_is_counted_once(tmp_path: Path) -> None:
    """A skipped file touched since the last refresh is still skipped, so it counts as unchanged: before,
    it counted nowhere, and "16 unchanged" for a vault of 17 files read as a page lost."""
    vault = make_vault(tmp_path, {})
    files = len(FILLER) + 2
    for name, data in (("Dump.md", b"x" * (MAX_PAGE_BYTES + 1)), ("Latin1.md", b"# Caf\xe9\n")):
        (vault / name).write_bytes(data)
    with Router(vault) as router:
        router.refresh()
        for name in ("Dump.md", "Latin1.md"):
            st = (vault / name).stat()
            os.utime(vault / name, ns=(st.st_atime_ns, st.st_mtime_ns - 60_000_000_000))
        stats = router.refresh()
        assert (stats.added, stats.updated, stats.deleted, stats.unchanged) == (0, 0, 0, files)
        assert sorted(p.path for p in router.index.problems()) == ["Dump.md", "Latin1.md"]


def test_changed_superseded_by_graph_is_picked_up(tmp_path: Path) -> None:
    vault = make_vault(
        tmp_path,
        {
            "Queue/Old.md": "---\nstatus: superseded\nsuperseded_by: Queue/Kafka\n---\nOur message broker.\n",
            "Queue/Kafka.md": "# Kafka\n\nThe message broker is Kafka.\n",
            "Queue/Pulsar.md": "# Pulsar\n\nThe message broker is Pulsar.\n",
        },
    )
    with Router(vault) as router:
        receipt = router.ask("message broker")
        assert [(r.from_path, r.to_path) for r in receipt.redirects] == [("Queue/Old.md", "Queue/Kafka.md")]

        write(
            vault,
            "Queue/Old.md",
            "---\nstatus: superseded\nsuperseded_by: Queue/Pulsar\n---\nOur message broker.\n",
        )
        write(
            vault, "Queue/Kafka.md", "---\nsuperseded_by: Queue/Pulsar\n---\nThe message broker was Kafka.\n"
        )
        receipt = router.ask("message broker")
        assert receipt.decision == "cite" and receipt.top.path == "Queue/Pulsar.md"
        assert all(c.path != "Queue/Kafka.md" for c in receipt.cited)
        assert ("Queue/Old.md", "Queue/Pulsar.md") in [(r.from_path, r.to_path) for r in receipt.redirects]


def test_replacement_appearing_later_resolves_dangling_link(tmp_path: Path) -> None:
    vault = make_vault(
        tmp_path, {"Old.md": "---\nstatus: superseded\nsuperseded_by: New\n---\nThe lemur feeding time.\n"}
    )
    with Router(vault) as router:
        assert cited(router, "lemur feeding time") is None
        write(vault, "New.md", "# Lemur feeding\n\nThe lemur feeding time is noon.\n")
        assert cited(router, "lemur feeding time") == "New.md"


def test_same_size_rewrite_within_one_timestamp_tick_is_seen(tmp_path: Path) -> None:
    """A rewrite that keeps both size and mtime (a coarse-timestamp file system, or an edit within one
    tick of the last refresh) is still picked up: recently modified files are re-checked by hash."""
    vault = make_vault(tmp_path, {"Ops/DB.md": "# Database\n\nWe run Postgres on the primary.\n"})
    page = vault / "Ops" / "DB.md"
    with Router(vault) as router:
        assert cited(router, "postgres primary") == "Ops/DB.md"
        stamp = page.stat().st_mtime_ns
        page.write_text("# Database\n\nWe run Cassandr on the primary.\n", encoding="utf-8")
        os.utime(page, ns=(stamp, stamp))
        assert cited(router, "cassandr primary") == "Ops/DB.md"


def test_a_same_size_copy_with_an_old_mtime_is_seen(tmp_path: Path, monkeypatch) -> None:
    """cp -p, rsync -t or a restored backup: same size, an mtime long in the past. The file's ctime
    still moves, so the edit is not mistaken for "unchanged"."""
    # No racy window: the re-check of recently changed files must not be what catches the edit here.
    monkeypatch.setattr(index_refresh, "RACY_NS", 0)
    vault = make_vault(tmp_path, {"Ops/DB.md": "# Database\n\nWe run Postgres on the primary.\n"})
    page = vault / "Ops" / "DB.md"
    old = 1_500_000_000_000_000_000  # 2017: well outside the racy window
    os.utime(page, ns=(old, old))
    with Router(vault) as router:
        assert cited(router, "postgres primary") == "Ops/DB.md"
        page.write_text("# Database\n\nWe run Cassandr on the primary.\n", encoding="utf-8")
        os.utime(page, ns=(old, old))
        assert cited(router, "cassandr primary") == "Ops/DB.md"


def test_rebuild_keeps_the_index_file_other_processes_have_open(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, {"Ops/DB.md": "# Database\n\nWe run Postgres on the primary.\n"})
    with Router(vault) as watcher, Router(vault) as other:
        watcher.refresh()
        inode = os.stat(watcher.index.path).st_ino
        other.index.rebuild()
        write(vault, "Ops/Queue.md", "# Queue\n\nJobs go through NATS.\n")
        assert cited(watcher, "nats jobs") == "Ops/Queue.md"
        assert os.stat(watcher.index.path).st_ino == inode


def test_readers_answer_from_the_old_index_while_a_rebuild_runs(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, {"Ops/DB.md": "# Database\n\nWe run Postgres on the primary.\n"})
    seen: list[str] = []
    with Router(vault) as builder, Router(vault, auto_refresh=False) as reader:
        builder.refresh()

        def progress(done: int, total: int) -> None:
            if done == total:
                seen.append(reader.decide("postgres primary").decision)

        builder.index.rebuild(progress)
        assert seen == ["cite"]
        assert reader.decide("postgres primary").decision == "cite"


def test_rebuild_recovers_a_malformed_index(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, {"Ops/DB.md": "# Database\n\nWe run Postgres on the primary.\n"})
    with Router(vault) as router:
        router.refresh()
        path = router.index.path
    with open(path, "r+b") as fh:
        fh.seek(4096)
        fh.write(b"\x00garbage" * 512)
    index = Index(vault)
    index.rebuild()
    index.close()
    with Router(vault) as router:
        assert cited(router, "postgres primary") == "Ops/DB.md"


def test_a_folder_that_cannot_be_listed_keeps_its_pages(tmp_path: Path, monkeypatch) -> None:
    """A sync mount that fails for a moment must not drop its pages from the index."""
    import krouter.vault.files

    vault = make_vault(tmp_path, {"Sync/DB.md": "# Database\n\nWe run Postgres on the primary.\n"})
    real_scandir = os.scandir

    def failing_scandir(path):  # type: ignore[no-untyped-def]
        if str(path).endswith("Sync"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    with Router(vault) as router:
        assert cited(router, "postgres primary") == "Sync/DB.md"
        monkeypatch.setattr(krouter.vault.files.os, "scandir", failing_scandir)
        stats = router.refresh()
        assert stats.unreadable == ["Sync/"] and stats.deleted == 0
        assert cited(router, "postgres primary") == "Sync/DB.md"
        monkeypatch.undo()
        assert router.refresh().unreadable == []


def test_a_long_lived_router_follows_input_folders_changed_in_config(tmp_path: Path) -> None:
    """A cold review: the MCP server's Router read input_folders once, so a folder named an input folder
    later went on being cited as the vault's own page for the life of the server."""
    from krouter import config

    vault = tmp_path / "vault"
    for rel, text in {
        "Decisions/Search engine.md": "# Search engine\n\nProduct search runs on OpenSearch 2.11.\n",
        "Inputs/Search engine.md": "# Search engine\n\nProduct search runs on Apache Solr 9.\n",
    }.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    with Router(vault) as router:
        before = router.decide("what does product search run on")
        config.config_path().parent.mkdir(parents=True, exist_ok=True)
        config.config_path().write_text('input_folders = ["Decisions"]\n', encoding="utf-8")
        after = router.decide("what does product search run on")
    assert before.top is not None and before.top.path == "Decisions/Search engine.md"
    assert after.top is not None and after.top.path == "Inputs/Search engine.md", after.reason
