"""Conversation pages: who says what.

A page of dialogue turns (``**Name**: text`` lines, as LoCoMo sessions and ``krouter import``ed agent
sessions are written) holds both speakers' words in every pair of turns. A question that names one of
them ("What did Jon want his customers to feel?") is answered by that speaker's turn, not by the other
speaker saying the same words about themselves (Gina's store, not Jon's).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from krouter.routing.question import Unit
from krouter.tokens.terms import index_terms

_TURN = re.compile(r"^\s*\*\*([^*\n]{1,40}?)\*\*\s*[:：]")


def speaker(line: str) -> str | None:
    """The speaker label a turn line starts with, or None."""
    m = _TURN.match(line)
    return m.group(1).strip() if m else None


def other_speakers_words(question: str, units: Sequence[Unit], lines: Sequence[str], line: int) -> str | None:
    """The speaker the question names, when the cited turn pair's matched words are the other
    speaker's; None when the page is not a conversation, the question names none of its speakers, or
    the named speaker's turn holds the words.

    ``line`` is the cited passage's 1-based line. A conversation has at least two speakers, each with
    at least two turns: a page with a few bold labels ("**Owner**: Mara") is not one."""
    counts = Counter(s for s in map(speaker, lines) if s)
    speakers = {s for s, n in counts.items() if n >= 2}
    if len(speakers) < 2:
        return None
    named = [s for s in speakers if re.search(rf"(?<!\w){re.escape(s)}(?!\w)", question)]
    if not named or not (0 < line <= len(lines)) or speaker(lines[line - 1]) is None:
        return None
    pair = [lines[line - 1]]
    following = next((x for x in lines[line:] if x.strip()), None)
    if following is not None and speaker(following):
        pair.append(following)
    name_terms = {t for s in named for t in index_terms(s)}
    content = [u for u in units if not set(u.alts[0]) <= name_terms]

    def held(turn: str) -> int:
        terms = set(index_terms(turn))
        return sum(u.in_terms(terms) for u in content)

    theirs = max((held(x) for x in pair if speaker(x) in named), default=0)
    others = max((held(x) for x in pair if speaker(x) not in named), default=0)
    if theirs >= 1 and theirs >= others:
        return None
    return named[0]
