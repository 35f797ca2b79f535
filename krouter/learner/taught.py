"""What the learner and agents taught, as ``krouter learn --list`` shows it: the journal's triggers and
the picks held in ``pending.jsonl``."""

from __future__ import annotations

from pathlib import Path

from krouter.learner import pending
from krouter.learner.journal import journal_entries, undone_in
from krouter.learner.stand_in import stood_in, undone_there


def history(vault: Path | None = None) -> list[dict[str, object]]:
    """Every trigger the learner and agents wrote (oldest first; a journaled write that never reached its
    page is not one), with ``undone`` set for undone runs
    and for a trigger taken back when it was written (``taken_back``; the rest of its run may stay);
    then the held picks (``pending_id`` set, no run id): those still waiting for a second source
    (``pending`` True; ``doubt`` says why one waits for the owner alone), those the owner rejected
    (``rejected`` True; nothing was written, and what an agent tried to teach stays on record) and those
    held for the owner, or quoting what the page no longer says, that a later teaching of the pick took
    over (``superseded_by``).

    ``vault`` keeps one vault's entries, those recorded in a vault it stands in for included (moved
    there: ``krouter.learner.stand_in``); None keeps all. Each row's ``vault`` is the folder it is listed
    for, ``recorded_vault`` the one its run or hold recorded. Listing one vault, a run is undone when it
    was undone in that folder, or in the one it recorded (before the vault moved): a run undone in a copy
    of a moved vault is undone there, not in the vault, which still holds its trigger.
    """
    undone = undone_in()
    entries, holds = journal_entries(), pending.all_holds()
    root = str(vault.resolve()) if vault is not None else None
    roots = (
        None
        if vault is None
        else {root, *stood_in(vault, [*entries, *holds]), *undone_there(vault, entries, undone)}
    )
    out = []
    for e in entries:
        if (roots is not None and e.get("vault") not in roots) or e.get("never_written"):
            continue
        out.append(
            {
                "run_id": e.get("run_id"),
                "time": e.get("time"),
                "vault": root or e.get("vault"),
                "recorded_vault": e.get("vault"),
                "page": e.get("page"),
                "trigger": e.get("trigger"),
                "quote": e.get("quote"),
                "taught_by": e.get("lane"),
                "model": e.get("model"),
                "undone": _undone(undone.get(str(e.get("run_id")), set()), root, e)
                or bool(e.get("taken_back")),
                "taken_back": bool(e.get("taken_back")),
                "pending": False,
                "rejected": False,
                "rejected_time": None,
                "pending_id": e.get("pending_id"),
                "doubt": None,
                "superseded_by": None,
            }
        )
    for h in holds:
        if roots is not None and h.get("vault") not in roots:
            continue
        end = h["end"]
        rejected = isinstance(end, dict) and end.get("how") == pending.REJECTED
        superseded = isinstance(end, dict) and end.get("how") == pending.SUPERSEDED
        if end is not None and not (rejected or superseded):
            continue  # written (listed above, from the journal) or closed as already on the page
        out.append(
            {
                "run_id": None,
                "time": h.get("time"),
                "vault": root or h.get("vault"),
                "recorded_vault": h.get("vault"),
                "page": h.get("page"),
                "trigger": h.get("trigger"),
                "quote": h.get("quote"),
                "taught_by": h.get("lane"),
                "model": h.get("model"),
                "undone": False,
                "taken_back": False,
                "pending": end is None,
                "rejected": rejected,
                "rejected_time": end.get("time") if isinstance(end, dict) and rejected else None,
                "pending_id": h.get("pending"),
                "doubt": h.get("doubt"),
                "superseded_by": end.get("by") if isinstance(end, dict) and superseded else None,
            }
        )
    return out


def _undone(folders: set[str | None], root: str | None, e: dict[str, object]) -> bool:
    """Whether entry ``e``'s run, undone in ``folders``, is undone in the vault listed (``root``; None:
    every vault's, where an undo anywhere counts)."""
    if root is None:
        return bool(folders)
    return bool(folders & {None, root, str(e.get("vault"))})
