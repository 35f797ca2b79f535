"""The ranking's targets: the best k+1 current pages and every page tying the last of them, exactly as a
walk over every scored page finds them, whatever crowds the walked window (replaced pages, dead ends,
ties, clipped pages) and whether the scoring was pruned."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from krouter.routing import scoring
from krouter.routing.question import question_units
from krouter.routing.router import Router
from krouter.routing.tables import Tables

WORDS = ["ferry", "timetable", "harbour", "spring", "ticket", "deck", "crew", "anchor"]


def _write(vault: Path, rel: str, text: str) -> None:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _random_vault(vault: Path, seed: int) -> None:
    """Pages of a few shared words, common and rare ones (so that pruning rules pages out), many of them
    identical (ties), some clipped, some replaced: by a current page, by another replaced page (a
    chain), or by no page (a dead end)."""
    rng = random.Random(seed)
    for i in range(rng.randint(300, 420)):
        words = " ".join(rng.choices(WORDS, weights=(40, 30, 12, 8, 4, 3, 2, 1), k=rng.randint(1, 6)))
        if rng.random() < 0.25:
            words = "ferry timetable harbour anchor"  # identical pages: ties
        folder = "Inputs" if rng.random() < 0.1 else "Notes"
        head = ""
        kind = rng.random()
        if kind < 0.05:
            head = '---\nstatus: superseded\nsuperseded_by: "[[Nowhere]]"\n---\n'
        elif kind < 0.2 and i > 0:
            head = f'---\nstatus: superseded\nsuperseded_by: "[[p{rng.randrange(i):03d}]]"\n---\n'
        _write(vault, f"{folder}/p{i:03d}.md", f"{head}# Note {i % 7}\n\nThe {words} note.\n")


def _walk_every_page(scores: scoring.Scores, t: Tables) -> dict[int, tuple[float, int | None, set[int]]]:
    """Per current page: (its best contributor's score, the replaced page that contributor is or None,
    every contributor), walking every scored page best first (ties in first-reached order)."""
    scores.fill()
    acc = scores.acc
    out: dict[int, tuple[float, int | None, set[int]]] = {}
    for pid in sorted(acc, key=acc.__getitem__, reverse=True):
        red = t.redirect.get(pid)
        if red is None:
            target = pid
        elif red.to_path is None or red.to_path not in t.by_path:
            continue
        else:
            target = t.by_path[red.to_path]
        if target not in out:
            out[target] = (acc[pid], pid if pid != target else None, set())
        out[target][2].add(pid)
    return out


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("prune", [False, True])
def test_targets_are_the_best_k_plus_one_and_their_ties(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int, prune: bool
) -> None:
    vault = tmp_path / "vault"
    _random_vault(vault, seed)
    monkeypatch.setattr(scoring, "PRUNE_POSTINGS", -1 if prune else 10**12)
    questions = ["ferry timetable", "harbour ticket deck", "crew anchor spring", "ferry", "timetable harbour"]
    checked = pruned = 0
    with Router(vault, auto_refresh=False) as router:
        router.refresh()
        t = router._load_tables()
        for question in questions:
            for k in (1, 2, 5, 9):
                with router.index.snapshot():
                    units = question_units(question, router.index, t)
                    scores, _, _ = scoring.score(units, t, scoring.walk_window(k))
                    pruned += not scores.complete
                    targets, _, _ = scoring.top_targets(scores, k, t)
                    every = _walk_every_page(scores, t)
                ranked = sorted((s for s, _, _ in every.values()), reverse=True)
                bar = ranked[k] if len(ranked) > k else float("-inf")
                want = {pid for pid, (s, _, _) in every.items() if s >= bar}
                assert set(targets) == want, (question, k)
                for pid, tgt in targets.items():
                    score, via, contributors = every[pid]
                    assert (tgt.score.hex(), tgt.via, set(tgt.contributors)) == (
                        score.hex(),
                        via,
                        contributors,
                    )
                    assert len(tgt.contributors) == len(contributors)
                checked += len(want) > k + 1  # ties past the (k+1)-th were kept
    assert checked  # the vaults make ties at the edge
    assert pruned if prune else not pruned  # pruning ruled pages out


@pytest.mark.parametrize("seed", range(6))
def test_pruned_receipts_equal_full_scoring_on_random_vaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """Whole receipts (ranking, redirects, skipped dead ends, coverage, decision), pruned and not."""
    vault = tmp_path / "vault"
    _random_vault(vault, seed)
    questions = ["ferry timetable", "harbour ticket deck", "crew anchor spring", "timetable harbour deck"]
    with Router(vault, auto_refresh=False) as router:
        router.refresh()

        def receipts(limit: int) -> list[dict[str, object]]:
            monkeypatch.setattr(scoring, "PRUNE_POSTINGS", limit)
            return [dataclasses.asdict(router.decide(q, k=k)) for q in questions for k in (1, 5, 9)]

        assert receipts(-1) == receipts(10**12)
