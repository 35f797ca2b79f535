#!/usr/bin/env python3
"""A fresh ``krouter ask`` process end to end, no watcher running, for one or more checkouts of
KRouter, alternated with the plain FTS5 script (``run.py``'s fresh-process baseline).

``run.py`` times one checkout's fresh asks after its whole build and lookup jobs; a start-up change of
20 ms is lost in the load that moves between them. Here every round runs, for each question, each
checkout's ``python -m krouter ask QUESTION --vault VAULT --json`` (from the checkout's folder, so its
``krouter`` is the one imported) and then the FTS5 script for that question (porter for English,
trigram for Chinese), and wall times are compared by median. Each checkout is byte-compiled first, as
an install is (with ``PYTHONDONTWRITEBYTECODE`` set, an edited module would be compiled from source on
every run), and asked every question once untimed (its index is made or checked then).

The vault, the index and the FTS5 tables are ``lookup_ab.py``'s (made once in ``--work-dir``).

Example (from the project root; ``/tmp/base`` a checkout of the commit to compare with):
    python bench/perf/fresh_ab.py --size 10k --work-dir /tmp/kab --code /tmp/base --code . --rounds 7
"""

from __future__ import annotations

import compileall
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import lookup_ab  # noqa: E402
import run as perf  # noqa: E402


def _questions(setup: dict, per_language: int) -> list[dict[str, str]]:
    """The first ``per_language`` English and Chinese questions of the bench's mix."""
    picked: list[dict[str, str]] = []
    for lang in ("en", "zh"):
        picked += [q for q in setup["questions"] if q["lang"] == lang][:per_language]
    return picked


def _timed(argv: list[str], cwd: str, env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = (time.perf_counter() - t0) * 1e3
    if proc.returncode not in (0, 3):  # 3: refused, an answer too
        raise SystemExit(f"{' '.join(argv[:4])} … in {cwd} failed ({proc.returncode}): {proc.stderr[-500:]}")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    p = lookup_ab.checkout_parser(__doc__, 5, "runs of every question per checkout, alternated")
    p.add_argument("--questions", type=int, default=3, help="questions per language")
    p.add_argument("--json", type=Path, help="write the medians here")
    args = p.parse_args(argv)
    size = perf._sizes(args.size)[0]
    args.work_dir.mkdir(parents=True, exist_ok=True)
    setup = lookup_ab.prepare(size, args.work_dir.resolve())
    env = {**os.environ, **setup["env"], "KROUTER_SEMANTIC": "off"}
    codes = [str(Path(code).resolve()) for code in args.code]
    for code in codes:
        compileall.compile_dir(str(Path(code) / "krouter"), quiet=1)
    fts = {tok: perf.fts_process_code(db, tok) for tok, db in setup["dbs"].items()}
    jobs: list[tuple[str, str, list[str], str]] = []  # (language, system, argv, cwd)
    for q in _questions(setup, args.questions):
        for code in codes:
            ask = [sys.executable, "-m", "krouter", "ask", q["text"], "--vault", setup["vault"], "--json"]
            jobs.append((q["lang"], code, ask, code))
        tok = "porter" if q["lang"] == "en" else "trigram"
        jobs.append((q["lang"], f"fts5 {tok}", [sys.executable, "-c", fts[tok], q["text"]], str(HERE)))
    for _, _, job, cwd in jobs:
        _timed(job, cwd, env)
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.rounds):
        for lang, system, job, cwd in jobs:
            times.setdefault((lang, system), []).append(_timed(job, cwd, env))
    medians = {f"{lang} {system}": statistics.median(ms) for (lang, system), ms in times.items()}
    print(
        f"{size} pages, {args.rounds} rounds x {args.questions} questions per language, load {os.getloadavg()[0]:.1f}"
    )
    for lang in ("en", "zh"):
        base = medians[f"{lang} fts5 {'porter' if lang == 'en' else 'trigram'}"]
        for key, ms in medians.items():
            if key.startswith(lang + " "):
                print(f"  {key:60s} median {ms:7.1f} ms  ({ms / base:.1f}x FTS5)")
    if args.json:
        args.json.write_text(json.dumps(medians, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
