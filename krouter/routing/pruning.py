"""Exact top-k pruning (MaxScore) for questions over many postings: the pages that can still reach the
window of best pages the ranking walks, so that only those are scored.

A unit adds less than its weight x (K1 + 1) to any page (tf / (tf + norm) < 1), so units are taken in
decreasing weight, each with its shares on every page it holds; once what the units left can add is
under a score the window surely reaches (the bar), a page none of the units taken holds cannot reach
the window, nor can a page whose score so far plus what is left stays under the bar.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from itertools import compress, repeat
from operator import le, not_

from krouter.routing.question import Unit
from krouter.routing.tables import K1, Tables

# (page ids, the unit's share on each) in the order of its postings, as a full scoring works them out;
# None when a posting's page is not in the tables.
UnitShares = Callable[[Unit, float, Tables], tuple[Iterable[int], Sequence[float]] | None]


def reachable(units: list[Unit], t: Tables, window: int, unit_shares: UnitShares) -> set[int] | None:
    """The pages whose score can reach the ``window`` best, or None when no page can be ruled out.

    The partial scores add the same shares as a full scoring in another order, so a relative margin of
    1e-9 keeps rounding from ruling out a page that ties. The shares come from ``unit_shares`` (the
    scoring's own, kept for the generation, so the scoring of the pages left sums them without working
    them out again). A clipped page's partial score is not halved here: it can only rule out fewer
    pages, and the bar is taken over the other pages' partial scores, which are never above their
    final ones."""
    weights = [u.weight * (K1 + 1) for u in units]
    if any(w < 0 for w in weights):
        return None
    left = sum(weights)
    partial: dict[int, float] = {}
    get = partial.get
    for i in sorted(range(len(units)), key=lambda i: -weights[i]):
        if len(partial) >= window and left < max(partial.values()):
            bar = _bar(partial, window, t.inputs)
            if bar is not None and left < bar:
                # In C: the pages whose partial score is at least the bar less what is left.
                return set(compress(partial, map(le, repeat(bar - left), partial.values())))
        left -= weights[i]
        found = unit_shares(units[i], weights[i], t)
        if found is None:
            return None
        ids, shares = found
        if partial:
            for pid, share in zip(ids, shares, strict=True):
                partial[pid] = get(pid, 0.0) + share
        else:
            partial.update(zip(ids, shares, strict=True))
    return None


def _bar(partial: dict[int, float], window: int, inputs: frozenset[int]) -> float | None:
    """A score the ``window`` best pages reach for sure: the window-th best partial score of the
    pages that are not clipped (their partial scores are never above their final ones; a clipped
    page's, not yet halved, may be), less a relative margin of 1e-9 for rounding. None when fewer than
    ``window`` such pages have one."""
    scores: Iterable[float] = partial.values()
    if inputs and not inputs.isdisjoint(partial):
        scores = list(compress(scores, map(not_, map(inputs.__contains__, partial))))
        if len(scores) < window:
            return None
    return heapq.nlargest(window, scores)[-1] * (1 - 1e-9)
