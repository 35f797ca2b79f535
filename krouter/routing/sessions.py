"""Imported agent sessions: a question the user asked there is not an answer to it.

`krouter import` writes one page per agent session: its title is the user's first question, and its
body the turns, ``**User**: ...`` and ``**Assistant**: ...``. Asked again, that question matched the
page by every word of it (title and turn), at full confidence, also when the reply was "I could not
find it" (a cold review). On such a page the answer is in the assistant's turns: when none of them
holds a word of the question (nor of its phrasings), the page only shows the question was asked before;
when one does, the line a citation shows is in that reply (``in_replies``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from krouter.errors import KRouterError
from krouter.lazy_pattern import lazy_pattern
from krouter.routing.answering_line import HeldPassage, on_line
from krouter.routing.receipt import Receipt
from krouter.routing.tables import Tables
from krouter.tokens.chinese import holds_word
from krouter.tokens.terms import AMOUNT, index_terms, query_terms, word_text
from krouter.vault.page import parse_page
from krouter.vault.page_lines import body_start, file_lines

# What `krouter import` writes in a session page's ``format`` field (agents/sessions/transcripts.py).
_FORMATS = frozenset({"claude-code", "codex", "jsonl"})
_TURN = lazy_pattern(r"^\*\*(User|Assistant)\*\*: ?", re.M)
# What import writes for a tool call or a shell command (agents/sessions/transcripts.py): the agent's
# search, not its reply.
_TOOL_LINE = lazy_pattern(r"\((?:tool|shell): [^\n]*\)")
# A reply's clauses: sentences, and the halves of one that turns on "but" ("I couldn't find a flag for
# it, but the timeout is hard-coded to 5 s": the second half answers).
_CLAUSE = lazy_pattern(r"(?<=[.!?;])\s+|[。！？；\n]|,?\s+(?:but|however|though)\b,?|但是|不过|可是")
# A clause that reports finding nothing: "I could not find the search API timeout" repeats the words it
# looked for, and answers nothing. The ways a reply says so, in English and Chinese: a closed class.
_FOUND_NOTHING = lazy_pattern(
    r"\b(?:could(?:n't| not)|can(?:'t|not)|did(?:n't| not)|was(?:n't| not) able to|unable to|"
    r"fail(?:ed)? to)\s+(?:find|locate|spot|see)\b"
    r"|\bno (?:mention|trace|references?)\b"
    r"|(?:^|\b(?:found|find|get|got|returned|there (?:is|are|was|were)) )no (?:results?|records?|information|info)\b"
    r"|\b(?:is|are|was|were|isn't|aren't|wasn't|weren't)\s+(?:not\s+)?(?:mentioned|documented|specified|"
    r"defined|recorded) (?:anywhere|nowhere)\b|\bnot (?:mentioned|documented|specified|defined|recorded)\b"
    r"|\b(?:does|do|did)(?:n't| not) (?:mention|say|specify|state|document)\b"
    r"|\bnothing (?:about|on|turned up|came up|was found)\b|\bi (?:don't|do not) know\b|\bnot sure\b"
    r"|没(?:有|能)?(?:找到|查到|提到|提及)|找不到|查不到|未(?:找到|查到|提及|提到)|不知道|不确定"
    r"|没有(?:相关|任何)?(?:的)?(?:信息|资料|记录|说明)"
)


def not_only_asked(
    wordings: Sequence[str], chosen: Receipt, tables: Tables, read: Callable[[str], str]
) -> Receipt:
    """``chosen``, or its citation refused when it cites an imported agent session (a clipping) whose
    replies hold no content word of any of ``wordings`` (the question and its phrasings): the words it
    matched are the user's own asking (``replied_terms``). Other citations are left as they are, unread."""
    top = chosen.top
    if chosen.decision != "cite" or top is None or tables.by_path.get(top.path) not in tables.inputs:
        return chosen
    try:
        held = replied_terms(top.path, read)
    except (KRouterError, OSError):
        return chosen
    if held is None:
        return chosen
    words = [qt for wording in wordings for qt in query_terms(wording) if qt.term]
    if not words or any(holds_word(held, qt.term) for qt in words):
        return chosen
    shown = ", ".join(dict.fromkeys(repr(qt.text) for qt in words))
    return chosen.refused(
        f"{top.path} is an imported agent session; none of its replies holds {shown}: the question's words "
        f"there are the user's own asking, not an answer (the words' confidence {chosen.evidence.confidence:.0%})"
    )


# The replies' terms of the session pages read lately, by (path, text length, hash): a long session is
# read and cut into words once, not on every lookup that cites it (a 1.4 MB one took ~80 ms).
_KEPT: dict[tuple[str, int, int], frozenset[str] | None] = {}
_KEPT_MAX = 64


# A clause that states a condition before its negation ("If the request doesn't specify a timeout, the
# search API waits 5 seconds"): what a setting does when left out, an answer, not a search that failed.
_CONDITION = lazy_pattern(r"\b(?:if|when|whenever|unless)\b|如果|假如")


def _found_nothing(clause: str) -> bool:
    said = clause.strip().casefold()
    m = _FOUND_NOTHING.search(said)
    return m is not None and not _CONDITION.search(said, 0, m.start())


def in_replies(text: str, passages: list[HeldPassage]) -> list[HeldPassage]:
    """The passages of ``passages`` (of a page whose text is ``text``) to show a citation from: on an
    imported agent session, those in the assistant's turns that hold a question word, when any does
    (the user's question holds every word of it, and was shown as the line that answers); else all.
    A reply's tool lines and clauses that found nothing answer nothing (``replied_terms``)."""
    if "**Assistant**" not in text:
        return passages
    lines = file_lines(text)
    head = {line.strip() for line in lines[: body_start(lines) - 1]}
    if head.isdisjoint(f"format: {f}" for f in _FORMATS) or not any(
        h.startswith("session_id:") for h in head
    ):
        return passages
    replied: dict[int, str] = {}  # line: what the assistant said on it, as ``word_text`` reads it
    role = ""
    for n, line in enumerate(lines, start=1):
        if turn := _TURN.match(line):
            role, line = turn.group(1), line[turn.end() :]
        said = _TOOL_LINE.sub(" ", line).replace("\u2019", "'")
        if role == "Assistant" and (
            clauses := [c for c in _CLAUSE.split(said) if c and not _found_nothing(c)]
        ):
            replied[n] = word_text(" ".join(clauses))
    # A passage runs to the next one's first line; its question terms count where a reply says them.
    starts = sorted(p[0] for p in passages)
    ends = dict(zip(starts, [*starts[1:], len(lines) + 1], strict=True))
    answers = []
    for first, held in passages:
        said = " ".join(replied.get(n, "") for n in range(first, ends[first]))
        if kept := frozenset(term for term in held if on_line(said, term.removeprefix(AMOUNT))):
            answers.append((first, kept))
    return answers or passages


def replied_terms(path: str, read: Callable[[str], str]) -> frozenset[str] | None:
    """The terms of the assistant's turns of the imported agent session at ``path``, tool and shell lines
    left out (an agent searches with the question's words: "(tool: Grep: sentry sampling rate)" is no
    answer), and so are the clauses that say it found nothing; None when the page is no imported
    session."""
    text = read(path)
    key = (path, len(text), hash(text))
    if key in _KEPT:
        return _KEPT[key]
    page = parse_page(path, text)
    found: frozenset[str] | None = None
    if str(page.meta.get("format")) in _FORMATS and "session_id" in page.meta:
        turns = _TURN.split(page.body)
        # split gives [before, role, text, role, text, ...]
        replies = [said for role, said in zip(turns[1::2], turns[2::2], strict=True) if role == "Assistant"]
        said = _TOOL_LINE.sub(" ", "\n".join(replies)).replace("\u2019", "'")
        found = frozenset(
            index_terms("\n".join(c for c in _CLAUSE.split(said) if c and not _found_nothing(c)))
        )
    if len(_KEPT) >= _KEPT_MAX:
        _KEPT.pop(next(iter(_KEPT)))
    _KEPT[key] = found
    return found
