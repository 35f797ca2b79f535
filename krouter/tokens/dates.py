"""A day of the year written as a date (2025-03-04, 3月4号, 三月四号, March 5th, 12 August) is one term, §03-04.

Daily logs and meeting notes are named by their date, and a question asks about a day the way people say
it: "3月4号安卓夜包卡住是咋回事", "What went wrong with the Korean strings on March 5th". Read as words,
the page's 2025-03-04 was 2025, 03 and 04 while the question's 3月4号 was 3, 月, 4 and 号 (and jieba glued
号 to the next word), so the day's own page never matched (an agent-loop run, dev4). A page's dates are
indexed marked, as the month and the day (outside its BM25 length, as amounts are), besides their numbers;
a question's date is one unit of that term, so a day no page writes is said to be missing as asked
("the vault never mentions '3月6号'"). A question's year stays a word of its own (2024 of 2024-03-04): a
vault keeps a log for the same day of each year.

Both sides read a date by the same spans (``_spans``), so "10:30 March 5" is March 5 to a page and to a
question alike. A page is read more widely than a question: 04/03/2025 may be either day, and a page
indexes both; a question's 04/03 stays its numbers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from krouter.lazy_pattern import lazy_pattern

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
_MONTH_WORDS = frozenset(_NAMED)
_DAYS_IN = (0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)

# Over a normalised (case-folded, NFKC) text. Each pattern opens with a character class, which the
# regex engine scans for in C (one opening with a look-behind was tried at every position, 8 times
# slower): what may not stand before a date is checked after (``_alone``).
# A year first, with hyphens, slashes or underscores (2025-03-04, 2025/3/4, 2025_03_04: a Logseq journal's
# file name, which a bug hunt found no date), or dots between two-digit parts (2025.03.04; "Unity
# 2022.3.12" is a version); a full stop or a hyphen may follow ("on 2025-03-04.", "2025-03-04-standup"),
# a digit after them may not.
_ISO = lazy_pattern(
    r"(?:19|20)\d{2}(?P<sep>[-/_]|\.(?=\d\d\.\d\d(?!\d)))(?P<m>\d{1,2})(?P=sep)(?P<d>\d{1,2})(?!\d|[./_-]\d|:\d)"
)
# The day and month with a year after (04/03/2025): a page's only, either day.
_SLASHED = lazy_pattern(r"(?P<a>\d{1,2})/(?P<b>\d{1,2})/(?:19|20)\d{2}(?!\d)")
# Chinese and Japanese (3月4号, 3月4日, 2025年3月4日, 三月四号, 十二月二十五日), Korean (3월 4일).
_HAN_DIGITS = {c: n for n, c in enumerate("〇一二三四五六七八九")}
# A month in numerals is one of twelve (十二, not 二十), a day one of 31 (二十五); digits as before. Read
# only where 月 or 월 is (``_spans``).
_HAN_MONTH = "十[一二]?|[一二三四五六七八九]"
_HAN_DAY = "[二三]?十[一二三四五六七八九]?|[一二三四五六七八九]"
_CJK = lazy_pattern(
    rf"(?P<m>\d{{1,2}}|{_HAN_MONTH})\s*(?:月\s*(?P<d>\d{{1,2}}|{_HAN_DAY})\s*[日号號]"
    r"|월\s*(?P<k>\d{1,2})\s*일)(?!\d)"
)
# A weekday before a date (周三3月4号, 星期三三月四号): its numeral ends a word, not a number.
_WEEKDAY = lazy_pattern(r"(?:周|星期|礼拜|禮拜)[一二三四五六日天]$")
# English: the day before a full month's name but May's ("12 August", "the 5th of March"; "the top 5 may
# change"), or any with a year after ("5 Mar 2025"), else after it ("March 5th", "Mar. 5"; not "May
# 3rd-party", nor a range, "March 5-7").
_DAY_AFTER = lazy_pattern(r"\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?![\w–-]|[.:]\d)")
_DAY_BEFORE = lazy_pattern(r"(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?$")
_YEAR_AFTER = lazy_pattern(r",?\s+(?:19|20)\d{2}(?!\d)")
_LATIN = lazy_pattern(r"[a-z]+")

Span = tuple[int, int, tuple[str, ...]]


def _term(month: int, day: int) -> str | None:
    return f"{DATE}{month:02d}-{day:02d}" if 1 <= month <= 12 and 1 <= day <= _DAYS_IN[month] else None


def _number(written: str) -> int:
    """A month's or day's number written in digits or, as ``_CJK`` reads them, Han numerals (12, 十二,
    二十五)."""
    if written.isdigit():
        return int(written)
    tens, ten, ones = written.partition("十")
    if not ten:
        return _HAN_DIGITS[written]
    return (_HAN_DIGITS[tens] if tens else 1) * 10 + (_HAN_DIGITS[ones] if ones else 0)


def _alone(norm: str, at: int) -> bool:
    """False for a date starting inside a longer number, a word, a range or a time (12025-03-04,
    v2025.03.04, 1.3月4号, 二十三月, 2-5 March, 10:30 March). A Han numeral before a date in digits
    ends a word, not a number (周三3月4号); before a date in numerals only a weekday's does
    (星期三三月四号)."""
    before = norm[at - 1 : at]
    if not before:
        return True
    if before.isdigit() or (before.isascii() and before.isalpha()) or before in "./-:–":
        return False
    return not (before.isnumeric() and norm[at].isnumeric() and not norm[at].isdigit()) or bool(
        _WEEKDAY.search(norm, max(0, at - 3), at)
    )


def _spans(norm: str, words: Iterable[str], page: bool) -> list[Span]:
    """(start, end, its terms) of each date of a normalised text, in order; ``words``: its word runs,
    where a month's name is looked for; ``page``: a page's text, read more widely."""
    out: list[Span] = []
    if ("-" in norm or "/" in norm or "." in norm or "_" in norm) and ("20" in norm or "19" in norm):
        for m in _ISO.finditer(norm):
            if _alone(norm, m.start()) and (term := _term(int(m["m"]), int(m["d"]))):
                out.append((m.start(), m.end(), (term,)))
        for m in _SLASHED.finditer(norm) if page and "/" in norm else ():
            a, b = int(m["a"]), int(m["b"])
            either = tuple(dict.fromkeys(t for t in (_term(b, a), _term(a, b)) if t))
            if either and _alone(norm, m.start()):
                out.append((m.start(), m.end(), either))
    if "月" in norm or "월" in norm:
        for m in _CJK.finditer(norm):
            if _alone(norm, m.start()) and (term := _term(_number(m["m"]), _number(m["d"] or m["k"]))):
                out.append((m.start(), m.end(), (term,)))
    for word in sorted(_MONTH_WORDS.intersection(words)):
        at = norm.find(word)
        while at != -1:
            end = at + len(word)
            if not (norm[at - 1 : at].isalnum() or norm[end : end + 1].isalnum()):
                span = _english(norm, word, at, end)
                if span is not None:
                    out.append(span)
            at = norm.find(word, end)
    out.sort()
    # Overlapping spans (an ISO date's and an English one's over "2025-03-04 March 5"): the first.
    kept: list[Span] = []
    for span in out:
        if not kept or span[0] >= kept[-1][1]:
            kept.append(span)
    return kept


def _english(norm: str, word: str, at: int, end: int) -> Span | None:
    """The date a month's name at ``at`` makes with a day: before it first ("4 March 5 people" is 4
    March), a full name's but May's, or any with a year after ("5 Mar 2025"; "the top 5 may change"),
    else after it ("March 5th")."""
    month = _NAMED[word]
    if (word in _MONTHS and word != "may") or _YEAR_AFTER.match(norm, end):
        before = _DAY_BEFORE.search(norm, max(0, at - 12), at)
        if before is not None and _alone(norm, before.start()) and (term := _term(month, int(before[1]))):
            return before.start(), end, (term,)
    after = _DAY_AFTER.match(norm, end)
    if after is not None and (term := _term(month, int(after[1]))):
        return at, after.end(), (term,)
    return None


def date_terms(norm: str, runs: list[str]) -> list[str]:
    """The dates of a page's normalised text (``runs``: its word runs, ``terms.RUN``'s) as index terms
    (§03-04), each as often as it stands; a date that may be either day, both."""
    return [term for _start, _end, terms in _spans(norm, runs, page=True) for term in terms]


def split_dates(norm: str) -> list[tuple[str, str | None]]:
    """A normalised question cut at its dates, in order: (a date as written, its term) for each date and
    (the text between, None) for the rest; the year a date holds is given back as text of its own."""
    if not any(map(str.isnumeric, norm)):
        return [(norm, None)]
    out: list[tuple[str, str | None]] = []
    at = 0
    for start, end, terms in _spans(norm, _LATIN.findall(norm), page=False):
        out.append((norm[at:start], None))
        written = norm[start:end].strip()
        out.append((written, terms[0]))
        year = re.match(r"(?:19|20)\d{2}", written)
        if year:
            out.append((year.group(), None))
        at = end
    out.append((norm[at:], None))
    return out
