"""A line as a snippet's search reads it, with where each of its characters stands in the line as
written: the question's terms are in normal form (``tokens.normal_form``: NFKC, case-folded, accents
dropped), and the window the snippet shows is cut from the line as written."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from krouter.lazy_pattern import lazy_pattern
from krouter.tokens.normal_form import without_accents

# Obsidian's marks a reader of the note does not see: a block id ending a line ("… pfSense ^aB3dE9"),
# and highlighting around words ("==sunflower-42==", not "a == b" or "x==1 and y==2").
_BLOCK_ID = lazy_pattern(r"\s\^(?=[A-Za-z0-9-]*[A-Za-z])[A-Za-z0-9-]{2,}\s*$")
_HIGHLIGHT = lazy_pattern(r"(?<![\w=])==(?=\S)(.+?)(?<=\S)==(?![\w=])")


def as_read(line: str) -> str:
    """A note's line as its reader sees it: without a block id at its end or highlighting marks (a bug
    hunt on exported vaults found both in receipts' snippets)."""
    if "^" in line:
        line = _BLOCK_ID.sub("", line)
    return _HIGHLIGHT.sub(r"\1", line) if "==" in line else line


def searchable(text: str) -> tuple[str, Sequence[int]]:
    """``text`` folded as the question's terms are, and for each of its characters the position in
    ``text`` it came from. Mostly one character for one (case, accents, full-width letters); a
    half-width katakana and its voicing mark (ﾄﾞ) are one (ド), and ß is two (ss): such a line is read
    character by character, or a term written so was never found there and the snippet showed the
    line's start, not the answer (a bug hunt: ﾄﾞﾗｲﾔｰ in a long line of a Japanese page)."""
    if text.isascii():
        return text.lower(), range(len(text))
    folded = without_accents(unicodedata.normalize("NFKC", text).casefold())
    if len(folded) == len(text):
        return folded, range(len(text))
    out: list[str] = []
    origin: list[int] = []
    for at, char in enumerate(text):
        for piece in without_accents(unicodedata.normalize("NFKC", char).casefold()):
            if (
                out
                and unicodedata.combining(piece)
                and len(joined := unicodedata.normalize("NFC", out[-1] + piece)) == 1
            ):
                out[-1] = joined
                continue
            out.append(piece)
            origin.append(at)
    return "".join(out), origin
