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

from krouter.lazy_pattern import lazy_pattern
from krouter.routing.question import Unit
from krouter.tokens.scripts import CJK
from krouter.tokens.stopwords import ENGLISH
from krouter.tokens.terms import index_terms

# "**Jon**: text", "**Jon:** text", and either as a list item ("- **Jon**: text").
_TURN = lazy_pattern(r"^[ \t]*(?:[-*+][ \t]+)?\*\*([^*\n]{1,40}?)(?:\*\*[ \t]*[:：]|[:：][ \t]*\*\*)", re.M)


_HAS_CJK = lazy_pattern(f"[{CJK}]")


def speaker(line: str) -> str | None:
    """The speaker label a turn line starts with, or None."""
    m = _TURN.match(line)
    return m.group(1).strip() if m else None


def _named(name: str, question: str) -> bool:
    """Whether the question names ``name``: a Chinese or Japanese name anywhere (no spaces bound it), a
    Latin one as a whole word in any case ("jon" is Jon), unless the name is also a function word."""
    if _HAS_CJK.search(name):
        return name in question
    if name.lower() in ENGLISH:
        return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", question) is not None
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", question, re.I) is not None


def named_speaker_lacks_words(question: str, units: Sequence[Unit], text: str, line: int) -> list[str] | None:
    """The speakers the question names, when the cited turn pair gives the question's other words to
    another speaker's turn rather than theirs; None when the page is not a conversation, the question
    names none of its speakers, or a named speaker's turn holds them.

    ``line`` is the cited passage's 1-based line. A conversation has at least two speakers, each with
    at least two turns: a page with a few bold labels ("**Owner**: Mara") is not one. The pair is the
    cited turn and the next one: the line cited is often the other speaker's question ("How long have
    you played the piano?") and the answer the named speaker's reply."""
    if "**" not in text:
        return None
    counts = Counter(name.strip() for name in _TURN.findall(text))
    speakers = {s for s, n in counts.items() if n >= 2}
    if len(speakers) < 2:
        return None
    named = sorted(s for s in speakers if _named(s, question))
    lines = text.splitlines()
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
    if len(pair) == 2 and speaker(pair[1]) in named and speaker(pair[0]) not in named and _asks(pair[0]):
        # The other speaker asks the named one ("What about you, what's your favorite genre?") and the
        # named speaker's reply follows: the reply answers in its own words.
        return None
    return named


def _asks(turn: str) -> bool:
    """Whether a turn asks the other speaker something: a question mark and "you" (你, 您). A question
    mark alone would also pass a speaker wondering about themselves ("Is that weird?"); D38 measured
    it: 3 more right answers, 4 more wrong citations on LoCoMo."""
    return ("?" in turn or "？" in turn) and re.search(r"(?i)\byou(r|rs|rself)?\b|你|您", turn) is not None
