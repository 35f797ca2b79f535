#!/usr/bin/env python3
"""Whether two checkouts of KRouter rank and answer the bench questions identically, to the bit.

For every question of ``lookup_ab.py``'s setup (the same vault, index and question mix), asked with k=1
and k=5, twice in one router (the second asking sums the shares kept by the first), one JSON line: the
whole receipt (less the index block), a hash of the walked window (page ids and ``float.hex`` of their
scores), and the best k+1 targets (scores as ``float.hex``, via pages, contributors, matched units).
Every score a pruned scoring kept is also checked against a full scoring's float (an assertion). Run it
once per checkout, then ``cmp`` the two files; ``--force-prune`` takes the pruned path on every question.

Example (from the project root; ``/tmp/base`` a checkout of the commit to compare with):
    python bench/perf/lookup_same.py --size 10k --work-dir /tmp/kab --code /tmp/base --out /tmp/base.jsonl
    python bench/perf/lookup_same.py --size 10k --work-dir /tmp/kab --code . --out /tmp/new.jsonl
    cmp /tmp/base.jsonl /tmp/new.jsonl
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import lookup_ab  # noqa: E402
import run as perf  # noqa: E402


def dump(code: str, setup: dict[str, Any], out: Path, force_prune: bool) -> int:
    """Write one line per (question, k, asking) with the ``krouter`` of ``code``; the number of lines."""
    sys.path.insert(0, code)
    os.environ.update(setup["env"])
    from krouter.routing import decision, scoring
    from krouter.routing.router import Router

    assert Path(scoring.__file__).resolve().is_relative_to(Path(code).resolve()), scoring.__file__
    if force_prune:
        scoring.PRUNE_POSTINGS = -1
    seen: list[dict[str, Any]] = []
    real = decision.top_targets

    def top_targets(scores: Any, k: int, t: Any) -> Any:
        targets, redirects, skipped = real(scores, k, t)
        window = scoring._best(scores.acc, scoring.walk_window(k))
        digest = hashlib.sha256("".join(f"{p}:{scores.acc[p].hex()};" for p in window).encode()).hexdigest()
        full = scoring._accumulate(scores.units, t)
        assert all(full[p].hex() == v.hex() for p, v in scores.acc.items()), "a pruned score differs"
        ranked = sorted(targets.values(), key=lambda x: (-x.score, t.pages[x.page_id].path))[: k + 1]
        seen.append(
            {
                "window": digest,
                "top": [(x.page_id, x.score.hex(), x.via, x.contributors, sorted(x.matched)) for x in ranked],
            }
        )
        return targets, redirects, skipped

    decision.top_targets = top_targets
    lines = 0
    with Router(Path(setup["vault"]), auto_refresh=False) as router, out.open("w") as f:
        for _asking in range(2):
            for q in setup["questions"]:
                for k in (1, 5):
                    seen.clear()
                    receipt = dataclasses.asdict(router.decide(q["text"], k=k))
                    receipt.pop("index", None)
                    row = {"q": q["text"], "k": k, "receipt": receipt, "scoring": seen}
                    f.write(json.dumps(row, ensure_ascii=False, sort_keys=True, default=str) + "\n")
                    lines += 1
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size", default="10k", help="pages (10k, 100k, ...)")
    p.add_argument("--work-dir", type=Path, required=True, help="vault, indexes and FTS5 tables, kept")
    p.add_argument("--code", required=True, help="a KRouter checkout")
    p.add_argument("--out", type=Path, required=True, help="where the lines go")
    p.add_argument("--force-prune", action="store_true", help="take the pruned path on every question")
    args = p.parse_args(argv)
    size = perf._sizes(args.size)[0]
    args.work_dir.mkdir(parents=True, exist_ok=True)
    setup = lookup_ab.prepare(size, args.work_dir.resolve())
    n = dump(str(Path(args.code).resolve()), setup, args.out, args.force_prune)
    print(f"{n} lookups written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
