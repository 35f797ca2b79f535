"""What the nightly learner reads and remembers between runs: this vault's weak questions in the query
log since its cursor, the cursor itself, and how many runs the model has failed to answer each question.

A question the model never answers usably (a reply that breaks on it, a request the API refuses for
it) is "uncertain", and the cursor stops before an uncertain question so it is asked again. Without a
count, one such question held the cursor for ever: every later question was asked again each night
and, past ``--max``, never reached. Counting stops that: a question the model failed on is asked alone
next run (so it cannot spoil a batch, nor be blamed for another's), and after ``MAX_ATTEMPTS`` runs in
which it failed alone while the model answered others, it is given up, which settles it.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from krouter import config
from krouter.file_lock import state_lock
from krouter.learner.journal import write_private
from krouter.learner.report import UNCERTAIN, Outcome
from krouter.routing import querylog
from krouter.tokens.terms import normalize

CURSOR_NAME = "learn_cursor.json"
ATTEMPTS_NAME = "learn_attempts.json"
WEAK_MARGIN = 0.15
# Runs in which the model, asked a question alone, gave no usable answer for it, before it is given up.
MAX_ATTEMPTS = 3
# Held around each read-modify-write of the cursor and counts files, which every vault's runs share.
_STATE_LOCK = "learn-state.lock"


@dataclass
class Weak:
    """A weak question as first logged: its wording and when."""

    question: str
    first_time: float


def log_files() -> list[Path]:
    """The query log and its rotated files, oldest first."""
    path = querylog.log_path()
    rotated = [path.with_name(f"{path.name}.{n}") for n in range(querylog.KEEP_ROTATED, 0, -1)]
    return [p for p in (*rotated, path) if p.exists()]


def cursor_path() -> Path:
    """The file holding each vault's cursor: the time of the last log entry a run settled."""
    return config.state_dir() / CURSOR_NAME


def _read_map(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def read_cursor(vid: str) -> float:
    """Vault ``vid``'s cursor (0 when none was written or the file is unreadable)."""
    try:
        return float(_read_map(cursor_path()).get(vid, 0.0))  # type: ignore[arg-type]
    except (ValueError, TypeError):
        return 0.0


def write_cursor(vid: str, value: float) -> None:
    """Move vault ``vid``'s cursor to ``value``, never past now."""
    with state_lock(_STATE_LOCK):  # another vault's run may be writing the same file
        data = _read_map(cursor_path())
        # Never past now: one entry stamped a year ahead (a clock wrong for a while) hid every later one.
        data[vid] = min(value, time.time())
        write_private(cursor_path(), json.dumps(data, indent=1).encode("utf-8"), append=False)


def is_weak(item: dict[str, object]) -> bool:
    """A logged lookup the learner should look at: refused, cited by the semantic signal, or thin margin."""
    if item.get("decision") == "refuse" or item.get("semantic_cited") is True:
        return True
    margin = item.get("margin")
    return isinstance(margin, (int, float)) and margin < WEAK_MARGIN


def question_key(question: str) -> str:
    """One spelling per question: normalised, spaces collapsed, closing punctuation dropped."""
    return " ".join(normalize(question).split()).rstrip("?？!！.。 ")


def weak_questions(
    entries: Iterable[dict[str, object]], vid: str, since: float
) -> tuple[list[Weak], list[float]]:
    """This vault's weak questions logged after ``since``, deduplicated, oldest first; and all entry times.

    Ordered by when each question was first asked, so a bounded run (``--max``) handles the oldest first.
    """
    seen: dict[str, Weak] = {}
    times: list[float] = []
    for item in entries:
        t = item.get("time")
        q = item.get("question")
        # NaN or Infinity (json reads both) is no time: it would stall or poison the cursor.
        if (
            item.get("vault_id") != vid
            or not isinstance(t, (int, float))
            or not math.isfinite(t)
            or t <= since
        ):
            continue
        times.append(float(t))
        if not isinstance(q, str) or not q.strip() or not is_weak(item):
            continue
        key = question_key(q)
        if key and key not in seen:
            seen[key] = Weak(" ".join(q.split()), float(t))
    return sorted(seen.values(), key=lambda w: w.first_time), sorted(times)


def attempts_path() -> Path:
    """The file holding, per vault, the questions the model failed on (``failed_runs``)."""
    return config.state_dir() / ATTEMPTS_NAME


def failed_runs(vid: str) -> dict[str, int]:
    """For vault ``vid``: the key of each question the model failed on, and in how many runs it failed
    asked alone (0: it failed in a batch, and is to be asked alone)."""
    mine = _read_map(attempts_path()).get(vid)
    if not isinstance(mine, dict):
        return {}
    return {k: v for k, v in mine.items() if isinstance(k, str) and isinstance(v, int) and v >= 0}


def save_failed_runs(vid: str, counts: dict[str, int], still_weak: Iterable[str]) -> None:
    """Store vault ``vid``'s counts, keeping only questions the cursor has not passed (``still_weak``
    keys), so the file holds no more than the questions still waiting."""
    keep = set(still_weak)
    mine = {k: n for k, n in counts.items() if k in keep and n >= 0}
    with state_lock(_STATE_LOCK):  # another vault's run may be writing the same file
        data = _read_map(attempts_path())
        if mine:
            data[vid] = mine
        elif vid not in data:
            return
        else:
            del data[vid]
        text = json.dumps(data, ensure_ascii=False, indent=1)
        write_private(attempts_path(), text.encode("utf-8"), append=False)


def count_failures(
    vid: str,
    weak: list[Weak],
    outcomes: list[Outcome],
    failed: dict[str, int],
    alone: set[str],
    batched: set[str],
    replied: bool,
) -> None:
    """Count a learner run's failures, only in a run in which the model replied at all (even
    unusably): when it replied to nothing (an endpoint down, a key revoked), no question is to blame,
    and one it had no time for (``LaneTimeout``) or the service could not take (``LaneUnavailable``) is
    in neither set. A question that failed in a batch may have been spoiled by another: it is only
    marked to be asked alone next run. One that failed asked alone counts one."""
    for o in outcomes:
        key = question_key(o.question)
        if o.status == UNCERTAIN and o.question in alone and replied:
            failed[key] = failed.get(key, 0) + 1
        elif o.status == UNCERTAIN and o.question in batched and replied:
            failed.setdefault(key, 0)
    save_failed_runs(vid, failed, (question_key(w.question) for w in weak))
