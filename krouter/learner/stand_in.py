"""A vault moved or renamed since its history was recorded: the folder the owner names stands in for it.

The journal's runs and the held picks record their vault by its path, so ``mv notes notes-2024``
orphaned them: ``learn --list --vault notes-2024`` showed nothing, ``--undo`` and ``--accept`` refused
it. Nothing stands in for a recorded vault while its folder is there: history follows the path, and a
new vault made at an old path meets the old history only through the checks every write makes (undo's
per-page digests, accept's checks run again on the page as it is now; a hold quoting what the page no
longer says is replaced by a new teaching, ``teach``). A recorded vault that is
gone is taken to be the named folder when that folder holds one of its records as taught: a page, at
the path recorded, holding the trigger written, the bytes journaled, or the quote held. A page name
alone is not enough (two vaults may both have a Notes/g.md): the page must hold what was taught on it.
"""

from __future__ import annotations

from pathlib import Path

from krouter.errors import KRouterError
from krouter.learner import page_edit
from krouter.learner.journal import digest, journal_entries
from krouter.learner.verify import quote_on_page
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


def folder(e: dict[str, object]) -> Path:
    """The folder an entry's page is read and written in: its stand-in, else the vault it recorded."""
    return Path(str(e.get(STANDS_IN) or e["vault"]))


def stood_in(
    vault: Path, holds: list[dict[str, object]], entries: list[dict[str, object]] | None = None
) -> set[str]:
    """The recorded vaults, gone now, that ``vault`` stands in for, among the vaults of ``holds`` and of
    the journal ``entries`` (None: the journal is read only if a hold's vault is gone)."""
    if not vault_there(vault):
        return set()
    root = str(vault.resolve())
    recorded = {str(r.get("vault")) for r in [*holds, *(entries or [])] if r.get("vault") != root}
    gone = {v for v in recorded if not vault_there(Path(v))}
    if not gone:
        return set()
    if entries is None:
        entries = journal_entries()
    records = [*entries, *holds]
    return {v for v in gone if any(r.get("vault") == v and _holds_record(vault, r) for r in records)}


def _holds_record(vault: Path, r: dict[str, object]) -> bool:
    """Whether ``vault`` has the record's page at its recorded path, holding what was taught there."""
    if r.get("never_written"):
        return False
    rel = str(r.get("page"))
    try:
        data = read_contained(vault, contained_path(vault, rel))
        text = data.decode("utf-8-sig")
    except (KRouterError, OSError, UnicodeDecodeError):
        return False
    if digest(data) in {r.get("after_sha256"), r.get("before_sha256")}:
        return True
    if page_edit.holds_trigger(rel, text, str(r.get("trigger", ""))):
        return True
    return isinstance(r.get("quote"), str) and bool(r["quote"]) and quote_on_page(str(r["quote"]), text)
