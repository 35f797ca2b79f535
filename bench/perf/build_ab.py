"""Cold builds of one vault by two or more code trees, alternated round by round (issue 16, seventh
session): on a shared machine, wall-clock figures minutes apart mislead, and alternating puts each
tree's runs under the same load; CPU time (the building process, and its workers and merge helper) is
the steadier figure.

    python bench/perf/build_ab.py VAULT --code /tmp/base --code . --rounds 3 [--keep-index DIR]

Each build is ``cold_build.py build`` in a fresh process with ``PYTHONPATH`` set to the tree (run it
from outside the trees, or the current folder's ``krouter`` comes first). Prints one JSON line per
build, then each tree's median figures; with ``--keep-index``, the first round's indexes are kept as
DIR/<n>.sqlite3 for ``index_diff.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
_FIGURES = ("wall_s", "mb_per_s", "cpu_s", "cpu_children_s", "merge_wall_s", "merge_cpu_s", "load")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("vault", type=Path)
    p.add_argument("--code", type=Path, action="append", required=True, help="a checkout to build with")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--keep-index", type=Path, help="keep the first round's indexes in this folder")
    args = p.parse_args()
    runs: dict[int, list[dict[str, float]]] = {k: [] for k in range(len(args.code))}
    for round_ in range(args.rounds):
        for k, code in enumerate(args.code):
            cmd = [sys.executable, str(_HERE / "cold_build.py"), "build", str(args.vault.resolve())]
            if args.keep_index is not None and round_ == 0:
                args.keep_index.mkdir(parents=True, exist_ok=True)
                cmd += ["--keep-index", str(args.keep_index / f"{k}.sqlite3")]
            env = {**os.environ, "PYTHONPATH": str(code.resolve())}
            out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
            result = json.loads(out.strip().splitlines()[-1])
            runs[k].append(result)
            print(json.dumps({"code": str(code), "round": round_, **result}), flush=True)
    for k, code in enumerate(args.code):
        medians = {f: statistics.median(r[f] for r in runs[k]) for f in _FIGURES if f in runs[k][0]}
        print(json.dumps({"code": str(code), "median": medians}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
