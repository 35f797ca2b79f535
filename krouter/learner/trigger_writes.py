"""The one write path: a verified trigger onto its page, journaled first; and undo of a run, byte for byte.

``write_trigger`` is the only place the learner (nightly or an agent's teaching) changes a page: the
byte-preserving edit of ``page_edit``, with a journal entry in ``learned.jsonl`` appended just before
the page is renamed into place, so ``undo(run_id)`` can restore the exact bytes. ``write_confirmed``,
which both teachers call, adds what "learned" means: the question, asked again, now cites the page; a
trigger that does not make it cite is taken back at once (``take_back``: that one trigger, not its
run), and the take-back is journaled: ``krouter learn --list`` shows it, and undo finds nothing to do. The outcomes of
every run, rejections with their reasons included, go to ``learn_log.jsonl``. Both live in the state
dir, private (0600, in a 0700 folder).
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
from typing import TYPE_CHECKING

from krouter import config
from krouter.atomic import atomic_write
from krouter.errors import KRouterError, PageNotFound
from krouter.learner import page_edit
from krouter.learner.page_write import PageNotWritten, atomic_replace, size_problem
from krouter.learner.report import LEARNED, PROPOSED, SKIPPED, LearnReport, Outcome
from krouter.learner.write_lock import learner_lock
from krouter.routing import querylog
from krouter.vault.files import contained_path, read_contained

if TYPE_CHECKING:
    from krouter.routing.router import Router

# How an undo left a page: its bytes from before the run, or (edited since) the edits kept and the
# trigger taken out.
RESTORED = "restored"
REMOVED = "removed"
# Nothing to undo: the page, or the trigger on it, is gone already.
GONE = "gone"
# What ``write_confirmed`` says of a trigger written and taken back at once: it did not make its
# question cite the page.
TAKEN_BACK = "taken-back"

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
    if page_edit.holds_trigger(page.rel, page.text, trigger):
        return SKIPPED, "already a trigger of the page"
    try:
        new = page_edit.with_trigger(page.data, trigger)
    except page_edit.PageEditError as exc:
        return SKIPPED, str(exc)
    too_large = size_problem(new)
    if too_large:
        return SKIPPED, too_large
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
        with learner_lock():
            atomic_replace(
                page.path, new, page.data, before_rename=lambda: append_jsonl(journal_path(), entry)
            )
    except PageNotWritten as exc:
        return SKIPPED, str(exc)
    return LEARNED, ""


# ----- undo ----------------------------------------------------------------------------------------------


def undone_runs() -> set[str]:
    """The run ids ``krouter learn --undo`` reversed (a page or more restored)."""
    return {
        str(item["undo"])
        for _offset, item in querylog.read(outcomes_path())
        if "undo" in item and isinstance(item.get("restored"), int) and item["restored"]
    }


def journal_entries(run_id: str | None = None) -> list[dict[str, object]]:
    """Journal entries, all or one run's, in the order they were written; corrupt lines skipped.

    An entry whose trigger was taken back at once (``take_back``) carries ``"taken_back": True``.
    """
    out = []
    withdrawn: set[tuple[str, str, str, str]] = set()
    for _offset, item in querylog.read(journal_path()):
        back = item.get("take_back")
        if isinstance(back, dict):
            withdrawn.add(_entry_key(back))
        elif "page" in item and (run_id is None or item.get("run_id") == run_id):
            out.append(item)
    for e in out:
        if _entry_key(e) in withdrawn:
            e["taken_back"] = True
    return out


def _entry_key(item: dict[str, object]) -> tuple[str, str, str, str]:
    # A run writes a trigger onto a page once; the digest tells apart the same run id reused.
    return (
        str(item.get("run_id")),
        str(item.get("page")),
        str(item.get("trigger")),
        str(item.get("after_sha256")),
    )


def undo(run_id: str) -> LearnReport:
    """Reverse one run's changes, newest first, restoring each page's exact bytes.

    A page that changed since the run (it no longer holds the bytes the run wrote) keeps its later edits:
    the trigger's item of the triggers list is taken out (checked by re-parsing), else the run's own
    insertion where it is still as written; a page or trigger gone already needs nothing; anything else
    is left alone and reported. A change that never reached the page (a crash before the rename) needs
    nothing, nor does a trigger taken back when it was written.
    """
    with learner_lock():
        report = _undo_run(run_id)
    undone = report.count(RESTORED) + report.count(REMOVED)
    append_jsonl(outcomes_path(), {"undo": run_id, "time": time.time(), "restored": undone})
    return report


def _undo_run(run_id: str) -> LearnReport:
    entries = journal_entries(run_id)
    if not entries:
        raise KRouterError(f"no learner run {run_id!r} in {journal_path()}")
    report = LearnReport(run_id, str(entries[0].get("vault", "")), "undo", "", dry_run=False)
    for e in reversed(entries):
        o = Outcome(str(e.get("trigger", "")), SKIPPED, page=str(e["page"]))
        report.outcomes.append(o)
        _undo_entry(e, o)
        if e.get("taken_back") and o.status in {GONE, "unchanged"}:
            # Undone as it was written; asking it again here also covers a crash between the page's
            # restore and its journal record, in either order.
            o.status, o.reason = (
                GONE,
                "taken back when it was written (it did not make its question cite the page)",
            )
    return report


def _undo_entry(e: dict[str, object], o: Outcome) -> None:
    """Reverse one journaled write; ``o`` gets its status and reason (SKIPPED when left alone)."""
    trigger = str(e.get("trigger", ""))
    page = str(e["page"])
    try:
        path = contained_path(Path(str(e["vault"])), page)
        current = read_contained(Path(str(e["vault"])), path)
    except (PageNotFound, FileNotFoundError):
        o.status, o.reason = GONE, "the page no longer exists"
        return
    except (KRouterError, OSError) as exc:
        o.reason = f"page cannot be read: {exc}"
        return
    if _digest(current) == e["before_sha256"]:
        o.status, o.reason = (
            "unchanged",
            "the page already holds its bytes from before the run (undone already?)",
        )
        return
    off = int(e["offset"])  # type: ignore[arg-type]
    old, new = base64.b64decode(str(e["old"])), base64.b64decode(str(e["new"]))
    if _digest(current) != e["after_sha256"]:
        # Edited since (a line added to the body, a tag changed, another trigger taught): the
        # trigger's list item is taken out (with the key, when nothing else is left in it), else the
        # run's own insertion where it still is as written (a frontmatter block the run created),
        # and only when that leaves the page as edited, minus the trigger.
        kept = page_edit.without_trigger(current, trigger) or _without_insertion(current, old, new, trigger)
        if kept is None:
            try:
                holds = page_edit.holds_trigger(page, current.decode("utf-8-sig"), trigger)
            except UnicodeDecodeError:
                holds = True  # an undecodable page may hold it: left alone, below
            if not holds:
                o.status, o.reason = (
                    GONE,
                    "the trigger is no longer on the page (removed or reworded since)",
                )
                return
            o.reason = (
                "the page changed since the run and its trigger is no longer a plain item of the "
                "triggers list; left alone: remove it from the page's triggers by hand"
            )
            return
        data, status, done = (
            kept,
            REMOVED,
            "the page changed since the run: the trigger was taken out, the later edits kept"
            + _later_run_note(e),
        )
    else:
        data, status, done = current[:off] + old + current[off + len(new) :], RESTORED, ""
        if _digest(data) != e["before_sha256"]:
            o.reason = "journal entry does not match the page; left alone"
            return
    try:
        atomic_replace(path, data, current)
    except PageNotWritten as exc:
        o.reason = str(exc)
        return
    o.status, o.reason = status, done


def _later_run_note(e: dict[str, object]) -> str:
    """When a later run, not undone, wrote the same page: undoing it first gives the bytes from before
    both back exactly (taking a trigger out keeps what the later run made of the frontmatter)."""
    undone, when = undone_runs(), float(e.get("time", 0))  # type: ignore[arg-type]
    for x in reversed(journal_entries()):
        same = x.get("vault") == e.get("vault") and x.get("page") == e.get("page") and not x.get("taken_back")
        if same and float(x.get("time", 0)) > when and x.get("run_id") not in undone:  # type: ignore[arg-type]
            return f" (run {x['run_id']} wrote this page later: undo it first, then this run, for the earlier bytes exactly)"
    return ""


# ----- write, ask again, take back ------------------------------------------------------------------------


def take_back(root: Path, run_id: str, rel: str, trigger: str, why: str) -> bool:
    """Take one trigger of a run off its page (the run's other writes stay); True when it is off.

    The page gets its bytes from before the write back, or, edited since, loses only the trigger's
    item (``undo``'s own rules, for this one journal entry). A trigger that is off the page afterwards is
    journaled as taken back, with ``why``, after the page is renamed into place (a crash between the
    two leaves an entry that undo finds already undone); one still on it is left and False returned.
    """
    trigger = page_edit.clean_trigger(trigger)
    with learner_lock():
        mine = [e for e in journal_entries(run_id) if e.get("page") == rel and e.get("trigger") == trigger]
        if not mine:
            return False
        entry = mine[-1]
        _undo_entry(entry, Outcome(trigger, SKIPPED, page=rel))
        try:
            text = read_contained(root, contained_path(root, rel)).decode("utf-8-sig")
            if page_edit.holds_trigger(rel, text, trigger):
                return False
        except (PageNotFound, FileNotFoundError):
            pass  # the page is gone: so is the trigger
        except (KRouterError, OSError, UnicodeDecodeError):
            return False
        back = {k: entry.get(k) for k in ("run_id", "page", "trigger", "after_sha256")}
        append_jsonl(
            journal_path(), {"take_back": back, "time": time.time(), "vault": str(root), "reason": why}
        )
    return True


def write_confirmed(
    router: Router,
    page: PageBytes,
    question: str,
    run_id: str,
    *,
    dry_run: bool,
    record: dict[str, object],
) -> tuple[str, str]:
    """``write_trigger``, then ask the question again: it must now cite the page, or the trigger is
    taken back. The one "write, re-ask, take back" step of every teacher: (status, reason).

    LEARNED when the question now cites the page; TAKEN_BACK (the reason says what KRouter decides
    instead) when it would not and the trigger was taken off again; LEARNED with a reason when it would
    not but the page changed meanwhile and the trigger can no longer be taken off cleanly. PROPOSED and
    SKIPPED as ``write_trigger`` says. ``router`` is refreshed after every change, so what is asked next
    sees the vault as it is.
    """
    status, reason = write_trigger(router.root, page, question, run_id, dry_run=dry_run, record=record)
    if status != LEARNED:
        return status, reason
    # The checks before writing follow the decision's rules but cannot foresee everything it weighs
    # (another page may tie with this one or still win): only asking again says what the trigger does.
    try:
        # The written page by name: a whole-vault refresh trusts another process's watcher, which may not
        # have seen this write yet (two MCP servers teaching at once took back valid lessons).
        router.index.refresh(paths=[page.rel])
        router.refresh()
        after = router.decide(question, lexical_only=True)
    except BaseException as exc:
        # Not asked again (the index busy with another writer, an interrupt): a trigger nobody checked
        # must not stay, and a later run would skip it as already taught.
        take_back(router.root, run_id, page.rel, question, f"not asked again: {exc!r}")
        raise
    if after.decision == "cite" and after.top is not None and after.top.path == page.rel:
        return LEARNED, ""
    why = f"KRouter would still not cite {page.rel} for this question ({after.reason})"
    taken = take_back(router.root, run_id, page.rel, question, why)
    router.index.refresh(paths=[page.rel])
    router.refresh()
    if not taken:
        return (
            LEARNED,
            f"{why}; the page changed meanwhile, so the trigger stays: krouter learn --undo {run_id}",
        )
    return TAKEN_BACK, why


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
