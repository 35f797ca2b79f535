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

from krouter.routing.citation import PageReads, citation, passage_coverage, title_units
from krouter.routing.question import Unit
from krouter.routing.receipt import Citation
from krouter.routing.scoring import Scores, Target
from krouter.routing.tables import Tables

# The closest page and the runner-up keep their places: the refusal's reason names both.
KEPT = 2
# How many pages past those listed may take a listed place: the next ones by score.
REACH = 2


def by_passage(
    citations: list[Citation],
    ranked: list[Target],
    units: list[Unit],
    reads: PageReads,
    meta_hits: dict[int, set[int]],
    t: Tables,
) -> list[Citation]:
    """``citations`` (of ``ranked``'s first targets, in order) with the places past the first KEPT given
    to the targets among them and the next REACH whose score times the share of the question their best
    passage holds is highest; ties keep the score order. A target not listed before is listed as
    ``citation`` lists one, its passage worked out when read (``meta_hits`` holds its title's units)."""
    if len(citations) <= KEPT:
        return citations
    pool = ranked[: len(citations) + REACH]
    total = sum(u.weight for u in units) or 1.0

    def held_together(x: Target) -> float:
        return max(
            passage_coverage(reads, pid, x.matched, units, {pid: title_units(units, pid)}, total)
            for pid in x.contributors
        )

    worth = {i: pool[i].score * held_together(pool[i]) for i in range(KEPT, len(citations))}
    for i in range(len(citations), min(len(pool), len(citations) + REACH)):
        # One passage holds no more of the question than the whole page matched: a page whose score
        # times that share is no more than the weakest listed one's worth cannot take its place, and
        # its passages are not read (a page of 60,000 passages is a second's work).
        matched = sum(units[u].weight for u in pool[i].matched) / total
        if pool[i].score * matched > min(worth.values()):
            worth[i] = pool[i].score * held_together(pool[i])
    best = sorted(worth, key=lambda i: -worth[i])[: len(citations) - KEPT]
    listed = [
        citations[i] if i < len(citations) else citation(pool[i], units, meta_hits, t, reads, now=False)
        for i in best
    ]
    return citations[:KEPT] + listed


def named_second(
    citations: list[Citation],
    path: str,
    everything: list[Target],
    scores: Scores,
    units: list[Unit],
    meta_hits: dict[int, set[int]],
    t: Tables,
    reads: PageReads,
) -> list[Citation]:
    """``citations`` with the page at ``path``, which a refusal's reason names, second: an agent reads
    the list for the pages a reason names (D131), at k = 1 too, and the places past the second are
    given by passage (``by_passage``)."""
    named = [c for c in citations if c.path == path]
    if not named:
        x = next((x for x in everything if t.pages[x.page_id].path == path), None)
        if x is None and (pid := t.by_path.get(path)) is not None and pid in scores:
            # Past the pages ranked (k = 1: the best two), scored as the ranking scores a page.
            x = Target(pid, scores[pid][0], contributors=[pid], scores=scores)
        if x is None:
            return citations
        named = [citation(x, units, meta_hits, t, reads, now=False)]
    return [citations[0], named[0], *(c for c in citations[1:] if c.path != path)]
