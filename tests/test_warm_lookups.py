"""What a long-lived router keeps between lookups of one index generation: decoded postings lists (short
ones too) and decoded passages, each bounded and dropped least recently used first. Kept, they must
answer as a fresh router does; after an edit (a new generation), as a router that never saw the old
index does, in the same process."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from vault_files import write

from krouter import Router
from krouter.index import store


def receipt(router: Router, question: str, k: int = 5) -> str:
    found = dataclasses.asdict(router.decide(question, k=k))
    found.pop("index")
    return json.dumps(found, sort_keys=True, ensure_ascii=False, default=repr)


def coffee_vault(root: Path) -> Path:
    """40 Chinese pages about coffee (a list of 40 pages: kept now, under the old 256-page minimum),
    in 1 to 4 sentences, and a few about tea."""
    pages = {
        f"笔记/咖啡{i:02d}.md": f"# 咖啡 {i}\n\n{'咖啡机每天早上清洗。' * (1 + i % 4)}\n" for i in range(40)
    }
    pages.update({f"笔记/茶{i}.md": f"# 茶 {i}\n\n绿茶放在柜子里。\n" for i in range(5)})
    return write(root, pages)


def test_a_short_list_kept_decoded_answers_as_a_fresh_router_and_an_edit_is_seen(tmp_path: Path) -> None:
    vault = coffee_vault(tmp_path / "vault")
    question = "咖啡机什么时候清洗"
    with Router(vault) as router:
        # k=50: every page that holds a word is listed, with its score.
        first = receipt(router, question, 50)
        assert receipt(router, question, 50) == first  # from the kept lists
        with Router(vault) as fresh:
            assert receipt(fresh, question, 50) == first
        # A new page that holds the words many times, and the page cited first loses them.
        top = json.loads(first)["candidates"][0]["path"]
        write(
            vault,
            {
                "笔记/新咖啡机.md": "# 新咖啡机\n\n" + "咖啡机清洗的时间是每天早上七点。" * 6 + "\n",
                top: "# 空\n\n绿茶放在柜子里。\n",
            },
        )
        edited = receipt(router, question, 50)
        assert edited != first
        cited = [c["path"] for c in json.loads(edited)["candidates"]]
        assert "笔记/新咖啡机.md" in cited and top not in cited
        with Router(vault) as fresh:
            assert receipt(fresh, question, 50) == edited


def test_passages_past_the_bound_are_read_again_and_an_edit_is_quoted_anew(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With room for two pages' passages, citing others drops the first page's; asking about it again
    reads them again, and after an edit the snippet comes from the new text."""
    monkeypatch.setattr(store, "_PASSAGES_KEPT", 2)
    vault = write(
        tmp_path / "v",
        {
            "Pets/Ferret.md": "# Ferret\n\nThe cage is in the hall.\n\nThe ferret eats twice a day.\n",
            "Pets/Heron.md": "# Heron\n\nThe heron fishes at the north pond.\n",
            "Pets/Otter.md": "# Otter\n\nThe otter swims after lunch.\n",
            "Pets/Newt.md": "# Newt\n\nThe newt sleeps under the stone.\n",
        },
    )
    questions = ["how often does the ferret eat", "where does the heron fish", "when does the otter swim"]
    with Router(vault) as router:
        first = [receipt(router, q) for q in questions]
        assert len(router.index._passages[1]) <= 2
        again = [receipt(router, q) for q in questions]
        assert again == first
        with Router(vault) as fresh:
            assert [receipt(fresh, q) for q in questions] == first
        receipt(router, questions[0])  # the ferret's passages kept again, then the page is edited
        write(vault, {"Pets/Ferret.md": "# Ferret\n\nThe ferret eats three times a day.\n\nIt has a bowl.\n"})
        edited = router.decide(questions[0])
    assert edited.top is not None and edited.top.path == "Pets/Ferret.md"
    assert (edited.top.line, edited.top.snippet) == (3, "The ferret eats three times a day.")


def test_passages_kept_are_bounded_by_their_text_not_only_by_their_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page may hold up to 8 MB (a transcript): 1024 kept pages of those would be gigabytes. The
    passages kept stay within a budget of text, the least recently read dropped first, and a page read
    again answers as before."""
    monkeypatch.setattr(store, "_PASSAGES_CHARS", 60_000, raising=False)
    line = "The standup notes mention the release train and the staging database.\n\n"
    vault = write(tmp_path / "v", {f"Logs/Day {i:02d}.md": f"# Day {i}\n\n" + line * 400 for i in range(8)})
    with Router(vault) as router:
        router.refresh()
        first = [router.index.passage_rows(pid) for pid in range(1, 9)]
        assert all(len(rows) == 401 for rows in first)
        kept = router.index._passages[1]
        assert sum(len(terms) for rows in kept.values() for _, terms in rows) <= 60_000 + max(
            sum(len(terms) for _, terms in rows) for rows in first
        )
        assert len(kept) < 8
        assert [router.index.passage_rows(pid) for pid in range(1, 9)] == first
