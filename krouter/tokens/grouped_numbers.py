"""Numbers grouped in thousands with commas (1,000, ₩150,000, $12,480.00), read as the numbers they are.

A question that writes one without its commas ("每 1000 台") must meet the page that writes "1,000 台抽
80 台", and one that writes it grouped must meet it written either way. A page keeps its parts (80,443
lists two ports as often as it writes a number) and is also indexed with the number whole, marked as an
amount (¤1000, outside its BM25 length: ``terms.index_terms``); a question keeps the parts too (80,443
asked of "ports 80 and 443"), and its bare number of four digits or more also finds the marked whole
(``routing.question``). Not a list of short numbers (1,2,3), a decimal comma (1,5; 0,500), nor a group followed by
another digit or comma. A comma right after a word is punctuation ("抽检比例,1,000 台"). D140 in
docs/decisions.md.
"""

from __future__ import annotations

from krouter.lazy_pattern import lazy_pattern

_GROUPED = lazy_pattern(r"(?<![\d.])(?<!\d,)[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?(?!\d|,\d)")
_GROUP_HINT = lazy_pattern(r"\d,\d{3}")


def grouped_numbers(norm: str) -> list[str]:
    """The grouped numbers of a normalised text, their commas taken out (1,000 is 1000); one with decimals
    also as its whole part (12,480.00 is 12480.00 and 12480)."""
    if not _GROUP_HINT.search(norm):
        return []
    out = []
    for m in _GROUPED.findall(norm):
        whole = m.replace(",", "")
        out.extend((whole, whole.split(".")[0]) if "." in whole else (whole,))
    return out


def grouped_beside(norm: str) -> str:
    """A normalised text with each grouped number followed by its ungrouped form (1,000 1000): a line
    searched for a question's number finds it written either way, and keeps its parts."""
    if not _GROUP_HINT.search(norm):
        return norm
    return _GROUPED.sub(lambda m: f"{m.group(0)} {m.group(0).replace(',', '')}", norm)


def grouped_form(number: str) -> str | None:
    """A number of four digits or more as a page may write it grouped in thousands (1000 as 1,000,
    12480.00 as 12,480.00), or None for any other term."""
    whole = number.split(".")[0]
    if not whole.isdigit() or len(whole) < 4 or whole.startswith("0"):
        return None
    return f"{int(whole):,}" + number[len(whole) :]
