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
from krouter.receipt import Receipt, Route

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

    The question's own citation stands when it cites. Otherwise the most confident phrasing that clears
    ``phrasing_floor`` answers, unless another one that clears it cites a different page. A refusal
    reports the wording that came closest, so the agent reads the most promising page.
    """
    if not phrased:
        return asked
    routes = [_route(asked.query, asked), *(_route(text, r) for text, r in phrased)]
    bar = phrasing_floor(asked.evidence.floor)
    citing = [(text, r) for text, r in phrased if r.decision == "cite" and r.evidence.confidence >= bar]
    if asked.decision == "cite" and asked.top is not None:
        other = sorted({r.top.path for _, r in citing if r.top and r.top.path != asked.top.path})
        if not other:
            return replace(asked, routes=routes)
        # The question and a confident wording of it name different pages: one of them is a neighbour.
        return replace(
            asked,
            decision="refuse",
            routes=routes,
            reason=f"the question leads to {asked.top.path} but a phrasing to {', '.join(other)}: "
            "the wordings do not agree on a page",
        )
    if citing:
        text, best = max(citing, key=lambda tr: tr[1].evidence.confidence)
        pages = {r.top.path for _, r in citing if r.top}
        if len(pages) == 1:
            return replace(best, query=asked.query, phrasing=text, routes=routes)
        disagree = ", ".join(sorted(pages))
        return replace(
            best,
            query=asked.query,
            phrasing=text,
            decision="refuse",
            routes=routes,
            reason=f"the phrasings lead to different pages ({disagree}): the question does not say which",
        )
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
