"""A vault moved or renamed since its history was recorded: the folder the owner names stands in for it.

The journal's runs and the held picks record their vault by its path, so ``mv notes notes-2024``
orphaned them: ``learn --list --vault notes-2024`` showed nothing, ``--undo`` and ``--accept`` refused
it. Nothing stands in for a recorded vault while its folder is there: history follows the path, and a
new vault made at an old path meets the old history only through the checks every write makes (undo's
per-page digests, accept's checks run again on the page as it is now; a hold quoting what the page no
longer says is replaced by a new teaching, ``teach``). A recorded vault that is
gone (its path is not there at all: an empty folder there is a drive not mounted, not a vault moved) is
taken to be the named folder when that folder holds what one of the records concerned wrote: a run's
page, at the path recorded, with the bytes the run left or its trigger; an open hold's page with the
quote held. A page name alone is not enough (two vaults may both have a Notes/g.md), nor a page as it was
before a run (any copy or backup made earlier has those bytes, and undoing the run there would mark it
done while the vault that holds its trigger never gets it undone). A folder a run was undone in holds
its pages as they were before it, once undone: it stands in by the undo's record (the undo was let in
there because it stood in then), or the run left the folder's list when it was undone.

Only the learn commands that manage history, and name the folder, let it stand in (``--list``,
``--accept``, ``--reject``, ``--undo``): teaching and the nightly learner see the vault's own records,
so a gone vault's hold never acts as a second source in a copy, nor does a refusal recorded there bar it.
"""

from __future__ import annotations

import os
from pathlib import Path

from krouter.errors import KRouterError
from krouter.learner import page_edit
from krouter.learner.journal import digest
from krouter.learner.quotes import quote_on_page
from krouter.vault.files import contained_path, read_contained

# The key an undo adds to a journal entry (in memory, never written) for the folder standing in for the
# vault the entry recorded.
STANDS_IN = "stands_in"


def vault_there(root: Path) -> bool:
    """Whether the vault's folder exists and holds anything (an empty mount point is a drive not
    mounted, not a vault whose pages were all deleted)."""
    try:
        return root.is_dir() and any(root.iterdir())
    except OSError:
        return False


def gone(recorded: str) -> bool:
    """Whether a recorded vault's path is not there at all (nothing, not even an empty folder, is)."""
    return not os.path.lexists(recorded)


def folder(e: dict[str, object]) -> Path:
    """The folder an entry's page is read and written in: its stand-in, else the vault it recorded."""
    return Path(str(e.get(STANDS_IN) or e["vault"]))


def stood_in(vault: Path, records: list[dict[str, object]]) -> set[str]:
    """The recorded vaults, gone now, that ``vault`` stands in for, among those of ``records`` (a run's
    journal entries, holds, or both): each one ``vault`` holds what a record of it wrote."""
    if not vault_there(vault):
        return set()
    root = str(vault.resolve())
    away = {str(r.get("vault")) for r in records if r.get("vault") != root and gone(str(r.get("vault")))}
    return {v for v in away if any(r.get("vault") == v and _holds_record(vault, r) for r in records)}


def undone_there(
    vault: Path, entries: list[dict[str, object]], undone: dict[str, set[str | None]]
) -> set[str]:
    """The recorded vaults, gone now, that ``vault`` stands in for because a run of theirs among
    ``entries`` (journal entries) was undone in it (``undone``: ``journal.undone_in``)."""
    root = str(vault.resolve())
    return {
        str(e.get("vault"))
        for e in entries
        if root in undone.get(str(e.get("run_id")), ())
        and e.get("vault") != root
        and gone(str(e.get("vault")))
    }


def _holds_record(vault: Path, r: dict[str, object]) -> bool:
    """Whether ``vault`` has the record's page at its recorded path, holding what the record wrote: a
    run's bytes after it or its trigger; for a hold (nothing written yet), its quote."""
    if r.get("never_written"):
        return False
    rel = str(r.get("page"))
    try:
        data = read_contained(vault, contained_path(vault, rel))
        text = data.decode("utf-8-sig")
    except (KRouterError, OSError, UnicodeDecodeError):
        return False
    if digest(data) == r.get("after_sha256") or page_edit.holds_trigger(rel, text, str(r.get("trigger", ""))):
        return True
    # A quote was on the page before anything was written (any earlier copy has it): only an open hold's
    # counts, for it has nothing else; an ended one's run, if any, is judged by its journal entries.
    quote = r.get("quote")
    held = "pending" in r and r.get("end") is None
    return held and isinstance(quote, str) and bool(quote) and quote_on_page(quote, text)
