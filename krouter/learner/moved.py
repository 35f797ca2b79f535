"""Where a page went: undo of a run whose page was moved or renamed since (its name in another Unicode
form too) finds it in the vault, so that the trigger does not stay on it, still cited.

Only a page that is plausibly the journaled one is taken for it: a page deleted since must not make
undo take its trigger off another page whose owner typed the same trigger there."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from krouter.errors import KRouterError, PageNotFound
from krouter.learner import page_edit
from krouter.learner.journal import digest, journal_entries
from krouter.learner.stand_in import folder
from krouter.vault.files import contained_path, read_contained, read_page_bytes, walk
from krouter.vault.page import parse_page
from krouter.vault.page_lines import split_frontmatter

# What a journal entry records of its page (``identity``); entries written before lack them.
IDENTITY_FIELDS = ("page_title", "body_sha256")


@dataclass(frozen=True)
class Whereabouts:
    """What the vault holds of a journaled page gone from its path."""

    # The page under another name: those holding exactly the bytes the write left, else those holding
    # its trigger that are plausibly the same page. Vault-relative paths, sorted.
    pages: list[str]
    # Other pages holding the trigger, not taken for it (another page, or taught it by another write).
    others: list[str]


def identity(rel: str, data: bytes) -> dict[str, str]:
    """What tells a page from another holding the same trigger, recorded with each write: its title
    (frontmatter, first heading, else file name) and a hash of its body (the text after the frontmatter,
    which the learner never edits). Raises UnicodeDecodeError for bytes that are not UTF-8."""
    text = data.decode("utf-8-sig")
    _frontmatter, body, _line = split_frontmatter(text)
    title = unicodedata.normalize("NFC", parse_page(rel, text).title)
    return {"page_title": title, "body_sha256": digest(body.encode("utf-8"))}


def still_on(root: Path, e: dict[str, object]) -> bool:
    """Whether entry ``e``'s trigger is still one of its page's triggers (an undo or an edit removes it)."""
    page = str(e.get("page", ""))
    text = _page_text(root, page)
    return text is not None and page_edit.holds_trigger(page, text, str(e.get("trigger", "")))


def _page_text(root: Path, rel: str) -> str | None:
    """The text of the page ``rel``, or None when it cannot be read."""
    try:
        return read_contained(root, contained_path(root, rel)).decode("utf-8-sig")
    except (KRouterError, OSError, UnicodeDecodeError):
        return None


def still_on_page(root: Path, entries: list[dict[str, object]], rel: str) -> list[dict[str, object]]:
    """The entries whose trigger is one of ``rel``'s triggers: written there and still on it, or written on
    a page gone since of which ``rel`` is the page moved (the owner reorganising the vault took the
    triggers agents taught off the per-page cap's count). The journal and ``rel`` are read once for all
    of them: read per entry, a teaching in a vault taught for months took seconds (a cold review:
    300 entries on deleted pages, 5.9 s)."""
    gone_pages = {
        page: _gone(root, page) for page in {str(e.get("page", "")) for e in entries} if page != rel
    }
    text = _page_text(root, rel)
    found = [
        e
        for e in entries
        if e.get("page") == rel
        and text is not None
        and page_edit.holds_trigger(rel, text, str(e.get("trigger", "")))
    ]
    gone = [e for e in entries if gone_pages.get(str(e.get("page", "")))]
    return found + [e for e, where in zip(gone, moved_all(gone, [rel]), strict=True) if where.pages]


def _gone(root: Path, rel: str) -> bool:
    """Whether the vault no longer holds a file at ``rel``."""
    try:
        contained_path(root, rel)
    except PageNotFound:
        return True
    return False


def moved_to(e: dict[str, object], among: Iterable[str] | None = None) -> Whereabouts:
    """Where the journaled page of entry ``e`` may be under another name, looking at the pages ``among``
    (vault-relative paths), or at the whole vault.

    A page holding the exact bytes the write left is it. Failing that, a page holding the trigger that
    no other journal entry taught is it when it has the title or the body the page had when written
    (moved, and edited since); for an entry that did not record them, when it has the same file name.
    """
    return moved_all([e], among)[0]


@dataclass
class _Look:
    """One entry's search of the vault: the trigger it wrote (as compared), the pages where another write
    taught the same trigger, and what the pages read so far turned up."""

    entry: dict[str, object]
    want: str
    taught_elsewhere: set[str]
    exact: list[str] = field(default_factory=list)
    same: list[str] = field(default_factory=list)
    others: list[str] = field(default_factory=list)


def moved_all(entries: list[dict[str, object]], among: Iterable[str] | None = None) -> list[Whereabouts]:
    """``moved_to`` for each of several entries of one vault (the first entry's), reading the journal and
    each page once, and each page's triggers once (a run of twenty lessons after a folder was renamed
    read and parsed a 10k-page vault twenty times)."""
    if not entries:
        return []
    root = folder(entries[0])
    journal = journal_entries()
    looks: list[_Look] = []
    for e in entries:
        want = page_edit.trigger_key(str(e.get("trigger", "")))
        # A page another write taught the same trigger holds it for that write, not for this one.
        taught_elsewhere = {
            str(x.get("page"))
            for x in journal
            if x.get("vault") == e.get("vault")
            and x.get("key") != e.get("key")
            and page_edit.trigger_key(str(x.get("trigger", ""))) == want
        }
        looks.append(_Look(e, want, taught_elsewhere))
    for rel in (f.path for f in walk(root)) if among is None else among:
        try:
            data = read_page_bytes(root, rel)
        except OSError:
            continue
        found = digest(data)
        held: frozenset[str] | None = None
        for look in looks:
            if found == look.entry.get("after_sha256"):
                look.exact.append(rel)
                continue
            if held is None:
                held = _trigger_keys(rel, data)
            if look.want in held:
                plausible = rel not in look.taught_elsewhere and _same_page(look.entry, rel, data)
                (look.same if plausible else look.others).append(rel)
    return [Whereabouts(sorted(look.exact or look.same), sorted(look.others)) for look in looks]


def _same_page(e: dict[str, object], rel: str, data: bytes) -> bool:
    """Whether the page ``rel`` (holding ``data``) is plausibly the page entry ``e`` wrote."""
    if not any(k in e for k in IDENTITY_FIELDS):
        # Nothing recorded to tell it by: only a page of the same file name in another folder.
        name = PurePosixPath(str(e.get("page"))).name
        return unicodedata.normalize("NFC", PurePosixPath(rel).name) == unicodedata.normalize("NFC", name)
    found = identity(rel, data)  # decodes: _holds read the page as UTF-8 already
    return any(found[k] == e.get(k) for k in IDENTITY_FIELDS)


def _trigger_keys(rel: str, data: bytes) -> frozenset[str]:
    """``page_edit.trigger_keys`` of the page's bytes; none for bytes that are not UTF-8."""
    try:
        return page_edit.trigger_keys(rel, data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        return frozenset()
