#!/usr/bin/env python3
"""Answering-line bench: does the line a receipt shows for the right page state the answer?

A citation's ``line`` (and a refusal's closest pages' lines, which an agent is told to read) point a
reader at a passage; a line of the right page that does not answer ("Bugsnag raised its price" for
"are we still on Bugsnag?") sends a reader who trusts it to the wrong fact. ``answer_lines/*.jsonl``
hold, per answerable question of a set, the lines of its gold page that state the answer, labelled by
helpers who saw only the question and the page (never KRouter's output): ``dev.jsonl`` for the dev sets,
``heldout.jsonl`` for two held-out sets (go/no-go only, aggregates, as HELDOUT.md says).

For each labelled question whose gold page KRouter shows (the cited pages of a citation, or a refusal's
first ``READ_CLOSEST`` pages, as the MCP reply lists them), the shown line counts as right when it is one
of the labelled lines. Printed per set and in all, for citations and refusals apart.

    python bench/memory_honesty/answer_lines.py [--labels answer_lines/dev.jsonl] [--out per-question.jsonl]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
for _p in (str(HERE.parents[1]), str(HERE)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

os.environ.setdefault("KROUTER_NO_QUERY_LOG", "1")

from public_sets import load_set  # noqa: E402
from stats import BenchError, read_jsonl  # noqa: E402


def labels_of(path: Path) -> dict[tuple[str, str], set[int]]:
    """(set, question id) → the labelled answering lines, from a labels file."""
    out: dict[tuple[str, str], set[int]] = {}
    for n, row in read_jsonl(path):
        try:
            out[(row["set"], row["id"])] = {int(x) for x in row["lines"]}
        except (ValueError, KeyError, TypeError) as exc:
            raise BenchError(f"{path}:{n}: not a label row ({exc})") from None
    return out


def run(
    labels: dict[tuple[str, str], set[int]],
) -> tuple[Counter[tuple[str, str, str]], list[dict[str, object]]]:
    """Ask every labelled question (k = 3, as the command line and the MCP server do) and grade the line
    shown for its gold page."""
    from krouter import Router
    from krouter.routing.receipt import READ_CLOSEST

    counts: Counter[tuple[str, str, str]] = Counter()
    rows: list[dict[str, object]] = []
    for name in sorted({s for s, _ in labels}):
        for part in load_set(name).parts:
            with Router(part.vault) as router:
                router.refresh()
                # Every page embedded first, as run.py's adapter does: with the semantic second opinion
                # installed, a lookup met a vault only partly embedded and cited by how far the
                # background embedding had got (two colloquial answers came and went between runs).
                router.embed()
                for q in part.questions:
                    want = labels.get((name, q.id))
                    if not want:
                        continue
                    receipt = router.decide(q.q, k=3)
                    shown = receipt.cited if receipt.decision == "cite" else receipt.candidates[:READ_CLOSEST]
                    hit = next((c for c in shown if c.path in q.gold), None)
                    if hit is None:
                        continue
                    kind = "cited" if receipt.decision == "cite" else "closest"
                    right = hit.line in want
                    for where in (name, "all"):
                        counts[(where, kind, "n")] += 1
                        counts[(where, kind, "right")] += right
                    rows.append(
                        {
                            "set": name,
                            "id": q.id,
                            "kind": kind,
                            "line": hit.line,
                            "want": sorted(want),
                            "right": right,
                        }
                    )
    return counts, rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--labels", type=Path, default=HERE / "answer_lines" / "dev.jsonl", help="labels file")
    ap.add_argument("--out", type=Path, help="write one JSON line per graded question here")
    args = ap.parse_args(argv)
    try:
        labels = labels_of(args.labels)
    except BenchError as exc:
        print(exc, file=sys.stderr)
        return 2
    # Settings, state and index of a plain install, whatever the runner's own config.toml says.
    with tempfile.TemporaryDirectory(prefix="krouter-lines-") as tmp:
        for key in ("CONFIG", "STATE", "CACHE"):
            os.environ[f"KROUTER_{key}_DIR"] = os.path.join(tmp, key.lower())
        counts, rows = run(labels)
    if args.out:
        args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    names = [*sorted({s for s, _, _ in counts} - {"all"}), "all"]
    for name in names:
        cells = [
            f"{kind} {counts[(name, kind, 'right')]}/{counts[(name, kind, 'n')]}"
            for kind in ("cited", "closest")
        ]
        print(f"{name:14} right line: " + ", ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
