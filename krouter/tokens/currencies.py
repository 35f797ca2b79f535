"""The currency of an amount, however it is written: one term per currency, marked like an amount.

Notes write a price with its sign ("£4.95", "$79", "¥500"); people ask with a word ("4.95镑", "50美元",
"100 yuan", "50 bucks"), often in the other language of a bilingual vault. Read as words, 镑 or 美元 was
a word the English page lacked, weighed like any other, and a page's "£" was no word at all. Now an
amount's currency is one term on either side (¤£, ¤$, ¤€, ¤¥), whether a sign before the number or a
word or a code after it (a code before it too: "USD 79", "RMB 500"), and a question's currency word after
a number is read as that term only, not as a word the page must also write.

Only where the reading is sure: not "pound(s)" or "lb" (weights as often as money), nor 块 alone (a
measure word too: 8块硬盘), nor 刀 alone. ¥ is both the yuan and the yen, as notes write it.
"""

from __future__ import annotations

import re

from krouter.lazy_pattern import lazy_pattern

# The amount mark of ``tokens.terms`` (¤1.99), which a currency term shares: what reads an amount's
# term off a line (``routing.answering_line``) then finds the sign a line writes.
_MARK = "¤"

_WORDS = {
    "$": ("美元", "美金", "美刀", "dollars", "dollar", "bucks", "buck", "usd"),
    "€": ("欧元", "欧", "euros", "euro", "eur"),
    "£": ("英镑", "镑", "gbp"),
    "¥": ("人民币", "日元", "万元", "元", "块钱", "yuan", "rmb", "cny", "yen", "jpy"),
}
_SIGN_OF = {word: sign for sign, words in _WORDS.items() for word in words}
_CODES = "usd|eur|gbp|rmb|cny|jpy"
# Longest first, so that 英镑 is read before 镑 and 万元 before 元. A Latin word ends where its letters
# do; 欧 alone is the euro only where no other word starts with it (欧姆 is the ohm, 欧洲 Europe).
_HAN_WORDS = "|".join(sorted((w for w in _SIGN_OF if not w.isascii() and w != "欧"), key=len, reverse=True))
_LATIN_WORDS = "|".join(sorted((w for w in _SIGN_OF if w.isascii()), key=len, reverse=True))
_MENTION = lazy_pattern(
    rf"(?P<sign>[$€£¥])\s?(?=\d)"
    rf"|\b(?P<code>{_CODES})\s?(?=\d)"
    rf"|(?<=\d)\s*(?P<word>{_HAN_WORDS}|欧(?![姆洲盟美式])|(?:{_LATIN_WORDS})(?![a-z]))"
)
# Whether a text writes a currency at all, searched for from the characters it must start at (a sign or a
# digit): ``_MENTION``, run over every page of a cold build, cost a tenth of its tokenising.
_ANY = lazy_pattern(
    rf"[$€£¥\d](?:(?<=\d)\s*(?:{_LATIN_WORDS}|{_HAN_WORDS}|欧)"
    r"|(?<=usd\d|eur\d|gbp\d|rmb\d|cny\d|jpy\d)|(?<=usd \d|eur \d|gbp \d|rmb \d|cny \d|jpy \d)"
    r"|(?<=[$€£¥]))"
)


def _could_hold(norm: str) -> bool:
    return _ANY.search(norm) is not None


def _term(m: re.Match[str]) -> str:
    sign = m.group("sign") or _SIGN_OF[m.group("code") or m.group("word")]
    return _MARK + sign


def currency_terms(norm: str) -> list[str]:
    """The currency term of every amount a normalised text writes with a sign, a code or a currency
    word (repeats kept: they are term frequencies)."""
    if not _could_hold(norm):
        return []
    return [_term(m) for m in _MENTION.finditer(norm)]


def asked_currencies(norm: str) -> tuple[str, list[tuple[str, str]]]:
    """A normalised question with the currency words and codes written beside its numbers blanked out,
    and the currencies it names beside an amount, each once, as (what the question wrote, its term)."""
    if not _could_hold(norm):
        return norm, []
    found: dict[str, str] = {}
    for m in _MENTION.finditer(norm):
        found.setdefault(_term(m), m.group("sign") or m.group("code") or m.group("word"))
    blanked = _MENTION.sub(lambda m: m.group(0) if m.group("sign") else " ", norm)
    return blanked, [(shown, term) for term, shown in found.items()]
