"""Words written with a hyphen (roll-out, e-mail, front-end), which notes also write closed (rollout).

Cut at the hyphen alone, "hand-off" was the word "hand" (off is a function word) and never met a page
saying "handoff", nor "e-mail" one saying "email". A page's hyphenated word is indexed whole besides its
parts, marked (``terms.index_terms``); each part of a question's hyphenated word, and each English word
of a question, also matches the pages that write it so (``routing.question``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from krouter.lazy_pattern import lazy_pattern

# Two or three runs of Latin letters joined by hyphens, not part of a longer hyphenated run: x-ray,
# follow-up, end-to-end; not 2024-11-08, not a--b, not pre-2020.
_HYPHENATED = lazy_pattern(r"(?<![\w-])[a-z]+(?:-[a-z]+){1,2}(?![\w-])")


def hyphenated(norm: str) -> list[str]:
    """The hyphenated words of a normalised text, as written, each as often as it stands."""
    return _HYPHENATED.findall(norm) if "-" in norm else []


# Marks a page's hyphenated word indexed closed (‐rollout of roll-out): a second reading of words the
# page's length already counts, kept out of it (``terms.length_of``) as amounts and identifiers are.
CLOSED = "\u2010"


def closed_terms(norm: str, term_of: Callable[[str], str | None]) -> list[str]:
    """The index term (``term_of``) of each hyphenated word of a normalised text written closed and
    marked (‐rollout of roll-out), indexed besides its parts: a question that writes it closed, or
    hyphenated, finds the page."""
    return [CLOSED + t for w in hyphenated(norm) if (t := term_of(closed(w)))]


def closed(word: str) -> str:
    """A hyphenated word written closed (roll-out: rollout)."""
    return word.replace("-", "")


def pieces(norm: str) -> Iterator[tuple[str, bool]]:
    """A normalised text cut at its hyphenated words, in order: (a hyphenated word, True) or (the text
    between two of them, False)."""
    if "-" not in norm:
        yield norm, False
        return
    at = 0
    for m in _HYPHENATED.finditer(norm):
        if m.start() > at:
            yield norm[at : m.start()], False
        yield m.group(), True
        at = m.end()
    if at < len(norm):
        yield norm[at:], False
