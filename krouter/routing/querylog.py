"""The private query log: one JSON line per lookup, on this machine only, for the nightly learner.

The file is created 0600 inside a 0700 folder, rotated when it grows past a bound, and turned off by
``KROUTER_NO_QUERY_LOG=1`` or ``query_log = false`` in config.toml. Writing it never fails a lookup.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from krouter import config
from krouter.appends import append_whole
from krouter.safe_text import clean

TYPE_CHECKING = False  # not typing's: the `krouter ask` socket client imports this module, not typing
if TYPE_CHECKING:
    from krouter.routing.receipt import Receipt

LOG_NAME = "queries.jsonl"
MAX_BYTES = 5 * 1024 * 1024
KEEP_ROTATED = 3


def log_path() -> Path:
    """Where the query log lives (under the state dir)."""
    return config.state_dir() / LOG_NAME


def enabled() -> bool:
    """False when the user turned the log off by environment or config."""
    if os.environ.get("KROUTER_NO_QUERY_LOG", "").strip() not in ("", "0", "false", "no"):
        return False
    # A broken config.toml raises ConfigError: it may be the file that turns the log off.
    return config.load_config().query_log


vault_id = config.vault_id


def entry(receipt: Receipt, root: Path) -> dict[str, object]:
    """The log line for one lookup: question, decision, top candidates with scores, reason."""
    return {
        "time": time.time(),
        "vault_id": vault_id(root),
        "vault": str(root),
        "question": clean(receipt.query),
        "decision": receipt.decision,
        "confidence": receipt.evidence.confidence,
        "margin": receipt.evidence.margin,
        "candidates": [{"path": c.path, "score": c.score} for c in receipt.candidates[:5]],
        "reason": receipt.reason,
        # Cited on the semantic second opinion, not the words: a question the learner may still teach.
        "semantic_cited": receipt.semantic_cited,
    }


def _secure_dir(folder: Path) -> None:
    config.private_dir(folder)


def _rotate(path: Path) -> None:
    for n in range(KEEP_ROTATED, 0, -1):
        older = path.with_name(f"{path.name}.{n}")
        newer = path.with_name(f"{path.name}.{n - 1}") if n > 1 else path
        if newer.exists():
            os.replace(newer, older)


def record(receipt: Receipt, root: Path) -> None:
    """Append one lookup to the log. Any failure is reported on stderr and swallowed."""
    if not enabled():
        return
    append(entry(receipt, root))


def append(item: dict[str, object]) -> None:
    """Append one entry (as ``entry`` builds it) whether or not the log is enabled: a caller that got
    the entry from elsewhere (the ``krouter ask`` socket client) checks ``enabled()`` itself. Any
    failure is reported on stderr and swallowed."""
    path = log_path()
    try:
        _secure_dir(path.parent)
        if path.exists() and path.stat().st_size > MAX_BYTES:
            _rotate(path)
        append_whole(path, (json.dumps(item, ensure_ascii=False) + "\n").encode("utf-8"), fsync=False)
    except (OSError, ValueError) as exc:  # ValueError: text that cannot be encoded, a bad number
        print(f"krouter: query log not written ({path}): {exc}", file=sys.stderr)


def read(path: Path | None = None, offset: int = 0) -> Iterator[tuple[int, dict[str, object]]]:
    """Entries from a byte offset on, with the offset just past each; corrupt lines are skipped."""
    path = path or log_path()
    if not path.exists():
        return
    with path.open("rb") as fh:
        fh.seek(offset)
        for raw in fh:
            offset += len(raw)
            try:
                item = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
                continue
            if isinstance(item, dict):
                yield offset, item
