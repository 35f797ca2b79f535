"""Of the words a page lacks, those past its two rarest are likelier the question's wording than a
subject the page does not hold: they weigh a quarter.

A neighbour question asks about another subject than the page's, and most often the page lacks that
subject in a word or two ("Which provider do we use for WhatsApp messages?" on the SMS provider's page,
"parental leave" on the annual-leave policy). A question worded unlike the page lacks its everyday
words instead, several of them and scattered ("Customer just wants one picture hung — are we still
billing a full two hours for a handyman visit?" on the handyman minimum's page: wants, hung, full). So
the two rarest words a page lacks (the heaviest by their IDF weight; every word as rare as the second
of them, too) weigh in full, as the subject they may be, and each further one WORDING_SHARE of its
weight. Never a word that names a subject all the same: one a page other than this one is named by
(its title, aliases, tags or file name; a replaced page's too), one the question writes as a name
(Montreal, mid-sentence), or a single Han character written next to another word the page lacks: a
piece of a word the segmenter cut (公众号: 公众 + 号). Nor a word another rule weighs at half already: a
Han character no page holds (D41), a Chinese word no dictionary translates against an English page
(``untranslated``). A neighbour that lacks three words or more of a subject named nowhere can still
pass (docs/decisions.md D153). And a page's name written in several words weighs once (``name_once``).
"""

from __future__ import annotations

from dataclasses import replace

from krouter.routing.question import Unit
from krouter.routing.tables import Tables
from krouter.tokens.names import CALENDAR_NAMES, CALENDAR_SHORT, WEEKDAYS, capitalised, written_as_name
from krouter.tokens.normal_form import normalize, without_accents
from krouter.tokens.scripts import is_cjk

# How many of the words a page lacks keep their weight whatever else it lacks, and the share of its
# weight each word past them keeps.
RAREST_KEPT = 2
WORDING_SHARE = 0.25
# Months and weekdays are no name for their capital (``names.CALENDAR_NAMES``; "may" is a stop word and
# never a unit), nor are the weekdays' plurals ("on Mondays") and the short forms, but those that are
# words or people's names too (Jan, Jun, Mar, Wed, Sat, Sun) and Jul and Sep, which D154 left out too.
_CALENDAR = (
    CALENDAR_NAMES
    | {day + "s" for day in WEEKDAYS}
    | (CALENDAR_SHORT - {"jan", "jun", "jul", "mar", "sep", "wed", "sat", "sun"})
)


def as_wording(
    units: list[Unit], before: list[Unit], held: set[int], mine: set[int], question: str
) -> tuple[list[Unit], float, list[str]]:
    """The units as the top page's coverage weighs them, their total weight, and the question words
    weighed at WORDING_SHARE (in the question's order). ``units`` are as ``untranslated`` weighed them,
    ``before`` the same units before it; ``held`` the units the top page holds, ``mine`` its pages (a
    replaced page and its successor are one target)."""
    lacking = sorted((i for i in range(len(units)) if i not in held), key=lambda i: -before[i].weight)
    if len(lacking) <= RAREST_KEPT:
        return units, sum(u.weight for u in units), []
    bar = before[lacking[RAREST_KEPT - 1]].weight
    pieces = {units[i].text for i in lacking}
    wording = sorted(
        i
        for i in lacking
        if before[i].weight < bar
        and units[i].weight == before[i].weight
        and not _names(units[i], mine, question, pieces)
    )
    out = list(units)
    for i in wording:
        out[i] = replace(units[i], weight=units[i].weight * WORDING_SHARE)
    return out, sum(u.weight for u in out), [units[i].text for i in wording]


def _names(unit: Unit, mine: set[int], question: str, pieces: set[str]) -> bool:
    """True when a lacking word may name a subject, or weighs half already: see the module's docstring.
    A single Han character names one only as a piece of another lacking word (in another page's name it
    is a piece of a word there too); one no page holds weighs half already (D41)."""
    text = unit.text
    if len(text) == 1 and is_cjk(text):
        # Units are read off the normalised question: a zero-width space between the pieces is gone.
        written = normalize(question)
        return unit.df == 0 or any(
            f"{text}{w}" in written or f"{w}{text}" in written for w in pieces - {text}
        )
    if any(meta for page, (meta, _trigger, _body) in unit.postings.items() if page not in mine):
        return True
    return text not in _CALENDAR and written_as_name(text, question, set())


def name_once(units: list[Unit], question: str, page_id: int, t: Tables) -> tuple[list[Unit], float]:
    """The units as the coverage weighs them, and their total: when the question writes the page's title
    or file name of two or more words as a name (each word with a capital), those words weigh as one,
    the heaviest of them (docs/decisions.md D61)."""
    total = sum(u.weight for u in units)
    # Names are read as the index reads them, accents dropped (``Tables.names_of``).
    read = [without_accents(normalize(u.text)) for u in units]
    for _name, parts in t.names_of(page_id):
        if len(parts) < 2:
            continue
        group = [i for i, text in enumerate(read) if text in parts]
        if len({read[i] for i in group}) < len(set(parts)):
            continue
        if not all(capitalised(units[i].text, question) for i in group):
            continue
        keep = max(group, key=lambda i: units[i].weight)
        once = [u if i == keep or i not in group else replace(u, weight=0.0) for i, u in enumerate(units)]
        return once, sum(u.weight for u in once)
    return units, total
