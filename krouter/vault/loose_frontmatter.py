"""Frontmatter the author meant that YAML readers do not take for frontmatter: a fence never closed, one
closed by YAML's ``...``, and a block that does not open the page (a blank line or an HTML comment above
its ``---``, a space before it, a comment after it). A ``status: superseded`` written there must keep the
page from being cited all the same: ``vault.page`` reads such a block's fields line by line, as it reads
broken YAML's, and reports the page with the error said here.
"""

from __future__ import annotations

import itertools

from krouter.lazy_pattern import lazy_pattern
from krouter.vault.fields import field_key
from krouter.vault.page_lines import FENCE, file_lines

# The fields read line by line where YAML cannot read them: what a page is called and whether it may be
# cited.
SALVAGED = frozenset({"title", "status", "superseded_by", "supersedes", "replaced_by", "replaces"})
# A field's line. A full-width colon, and a no-break or ideographic space after it, as input methods and
# pasting write them.
TOP_FIELD = lazy_pattern(
    "^[ \t]*([\"']?[A-Za-z][\\w-]*[\"']?)[ \t]*(?::(?=[ \t\u00a0\u3000]|$)|\uff1a)[ \t\u00a0\u3000]*(.*?)[ \t\u00a0\u3000]*$"
)
_DOTS = lazy_pattern(r"^\.{3}[ \t]*$")
# What an exporter or a slip of the keyboard leaves above frontmatter meant as such: blank lines and
# one-line HTML comments, a few at most.
_ABOVE_FENCE = lazy_pattern(r"^[ \t]*(?:<!--.*-->[ \t]*)?$")
_MAX_ABOVE = 5
# A fence with a space before it or a comment after it ("--- # properties"): no fence to YAML readers.
_LOOSE_FENCE = lazy_pattern(r"^([ \t]*)[-\uff0d]{3,}[ \t]*(#.*)?$")
_LOOSE_CLOSE = lazy_pattern(r"^[ \t]*(?:[-\uff0d]{3,}|\.{3})[ \t]*$")
# Besides a field (``TOP_FIELD``), the lines frontmatter is made of: a list item, a comment, an indented
# continuation (a block scalar's, a nested map's); not a fence, a blank line, a Markdown heading (## …) or
# prose.
_OTHER_YAML_LINE = lazy_pattern(r"^(?:[ \t]*-[ \t]|[ \t]*#(?!#)|[ \t]+\S)")


def loose_frontmatter(text: str) -> tuple[str, str] | None:
    """(the block's lines, the error that reports the page) for a page that ``split_frontmatter`` found
    no frontmatter in, when it opens with a block meant as such that holds a field KRouter reads; None
    for any other page (a page may open with a rule)."""
    ended = _closed_by_dots(text)
    if ended is not None:
        # YAML's end marker (Pandoc writes it): the owner can close it as Markdown notes do.
        line, block = ended
        return block, f"the frontmatter opened on line 1 is closed by '...' on line {line}, not by '---'"
    unclosed = _unclosed_fence(text)
    if unclosed is not None:
        return unclosed, "the opening '---' on line 1 is never closed"
    late = _late_fence(text)
    if late is not None:
        line, block, why = late
        return block, (
            f"the frontmatter on line {line} does not open the page ({why}), so Obsidian and YAML "
            "readers do not read it: start the page with its '---'"
        )
    return None


def _prose_status(lines: list[str]) -> bool:
    """True when a status line says more than a status does ("Status: retired in March; its jobs moved
    to GitHub Actions."): a sentence between two rules, not a field."""
    for line in lines:
        m = TOP_FIELD.match(line)
        if m and field_key(m.group(1)) == "status" and len(m.group(2).split()) > _STATUS_WORDS:
            return True
    return False


# The most words a status field's value holds ("superseded by [[New]]", "已废弃").
_STATUS_WORDS = 3


def _holds_a_field(lines: list[str]) -> bool:
    return any((m := TOP_FIELD.match(line)) and field_key(m.group(1)) in SALVAGED for line in lines)


def _unclosed_fence(text: str) -> str | None:
    """The lines after an opening ``---`` that no fence closes, up to a blank line, when one is a field
    KRouter reads (title, status, a replacement link); None otherwise."""
    lines = text.splitlines() if text.startswith("---") else []
    head = list(itertools.takewhile(str.strip, lines[1:])) if lines and FENCE.match(lines[0]) else []
    return "\n".join(head) if _holds_a_field(head) else None


def _closed_by_dots(text: str) -> tuple[int, str] | None:
    """(its 1-based line, the lines before it) when the ``---`` opening the page is closed by ``...``
    and some line between them is a field; None otherwise."""
    lines = text.splitlines()
    if not lines or not FENCE.match(lines[0]):
        return None
    end = next((i for i, line in enumerate(lines[1:], 1) if _DOTS.match(line)), None)
    if end is None or not any(TOP_FIELD.match(line) for line in lines[1:end]):
        return None
    return end + 1, "\n".join(lines[1:end])


def _late_fence(text: str) -> tuple[int, str, str] | None:
    """(the 1-based line of its fence, the lines inside, what keeps it from being frontmatter) when the
    page opens, after at most a few blank lines or one-line HTML comments, with a ``---`` block that
    Obsidian and YAML readers do not take for frontmatter (a line above it, a space before the fence, a
    comment after it) and some line inside is a field KRouter reads; None otherwise."""
    lines = file_lines(text)
    first = next((i for i, line in enumerate(lines[: _MAX_ABOVE + 1]) if not _ABOVE_FENCE.match(line)), None)
    fence = _LOOSE_FENCE.match(lines[first]) if first is not None else None
    if fence is None:
        return None
    # Up to the closing fence, every line a field, a list item, a comment or a field's continuation, with
    # no blank line between: a section between two rules ("---", "## Old build server", "Status: retired
    # in March", "---") is prose, and read as fields it retired its page (a cold review).
    end = next(
        (
            i
            for i in range(first + 1, len(lines))
            if not (TOP_FIELD.match(lines[i]) or _OTHER_YAML_LINE.match(lines[i]))
        ),
        None,
    )
    block = lines[first + 1 : end] if end is not None else []
    if end is None or not _LOOSE_CLOSE.match(lines[end]) or not _holds_a_field(block) or _prose_status(block):
        return None
    why = (
        "a line above it"
        if first
        else "a space before its '---'"
        if fence.group(1)
        else "a comment after its '---'"
        if fence.group(2)
        else "its closing '---' is not one YAML readers take"
    )
    return first + 1, "\n".join(block), why
