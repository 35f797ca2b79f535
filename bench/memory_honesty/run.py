#!/usr/bin/env python3
"""Memory-honesty bench runner: does a memory cite the right page, follow corrections, refuse what it lacks?

Examples (from the project root):
    python bench/memory_honesty/run.py                         # KRouter on the dev set
    python bench/memory_honesty/run.py --adapter bm25-floor --set heldout --ci
    python bench/memory_honesty/run.py --set locomo --vs-matched bm25-floor
    python bench/memory_honesty/run.py --set all-dev --adapter bm25
    python bench/memory_honesty/run.py --vault V --questions Q.jsonl --answers mine.jsonl --json

Exit status: 0 on success, 2 on usage errors (bad options, missing files, malformed lines).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# Sibling modules first, then the project root so that `krouter` imports from this checkout.
for _p in (str(HERE.parents[1]), str(HERE)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

# Set before anything can import krouter: bench questions must never enter the user's private query log.
os.environ.setdefault("KROUTER_NO_QUERY_LOG", "1")

from adapters import ADAPTERS, Bm25FloorAdapter, make_adapter, stderr_progress  # noqa: E402
from public_sets import ALL_DEV, SET_NAMES, BenchSet, Part, custom_set, load_set  # noqa: E402
from stats import (  # noqa: E402
    KINDS,
    Answer,
    BenchError,
    Graded,
    Question,
    answer_top,
    coverage_curve,
    grade,
    has_scores,
    load_answers,
    metrics,
    paired_bootstrap,
    separation_auc,
    wilson_ci,
)

DEFAULT_RESAMPLES = 2000


@dataclass
class SystemRun:
    """One system's answers on one set, aligned with the set's questions."""

    name: str
    answers: list[Answer]
    info: dict[str, Any] = field(default_factory=dict)


class Runner:
    """Runs systems (adapters or answers files) on sets, reusing adapters so vault indexes are built once."""

    def __init__(self, k: int = 5) -> None:
        self.k = k
        self._adapters: dict[str, Any] = {}
        # --vs and --vs-matched may name the same system; asking every question twice would only cost time
        self._runs: dict[tuple[str, str, int], SystemRun] = {}

    def _adapter(self, name: str) -> Any:
        if name not in self._adapters:
            self._adapters[name] = make_adapter(name, self.k, stderr_progress)
        return self._adapters[name]

    def run(self, spec: str | Path, bset: BenchSet, floor_parts: list[Part]) -> SystemRun:
        """Run an adapter by name, or grade an answers file when spec is a Path (or names no adapter)."""
        questions = bset.questions
        key = (str(spec), bset.name, len(questions))
        if key not in self._runs:
            if isinstance(spec, Path) or spec not in ADAPTERS:
                self._runs[key] = self._from_file(Path(spec), questions)
            else:
                self._runs[key] = self._run_adapter(spec, bset, floor_parts)
        return self._runs[key]

    def _run_adapter(self, spec: str, bset: BenchSet, floor_parts: list[Part]) -> SystemRun:
        questions = bset.questions
        adapter = self._adapter(spec)
        info: dict[str, Any] = {}
        if isinstance(adapter, Bm25FloorAdapter):
            # Refit per set: a floor is only meaningful for the vault (and score scale) it was picked on.
            floor = adapter.fit([(p.vault, p.questions) for p in floor_parts], bset.floor_note)
            info["floor"] = {
                "value": None if math.isinf(floor) else floor,
                "answers_nothing": math.isinf(floor),
                "rule": "max(right answers - wrong citations) on dev questions; ties -> lower floor",
                "picked_on": bset.floor_note,
                "dev_counts": adapter.floor_counts,
            }
        stderr_progress(f"[{bset.name}] {spec}: {len(questions)} questions in {len(bset.parts)} vault(s)")
        answers = [a for p in bset.parts for a in adapter.answer(p.vault, p.questions)]
        return SystemRun(spec, answers, info)

    @staticmethod
    def _from_file(path: Path, questions: Sequence[Question]) -> SystemRun:
        if not path.is_file():
            raise BenchError(f"not an adapter ({', '.join(ADAPTERS)}) nor an answers file: {path}")
        by_id = load_answers(path)
        ids = {q.id for q in questions}
        missing = [q.id for q in questions if q.id not in by_id]
        extra = sorted(set(by_id) - ids)
        if missing:
            stderr_progress(
                f"warning: {path.name}: {len(missing)} questions have no answer; counted as refusals"
            )
        answers = [by_id.get(q.id) or Answer(q.id, (), refused=True) for q in questions]
        info = {"answers_file": str(path), "missing_answers": len(missing), "unknown_ids": len(extra)}
        return SystemRun(f"answers:{path.name}", answers, info)


def _limit(bset: BenchSet, limit: int | None) -> tuple[BenchSet, list[Part]]:
    """Keep the first N questions pooled over vaults; a self-dev set picks its floor on those N."""
    # Equal, not the same list: a set that picks its floor on itself builds the two lists apart.
    self_dev = bset.floor_parts == bset.parts
    if limit is None:
        return bset, bset.floor_parts
    parts, left = [], limit
    for p in bset.parts:
        if left <= 0:
            break
        parts.append(Part(p.vault, p.questions[:left]))
        left -= len(parts[-1].questions)
    notes = [*bset.notes, f"limited to the first {limit} questions"]
    out = BenchSet(bset.name, parts, parts if self_dev else bset.floor_parts, bset.floor_note, notes)
    return out, out.floor_parts


def evaluate(
    bset: BenchSet, args: argparse.Namespace, runner: Runner
) -> tuple[dict[str, Any], list[Graded], list[Graded] | None]:
    """Every figure asked for on one set, as a JSON-able dict, plus the main system's graded rows and,
    with --vs-matched, the other system's rows at this system's coverage (for pooling across sets)."""
    bset, floor_parts = _limit(bset, args.limit)
    questions = bset.questions
    if not questions:
        raise BenchError(f"set {bset.name!r} has no questions")
    main_spec = args.answers or args.adapter
    main = runner.run(main_spec, bset, floor_parts)
    graded = grade(questions, main.answers)
    result: dict[str, Any] = {
        "set": bset.name,
        "system": main.name,
        "n_questions": len(questions),
        "n_vaults": len(bset.parts),
        "notes": bset.notes,
        **main.info,
        "metrics": metrics(graded),
    }
    if args.ci:
        result["ci"] = {"level": 0.95, "method": "wilson"}
        result["ci"].update(wilson_ci(graded))
    if args.vs:
        other = runner.run(args.vs, bset, floor_parts)
        other_graded = grade(questions, other.answers)
        result["vs"] = {
            "other": other.name,
            **{f"other_{k}": v for k, v in other.info.items()},
            "other_metrics": metrics(other_graded)["overall"],
            "paired": paired_bootstrap(graded, other_graded, args.resamples, args.seed),
        }
    matched_graded = None
    if args.vs_matched:
        result["vs_matched"], matched_graded = _matched(
            main, graded, questions, bset, floor_parts, args, runner
        )
    if args.curve:
        if has_scores(main.answers):
            result["curve"] = coverage_curve(questions, main.answers)
            result["separation_auc"] = separation_auc(questions, main.answers)
        else:
            result["curve"] = None
            result["curve_note"] = "no scores in this system's output: no curve"
    return result, graded, matched_graded


def _matched(
    main: SystemRun,
    graded: list[Graded],
    questions: list[Question],
    bset: BenchSet,
    floor_parts: list[Part],
    args: argparse.Namespace,
    runner: Runner,
) -> tuple[dict[str, Any], list[Graded]]:
    """Put the other system at this system's coverage (operating point chosen for the baseline only)."""
    other = runner.run(args.vs_matched, bset, floor_parts)
    if not has_scores(other.answers):
        raise BenchError(
            f"--vs-matched {other.name}: its output has no scores, so its coverage cannot be set"
        )
    target = sum(g.verdict in ("right", "wrong") for g in graded)
    other_graded = grade(questions, answer_top(other.answers, target))
    om = metrics(other_graded)["overall"]
    oc, mc = om["counts"], metrics(graded)["overall"]["counts"]
    out: dict[str, Any] = {
        "other": other.name,
        "target_answered": target,
        "other_answered": oc["answered"],
        "mine": {"answered": mc["answered"], "wrong": mc["wrong"], "right": mc["answerable_right"]},
        "other_at_matched": {
            "answered": oc["answered"],
            "wrong": oc["wrong"],
            "right": oc["answerable_right"],
        },
        "other_metrics": om,
        "paired": paired_bootstrap(graded, other_graded, args.resamples, args.seed),
    }
    if oc["answered"] < target:
        out["note"] = (
            f"{other.name} has candidates for only {oc['answered']} questions; coverage not fully matched"
        )
    return out, other_graded


def _prefixed(set_name: str, graded: list[Graded]) -> list[Graded]:
    """Question ids made unique across sets (every set has a 'C01'), for pooling."""
    return [
        Graded(replace(g.question, id=f"{set_name}:{g.question.id}"), g.answer, g.verdict) for g in graded
    ]


def pooled_matched(
    per_set: list[tuple[str, list[Graded], list[Graded]]], args: argparse.Namespace
) -> dict[str, Any]:
    """The equal-coverage comparison pooled over sets: each set keeps its own matched operating point,
    and the paired bootstrap resamples questions from all of them together."""
    mine = [g for name, m, _ in per_set for g in _prefixed(name, m)]
    other = [g for name, _, o in per_set for g in _prefixed(name, o)]
    return {
        "sets": [name for name, _, _ in per_set],
        "paired": paired_bootstrap(mine, other, args.resamples, args.seed),
    }


# --- human-readable output
# --------------------------------------------------------------------------------------


def _pct(rate: float | None) -> str:
    return "–" if rate is None else f"{100 * rate:.0f}%"


def _ratio(r: dict[str, Any], ci: list[float] | None = None) -> str:
    s = f"{_pct(r['rate'])} ({r['count']} / {r['of']})"
    if ci:
        s += f"  [{100 * ci[0]:.0f}, {100 * ci[1]:.0f}]"
    return s


def _signed(x: float | None, scale: float = 1.0, digits: int = 1) -> str:
    return "–" if x is None else f"{x * scale:+.{digits}f}"


def _interval(ci: list[float] | None, scale: float = 1.0, digits: int = 1) -> str:
    return "[–]" if not ci else f"[{ci[0] * scale:+.{digits}f}, {ci[1] * scale:+.{digits}f}]"


ROWS = (
    ("wrong citations", "wrong_citation"),
    ("neighbours refused", "neighbours_refused"),
    ("corrections right", "corrections_right"),
    ("current right", "current_right"),
    ("answerable right", "answerable_right"),
    ("coverage", "coverage"),
)


def _paired_lines(paired: dict[str, Any]) -> list[str]:
    lines = []
    for label, key in (
        ("wrong-citation rate", "wrong_citation"),
        ("answerable right", "answerable_right"),
        ("neighbours refused", "neighbours_refused"),
    ):
        d = paired[key]
        lines.append(
            f"    {label:<20} {_signed(d['rate_diff'], 100)} pts {_interval(d['rate_diff_ci'], 100)}"
            f"   count {d['count_diff']:+d} {_interval(d['count_diff_ci'], 1, 0)}"
            f"   ({_ratio(d['mine'])} vs {_ratio(d['other'])})"
        )
    return lines


def format_set(res: dict[str, Any], brief: bool = False) -> str:
    """The human-readable report for one set."""
    m = res["metrics"]["overall"]
    ci = res.get("ci") or {}
    lines = []
    if not brief:
        lines.append(
            f"set {res['set']} · system {res['system']} · "
            f"{res['n_questions']} questions in {res['n_vaults']} vault(s)"
        )
        lines += [f"  note: {n}" for n in res["notes"]]
    if "floor" in res:
        f = res["floor"]
        val = "answer nothing" if f["answers_nothing"] else f"{f['value']:.4f}"
        dc = f["dev_counts"]
        lines.append(
            f"  floor: {val}, {f['picked_on']} "
            f"(there: {dc.get('right', 0)} right, {dc.get('wrong', 0)} wrong)"
        )
    if res.get("missing_answers"):
        lines.append(f"  {res['missing_answers']} questions had no answer in the file: counted as refusals")
    if not brief:
        lines.append("")
        for label, key in ROWS:
            lines.append(f"  {label:<20} {_ratio(m[key], ci.get(key))}")
        if ci:
            lines.append("  (95% Wilson intervals for each rate; differences: paired bootstrap)")
        lines.append("")
        lines.append(
            f"  {'kind':<11}{'n':>5}{'answered':>10}{'right':>7}{'wrong':>7}{'refused':>9}{'wrong-cit':>11}"
        )
        for kind in KINDS:
            k = res["metrics"]["by_kind"].get(kind)
            if k:
                lines.append(
                    f"  {kind:<11}{k['n']:>5}{k['answered']:>10}{k['right']:>7}{k['wrong']:>7}"
                    f"{k['refused']:>9}"
                    f"{_pct(k['wrong_citation']['rate']):>11}"
                )
        lines.append("  (right = first citation is gold; for refuse questions, right = refused)")
    if "vs" in res:
        v = res["vs"]
        lines += ["", f"  vs {v['other']}: this minus {v['other']}, paired 95% bootstrap"]
        lines += _paired_lines(v["paired"])
    if "vs_matched" in res:
        v = res["vs_matched"]
        lines += [
            "",
            f"  at equal coverage: {v['other']} with its floor set to answer "
            f"{v['target_answered']} questions "
            "(operating point chosen for the baseline only)",
            f"    {'system':<28}{'answered':>9}{'wrong':>7}{'right':>7}",
            f"    {res['system']:<28}{v['mine']['answered']:>9}{v['mine']['wrong']:>7}"
            f"{v['mine']['right']:>7}",
            f"    {v['other']:<28}{v['other_at_matched']['answered']:>9}{v['other_at_matched']['wrong']:>7}"
            f"{v['other_at_matched']['right']:>7}",
            f"    this minus {v['other']}, paired 95% bootstrap:",
        ]
        lines += _paired_lines(v["paired"])
        if "note" in v:
            lines.append(f"    note: {v['note']}")
    if res.get("curve"):
        auc = res.get("separation_auc")
        if auc is not None:
            lines += [
                "",
                f"  separation (AUC of the score, right first candidate vs everything else): {auc:.3f}",
            ]
        lines += ["", "  coverage curve (answer only the top x% by score):"]
        lines.append(
            f"    {'target':>6}{'answered':>10}{'wrong citations':>22}{'answerable right':>22}"
            f"{'neighbours refused':>20}"
        )
        for row in res["curve"]:
            lines.append(
                f"    {100 * row['target_coverage']:>5.0f}%{row['answered']:>10}"
                f"{_ratio(row['wrong_citation']):>22}{_ratio(row['answerable_right']):>22}"
                f"{_ratio(row['neighbours_refused']):>20}"
            )
    elif "curve_note" in res:
        lines.append(f"  {res['curve_note']}")
    return "\n".join(lines)


def format_table(results: list[dict[str, Any]], skipped: dict[str, str], system: str) -> str:
    """One table over several sets (for --set all-dev)."""
    head = (
        f"{'set':<18}{'n':>5}{'wrong citations':>19}{'neigh. refused':>19}{'corrections':>19}"
        f"{'current':>19}{'answerable':>19}{'coverage':>19}"
    )
    lines = [f"system {system}", head]
    for r in results:
        m = r["metrics"]["overall"]
        cells = [_ratio(m[k]) for _, k in ROWS]
        lines.append(f"{r['set']:<18}{r['n_questions']:>5}" + "".join(f"{c:>19}" for c in cells).rstrip())
    for name, why in skipped.items():
        lines.append(f"{name:<18}  skipped: {why}")
    for r in results:
        extra = format_set(r, brief=True)
        notes = "\n".join(f"  note: {n}" for n in r["notes"])
        if extra.strip() or notes:
            lines += ["", f"[{r['set']}]", *([notes] if notes else []), *([extra] if extra.strip() else [])]
    return "\n".join(lines)


# --- CLI
# --------------------------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    p = argparse.ArgumentParser(
        prog="run.py",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    src = p.add_argument_group("questions")
    src.add_argument("--set", choices=SET_NAMES, help="built-in set (default: dev)")
    src.add_argument("--vault", type=Path, help="vault folder (with --questions)")
    src.add_argument("--questions", type=Path, help="question file, one JSON object per line (with --vault)")
    src.add_argument(
        "--floor-from", type=Path, help="dev questions of --vault on which bm25-floor picks its floor"
    )
    src.add_argument("--limit", type=int, help="only the first N questions of each set")
    sysg = p.add_argument_group("system")
    sysg.add_argument("--adapter", choices=ADAPTERS, default="krouter")
    sysg.add_argument("--answers", type=Path, help="grade this answers file instead of running an adapter")
    sysg.add_argument("--k", type=int, default=5, help=argparse.SUPPRESS)
    out = p.add_argument_group("figures")
    out.add_argument("--ci", action="store_true", help="95%% bootstrap intervals for each rate")
    out.add_argument("--vs", metavar="A", help="paired comparison with adapter A (or an answers file)")
    out.add_argument("--vs-matched", metavar="A", help="compare with A at this system's coverage")
    out.add_argument("--curve", action="store_true", help="coverage/accuracy curve from scores")
    out.add_argument("--json", action="store_true", help="print exactly one JSON object")
    out.add_argument("--out", type=Path, help="write per-question lines (JSONL) here")
    out.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    out.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES, help=argparse.SUPPRESS)
    return p


def _check_args(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.set and (args.vault or args.questions):
        p.error("use --set or --vault/--questions, not both")
    if bool(args.vault) != bool(args.questions):
        p.error("--vault and --questions go together")
    if args.floor_from and not args.vault:
        p.error("--floor-from applies to a --vault/--questions run (built-in sets know their dev set)")
    if args.answers and args.set == "all-dev":
        p.error("--answers grades one set; pick that set")
    if args.limit is not None and args.limit < 1:
        p.error("--limit must be at least 1")
    if not 100 <= args.resamples <= 100_000:
        p.error("--resamples must be between 100 and 100000")
    for opt in ("vs", "vs_matched"):
        spec = getattr(args, opt)
        if spec and spec not in ADAPTERS and not Path(spec).is_file():
            p.error(
                f"--{opt.replace('_', '-')}: {spec!r} is neither an adapter "
                f"({', '.join(ADAPTERS)}) nor a file"
            )


def _per_question(res_set: str, graded: list[Graded]) -> list[dict[str, Any]]:
    return [
        {
            "set": res_set,
            "id": g.question.id,
            "kind": g.question.kind,
            "q": g.question.q,
            "gold": None if g.question.gold is None else list(g.question.gold),
            "cited": list(g.answer.cited),
            "refused": not g.answer.answered,
            "score": g.answer.score,
            "verdict": g.verdict,
        }
        for g in graded
    ]


def _json_safe(obj: Any) -> Any:
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    return obj


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    _check_args(parser, args)
    runner = Runner(k=args.k)
    results: list[dict[str, Any]] = []
    skipped: dict[str, str] = {}
    rows: list[dict[str, Any]] = []
    try:
        if args.vault:
            sets = [custom_set(args.vault, args.questions, args.floor_from)]
        elif args.set == "all-dev":
            sets = []
            for name in ALL_DEV:
                try:
                    sets.append(load_set(name))
                except BenchError as exc:
                    # one missing set should not hide the others; the table says which one and why
                    skipped[name] = str(exc)
                    stderr_progress(f"warning: skipping {name}: {exc}")
            if not sets:
                raise BenchError("no set of all-dev could be loaded")
        else:
            sets = [load_set(args.set or "dev")]
        per_set: list[tuple[str, list[Graded], list[Graded]]] = []
        for bset in sets:
            res, graded, matched = evaluate(bset, args, runner)
            results.append(res)
            rows += _per_question(bset.name, graded)
            if matched is not None:
                per_set.append((bset.name, graded, matched))
        pooled = pooled_matched(per_set, args) if len(per_set) > 1 else None
    except BenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.out:
        with args.out.open("w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps(_json_safe(r), ensure_ascii=False) + "\n")
    system = results[0]["system"]
    if args.json:
        doc = {"system": system, "sets": results, "skipped": skipped}
        if pooled:
            doc["pooled_vs_matched"] = pooled
        print(json.dumps(_json_safe(doc), ensure_ascii=False, allow_nan=False))
    elif len(results) == 1 and not skipped:
        print(format_set(results[0]))
    else:
        print(format_table(results, skipped, system))
        if pooled:
            print(f"\npooled over {', '.join(pooled['sets'])}, each set at its own matched coverage:")
            print("\n".join(_paired_lines(pooled["paired"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
