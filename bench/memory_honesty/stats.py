"""Grading, metrics and bootstrap intervals for the memory-honesty bench.

Everything here works on plain data (questions, answers) so that any system's output can be graded the same
way,
whether it came from an in-process adapter or from an answers file written by someone else.
"""

from __future__ import annotations

import json
import math
import random
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any

KINDS: tuple[str, ...] = ("correction", "current", "refuse")

# Verdicts, one per graded question.
RIGHT = "right"  # answered, first citation is a gold page
WRONG = "wrong"  # answered, first citation is not gold (or the question should have been refused)
MISSED = "missed"  # an answerable question was refused
REFUSED = "refused"  # a refuse question was refused

# Counters summed over questions; every rate in the report is a ratio of two of them. Keeping the rates as
# ratios of
# sums is what lets the bootstrap resample by counting question types instead of re-grading.
COUNTER_KEYS: tuple[str, ...] = (
    "n",
    "answered",
    "wrong",
    "refuse_n",
    "refuse_refused",
    "correction_n",
    "correction_right",
    "current_n",
    "current_right",
    "answerable_n",
    "answerable_right",
)

# name -> (numerator counter, denominator counter)
RATIOS: dict[str, tuple[str, str]] = {
    "wrong_citation": ("wrong", "answered"),
    "neighbours_refused": ("refuse_refused", "refuse_n"),
    "corrections_right": ("correction_right", "correction_n"),
    "current_right": ("current_right", "current_n"),
    "answerable_right": ("answerable_right", "answerable_n"),
    "coverage": ("answered", "n"),
}


class BenchError(Exception):
    """A problem with the bench's inputs (missing file, malformed line) that the user can fix."""


@dataclass(frozen=True)
class Question:
    """One bench question; ``gold`` is None for questions that must be refused, else the acceptable pages."""

    id: str
    q: str
    kind: str
    gold: tuple[str, ...] | None
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class Answer:
    """What a system did with one question: citations in rank order, whether it refused, its confidence."""

    id: str
    cited: tuple[str, ...]
    refused: bool
    score: float | None = None

    @property
    def answered(self) -> bool:
        """True when the system committed to a citation (an empty citation list is a refusal)."""
        return not self.refused and bool(self.cited)


@dataclass(frozen=True)
class Graded:
    """A question, the answer it got, and the verdict."""

    question: Question
    answer: Answer
    verdict: str


def norm_path(path: str) -> str:
    """Normalise a vault-relative path so harmless spelling differences do not count as wrong citations."""
    # NFC: a macOS file name arrives decomposed (NFD) while a typed gold path is composed.
    p = unicodedata.normalize("NFC", path.strip().replace("\\", "/"))
    while p.startswith("./"):
        p = p[2:]
    p = p.lstrip("/")
    # Some systems cite Obsidian-style names without the extension; the page is still the same page.
    if p.lower().endswith(".md"):
        p = p[:-3]
    return p + ".md"


def _norm_gold(raw: Any, where: str) -> tuple[str, ...] | None:
    if raw is None:
        return None
    if isinstance(raw, str):
        return (norm_path(raw),)
    if isinstance(raw, list) and raw and all(isinstance(g, str) for g in raw):
        return tuple(norm_path(g) for g in raw)
    raise BenchError(f"{where}: gold must be a path, a non-empty list of paths, or null")


def question_from_dict(obj: dict[str, Any], where: str) -> Question:
    """Build a Question from one JSON object, checking the fields the grader relies on."""
    for key in ("id", "q", "kind"):
        if key not in obj:
            raise BenchError(f"{where}: missing field {key!r}")
    # Public sets hold the odd empty question (CMRC); it is asked and graded like any other. A null or
    # a number is a broken file.
    if not isinstance(obj["q"], str):
        raise BenchError(f"{where}: q must be a string, not {obj['q']!r}")
    kind = obj["kind"]
    if kind not in KINDS:
        raise BenchError(f"{where}: kind must be one of {', '.join(KINDS)}, not {kind!r}")
    gold = _norm_gold(obj.get("gold"), where)
    if (gold is None) != (kind == "refuse"):
        raise BenchError(
            f"{where}: kind {kind!r} does not fit gold {obj.get('gold')!r} (refuse <=> gold null)"
        )
    extra = {k: v for k, v in obj.items() if k not in ("id", "q", "kind", "gold")}
    return Question(id=str(obj["id"]), q=str(obj["q"]), kind=kind, gold=gold, extra=extra)


def read_jsonl(path: Path) -> Iterable[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line of a JSON-lines file; BenchError names the line."""
    if not path.is_file():
        raise BenchError(f"file not found: {path}")
    # utf-8-sig: a file saved by Windows Notepad starts with a byte-order mark.
    with path.open(encoding="utf-8-sig") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise BenchError(f"{path}:{lineno}: not JSON ({exc.msg})") from None
            if not isinstance(obj, dict):
                raise BenchError(f"{path}:{lineno}: expected a JSON object")
            yield lineno, obj


def load_questions(path: Path) -> list[Question]:
    """Read a question file (one JSON object a line); duplicate ids are an error, as grading joins on id."""
    out: list[Question] = []
    seen: set[str] = set()
    for lineno, obj in read_jsonl(path):
        q = question_from_dict(obj, f"{path}:{lineno}")
        if q.id in seen:
            raise BenchError(f"{path}:{lineno}: duplicate id {q.id!r}")
        seen.add(q.id)
        out.append(q)
    return out


def answer_from_dict(obj: dict[str, Any], where: str) -> Answer:
    """Build an Answer from one line of an answers file."""
    if "id" not in obj:
        raise BenchError(f"{where}: missing field 'id'")
    cited = obj.get("cited") or []
    if not isinstance(cited, list) or not all(isinstance(c, str) for c in cited):
        raise BenchError(f"{where}: cited must be a list of paths")
    score = obj.get("score")
    if score is not None and not isinstance(score, (int, float)):
        raise BenchError(f"{where}: score must be a number")
    refused = obj.get("refused", False)
    if not isinstance(refused, bool):
        # bool("false") is True: every answer of such a file was graded as a refusal.
        raise BenchError(f"{where}: refused must be true or false, not {refused!r}")
    return Answer(
        id=str(obj["id"]),
        cited=tuple(norm_path(c) for c in cited),
        refused=refused,
        score=None if score is None else float(score),
    )


def load_answers(path: Path) -> dict[str, Answer]:
    """Read an answers file into a dict keyed by question id (a later line for the same id wins)."""
    out: dict[str, Answer] = {}
    for lineno, obj in read_jsonl(path):
        ans = answer_from_dict(obj, f"{path}:{lineno}")
        out[ans.id] = ans
    return out


def verdict(question: Question, answer: Answer) -> str:
    """Grade one answer: only the first citation counts, and any answer to a refuse question is wrong."""
    if not answer.answered:
        return REFUSED if question.kind == "refuse" else MISSED
    if question.gold is not None and norm_path(answer.cited[0]) in question.gold:
        return RIGHT
    return WRONG


def grade(questions: Sequence[Question], answers: dict[str, Answer] | Sequence[Answer]) -> list[Graded]:
    """Grade every question; a question with no answer counts as refused (the system said nothing)."""
    by_id = answers if isinstance(answers, dict) else {a.id: a for a in answers}
    out = []
    for q in questions:
        a = by_id.get(q.id) or Answer(id=q.id, cited=(), refused=True)
        out.append(Graded(q, a, verdict(q, a)))
    return out


def counters(kind: str, verdict_: str) -> tuple[int, ...]:
    """The COUNTER_KEYS vector contributed by one question of this kind with this verdict."""
    answered = verdict_ in (RIGHT, WRONG)
    right = verdict_ == RIGHT
    values = {
        "n": 1,
        "answered": int(answered),
        "wrong": int(verdict_ == WRONG),
        "refuse_n": int(kind == "refuse"),
        "refuse_refused": int(kind == "refuse" and verdict_ == REFUSED),
        "correction_n": int(kind == "correction"),
        "correction_right": int(kind == "correction" and right),
        "current_n": int(kind == "current"),
        "current_right": int(kind == "current" and right),
        "answerable_n": int(kind != "refuse"),
        "answerable_right": int(kind != "refuse" and right),
    }
    return tuple(values[k] for k in COUNTER_KEYS)


def sum_counters(graded: Iterable[Graded]) -> dict[str, int]:
    """Sum the counters over graded questions."""
    totals = [0] * len(COUNTER_KEYS)
    for g in graded:
        for i, v in enumerate(counters(g.question.kind, g.verdict)):
            totals[i] += v
    return dict(zip(COUNTER_KEYS, totals, strict=True))


def _rate(num: float, den: float) -> float | None:
    return num / den if den else None


def ratio(num: int, den: int) -> dict[str, Any]:
    """A count, its denominator and the rate (None when the denominator is zero)."""
    return {"count": num, "of": den, "rate": _rate(num, den)}


def metrics(graded: Sequence[Graded]) -> dict[str, Any]:
    """Every figure for one set: overall counters and ratios, and a breakdown by kind."""
    c = sum_counters(graded)
    overall: dict[str, Any] = {"counts": c}
    for name, (num, den) in RATIOS.items():
        overall[name] = ratio(c[num], c[den])
    by_kind: dict[str, Any] = {}
    for kind in KINDS:
        rows = [g for g in graded if g.question.kind == kind]
        if not rows:
            continue
        answered = sum(g.verdict in (RIGHT, WRONG) for g in rows)
        wrong = sum(g.verdict == WRONG for g in rows)
        by_kind[kind] = {
            "n": len(rows),
            "answered": answered,
            "refused": len(rows) - answered,
            "right": sum(g.verdict in (RIGHT, REFUSED) for g in rows),
            "wrong": wrong,
            "wrong_citation": ratio(wrong, answered),
            "coverage": ratio(answered, len(rows)),
        }
    return {"overall": overall, "by_kind": by_kind}


def percentile(sorted_values: Sequence[float], p: float) -> float:
    """Linear-interpolated percentile (p in [0, 1]) of already sorted values."""
    if not sorted_values:
        raise ValueError("no values")
    pos = p * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def _interval(values: list[float], level: float) -> list[float] | None:
    if not values:
        return None
    values.sort()
    alpha = (1.0 - level) / 2.0
    return [percentile(values, alpha), percentile(values, 1.0 - alpha)]


def _resample_type_counts(types: Sequence[int], n_resamples: int, seed: int) -> Iterable[Counter[int]]:
    # Resampling question *types* (a handful of distinct counter vectors) rather than summing 11 counters per
    # drawn question keeps 2,000 resamples of a 1,000-question set well under a second in pure Python.
    rng = random.Random(seed)
    n = len(types)
    for _ in range(n_resamples):
        yield Counter(rng.choices(types, k=n))


def wilson_ci(graded: Sequence[Graded], level: float = 0.95) -> dict[str, list[float] | None]:
    """Wilson score interval for every rate in RATIOS (None when its denominator is zero).

    A percentile bootstrap was used before: at these sizes it gave intervals too narrow, or none at all
    (0 of 14 wrong printed [0, 0]; 2 of 19, [0, 26] where Wilson's is [3, 31]), and a lower bound of 0
    beside wrong citations that were observed."""
    z = NormalDist().inv_cdf(1.0 - (1.0 - level) / 2.0)
    totals = Counter()
    for g in graded:
        for key, value in zip(COUNTER_KEYS, counters(g.question.kind, g.verdict), strict=True):
            totals[key] += value
    out: dict[str, list[float] | None] = {}
    for name, (num, den) in RATIOS.items():
        n, k = totals[den], totals[num]
        if not n:
            out[name] = None
            continue
        p = k / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        out[name] = [max(0.0, centre - half), min(1.0, centre + half)]
    return out


PAIRED_METRICS: tuple[str, ...] = ("wrong_citation", "answerable_right", "neighbours_refused")


def paired_bootstrap(
    mine: Sequence[Graded],
    other: Sequence[Graded],
    n_resamples: int = 2000,
    seed: int = 0,
    level: float = 0.95,
    names: Sequence[str] = PAIRED_METRICS,
) -> dict[str, dict[str, Any]]:
    """Paired bootstrap of (mine - other) for the named rates, and of the difference in their numerators.

    Both systems must have been graded on the same questions; each resample draws questions, and the same draw
    is
    used for both systems so that question difficulty cancels out of the difference.
    """
    other_by_id = {g.question.id: g for g in other}
    missing = [g.question.id for g in mine if g.question.id not in other_by_id]
    if missing:
        raise BenchError(
            f"paired comparison: {len(missing)} questions have no counterpart (first: {missing[0]})"
        )
    pairs = [(g, other_by_id[g.question.id]) for g in mine]
    vectors: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    index: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
    types = []
    for a, b in pairs:
        key = (counters(a.question.kind, a.verdict), counters(b.question.kind, b.verdict))
        if key not in index:
            index[key] = len(vectors)
            vectors.append(key)
        types.append(index[key])
    pos = {k: i for i, k in enumerate(COUNTER_KEYS)}
    ca, cb = sum_counters(a for a, _ in pairs), sum_counters(b for _, b in pairs)
    out: dict[str, dict[str, Any]] = {}
    rate_samples: dict[str, list[float]] = {n: [] for n in names}
    count_samples: dict[str, list[float]] = {n: [] for n in names}
    if pairs:
        for counts in _resample_type_counts(types, n_resamples, seed):
            ta = [sum(vectors[t][0][i] * m for t, m in counts.items()) for i in range(len(COUNTER_KEYS))]
            tb = [sum(vectors[t][1][i] * m for t, m in counts.items()) for i in range(len(COUNTER_KEYS))]
            for name in names:
                num, den = pos[RATIOS[name][0]], pos[RATIOS[name][1]]
                count_samples[name].append(float(ta[num] - tb[num]))
                if ta[den] and tb[den]:
                    rate_samples[name].append(ta[num] / ta[den] - tb[num] / tb[den])
    for name in names:
        num, den = RATIOS[name]
        ra, rb = _rate(ca[num], ca[den]), _rate(cb[num], cb[den])
        out[name] = {
            "mine": ratio(ca[num], ca[den]),
            "other": ratio(cb[num], cb[den]),
            "rate_diff": None if ra is None or rb is None else ra - rb,
            "rate_diff_ci": _interval(rate_samples[name], level),
            "count_diff": ca[num] - cb[num],
            "count_diff_ci": _interval(count_samples[name], level),
        }
    return out


def _ranked_candidates(answers: Sequence[Answer]) -> list[int]:
    # Only answers that carry a citation and a score can be answered at some floor; sort is stable, so score
    # ties
    # fall back to question order, which keeps the matched run deterministic.
    idx = [i for i, a in enumerate(answers) if a.cited and a.score is not None]
    return sorted(idx, key=lambda i: -float(answers[i].score or 0.0))


def has_scores(answers: Sequence[Answer]) -> bool:
    """True when at least one answer with a citation carries a score (so floors and curves are possible)."""
    return any(a.cited and a.score is not None for a in answers)


def answer_top(answers: Sequence[Answer], m: int) -> list[Answer]:
    """Re-decide refusals so exactly the m most confident answers are given (fewer if fewer have a citation).

    This is how a system is put at another system's coverage: its own refusal decisions are replaced by a
    floor
    that lets through m questions, ranked by score.
    """
    keep = set(_ranked_candidates(answers)[: max(m, 0)])
    return [Answer(a.id, a.cited, refused=i not in keep, score=a.score) for i, a in enumerate(answers)]


def separation_auc(questions: Sequence[Question], answers: Sequence[Answer]) -> float | None:
    """How well the score separates right answers from everything else, as an AUC.

    Positives are questions whose first candidate is right (answerable, gold page first); everything
    else (a neighbour question, a wrong first candidate, no candidate) is negative. A question with no
    score counts as the lowest score. 1.0: some floor cites every right answer and nothing else; 0.5:
    the score says nothing. None when either side is empty.
    """
    pos: list[float] = []
    neg: list[float] = []
    for q, a in zip(questions, answers, strict=True):
        score = float(a.score) if a.score is not None and a.cited else -1.0
        right = q.gold is not None and bool(a.cited) and norm_path(a.cited[0]) in q.gold
        (pos if right else neg).append(score)
    if not pos or not neg:
        return None
    # Rank-sum (Mann-Whitney U), ties counted half.
    ranked = sorted([(s, 1) for s in pos] + [(s, 0) for s in neg])
    rank_sum = 0.0
    i = 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j][0] == ranked[i][0]:
            j += 1
        mid = (i + j + 1) / 2
        rank_sum += mid * sum(flag for _, flag in ranked[i:j])
        i = j
    u = rank_sum - len(pos) * (len(pos) + 1) / 2
    return u / (len(pos) * len(neg))


def coverage_curve(
    questions: Sequence[Question], answers: Sequence[Answer], steps: Sequence[float] | None = None
) -> list[dict[str, Any]]:
    """Accuracy at each coverage level when only the top-x% most confident questions are answered.

    ``answers`` must be aligned with ``questions``. Coverage is of all questions; it stops growing once every
    question with a cited candidate is answered.
    """
    steps = steps or [i / 10 for i in range(1, 11)]
    n = len(questions)
    n_cand = len(_ranked_candidates(answers))
    rows = []
    for x in steps:
        m = min(round(x * n), n_cand)
        g = grade(questions, answer_top(answers, m))
        c = sum_counters(g)
        rows.append(
            {
                "target_coverage": x,
                "answered": c["answered"],
                "coverage": ratio(c["answered"], c["n"]),
                "wrong_citation": ratio(c["wrong"], c["answered"]),
                "answerable_right": ratio(c["answerable_right"], c["answerable_n"]),
                "neighbours_refused": ratio(c["refuse_refused"], c["refuse_n"]),
            }
        )
    return rows
