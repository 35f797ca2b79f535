"""A number and its unit written apart (5 kg, 10 GB, 5 公斤) reach a page that writes them glued (5kg,
10GB), which the index holds as one word: "how much to ship a 5 kg parcel" named '5' and 'kg' words "the
vault never mentions" on the page stating "Parcels up to 5kg" (D211).

Only that way round. A glued question word (10GB) is not looked for as its number and unit apart: a page
holds those as two words anywhere, not side by side, and "30 kg … within 5 days" held "5kg" that way (a
cold review)."""

from __future__ import annotations

from krouter.lazy_pattern import lazy_pattern
from krouter.tokens.terms import QueryTerm, english_terms

# A number and a unit of at most four letters (kg, GB, ms, hrs, mins): longer words after a number are
# what is counted (5 parcels), not its unit. A number right after a Han character counts (寄5 kg).
_APART = lazy_pattern(r"(?<![A-Za-z0-9.])(\d+(?:\.\d+)?)[ \t]+([A-Za-z]{1,4})(?![A-Za-z])")
# Not units: an ordinal's ending (3 rd) and the half of a day, which times read (3 pm).
_NOT_UNITS = frozenset({"st", "nd", "rd", "th", "am", "pm"})
# Chinese units that notes write as a symbol: 5公斤 is the page's 5kg, 126平米 (or 126平, as people say
# it) the page's 126㎡, which NFKC makes 126m2.
_CHINESE_UNITS = {
    "公斤": "kg",
    "千克": "kg",
    "公里": "km",
    "厘米": "cm",
    "毫米": "mm",
    "毫秒": "ms",
    "毫升": "ml",
    "平方米": "m2",
    "平米": "m2",
    "平方": "m2",
    "平": "m2",
    "立方米": "m3",
}
# Longest first: 126平方米 is not 126平 followed by 方米.
# Not the start of a longer unit: 500平方公里 is square kilometres (a cold review cited a 500㎡ warehouse).
_APART_ZH = lazy_pattern(
    rf"(?<![A-Za-z0-9.])(\d+(?:\.\d+)?)\s*({'|'.join(sorted(_CHINESE_UNITS, key=len, reverse=True))})"
    r"(?![公千厘毫分英里方米码尺寸])"
)


def other_spellings(asked: list[QueryTerm], question: str) -> dict[int, list[tuple[str, ...]]]:
    """Per question term (by index), the glued word a page holds for a number and the unit the question
    writes after it apart: a route of each of the two."""
    out: dict[int, list[tuple[str, ...]]] = {}
    at = {qt.term: i for i, qt in enumerate(asked)}
    pairs = [(n, u, u) for n, u in _APART.findall(question) if u.lower() not in _NOT_UNITS]
    pairs += [(n, u, _CHINESE_UNITS[u]) for n, u in _APART_ZH.findall(question)]
    for number, written, unit in pairs:
        glued = english_terms(number + unit)
        unit_term = english_terms(written)[:1] or ([written] if written in _CHINESE_UNITS else [])
        if len(glued) != 1 or not unit_term:
            continue
        for term in (number, unit_term[0]):
            if term in at and (glued[0],) not in out.get(at[term], []):
                out.setdefault(at[term], []).append((glued[0],))
    return out
