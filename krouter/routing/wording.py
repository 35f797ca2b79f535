"""Of the words a page lacks, those past its two rarest are likelier the question's wording than a
subject the page does not hold: they weigh a quarter.

A neighbour question asks about another subject than the page's, and most often the page lacks that
subject in a word or two ("Which provider do we use for WhatsApp messages?" on the SMS provider's page,
"parental leave" on the annual-leave policy). A question worded unlike the page lacks its everyday
words instead, several of them and scattered ("Customer just wants one picture hung — are we still
billing a full two hours for a handyman visit?" on the handyman minimum's page: wants, hung, full). So
the two rarest words a page lacks (by their weight before any other discount; every word as rare as
the second of them, too) weigh in full, as the subject they may be, and each further one WORDING_SHARE
of its weight, or less if another rule weighs it less already. Not a word another current page is
named by (its title, aliases, tags or path): a subject that sibling pages name is common in the vault
("staging", "Manchester") and would come last in rarity. A neighbour that lacks three words or more of
a subject the vault names nowhere can still pass (docs/decisions.md D153).
"""

from __future__ import annotations

from dataclasses import replace

from krouter.index.store import Index
from krouter.routing.elsewhere import named_elsewhere
from krouter.routing.question import Unit
from krouter.routing.tables import Tables

# How many of the words a page lacks keep their weight whatever else it lacks, and the share of its
# weight each word past them keeps.
RAREST_KEPT = 2
WORDING_SHARE = 0.25


def as_wording(
    units: list[Unit], rarity: list[Unit], held: set[int], mine: set[int], index: Index, t: Tables
) -> tuple[list[Unit], float, list[str]]:
    """The units as the top page's coverage weighs them, their total weight, and the question words
    weighed at WORDING_SHARE (in the question's order). ``units`` are as other rules weighed them,
    ``rarity`` the same units before those rules (their order of rarity); ``held`` the units the top
    page holds, ``mine`` its pages (a replaced page and its successor are one target)."""
    lacking = sorted((i for i in range(len(units)) if i not in held), key=lambda i: -rarity[i].weight)
    if len(lacking) <= RAREST_KEPT:
        return units, sum(u.weight for u in units), []
    bar = rarity[lacking[RAREST_KEPT - 1]].weight
    wording = sorted(
        i for i in lacking if rarity[i].weight < bar and not named_elsewhere(rarity[i], mine, index, t)
    )
    out = list(units)
    for i in wording:
        out[i] = replace(units[i], weight=min(units[i].weight, rarity[i].weight * WORDING_SHARE))
    return out, sum(u.weight for u in out), [units[i].text for i in wording]
