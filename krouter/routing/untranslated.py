"""A Chinese question word no dictionary translates weighs half against a page written in English.

"我们的灯现在还是只保修 12 个月吗? 客户要把坏掉的零件寄回来吗?" reaches the English warranty page through
保修 → warranty, 客户 → customer and 零件 → part, and was refused for 灯, 寄, 回来: words the page may
well say ("lamp", "send it back") but that no route of ours can look for (single characters have no
dictionary entry, D35; 回来 none in CC-CEDICT or the glossary). A word the glossary or CC-CEDICT
translates (or an abbreviation, a spoken form) was looked for in English and is not there, and weighs in
full; one none of them translates weighs UNTRANSLATED_SHARE in that page's coverage, and the receipt
lists it.

Only when the page is written in English: it holds none of the question's Chinese words as written, and
its text has fewer Han characters than a tenth of its Latin letters (a Chinese note full of English
terms, "Stripe 的 webhook payment 失败时 retry", still writes 灯 as 灯). Not the other way round: Chinese
notes write names and technical terms in Latin letters (Kubernetes, Jira), so an English word a Chinese
page lacks says as much as it says against an English page.
"""

from __future__ import annotations

import re
from dataclasses import replace

from krouter.routing.question import Unit
from krouter.tokens import bilingual
from krouter.tokens.scripts import is_cjk

# The share of its weight an untranslatable word the page lacks keeps (docs/decisions.md D71).
UNTRANSLATED_SHARE = 0.5
# A page is written in English when its Han characters number fewer than this share of its Latin letters.
HAN_PER_LETTER = 0.1
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]")


def untranslated(
    units: list[Unit], matched: set[int], pages: dict[int, str]
) -> tuple[list[Unit], float, list[str]]:
    """The units as the top page's coverage weighs them, their total weight, and the question words
    weighed at UNTRANSLATED_SHARE. ``matched`` are the units the page holds; ``pages`` the text of each
    of the top target's pages by id (a replaced page and its successor count as one target)."""
    han = [i for i in matched if is_cjk(units[i].text) and not _number(units[i].text)]
    if (
        not han
        or any(not _translated(units[i], pages) for i in han)
        or not all(map(_in_english, pages.values()))
    ):
        return units, sum(u.weight for u in units), []
    out = list(units)
    halved: list[str] = []
    for i, unit in enumerate(units):
        if i in matched or not is_cjk(unit.text) or _number(unit.text) or len(unit.alts) > 1:
            continue
        # A character the vault never holds weighs half already (D41): its absence is no surer here.
        if (unit.df == 0 and len(unit.text) == 1) or bilingual.to_english(unit.key):
            continue
        out[i] = replace(unit, weight=unit.weight * UNTRANSLATED_SHARE)
        halved.append(unit.text)
    return out, sum(u.weight for u in out), halved


def _translated(unit: Unit, pages: dict[int, str]) -> bool:
    """True when the pages hold the unit only through a translation."""
    return any(p in unit.translated for p in pages) and not any(
        p in unit.postings and p not in unit.translated for p in pages
    )


def _in_english(text: str) -> bool:
    return len(_HAN.findall(text)) < HAN_PER_LETTER * len(_LATIN.findall(text))


def _number(text: str) -> bool:
    return any(ch.isdigit() for ch in text)
