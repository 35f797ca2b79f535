"""Cold builds in committed chunks through a staging database, and link re-resolution limited to edits.

Every test compares the index with what the one-transaction path builds (BUILD_CHUNK raised above the
vault's size), table by table: the way of building must not change what is indexed.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from krouter.index import merge as index_merge
from krouter.index import pages as index_pages
from krouter.index import prepare as index_prepare
from krouter.index import refresh as index_refresh
from krouter.index.store import Index
from krouter.routing.router import Router


def write(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")


def make_vault(root: Path, n: int = 23) -> Path:
    for i in range(n):
        write(
            root / f"Notes/Topic {i:02d}.md",
            f"---\ntitle: Topic {i}\ntags: [t{i % 3}]\n---\n# Topic {i}\n\n"
            f"Note {i} covers widget{i} and the 数据库 migration step {i}.\n",
        )
    write(
        root / "Decisions/Old db.md",
        '---\nstatus: superseded\nsuperseded_by: "[[New db]]"\n---\nWe used MySQL.\n',
    )
    write(root / "Decisions/New db.md", "---\nsupersedes: [[Old db]]\n---\nWe use Postgres now.\n")
    write(
        root / "Decisions/Dangling.md", '---\nstatus: superseded\nsuperseded_by: "[[Not yet]]"\n---\nOld.\n'
    )
    write(root / "Broken yaml.md", "---\ntitle: [unclosed\n---\nStill indexed as text.\n")
    write(root / "Latin1.md", "caf\xe9 au lait".encode("latin-1"))
    return root


def dump(index: Index) -> dict[str, list[tuple[object, ...]]]:
    """Every row of the tables a lookup reads, in a stable order."""
    c = index.conn
    paths = dict(c.execute("SELECT id, path FROM pages"))
    return {
        "pages": c.execute(
            "SELECT path, hash, title, status, replaced, superseded_by, supersedes, n_body, n_meta, "
            "body_line, yaml_error, passages, trigger_terms, other_terms FROM pages ORDER BY path"
        ).fetchall(),
        "postings": sorted((term, paths[pid], *tfs) for term, pid, *tfs in index.all_postings()),
        "problems": c.execute("SELECT path, kind, message FROM problems ORDER BY path").fetchall(),
        "links": c.execute("SELECT src, dst, kind, raw FROM links ORDER BY src, kind, raw").fetchall(),
    }


@pytest.fixture
def reference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, list[tuple[object, ...]]]:
    """The vault as the one-transaction refresh indexes it (its own cache dir)."""
    vault = make_vault(tmp_path / "vault")
    monkeypatch.setattr(index_refresh, "BUILD_CHUNK", 10_000)
    index = Index(vault, path=tmp_path / "reference.sqlite3")
    index.refresh()
    rows = dump(index)
    index.close()
    monkeypatch.setattr(index_refresh, "BUILD_CHUNK", 5)
    return rows


def test_a_chunked_cold_build_indexes_exactly_what_one_transaction_does(
    tmp_path: Path, reference: dict[str, list[tuple[object, ...]]]
) -> None:
    index = Index(tmp_path / "vault")
    try:
        stats = index.refresh()
        assert stats.added == len(reference["pages"]) and stats.problems
        assert dump(index) == reference
        assert not list(index.path.parent.glob(f"{index.path.name}.build*"))  # journal included
        assert index.conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        index.close()


def test_chunks_staged_in_many_blocks_and_merged_in_many_rounds_index_what_one_transaction_does(
    tmp_path: Path, reference: dict[str, list[tuple[object, ...]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each chunk's segment is staged as blocks of terms and the merge holds a few terms of each chunk
    at a time: with tiny blocks and a tiny budget every chunk spans many blocks, a chunk runs out in
    the middle of a round, and a term's parts come from blocks loaded at different times."""
    monkeypatch.setattr(index_prepare, "BLOCK_TERMS", 2)
    monkeypatch.setattr(index_merge, "MERGE_TERMS", 7)
    index = Index(tmp_path / "vault")
    try:
        index.refresh()
        assert dump(index) == reference
    finally:
        index.close()


def test_rebuild_of_an_empty_index_is_a_chunked_build(
    tmp_path: Path, reference: dict[str, list[tuple[object, ...]]]
) -> None:
    index = Index(tmp_path / "vault")
    try:
        index.rebuild()
        assert dump(index) == reference
    finally:
        index.close()


def test_an_interrupted_build_keeps_its_committed_chunks(
    tmp_path: Path, reference: dict[str, list[tuple[object, ...]]]
) -> None:
    vault = tmp_path / "vault"

    def stop_at_12(done: int, _total: int) -> None:
        if done == 12:
            raise KeyboardInterrupt

    index = Index(vault)
    with pytest.raises(KeyboardInterrupt):
        index.refresh(progress=stop_at_12)
    # Every staged page's words are in it, as in the index: owner-only (a review found it 0644).
    assert os.stat(f"{index.path}.build").st_mode & 0o777 == 0o600
    staging = sqlite3.connect(f"{index.path}.build")
    staged = sorted(p for (p,) in staging.execute("SELECT path FROM pages"))
    staging.close()
    assert len(staged) >= 9  # two chunks of 5 files committed (one may be the undecodable file)
    # Nothing half-built is served: the index stays empty until the build is merged.
    with Router(vault, auto_refresh=False) as reader:
        assert reader.index.page_table() == []
    # Meanwhile a staged page is edited and another deleted: the resumed build sees both.
    edited, deleted = staged[0], staged[1]
    write(vault / edited, "# Edited\n\nRewritten: gadget0 only.\n")
    os.utime(vault / edited, ns=(1, 10**18))
    (vault / deleted).unlink()
    stats = Index(vault).refresh()
    decodable = [p for p in vault.rglob("*.md") if p.name != "Latin1.md"]
    # Only the pages not staged yet, and the edited one, were read again.
    assert stats.tokenized == len(decodable) - (len(staged) - 2) and stats.deleted == 1
    index.close()
    with Router(vault, auto_refresh=False) as reader:
        assert reader.decide("gadget0").cited[0].path == edited
        paths = {row[1] for row in reader.index.page_table()}
    assert deleted not in paths and len(paths) == len(reference["pages"]) - 1
    assert not Path(f"{index.path}.build").exists()


def test_a_build_left_by_another_version_is_discarded(
    tmp_path: Path, reference: dict[str, list[tuple[object, ...]]]
) -> None:
    index = Index(tmp_path / "vault")
    staging = Path(f"{index.path}.build")
    conn = sqlite3.connect(staging)
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute("INSERT INTO meta VALUES ('schema', '0')")
    conn.commit()
    conn.close()
    try:
        index.refresh()
        assert dump(index) == reference
        assert not staging.exists()
    finally:
        index.close()


def test_an_edit_re_resolves_only_the_links_it_touches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = make_vault(tmp_path / "vault")
    built: list[int] = []
    real = index_pages.LinkResolver

    def counting(paths: list[str]) -> object:
        built.append(len(paths))
        return real(paths)

    monkeypatch.setattr(index_pages, "LinkResolver", counting)
    index = Index(vault)
    try:
        index.refresh()
        assert len(built) == 1
        before = dump(index)["links"]
        # A page without replacement links: no link is resolved again.
        write(vault / "Notes/Topic 03.md", "# Topic 3\n\nEdited.\n")
        os.utime(vault / "Notes/Topic 03.md", ns=(1, 10**18))
        assert index.refresh().updated == 1
        assert len(built) == 1 and dump(index)["links"] == before
        # A page whose links change: its own links are resolved again, the others stay.
        write(
            vault / "Decisions/Dangling.md",
            '---\nstatus: superseded\nsuperseded_by: "[[New db]]"\n---\nOld.\n',
        )
        os.utime(vault / "Decisions/Dangling.md", ns=(1, 10**18 + 1))
        index.refresh()
        assert len(built) == 2
        links = dump(index)["links"]
        assert ("Decisions/Dangling.md", "Decisions/New db.md", "superseded_by", "[[New db]]") in links
        assert [r for r in links if r[0] != "Decisions/Dangling.md"] == [
            r for r in before if r[0] != "Decisions/Dangling.md"
        ]
        # A new page can make any link resolve: all of them are resolved again.
        write(vault / "Not yet.md", "# Not yet\n")
        write(
            vault / "Decisions/Dangling.md",
            '---\nstatus: superseded\nsuperseded_by: "[[Not yet]]"\n---\nOld.\n',
        )
        os.utime(vault / "Decisions/Dangling.md", ns=(1, 10**18 + 2))
        index.refresh()
        assert len(built) == 3
        assert ("Decisions/Dangling.md", "Not yet.md", "superseded_by", "[[Not yet]]") in dump(index)["links"]
    finally:
        index.close()


def _one_transaction(vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    """Every table of ``vault`` built in one chunk, in an index of its own: what a chunked build must store."""
    monkeypatch.setattr(index_refresh, "BUILD_CHUNK", 10_000)
    reference = Index(vault, path=tmp_path / "reference.sqlite3")
    try:
        reference.refresh()
        return dump(reference)
    finally:
        reference.close()


def test_a_chunked_build_packs_title_trigger_and_past_a_byte_counts_as_one_transaction_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chunk's postings are packed from byte columns, with a path of their own for terms that have
    title/alias or trigger counts or a body count past 255; the one-transaction refresh packs each
    page's postings one by one. Both must store the same lists."""
    vault = tmp_path / "vault"
    for i in range(9):
        write(
            vault / f"Notes/Gadget {i}.md",
            f"---\ntitle: Gadget {i}\naliases: [doohickey{i % 2}]\ntriggers: [when the sprocket{i % 3} jams]\n---\n"
            + "gadget sprocket1 filler " * (120 * i)  # 960 gadgets on the last page: past 2 bytes' 255
            + f"\nplain{i} words 数据库 迁移 only in the body.\n",
        )
    expected = _one_transaction(vault, tmp_path, monkeypatch)
    monkeypatch.setattr(index_refresh, "BUILD_CHUNK", 4)
    index = Index(vault)
    try:
        index.refresh()
        assert dump(index) == expected
        postings = dump(index)["postings"]
        gadget = [tfs for term, _page, *tfs in postings if term == "gadget"]
        assert max(body for _m, _t, body in gadget) > 0xFF and min(meta for meta, _t, _b in gadget) > 0
        assert any(trig for term, _page, _m, trig, _b in postings if term == "sprocket1")
    finally:
        index.close()


def test_a_chunked_build_of_pages_with_and_without_triggers_and_words_out_of_order_is_one_transactions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold build takes each page's terms in no particular order (its chunk is sorted whole) and
    skips tokenising and encoding the trigger and link columns a page leaves empty; the one-transaction
    refresh sorts each page's terms. Pages with and without triggers, with words first met in reverse
    term order and words only in a title, alias or trigger, mixed in chunks: the same rows."""
    vault = tmp_path / "vault"
    for i in range(11):
        front = f"title: Zulu{i} yankee\naliases: [xray{i % 2}]\n"
        if i % 3 == 0:
            front += f"triggers: [whiskey{i} victor, when uniform{i % 2} tangos]\n"
        if i % 4 == 1:
            front += f'status: superseded\nsuperseded_by: "[[Notes/Page {i + 1}]]"\n'
        write(
            vault / f"Notes/Page {i}.md",
            f"---\n{front}---\nzebra yak xylophone walrus{i} victor umbrella tango 数据库 迁移 "
            + ("zebra " * i)
            + "\n\n- alpha bravo\n",
        )
    expected = _one_transaction(vault, tmp_path, monkeypatch)
    monkeypatch.setattr(index_refresh, "BUILD_CHUNK", 3)
    index = Index(vault)
    try:
        index.refresh()
        rows = dump(index)
        assert rows == expected
        triggers = {path: trig for path, *_rest, trig, _other in rows["pages"]}
        assert triggers["Notes/Page 1.md"] == "[]" and triggers["Notes/Page 3.md"] != "[]"
        assert any(term == "whiskey3" and trig for term, _page, _m, trig, _b in rows["postings"])
    finally:
        index.close()
