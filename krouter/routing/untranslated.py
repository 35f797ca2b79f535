"""A question word no dictionary translates weighs half against a page written in the other language.

A top page that holds the question's words of one script (Han, or Latin) only through translations is
written in the other language: "我们的灯还是只保修 12 个月吗" reaches the English warranty page through
保修 → warranty and 客户 → customer. A question word of that script the page lacks is then evidence
against it only as far as we could have looked for it: one the work glossary or CC-CEDICT translates
(or an abbreviation, a spoken form) was looked for in the page's language and is not there; one none of
them translates (灯 and 寄 are single characters, 来收 and 交给 no entry) may be on the page in words we
cannot name. It weighs UNTRANSLATED_SHARE of itself in that page's coverage, and the receipt lists it.
A page that holds any question word of that script as written is not in the other language, and its
missing words weigh in full; so do numbers and every word against a page in the question's language.
"""

from __future__ import annotations

from dataclasses import replace

from krouter.routing.question import Unit
from krouter.tokens import bilingual
from krouter.tokens.scripts import is_cjk

# The share of its weight an untranslatable word the page lacks keeps (docs/decisions.md D71): the same
# half a never-held Han character keeps (D41), for the same reason, that its absence says less.
UNTRANSLATED_SHARE = 0.5


def untranslated(
    units: list[Unit], matched: set[int], pages: list[int]
) -> tuple[list[Unit], float, list[str]]:
    """The units as the coverage of ``pages`` (the top target's pages) weighs them, their total weight,
    and the question words weighed at UNTRANSLATED_SHARE: those of a script the pages hold only through
    translations, that the pages lack (not in ``matched``) and that no route translates."""
    out = list(units)
    shared: list[str] = []
    for han in (True, False):
        own_script = [i for i in matched if is_cjk(units[i].text) == han and not _number(units[i].text)]
        if not own_script or any(not _translated(units[i], pages) for i in own_script):
            continue
        for i, unit in enumerate(units):
            if i in matched or is_cjk(unit.text) != han or _number(unit.text) or len(unit.alts) > 1:
                continue
            if bilingual.to_english(unit.key) if han else bilingual.to_chinese(unit.key):
                continue
            out[i] = replace(unit, weight=unit.weight * UNTRANSLATED_SHARE)
            shared.append(unit.text)
    return out, sum(u.weight for u in out), shared


def _translated(unit: Unit, pages: list[int]) -> bool:
    """True when the pages hold the unit only through a translation."""
    return any(p in unit.translated for p in pages) and not any(
        p in unit.postings and p not in unit.translated for p in pages
    )


def _number(text: str) -> bool:
    return any(ch.isdigit() for ch in text)
