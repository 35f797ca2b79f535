"""A whole row of a Markdown table states a fact as a sentence does, however short: a quote a teacher may
give ("付款 | 月结 60 天"; docs/decisions.md D113)."""

from __future__ import annotations

from krouter.lazy_pattern import lazy_pattern
from krouter.tokens.scripts import CJK
from krouter.vault.md_tables import cells, headers

# A cell holds words when it holds a CJK character or a letter or digit of another script.
_HOLDS_WORDS = lazy_pattern(rf"[{CJK}]|[^\W_{CJK}]")


def header_of(quote: str, body: str) -> str | None:
    """The header row of the table on the page whose body row the quote is, or None (the first such row)."""
    quoted = cells(quote)
    lines = body.splitlines()
    for line, header in zip(lines, headers(lines), strict=True):
        if header is not None and cells(line) == quoted:
            return header
    return None


def is_table_row(quote: str, body: str) -> bool:
    """True when the quote is a whole row of a Markdown table on the page, of two cells or more that hold
    words: a row states a fact as a sentence does ("付款 | 月结 60 天"), however short (an agent-loop run
    had such a row refused as a fragment while a longer one passed)."""
    quoted = cells(quote)
    if len(quoted) < 2 or sum(1 for c in quoted if _HOLDS_WORDS.search(c)) < 2:
        return False
    # A body row, not the header row (it names the columns and states nothing), nor a row in a code
    # block (an example, not the page's own table: a cold review); a row of "-" cells further down is a
    # row.
    lines = body.splitlines()
    return any(
        header is not None and cells(line) == quoted
        for line, header in zip(lines, headers(lines), strict=True)
    )
