"""The learner's journal (``learned.jsonl``: every change it made to a page, enough to undo it byte for
byte) and its outcomes log (``learn_log.jsonl``: every run's outcomes, rejections with their reasons
included, and every undo). Both live in the state dir, private (0600, in a 0700 folder)."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from pathlib import Path

from krouter import config
from krouter.appends import append_whole
from krouter.atomic import atomic_write
from krouter.errors import KRouterError
from krouter.learner import page_edit
from krouter.routing import querylog
from krouter.vault.files import contained_path, read_contained

JOURNAL_NAME = "learned.jsonl"
OUTCOMES_NAME = "learn_log.jsonl"
# What ``mark`` says of a journaled write.
WRITTEN = "written"
NOT_WRITTEN = "not-written"
# What undo needs of a write, and what a ``rebase`` line replaces (``krouter.learner.rewind``).
SPLICE_FIELDS = ("offset", "old", "new", "before_sha256", "after_sha256")


def journal_path() -> Path:
    """Where every change the learner made is recorded (``learned.jsonl`` in the state dir)."""
    return config.state_dir() / JOURNAL_NAME


def outcomes_path() -> Path:
    """Where every run's outcomes, rejections with their reasons included, are recorded."""
    return config.state_dir() / OUTCOMES_NAME


def write_private(path: Path, data: bytes, append: bool) -> None:
    """Append to, or atomically replace, a private state file (0600, in a 0700 folder)."""
    config.private_dir(path.parent)
    if append:
        append_whole(path, data, fsync=True)
        return
    atomic_write(path, data, mode=0o600)


def append_jsonl(path: Path, obj: dict[str, object]) -> None:
    """Append one JSON object as a line to a private state file (the journal, the outcomes log)."""
    write_private(path, (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8"), append=True)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def new_run_id() -> str:
    """A sortable, unique run id: UTC time plus a random suffix."""
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + secrets.token_hex(3)


def undone_runs() -> set[str]:
    """The run ids ``krouter learn --undo`` reversed (a page or more restored)."""
    return set(undone_in())


def undone_in(*, restoring_only: bool = True) -> dict[str, set[str | None]]:
    """For each run ``krouter learn --undo`` reversed (a page or more restored), the folders it was
    undone in; None for an undo recorded before undos named their folder (it may have been any).
    ``restoring_only=False``: every undo recorded, whether it restored a page or found nothing to."""
    out: dict[str, set[str | None]] = {}
    for _offset, item in querylog.read(outcomes_path()):
        restored = isinstance(item.get("restored"), int) and item["restored"]
        if "undo" in item and (restored or not restoring_only):
            where = item.get("folder")
            out.setdefault(str(item["undo"]), set()).add(where if isinstance(where, str) else None)
    return out


def journal_entries(run_id: str | None = None) -> list[dict[str, object]]:
    """Journal entries, all or one run's, in the order they were written; corrupt lines skipped.

    Each carries ``key`` (what take-back and rebase lines name it by). An entry whose trigger was taken
    back at once (``take_back``) carries ``"taken_back": True``; one whose page was never renamed into
    place carries ``"never_written": True`` (see ``mark``).
    """
    out = []
    withdrawn: set[str] = set()
    marks: dict[str, str] = {}
    rebased: dict[str, dict[str, object]] = {}
    for _offset, item in querylog.read(journal_path()):
        back = item.get("take_back")
        if isinstance(back, dict):
            withdrawn.add(entry_key(back))
        elif isinstance(item.get("mark"), str) and isinstance(item.get("entry"), str):
            marks[str(item["entry"])] = str(item["mark"])
        elif isinstance(item.get("rebase"), str):
            rebased[str(item["rebase"])] = item
        elif "page" in item and (run_id is None or item.get("run_id") == run_id):
            out.append(item)
    for e in out:
        e["key"] = entry_key(e)
        if e["key"] in withdrawn:
            e["taken_back"] = True
        if e["key"] in rebased:
            # An undo of an earlier write on the page wrote this one again (``rewind``): its splice now.
            e.update({k: rebased[e["key"]].get(k) for k in SPLICE_FIELDS})
        how = marks.get(str(e.get("entry"))) if "entry" in e else WRITTEN
        # Not marked at all (the writer died between the entry and its mark): the page says whether
        # the rename happened.
        if how == NOT_WRITTEN or (how is None and not _on_page(e)):
            e["never_written"] = True
    return out


def mark(entry: dict[str, object], how: str, reason: str = "") -> None:
    """Record whether a journaled write reached its page (``WRITTEN``) or not (``NOT_WRITTEN``).

    A writer journals its entry before the rename, so that no page ever holds a trigger the journal
    lacks, and marks it once the rename happened or failed; an entry never marked (a crash between the
    two) is settled by reading the page.
    """
    line: dict[str, object] = {"mark": how, "entry": entry["entry"], "time": time.time()}
    if reason:
        line["reason"] = reason
    append_jsonl(journal_path(), line)


def settle_unmarked(root: Path, rel: str, text: str) -> None:
    """Mark every journaled write of this page that was never marked (its writer died between the
    entry and the mark), by the page's ``text`` as it is now, before another write of the page.

    Called under the learner's write lock just before a write: settled later, by reading the page,
    the dead writer's entry would be taken for whatever wrote the trigger since, and undoing the dead
    run would take that write's trigger off.
    """
    page_entries: dict[str, str] = {}
    marked: set[str] = set()
    for _offset, item in querylog.read(journal_path()):
        if isinstance(item.get("mark"), str) and isinstance(item.get("entry"), str):
            marked.add(str(item["entry"]))
        elif (
            item.get("page") == rel and item.get("vault") == str(root) and isinstance(item.get("entry"), str)
        ):
            page_entries[str(item["entry"])] = str(item.get("trigger", ""))
    for entry, trigger in page_entries.items():
        if entry not in marked:
            how = WRITTEN if page_edit.holds_trigger(rel, text, trigger) else NOT_WRITTEN
            mark({"entry": entry}, how, "settled by the page before its next write")


def _on_page(e: dict[str, object]) -> bool:
    """Whether an unmarked entry's trigger is on its page (its write reached it)."""
    root = Path(str(e.get("vault")))
    rel = str(e.get("page"))
    try:
        text = read_contained(root, contained_path(root, rel)).decode("utf-8-sig")
    except (KRouterError, OSError, UnicodeDecodeError):
        return False
    return page_edit.holds_trigger(rel, text, str(e.get("trigger", "")))


def entry_key(item: dict[str, object]) -> str:
    """What a take-back names its entry by: the entry's id; for entries written before ids, the run,
    page, trigger and the digest that tells apart the same run id reused."""
    if isinstance(item.get("entry"), str):
        return str(item["entry"])
    fields = ("run_id", "page", "trigger", "after_sha256")
    return "\n".join(str(item.get(k)) for k in fields)
