"""Pruned scoring (MaxScore) in a large vault must answer exactly as scoring every posting does.

Questions over many postings first find the pages that can still reach the window of best pages the
ranking walks, and score only those. Every receipt, field by field (scores, ranking, redirects, skipped
replaced pages, coverage, decision), must be the same as with pruning off: on a generated vault with
replaced decisions, clipped pages under Inputs/ and English and Chinese questions.
"""

from __future__ import annotations

import dataclasses
import heapq
import importlib.util
import json
import sys
from pathlib import Path

import pytest

from krouter.routing import scoring
from krouter.routing.question import question_units
from krouter.routing.router import Router

VAULTGEN = Path(__file__).resolve().parents[1] / "bench" / "perf" / "vaultgen.py"


def generate(folder: Path, pages: int, questions: int) -> list[dict[str, str]]:
    spec = importlib.util.spec_from_file_location("krouter_prune_vaultgen", VAULTGEN)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    manifest = module.generate(folder, pages, seed=11, n_questions=questions)
    return manifest["questions"]


def _count_pruning(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """A list that records, for each scoring that tried to prune, whether it ruled pages out."""
    pruned: list[bool] = []
    real = scoring._reachable

    def counting(*args: object) -> set[int] | None:
        out = real(*args)  # type: ignore[arg-type]
        pruned.append(out is not None)
        return out

    monkeypatch.setattr(scoring, "_reachable", counting)
    return pruned


def test_pruned_scoring_gives_the_same_receipts_as_scoring_every_posting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    questions = generate(tmp_path / "vault", 700, 40)
    texts = [q["text"] for q in questions] + ["deploy rollback checklist", "服务 部署 回滚"]
    pruned = _count_pruning(monkeypatch)
    with Router(tmp_path / "vault", auto_refresh=False) as router:
        router.refresh()
        # Questions of the vault's commonest words, a rarer one beside them: many postings, many ties.
        counts: dict[str, int] = {}
        for term, *_ in router.index.all_postings():
            counts[term] = counts.get(term, 0) + 1
        common = [t for t, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if t.isalpha()][:40]
        texts += [f"{a} {b} {c}" for a, b, c in zip(common[0::3], common[1::3], common[2::3], strict=False)]

        def receipts(limit: int) -> list[str]:
            monkeypatch.setattr(scoring, "PRUNE_POSTINGS", limit)
            out = []
            for text in texts:
                for k in (1, 5):
                    receipt = router.decide(text, k=k)
                    out.append(json.dumps(dataclasses.asdict(receipt), sort_keys=True, default=str))
            return out

        full = receipts(10**12)
        assert not pruned
        assert receipts(-1) == full
    assert sum(pruned) >= 5  # the pruned path was taken, not just tried (9 times with this seed)


def test_pruned_scoring_walks_every_page_when_ties_crowd_the_window(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """150 identical pages tie for the top: the ranking must walk every page, those pruning left out
    included (here: replaced pages with no successor, which the receipt lists as skipped)."""
    vault = tmp_path / "vault"
    for i in range(300):
        words = "alpha beta gamma" if i < 150 else "gamma"
        head = '---\nstatus: superseded\nsuperseded_by: "[[Nowhere]]"\n---\n' if i >= 290 else ""
        (vault / "P").mkdir(parents=True, exist_ok=True)
        (vault / "P" / f"{i:03d}.md").write_text(f"{head}# Note\n\nThe {words} note.\n", encoding="utf-8")
    for i in range(100):
        (vault / "Q").mkdir(parents=True, exist_ok=True)
        (vault / "Q" / f"{i:03d}.md").write_text(f"# Other {i}\n\nUnrelated delta{i}.\n", encoding="utf-8")
    pruned = _count_pruning(monkeypatch)
    with Router(vault, auto_refresh=False) as router:
        router.refresh()
        monkeypatch.setattr(scoring, "PRUNE_POSTINGS", 10**12)
        full = router.decide("alpha beta gamma")
        monkeypatch.setattr(scoring, "PRUNE_POSTINGS", -1)
        again = router.decide("alpha beta gamma")
    assert pruned == [True]
    assert full.skipped and dataclasses.asdict(again) == dataclasses.asdict(full)


def _write(vault: Path, rel: str, text: str) -> None:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _shaped_vault(vault: Path) -> None:
    """Pages built so that MaxScore prunes: a rare word (zeta) with tfs and page lengths that vary, a
    word on every page (common), ties (40 identical pages), clipped pages under Inputs/ whose unhalved
    scores would lead, and a replaced page that leads nowhere."""
    filler = "lorem ipsum dolor sit amet"
    for i in range(200):
        zeta = " zeta" * (1 + i % 4) if i < 120 else ""
        omega = " omega" if i % 3 == 0 else ""
        _write(vault, f"P/{i:03d}.md", f"# Page {i}\n\nThe common{zeta}{omega} note. {filler * (i % 7)}\n")
    for i in range(40):
        _write(vault, f"T/{i:03d}.md", "# Tie\n\nThe common zeta zeta omega note.\n")
    for i in range(30):
        _write(vault, f"Inputs/{i:03d}.md", f"# Clip {i}\n\nThe common{' zeta' * 9} omega clip.\n")
    _write(
        vault,
        "P/gone.md",
        '---\nstatus: superseded\nsuperseded_by: "[[Nowhere]]"\n---\n# Gone\n\nzeta zeta zeta zeta zeta common.\n',
    )


@pytest.mark.parametrize("question", ["zeta common", "common zeta omega", "omega zeta", "common"])
@pytest.mark.parametrize("k", [1, 5, 300])
def test_pruned_ranking_equals_full_scoring_on_constructed_cases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, question: str, k: int
) -> None:
    """Ties, a word on every page, clipped pages and k larger than the pages that match: the pruned
    scores are a full scoring's floats, and the receipt (ranking, redirects, skipped pages, coverage)
    is the same, also when the second asking sums the shares kept from the first."""
    vault = tmp_path / "vault"
    _shaped_vault(vault)
    pruned = _count_pruning(monkeypatch)
    with Router(vault, auto_refresh=False) as router:
        router.refresh()
        monkeypatch.setattr(scoring, "PRUNE_POSTINGS", 10**12)
        full = [dataclasses.asdict(router.decide(question, k=k)) for _ in range(2)]
        assert not pruned
        monkeypatch.setattr(scoring, "PRUNE_POSTINGS", -1)
        again = [dataclasses.asdict(router.decide(question, k=k)) for _ in range(2)]
        assert again == full
        # The scores themselves, to the bit, for the pages the pruned scoring kept.
        tables = router._load_tables()
        with router.index.snapshot():
            units = question_units(question, router.index, tables)
            window = scoring.walk_window(k)
            kept, _, _ = scoring.score(units, tables, window)
            every = scoring._accumulate(units, tables)
    assert [p for p in every if p in kept.acc] == list(kept.acc)
    assert {p: s.hex() for p, s in kept.acc.items()} == {p: every[p].hex() for p in kept.acc}
    assert scoring._best(kept.acc, window) == heapq.nlargest(window, every, key=every.__getitem__)
    # Where pruning can rule pages out (a rare word beside a word every page has), it did.
    if question in ("zeta common", "common zeta omega") and k < 300:
        assert pruned and all(pruned) and len(kept.acc) < len(every)
    else:
        assert len(kept.acc) == len(every) or all(pruned)


def test_best_window_keeps_the_order_ties_were_reached_in() -> None:
    """The window `top_targets` walks is heapq.nlargest's, ties in first-reached order, whatever the
    window's size against the number of pages."""
    acc = {pid: float(pid % 5) for pid in range(100, 0, -1)}
    for n in (1, 3, 20, 21, 99, 100, 250):
        assert scoring._best(acc, n) == heapq.nlargest(n, acc, key=acc.__getitem__)
    assert scoring._best({}, 5) == []
