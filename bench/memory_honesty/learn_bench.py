#!/usr/bin/env python3
"""Learner bench: does one learner run make next week's wording of last week's questions land, without
teaching wrong pages or letting neighbour questions through?

Per bench vault, a pairs file holds the same intent in two wordings (``{"id", "week1", "week2", "gold"}``).
On a scratch copy of the vault with a fresh state dir: week-2 wordings (and the vault's refuse questions)
are scored, week-1 wordings are asked through ``Router.ask`` so they enter a fresh query log, the learner
runs once, and everything is scored again.

The default model is scripted (for tests and CI): it picks the gold page when the learner shows it as a
candidate and copies the page sentence sharing most words with the question, and says "none" otherwise.
``--lane careless`` always proposes the first candidate and ``--lane lexical`` the candidate sharing most
words with the question: stand-ins for a careless model, to measure what the learner's checks stop.
``--lane api`` (needs ANTHROPIC_API_KEY) or ``--lane claude`` uses a real model.

The agent lane (``--agent honest|careless``) has no nightly run: in week 1 an agent asks each question
(with its phrasings from ``phrasings/``, written by helpers who saw only the questions), and on a
refusal reads the closest pages the receipt names and may teach one through ``krouter.learner.teach`` (the checks and caps an MCP agent meets). The
honest stand-in teaches only when the gold page is among the pages it read, with a real sentence from
it; the careless one teaches the closest page whatever it is, with its first sentence. ``--pairs
distant`` (the default when the files exist) uses pairs whose week-2 wording shares almost none of week
1's content words, ``--pairs mid`` pairs that keep a quarter to a half of them, ``--pairs everyday`` the
same with week 1 worded as people type it on a busy day; the report gives that overlap. ``--cold-start`` scores the cross-language and
colloquial dev sets with and without phrasings.

``--pending agents|all|none`` sets ``pending_triggers`` (docs/decisions.md D50): whose verified picks are
held until a second source agrees (default ``all``, as shipped). In the agent lane, ``--confirm-with
LANE`` runs the nightly learner after week 1 with a stand-in (``scripted``, ``careless``, ``lexical``) as
that second source (``all``: the model's own picks are held too), and ``--owner review`` stands for an owner who accepts the held picks on the gold
page and rejects the rest (``krouter learn --accept`` / ``--reject``).

    python bench/memory_honesty/learn_bench.py [--set dev|dev2|dev3|all] [--lane scripted|careless|lexical|api|claude]
    python bench/memory_honesty/learn_bench.py --agent honest|careless [--pairs distant|mid|everyday|dev] [--no-phrasings]
        [--teach-phrasings]
    python bench/memory_honesty/learn_bench.py --cold-start
    python bench/memory_honesty/learn_bench.py --agent honest --pending agents --confirm-with scripted
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE.parents[1]) not in sys.path:
    sys.path.insert(0, str(HERE.parents[1]))

from krouter.config import Config  # noqa: E402
from krouter.learner import journal as learn_journal  # noqa: E402
from krouter.learner import nightly, pending, teach  # noqa: E402
from krouter.learner.lane_choice import make_lane  # noqa: E402
from krouter.learner.lanes import Lane  # noqa: E402
from krouter.learner.quotes import is_sentence  # noqa: E402
from krouter.learner.report import LEARNED, PENDING  # noqa: E402
from krouter.routing.router import Router  # noqa: E402
from krouter.tokens.terms import index_terms, query_terms  # noqa: E402
from krouter.vault.page import parse_page  # noqa: E402

# name: (vault folder, pairs file, the vault's question file whose "refuse" questions are the neighbours)
SETS: dict[str, tuple[str, str, str]] = {
    "dev": ("vault", "learn_pairs_dev.jsonl", "questions_dev.jsonl"),
    "dev2": ("vault2", "learn_pairs_dev2.jsonl", "questions_dev2.jsonl"),
    "dev3": ("vault3", "learn_pairs_dev3.jsonl", "questions_dev3.jsonl"),
    # The fourth vault (fifteenth session) has no near-copy pairs: its nightly lanes run on the pairs in
    # ordinary work language that keep a quarter to a half of their words (MID).
    "dev4": ("vault4", "learn_pairs_mid4.jsonl", "questions_dev4.jsonl"),
}
# The same vaults with distant pairs: week 2 shares at most half of week 1's content words.
DISTANT: dict[str, str] = {
    "dev": "learn_pairs_distant1.jsonl",
    "dev2": "learn_pairs_distant2.jsonl",
    "dev3": "learn_pairs_distant3.jsonl",
}
# The same vaults with pairs whose week 2 shares between a quarter and a half of week 1's content words
# (written by a helper who saw only the vaults, after the distant pairs): the next wording of an intent
# as people usually repeat it, some words kept.
MID: dict[str, str] = {
    "dev": "learn_pairs_mid1.jsonl",
    "dev2": "learn_pairs_mid2.jsonl",
    "dev3": "learn_pairs_mid3.jsonl",
    "dev4": "learn_pairs_mid4.jsonl",
}
# Pairs whose week 1 is worded as people type on a busy day (everyday words, colloquial Chinese, some
# cross-language), week 2 keeping a quarter to a half of week 1's content words (written by a helper who
# saw only the vaults, 2026-12-02): week 1 is refused more often here, so there is something to teach.
EVERYDAY: dict[str, str] = {
    "dev": "learn_pairs_everyday1.jsonl",
    "dev2": "learn_pairs_everyday2.jsonl",
    "dev3": "learn_pairs_everyday3.jsonl",
    "dev4": "learn_pairs_everyday4.jsonl",
}
# Question sets asked in other words than the pages (cold start): (vault folder, question file).
COLD_START: dict[str, tuple[str, str]] = {
    "crosslang2": ("vault2", "questions_crosslang2.jsonl"),
    "crosslang3": ("vault3", "questions_crosslang3.jsonl"),
    "colloquial": ("vault2", "questions_colloquial.jsonl"),
}
# How many of the closest pages a refused agent reads before it decides whether to teach.
READ_PAGES = 3
# A Latin full stop ends a sentence only before a space ("api.tallyhq.com" is one word); CJK ones always do.
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|(?<=[。！？；])")
_QUOTED = re.compile(r"[\x27\x22].*")
_LINE_MARK = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+|#+\s+|>\s*)")


@dataclass(frozen=True)
class Pair:
    """One intent in two wordings, and the page that answers it."""

    id: str
    week1: str
    week2: str
    gold: str


def load_pairs(path: Path) -> list[Pair]:
    """Read a pairs file (one JSON object per line)."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        obj = json.loads(line)
        try:
            out.append(Pair(obj["id"], obj["week1"], obj["week2"], obj["gold"]))
        except KeyError as exc:
            raise SystemExit(f"{path}:{n}: missing field {exc}") from exc
    return out


def load_refuse(path: Path) -> list[str]:
    """The refuse questions of a vault's question file (empty when the file is missing)."""
    if not path.is_file():
        return []
    qs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [q["q"] for q in qs if q.get("kind") == "refuse"]


def sentences(body: str) -> list[str]:
    """Candidate sentences of a page: lines without list/heading marks, split at sentence ends."""
    out = []
    for line in body.splitlines():
        line = _LINE_MARK.sub("", line).strip()
        if not line or line.startswith(("|", "```")):
            if line.startswith("|"):
                out.extend(c.strip() for c in [" ".join(line.strip("|").split("|"))] if c.strip())
            continue
        out.extend(s.strip() for s in _SENTENCE_END.split(line) if s.strip())
    return out


def best_sentence(body: str, question: str) -> str | None:
    """The sentence that shares the most content words with the question (first one on ties)."""
    wanted = {qt.term for qt in query_terms(question)}
    best, best_n = None, 0
    for s in sentences(body):
        if not is_sentence(s):
            continue
        n = len(wanted & set(index_terms(s)))
        if n > best_n:
            best, best_n = s, n
    return best


class ScriptedLane:
    """A stand-in model: picks the gold page if it is a candidate, quoting its best-matching sentence."""

    name = "scripted"
    model = "scripted"

    def __init__(self, root: Path, gold: dict[str, str]) -> None:
        self.root = root
        self.gold = {" ".join(q.split()): g for q, g in gold.items()}
        self.calls = 0

    def complete(self, system: str, prompt: str) -> str:
        """Read the questions block of the prompt and answer each question with ``pick``."""
        self.calls += 1
        block = prompt.split("QUESTIONS (JSON):\n", 1)[1].split("\n\nPAGES:", 1)[0]
        answers: list[dict[str, Any]] = []
        for item in json.loads(block):
            picked = self.pick(item["question"], item["candidates"])
            if picked is None:
                answers.append({"q": item["q"], "page": None})
            else:
                answers.append({"q": item["q"], "page": picked[0], "quote": picked[1]})
        return json.dumps({"answers": answers}, ensure_ascii=False)

    def quote_from(self, path: str, question: str) -> str | None:
        """The sentence of a page that shares most words with the question."""
        page = parse_page(path, (self.root / path).read_text(encoding="utf-8"))
        return best_sentence(page.body, question)

    def pick(self, question: str, candidates: list[str]) -> tuple[str, str] | None:
        """The gold page and its quote, when the gold page is a candidate; else no page."""
        gold = self.gold.get(question)
        if gold is None or gold not in candidates:
            return None
        quote = self.quote_from(gold, question)
        return (gold, quote) if quote else None


class CarelessLane(ScriptedLane):
    """A stand-in for a model that always answers: the first candidate shown, its best-matching sentence.

    It measures what the learner's checks stop, not what a model gets right: every wrong page it
    proposes (a neighbour question's closest page, a paraphrase's wrong first hit) must be rejected."""

    name = "careless"
    model = "scripted-careless"

    def pick(self, question: str, candidates: list[str]) -> tuple[str, str] | None:
        """The first candidate listed."""
        quote = self.quote_from(candidates[0], question) if candidates else None
        return (candidates[0], quote) if quote else None


class LexicalLane(ScriptedLane):
    """A stand-in for a model that always answers and judges by shared words: the candidate whose best
    sentence shares the most content words with the question, whatever order the candidates come in.

    Unlike ``careless`` it is not fooled by the order of the list, so it shows what reaches the
    learner's checks from a model that is consistently, confidently wrong."""

    name = "lexical"
    model = "scripted-lexical"

    def pick(self, question: str, candidates: list[str]) -> tuple[str, str] | None:
        """The candidate whose best sentence overlaps the question most (first by path on ties)."""
        wanted = {qt.term for qt in query_terms(question)}
        best: tuple[int, str, str] | None = None
        for path in sorted(candidates):
            quote = self.quote_from(path, question)
            if quote is None:
                continue
            overlap = len(wanted & set(index_terms(quote)))
            if best is None or overlap > best[0]:
                best = (overlap, path, quote)
        return (best[1], best[2]) if best else None


@contextmanager
def scratch_env(tmp: Path, pending_mode: str | None = None) -> Iterator[None]:
    """Point the state, cache and config dirs at a scratch folder and turn the query log on; with
    ``pending_mode``, write it as ``pending_triggers`` in the scratch config.toml."""
    if pending_mode is not None:
        (tmp / "config").mkdir(parents=True, exist_ok=True)
        (tmp / "config" / "config.toml").write_text(
            f'pending_triggers = "{pending_mode}"\n', encoding="utf-8"
        )
    keys = ("KROUTER_STATE_DIR", "KROUTER_CACHE_DIR", "KROUTER_CONFIG_DIR", "KROUTER_NO_QUERY_LOG")
    saved = {k: os.environ.get(k) for k in keys}
    os.environ["KROUTER_STATE_DIR"] = str(tmp / "state")
    os.environ["KROUTER_CACHE_DIR"] = str(tmp / "cache")
    os.environ["KROUTER_CONFIG_DIR"] = str(tmp / "config")
    os.environ.pop("KROUTER_NO_QUERY_LOG", None)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def score(router: Router, pairs: list[Pair], refuse: list[str], which: str) -> dict[str, int]:
    """Right answers, wrong citations and refusals for one wording; neighbours refused."""
    out = {"right": 0, "wrong": 0, "refused": 0, "neighbours_refused": 0, "neighbours_cited": 0}
    for p in pairs:
        r = router.decide(getattr(p, which))
        if r.decision == "refuse":
            out["refused"] += 1
        elif r.top is not None and r.top.path == p.gold:
            out["right"] += 1
        else:
            out["wrong"] += 1
    for q in refuse:
        key = "neighbours_refused" if router.decide(q).decision == "refuse" else "neighbours_cited"
        out[key] += 1
    return out


def _lane(lane_name: str, root: Path, pairs: list[Pair], model: str) -> Lane:
    if lane_name == "scripted":
        return ScriptedLane(root, {p.week1: p.gold for p in pairs})
    if lane_name == "careless":
        return CarelessLane(root, {})
    if lane_name == "lexical":
        return LexicalLane(root, {})
    return make_lane(lane_name, model)


def run_set(
    vault: Path,
    pairs: list[Pair],
    refuse: list[str],
    lane_name: str,
    model: str,
    pending_mode: str | None = None,
) -> dict[str, Any]:
    """Before/after numbers for one vault, on a scratch copy (the real vault is never written)."""
    with tempfile.TemporaryDirectory(prefix="krouter-learn-bench-") as tmp_s:
        tmp = Path(tmp_s)
        root = tmp / "vault"
        shutil.copytree(vault, root)
        with scratch_env(tmp, pending_mode):
            with Router(root) as router:
                before = score(router, pairs, refuse, "week2")
                week1_before = score(router, pairs, [], "week1")
                # Week 1 also holds the neighbour questions: refused, they reach the learner like any other,
                # and a trigger learned from one would let it through next week.
                for question in [*(p.week1 for p in pairs), *refuse]:
                    router.ask(question)
            lane = _lane(lane_name, root, pairs, model)
            report = nightly.learn(root, lane, max_questions=(len(pairs) + len(refuse)) * 2)
            with Router(root) as router:
                after = score(router, pairs, refuse, "week2")
                week1_after = score(router, pairs, [], "week1")
            learned_pages = [o.page for o in report.outcomes if o.status == LEARNED]
    gold_of = {p.week1: p.gold for p in pairs}
    wrong_learned = sum(
        1 for o in report.outcomes if o.status == LEARNED and gold_of.get(o.question) != o.page
    )
    neighbours_learned = sum(1 for o in report.outcomes if o.status == LEARNED and o.question in refuse)
    held = [o for o in report.outcomes if o.status == PENDING]
    reasons: dict[str, int] = {}
    for o in report.outcomes:
        if o.status not in (LEARNED, PENDING):
            # Group by the reason's wording, without the quoted words that differ per question.
            key = f"{o.status}: {_QUOTED.sub('', o.reason).strip()}"
            reasons[key] = reasons.get(key, 0) + 1
    return {
        "vault": vault.name,
        "pairs": len(pairs),
        "refuse_questions": len(refuse),
        "lane": lane.name,
        "model": lane.model,
        "weak_week1": report.weak,
        "learned": len(learned_pages),
        "learned_wrong_page": wrong_learned,
        "learned_neighbours": neighbours_learned,
        "pending_mode": pending_mode or Config.pending_triggers,
        "held": len(held),
        "held_wrong_page": sum(1 for o in held if gold_of.get(o.question) != o.page),
        "held_neighbours": sum(1 for o in held if o.question in refuse),
        "not_learned": reasons,
        "week2_before": before,
        "week2_after": after,
        "week1_before": week1_before,
        "week1_after": week1_after,
    }


def phrasings_by_id(path: Path) -> dict[str, list[str]]:
    """The phrasings an agent would send, by question id (``phrasings/<set>.jsonl``: a translation and a
    rewording written by helpers who saw only the questions); empty when the file is missing."""
    if not path.is_file():
        return {}
    out: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            out[str(row["id"])] = [row[k] for k in ("translation", "rewording") if row.get(k)]
    return out


def set_phrasings(name: str, pairs: list[Pair], questions_file: str) -> dict[str, list[str]]:
    """Phrasings by question text for a learn set: week-1 and week-2 wordings of the distant pairs
    (``phrasings/pairsN.jsonl``, ids ``P01-week1``) and the vault's neighbour questions
    (``phrasings/<dev set>.jsonl``, by id)."""
    n = {"dev": "1", "dev2": "2", "dev3": "3", "dev4": "4"}[name]
    by_id = phrasings_by_id(HERE / "phrasings" / f"pairs{n}.jsonl")
    out: dict[str, list[str]] = {}
    for p in pairs:
        for week in ("week1", "week2"):
            if by_id.get(f"{p.id}-{week}"):
                out[" ".join(getattr(p, week).split())] = by_id[f"{p.id}-{week}"]
    neighbours = phrasings_by_id(HERE / "phrasings" / f"{name}.jsonl")
    path = HERE / questions_file
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                if row.get("kind") == "refuse" and neighbours.get(str(row["id"])):
                    out[" ".join(row["q"].split())] = neighbours[str(row["id"])]
    return out


def content_overlap(pair: Pair) -> float:
    """The share of week 1's content words that week 2 also holds (as the router cuts them)."""
    one = {qt.term for qt in query_terms(pair.week1)}
    two = {qt.term for qt in query_terms(pair.week2)}
    return len(one & two) / len(one) if one else 0.0


def first_sentence(body: str) -> str | None:
    """The page's first sentence (a heading counts when it is long enough): what a careless agent quotes."""
    return next((s for s in sentences(body) if is_sentence(s)), None)


def agent_pick(kind: str, root: Path, read: list[str], question: str, gold: str | None, also: list[str]):
    """The page and quote an agent stand-in teaches after reading ``read``, or None.

    honest: the gold page if it read it, quoting the sentence sharing most words with the question or
    a phrasing; careless: the closest page read, quoting its first sentence.
    """
    if not read:
        return None
    if kind == "careless":
        page = read[0]
        body = parse_page(page, (root / page).read_text(encoding="utf-8")).body
        quote = first_sentence(body)
    else:
        if gold is None or gold not in read:
            return None
        page = gold
        body = parse_page(page, (root / page).read_text(encoding="utf-8")).body
        quote = next((q for q in (best_sentence(body, w) for w in (question, *also)) if q), None)
    return (page, quote) if quote else None


def score_with(router: Router, pairs: list[Pair], refuse: list[str], which: str, phr: dict[str, list[str]]):
    """``score``, each question asked with its phrasings (when the phrasings file has them)."""
    out = {"right": 0, "wrong": 0, "refused": 0, "neighbours_refused": 0, "neighbours_cited": 0}
    for p in pairs:
        q = getattr(p, which)
        r = router.decide(q, also=phr.get(" ".join(q.split()), []))
        if r.decision == "refuse":
            out["refused"] += 1
        elif r.top is not None and r.top.path == p.gold:
            out["right"] += 1
        else:
            out["wrong"] += 1
    for q in refuse:
        r = router.decide(q, also=phr.get(" ".join(q.split()), []))
        out["neighbours_refused" if r.decision == "refuse" else "neighbours_cited"] += 1
    return out


def run_agent_set(
    vault: Path,
    pairs: list[Pair],
    refuse: list[str],
    kind: str,
    phr: dict[str, list[str]],
    teach_phrasings: bool = False,
    pending_mode: str | None = None,
    confirm_with: str | None = None,
    owner: str | None = None,
) -> dict[str, Any]:
    """Before/after numbers for one vault when an agent stand-in teaches in week 1 (scratch copy).

    ``teach_phrasings``: after the question, the agent also teaches each of its phrasings (with the
    question and the other phrasings as theirs), so that they too become triggers when they pass.
    ``pending_mode`` sets ``pending_triggers``; ``confirm_with`` runs the nightly learner with that
    stand-in after week 1 (a second source for held picks); ``owner`` "review" accepts the picks still
    held on their gold page and rejects the rest."""
    taught: list[tuple[str, str, str | None]] = []
    held: list[tuple[str, str, str | None]] = []
    reasons: dict[str, int] = {}
    second: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="krouter-agent-bench-") as tmp_s:
        tmp = Path(tmp_s)
        root = tmp / "vault"
        shutil.copytree(vault, root)
        with scratch_env(tmp, pending_mode), Router(root) as router:
            before = score(router, pairs, refuse, "week2")
            before_phr = score_with(router, pairs, refuse, "week2", phr)
            week1 = [(p.week1, p.gold) for p in pairs] + [(q, None) for q in refuse]
            for question, gold in week1:
                also = phr.get(" ".join(question.split()), [])
                r = router.ask(question, also=also)
                if r.decision == "cite":
                    continue
                read = [c.path for c in r.candidates[:READ_PAGES]]
                pick = agent_pick(kind, root, read, question, gold, also)
                if pick is None:
                    reasons["not taught: the agent found no page that answers"] = (
                        reasons.get("not taught: the agent found no page that answers", 0) + 1
                    )
                    continue
                wordings = [question, *also] if teach_phrasings else [question]
                for wording in wordings:
                    others = [w for w in [question, *also] if w != wording]
                    result = teach.teach(router, wording, pick[0], pick[1], others, client=f"bench-{kind}")
                    if result.taught:
                        taught.append((wording, result.page, gold))
                    elif result.status == teach.PENDING:
                        held.append((wording, result.page, gold))
                    else:
                        key = "refused by KRouter: " + _QUOTED.sub("", result.reason).strip()
                        reasons[key] = reasons.get(key, 0) + 1
            gold_of = {" ".join(q.split()): g for q, g in week1}
            if confirm_with:
                report = nightly.learn(
                    root, _lane(confirm_with, root, pairs, "x"), max_questions=len(week1) * 2
                )
                confirmed = [o for o in report.outcomes if o.status == LEARNED and "pending" in o.reason]
                learned = [o for o in report.outcomes if o.status == LEARNED]
                second = {
                    "confirm_with": confirm_with,
                    "nightly_learned": len(learned),
                    "nightly_learned_wrong": sum(1 for o in learned if gold_of.get(o.question) != o.page),
                    "confirmed": len(confirmed),
                    "confirmed_wrong": sum(1 for o in confirmed if gold_of.get(o.question) != o.page),
                    "nightly_held": sum(1 for o in report.outcomes if o.status == PENDING),
                }
                router.refresh()
            if owner == "review":
                accepted = rejected = 0
                for h in pending.open_holds(router.root):
                    if gold_of.get(" ".join(str(h["trigger"]).split())) == h["page"]:
                        accepted += pending.accept(router, str(h["pending"]))[0] == LEARNED
                    else:
                        pending.reject(router.root, str(h["pending"]))
                        rejected += 1
                second.update({"owner_accepted": accepted, "owner_rejected": rejected})
                router.refresh()
            still_held = len(pending.open_holds(router.root))
            journal = [e for e in learn_journal.journal_entries() if not e.get("taken_back")]
            written = [(str(e["trigger"]), str(e["page"])) for e in journal]
            after = score(router, pairs, refuse, "week2")
            after_phr = score_with(router, pairs, refuse, "week2", phr)
    overlaps = [content_overlap(p) for p in pairs]
    refuse_keys = {" ".join(q.split()) for q in refuse}
    return {
        "vault": vault.name,
        "pairs": len(pairs),
        "refuse_questions": len(refuse),
        "agent": kind,
        "phrasings": len(phr),
        "overlap_max": round(max(overlaps), 2) if overlaps else 0.0,
        "overlap_mean": round(sum(overlaps) / len(overlaps), 2) if overlaps else 0.0,
        "taught": len(taught),
        "taught_wrong_page": sum(1 for _, page, gold in taught if page != gold),
        "taught_neighbours": sum(1 for _, _, gold in taught if gold is None),
        "pending_mode": pending_mode or Config.pending_triggers,
        "held": len(held),
        "held_wrong_page": sum(1 for _, page, gold in held if page != gold),
        "held_neighbours": sum(1 for _, _, gold in held if gold is None),
        "still_held": still_held,
        # Every trigger on a page at the end (taught, confirmed or accepted), by whom it was right.
        "written": len(written),
        "written_wrong_page": sum(1 for q, page in written if gold_of.get(" ".join(q.split())) != page),
        "written_neighbours": sum(1 for q, _ in written if " ".join(q.split()) in refuse_keys),
        **second,
        "not_taught": reasons,
        "week2_before": before,
        "week2_after": after,
        "week2_before_with_phrasings": before_phr,
        "week2_after_with_phrasings": after_phr,
    }


def cold_start(name: str) -> dict[str, Any]:
    """A question set scored as asked, and with its phrasings: right, wrong, refused, neighbours refused."""
    folder, qfile = COLD_START[name]
    rows = [json.loads(x) for x in (HERE / qfile).read_text(encoding="utf-8").splitlines() if x.strip()]
    phr = phrasings_by_id(HERE / "phrasings" / f"{name}.jsonl")
    out: dict[str, Any] = {
        "set": name,
        "questions": len(rows),
        "phrasings": sum(1 for r in rows if phr.get(r["id"])),
    }
    with (
        tempfile.TemporaryDirectory(prefix="krouter-cold-bench-") as tmp_s,
        scratch_env(Path(tmp_s)),
        Router(HERE / folder) as router,
    ):
        for label, use in (("without", False), ("with", True)):
            s = {"right": 0, "wrong": 0, "refused": 0, "neighbours_refused": 0, "neighbours": 0}
            for row in rows:
                r = router.decide(row["q"], also=phr.get(row["id"], []) if use else [])
                if row["kind"] == "refuse":
                    s["neighbours"] += 1
                    s["neighbours_refused"] += r.decision == "refuse"
                elif r.decision == "refuse":
                    s["refused"] += 1
                else:
                    s["right" if r.top is not None and r.top.path == row["gold"] else "wrong"] += 1
            out[label] = s
    return out


def _line(name: str, s: dict[str, int], refuse_n: int) -> str:
    n_refuse = f"  neighbours refused {s['neighbours_refused']}/{refuse_n}" if refuse_n else ""
    return f"  {name:13} right {s['right']:2}  wrong {s['wrong']:2}  refused {s['refused']:2}{n_refuse}"


def main(argv: list[str] | None = None) -> int:
    """Run the bench and print before/after numbers."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", choices=[*SETS, "all"], default="all")
    ap.add_argument(
        "--lane",
        default="scripted",
        help="scripted (default: picks the gold page), careless (always the first candidate), lexical "
        "(always the best word overlap), api, claude",
    )
    ap.add_argument("--model", default=Config.learn_model)
    ap.add_argument(
        "--agent", choices=["honest", "careless"], help="run the agent lane instead of a nightly run"
    )
    ap.add_argument(
        "--pairs",
        choices=["distant", "mid", "everyday", "dev"],
        default=None,
        help="agent lane default: distant when present; nightly lane default: dev",
    )
    ap.add_argument(
        "--max-overlap",
        type=float,
        default=None,
        help="leave out pairs whose week 2 shares more than this share of week 1's content words",
    )
    ap.add_argument("--no-phrasings", action="store_true", help="agent lane: ask without the phrasings files")
    ap.add_argument(
        "--teach-phrasings",
        action="store_true",
        help="agent lane: teach the phrasings too, not only the question",
    )
    ap.add_argument(
        "--pending",
        choices=["agents", "all", "none"],
        default=None,
        help="pending_triggers: whose verified picks wait for a second source (default: all, as shipped)",
    )
    ap.add_argument(
        "--confirm-with",
        choices=["scripted", "careless", "lexical"],
        default=None,
        help="agent lane: run the nightly learner with this stand-in after week 1 (a second source)",
    )
    ap.add_argument(
        "--owner",
        choices=["review"],
        default=None,
        help="agent lane: an owner who accepts held picks on the gold page and rejects the rest",
    )
    ap.add_argument(
        "--cold-start", action="store_true", help="cross-language and colloquial sets, +/- phrasings"
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.cold_start:
        rows = [cold_start(name) for name in COLD_START]
        if args.json:
            print(json.dumps(rows, ensure_ascii=False, indent=1))
            return 0
        for c in rows:
            print(f"[{c['set']}] {c['questions']} questions, {c['phrasings']} with phrasings")
            for label in ("without", "with"):
                s = c[label]
                print(
                    f"  {label:7} phrasings: right {s['right']:2}  wrong {s['wrong']:2}  refused {s['refused']:2}"
                    f"  neighbours refused {s['neighbours_refused']}/{s['neighbours']}"
                )
        return 0
    if args.agent:
        return _agent_main(args)
    results = []
    for name in SETS if args.set == "all" else [args.set]:
        folder, _pairs, questions_file = SETS[name]
        # The nightly lane keeps its own pairs unless --pairs names others.
        pairs_path = _pairs_file(name, args.pairs or "dev")
        if pairs_path is None or not pairs_path.is_file():
            print(f"[{name}] skipped: no {args.pairs or 'dev'} pairs", file=sys.stderr)
            continue
        refuse = load_refuse(HERE / questions_file)
        res = run_set(
            HERE / folder,
            _kept_pairs(pairs_path, args.max_overlap),
            refuse,
            args.lane,
            args.model,
            args.pending,
        )
        res["set"] = name
        results.append(res)
    if args.json:
        print(json.dumps(results, ensure_ascii=False, indent=1))
        return 0
    for r in results:
        print(f"[{r['set']}] {r['vault']}: {r['pairs']} pairs, lane {r['lane']} ({r['model']})")
        print(
            f"  learner: {r['weak_week1']} weak week-1 questions, learned {r['learned']} "
            f"({r['learned_wrong_page']} on a wrong page, {r['learned_neighbours']} of them neighbour questions); "
            f"held {r['held']} ({r['held_wrong_page']} wrong, {r['held_neighbours']} neighbours; "
            f"pending_triggers = {r['pending_mode']})"
        )
        for k, v in sorted(r["not_learned"].items()):
            print(f"    {v:2} {k}")
        print(_line("week2 before", r["week2_before"], r["refuse_questions"]))
        print(_line("week2 after", r["week2_after"], r["refuse_questions"]))
        print(_line("week1 before", r["week1_before"], 0))
        print(_line("week1 after", r["week1_after"], 0))
    return 0


def _kept_pairs(path: Path, max_overlap: float | None) -> list[Pair]:
    """The pairs of a file, without those whose week 2 shares more than ``max_overlap`` of week 1."""
    pairs = load_pairs(path)
    if max_overlap is None:
        return pairs
    return [p for p in pairs if content_overlap(p) <= max_overlap + 1e-9]


def _pairs_file(name: str, which: str | None) -> Path | None:
    """The pairs file of set ``name`` for ``--pairs which`` (None: distant, the agent lane's default),
    or None when the set has no such pairs (vault4 has no distant ones)."""
    if which == "mid":
        return HERE / MID[name]
    if which == "everyday":
        return HERE / EVERYDAY[name]
    if which == "dev":
        return HERE / SETS[name][1]
    return HERE / DISTANT[name] if name in DISTANT else None


def _agent_main(args: argparse.Namespace) -> int:
    results = []
    for name in SETS if args.set == "all" else [args.set]:
        folder, _pairs, questions_file = SETS[name]
        pairs_path = _pairs_file(name, args.pairs)
        if pairs_path is None or not pairs_path.is_file():
            print(f"[{name}] skipped: no {args.pairs or 'distant'} pairs", file=sys.stderr)
            continue
        refuse = load_refuse(HERE / questions_file)
        pairs = _kept_pairs(pairs_path, args.max_overlap)
        phr = {} if args.no_phrasings else set_phrasings(name, pairs, questions_file)
        res = run_agent_set(
            HERE / folder,
            pairs,
            refuse,
            args.agent,
            phr,
            args.teach_phrasings,
            args.pending,
            args.confirm_with,
            args.owner,
        )
        res["set"], res["pairs_file"] = name, pairs_path.name
        results.append(res)
    if args.json:
        print(json.dumps(results, ensure_ascii=False, indent=1))
        return 0
    for r in results:
        print(
            f"[{r['set']}] {r['vault']}: {r['pairs']} pairs ({r['pairs_file']}; week 2 shares "
            f"{r['overlap_mean']:.0%} of week 1's content words on average, at most {r['overlap_max']:.0%}), "
            f"agent {r['agent']}, {r['phrasings']} phrased questions"
        )
        print(
            f"  taught {r['taught']} ({r['taught_wrong_page']} on a wrong page, "
            f"{r['taught_neighbours']} of them neighbour questions); held {r['held']} "
            f"({r['held_wrong_page']} wrong, {r['held_neighbours']} neighbours; pending_triggers = "
            f"{r['pending_mode']})"
        )
        if "confirm_with" in r:
            print(
                f"  nightly ({r['confirm_with']}): learned {r['nightly_learned']} "
                f"({r['nightly_learned_wrong']} wrong), {r['confirmed']} of them confirming a held pick "
                f"({r['confirmed_wrong']} wrong), held {r['nightly_held']}"
            )
        if "owner_accepted" in r:
            print(f"  owner review: accepted {r['owner_accepted']}, rejected {r['owner_rejected']}")
        print(
            f"  on pages at the end: {r['written']} triggers ({r['written_wrong_page']} wrong, "
            f"{r['written_neighbours']} neighbours); still held {r['still_held']}"
        )
        for k, v in sorted(r["not_taught"].items()):
            print(f"    {v:2} {k}")
        print(_line("week2 before", r["week2_before"], r["refuse_questions"]))
        print(_line("week2 after", r["week2_after"], r["refuse_questions"]))
        if r["phrasings"]:
            print(_line("+phr before", r["week2_before_with_phrasings"], r["refuse_questions"]))
            print(_line("+phr after", r["week2_after_with_phrasings"], r["refuse_questions"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
