"""British and American spellings of one word: "colour" / "color", "organise" / "organize", "centre" /
"center", "catalogue" / "catalog", "licence" / "license".

A person asks in the spelling they learnt, the notes are in whoever wrote them, and the stemmer keeps
the two apart ("colour", "color"). A spelling is rewritten by the regular patterns that separate the
two, in either direction; the router keeps a rewritten word only when the vault holds it, so a pattern
that also fits another word ("hour", "after") costs one look-up and finds nothing.
"""

from __future__ import annotations

import re
from functools import lru_cache

# (pattern, replacement) on a lowercase word. The lookbehinds keep short words out (hour, four, your).
_BRITISH_TO_AMERICAN = (
    (re.compile(r"(?<=[a-z]{2})our(s|ed|ing|ful|ite|ites|able)?$"), r"or\1"),
    (re.compile(r"(?<=[a-z]{3})is(e|ed|es|ing|ation|ations)$"), r"iz\1"),
    (re.compile(r"(?<=[a-z]{2})ys(e|ed|es|ing)$"), r"yz\1"),
    (re.compile(r"(?<=[a-z]{2})([tb])re(s|d)?$"), r"\1er\2"),
    (re.compile(r"(?<=[a-z]{3})ogue(s)?$"), r"og\1"),
    (re.compile(r"^(lic|def|off|pret)ence(s)?$"), r"\1ense\2"),
)
_AMERICAN_TO_BRITISH = (
    (re.compile(r"(?<=[a-z]{2})or(s|ed|ing|ful|ite|ites|able)?$"), r"our\1"),
    (re.compile(r"(?<=[a-z]{3})iz(e|ed|es|ing|ation|ations)$"), r"is\1"),
    (re.compile(r"(?<=[a-z]{2})yz(e|ed|es|ing)$"), r"ys\1"),
    (re.compile(r"(?<=[a-z]{2})([tb])er(s|ed)?$"), r"\1re\2"),
    (re.compile(r"(?<=[a-z]{3})og(s)?$"), r"ogue\1"),
    (re.compile(r"^(lic|def|off|pret)ense(s)?$"), r"\1ence\2"),
)
# Shorter words are mostly function words and everyday words spelt alike on both sides.
MIN_LETTERS = 5


@lru_cache(maxsize=4096)
def variants(word: str) -> tuple[str, ...]:
    """The word in the other spelling(s), lowercase; none for a word no pattern fits."""
    lower = word.lower()
    if len(lower) < MIN_LETTERS or not (lower.isascii() and lower.isalpha()):
        return ()
    out: list[str] = []
    for pattern, replacement in (*_BRITISH_TO_AMERICAN, *_AMERICAN_TO_BRITISH):
        other = pattern.sub(replacement, lower)
        if other != lower and other not in out:
            out.append(other)
    return tuple(out)
