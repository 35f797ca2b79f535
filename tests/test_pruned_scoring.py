"""Pruned scoring (MaxScore) in a large vault must answer exactly as scoring every posting does.

Questions over many postings first find the pages that can still reach the window of best pages the
ranking walks, and score only those. Every receipt, field by field (scores, ranking, redirects, skipped
replaced pages, coverage, decision), must be the same as with pruning off: on a generated vault with
replaced decisions, clipped pages under Inputs/ and English and Chinese questions.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import sys
from pathlib import Path

import pytest

from krouter.routing import scoring
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


def test_pruned_scoring_gives_the_same_receipts_as_scoring_every_posting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    questions = generate(tmp_path / "vault", 700, 40)
    texts = [q["text"] for q in questions] + ["deploy rollback checklist", "服务 部署 回滚"]
    pruned: list[bool] = []
    real = scoring._reachable

    def counting(*args: object) -> set[int] | None:
        out = real(*args)  # type: ignore[arg-type]
        pruned.append(out is not None)
        return out

    monkeypatch.setattr(scoring, "_reachable", counting)
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
    pruned: list[bool] = []
    real = scoring._reachable

    def counting(*args: object) -> set[int] | None:
        out = real(*args)  # type: ignore[arg-type]
        pruned.append(out is not None)
        return out

    monkeypatch.setattr(scoring, "_reachable", counting)
    with Router(vault, auto_refresh=False) as router:
        router.refresh()
        monkeypatch.setattr(scoring, "PRUNE_POSTINGS", 10**12)
        full = router.decide("alpha beta gamma")
        monkeypatch.setattr(scoring, "PRUNE_POSTINGS", -1)
        again = router.decide("alpha beta gamma")
    assert pruned == [True]
    assert full.skipped and dataclasses.asdict(again) == dataclasses.asdict(full)
