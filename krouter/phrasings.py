"""Alternative phrasings of one question that an agent may pass along (a translation, a rewording).

Bounded in count and length, because every phrasing is routed (``krouter ask --also``, ``krouter_ask``)
or checked (``krouter teach``, ``krouter_teach``), and an agent's input is not trusted to be small.
"""

from __future__ import annotations

from collections.abc import Sequence

from krouter.errors import KRouterError

MAX_PHRASINGS = 4
MAX_PHRASING_CHARS = 200


class BadPhrasings(KRouterError):
    """Too many phrasings, or one that is too long or empty: a usage error, named with the bound."""


def clean_phrasings(phrasings: Sequence[str], question: str = "") -> list[str]:
    """The phrasings with whitespace collapsed, repeats (and repeats of ``question``) dropped.

    Raises BadPhrasings, naming the bound, for more than MAX_PHRASINGS, an empty phrasing, or one
    longer than MAX_PHRASING_CHARS characters.
    """
    if len(phrasings) > MAX_PHRASINGS:
        raise BadPhrasings(f"too many phrasings: {len(phrasings)} (at most {MAX_PHRASINGS})")
    seen = {" ".join(question.split()).casefold()}
    out: list[str] = []
    for n, raw in enumerate(phrasings, 1):
        text = " ".join(str(raw).split())
        if not text:
            raise BadPhrasings(f"phrasing {n} is empty")
        if len(text) > MAX_PHRASING_CHARS:
            raise BadPhrasings(
                f"phrasing {n} is too long: {len(text)} characters (at most {MAX_PHRASING_CHARS})"
            )
        if text.casefold() not in seen:
            seen.add(text.casefold())
            out.append(text)
    return out
