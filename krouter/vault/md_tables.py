"""Markdown tables as a reader sees them: a row's cells, the delimiter row under a header, and the header
row of a body row. One reading for the teach check's quoted rows, the price check's money columns and
the line a receipt cites (three readings had grown apart: a rule of one dash, of two, of three)."""

from __future__ import annotations

import re
import unicodedata

# The delimiter row under a table's header: cells of hyphens, each with an optional colon either side.
_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")


def is_rule(line: str) -> bool:
    """True for a table's delimiter row ("|---|:--:|", "--- | ---")."""
    return bool(_RULE.match(line))


def cells(row: str) -> list[str]:
    """A table row's cells as a reader sees them: NFKC, spaces collapsed, the outer pipes' empty cells
    dropped."""
    found = [" ".join(unicodedata.normalize("NFKC", c).split()) for c in row.strip().split("|")]
    return found[1 if found and not found[0] else 0 : -1 if len(found) > 1 and not found[-1] else None]


def header_at(lines: list[str], n: int) -> str | None:
    """The header row of the Markdown table whose body row is ``lines[n]``, or None when it is none (a
    table's lines each hold a pipe; its second line is the delimiter row)."""
    if "|" not in lines[n]:
        return None
    top = n
    while top > 0 and "|" in lines[top - 1]:
        top -= 1
    if n < top + 2 or not is_rule(lines[top + 1]):
        return None
    return lines[top]
