"""The one write path: a verified trigger onto its page, journaled; and taking one trigger back.

``write_trigger`` is the only place the learner (nightly or an agent's teaching) changes a page: the
byte-preserving edit of ``page_edit``, with a journal entry (``krouter.learner.journal``) appended just
before the page is renamed into place, so ``krouter.learner.undo`` can restore the exact bytes.
``write_confirmed``, which both teachers call, adds what "learned" means: the question, asked again, now
cites the page; a trigger that does not make it cite is taken back at once (``take_back``: that one
trigger, not its run), and the take-back is journaled: ``krouter learn --list`` shows it, and undo finds
nothing to do.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from krouter.errors import KRouterError, PageNotFound
from krouter.file_lock import Taken
from krouter.learner import page_edit
from krouter.learner.journal import (
    NOT_WRITTEN,
    WRITTEN,
    append_jsonl,
    b64,
    digest,
    journal_entries,
    journal_path,
    mark,
    settle_unmarked,
)
from krouter.learner.moved import identity
from krouter.learner.page_write import PageNotWritten, atomic_replace, size_problem
from krouter.learner.report import LEARNED, PROPOSED, SKIPPED, Outcome
from krouter.learner.undo import undo_entry
from krouter.learner.write_lock import busy, learner_lock
from krouter.vault.files import contained_path, read_contained

if TYPE_CHECKING:
    from krouter.routing.router import Router

# What ``write_confirmed`` says of a trigger written and taken back at once: it did not make its
# question cite the page.
TAKEN_BACK = "taken-back"


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
        "entry": secrets.token_hex(8),
        "time": time.time(),
        "vault": str(root),
        "page": page.rel,
        "trigger": trigger,
        # Should the page be moved and edited, undo tells it from other pages holding the trigger.
        **identity(page.rel, new),
        **record,
        "offset": sp.offset,
        "old": b64(sp.old),
        "new": b64(sp.new),
        "before_sha256": digest(page.data),
        "after_sha256": digest(new),
    }
    try:
        with learner_lock(bounded=True):
            settle_unmarked(root, page.rel, page.text)
            journaled_replace(page.path, new, page.data, entry)
    except PageNotWritten as exc:
        return SKIPPED, str(exc)
    except Taken:  # only the lock's wait raises it: nothing was journaled or written
        return SKIPPED, busy("the learner's write lock")
    return LEARNED, ""


def journaled_replace(path: Path, new: bytes, expected: bytes, entry: dict[str, object]) -> None:
    """``atomic_replace`` with ``entry`` journaled just before the last check and the rename, then
    marked written or not (``journal.mark``). The caller holds the learner's write lock."""
    journaled = False

    def journal_first() -> None:
        nonlocal journaled
        append_jsonl(journal_path(), entry)
        journaled = True

    try:
        atomic_replace(path, new, expected, before_rename=journal_first)
    except BaseException as exc:
        # Said at once whether the rename happened, so that the entry is never taken for a later
        # write's: an interrupt may come after it (while the folder is fsynced), so the page says.
        # A writer killed outright leaves the entry unmarked, for the page's next write to settle.
        if journaled:
            try:
                renamed = path.read_bytes() == new
            except OSError:
                renamed = None
            if renamed is not None:
                mark(entry, WRITTEN if renamed else NOT_WRITTEN, "" if renamed else str(exc) or repr(exc))
        raise
    mark(entry, WRITTEN)


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
        undo_entry(entry, Outcome(trigger, SKIPPED, page=rel))
        try:
            text = read_contained(root, contained_path(root, rel)).decode("utf-8-sig")
            if page_edit.holds_trigger(rel, text, trigger):
                return False
        except (PageNotFound, FileNotFoundError):
            pass  # the page is gone: so is the trigger
        except (KRouterError, OSError, UnicodeDecodeError):
            return False
        back = {k: entry.get(k) for k in ("run_id", "entry", "page", "trigger", "after_sha256")}
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
