"""Packed postings: one blob per term, fresh rows beside them for edits, folded in once there are enough.

An edit must stay incremental (it writes the page's own rows, not the packed lists of every word it
holds), and whatever mix of packed, fresh and stale rows an index holds, it must answer exactly as an
index built from scratch over the same files.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from krouter.index import packed as index_packed
from krouter.index import refresh as index_refresh
from krouter.index.store import Index
from krouter.routing.router import Router


def write(root: Path, rel: str, text: str) -> None:
    """Write a page and move its mtime a second forward, so a same-tick rewrite still counts."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    before = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(text, encoding="utf-8")
    mtime = max(path.stat().st_mtime_ns, before + 1_000_000_000)
    os.utime(path, ns=(mtime, mtime))


def make_vault(root: Path) -> Path:
    for i in range(12):
        write(
            root,
            f"Notes/Topic {i:02d}.md",
            f"# Topic {i}\n\nThe widget{i} rotation uses the 数据库 cluster.\n",
        )
    write(root, "Ops/Pager.md", "# Pager\n\nThe pager rotation is weekly; kestrel handles escalation.\n")
    write(root, "Ops/Vpn.md", "# VPN\n\nConnect through the wombat gateway.\n")
    return root


def by_path(index: Index) -> list[tuple[object, ...]]:
    """Every live posting, page ids replaced by paths (ids differ between two indexes)."""
    paths = dict(index.conn.execute("SELECT id, path FROM pages"))
    return sorted((term, paths[pid], *tfs) for term, pid, *tfs in index.all_postings())


def from_scratch(vault: Path, tmp_path: Path) -> list[tuple[object, ...]]:
    index = Index(vault, path=tmp_path / "scratch.sqlite3")
    try:
        index.refresh()
        return by_path(index)
    finally:
        index.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{tmp_path / 'scratch.sqlite3'}{suffix}").unlink(missing_ok=True)


def packed(index: Index) -> dict[str, tuple[bytes, bytes]]:
    return {t: (i, f) for t, i, f in index.conn.execute("SELECT term, ids, tfs FROM postings")}


def count(index: Index, table: str) -> int:
    return index.conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def test_an_edit_writes_only_its_own_rows_and_answers_like_a_fresh_index(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "vault")
    index = Index(vault)
    try:
        index.refresh()
        assert count(index, "fresh_postings") == 0  # a first index is packed whole
        before = packed(index)
        write(vault, "Ops/Pager.md", "# Pager\n\nThe pager rotation is daily; osprey handles escalation.\n")
        stats = index.refresh()
        assert stats.updated == 1 and stats.tokenized == 1
        # Not one packed list was rewritten, though "rotation" and "pager" are on the edited page.
        assert packed(index) == before
        pager_id = index.conn.execute("SELECT id FROM pages WHERE path='Ops/Pager.md'").fetchone()[0]
        assert {pid for (pid,) in index.conn.execute("SELECT page_id FROM fresh_postings")} == {pager_id}
        assert by_path(index) == from_scratch(vault, tmp_path)
        assert not index.has_term("kestrel") and index.has_term("osprey")
        # The edited page keeps its id, between packed ones: lists still come in page id order (the
        # order ties are ranked in).
        rotation = list(index.holding("rotat" if index.has_term("rotat") else "rotation"))
        assert pager_id in rotation and rotation == sorted(rotation) and rotation[-1] != pager_id
    finally:
        index.close()
    with Router(vault) as router:
        assert router.decide("osprey escalation").top.path == "Ops/Pager.md"
        assert "kestrel" in router.decide("kestrel escalation").evidence.corpus_missing


def test_a_deleted_page_leaves_no_term_behind_before_the_lists_are_folded(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "vault")
    with Router(vault) as router:
        assert router.decide("wombat gateway").top.path == "Ops/Vpn.md"
        (vault / "Ops/Vpn.md").unlink()
        receipt = router.decide("wombat gateway")
        assert receipt.decision == "refuse"
        assert set(receipt.evidence.corpus_missing) == {"wombat", "gateway"}
        assert count(router.index, "stale_pages") == 1  # still voided, not yet folded
        assert by_path(router.index) == from_scratch(vault, tmp_path)


def test_folding_rewrites_only_the_terms_the_edits_touched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = make_vault(tmp_path / "vault")
    index = Index(vault)

    def terms_of(path: str) -> set[str]:
        row = index.conn.execute("SELECT id FROM pages WHERE path=?", (path,)).fetchone()
        return index.page_terms(row[0]) if row else set()

    try:
        index.refresh()
        before = packed(index)
        touched = terms_of("Ops/Pager.md") | terms_of("Ops/Vpn.md") | terms_of("Notes/Topic 07.md")
        monkeypatch.setattr(index_packed, "PACK_ROWS", 0)
        # The limit grows with the vault: 100 rows per page of these 14 are more than one edit writes.
        monkeypatch.setattr(index_packed, "PACK_ROWS_PER_PAGE", 100)
        write(vault, "Notes/Topic 07.md", "# Topic 7\n\nThe widget7 rotation moved.\n")
        index.refresh()
        assert count(index, "fresh_postings") > 0
        touched |= terms_of("Notes/Topic 07.md")
        monkeypatch.setattr(index_packed, "PACK_ROWS_PER_PAGE", 0)
        write(vault, "Ops/Pager.md", "# Pager\n\nThe pager rotation is daily; osprey handles escalation.\n")
        (vault / "Ops/Vpn.md").unlink()
        write(vault, "Ops/New.md", "# Heron\n\nThe heron rotation starts on Mondays.\n")
        index.refresh()
        assert [count(index, t) for t in ("fresh_postings", "stale_pages", "stale_terms")] == [0, 0, 0]
        after = packed(index)
        touched |= terms_of("Ops/Pager.md") | terms_of("Ops/New.md")
        changed = {t for t in before.keys() | after.keys() if before.get(t) != after.get(t)}
        assert changed and changed <= touched
        assert "wombat" in before and "wombat" not in after and "osprey" in after
        assert all(after[t] == before[t] for t in terms_of("Notes/Topic 03.md") - touched)
        assert by_path(index) == from_scratch(vault, tmp_path)
    finally:
        index.close()


def test_a_reader_sees_another_process_edit_through_its_cached_stale_pages(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "vault")
    with Router(vault, auto_refresh=False) as reader:
        reader.index.refresh()
        assert reader.decide("wombat gateway").top.path == "Ops/Vpn.md"
        (vault / "Ops/Vpn.md").unlink()
        writer = Index(vault)  # another connection, as another process has
        try:
            writer.refresh()
        finally:
            writer.close()
        assert reader.decide("wombat gateway").decision == "refuse"


def test_large_term_frequencies_round_trip_through_the_packed_lists(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write(vault, "A.md", "# Alpha\n\n" + "zebra " * 300 + "\n")
    write(vault, "B.md", "# Beta\n\n" + "yak " * 70_000 + "zebra\n")
    index = Index(vault)
    try:
        index.refresh()
        assert count(index, "fresh_postings") == 0
        body = sorted(body_tf for term, _, _, _, body_tf in index.all_postings() if term in {"zebra", "yak"})
        assert body == [1, 300, 70_000]
        codes = dict(index.conn.execute("SELECT term, substr(tfs, 1, 3) FROM postings"))
        assert codes["zebra"] == b"zzH" and codes["yak"] == b"zzI"
    finally:
        index.close()


def test_packed_lists_decode_to_their_postings_whatever_columns_they_store() -> None:
    """A lookup decodes a list by its body tfs and then sets the postings with a title/alias or trigger
    tf in place: every mix of stored columns must give back the postings, in page id order."""
    cases = [
        [(1, 0, 0, 3), (4, 0, 0, 1), (7, 0, 0, 3)],  # body tfs only
        [(1, 2, 0, 3), (4, 0, 0, 1), (9, 0, 1, 0), (12, 1, 1, 1)],  # a title, a trigger-only page
        [(2, 1, 0, 0), (3, 0, 2, 0)],  # no page holds it in its body
        [(5, 0, 0, 70_000), (6, 300, 0, 1), (8, 0, 70_000, 0)],  # wide columns
        [(3, 1, 0, 1)],  # every posting in the title
    ]
    for rows in cases:
        decoded = index_packed.unpack(*index_packed.pack(rows))
        assert list(decoded.items()) == [(pid, tuple(tfs)) for pid, *tfs in rows]


def test_an_index_of_the_previous_schema_is_rebuilt_packed(tmp_path: Path) -> None:
    """A version-5 index (one row per posting) is dropped and rebuilt in this version's tables."""
    vault = make_vault(tmp_path / "vault")
    index = Index(vault)
    path = index.path
    index.close()
    con = sqlite3.connect(path)
    con.execute("DROP TABLE postings")
    con.execute(
        "CREATE TABLE postings (term TEXT NOT NULL, page_id INTEGER NOT NULL, meta_tf INTEGER NOT NULL, "
        "trig_tf INTEGER NOT NULL, body_tf INTEGER NOT NULL, PRIMARY KEY (term, page_id)) WITHOUT ROWID"
    )
    con.execute("UPDATE meta SET value = '5' WHERE key = 'schema'")
    con.commit()
    con.close()
    with Router(vault) as router:
        assert router.decide("wombat gateway").top.path == "Ops/Vpn.md"
        assert count(router.index, "postings") > 0


def test_a_chunked_build_joins_segments_of_different_widths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "vault"
    write(vault, "A.md", "# Zebra\n\n" + "zebra " * 300 + "\n")
    write(vault, "B.md", "# Beta\n\nOne zebra here.\n")
    write(vault, "C.md", "# Gamma\n\n" + "zebra " * 70_000 + "\n")
    write(vault, "D.md", "# Delta\n\nNo stripes.\n")
    reference = from_scratch(vault, tmp_path)  # under BUILD_CHUNK pages: one transaction
    monkeypatch.setattr(index_refresh, "BUILD_CHUNK", 1)
    index = Index(vault)
    try:
        index.refresh()
        assert not Path(f"{index.path}.build").exists()  # built through the staging database
        assert by_path(index) == reference
        codes = dict(index.conn.execute("SELECT term, substr(tfs, 1, 3) FROM postings"))
        assert codes["zebra"] == b"BzI"
    finally:
        index.close()


def test_a_resumed_build_drops_what_changed_files_no_longer_hold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = make_vault(tmp_path / "vault")
    monkeypatch.setattr(index_refresh, "BUILD_CHUNK", 4)

    def stop_at_10(done: int, _total: int) -> None:
        if done == 10:
            raise KeyboardInterrupt

    index = Index(vault)
    with pytest.raises(KeyboardInterrupt):
        index.refresh(progress=stop_at_10)
    index.close()
    staging = sqlite3.connect(f"{index.path}.build")
    staged = sorted(p for (p,) in staging.execute("SELECT path FROM pages"))
    staging.close()
    assert "Notes/Topic 00.md" in staged and "Notes/Topic 01.md" in staged
    write(vault, "Notes/Topic 00.md", "# Topic 0\n\nNow about the osprey cluster only.\n")
    (vault / "Notes/Topic 01.md").unlink()
    index = Index(vault)
    try:
        index.refresh()
        assert by_path(index) == from_scratch(vault, tmp_path)
        assert not index.has_term("widget0") and not index.has_term("widget1") and index.has_term("osprey")
    finally:
        index.close()


def test_deleted_pages_alone_are_folded_past_their_own_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = make_vault(tmp_path / "vault")
    index = Index(vault)
    try:
        index.refresh()
        monkeypatch.setattr(index_packed, "PACK_STALE", 1)
        (vault / "Ops/Vpn.md").unlink()
        index.refresh()
        assert count(index, "stale_pages") == 1  # at the limit: kept
        (vault / "Notes/Topic 05.md").unlink()
        index.refresh()
        assert [count(index, t) for t in ("fresh_postings", "stale_pages", "stale_terms")] == [0, 0, 0]
        assert "wombat" not in packed(index) and "widget5" not in packed(index)
        assert by_path(index) == from_scratch(vault, tmp_path)
    finally:
        index.close()


def test_a_kept_long_list_is_never_served_stale_or_shared(tmp_path: Path) -> None:
    """Long decoded lists are kept for later lookups: an edit must show, and a caller that changes the
    dict it got (the router merges translations into it) must not change what the next caller gets."""
    vault = tmp_path / "vault"
    for i in range(300):
        write(vault, f"P/{i:03d}.md", f"# Page {i}\n\nThe ferret number {i}.\n")
    with Router(vault) as router:
        router.decide("ferret")
        held = router.index.holding("ferret")
        assert len(held) == 300
        held.clear()
        assert len(router.index.holding("ferret")) == 300
        for i in range(10):
            (vault / f"P/{i:03d}.md").unlink()
        receipt = router.decide("ferret")
        assert receipt.candidates and not {c.path for c in receipt.candidates} & {
            f"P/{i:03d}.md" for i in range(10)
        }
        assert len(router.index.holding("ferret")) == 290


def test_a_reader_inside_a_snapshot_is_not_disturbed_by_a_fold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fold rewrites packed lists and empties the fresh tables in one transaction: a lookup that began
    before it keeps reading the index as it was (WAL), and the next one sees the fold."""
    vault = make_vault(tmp_path / "vault")
    with Router(vault, auto_refresh=False) as reader:
        reader.index.refresh()
        write(vault, "Ops/Vpn.md", "# VPN\n\nConnect through the heron gateway.\n")
        reader.index.refresh()  # one fresh page, one stale one: not folded yet
        assert count(reader.index, "fresh_postings") > 0
        monkeypatch.setattr(index_packed, "PACK_ROWS", 0)
        monkeypatch.setattr(index_packed, "PACK_ROWS_PER_PAGE", 0)
        with reader.index.snapshot():
            assert reader.index.has_term("heron") and not reader.index.has_term("wombat")
            write(vault, "Ops/Pager.md", "# Pager\n\nThe pager rotation is daily.\n")
            writer = Index(vault)
            try:
                writer.refresh()  # folds everything
                assert count(writer, "fresh_postings") == 0
            finally:
                writer.close()
            assert reader.index.has_term("kestrel") and reader.index.has_term("heron")
            assert set(reader.index.holding("heron")) == set(reader.index.holding("gateway"))
        assert not reader.index.has_term("kestrel") and reader.index.has_term("heron")
        assert reader.decide("heron gateway").top.path == "Ops/Vpn.md"
