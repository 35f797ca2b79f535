"""What an English word adds to its stem beyond an inflection: "" for format, formats and formatted;
"ion" for formation and formations; "er" for customers.

The stemmer folds derivations into one stem (formation and format are "format", edition and edit are
"edit", customer is "custom"), which is right for matching a page's words against a question's, and
wrong for a dictionary's English: 队列 ("queue; formation") and 兵团 ("formation; corps") stood first
among the translations of "format", ahead of 格式 ("format"), and 版本 ("version; edition") translated
"edit" (an agent-loop run, dev2). ``bilingual.to_chinese`` reads the senses in the question word's own
form first.
"""

from __future__ import annotations

from krouter.lazy_pattern import lazy_pattern
from krouter.tokens.spelling import canonical
from krouter.tokens.terms import english_terms

_LETTERS = lazy_pattern(r"[a-z]+")
# A plural or third person (policies, processes, formats; not "business"), then a past tense (copied,
# formatted): inflections, which the dictionary's senses write in the base form as often as not. Not
# -ing (stockings are no stock, settings no set) nor -ly (timely is not time, hardly not hard): both
# make words of their own as often.
_PLURAL = lazy_pattern(r"(?:(?<=[sxz])es|(?<=[cs]h)es|(?<!s)s)$")
_PAST = lazy_pattern(r"(?:ied|ed)$")
_DOUBLED = lazy_pattern(r"([bdfgklmnprtvz])\1$")


def derivation(word: str) -> str:
    """The part of ``word`` past its stem once its inflections are off (formations: "ion"; formats,
    formatted, copies, installed: ""; timely: "l"), read in its American spelling (centre as center)."""
    found = _LETTERS.match(word.lower())
    if found is None:
        return ""
    written = canonical(found.group())
    stems = english_terms(written)
    stem = stems[0] if stems else written
    if written.endswith("ies") and len(written) > 4:
        written = written[:-3] + "y"
    elif len(written) > 3:
        written = _PLURAL.sub("", written)
    if len(written) > 3 and _PAST.search(written):
        written = _DOUBLED.sub(r"\1", _PAST.sub("", written))
    shared = 0
    for a, b in zip(written, stem, strict=False):
        if a != b:
            break
        shared += 1
    # What the stemmer writes another way at the end (configur of configure, polici of policy, instal of
    # install: a doubled letter).
    rest = written[shared:].rstrip("ey")
    return "" if rest == written[shared - 1 : shared] else rest
