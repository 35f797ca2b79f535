"""A Chinese question word no dictionary translates weighs half against a page written in English.

"我们的灯现在还是只保修 12 个月吗? 客户要把坏掉的零件寄回来吗?" reaches the English warranty page through
保修 → warranty, 客户 → customer and 零件 → part, and was refused for 灯, 寄, 回来: words the page may
well say ("lamp", "send it back") but that no route of ours can look for (single characters have no
dictionary entry, D35; 回来 none in CC-CEDICT or the glossary). A word the glossary or CC-CEDICT
translates (or an abbreviation, a spoken form) was looked for in English and is not there, and weighs in
full; one none of them translates weighs UNTRANSLATED_SHARE in that page's coverage, and the receipt
lists it.

Only when the page is written in English: it holds none of the question's Chinese words as written, and
its prose has fewer Han characters than a sixth of its Latin letters (front matter, code and addresses
left out: a Chinese runbook with a shell block, or a note full of English terms, "Stripe 的 webhook
payment 失败时 retry", still writes 交给 as 交给). Not the other way round: Chinese notes write names and
technical terms in Latin letters (Kubernetes, Jira), so an English word a Chinese page lacks says as
much as it says against an English page.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from krouter.lazy_pattern import lazy_pattern
from krouter.routing.question import Unit
from krouter.tokens import bilingual
from krouter.tokens.normal_form import normalize
from krouter.tokens.scripts import HAS_HAN, is_cjk

# The share of its weight an untranslatable word the page lacks keeps (docs/decisions.md D71).
UNTRANSLATED_SHARE = 0.5
# A page is written in English when its Han characters number fewer than this share of its Latin letters:
# a character says about what three letters do, so under a sixth is under half the prose (a meeting note
# in English that names its Chinese attendees and quotes a line or two is English; 0.1 called it Chinese).
HAN_PER_LETTER = 1 / 6
_LATIN = lazy_pattern(r"[A-Za-z]")
# What is not prose: front matter, fenced and inline code, web addresses.
_NOT_PROSE = lazy_pattern(r"\A---\n.*?\n---\n|```.*?(?:```|\Z)|`[^`\n]*`|\bhttps?://\S+", re.S)
# How much of a page's text is read to tell its language: its start says it, and a lookup reads no more.
PROSE_SAMPLE = 20_000


def untranslated(
    units: list[Unit], matched: set[int], pages: set[int], text_of: Callable[[int], str]
) -> tuple[list[Unit], float, list[str]]:
    """The units as the top page's coverage weighs them, their total weight, and the question words
    weighed at UNTRANSLATED_SHARE. ``matched`` are the units the page holds; ``pages`` the top target's
    pages (a replaced page and its successor count as one target), whose text ``text_of`` reads, only
    when every other condition holds."""
    han = [i for i in matched if is_cjk(units[i].text) and not _number(units[i].text)]
    if not han or any(not _translated(units[i], pages, text_of) for i in han):
        return units, sum(u.weight for u in units), []
    lacking = [i for i, unit in enumerate(units) if i not in matched and untranslatable(unit)]
    if not lacking or not all(in_english(text_of(p)) for p in pages):
        return units, sum(u.weight for u in units), []
    out = list(units)
    for i in lacking:
        out[i] = replace(units[i], weight=units[i].weight * UNTRANSLATED_SHARE)
    return out, sum(u.weight for u in out), [units[i].text for i in lacking]


def untranslatable(unit: Unit) -> bool:
    """A Chinese question word with no route but itself and no dictionary translation. Not a number,
    nor a character the vault never holds: that weighs half already (D41), and its absence is no surer
    here."""
    if not is_cjk(unit.text) or _number(unit.text) or len(unit.alts) > 1:
        return False
    if unit.df == 0 and len(unit.text) == 1:
        return False
    return not bilingual.to_english(unit.key)


def _translated(unit: Unit, pages: set[int], text_of: Callable[[int], str]) -> bool:
    """True when the pages hold the unit only through a translation, or as written only in their names:
    an English page's Chinese alias (鹿特丹仓 of "Rotterdam warehouse") does not make its prose Chinese;
    a page whose prose writes the word too holds it as written."""
    native = [p for p in pages if p in unit.postings and p not in unit.translated]
    if not native:
        return any(p in unit.translated for p in pages)
    return all(unit.postings[p][0] and unit.text not in normalize(_prose(text_of(p))) for p in native)


def _prose(text: str) -> str:
    """A page's prose as ``in_english`` reads it: its start, front matter, code and addresses left out."""
    return _NOT_PROSE.sub(" ", text[:PROSE_SAMPLE])


def in_english(text: str) -> bool:
    """True when a page's prose is written in English: fewer Han characters than HAN_PER_LETTER of its
    Latin letters, front matter, code and addresses left out."""
    prose = _prose(text)
    return len(HAS_HAN.findall(prose)) < HAN_PER_LETTER * len(_LATIN.findall(prose))


def _number(text: str) -> bool:
    return any(ch.isdigit() for ch in text)
