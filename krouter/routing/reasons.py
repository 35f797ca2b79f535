"""The one line of a receipt that says why: why this page was cited, or why none was."""

from __future__ import annotations

from krouter.routing.receipt import Citation, Evidence, against_floor


def reason_nothing(
    corpus_missing: list[str], n_pages: int, unread: tuple[str, ...], folders: dict[str, str]
) -> str:
    """Why no page matched at all: an empty or unreadable vault, or words it never mentions (``folders``:
    those a folder's name holds, each with the folder)."""
    if not n_pages and unread:
        return f"the vault has no page KRouter could read ({_first_of(unread)} could not be; krouter status says why)"
    if not n_pages:
        return "the vault has no pages to answer from"
    if corpus_missing:
        return f"no page matches: {never_mentions(corpus_missing, unread, folders)}"
    return "no current page matches the question's words"


def never_mentions(words: list[str], unread: tuple[str, ...], folders: dict[str, str]) -> str:
    """ "the vault never mentions …", and which pages could not be read to say so; a word a folder's
    name holds (``folders``, with the folder) is one no page mentions, not one the vault never does."""
    never = [w for w in words if w not in folders]
    named = [w for w in words if w in folders]
    parts = [f"the vault never mentions {quoted(never)}"] if never else []
    if named:
        where = ", ".join(dict.fromkeys(f"{folders[w]}/" for w in named))
        parts.append(f"no page mentions {quoted(named)}, only a folder's name ({where})")
    return "; ".join(parts) + unread_note(unread)


def unread_note(unread: tuple[str, ...]) -> str:
    """What "never" rests on when some pages could not be read ("" when all could)."""
    if not unread:
        return ""
    return f" (in the pages it could read: {_first_of(unread)} could not be read; krouter status says why)"


def _first_of(paths: tuple[str, ...]) -> str:
    """The first path, and how many more."""
    return paths[0] + (f" and {len(paths) - 1} more" if len(paths) > 1 else "")


def quoted(words: list[str]) -> str:
    """Words as a reason lists them: each in quotes."""
    return ", ".join(repr(w) for w in words)


# What a reason's share is of (``phrasings.combine`` says "of the phrasing's content" when one decided).
SHARE_OF_QUESTION = "of the question's content"


def page_reason(
    decision: str,
    cited: list[Citation],
    ev: Evidence,
    second: str | None,
    tied: bool,
    unread: tuple[str, ...],
    retired: list[tuple[str, str]],
    named: str | None = None,
) -> str:
    """One line a person can check: why this page, or why none. ``second`` is the runner-up's path,
    ``tied`` whether it matches about as well, ``unread`` the pages that could not be read, ``retired``
    the question words the top page lacks that only replaced pages hold, each with one of them;
    ``named``, the top page's name when the question writes it and not the runner-up's (its lead then
    counts in full)."""
    top = cited[0]
    lead = f"leads {second} by {ev.margin:.0%}" if second else "no other page matches"
    if named and second:
        lead += f", and the question names it ({named!r}) and not that page"
    summary = f"holds {ev.coverage:.0%} {SHARE_OF_QUESTION} and {lead}"
    confidence, floor = against_floor(ev.confidence, ev.floor, percent=True)
    if decision == "cite":
        # Reached through a replaced page, the words matched are (partly) that page's: say so, rather
        # than credit the current page with words it may not hold.
        who = (
            f"{top.path}, with words only replaced pages leading to it hold,"
            if not top.via and top.via_elsewhere
            else top.path
            if not top.via
            else f"{top.path}, with the replaced pages that lead to it ({top.via} and others),"
            if top.via_elsewhere
            else f"{top.path}, with the replaced page {top.via} that leads to it,"
        )
        triggers = f"; {quoted(top.via_triggers)} only through its triggers" if top.via_triggers else ""
        return f"{who} {summary}: confidence {confidence} ≥ floor {floor}{triggers}"
    parts = []
    if ev.corpus_missing:
        parts.append(never_mentions(ev.corpus_missing, unread, ev.in_folders))
    if ev.elsewhere_missing:
        one = len(ev.elsewhere_missing) == 1
        parts.append(
            f"the closest page, {top.path}, lacks {quoted(ev.elsewhere_missing)}"
            f" ({'another page has it' if one else 'other pages have them'})"
        )
    if retired:
        words = quoted([word for word, _ in retired])
        pages = ", ".join(dict.fromkeys(path for _, path in retired))
        them = "it" if len(retired) == 1 else "them"
        parts.append(
            f"the closest page, {top.path}, lacks {words} (only replaced pages hold {them}: {pages})"
        )
    if not parts and tied:
        parts.append(f"{top.path} and {second} match about equally: the question does not say which")
    if not parts:
        parts.append(f"the closest page, {top.path}, matches the question only weakly")
    return "; ".join(parts) + f" — {top.path} {summary}: confidence {confidence} < floor {floor}"
