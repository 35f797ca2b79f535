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

# (British, American, the endings either may take, letters that must come before): the regular
# patterns that separate the two spellings. The letters before keep short words out (hour, four, your).
_PATTERNS = (
    ("our", "or", "(s|ed|ing|ful|ite|ites|able)?", 2),
    ("is", "iz", "(e|ed|es|ing|ation|ations)", 3),
    ("ys", "yz", "(e|ed|es|ing)", 2),
    ("tre", "ter", "(s)?", 2),
    ("bre", "ber", "(s)?", 2),
    ("ogue", "og", "(s)?", 3),
)
# -ence / -ense only for the four words that differ (not "fence", "sense", "dense").
_ENCE = re.compile(r"^(lic|def|off|pret)en([cs])e(s)?$")
_RULES = tuple(
    (re.compile(rf"(?<=[a-z]{{{before}}}){mine}{endings}$"), rf"{other}\1")
    for british, american, endings, before in _PATTERNS
    for mine, other in ((british, american), (american, british))
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
    for pattern, replacement in _RULES:
        other = pattern.sub(replacement, lower)
        if other != lower and other not in out:
            out.append(other)
    ence = _ENCE.match(lower)
    if ence:
        out.append(f"{ence.group(1)}en{'s' if ence.group(2) == 'c' else 'c'}e{ence.group(3) or ''}")
    return tuple(out)
