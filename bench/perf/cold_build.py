"""A cold build, its final merge alone, or the vault walk, with CPU accounting (issue 16, sixth session).

The machine this runs on is shared, so wall clock swings with other people's work; CPU time (this
process, and its reaped children: the tokenising workers and the merge helper) is the steadier figure.
Run the old and the new code alternately (e.g. ``PYTHONPATH=/path/to/old/checkout``) on the same vault.

    python bench/perf/cold_build.py build VAULT [--keep-staging FILE] [--keep-index FILE]   # Index(vault).rebuild()
    python bench/perf/cold_build.py merge VAULT STAGING                  # the final merge of a kept staging file
    python bench/perf/cold_build.py walk VAULT                           # walk vs a bare scandir loop vs FTS5's walk

Each prints one JSON line. Vaults come from ``vaultgen.py`` (``python -c "import vaultgen, pathlib;
vaultgen.generate(pathlib.Path('v10000'), 10000, seed=8)"`` from this folder).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def _usage() -> dict[str, Any]:
    """CPU seconds of the reaped children, the largest child's and this process's peak RSS (MB)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open("/proc/self/status", encoding="ascii") as status:
        hwm = next(int(line.split()[1]) for line in status if line.startswith("VmHWM"))
    return {
        "cpu_children_s": round(children.ru_utime + children.ru_stime, 2),
        "rss_mb": hwm // 1024,
        "rss_largest_child_mb": children.ru_maxrss // 1024,
        "load": round(os.getloadavg()[0], 2),
    }


def build(vault: Path, keep: Path | None, keep_index: Path | None = None) -> dict[str, Any]:
    """A cold build in a fresh cache dir; the merge timed apart (its staging file and the index kept
    if asked, the index for ``index_diff.py``)."""
    from krouter.index import build as index_build
    from krouter.index.store import Index

    merge: dict[str, float] = {}
    real = index_build.ColdBuild._merge_staging

    def timed(self: Any) -> None:
        if keep is not None:
            shutil.copy(self._staging_path(), keep)
        wall, cpu = time.perf_counter(), time.process_time()
        real(self)
        merge["merge_wall_s"] = round(time.perf_counter() - wall, 2)
        merge["merge_cpu_s"] = round(time.process_time() - cpu, 2)

    index_build.ColdBuild._merge_staging = timed  # type: ignore[method-assign]
    index = Index(vault)
    wall, cpu = time.perf_counter(), time.process_time()
    stats = index.rebuild()
    out = {"wall_s": round(time.perf_counter() - wall, 2), "cpu_s": round(time.process_time() - cpu, 2)}
    index.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = index.path.stat().st_size
    index.close()
    if keep_index is not None:
        shutil.copy(index.path, keep_index)
    mb = sum(p.stat().st_size for p in vault.rglob("*.md")) / 1e6
    return {
        **out,
        **merge,
        **_usage(),
        "pages": stats.added,
        "mb_per_s": round(mb / out["wall_s"], 2),
        "index_mb": round(size / 1e6, 1),
    }


def merge(vault: Path, staging: Path, keep_index: Path | None = None) -> dict[str, Any]:
    """The final merge of a copy of a staged build into an empty index (kept if asked)."""
    from krouter.index.store import Index

    index = Index(vault)
    shutil.copy(staging, f"{index.path}.build")
    wall, cpu = time.perf_counter(), time.process_time()
    index._merge_staging()
    out = {
        "merge_wall_s": round(time.perf_counter() - wall, 2),
        "merge_cpu_s": round(time.process_time() - cpu, 2),
    }
    index.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    index.close()
    if keep_index is not None:
        shutil.copy(index.path, keep_index)
    return {**out, **_usage()}


def walk(vault: Path, rounds: int = 5) -> dict[str, Any]:
    """CPU ms of KRouter's walk, of a bare scandir + DirEntry.stat loop, and of the bench's FTS5 walk
    (os.walk + os.stat), best of ``rounds``."""
    sys.path.insert(0, str(Path(__file__).parent))
    import run  # the bench's FTS5 walk

    from krouter.vault.files import walk as kr_walk

    def bare(root: str) -> dict[str, tuple[int, int]]:
        out, stack = {}, [(root, "")]
        while stack:
            folder, prefix = stack.pop()
            for entry in os.scandir(folder):
                if entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, f"{prefix}{entry.name}/"))
                else:
                    st = entry.stat(follow_symlinks=False)
                    out[prefix + entry.name] = (st.st_mtime_ns, st.st_size)
        return out

    ways = {
        "krouter_walk": lambda: {fs.path: fs for fs in kr_walk(vault, [], findings=[])},
        "bare_scandir": lambda: bare(str(vault)),
        "fts5_walk": lambda: run._fts_walk(vault),
    }
    best = dict.fromkeys(ways, float("inf"))
    for _ in range(rounds):
        for name, way in ways.items():
            cpu = time.process_time()
            way()
            best[name] = min(best[name], time.process_time() - cpu)
    return {f"{k}_cpu_ms": round(v * 1e3, 1) for k, v in best.items()} | {
        "load": round(os.getloadavg()[0], 2)
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", choices=("build", "merge", "walk"))
    p.add_argument("vault", type=Path)
    p.add_argument(
        "staging", type=Path, nargs="?", help="(merge) a staging file kept by build --keep-staging"
    )
    p.add_argument("--keep-staging", type=Path, help="(build) copy the staging database here before merging")
    p.add_argument("--keep-index", type=Path, help="(build, merge) copy the finished index here")
    a = p.parse_args()
    vault = a.vault.resolve()
    with tempfile.TemporaryDirectory() as cache:
        os.environ["KROUTER_CACHE_DIR"] = cache
        if a.what == "build":
            # As the bench does: jieba's dictionary store written before the timed build (once per
            # machine in real use), so each worker loads it from the store (~0.4 s of CPU) rather
            # than from dict.txt (~1.1 s), as a build with a warm cache does.
            subprocess.run(
                [sys.executable, "-c", "from krouter.tokens.chinese import _load_jieba; _load_jieba()"],
                check=True,
            )
            result = build(vault, a.keep_staging, a.keep_index)
        elif a.what == "merge":
            if a.staging is None:
                p.error("merge needs a STAGING file")
            result = merge(vault, a.staging, a.keep_index)
        else:
            result = walk(vault)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
