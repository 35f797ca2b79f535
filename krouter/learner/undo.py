"""Undo of a learner run (``krouter learn --undo RUN_ID``): each page it changed gets its bytes from
before the run back, or, edited since, loses only the run's trigger."""

from __future__ import annotations

import base64
import contextlib
import time
from pathlib import Path

from krouter.errors import KRouterError, PageNotFound, VaultNotFound
from krouter.lazy_pattern import lazy_pattern
from krouter.learner import page_edit
from krouter.learner.journal import (
    append_jsonl,
    digest,
    journal_entries,
    journal_path,
    outcomes_path,
    undone_in,
    undone_runs,
)
from krouter.learner.moved import moved_all, moved_to
from krouter.learner.page_write import PageNotWritten, atomic_replace
from krouter.learner.report import SKIPPED, LearnReport, Outcome
from krouter.learner.rewind import journal_redone, rewind
from krouter.learner.stand_in import STANDS_IN, folder, gone, stood_in, vault_there
from krouter.learner.write_lock import learner_lock
from krouter.routing import querylog
from krouter.vault.files import contained_path, read_contained
from krouter.vault.page import parse_page

# How an undo left a page: its bytes from before the run, or (edited since) the edits kept and the
# trigger taken out.
RESTORED = "restored"
REMOVED = "removed"
# Not edited since, but later runs taught the page too: as if this run had never written it, their
# triggers kept (``krouter.learner.rewind``).
REWOUND = "rewound"
# Nothing to undo: the page, or the trigger on it, is gone already.
GONE = "gone"
UNDONE_ALREADY = (
    "undone already: left alone (the trigger on the page now, if any, was written since; remove it by "
    "hand if it is not wanted)"
)
# What a run id may look like (``journal.new_run_id`` makes "20250101T000000Z-1a2b3c"): an empty or
# blank one (an unset variable in a script) must never be taken for "no --undo" and start a run.
RUN_ID = lazy_pattern(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,99}")
# The line ``page_edit.with_trigger`` writes when it adds the key.
_KEY_LINE = lazy_pattern(r"(?m)^triggers:\r?$")


def undo(run_id: str, stand_in: Path | None = None) -> LearnReport:
    """Reverse one run's changes, newest first, restoring each page's exact bytes; in ``stand_in``, the
    folder the run's vault moved to (``check_vault``), when one is given.

    A page that changed since the run (it no longer holds the bytes the run wrote) keeps its later edits:
    the trigger's item of the triggers list is taken out (checked by re-parsing), else the run's own
    insertion where it is still as written; a page or trigger gone already needs nothing; anything else
    is left alone and reported. A change that never reached the page (a crash before the rename) needs
    nothing, nor does a trigger taken back when it was written.
    """
    # Looking for pages moved since reads the whole vault: done before the lock, so that no other
    # learner write waits on it; what it found is checked again under the lock.
    moved = _moved_pages(run_id, stand_in)
    with learner_lock():
        report, done = _undo_run(run_id, moved, stand_in)
    undone = report.count(RESTORED) + report.count(REMOVED) + report.count(REWOUND)
    # A page found as it was before the run, which no earlier undo recorded: an undo killed between its
    # restore and this record restored it. Not counted, the run was never listed as undone, and an agent
    # could teach the trigger the owner took back again.
    undone += sum(o.status == "unchanged" and o.reason != UNDONE_ALREADY for o in report.outcomes)
    # The folder it was undone in: a run whose vault moved may have two folders holding what it wrote
    # (the vault moved, and a copy of it), and an undo in one must not count as done in the other.
    record = {
        "undo": run_id,
        "time": time.time(),
        "restored": undone,
        "done": sorted(done),
        "folder": report.vault,
    }
    append_jsonl(outcomes_path(), record)
    return report


def check_vault(run_id: str, vault: Path) -> Path | None:
    """The folder standing in for the vault run ``run_id`` changed, when that vault is gone and
    ``vault`` holds its pages as taught (moved there: ``krouter.learner.stand_in``); None when ``vault``
    is the run's own. Raise VaultNotFound when it is neither: an undo restores the run's own pages
    wherever the command was pointed."""
    entries = journal_entries(run_id)
    theirs = sorted({str(e["vault"]) for e in entries if e.get("vault")})
    if not theirs or _same_folder(vault, theirs):
        return None
    here = vault.expanduser().resolve()
    # Its own entries only: another run's page in the folder says nothing of this run's. A folder it was
    # undone in already stands in too, to say so rather than that it lacks the run's pages.
    if len(theirs) == 1 and (
        theirs[0] in stood_in(vault, entries) or str(here) in undone_in(restoring_only=False).get(run_id, ())
    ):
        return here
    away = [v for v in theirs if gone(v)]
    empty = [v for v in theirs if not gone(v) and not vault_there(Path(v))]
    why = (
        f"; {', '.join(away)} is not there now, but {vault} holds none of the run's pages as it left them"
        if away
        else f"; {', '.join(empty)} is there but empty (a drive not mounted?)"
        if empty
        else ""
    )
    raise VaultNotFound(
        f"run {run_id} changed pages in {', '.join(theirs)}, not in {vault}{why}: name that vault, or leave "
        "--vault out"
    )


def _entries(run_id: str, stand_in: Path | None) -> list[dict[str, object]]:
    """The run's journal entries, each read and written in ``stand_in`` when one is given."""
    entries = journal_entries(run_id)
    if stand_in is not None:
        for e in entries:
            e[STANDS_IN] = str(stand_in)
    return entries


def _same_folder(vault: Path, theirs: list[str]) -> bool:
    try:
        here = vault.expanduser().resolve()
    except OSError:
        return False
    return any(here == Path(v).resolve() for v in theirs)


def _moved_pages(run_id: str, stand_in: Path | None) -> dict[str, list[str]]:
    """For each entry of the run whose page is gone from its path, the pages of the vault that may be it
    (``moved_to``'s pages and others), by entry key. Each vault is read once, however many of the run's
    pages are gone from it."""
    gone: dict[str, list[dict[str, object]]] = {}
    for e in _entries(run_id, stand_in):
        if e.get("never_written") or not vault_there(folder(e)):
            continue
        try:
            contained_path(folder(e), str(e["page"]))
        except PageNotFound:
            gone.setdefault(str(folder(e)), []).append(e)
        except KRouterError:
            continue  # a path undo refuses anyway (outside the vault)
    found: dict[str, list[str]] = {}
    for entries in gone.values():
        with contextlib.suppress(KRouterError, OSError):  # said under the lock, when undone
            for e, where in zip(entries, moved_all(entries), strict=True):
                found[str(e["key"])] = where.pages + where.others
    return found


def _undo_run(
    run_id: str, moved: dict[str, list[str]], stand_in: Path | None
) -> tuple[LearnReport, set[str]]:
    """The run's undo, and the keys of its entries undone (now or by an earlier undo)."""
    entries = _entries(run_id, stand_in)
    if not entries:
        raise KRouterError(f"no learner run {run_id!r} in {journal_path()}")
    report = LearnReport(run_id, str(folder(entries[0])), "undo", "", dry_run=False)
    before = _done_before(run_id, entries, report.vault)
    done = set(before)
    for e in reversed(entries):
        o = Outcome(str(e.get("trigger", "")), SKIPPED, page=str(e["page"]))
        report.outcomes.append(o)
        if str(e["key"]) in before:
            # Its trigger on a page now was put there since, by hand or by another run: undoing the entry
            # again took out the owner's own line and called it a restore (a cold review). An entry an
            # earlier undo left alone (a page that could not be read then) is undone now.
            o.status, o.reason = "unchanged", UNDONE_ALREADY
            continue
        undo_entry(e, o, moved.get(str(e["key"])))
        # Dealt with: restored, taken out, or found gone or as it was before the run (the owner took the
        # trigger out first): a trigger on the page later is someone's since (the late commits' review).
        if o.status in {RESTORED, REMOVED, REWOUND, GONE, "unchanged"}:
            done.add(str(e["key"]))
        if e.get("taken_back") and o.status in {GONE, "unchanged"}:
            # Undone as it was written; asking it again here also covers a crash between the page's
            # restore and its journal record, in either order.
            o.status, o.reason = (
                GONE,
                "taken back when it was written (it did not make its question cite the page)",
            )
    return report, done


def _done_before(run_id: str, entries: list[dict[str, object]], here: str) -> set[str]:
    """The keys of the run's entries an earlier undo in the folder ``here`` dealt with (or in any, for
    an undo recorded before undos named their folder); for an undo recorded before undos named their
    entries, if it restored anything, every entry but those it cannot have undone (``_left_alone``)."""
    done: set[str] = set()
    for _offset, item in querylog.read(outcomes_path()):
        if item.get("undo") != run_id or item.get("folder", here) != here:
            continue
        keys = item.get("done")
        if isinstance(keys, list):
            done.update(str(k) for k in keys)
        elif isinstance(item.get("restored"), int) and item["restored"]:
            done.update(str(e["key"]) for e in entries if not _left_alone(e))
    return done


def _left_alone(e: dict[str, object]) -> bool:
    """Whether an undo that did not name the entries it undid (an older KRouter's) left entry ``e``
    alone: its page still holds, at its path, the bytes the run left, or is gone from its path (such an
    undo followed no moved page, or called it gone). Taken for undone, the trigger stayed on the page
    for good once upgraded: "undone already" (an upgrade hunt)."""
    if e.get("never_written"):
        return False
    try:
        path = contained_path(folder(e), str(e["page"]))
        return digest(read_contained(folder(e), path)) == e["after_sha256"]
    except PageNotFound:
        return vault_there(folder(e))
    except (KRouterError, OSError):
        return False


def undo_entry(e: dict[str, object], o: Outcome, look_at: list[str] | None = None) -> None:
    """Reverse one journaled write; ``o`` gets its status and reason (SKIPPED when left alone).

    ``look_at``: the pages a page gone from its path may have become, found before the lock was taken;
    only those are looked at again (None: the whole vault is)."""
    if e.get("never_written"):
        o.status, o.reason = GONE, "never written (the page changed just before, or the write was cut short)"
        return
    trigger = str(e.get("trigger", ""))
    root, page, moved = folder(e), str(e["page"]), ""
    if not vault_there(root):
        # Not "gone": a vault renamed, a drive not mounted or a sync folder offline would have its
        # entry counted as dealt with, and the trigger never undone once the vault is back.
        o.reason = (
            f"the vault {root} is not there (moved, or a drive not mounted?); undo again once it is, or "
            f"name the folder it moved to: krouter learn --undo {e.get('run_id')} --vault DIR"
        )
        return
    try:
        try:
            path = contained_path(root, page)
        except PageNotFound:
            where = moved_to(e, look_at)
            found = where.pages
            if not found:
                o.status, o.reason = GONE, _gone_reason(where.others)
                return
            if len(found) > 1:
                o.reason = (
                    f"the page no longer exists, and {len(found)} pages hold its trigger ({', '.join(found)}); "
                    "left alone: remove it by hand from the one this page became"
                )
                return
            page, moved = found[0], f"the page moved to {found[0]}: undone there"
            path = contained_path(root, page)
        current = read_contained(root, path)
    except (KRouterError, OSError) as exc:
        o.reason = f"page cannot be read: {exc}"
        return
    if digest(current) == e["before_sha256"]:
        o.status, o.reason = (
            "unchanged",
            "the page already holds its bytes from before the run (undone already?)",
        )
        return
    off = int(e["offset"])  # type: ignore[arg-type]
    old, new = base64.b64decode(str(e["old"])), base64.b64decode(str(e["new"]))
    rewound = rewind(e, current) if digest(current) != e["after_sha256"] else None
    if rewound is not None:
        data, status, done = rewound.data, REWOUND, "the triggers later runs wrote on the page stay"
    elif digest(current) != e["after_sha256"]:
        # Edited since (a line added to the body, a tag changed): the run's own insertion is put back
        # where it still is as written, when that leaves the page as edited minus the trigger (the
        # owner's way of writing the field, a scalar or a null, comes back with it); else the
        # trigger's list item is taken out (with the key, when nothing else is left in it, and the
        # frontmatter block the learner made, when nothing else is left in that).
        # A key a learner write made is not the owner's way of writing the field: when an earlier run
        # made it, this run's "before" held it, and putting that back left a bare key behind.
        writes = _page_writes(e)  # the journal read once for both questions below
        made_key = any(map(_made_key, writes))
        kept = None if made_key else _without_insertion(current, old, new, trigger)
        if kept is None and (kept := page_edit.without_trigger(current, trigger)) is not None:
            kept = _without_empty_block(kept, any(map(_made_block, writes)))
        if kept is None and made_key:
            kept = _without_insertion(current, old, new, trigger)
        if kept is None:
            try:
                text = current.decode("utf-8-sig")
                unread = parse_page(page, text).yaml_error
                holds = unread is not None or page_edit.holds_trigger(page, text, trigger)
            except UnicodeDecodeError:
                unread, holds = None, True  # an undecodable page may hold it: left alone, below
            if unread is not None:
                # Its fields cannot be read (an impossible date, a typo): whether the trigger is there
                # cannot be told, and nothing is taken out of a block that does not parse.
                o.reason = (
                    f"the page's frontmatter does not parse now ({unread}): left alone; fix it and undo again"
                )
                return
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
        if digest(data) != e["before_sha256"]:
            o.reason = "journal entry does not match the page; left alone"
            return
    try:
        atomic_replace(path, data, current)
    except PageNotWritten as exc:
        o.reason = str(exc)
        return
    if rewound is not None:
        journal_redone(rewound)
    o.status, o.reason = status, f"{done} ({moved})" if done and moved else done or moved


def _gone_reason(others: list[str]) -> str:
    """Why nothing was undone for a page gone from its path and found nowhere else."""
    if not others:
        return "the page no longer exists, and no page of the vault holds the trigger: nothing to undo"
    return (
        f"the page no longer exists (deleted, or moved and changed past recognition): nothing undone; "
        f"{', '.join(others)} {'holds' if len(others) == 1 else 'hold'} the same trigger but "
        f"{'is not this page: left as it is' if len(others) == 1 else 'are not this page: left as they are'}"
    )


def _without_empty_block(data: bytes, made: bool) -> bytes:
    """``data`` without its frontmatter block when the block is empty and the learner ``made`` it (a
    write to this page inserted a whole block): the owner never wrote it."""
    bom = page_edit.BOM if data.startswith(page_edit.BOM) else b""
    for nl in (b"\n", b"\r\n"):
        empty = b"---" + nl + b"---" + nl
        if made and data[len(bom) :].startswith(empty):
            return bom + data[len(bom) + len(empty) :]
    return data


def _page_writes(e: dict[str, object]) -> list[dict[str, object]]:
    """The journaled writes to ``e``'s page, ``e``'s and other runs'."""
    return [
        x for x in journal_entries() if x.get("vault") == e.get("vault") and x.get("page") == e.get("page")
    ]


def _made_key(x: dict[str, object]) -> bool:
    """Whether a journaled write added the ``triggers`` key line (the page had no such key)."""
    new, old = (base64.b64decode(str(x.get(k, ""))).decode("utf-8", "replace") for k in ("new", "old"))
    return _KEY_LINE.search(new) is not None and _KEY_LINE.search(old) is None


def _made_block(x: dict[str, object]) -> bool:
    """Whether a journaled write inserted a frontmatter block (the page had none)."""
    new = base64.b64decode(str(x.get("new", "")))
    return not base64.b64decode(str(x.get("old", ""))) and new.lstrip(b"-").startswith((b"\n", b"\r\n"))


def _later_run_note(e: dict[str, object]) -> str:
    """When a later run, not undone, wrote the same page: undoing it first gives the bytes from before
    both back exactly (taking a trigger out keeps what the later run made of the frontmatter)."""
    undone, when = undone_runs(), float(e.get("time", 0))  # type: ignore[arg-type]
    for x in reversed(journal_entries()):
        same = x.get("vault") == e.get("vault") and x.get("page") == e.get("page") and not x.get("taken_back")
        # The run being undone is not a later one: its later writes are undone first, in this pass.
        other = x.get("run_id") not in undone and x.get("run_id") != e.get("run_id")
        if same and other and float(x.get("time", 0)) > when:  # type: ignore[arg-type]
            return f" (run {x['run_id']} wrote this page later: undo it first, then this run, for the earlier bytes exactly)"
    return ""


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
