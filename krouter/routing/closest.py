"""The order of a refusal's listed pages after its closest page and the runner-up its reason names.

An agent reads a refusal's first pages (``receipt.READ_CLOSEST``) before it says the notes do not cover
a question. A page that holds much of the question in one line ("寄样品:到英国和荷兰都用 DHL Express,运费我们
付" for 给英国寄样品一般走啥快递，运费谁出) can score below pages whose words are spread over a long page, and
fall out of those first pages: an agent-loop run answered "not covered" for it. Past the two pages the
reason is about, the pages are listed by their score weighted by the share of the question their best
passage (or pair of passages) holds: near ties go to the page that holds the question in one place (by
the share alone, a page scoring 13% less took the place of the right one for a hair more of it).
"""

from __future__ import annotations

from collections.abc import Callable

from krouter.routing.citation import PageReads, passage_coverage
from krouter.routing.question import Unit
from krouter.routing.receipt import Citation
from krouter.routing.scoring import Target

# The closest page and the runner-up keep their places: the refusal's reason names both.
KEPT = 2
# How many pages past those listed may take a listed place: the next ones by score.
REACH = 2


def by_passage(
    citations: list[Citation],
    pool: list[Target],
    units: list[Unit],
    reads: PageReads,
    make: Callable[[Target], Citation],
) -> list[Citation]:
    """``citations`` (of ``pool``'s first targets, in order) with the places past the first KEPT given to
    the targets of ``pool`` (the listed ones and up to REACH more) whose score times the share of the
    question their best passage holds is highest; ties keep the score order. ``make`` lists a target that
    was not listed."""
    if len(citations) <= KEPT:
        return citations
    total = sum(u.weight for u in units) or 1.0

    def held_together(x: Target) -> float:
        return max(
            passage_coverage(reads, pid, x.matched, units, _titled(units, pid), total)
            for pid in x.contributors
        )

    places = len(citations) - KEPT
    weighed = range(KEPT, min(len(pool), len(citations) + REACH))
    best = sorted(weighed, key=lambda i: -pool[i].score * held_together(pool[i]))
    return citations[:KEPT] + [citations[i] if i < len(citations) else make(pool[i]) for i in best[:places]]


def _titled(units: list[Unit], page_id: int) -> dict[int, set[int]]:
    """``passage_coverage``'s map of the units present in every passage of a page: its title's."""
    return {page_id: {i for i, u in enumerate(units) if u.postings.get(page_id, (0, 0, 0))[0]}}
