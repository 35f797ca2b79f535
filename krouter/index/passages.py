"""Passages: a page body cut into stretches that each hold one fact, and how they are stored.

The decision's passage coverage and the receipt's snippet read these; a refresh writes them.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass

from krouter.lazy_pattern import lazy_pattern
from krouter.vault.page import Page
from krouter.vault.page_lines import file_lines
from krouter.vault.templates import query_block_lines

# A new passage starts at a blank line and at each list item, table row, heading, quote or dialogue
# turn, so "key terms in one passage" means one fact, not one page.
_PASSAGE_START = lazy_pattern(r"^\s*(?:[-*+]\s|\d+[.)]\s|\||#|>|\*\*[^*]+\*\*\s*[:：]|[^\s:：]{1,40}[:：]\s)")


@dataclass(frozen=True)
class Passage:
    """A stretch of a page (paragraph, list item, table row, turn) and the terms it holds."""

    line: int
    terms: frozenset[str]


def split_passages(page: Page) -> list[tuple[int, str]]:
    """Cut a page into passages: (1-based file line, text), its other frontmatter fields first. A query
    block (``vault.templates``) is no passage: it states nothing."""
    out: list[tuple[int, list[str]]] = []
    current: list[str] | None = None
    lines = file_lines(page.body)
    # Most pages hold no fence at all: one substring search, not a look at every line.
    queries = query_block_lines(lines) if "```" in page.body or "~~~" in page.body else set()
    for i, line in enumerate(lines):
        lineno = page.body_line + i
        if i in queries or not line.strip():
            current = None
            continue
        if current is None or _PASSAGE_START.match(line):
            current = [line]
            out.append((lineno, current))
        else:
            current.append(line)
    return [*page.properties, *((n, "\n".join(lines)) for n, lines in out)]


# zlib level for passages: read for a few pages per lookup, written once per edit.
ZLEVEL = 1


def passages_of(blob: bytes) -> list[Passage]:
    """The passages stored for a page (zlib-compressed JSON of [line, "term term ..."])."""
    return [Passage(line, frozenset(terms.split())) for line, terms in passage_rows(blob)]


def passage_rows(blob: bytes) -> list[tuple[int, str]]:
    """The passages stored for a page as stored: (line, its terms joined by spaces), no term set built
    (a lookup needs only which of the question's few terms each passage holds)."""
    return [(line, terms) for line, terms in json.loads(zlib.decompress(blob))]


def terms_of_page(passages: bytes, other_terms: str) -> set[str]:
    """Every term of a page: its body's are the union of its passages' (no copy of them is kept)."""
    return set(other_terms.split()).union(*(p.terms for p in passages_of(passages)))
