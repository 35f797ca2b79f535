"""Markdown tables as a reader sees them: a row's cells, the delimiter row under a header, and the header
row of each body row. One reading for the teach check's quoted rows, the price check's money columns and
the line a receipt cites (three readings had grown apart: a rule of one dash, of two, of three)."""

from __future__ import annotations

import unicodedata

from krouter.lazy_pattern import lazy_pattern
from krouter.vault.templates import fenced_lines

# The delimiter row under a table's header: cells of hyphens, each with an optional colon either side.
_RULE = lazy_pattern(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")


def is_rule(line: str) -> bool:
    """True for a table's delimiter row ("|---|:--:|", "--- | ---")."""
    return bool(_RULE.match(line))


def cells(row: str) -> list[str]:
    """A table row's cells as a reader sees them: NFKC, spaces collapsed, the outer pipes' empty cells
    dropped."""
    found = [" ".join(unicodedata.normalize("NFKC", c).split()) for c in row.strip().split("|")]
    return found[1 if found and not found[0] else 0 : -1 if len(found) > 1 and not found[-1] else None]


def headers(lines: list[str], fenced: set[int] | None = None) -> list[str | None]:
    """For each line, the header row of the Markdown table whose body row it is, or None (one pass: a
    price check reads every line of a page, and a table may run to thousands of rows). A table is a line
    holding a pipe over a delimiter row, and its body the lines after that which hold a pipe, a row of
    dashes among them (as Markdown renders it); a line holding a pipe above a table (prose, a
    [[page|alias]] link) is no part of it, nor is one inside a fenced code block (an example, rendered
    as code; ``fenced``, its lines' 0-based numbers, when the caller has them)."""
    out: list[str | None] = [None] * len(lines)
    current: str | None = None
    if fenced is None:
        fenced = (
            fenced_lines(lines) if any(line.lstrip().startswith(("```", "~~~")) for line in lines) else set()
        )
    for n, line in enumerate(lines):
        if "|" not in line or n in fenced:
            current = None
        elif current is not None:
            out[n] = current
        elif n and "|" in lines[n - 1] and n - 1 not in fenced and is_rule(line):
            current = lines[n - 1]
    return out
