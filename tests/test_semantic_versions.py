"""Two KRouter versions on one vault share its page vectors (one file for every index version): what
another version's index still holds is not forgotten by this one's (an upgrade hunt: an older install's
lookups and server re-embedded, in turn, every page the newer one's Obsidian filters left out, and each
lookup of the newer one deleted them again)."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import pytest

from krouter import Router
from krouter.index.schema import index_path
from krouter.routing.vectors import DIM, vector_key
from tests.vault_files import write

PAGES = {
    "Runbooks/Release train.md": "# Release train\n\nWe release to production every Tuesday afternoon.\n",
    "Decisions/Primary database.md": "# Primary database\n\nWe run PostgreSQL 16 in eu-west-1.\n",
}


def _keys(vectors: Path) -> set[str]:
    with contextlib.closing(sqlite3.connect(vectors)) as conn:
        return {k for (k,) in conn.execute("SELECT key FROM page_vectors")}


def test_the_vectors_another_versions_index_holds_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KROUTER_SEMANTIC", "auto")
    vault = write(tmp_path / "vault", PAGES)
    with Router(vault, embed_budget_s=None) as router:
        router.refresh()
        assert router.vectors is not None
        vectors = router.vectors.path
    # Another version's index of the vault, beside this one's, which titles a page its own way (or
    # holds a page this version leaves out), and its vectors for that page in the shared file.
    here = index_path(vault)
    other = here.with_name(here.name.replace(here.stem.rsplit("-", 1)[1], "v1.1"))
    with contextlib.closing(sqlite3.connect(here)) as src, contextlib.closing(sqlite3.connect(other)) as dst:
        src.backup(dst)
        dst.execute("UPDATE pages SET title = 'Release schedule' WHERE path = 'Runbooks/Release train.md'")
        dst.commit()
        (digest,) = dst.execute("SELECT hash FROM pages WHERE path = 'Runbooks/Release train.md'").fetchone()
    theirs, nobodys = vector_key(digest, "Release schedule"), vector_key("0" * 64, "Gone page")
    with contextlib.closing(sqlite3.connect(vectors)) as conn:
        conn.executemany(
            "INSERT INTO page_vectors VALUES (?, ?)", [(k, bytes(2 * DIM)) for k in (theirs, nobodys)]
        )
        conn.commit()
    page = vault / "Decisions/Primary database.md"
    page.write_text(page.read_text(encoding="utf-8") + "It has a hot standby.\n", encoding="utf-8")
    with Router(vault, embed_budget_s=None) as router:
        router.refresh()
    keys = _keys(vectors)
    assert theirs in keys  # another version's page: kept
    assert nobodys not in keys  # no index holds it: forgotten, as before
