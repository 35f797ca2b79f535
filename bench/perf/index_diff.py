"""Two indexes compared table by table: every table's rows, sorted, must be equal (issue 16, seventh
session: a faster cold build must write the same index as the code before it).

    python bench/perf/index_diff.py A.sqlite3 B.sqlite3

Prints one line per table (rows in each, equal or not) and exits 1 when any table differs. The meta
row ``refreshed_at`` (the time of the build) is left out; nothing else is.
"""

from __future__ import annotations

import argparse
import hashlib
import sqlite3
import sys
from pathlib import Path


def table_digests(path: Path) -> dict[str, tuple[int, str]]:
    """Each table's row count and a SHA-256 of its rows in sorted order (``refreshed_at`` left out)."""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        tables = [
            t for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")
        ]
        out = {}
        for table in tables:
            where = " WHERE key != 'refreshed_at'" if table == "meta" else ""
            width = len(conn.execute(f'PRAGMA table_info("{table}")').fetchall())
            # Sorted by SQLite on every column, so a 100k index is streamed, not held.
            order = ", ".join(str(k) for k in range(1, width + 1))
            digest, count = hashlib.sha256(), 0
            for row in conn.execute(f'SELECT * FROM "{table}"{where} ORDER BY {order}'):
                digest.update(repr(row).encode())
                digest.update(b"\n")
                count += 1
            out[table] = (count, digest.hexdigest())
        return out
    finally:
        conn.close()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a", type=Path)
    p.add_argument("b", type=Path)
    args = p.parse_args()
    a, b = table_digests(args.a), table_digests(args.b)
    same = True
    for table in sorted(a.keys() | b.keys()):
        left, right = a.get(table), b.get(table)
        equal = left == right
        same &= equal
        print(
            f"{table:16s} {left[0] if left else '-':>9} {right[0] if right else '-':>9}  {'same' if equal else 'DIFFERENT'}"
        )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
