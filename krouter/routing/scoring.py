"""Scoring and top-k: BM25F over two fields, and the best current pages a question reaches.

A page's score is BM25F over its title/aliases/path/tags and triggers (weighted above the body) and its
body; a replaced page's hits count for the current page it leads to. On a large vault, only the pages
that can still reach the walked window are scored (MaxScore, `_reachable`).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

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
    matched: set[int] = field(default_factory=set)
    via: int | None = None
    contributors: list[int] = field(default_factory=list)


def score(
    units: list[Unit], t: Tables, window: int | None = None
) -> tuple[Scores, Mapping[int, int], Mapping[int, int]]:
    """BM25F score and matched-unit bitmask per page; also bitmasks of the units that hit the
    title/alias/trigger field and of those that hit the page's own text (everything but triggers).

    This loop runs once per posting of every question word, so it is kept to plain arithmetic and
    integer bitmasks (sets per page cost a third of a lookup at 10k pages). The field masks are
    read for the few pages a receipt lists only, so they are worked out per page when asked for
    (kept per posting, they cost a third of this loop); clipped pages are looked for only in a
    vault that has some. With ``window`` (how many best pages `top_targets` walks) and more than
    PRUNE_POSTINGS postings, only the pages that can reach that window are scored here."""
    reachable = None
    if window is not None and sum(len(u.postings) for u in units) > PRUNE_POSTINGS:
        reachable = _reachable(units, t, window)
    scores = Scores(units, t, complete=reachable is None)
    norms = t.length_norm
    inputs = t.inputs
    get = scores.get
    w_meta, w_trigger = W_META, W_TRIGGER  # locals: read once per posting
    for i, u in enumerate(units):
        bit = 1 << i
        w = u.weight * (K1 + 1)
        postings = u.postings
        # Pruned: the reachable pages only, in the order of the postings (the order ties rank in).
        items = postings.items() if reachable is None else _items(postings, reachable)
        for pid, (meta_tf, trig_tf, body_tf) in items:
            try:
                norm = norms[pid]
            except KeyError:  # a page the tables do not know (cannot happen within one snapshot)
                continue
            # Most postings are body-only: 0.0 + body_tf is body_tf, so skipping the sum changes
            # no score by a bit.
            tf = w_meta * meta_tf + w_trigger * trig_tf + body_tf if meta_tf or trig_tf else body_tf
            s = w * tf / (tf + norm)
            if inputs and pid in inputs:
                s *= INPUT_WEIGHT
            entry = get(pid)
            if entry is None:
                scores[pid] = [s, bit]
            else:
                entry[0] += s
                entry[1] |= bit
    return scores, FieldMasks(units, scores, (0, 1)), FieldMasks(units, scores, (0, 2))


def top_targets(scores: Scores, k: int, t: Tables) -> tuple[dict[int, Target], list[Redirect], list[str]]:
    """The best k+1 distinct current pages, each scored by its best contributor (itself or a
    replaced page leading to it), with what all its contributors matched.

    Only the highest-scoring pages are walked: a target's score is its best contributor's, so once
    k+1 targets score strictly above every page left unwalked, nothing further down can outrank
    them or tie them. When replaced pages or ties crowd that window, every page is walked once
    (scored first, if ``scores`` holds only the pages that could reach the window)."""
    want = k + 1
    best = heapq.nlargest(walk_window(k), scores.items(), key=lambda kv: kv[1][0])
    targets, redirects, skipped = _walk(best, t)
    ranked = sorted((x.score for x in targets.values()), reverse=True)
    settled = len(ranked) >= want and ranked[want - 1] > best[-1][1][0]
    if (len(best) < len(scores) or not scores.complete) and not settled:
        scores.fill()
        best = sorted(scores.items(), key=lambda kv: -kv[1][0])
        targets, redirects, skipped = _walk(best, t)
    seen = {pid for pid, _ in best}
    for tgt in targets.values():
        # Weaker contributors below the walked pages still add what they matched.
        for pid in (tgt.page_id, *t.predecessors.get(tgt.page_id, ())):
            if pid not in seen and pid in scores:
                _target_of(pid, t, redirects, skipped)
                tgt.matched |= unit_bits(scores[pid][1])
                tgt.contributors.append(pid)
    return targets, redirects, skipped


def _walk(pages: list[tuple[int, list]], t: Tables) -> tuple[dict[int, Target], list[Redirect], list[str]]:
    """Map pages, best first, to the current pages they lead to."""
    targets: dict[int, Target] = {}
    redirects: list[Redirect] = []
    skipped: list[str] = []
    for pid, (score, mask) in pages:
        target_id = _target_of(pid, t, redirects, skipped)
        if target_id is None:
            continue
        tgt = targets.get(target_id)
        if tgt is None:
            tgt = targets[target_id] = Target(target_id, score, via=pid if pid != target_id else None)
        tgt.matched |= unit_bits(mask)
        tgt.contributors.append(pid)
    return targets, redirects, skipped


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
    """The postings of the pages in ``keep``, in the postings' order (the filter runs in C)."""
    return ((pid, postings[pid]) for pid in filter(keep.__contains__, postings))


def _contribution(u: Unit, i: int, pid: int, t: Tables, entry: list | None) -> list | None:
    """Add unit ``i``'s share of page ``pid``'s score to ``entry`` exactly as `score` does."""
    tfs = u.postings.get(pid)
    if tfs is None:
        return entry
    meta_tf, trig_tf, body_tf = tfs
    tf = W_META * meta_tf + W_TRIGGER * trig_tf + body_tf if meta_tf or trig_tf else body_tf
    s = u.weight * (K1 + 1) * tf / (tf + t.length_norm[pid])
    if t.inputs and pid in t.inputs:
        s *= INPUT_WEIGHT
    if entry is None:
        return [s, 1 << i]
    entry[0] += s
    entry[1] |= 1 << i
    return entry


def _reachable(units: list[Unit], t: Tables, window: int) -> set[int] | None:
    """The pages whose score can reach the ``window`` best (MaxScore), or None when no page can be
    ruled out. A unit adds less than its weight x (K1 + 1) to any page (tf / (tf + norm) < 1), so units
    are taken in decreasing weight: once the bound of the units left is under the window-th best score
    so far, a page none of the units taken holds cannot reach the window, nor can a page whose score so
    far plus that bound stays under it. Those partial scores add the same shares in another order, so
    a relative margin of 1e-9 keeps rounding from ruling out a page that ties."""
    weights = [u.weight * (K1 + 1) for u in units]
    if any(w < 0 for w in weights):
        return None
    norms = t.length_norm
    inputs = t.inputs
    left = sum(weights)
    partial: dict[int, float] = {}
    get = partial.get
    for i in sorted(range(len(units)), key=lambda i: -weights[i]):
        if len(partial) >= window and left < max(partial.values()):
            bar = heapq.nlargest(window, partial.values())[-1] * (1 - 1e-9)
            if left < bar:
                return {pid for pid, score in partial.items() if score >= bar - left}
        left -= weights[i]
        w = weights[i]
        for pid, (meta_tf, trig_tf, body_tf) in units[i].postings.items():
            norm = norms.get(pid)
            if norm is None:
                continue
            tf = W_META * meta_tf + W_TRIGGER * trig_tf + body_tf if meta_tf or trig_tf else body_tf
            s = w * tf / (tf + norm)
            if inputs and pid in inputs:
                s *= INPUT_WEIGHT
            partial[pid] = get(pid, 0.0) + s
    return None


class Scores(dict[int, list]):
    """[score, matched-unit bitmask] per page. Not ``complete`` (pruned by `_reachable`), it holds only
    the pages that can reach the window `top_targets` walks; any other page is scored when asked
    for (``in``, ``[]``), and ``fill()`` scores them all, in the same order a full scoring inserts them."""

    def __init__(self, units: list[Unit], t: Tables, *, complete: bool) -> None:
        super().__init__()
        self.units = units
        self.tables = t
        self.complete = complete

    def _entry(self, pid: int) -> list | None:
        if pid not in self.tables.length_norm:
            return None
        entry = None
        for i, u in enumerate(self.units):
            entry = _contribution(u, i, pid, self.tables, entry)
        return entry

    def __missing__(self, pid: int) -> list:
        entry = None if self.complete else self._entry(pid)
        if entry is None:
            raise KeyError(pid)
        return entry

    def __contains__(self, pid: object) -> bool:
        if dict.__contains__(self, pid):
            return True
        return not self.complete and isinstance(pid, int) and self._entry(pid) is not None

    def fill(self) -> None:
        """Score every page the units hold, as a full scoring would have (same order, same floats)."""
        if self.complete:
            return
        full: dict[int, list] = {}
        for i, u in enumerate(self.units):
            for pid in u.postings:
                if pid in self.tables.length_norm:
                    full[pid] = _contribution(u, i, pid, self.tables, full.get(pid)) or []
        self.clear()
        self.update(full)
        self.complete = True


class FieldMasks(Mapping[int, int]):
    """Per scored page, the bitmask of the units whose postings have a non-zero tf in one of the given
    fields (0 title/alias, 1 trigger, 2 body); a page with no such unit is absent."""

    def __init__(self, units: list[Unit], scores: Scores, fields: tuple[int, ...]) -> None:
        self._units = units
        self._scores = scores
        self._fields = fields

    def _mask(self, pid: int) -> int:
        mask = 0
        if pid in self._scores:
            for i, u in enumerate(self._units):
                tfs = u.postings.get(pid)
                if tfs is not None and any(tfs[f] for f in self._fields):
                    mask |= 1 << i
        return mask

    def __getitem__(self, pid: int) -> int:
        mask = self._mask(pid)
        if not mask:
            raise KeyError(pid)
        return mask

    def __iter__(self) -> Iterator[int]:
        return (pid for pid in self._scores if self._mask(pid))

    def __len__(self) -> int:
        return sum(1 for _ in self)


def unit_bits(mask: int) -> set[int]:
    """The unit indexes set in a bitmask."""
    out = set()
    i = 0
    while mask:
        if mask & 1:
            out.add(i)
        mask >>= 1
        i += 1
    return out
