"""Questions written in Traditional characters, on notes written in Simplified ones.

Someone in Taiwan or Hong Kong asks 數據庫備份幾點做; the notes write 数据库备份. jieba's dictionary and
the index's words of such a vault are in Simplified characters, so no word of the question was found.
CC-CEDICT writes every entry in both scripts: a character it writes only in Traditional form (never as the
Simplified form of any entry: 發, not 乾 or 著) stands for the Simplified character of its entries (the
commoner one, where two are given). A question is looked up in Simplified characters when that makes
more of its Han words ones the vault holds; a vault written in Traditional characters gets the question
as written, and a Japanese question (with kana) is never changed: its kanji are Japanese forms.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable

from krouter.tokens.scripts import HAN, HAS_HAN, KANA, is_cjk
from krouter.tokens.terms import query_terms

_ENTRY = re.compile(r"^(\S+) (\S+) \[")
_HAN_CHAR = re.compile(rf"[{HAN}]")
_HAS_KANA = re.compile(rf"[{KANA}]")


def folds(lines: Iterable[str]) -> dict[str, str]:
    """Traditional character → Simplified character, from CC-CEDICT's lines ("數據庫 数据库 [...] /.../"),
    for the characters no entry writes as Simplified."""
    pairs: dict[str, Counter[str]] = defaultdict(Counter)
    simplified: set[str] = set()
    for line in lines:
        m = _ENTRY.match(line)
        if not m:
            continue
        trad, simp = m.groups()
        simplified.update(simp)
        if len(trad) == len(simp):
            for t, s in zip(trad, simp, strict=True):
                if t != s:
                    pairs[t][s] += 1
    return {t: seen.most_common(1)[0][0] for t, seen in pairs.items() if t not in simplified}


def in_simplified(text: str) -> str:
    """``text`` with each Traditional-only character written as its Simplified one (the others as
    they are); unchanged when the dictionary is not installed."""
    from krouter.tokens import bilingual

    chars = sorted(set(_HAN_CHAR.findall(text)))
    if not chars:
        return text
    found = bilingual.column(
        f"SELECT zh || simplified FROM fold WHERE zh IN ({','.join('?' * len(chars))})", *chars
    )
    return text.translate({ord(pair[0]): pair[1] for pair in found}) if found else text


def as_the_vault_writes(question: str, known: Callable[[str], bool]) -> str:
    """The question in Simplified characters when the vault holds more of its Han words' characters so
    written (``known``: whether a page holds a term); else the question as asked."""
    if not HAS_HAN.search(question) or _HAS_KANA.search(question):
        return question
    folded = in_simplified(question)
    if folded == question or _held(folded, known) <= _held(question, known):
        return question
    return folded


def _held(text: str, known: Callable[[str], bool]) -> int:
    """How many characters of the text's CJK words the vault holds (a word of two found outweighs a
    character found alone: 备份 against 份 of 備份)."""
    return sum(len(qt.term) for qt in query_terms(text, known=known) if is_cjk(qt.term) and known(qt.term))
