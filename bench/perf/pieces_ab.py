"""Two pieces of a build worker's work, by two checkouts, on the same input in one process (issue 16,
eighth session): a chunk's inversion (`krouter.index.prepare._invert`) and parsing a page
(`krouter.vault.page.parse_page`).

On a shared machine whole builds and even whole workers swing ±15 % between runs, more than a change
worth a few per cent; timing one piece of both versions alternately, on inputs made once, does not.
The other checkout's two modules are loaded from its files under other names (the rest of ``krouter``
is this one's), and both versions' outputs are checked equal first.

    python bench/perf/pieces_ab.py VAULT --other /path/to/old/checkout [--chunks 8] [--rounds 7]

Prints one JSON line: per piece, each version's median and best CPU ms per page over the rounds.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import inspect
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import astuple
from pathlib import Path
from types import ModuleType
from typing import Any


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


def _rounds(ways: dict[str, Callable[[], object]], rounds: int, pages: int) -> dict[str, dict[str, float]]:
    """Each way run ``rounds`` times, alternately; median and best CPU ms per page."""
    times: dict[str, list[float]] = {k: [] for k in ways}
    for _ in range(rounds):
        for name, way in ways.items():
            start = time.process_time()
            way()
            times[name].append((time.process_time() - start) * 1e3 / pages)
    return {
        k: {"median": round(sorted(v)[len(v) // 2], 4), "best": round(min(v), 4)} for k, v in times.items()
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("vault", type=Path)
    p.add_argument("--other", type=Path, required=True, help="the checkout to compare this one with")
    p.add_argument("--chunks", type=int, default=8, help="the vault's first N build chunks")
    p.add_argument("--rounds", type=int, default=7)
    a = p.parse_args()
    os.environ.setdefault("KROUTER_CACHE_DIR", tempfile.mkdtemp(prefix="krouter-pieces-"))
    from krouter.index import prepare
    from krouter.index.refresh import _chunks
    from krouter.vault import page
    from krouter.vault.files import read_page_bytes, walk

    other_prepare = _load(a.other / "krouter/index/prepare.py", "other_prepare")
    other_page = _load(a.other / "krouter/vault/page.py", "other_page")
    root = a.vault.resolve()
    chunks = _chunks(list(walk(root, [], findings=[])))[: a.chunks]
    pages = sum(map(len, chunks))

    columns: list[tuple[Any, ...]] = []
    real = prepare._invert

    def keep(*args: Any) -> Any:
        columns.append(args)
        return real(*args)

    prepare._invert = keep  # type: ignore[assignment]
    for files in chunks:
        prepare.prepare_batch(root, files, True)
    prepare._invert = real  # type: ignore[assignment]
    # The other version's arguments: as many of this one's as it takes (the eighth session added one).
    width = len(inspect.signature(other_prepare._invert).parameters)
    assert all(other_prepare._invert(*c[:width]) == real(*c) for c in columns), "the segments differ"

    texts = [
        (fs.path, page.decode(fs.path, read_page_bytes(root, fs.path))) for files in chunks for fs, _ in files
    ]
    # Two modules' Page classes never compare equal: their fields do.
    fields = [astuple(other_page.parse_page(*t)) == astuple(page.parse_page(*t)) for t in texts]
    assert all(fields), "pages differ"

    gc.disable()
    out = {
        "pages": pages,
        "invert": _rounds(
            {
                "other": lambda: [other_prepare._invert(*c[:width]) for c in columns],
                "this": lambda: [real(*c) for c in columns],
            },
            a.rounds,
            pages,
        ),
        "parse_page": _rounds(
            {
                "other": lambda: [other_page.parse_page(*t) for t in texts],
                "this": lambda: [page.parse_page(*t) for t in texts],
            },
            a.rounds,
            pages,
        ),
        "load": round(os.getloadavg()[0], 2),
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
