"""A cold build's worker work, in this process: where a worker's CPU goes (issue 16, seventh session).

Runs `krouter.index.prepare.prepare_batch` over a vault's build chunks as a worker does (cyclic
collector off, one collection and freeze per chunk, jieba loaded before timing), and prints CPU ms per
page. ``--split`` times the stages by wrapping them (reading, parsing, tokenising, the page's row, the
chunk's inversion); ``--profile`` prints cProfile's top functions instead. Old and new code are
compared by running this alternately with ``PYTHONPATH`` set to each checkout (from outside both, so
the current folder's ``krouter`` does not come first).

    python bench/perf/worker_profile.py VAULT [--chunks N] [--split | --profile]
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import os
import pstats
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _timed(module: Any, name: str, totals: dict[str, float]) -> None:
    """Wrap ``module.name`` so its CPU time adds up in ``totals[name]``."""
    real: Callable[..., Any] = getattr(module, name)
    clock = time.process_time

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = clock()
        try:
            return real(*args, **kwargs)
        finally:
            totals[name] = totals.get(name, 0.0) + clock() - start

    setattr(module, name, wrapper)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("vault", type=Path)
    p.add_argument("--chunks", type=int, default=0, help="only the first N chunks (default: all)")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--split", action="store_true", help="CPU of each stage")
    how.add_argument("--profile", action="store_true", help="cProfile's top functions")
    a = p.parse_args()
    os.environ.setdefault("KROUTER_CACHE_DIR", tempfile.mkdtemp(prefix="krouter-worker-"))
    from krouter.index import prepare
    from krouter.index.refresh import _chunks
    from krouter.tokens.chinese import _load_jieba
    from krouter.vault.files import walk

    root = a.vault.resolve()
    chunks = _chunks(list(walk(root, [], findings=[])))
    if a.chunks:
        chunks = chunks[: a.chunks]
    _load_jieba()  # a worker loads it once; the bench warms its store first, as here
    totals: dict[str, float] = {}
    if a.split:
        for name in ("read_page_bytes", "parse_page", "index_terms", "page_row", "_invert"):
            _timed(prepare, name, totals)
    profiler = cProfile.Profile() if a.profile else None
    gc.disable()
    start = time.process_time()
    if profiler:
        profiler.enable()
    for files in chunks:
        prepare.prepare_batch(root, files, True)
        gc.collect()
        gc.freeze()
    if profiler:
        profiler.disable()
    cpu = time.process_time() - start
    pages = sum(map(len, chunks))
    out: dict[str, Any] = {
        "pages": pages,
        "cpu_s": round(cpu, 2),
        "cpu_ms_per_page": round(cpu * 1e3 / pages, 3),
        "load": round(os.getloadavg()[0], 2),
    }
    if totals:
        # page_row includes index_terms: its own share is reported apart.
        totals["page_row_own"] = totals.get("page_row", 0.0) - totals.get("index_terms", 0.0)
        out["share"] = {k: round(v / cpu, 3) for k, v in totals.items()}
    print(json.dumps(out))
    if profiler:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
