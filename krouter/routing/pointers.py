"""A page that writes a question's word only to point at another page has not answered about it.

"Manchester does it differently: [[Manchester key handover]]." on the Toronto lockbox page holds the
word "manchester", and the page matched every word of "where do Manchester customers leave a spare
key?" (cited at 69%, nothing missing); the page the line points at is the answer. A word the page
writes only on lines that point at the question's runner-up, named by that word, is the runner-up's
word when the runner-up holds as many of the question's words once that one is its: the page is its
neighbour (docs/decisions.md D149). A line that states another of the question's words outside its
links ("Primary DB: [[Postgres]] 15", "In Manchester customers leave it at the office (see [[Manchester
office]])") says something of its own, and points at nothing.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace

from krouter.routing.answering_line import outside_links, terms_in
from krouter.routing.question import Unit
from krouter.routing.reasons import quoted
from krouter.routing.receipt import Citation

# A wikilink's page: what stands before its heading or label ([[Decisions/New#Why|new]]: Decisions/New).
_WIKILINK = re.compile(r"\[\[([^\]|#]+)")
# A page points a word away on a few lines ("see [[…]]"), not on dozens.
MAX_POINTING_LINES = 12


def _folded(name: str) -> str:
    """A page as a link names it: without ``.md``, case and Unicode form folded."""
    name = unicodedata.normalize("NFC", name.strip().strip("/")).casefold()
    return name[:-3] if name.endswith(".md") else name


def pointed_away(
    text: str, units: list[Unit], words: set[int], held: set[int], runner_up: tuple[str, set[int]] | None
) -> tuple[list[str], str] | None:
    """The question's words among ``words`` (indexes into ``units``: the ones the page matched, not by
    its title, aliases or a trigger) that ``text`` writes only on lines that point at the runner-up
    (its path and the question's words it holds): lines linking to it, its name holding the word, with
    no other of the words the page holds (``held``) outside their links. With the runner-up's path,
    when it holds as many of the question's words as this page does without them; None otherwise."""
    if "[[" not in text or not words or runner_up is None:
        return None
    path, theirs = runner_up
    folded = _folded(path)
    # A link names the runner-up by its path (a folder's part of it at least) or by its file name.
    names = {folded, folded.rsplit("/", 1)[-1]}
    terms = frozenset(term for i in held for alt in units[i].alts for term in alt)
    # Read as the receipt's line reads text, without the pages' segmenter: a Chinese name cut by it
    # loaded jieba's whole dictionary into the lookup (a 0.35 s Chinese p99 in bench/perf).
    name_terms = terms_in(terms, folded.rsplit("/", 1)[-1])
    named = {i for i in words if units[i].in_terms(name_terms)}
    if not named:
        return None
    pointed_terms = frozenset(term for i in named for alt in units[i].alts for term in alt)
    # A line can hold a term only if it writes the term's first letters (a stem is read off its words).
    starts = tuple({term[:3] for term in pointed_terms})
    pointing = dict.fromkeys(named, False)
    lines = 0
    for line in text.splitlines():
        if not any(start in line.casefold() for start in starts):
            continue
        on_line = terms_in(pointed_terms, line)
        holding = [i for i in named if units[i].in_terms(on_line)]
        if not holding:
            continue
        # A word written on that many lines is the page's own, whatever they link to (and a page of
        # 50,000 linking lines is not read line by line).
        lines += 1
        if lines > MAX_POINTING_LINES:
            return None
        links = {_folded(m.group(1)) for m in _WIKILINK.finditer(line)}
        own = outside_links(terms, [line])
        stated = {i for i in held - named if units[i].in_terms(own)}
        for i in holding:
            if not any(link in names or folded.endswith("/" + link) for link in links) or stated:
                named.discard(i)
            else:
                pointing[i] = True
    pointed = {i for i in named if pointing[i]}
    # Counted, not weighed: the word pointed at is often one most pages write (a city of a vault about
    # two cities), and its weight is no measure of how much it says about which page answers.
    if not pointed or len(theirs) < len(held - pointed):
        return None
    return [units[i].text for i in sorted(pointed)], path


def as_missing(cited: Citation, words: list[str]) -> Citation:
    """``cited`` with ``words`` listed as missing, not matched (as shown, "曼彻斯特→manchester" among them):
    the page holds them for another page."""
    matched = [w for w in cited.matched if w.split("→", 1)[0] not in words]
    return replace(cited, matched=matched, missing=[*cited.missing, *words])


def pointer_reason(path: str, words: list[str], target: str, confidence: float) -> str:
    """Why a page that writes the question's ``words`` only to point at ``target`` is not cited."""
    return (
        f"{path} writes {quoted(words)} only where it points at {target}, which holds as many of the "
        f"question's words: the question is about that page (the words' confidence {confidence:.0%})"
    )
