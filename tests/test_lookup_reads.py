"""What a lookup reads once and keeps: the index generation within one read snapshot, and which
folders hold clipped material within one generation's tables. Kept too long, either would answer
from an index or a page table that is no longer the one on disk."""

from __future__ import annotations

import dataclasses
import json
import pickle
import threading
from pathlib import Path

from fresh_lookup import fresh_lookup
from vault_files import write

from krouter import Receipt, Router


def test_a_reader_sees_another_processs_refresh_on_its_next_lookup(tmp_path: Path) -> None:
    """The generation read inside one lookup's snapshot must not outlive it: a reader that does not
    refresh itself (as behind a watcher) must see what another process committed since."""
    vault = write(
        tmp_path / "v",
        {
            "Ops/Pager.md": "# Pager\n\nThe pager rotation changes every Monday.\n",
            "Ops/Backup.md": "# Backups\n\nBackups run nightly to cold storage.\n",
        },
    )
    with Router(vault) as writer, Router(vault, auto_refresh=False) as reader:
        writer.refresh()
        first = reader.decide("kestrel gateway certificate")
        assert first.decision == "refuse" and first.evidence.corpus_missing
        write(
            vault, {"Ops/Kestrel.md": "# Kestrel gateway\n\nThe kestrel gateway certificate renews in May.\n"}
        )
        writer.refresh()
        again = reader.decide("kestrel gateway certificate")
    assert again.decision == "cite" and again.top is not None
    assert again.top.path == "Ops/Kestrel.md"


def test_clipped_pages_are_found_in_any_folder_of_their_path_and_not_by_their_own_name(
    tmp_path: Path,
) -> None:
    """A page under an input folder at any depth ranks below the vault's own page with the same words;
    a top-level page named like the folder is the vault's own page."""
    text = "# Cache warmup\n\nThe cache warmup job runs before the morning traffic peak.\n"
    vault = write(
        tmp_path / "v",
        {
            "Projects/Inputs/Cache warmup.md": text,
            "Inputs.md": text,
            "Other.md": "# Other\n\nUnrelated notes about the garden.\n",
        },
    )
    with Router(vault) as router:
        receipt = router.decide("cache warmup job", k=2)
    assert [c.path for c in receipt.candidates] == ["Inputs.md", "Projects/Inputs/Cache warmup.md"]
    # Halved: the clipped page's score is half what its words alone would give it.
    assert receipt.candidates[1].score < 0.6 * receipt.candidates[0].score


def test_an_edited_page_is_cited_from_its_new_passages_not_the_kept_ones(tmp_path: Path) -> None:
    """Decoded passages are kept per index generation: after an edit moves the answer to another
    passage, the snippet and line must come from the new passages, in the same process."""
    vault = write(
        tmp_path / "v",
        {
            "Pets/Ferret.md": "# Ferret\n\nThe ferret eats twice a day.\n\nThe cage is in the hall.\n",
            "Ops/Backup.md": "# Backups\n\nBackups run nightly to cold storage.\n",
        },
    )
    with Router(vault) as router:
        first = router.decide("how often does the ferret eat")
        assert first.top is not None and (first.top.line, first.top.snippet) == (
            3,
            "The ferret eats twice a day.",
        )
        write(
            vault,
            {
                "Pets/Ferret.md": "# Ferret\n\nThe cage is in the hall.\n\nIt has a blue bowl.\n\n"
                "The ferret eats three times a day.\n"
            },
        )
        again = router.decide("how often does the ferret eat")
    assert again.top is not None and again.top.path == "Pets/Ferret.md"
    assert (again.top.line, again.top.snippet) == (7, "The ferret eats three times a day.")


def test_a_page_with_crlf_and_cr_lines_is_quoted_as_text_mode_reads_it(tmp_path: Path) -> None:
    """A cited page is read as bytes and decoded: its snippet must be what reading it in text mode gives
    (CRLF and a lone CR end lines, and neither is left in the text), on the line the file has it."""
    vault = tmp_path / "v"
    (vault / "Ops").mkdir(parents=True)
    (vault / "Ops/Kiln.md").write_bytes(
        "# Kiln\r\n\r\nOld café note.\r\rThe kiln firing takes nine hours.\r\n".encode()
    )
    (vault / "Ops/Backup.md").write_text("# Backups\n\nBackups run nightly.\n", encoding="utf-8")
    with Router(vault) as router:
        receipt = router.decide("how long is the kiln firing")
    assert receipt.top is not None and receipt.top.path == "Ops/Kiln.md"
    assert (receipt.top.line, receipt.top.snippet) == (5, "The kiln firing takes nine hours.")


def test_a_word_asked_again_scores_as_asked_first_and_an_edit_is_scored_anew(tmp_path: Path) -> None:
    """A long unit's per-page shares are kept for the next lookups of one index generation: a question
    asked again must get the receipt it got first (and a fresh router gets), and after an edit (a new
    generation: other tfs, another average length) the receipt of a router that never saw the old
    index."""
    # Half the pages hold the long unit (a weight that shows in the scores), in 1 to 4 sentences.
    pages = {
        f"Notes/{i:03d}.md": f"# Note {i}\n\n{'The ferret sleeps. ' * (1 + i % 4) if i % 2 else 'A heron.'}"
        f"{' An otter swims.' if i % 3 == 0 else ''}\n"
        for i in range(600)
    }
    vault = write(tmp_path / "vault", pages)

    def receipt(router: Router) -> str:
        found = dataclasses.asdict(router.decide("ferret otter"))
        found.pop("index")
        return json.dumps(found, sort_keys=True, default=repr)

    with Router(vault) as router:
        first = receipt(router)
        assert receipt(router) == first
        with Router(vault) as fresh:
            assert receipt(fresh) == first
        write(vault, {"Notes/009.md": "# Note 9\n\n" + "The ferret and the otter. " * 9 + "\n"})
        edited = receipt(router)
        assert edited != first
        with Router(vault) as fresh:
            assert receipt(fresh) == edited


def test_a_word_no_page_held_is_found_once_a_page_holds_it(tmp_path: Path) -> None:
    """Which words no page holds is remembered for one index generation (the same untranslatable
    candidates come back question after question): a page added later must be found at once."""
    vault = write(tmp_path / "vault", {"Ops/Pager.md": "# Pager\n\nThe pager rotation is weekly.\n"})
    with Router(vault) as router:
        before = router.decide("heron sightings")
        assert before.decision == "refuse" and "heron" in before.evidence.corpus_missing
        write(vault, {"Birds/Heron.md": "# Heron\n\nHeron sightings are logged at the north pond.\n"})
        after = router.decide("heron sightings")
        assert after.decision == "cite" and after.candidates[0].path == "Birds/Heron.md"


def test_a_receipts_runner_ups_read_later_give_the_passages_of_the_lookups_time(tmp_path: Path) -> None:
    """A runner-up's line and snippet are worked out when first read. Read later (by four threads at
    once, after the router that made the receipt closed its index, after one page was rewritten and
    another deleted) or pickled, they are each page's best passage as the lookup found it: an index read
    then would fail on a closed connection or a thread that does not own it, and a file read then would
    show a line of the page's new text (a cold review found both)."""
    vault = write(
        tmp_path / "v",
        {
            "Ops/Pager.md": "# Pager\n\nIntro line.\n\nThe pager rotation changes every Monday at nine.\n",
            "Ops/Pager old.md": "# Old pager\n\nSomething else.\n\nThe pager rotation used to change on Fridays.\n",
            "Ops/Rota.md": "# Rota\n\nNothing here.\n\nA rotation of the pager is also kept in a spreadsheet.\n",
        },
    )
    question = "when does the pager rotation change"
    with Router(vault) as router:
        at_once = router.decide(question, k=3)
        expected = [(c.path, c.line, c.snippet) for c in at_once.candidates]
        later = [router.decide(question, k=3) for _ in range(8)]
    assert len(expected) == 3 and all(line > 1 for _, line, _ in expected)
    write(vault, {"Ops/Rota.md": "# Rota\n\nSecret: do not share.\n\nAnother line.\n\nAnd one more.\n"})
    (vault / "Ops/Pager old.md").unlink()
    seen: list[list[tuple[str, int, str]]] = []
    errors: list[Exception] = []

    def read(receipt: Receipt) -> None:
        try:
            seen.append([(c.path, c.line, c.snippet) for c in receipt.candidates])
        except Exception as exc:  # a failure on a thread is the test's failure
            errors.append(exc)

    for receipt in later[:-1]:
        readers = [threading.Thread(target=read, args=(receipt,)) for _ in range(4)]
        for reader in readers:
            reader.start()
        for reader in readers:
            reader.join()
    assert not errors and seen and all(got == expected for got in seen)
    kept = pickle.loads(pickle.dumps(later[-1]))
    assert [(c.path, c.line, c.snippet) for c in kept.candidates] == expected
    assert dataclasses.asdict(later[0].candidates[2])["snippet"] == expected[2][2]


def test_a_page_found_by_its_title_shows_a_line_of_its_body_not_a_field(tmp_path: Path) -> None:
    """A cold review: every passage of a page found by its title weighs the same, and the earliest won:
    an extra frontmatter field ("owner: alice@example.com", an import's "source: ~/x.jsonl")."""
    vault = write(
        tmp_path / "vault",
        {
            "Deployment platform.md": "---\ntitle: Deployment platform\nowner: alice@example.com\n"
            "reviewed: quarterly\n---\nWe deploy every service on Fly.io, from the main branch.\n",
            "Lunch.md": "# Lunch\n\nPizza on Fridays.\n",
        },
    )
    with Router(vault) as router:
        receipt = router.ask("deployment platform")
    assert receipt.decision == "cite" and receipt.top is not None
    assert receipt.top.line == 6 and "Fly.io" in receipt.top.snippet


def test_a_lookup_does_not_load_the_pages_segmenter(tmp_path: Path) -> None:
    """The receipt's line reads a section heading's words and a passage's words outside its links; read
    with the index's segmenter, a Chinese heading loaded jieba's full dictionary into the lookup (0.3 s
    and its memory, on a fresh `krouter ask`)."""
    vault = write(
        tmp_path / "v",
        {
            "运维/告警.md": "# 告警\n\n## 告警渠道\n- 告警发到飞书群「线上告警」,见 [[运维/值班]]\n",
            "运维/值班.md": "# 值班\n\n每人值班一周。\n",
        },
    )
    got = fresh_lookup(vault, "告警发到哪个群", tmp_path)
    assert (got["path"], got["line"], got["segmenter_loaded"]) == ("运维/告警.md", 4, False), got


def test_a_price_question_does_not_load_the_pages_segmenter(tmp_path: Path) -> None:
    """The price check (D93) reads the cited page's title and lines for the question's words as the
    receipt's line does: cut by the pages' segmenter, a Chinese page loaded jieba's whole dictionary into
    a fresh `krouter ask` (~370 ms), which D148's price units let more questions reach (a review)."""
    vault = write(
        tmp_path / "v",
        {
            "包装/珍珠棉内衬.md": "# 珍珠棉内衬\n\n| 项目 | 说明 |\n|---|---|\n| 价格 | ¥4.4/套 |\n| 交期 | 12 天 |\n",
            "包装/彩盒.md": "# 彩盒\n\n彩盒由宏达印刷，每批 5000 个起订。\n",
        },
    )
    got = fresh_lookup(vault, "珍珠棉内衬多少钱一套？", tmp_path)
    assert (got["decision"], got["path"], got["segmenter_loaded"]) == ("cite", "包装/珍珠棉内衬.md", False), (
        got
    )
