"""Where a page went: undo of a run whose page was moved or renamed since (its name in another Unicode
form too) finds it in the vault, so that the trigger does not stay on it, still cited."""

from __future__ import annotations

from pathlib import Path

from krouter.learner import page_edit
from krouter.learner.journal import digest, journal_entries
from krouter.vault.files import read_page_bytes, walk


def moved_to(e: dict[str, object]) -> list[str]:
    """The vault's pages that may be the journaled page of entry ``e`` under another name: those holding
    exactly the bytes the write left; failing that, those holding its trigger that no other journal
    entry taught (the page was edited since, too). Vault-relative paths, sorted."""
    root = Path(str(e["vault"]))
    trigger = str(e.get("trigger", ""))
    want = page_edit.trigger_key(trigger)
    # A page another write taught the same trigger holds it for that write, not for this one.
    taught_elsewhere = {
        str(x.get("page"))
        for x in journal_entries()
        if x.get("vault") == e.get("vault")
        and x.get("key") != e.get("key")
        and page_edit.trigger_key(str(x.get("trigger", ""))) == want
    }
    exact, holding = [], []
    for f in walk(root):
        try:
            data = read_page_bytes(root, f.path)
        except OSError:
            continue
        if digest(data) == e.get("after_sha256"):
            exact.append(f.path)
        elif f.path not in taught_elsewhere and _holds(f.path, data, trigger):
            holding.append(f.path)
    return sorted(exact or holding)


def _holds(rel: str, data: bytes, trigger: str) -> bool:
    try:
        return page_edit.holds_trigger(rel, data.decode("utf-8-sig"), trigger)
    except UnicodeDecodeError:
        return False
