"""A page that lacks more than two of a question's words lacks the rest as wording, not as a subject.

A neighbour question asks about another subject than the page's, and the page lacks that subject: a
word or two ("Which provider do we use for WhatsApp messages?" on the SMS provider's page, "parental
leave" on the annual-leave policy, "search API timeout" on the payments API's). A question worded unlike
the page lacks its everyday words instead, several of them and scattered ("Customer just wants one
picture hung — are we still billing a full two hours for a handyman visit?" on the handyman minimum's
page: wants, hung, full). So the two heaviest words a page lacks (the rarest in the vault, a word it
never holds first) weigh in full, as the subject they may be, and every further one WORDING_SHARE of
its weight. Measured in docs/decisions.md (D153): on the dev sets it separates answers from neighbours
better than any floor does; a single or a second missing word is unchanged.
"""

from __future__ import annotations

from dataclasses import replace

from krouter.routing.question import Unit

# How many of the words a page lacks may be a subject it does not hold, and what share of its weight
# each further one keeps.
SUBJECT_WORDS = 2
WORDING_SHARE = 0.25


def as_wording(units: list[Unit], held: set[int]) -> tuple[list[Unit], float, list[str]]:
    """The units as the top page's coverage weighs them, their total weight, and the question words
    weighed at WORDING_SHARE (in the question's order). ``held`` are the units the page holds; of the
    rest, the SUBJECT_WORDS heaviest keep their weight (a tie goes to the word asked first)."""
    lacking = sorted((i for i in range(len(units)) if i not in held), key=lambda i: (-units[i].weight, i))
    wording = sorted(lacking[SUBJECT_WORDS:])
    if not wording:
        return units, sum(u.weight for u in units), []
    out = list(units)
    for i in wording:
        out[i] = replace(units[i], weight=units[i].weight * WORDING_SHARE)
    return out, sum(u.weight for u in out), [units[i].text for i in wording]
