"""Scoring and top-k: BM25F over two fields, and the best current pages a question reaches.

A page's score is BM25F over its title/aliases/path/tags and triggers (weighted above the body) and its
body; a replaced page's hits count for the current page it leads to. On a large vault, only the pages
that can still reach the walked window are scored (MaxScore, `_reachable`).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import le

from krouter.routing import pruning
from krouter.routing.question import Unit
from krouter.routing.receipt import Redirect
from krouter.routing.tables import K1, Tables

W_META = 3.0
W_TRIGGER = 2.0
# Clipped and imported material (Inputs/, Clippings/, ...) is raw evidence, not the vault's own memory:
# it still answers, but a curated page that matches as well comes first.
INPUT_WEIGHT = 0.5
# A question whose units hold more postings than this (a large vault) is scored in two passes: first the
# pages that can still reach the window `top_targets` walks are found, then only those are scored (see
# `_reachable`); every other page's score is worked out if something asks for it.
PRUNE_POSTINGS = 20_000


@dataclass
class Target:
    """A live page and what the question matched on it or on replaced pages that lead to it."""

    page_id: int
    score: float
    via: int | None = None
    contributors: list[int] = field(default_factory=list)
    # Whose bitmasks say what the contributors matched (see ``matched``).
    scores: Scores | None = field(default=None, repr=False, compare=False)
    _matched: set[int] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def matched(self) -> set[int]:
        """The question units any contributor holds. Worked out when first read, once every
        contributor is known: of the ~80 pages the ranking walks, only the cited targets' are read."""
        if self._matched is None:
            mask = 0
            if self.scores is not None:
                for pid in self.contributors:
                    mask |= self.scores.mask(pid)
            self._matched = unit_bits(mask)
        return self._matched


def score(
    units: list[Unit], t: Tables, window: int | None = None
) -> tuple[Scores, Mapping[int, int], Mapping[int, int]]:
    """BM25F score and matched-unit bitmask per page; also bitmasks of the units that hit the
    title/alias/trigger field and of those that hit the page's own text (everything but triggers).

    Only the scores are summed per posting (`_accumulate`); the bitmasks are read for the ~100 pages
    the ranking walks and the few a receipt lists, so they are worked out per page when asked for.
    With ``window`` (how many best pages `top_targets` walks) and more than PRUNE_POSTINGS postings,
    only the pages that can reach that window are scored here."""
    reachable = None
    if window is not None and sum(len(u.postings) for u in units) > PRUNE_POSTINGS:
        reachable = _reachable(units, t, window)
    scores = Scores(units, t, _accumulate(units, t, reachable), complete=reachable is None)
    return scores, FieldMasks(units, scores, 1), FieldMasks(units, scores, 2)


def _accumulate(units: list[Unit], t: Tables, keep: set[int] | None = None) -> dict[int, float]:
    """The BM25F score of every page the units hold (of those in ``keep`` only, if given), in the
    order a page is first reached (the order ties rank in).

    This loop runs once per posting of every question word, so it holds one float per page and
    nothing else: a [score, mask] list per page (the previous layout) cost an allocation per page
    and, through the garbage collector those lists woke, a third of the loop; the masks are
    `Scores.mask`'s. Per page the shares are added in unit order, as `Scores._score` adds them, so a
    page scored on demand gets the same float to the bit. A clipped page's score is halved once at
    the end: halving is exact in binary floating point, so the sum of halves is the half of the sum."""
    norms = t.norm_by_id
    acc: dict[int, float] = {}
    get = acc.get
    w_meta, w_trigger = W_META, W_TRIGGER  # locals: read once per posting
    kept = t.shares
    for u in units:
        w = u.weight * (K1 + 1)
        postings = u.postings
        key = (u.alts, w)
        found = kept.get(key)
        if found is not None:
            # Shares worked out by an earlier lookup of this generation (or by `_reachable`): the same
            # floats, summed in the same order, paired with the postings' own page ids (kept in their
            # order): ints that exist, where kept ids made one per posting (~20 % of a pruned sum).
            if keep is not None:
                pairs = zip(postings, found, strict=True)
                for pid, share in compress(pairs, map(keep.__contains__, postings)):
                    acc[pid] = get(pid, 0.0) + share
            elif acc:
                for pid, share in zip(postings, found, strict=True):
                    acc[pid] = get(pid, 0.0) + share
            else:
                acc.update(zip(postings, found, strict=True))
            continue
        if keep is None:
            shares = _shares(postings, w, norms)
            if shares is not None:
                # Every posting's page is known (the usual case): sum them; the first unit's shares
                # are the scores themselves (0.0 + share is the share), written in C.
                if acc:
                    for pid, share in zip(postings, shares, strict=True):
                        acc[pid] = get(pid, 0.0) + share
                else:
                    acc.update(zip(postings, shares, strict=True))
                kept.keep(key, shares)
                continue
        # Pruned: the reachable pages only, in the order of the postings (or, unpruned, a unit holding
        # a page the tables do not know, which `_shares` leaves to this loop to skip).
        items = postings.items() if keep is None else _items(postings, keep)
        for pid, (meta_tf, trig_tf, body_tf) in items:
            # A share is never negative (weights are log(1 + x) with x > 0), so 0.0 + share is the
            # share itself, bit for bit.
            try:
                norm = norms[pid]
            except IndexError:  # a page the tables do not know (cannot happen within one snapshot)
                continue
            if norm is None:  # likewise
                continue
            if meta_tf or trig_tf:
                tf = w_meta * meta_tf + w_trigger * trig_tf + body_tf
                share = w * tf / (tf + norm)
            else:
                # Most postings are body-only: 0.0 + body_tf is body_tf, so skipping the sum changes
                # no score by a bit.
                share = w * body_tf / (body_tf + norm)
            acc[pid] = get(pid, 0.0) + share
    if t.inputs:
        for pid in acc.keys() & t.inputs:
            acc[pid] *= INPUT_WEIGHT
    return acc


def _shares(postings: dict[int, tuple], w: float, norms: list[float | None]) -> list[float] | None:
    """A unit's share per posting, in the postings' order, worked out as `_accumulate`'s loop works it
    out (the same expressions, so the same floats); None when a posting's page is not in the tables
    (the loop then skips it). A comprehension appends in one opcode and runs no branch but the field
    test: ~12 % faster than the loop that also sums, which then runs over (page, share) pairs."""
    w_meta, w_trigger = W_META, W_TRIGGER
    try:
        return [
            w * body_tf / (body_tf + norms[pid])
            if not (meta_tf or trig_tf)
            else w * (tf := w_meta * meta_tf + w_trigger * trig_tf + body_tf) / (tf + norms[pid])
            for pid, (meta_tf, trig_tf, body_tf) in postings.items()
        ]
    except (IndexError, TypeError):  # a page id past the table, or one with no length term (None)
        return None


# Per target the walk reaches: (its score, the replaced page first leading to it, its contributors).
_Found = dict[int, tuple[float, int | None, list[int]]]


def top_targets(scores: Scores, k: int, t: Tables) -> tuple[dict[int, Target], list[Redirect], list[str]]:
    """The best k+1 distinct current pages, each scored by its best contributor (itself or a
    replaced page leading to it), with what all its contributors matched; more when pages tie with the
    (k+1)-th best, which the caller orders (by path).

    Only the highest-scoring pages are walked: a target's score is its best contributor's, so once
    k+1 targets score strictly above every page left unwalked, nothing further down can outrank
    them or tie them. When replaced pages or ties crowd that window, every page is walked once
    (scored first, if ``scores`` holds only the pages that could reach the window). Redirects: every
    walked page's, and those of the returned targets' weaker contributors."""
    want = k + 1
    acc = scores.acc
    best = _best(acc, walk_window(k))
    found, redirects, skipped = _walk(best, acc, t)
    ranked = sorted((x[0] for x in found.values()), reverse=True)
    settled = len(ranked) >= want and ranked[want - 1] > acc[best[-1]]
    if (len(best) < len(acc) or not scores.complete) and not settled:
        scores.fill()
        acc = scores.acc
        best = sorted(acc, key=acc.__getitem__, reverse=True)
        found, redirects, skipped = _walk(best, acc, t)
        ranked = sorted((x[0] for x in found.values()), reverse=True)
    # The walk reaches ~80 targets; the caller reads the best k+1 (its ranking and runner-up), so only
    # those, and any that tie the last of them, are made into targets: a target further down can take no
    # place among them, and its weaker contributors' redirects lead to no page the receipt lists.
    bar = ranked[want - 1] if len(ranked) >= want else None
    seen = set(best)
    targets: dict[int, Target] = {}
    for target_id, (score, via, contributors) in found.items():
        if bar is not None and score < bar:
            continue
        # Weaker contributors below the walked pages still add what they matched.
        for pid in (target_id, *t.predecessors.get(target_id, ())):
            if pid not in seen and pid in scores:
                _target_of(pid, t, redirects, skipped)
                contributors.append(pid)
        targets[target_id] = Target(target_id, score, via=via, contributors=contributors, scores=scores)
    return targets, redirects, skipped


def _best(acc: dict[int, float], n: int) -> list[int]:
    """The ``n`` best-scoring pages, best first; pages that tie keep the order they were first reached
    in: ``heapq.nlargest(n, acc, key=acc.__getitem__)``, which is ``sorted(acc, key=acc.__getitem__,
    reverse=True)[:n]``. The n-th best score is found over the bare floats (no key call per page), the
    pages scoring at least that much are picked in C, and only those are sorted (stable)."""
    if len(acc) <= n:
        return sorted(acc, key=acc.__getitem__, reverse=True)
    scores = acc.values()
    bar = heapq.nlargest(n, scores)[-1]
    return sorted(compress(acc, map(le, repeat(bar), scores)), key=acc.__getitem__, reverse=True)[:n]


def _walk(pages: list[int], acc: dict[int, float], t: Tables) -> tuple[_Found, list[Redirect], list[str]]:
    """Map pages, best first, to the current pages they lead to (targets in the order first reached)."""
    found: _Found = {}
    redirects: list[Redirect] = []
    skipped: list[str] = []
    for pid in pages:
        target_id = _target_of(pid, t, redirects, skipped)
        if target_id is None:
            continue
        entry = found.get(target_id)
        if entry is None:
            found[target_id] = (acc[pid], pid if pid != target_id else None, [pid])
        else:
            entry[2].append(pid)
    return found, redirects, skipped


def _target_of(pid: int, t: Tables, redirects: list[Redirect], skipped: list[str]) -> int | None:
    """The current page a hit on ``pid`` leads to (itself, unless replaced); None for a dead end."""
    red = t.redirect.get(pid)
    if red is None:
        return pid
    redirects.append(red)
    if red.to_path is None or red.to_path not in t.by_path:
        skipped.append(red.from_path)
        return None
    return t.by_path[red.to_path]


def walk_window(k: int) -> int:
    """How many of the best-scoring pages `top_targets` walks first for the top k."""
    return 32 + 8 * (k + 1)


def _items(postings: dict[int, tuple], keep: set[int]) -> Iterator[tuple[int, tuple]]:
    """The postings of the pages in ``keep``, in the postings' order, picked in C (a generator looking
    each one up again cost a resumption and a lookup per kept posting: ~10,000 a unit at 100k pages)."""
    return compress(postings.items(), map(keep.__contains__, postings))


def _reachable(units: list[Unit], t: Tables, window: int) -> set[int] | None:
    """The pages whose score can reach the ``window`` best, or None when no page can be ruled out
    (MaxScore: `krouter.routing.pruning.reachable`, with the units' shares as a full scoring gets them)."""
    return pruning.reachable(units, t, window, _unit_shares, Scores(units, t, {}, complete=False)._score)


def _unit_shares(u: Unit, w: float, t: Tables) -> tuple[Iterable[int], Sequence[float]] | None:
    """(page ids, the unit's share on each) in the order of its postings, as `_accumulate` works them
    out: kept from an earlier lookup of this generation, or worked out and kept now. None when a
    posting's page is not in the tables."""
    key = (u.alts, w)
    found = t.shares.get(key)
    if found is not None:
        return u.postings, found  # the postings' own page ids, as in `_accumulate`
    shares = _shares(u.postings, w, t.norm_by_id)
    if shares is None:
        return None
    t.shares.keep(key, shares)
    return u.postings, shares


class Scores(Mapping[int, tuple[float, int]]):
    """(score, matched-unit bitmask) per page: the scores `_accumulate` summed, the bitmasks worked out
    per page when asked for. Not ``complete`` (pruned by `_reachable`), it holds only the pages that can
    reach the window `top_targets` walks; any other page is scored when asked for (``in``, ``[]``), and
    ``fill()`` scores them all, in the same order a full scoring reaches them."""

    def __init__(self, units: list[Unit], t: Tables, acc: dict[int, float], *, complete: bool) -> None:
        self.units = units
        self.tables = t
        # Score per page, in the order pages were first reached (the order ties rank in).
        self.acc = acc
        self.complete = complete
        # Scores of pages outside a pruned ``acc``, worked out when asked for; kept apart from ``acc``
        # so that asking does not change what the ranking walks.
        self._extra: dict[int, float] = {}
        self._masks: dict[int, int] = {}

    def _score(self, pid: int) -> float | None:
        """The page's score, summed as `_accumulate` sums it (None: no unit holds the page)."""
        found = self.acc.get(pid)
        if found is not None or self.complete:
            return found
        if pid in self._extra:
            return self._extra[pid]
        norm = self.tables.length_norm.get(pid)
        if norm is None:
            return None
        total = None
        for u in self.units:
            tfs = u.postings.get(pid)
            if tfs is None:
                continue
            meta_tf, trig_tf, body_tf = tfs
            tf = W_META * meta_tf + W_TRIGGER * trig_tf + body_tf if meta_tf or trig_tf else body_tf
            share = u.weight * (K1 + 1) * tf / (tf + norm)
            total = share if total is None else total + share
        if total is not None and pid in self.tables.inputs:
            total *= INPUT_WEIGHT
        if total is not None:
            self._extra[pid] = total
        return total

    def mask(self, pid: int) -> int:
        """The bitmask of the units holding a scored page (a page is scored once a unit holds it)."""
        mask = self._masks.get(pid)
        if mask is None:
            mask = 0
            for i, u in enumerate(self.units):
                if pid in u.postings:
                    mask |= 1 << i
            self._masks[pid] = mask
        return mask

    def __getitem__(self, pid: int) -> tuple[float, int]:
        found = self._score(pid)
        if found is None:
            raise KeyError(pid)
        return found, self.mask(pid)

    def __contains__(self, pid: object) -> bool:
        return isinstance(pid, int) and self._score(pid) is not None

    def __iter__(self) -> Iterator[int]:
        return iter(self.acc)

    def __len__(self) -> int:
        return len(self.acc)

    def fill(self) -> None:
        """Score every page the units hold, as a full scoring would have (same order, same floats)."""
        if self.complete:
            return
        self.acc = _accumulate(self.units, self.tables)
        self._extra.clear()
        self.complete = True


class FieldMasks(Mapping[int, int]):
    """Per scored page, the bitmask of the units whose postings have a non-zero tf in the title/alias
    field or in the given one (1 trigger, 2 body); a page with no such unit is absent. Worked out per
    page when asked for, once (``in`` and ``[]`` both ask)."""

    def __init__(self, units: list[Unit], scores: Scores, field: int) -> None:
        self._units = units
        self._scores = scores
        self._field = field
        self._masks: dict[int, int] = {}

    def _mask(self, pid: int) -> int:
        mask = self._masks.get(pid)
        if mask is not None:
            return mask
        mask = 0
        if pid in self._scores:
            f = self._field
            for i, u in enumerate(self._units):
                tfs = u.postings.get(pid)
                if tfs is not None and (tfs[0] or tfs[f]):
                    mask |= 1 << i
        self._masks[pid] = mask
        return mask

    def __getitem__(self, pid: int) -> int:
        mask = self._mask(pid)
        if not mask:
            raise KeyError(pid)
        return mask

    def __contains__(self, pid: object) -> bool:
        return isinstance(pid, int) and self._mask(pid) != 0

    def __iter__(self) -> Iterator[int]:
        return (pid for pid in self._scores if self._mask(pid))

    def __len__(self) -> int:
        return sum(1 for _ in self)


def unit_bits(mask: int) -> set[int]:
    """The unit indexes set in a bitmask."""
    return {i for i in range(mask.bit_length()) if mask >> i & 1}
