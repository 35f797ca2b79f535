"""A number and its unit, written glued (5kg, 10GB, 200ms) or apart (5 kg, 10 GB): one spelling of the
same quantity. A page indexes "5kg" as one word and "5 kg" as two, so a question in the other spelling
named words "the vault never mentions" on the page that states it ("how much to ship a 5 kg parcel"
on "Parcels up to 5kg ship with Royal Mail")."""

from __future__ import annotations

from krouter.lazy_pattern import lazy_pattern
from krouter.tokens.terms import QueryTerm, english_terms

# A number and a unit of at most four letters (kg, GB, ms, hrs, mins): longer words after a number are
# what is counted (5 parcels), not its unit.
_GLUED = lazy_pattern(r"(\d+(?:\.\d+)?)([a-z]{1,4})")
_APART = lazy_pattern(r"(?<![\w.])(\d+(?:\.\d+)?)[ \t]+([A-Za-z]{1,4})\b")
# Not units: an ordinal's ending (3rd: "rd" is a road) and the half of a day, which times read (3pm).
_NOT_UNITS = frozenset({"st", "nd", "rd", "th", "am", "pm"})


def other_spellings(asked: list[QueryTerm], question: str) -> dict[int, list[tuple[str, ...]]]:
    """Per question term (by index), the terms a page holds the same quantity by when written the other
    way: a glued term's number and unit (both, on one page), or, for a number and the unit the question
    writes after it apart, the glued word (for each of the two)."""
    out: dict[int, list[tuple[str, ...]]] = {}
    at = {qt.term: i for i, qt in enumerate(asked)}
    for i, qt in enumerate(asked):
        if (m := _GLUED.fullmatch(qt.term)) and m[2] not in _NOT_UNITS and (unit := english_terms(m[2])):
            out.setdefault(i, []).append((m[1], unit[0]))
    for number, unit in _APART.findall(question):
        glued, unit_terms = english_terms(number + unit), english_terms(unit)
        if len(glued) != 1 or len(unit_terms) != 1 or unit.lower() in _NOT_UNITS:
            continue
        for term in (number, unit_terms[0]):
            if term in at:
                out.setdefault(at[term], []).append((glued[0],))
    return out
