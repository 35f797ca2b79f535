"""The one write path: a verified trigger onto its page, journaled first; and undo of a run, byte for byte.

``write_trigger`` is the only place the learner (nightly or an agent's teaching) changes a page: the
byte-preserving edit of ``page_edit``, with a journal entry in ``learned.jsonl`` appended just before
the page is renamed into place, so ``undo(run_id)`` can restore the exact bytes. The outcomes of every
run, rejections with their reasons included, go to ``learn_log.jsonl``. Both live in the state dir,
private (0600, in a 0700 folder).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from krouter import config
from krouter.atomic import atomic_write
from krouter.errors import KRouterError
from krouter.learner import page_edit
from krouter.learner.report import LEARNED, PROPOSED, SKIPPED, LearnReport, Outcome
from krouter.routing import querylog
from krouter.tokens.terms import normalize
from krouter.vault.files import contained_path, read_contained
from krouter.vault.page import parse_page

# How an undo left a page: its bytes from before the run, or (edited since) the edits kept and the
# trigger taken out.
RESTORED = "restored"
REMOVED = "removed"
# Nothing to undo: the page, or the trigger on it, is gone already.
GONE = "gone"

JOURNAL_NAME = "learned.jsonl"
OUTCOMES_NAME = "learn_log.jsonl"


# ----- journal ----------------------------------------------------------------------------------------


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
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        return
    atomic_write(path, data, mode=0o600)


def append_jsonl(path: Path, obj: dict[str, object]) -> None:
    """Append one JSON object as a line to a private state file (the journal, the outcomes log)."""
    write_private(path, (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8"), append=True)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def new_run_id() -> str:
    """A sortable, unique run id: UTC time plus a random suffix."""
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + secrets.token_hex(3)


# ----- the write path ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class PageBytes:
    """A page as read for an edit: its path, exact bytes, and text (BOM kept, as the bytes hold it)."""

    rel: str
    path: Path
    data: bytes
    text: str


def read_for_edit(root: Path, rel: str) -> PageBytes:
    """Read a page for an edit, confined to the vault; raises KRouterError, OSError or UnicodeDecodeError."""
    path = contained_path(root, rel)
    data = read_contained(root, path)
    return PageBytes(rel, path, data, data.decode("utf-8-sig"))


def write_trigger(
    root: Path,
    page: PageBytes,
    question: str,
    run_id: str,
    *,
    dry_run: bool,
    record: dict[str, object],
) -> tuple[str, str]:
    """Add ``question`` to a verified page's ``triggers`` and journal it: (status, reason).

    The one page-edit path for every teacher. LEARNED when written, PROPOSED in a dry run, SKIPPED
    (with the reason) when the page already has the trigger, cannot be edited safely, or changed since
    it was read. ``record`` adds who taught it (lane, model, quote, ...) to the journal entry.
    """
    trigger = page_edit.clean_trigger(question)
    if _holds_trigger(page.rel, page.text, trigger):
        return SKIPPED, "already a trigger of the page"
    try:
        new = page_edit.with_trigger(page.data, trigger)
    except page_edit.PageEditError as exc:
        return SKIPPED, str(exc)
    if dry_run:
        return PROPOSED, ""
    sp = page_edit.splice(page.data, new)
    entry = {
        "run_id": run_id,
        "time": time.time(),
        "vault": str(root),
        "page": page.rel,
        "trigger": trigger,
        **record,
        "offset": sp.offset,
        "old": _b64(sp.old),
        "new": _b64(sp.new),
        "before_sha256": _digest(page.data),
        "after_sha256": _digest(new),
    }
    try:
        page_edit.atomic_replace(
            page.path, new, page.data, before_rename=lambda: append_jsonl(journal_path(), entry)
        )
    except page_edit.PageChanged as exc:
        return SKIPPED, str(exc)
    return LEARNED, ""


# ----- undo ----------------------------------------------------------------------------------------------


def journal_entries(run_id: str | None = None) -> list[dict[str, object]]:
    """Journal entries, all or one run's, in the order they were written; corrupt lines skipped."""
    out = []
    for _offset, item in querylog.read(journal_path()):
        if "page" in item and (run_id is None or item.get("run_id") == run_id):
            out.append(item)
    return out


def undo(run_id: str) -> LearnReport:
    """Reverse one run's changes, newest first, restoring each page's exact bytes.

    A page that changed since the run (it no longer holds the bytes the run wrote) keeps its later edits:
    the trigger's item of the triggers list is taken out (checked by re-parsing), else the run's own
    insertion where it is still as written; a page or trigger gone already needs nothing; anything else
    is left alone and reported. A change that never reached the page (a crash before the rename) needs
    nothing.
    """
    entries = journal_entries(run_id)
    if not entries:
        raise KRouterError(f"no learner run {run_id!r} in {journal_path()}")
    report = LearnReport(run_id, str(entries[0].get("vault", "")), "undo", "", dry_run=False)
    for e in reversed(entries):
        trigger = str(e.get("trigger", ""))
        page = str(e["page"])
        o = Outcome(trigger, SKIPPED, page=page)
        report.outcomes.append(o)
        try:
            path = contained_path(Path(str(e["vault"])), page)
            if not path.exists():
                o.status, o.reason = GONE, "the page no longer exists"
                continue
            current = read_contained(Path(str(e["vault"])), path)
        except (KRouterError, OSError) as exc:
            o.reason = f"page cannot be read: {exc}"
            continue
        if _digest(current) == e["before_sha256"]:
            o.status, o.reason = (
                "unchanged",
                "the page already holds its bytes from before the run (undone already?)",
            )
            continue
        off = int(e["offset"])  # type: ignore[arg-type]
        old, new = base64.b64decode(str(e["old"])), base64.b64decode(str(e["new"]))
        if _digest(current) != e["after_sha256"]:
            # Edited since (a line added to the body, a tag changed, another trigger taught): the
            # trigger's list item is taken out (with the key, when nothing else is left in it), else the
            # run's own insertion where it still is as written (a frontmatter block the run created),
            # and only when that leaves the page as edited, minus the trigger.
            kept = page_edit.without_trigger(current, trigger) or _without_insertion(
                current, old, new, trigger
            )
            if kept is None:
                try:
                    holds = _holds_trigger(page, current.decode("utf-8-sig"), trigger)
                except UnicodeDecodeError:
                    holds = True  # an undecodable page may hold it: left alone, below
                if not holds:
                    o.status, o.reason = (
                        GONE,
                        "the trigger is no longer on the page (removed or reworded since)",
                    )
                    continue
                o.reason = (
                    "the page changed since the run and its trigger is no longer a plain item of the "
                    "triggers list; left alone: remove it from the page's triggers by hand"
                )
                continue
            data, status, done = (
                kept,
                REMOVED,
                "the page changed since the run: the trigger was taken out, the later edits kept",
            )
        else:
            data, status, done = current[:off] + old + current[off + len(new) :], RESTORED, ""
            if _digest(data) != e["before_sha256"]:
                o.reason = "journal entry does not match the page; left alone"
                continue
        try:
            page_edit.atomic_replace(path, data, current)
        except page_edit.PageChanged as exc:
            o.reason = str(exc)
            continue
        o.status, o.reason = status, done
    undone = report.count(RESTORED) + report.count(REMOVED)
    append_jsonl(outcomes_path(), {"undo": run_id, "time": time.time(), "restored": undone})
    return report


def _holds_trigger(rel: str, text: str, trigger: str) -> bool:
    """Whether the page's triggers hold ``trigger``, as the router reads them (case and width folded)."""
    return normalize(trigger) in {normalize(t) for t in parse_page(rel, text).triggers}


def _without_insertion(current: bytes, old: bytes, new: bytes, trigger: str) -> bytes | None:
    """``current`` with the run's inserted bytes ``new`` put back to ``old``, when they occur once and
    adding the trigger again by the learner's own edit gives ``current`` exactly; else None."""
    if not new or current.count(new) != 1:
        return None
    at = current.index(new)
    kept = current[:at] + old + current[at + len(new) :]
    try:
        return kept if page_edit.with_trigger(kept, trigger) == current else None
    except page_edit.PageEditError:
        return None
