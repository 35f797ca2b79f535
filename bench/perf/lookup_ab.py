#!/usr/bin/env python3
"""In-process lookup CPU, KRouter against FTS5, for one or more checkouts of KRouter, alternated.

``run.py`` times each system in its own process, one after the other: on a shared machine the load
moves between the two and a 30 % change is lost in it. Here every bench question is looked up by
``Router.decide`` and then by its FTS5 query (porter for English, trigram for Chinese, as ``run.py``
builds them) in the same loop, and CPU time (``time.process_time()``) is what is compared. Each
``--code`` folder (a checkout of KRouter; its ``krouter`` package is imported, so two versions can be
compared on one index, when their index layouts agree) gets one pass per round, in turn.

The vault (``vaultgen.py``, seed 8, ``run.py``'s question mix), the KRouter index and both FTS5
tables are made once in ``--work-dir`` and kept there for later runs.

Each pass is a fresh router that has seen only 10 warm-up questions; ``--warm`` times the same questions
a second time in it too (a warm server, printed as a second row): both are worth reporting, apart.

Example (from the project root; ``/tmp/base`` a checkout of the commit to compare with):
    python bench/perf/lookup_ab.py --size 10k --work-dir /tmp/kab --code /tmp/base --code . --rounds 3 --warm
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run as perf  # noqa: E402


def prepare(size: int, work: Path) -> dict[str, Any]:
    """The vault, its KRouter index and the two FTS5 tables, made once in ``work``."""
    done = work / f"lookup-ab-{size}.json"
    if done.exists():
        return json.loads(done.read_text())
    bench = perf.Bench(perf.build_parser().parse_args(["--work-dir", str(work)]))
    vault, manifest = bench.vault(size)
    # jieba writes its dictionary cache once per machine; not part of the build.
    subprocess.run(
        [sys.executable, "-c", "from krouter.tokens.chinese import _load_jieba; _load_jieba()"],
        env=bench.env,
        check=True,
    )
    bench.child("kr_build", vault=str(vault), pages=size)
    dbs = {tok: str(work / f"fts-{tok}-{size}.sqlite3") for tok in perf.FTS_TOKENIZERS}
    for tok, db in dbs.items():
        bench.child("fts_build", vault=str(vault), db=db, tokenizer=tok)
    names = ("KROUTER_CACHE_DIR", "KROUTER_STATE_DIR", "KROUTER_CONFIG_DIR", "KROUTER_NO_QUERY_LOG")
    setup = {
        "vault": str(vault),
        "questions": manifest["questions"],
        "dbs": dbs,
        "env": {k: bench.env[k] for k in names},
    }
    done.write_text(json.dumps(setup, ensure_ascii=False))
    return setup


def one_pass(code: str, setup: dict[str, Any], warm: bool = False) -> dict[str, Any]:
    """Time every question once (after 10 warm-ups) with the ``krouter`` of ``code``, and with ``warm``
    once more in the same router (reported apart, as ``warm``); runs in a child."""
    import sqlite3

    sys.path.insert(0, code)
    os.environ.update(setup["env"])
    import krouter
    from krouter.routing.router import Router

    assert Path(krouter.__file__).resolve().is_relative_to(Path(code).resolve()), krouter.__file__
    router = Router(Path(setup["vault"]), auto_refresh=False)
    # A code whose index layout is newer than ``prepare``'s build gets its own index, built here and
    # untimed: without it the router answered every question from an empty index (a refusal in 0.3 ms).
    stats = router.refresh()
    pages = sum(1 for _ in Path(setup["vault"]).rglob("*.md"))
    assert stats.added + stats.updated + stats.unchanged == pages, (stats, pages)
    router.warm()
    conns = {tok: sqlite3.connect(db, isolation_level=None) for tok, db in setup["dbs"].items()}

    def fts(q: dict[str, str]) -> None:
        tok = "porter" if q["lang"] == "en" else "trigram"
        match = perf.fts_query(q["text"], tok)
        if match:
            conns[tok].execute(perf._FTS_TOP10, (match,)).fetchall()

    questions = setup["questions"]
    for q in questions[:10]:
        router.decide(q["text"])
        fts(q)

    def timed() -> dict[str, dict[str, float]]:
        cpu: dict[str, list[float]] = {"kr_en": [], "kr_zh": [], "fts_en": [], "fts_zh": []}
        for q in questions:
            t0 = time.process_time()
            router.decide(q["text"])
            t1 = time.process_time()
            fts(q)
            t2 = time.process_time()
            cpu[f"kr_{q['lang']}"].append((t1 - t0) * 1e3)
            cpu[f"fts_{q['lang']}"].append((t2 - t1) * 1e3)
        return {key: {f"p{p}": perf._pct(values, p) for p in (50, 95, 99)} for key, values in cpu.items()}

    out: dict[str, Any] = {"code": code, "load": os.getloadavg()[0], **timed()}
    if warm:
        # The same questions again in the same router: what a server that has seen them holds (decoded
        # lists, kept shares, passages) is then all there; an upper bound of what its caches buy.
        out["warm"] = timed()
    router.close()
    return out


def line(result: dict[str, Any], label: str = "") -> str:
    """One pass as a row: per language, KRouter's CPU p50/p95/p99 (ms) and each as a ratio to FTS5's."""
    cells = []
    for lang, base in (("en", "porter"), ("zh", "trigram")):
        kr, fts = result[f"kr_{lang}"], result[f"fts_{lang}"]
        ms = " / ".join(f"{kr[p]:.2f}" for p in ("p50", "p95", "p99"))
        ratio = " / ".join(f"{kr[p] / fts[p]:.2f}x" for p in ("p50", "p95", "p99"))
        cells.append(f"{lang} {ms} ms ({ratio} {base})")
    return f"{result['code']}{label}  load {result['load']:.1f}  " + "  |  ".join(cells)


def checkout_parser(doc: str | None, rounds: int, rounds_help: str) -> argparse.ArgumentParser:
    """The arguments of an A/B bench over checkouts of KRouter on ``prepare``'s vault (this one's and
    ``fresh_ab.py``'s)."""
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size", default="10k", help="pages (10k, 100k, ...)")
    p.add_argument("--work-dir", type=Path, required=True, help="vault, indexes and FTS5 tables, kept")
    p.add_argument("--code", action="append", required=True, help="a KRouter checkout (repeat to compare)")
    p.add_argument("--rounds", type=int, default=rounds, help=rounds_help)
    return p


def main(argv: list[str] | None = None) -> int:
    p = checkout_parser(__doc__, 3, "passes per checkout, alternated")
    p.add_argument("--json", type=Path, help="append every pass here")
    p.add_argument(
        "--warm",
        action="store_true",
        help="after each timed pass, time the same questions again in the same router (a warm server)",
    )
    p.add_argument("--one-pass", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    size = perf._sizes(args.size)[0]
    args.work_dir.mkdir(parents=True, exist_ok=True)
    setup = prepare(size, args.work_dir.resolve())
    if args.one_pass:
        print(json.dumps(one_pass(args.one_pass, setup, args.warm)))
        return 0
    for _ in range(args.rounds):
        for code in args.code:
            cmd = [sys.executable, __file__, "--size", args.size, "--work-dir", str(args.work_dir)]
            cmd += ["--code", code, "--one-pass", str(Path(code).resolve())] + (
                ["--warm"] if args.warm else []
            )
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, check=True)
            result = json.loads(proc.stdout.strip().splitlines()[-1])
            print(line(result), flush=True)
            if "warm" in result:
                print(line({**result, **result["warm"]}, " (warm)"), flush=True)
            if args.json:
                with args.json.open("a") as f:
                    f.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
