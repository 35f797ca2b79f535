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
_SHORT = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9}
_SHORT |= {"oct": 10, "nov": 11, "dec": 12}
_NAMED = {**_MONTHS, **_SHORT}
_ANY_MONTH = "|".join(sorted(_NAMED, key=len, reverse=True))
# "5 May" also reads "the top 5 may change": the day first only before a month's full name, May aside.
_FULL_MONTH = "|".join(sorted(set(_MONTHS) - {"may"}, key=len, reverse=True))

# Over a normalised (case-folded, NFKC) text. A year with hyphens or slashes (2025-03-04, 2025/3/4), not
# dots: "Unity 2022.3.12" is a version. Chinese with 日 or 号 (3月4号, 2025年3月4日). English with the
# month named, either side of the day ("March 5th", "Mar. 5", "12 August", "the 5th of March").
# A pattern opening with a character class is scanned for in C; one opening with a look-behind is
# tried at every position (8 times slower): what may not stand before a date is checked after (_alone).
_ISO = r"(?:19|20)\d{2}([-/])(?P<im>\d{1,2})\1(?P<id>\d{1,2})(?![\d./-]|:\d)"
_ZH = r"(?P<zm>\d{1,2})\s*月\s*(?P<zd>\d{1,2})\s*[日号號](?!\d)"
_EN_MONTH_DAY = rf"\b(?P<em>{_ANY_MONTH})\.?\s+(?P<ed>\d{{1,2}})(?:st|nd|rd|th)?\b(?![.:]\d)"
_EN_DAY_MONTH = rf"(?P<fd>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<fm>{_FULL_MONTH})\b"
_DATES = re.compile(f"{_ISO}|{_ZH}|{_EN_MONTH_DAY}|{_EN_DAY_MONTH}")
# Read apart for a page, each only where it can match: one pattern over every text cost a cold build
# about a quarter of a millisecond per kilobyte (English month names tried at every word). A month's
# name is found by its place among the text's words, its day just after or just before it.
_ISO_ONLY = re.compile(_ISO)
_ZH_ONLY = re.compile(_ZH)
_DAY_AFTER = re.compile(r"\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b(?![.:]\d)")
_DAY_BEFORE = re.compile(r"(?<![\d.])(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?$")
_MONTH_WORDS = frozenset(_NAMED)


def _alone(norm: str, m: re.Match[str]) -> bool:
    """False for a match inside a longer number (12025-03-04, 1.3月4号, v2/3 18/5)."""
    before = norm[m.start() - 1 : m.start()]
    return not before or not (before.isdigit() or before in "./-")


def _term(month: int, day: int) -> str | None:
    return f"{DATE}{month:02d}-{day:02d}" if 1 <= month <= 12 and 1 <= day <= 31 else None


def _found(m: re.Match[str]) -> str | None:
    g = m.groupdict()
    if g.get("im"):
        return _term(int(g["im"]), int(g["id"]))
    if g.get("zm"):
        return _term(int(g["zm"]), int(g["zd"]))
    if g.get("em"):
        return _term(_NAMED[g["em"]], int(g["ed"]))
    return _term(_NAMED[g["fm"]], int(g["fd"]))


def date_terms(norm: str, runs: list[str]) -> list[str]:
    """The dates of a normalised text (``runs``: its word runs, ``terms.RUN``'s) as index terms
    (§03-04), each as often as it stands."""
    out: list[str] = []
    if ("-" in norm or "/" in norm) and ("20" in norm or "19" in norm):
        out += [term for m in _ISO_ONLY.finditer(norm) if _alone(norm, m) and (term := _found(m))]
    if "月" in norm:
        out += [term for m in _ZH_ONLY.finditer(norm) if _alone(norm, m) and (term := _found(m))]
    for word in sorted(_MONTH_WORDS.intersection(runs)):
        at = norm.find(word)
        while at != -1:
            end = at + len(word)
            if not (norm[at - 1 : at].isalnum() or norm[end : end + 1].isalnum()):
                day = _DAY_AFTER.match(norm, end)
                if day is None and word in _MONTHS and word != "may":
                    day = _DAY_BEFORE.search(norm, max(0, at - 12), at)
                if day is not None and (term := _term(_NAMED[word], int(day.group(1)))):
                    out.append(term)
            at = norm.find(word, end)
    return out


def split_dates(norm: str) -> list[tuple[str, str | None]]:
    """A normalised question cut at its dates, in order: (a date as written, its term) for each date and
    (the text between, None) for the rest."""
    out: list[tuple[str, str | None]] = []
    at = 0
    for m in _DATES.finditer(norm) if any(map(str.isdigit, norm)) else ():
        term = _found(m) if _alone(norm, m) else None
        if term is None:
            continue
        out.append((norm[at : m.start()], None))
        out.append((m.group().strip(), term))
        at = m.end()
    out.append((norm[at:], None))
    return out
