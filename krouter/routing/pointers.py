"""A page that writes a question's word only to point at another page has not answered about it.

"Manchester does it differently: [[Manchester key handover]]." on the Toronto lockbox page holds the
word "manchester", and the page matched every word of "where do Manchester customers leave a spare
key?" (cited at 69%, nothing missing); the page the line points at is the answer. A word the page
writes only on lines that link to a page whose name holds it, when that page is itself one the
question found and holds as many of the question's words once that one is its, is that page's word:
the page is its neighbour (docs/decisions.md D149).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace
from pathlib import PurePosixPath

from krouter.routing.answering_line import terms_in
from krouter.routing.question import Unit
from krouter.routing.reasons import quoted
from krouter.routing.receipt import Citation
from krouter.tokens.terms import index_terms

# A wikilink's page: what stands before its heading or label ([[Decisions/New#Why|new]]: Decisions/New).
_WIKILINK = re.compile(r"\[\[([^\]|#]+)")


def _key(name: str) -> str:
    """A page as a link names it: its file name without ``.md``, case and Unicode form folded."""
    stem = PurePosixPath(name.strip()).name
    stem = stem[:-3] if stem.lower().endswith(".md") else stem
    return unicodedata.normalize("NFC", stem).casefold()


def pointed_away(
    text: str, units: list[Unit], words: set[int], held: set[int], others: dict[str, set[int]]
) -> tuple[list[str], str] | None:
    """The question's words among ``words`` (indexes into ``units``: the ones the page matched, not by
    its title, aliases or a trigger) that ``text`` writes only on lines linking to one of ``others``
    (the other pages the question found, by path, with the question's words each holds) whose name
    holds them, with that page's path, when that page holds as many of the question's words as this
    one (all it holds: ``held``) does without them; None when the page writes each of them somewhere
    else too, or points at no such page."""
    if "[[" not in text or not words or not others:
        return None
    found = {_key(path): path for path in others}
    terms = frozenset(term for i in words for alt in units[i].alts for term in alt)
    # A line can hold a term only if it writes the term's first letters (a stem is read off its words).
    starts = tuple({term[:3] for term in terms})
    lines: dict[int, list[str]] = {i: [] for i in words}
    for line in text.splitlines():
        folded = line.casefold()
        if not any(start in folded for start in starts):
            continue
        on_line = terms_in(terms, line)
        for i in words:
            if units[i].in_terms(on_line):
                lines[i].append(line)
    pointed: set[int] = set()
    target = ""
    for i, holding in lines.items():
        at = {_pointed_at(line, units[i], found) for line in holding}
        if len(at) == 1 and "" not in at and (not target or at == {target}):
            target = at.pop()
            pointed.add(i)
    # Counted, not weighed: the word pointed at is often one most pages write (a city of a vault about
    # two cities), and its weight is no measure of how much it says about which page answers.
    if not pointed or len(others[target]) < len(held - pointed):
        return None
    return [units[i].text for i in sorted(pointed)], target


def as_missing(cited: Citation, words: list[str]) -> Citation:
    """``cited`` with ``words`` listed as missing, not matched: the page holds them for another page."""
    matched = [w for w in cited.matched if w not in words]
    return replace(cited, matched=matched, missing=[*cited.missing, *words])


def pointer_reason(path: str, words: list[str], target: str, confidence: float) -> str:
    """Why a page that writes the question's ``words`` only to point at ``target`` is not cited."""
    return (
        f"{path} writes {quoted(words)} only where it points at {target}, which holds as many of the "
        f"question's words: the question is about that page (the words' confidence {confidence:.0%})"
    )


def _pointed_at(line: str, unit: Unit, found: dict[str, str]) -> str:
    """The path of the first page ``line`` links to, among ``found``, whose name holds ``unit``; ""
    for none."""
    for m in _WIKILINK.finditer(line):
        path = found.get(_key(m.group(1)))
        if path and unit.in_terms(set(index_terms(_key(path)))):
            return path
    return ""
