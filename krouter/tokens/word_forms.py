"""What an English word adds to its stem beyond an inflection: "" for format, formats, formatted; "ion"
for formation; "ment" for deployment.

The stemmer folds derivations into one stem (formation and format are "format", edition and edit are
"edit"), which is right for matching a page's words against a question's, and wrong for a dictionary's
English: 队列 ("queue; formation") and 兵团 ("formation; corps") stood first among the translations of
"format", ahead of 格式 ("format"), and 版本 ("version; edition") translated "edit" (an agent-loop run,
dev2). ``bilingual.to_chinese`` prefers the senses written in the question word's own form.
"""

from __future__ import annotations

import re

from krouter.tokens.terms import english_terms

_INFLECTION = re.compile(r"(?:'s|ies|ied|ying|ing|ed|es|s|d|e|y)$")
_LETTERS = re.compile(r"[a-z]+")


def derivation(word: str) -> str:
    """The part of ``word`` past its stem, an inflection taken off ("ions" of formations is "ion"; a
    doubled consonant before -ed or -ing is none: formatted, running)."""
    found = _LETTERS.match(word.lower())
    if found is None:
        return ""
    written = found.group()
    stems = english_terms(written)
    stem = stems[0] if stems else written
    shared = 0
    for a, b in zip(written, stem, strict=False):
        if a != b:
            break
        shared += 1
    rest = _INFLECTION.sub("", written[shared:])
    return "" if rest == written[shared - 1 : shared] else rest
