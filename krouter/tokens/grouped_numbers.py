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

import re
from collections.abc import Callable

from krouter.lazy_pattern import lazy_pattern
from krouter.tokens import han_numerals

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
    """A normalised text with each grouped number followed by its ungrouped form (1,000 1000), and each
    number counted in 万 by its digits (``magnitudes_beside``): a line searched for a question's number
    finds it written either way, and keeps its parts."""
    norm = magnitudes_beside(norm)
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


# A number counted in thousands, ten-thousands or hundred-millions (5万, 1.5 万, 3千, 3千万, 2亿; Korean
# 23만, 5천, 1억): Chinese and Korean count in 万 (만) where notes, English ones and many others, write
# 50,000. Both are read as the number.
# Only a number counted once: 1万2千 or a range's end (3-5万) is left as written, as is a number another
# counter follows, and 千 of a unit (千瓦 kW, 千克 kg).
_MAGNITUDE = lazy_pattern(
    # Not a range's end written after a number (3-5万, 3到5万: the range is left as written), but after a
    # verb (提到5万, 增至3千万) or another counted number (3万-5万).
    r"(?<![\d.,千万亿만천억])(?<!\d[\-~～–—到至])(?<!\d\s[\-~～–—到至])(?<!\d[\-~～–—到至]\s)(?<!\d\s[\-~～–—到至]\s)"
    r"(\d+(?:\.\d+)?)\s*(十万|百万|千万|万亿|十亿|百亿|千亿|千(?![瓦克米兆赫帕焦卡伏牛欧安乏比])|万|亿|십만|백만|천만|만|천|억)"
    # Not a number another counter or digit follows (1万2千, 2千多万, 3千来万), nor 千 of a unit (5千瓦, 5千克).
    r"(?![\d千万亿百十만천억백십]|[多来余][万亿])"
)
_HINT = lazy_pattern("[千万亿만천억]")
_TIMES = {
    "千": 10**3,
    "万": 10**4,
    "十万": 10**5,
    "百万": 10**6,
    "千万": 10**7,
    "亿": 10**8,
    "十亿": 10**9,
    "百亿": 10**10,
    "千亿": 10**11,
    "万亿": 10**12,
    # Korean counts so too: 23만원 is 230,000 won, 5천 5,000, 1억 100,000,000.
    "천": 10**3,
    "만": 10**4,
    "십만": 10**5,
    "백만": 10**6,
    "천만": 10**7,
    "억": 10**8,
}


def magnitude_numbers(norm: str) -> list[str]:
    """The numbers a normalised text writes counted in 千, 万 or 亿, as digits (5万 is 50000, 1.5万
    15000); one that is not a whole number so (0.00005万) is left out."""
    return [n for m in _MAGNITUDE.finditer(norm) if (n := _whole(m))] if _HINT.search(norm) else []


def as_digits(norm: str, known: Callable[[str], bool] | None = None) -> tuple[str, dict[str, str]]:
    """A normalised question with its numbers counted in 千, 万 or 亿 written in digits (上限5万 is 上限
    50000: a page that writes 50,000, 50000 or 5 万 holds it), and so its Han numerals the vault does not
    write as asked (``han_numerals``: 两千 is 2000), and each such number's digits mapped to the words
    the question wrote (50000: 5万), for the receipt to show."""
    norm, spoken = han_numerals.in_digits(norm, known)
    if _GROUP_HINT.search(norm):
        # A number grouped in thousands is one number (230,000): asked as its parts 230 and 000 it never
        # met a page writing 230000 or 23만원, and "the vault never mentions '230', '000'" (a bug hunt).
        # The question's unit keeps the parts as a route (80,443 asked of "ports 80 and 443": D140).
        def ungrouped(m: re.Match[str]) -> str:
            whole = m.group(0).replace(",", "")
            spoken[whole] = m.group(0)
            return f" {whole} "

        norm = _GROUPED.sub(ungrouped, norm)
    if not _HINT.search(norm):
        return norm, spoken

    def digits(m: re.Match[str]) -> str:
        whole = _whole(m)
        if whole is None:
            return m.group(0)
        spoken[whole] = m.group(0).replace(" ", "")
        return f" {whole} "

    return _MAGNITUDE.sub(digits, norm), spoken


def magnitudes_beside(norm: str) -> str:
    """A normalised text with each number counted in 千, 万 or 亿 followed by its digits (10 万 100000): a
    line searched for a question's number finds it written either way."""
    if not _HINT.search(norm):
        return norm
    return _MAGNITUDE.sub(lambda m: f"{m.group(0)} {w}" if (w := _whole(m)) else m.group(0), norm)


def _whole(m: re.Match[str]) -> str | None:
    whole, _, part = m.group(1).partition(".")
    times, scale = _TIMES[m.group(2)], 10 ** len(part)
    if part and int(part) * times % scale:
        return None
    return str(int(whole) * times + (int(part) * times // scale if part else 0))


# A price said the spoken way, whole and tenths around 块 (38块5): not inside a longer number, nor a
# count of things with a size (4块4T 硬盘).
_KUAI_DECIMAL = lazy_pattern(r"(?<![\d.])(\d+)块(\d)(?![\d.]*[A-Za-z\d])")


def spoken_decimals(norm: str) -> list[str]:
    """The prices a normalised text says the spoken way, as their number: 16块5 is 16.5 (yuan), as a
    question's is read (question_frames): the page wrote it, and "the question names '16.5', which no page
    mentions" refused the page that did (a bug hunt)."""
    if "块" not in norm:
        return []
    return [f"{whole}.{tenths}" for whole, tenths in _KUAI_DECIMAL.findall(norm)]
