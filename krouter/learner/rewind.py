"""Undo of one write among several the learner made to a page, as if it had never been made.

A page taught Q1 then Q2 holds the bytes of Q2's write; undoing Q1 cannot put back the bytes from before
Q1 (Q2 would go too) and taking Q1's line out is not always the inverse of adding it (a scalar made a
list, a frontmatter block made for Q1). So the page is rewound: the later learner writes still on it
are reversed, newest first, each byte for byte; then Q1's; then the later triggers are written again by
the learner's own edit. The result is the page as if Q1 had never been taught, and undoing every run
gives back the original bytes. Each rewritten write's new splice is journaled (a ``rebase`` line,
``journal.journal_entries`` applies it), so that its own undo is exact too.
"""

from __future__ import annotations

import base64
import time
from dataclasses import dataclass

from krouter.learner import page_edit
from krouter.learner.journal import append_jsonl, b64, digest, journal_entries, journal_path


@dataclass(frozen=True)
class Rewound:
    """A page's bytes without one write, and the later writes made again on them (entry, before, after)."""

    data: bytes
    redone: list[tuple[dict[str, object], bytes, bytes]]


def _reversed(x: dict[str, object], state: bytes) -> bytes | None:
    """``state`` (a page holding the bytes ``x`` wrote) with ``x``'s splice put back, or None."""
    if digest(state) != x.get("after_sha256"):
        return None
    off = int(x["offset"])  # type: ignore[arg-type]
    old, new = base64.b64decode(str(x["old"])), base64.b64decode(str(x["new"]))
    back = state[:off] + old + state[off + len(new) :]
    return back if digest(back) == x.get("before_sha256") else None


def rewind(e: dict[str, object], current: bytes) -> Rewound | None:
    """``current`` without the write of entry ``e``, when the page holds nothing but learner writes since
    (each later one still as written, or reversed since); None otherwise."""
    same_page = [
        x
        for x in journal_entries()
        if x.get("vault") == e.get("vault") and x.get("page") == e.get("page") and not x.get("never_written")
    ]
    keys = [x.get("key") for x in same_page]
    if e.get("key") not in keys:
        return None
    later = same_page[keys.index(e.get("key")) + 1 :]
    state, peeled = current, []
    for x in reversed(later):
        back = _reversed(x, state)
        if back is not None:  # one that does not match was undone or taken back already
            state, peeled = back, [x, *peeled]
    before = _reversed(e, state)
    if before is None or not peeled:
        return None
    state, redone = before, []
    for x in peeled:
        try:
            again = page_edit.with_trigger(state, str(x.get("trigger", "")))
        except page_edit.PageEditError:
            return None
        redone.append((x, state, again))
        state = again
    return Rewound(state, redone)


def journal_redone(rewound: Rewound) -> None:
    """Journal the new splice of every write ``rewind`` made again (once the page holds them)."""
    for x, before, after in rewound.redone:
        sp = page_edit.splice(before, after)
        append_jsonl(
            journal_path(),
            {
                "rebase": x["key"],
                "time": time.time(),
                "offset": sp.offset,
                "old": b64(sp.old),
                "new": b64(sp.new),
                "before_sha256": digest(before),
                "after_sha256": digest(after),
            },
        )
