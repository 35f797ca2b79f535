"""A day of the year written as a date (2025-03-04, 3月4号, March 5th, 12 August) is one term, §03-04.

Daily logs and meeting notes are named by their date, and a question asks about a day the way people say
it: "3月4号安卓夜包卡住是咋回事", "What went wrong with the Korean strings on March 5th". Read as words,
the page's 2025-03-04 was 2025, 03 and 04 while the question's 3月4号 was 3, 月, 4 and 号 (and jieba glued
号 to the next word), so the day's own page never matched (an agent-loop run, dev4). A page's dates are
indexed marked, as the month and the day (outside its BM25 length, as amounts are), besides their numbers;
a question's date is one unit of that term, so a day no page writes is said to be missing as asked
("the vault never mentions '3月6号'"). The year is left out: a question rarely says it.
"""

from __future__ import annotations

import re

DATE = "§"

_MONTHS = {
    "january": 1,
    "february": 2,
    "march": 3,
    "april": 4,
    "may": 5,
    "june": 6,
    "july": 7,
    "august": 8,
    "september": 9,
    "october": 10,
    "november": 11,
    "december": 12,
}
_SHORT = {
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "sept": 9,
    "oct": 10,
}
_SHORT |= {"nov": 11, "dec": 12}
_NAMED = {**_MONTHS, **_SHORT}
_ANY_MONTH = "|".join(sorted(_NAMED, key=len, reverse=True))
# "5 May" also reads "the top 5 may change": the day first only before a month's full name, May aside.
_FULL_MONTH = "|".join(sorted(set(_MONTHS) - {"may"}, key=len, reverse=True))
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"

# Over a normalised (case-folded, NFKC) text. A year with hyphens or slashes (2025-03-04, 2025/3/4), not
# dots: "Unity 2022.3.12" is a version. Chinese with 日 or 号 (3月4号, 2025年3月4日). English with the
# month named, either side of the day ("March 5th", "Mar. 5", "12 August", "the 5th of March").
_DATES = re.compile(
    r"(?<![\d./-])(?:19|20)\d{2}([-/])(?P<im>\d{1,2})\1(?P<id>\d{1,2})(?![\d./-]|:\d)"
    r"|(?<![\d.])(?P<zm>\d{1,2})\s*月\s*(?P<zd>\d{1,2})\s*[日号號](?!\d)"
    rf"|\b(?P<em>{_ANY_MONTH})\.?\s+{_DAY.replace('(', '(?P<ed>', 1)}\b(?![.:]\d)"
    rf"|(?<![\d.]){_DAY.replace('(', '(?P<fd>', 1)}\s+(?:of\s+)?(?P<fm>{_FULL_MONTH})\b"
)


def _term(month: int, day: int) -> str | None:
    return f"{DATE}{month:02d}-{day:02d}" if 1 <= month <= 12 and 1 <= day <= 31 else None


def _found(m: re.Match[str]) -> str | None:
    g = m.groupdict()
    if g["im"]:
        return _term(int(g["im"]), int(g["id"]))
    if g["zm"]:
        return _term(int(g["zm"]), int(g["zd"]))
    if g["em"]:
        return _term(_NAMED[g["em"]], int(g["ed"]))
    return _term(_NAMED[g["fm"]], int(g["fd"]))


def date_terms(norm: str) -> list[str]:
    """The dates of a normalised text as index terms (§03-04), each as often as it stands."""
    if not any(map(str.isdigit, norm)):
        return []
    return [term for m in _DATES.finditer(norm) if (term := _found(m))]


def split_dates(norm: str) -> list[tuple[str, str | None]]:
    """A normalised question cut at its dates, in order: (a date as written, its term) for each date and
    (the text between, None) for the rest."""
    out: list[tuple[str, str | None]] = []
    at = 0
    for m in _DATES.finditer(norm) if any(map(str.isdigit, norm)) else ():
        term = _found(m)
        if term is None:
            continue
        out.append((norm[at : m.start()], None))
        out.append((m.group().strip(), term))
        at = m.end()
    out.append((norm[at:], None))
    return out
