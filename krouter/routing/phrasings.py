"""Combine the lookups of one question asked in several wordings into one decision.

An agent can supply phrasings of its question (a translation into the notes' language, a rewording).
Each wording is looked up on its own; this module decides which lookup answers. Every extra wording is
one more chance for a neighbour page to clear the floor, so a phrasing must clear a stricter bar
(``phrasing_floor``: halfway from the floor to certainty), and its citation stands only when no other
wording that clears it cites a different page: wordings that disagree are a refusal, not a vote.
Measured on the dev sets (docs/decisions.md D23): with the question's own floor for phrasings, neighbours
refused fell from 82 to 73 of 90; at the stricter bar it stays at 82 while answerable right rises from 90
to 114 of 180.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from krouter.errors import KRouterError
from krouter.routing.receipt import Receipt, Route

# An agent pays for every wording it sends and every one is a lookup: a few suffice (a translation and a
# rewording), and a bound keeps a runaway caller from turning one question into hundreds of lookups.
MAX_PHRASINGS = 4
MAX_PHRASING_CHARS = 500


class BadPhrasings(KRouterError):
    """Phrasings over the count or length bound."""


def check(phrasings: Sequence[str]) -> list[str]:
    """The phrasings worth looking up (blank ones and repeats dropped), or BadPhrasings over a bound."""
    if isinstance(phrasings, str):
        raise BadPhrasings("phrasings must be a list of strings, not one string")
    out: list[str] = []
    for p in phrasings:
        text = p.strip()
        if len(text) > MAX_PHRASING_CHARS:
            raise BadPhrasings(f"a phrasing is {len(text)} characters long; at most {MAX_PHRASING_CHARS}")
        if text and text not in out:
            out.append(text)
    if len(out) > MAX_PHRASINGS:
        raise BadPhrasings(f"{len(out)} phrasings given; at most {MAX_PHRASINGS}")
    return out


def phrasing_floor(floor: float) -> float:
    """The confidence a phrasing's lookup needs to answer for the question: halfway from floor to 1."""
    return (1 + floor) / 2


def combine(asked: Receipt, phrased: Sequence[tuple[str, Receipt]]) -> Receipt:
    """One receipt for the question from its own lookup and its phrasings' lookups.

    The question's own citation stands when it cites; otherwise the most confident phrasing that clears
    ``phrasing_floor`` answers. Either way, a wording that clears it on a different page makes the
    answer a refusal. A refusal reports the wording that came closest, so the agent reads the most
    promising page.
    """
    if not phrased:
        return asked
    routes = [_route(asked.query, asked), *(_route(text, r) for text, r in phrased)]
    bar = phrasing_floor(asked.evidence.floor)
    # The citing wordings: the question itself whenever it cites, a phrasing only above the bar.
    citing: list[tuple[str | None, Receipt]] = [
        (text, r) for text, r in phrased if r.decision == "cite" and r.evidence.confidence >= bar
    ]
    if asked.decision == "cite":
        citing.insert(0, (None, asked))
    if citing:
        # The question's own citation comes first; among phrasings, the most confident.
        text, best = (
            citing[0] if citing[0][0] is None else max(citing, key=lambda tr: tr[1].evidence.confidence)
        )
        pages = sorted({r.top.path for _, r in citing if r.top})
        chosen = replace(best, query=asked.query, phrasing=text, routes=routes)
        if len(pages) > 1:
            # Two wordings of one question name different pages: one of them is a neighbour.
            chosen.decision = "refuse"
            chosen.reason = (
                f"the wordings lead to different pages ({', '.join(pages)}): they do not agree on a page"
            )
        return chosen
    text, closest = max([(None, asked), *phrased], key=lambda tr: (tr[1].evidence.confidence, tr[0] is None))
    if text is None:
        return replace(asked, routes=routes)
    refused = replace(closest, query=asked.query, phrasing=text, routes=routes, decision="refuse")
    if closest.decision == "cite" and closest.closest is not None:
        refused.reason = (
            f"the phrasing {text!r} reaches {closest.evidence.confidence:.0%} on {closest.closest.path}"
            f" (a phrasing needs {bar:.0%}) and the question itself {asked.evidence.confidence:.0%}"
        )
    return refused


def _route(text: str, receipt: Receipt) -> Route:
    closest = receipt.closest
    return Route(
        text=text,
        decision=receipt.decision,
        top=closest.path if closest else None,
        confidence=receipt.evidence.confidence,
    )
