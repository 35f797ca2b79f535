"""A page that writes a question's word only to point at another page has not answered about it.

"Manchester does it differently: [[Manchester key handover]]." on the Toronto lockbox page holds the
word "manchester", and the page matched every word of "where do Manchester customers leave a spare
key?" (cited at 69%, nothing missing); the page the line points at is the answer. A word the page
writes only on lines that point at the question's runner-up, named by that word, is the runner-up's
word when the runner-up holds as many of the question's words as the page does without it: the page
is its neighbour (docs/decisions.md D149, D151, D152); against a runner-up written in English, a
Chinese word no dictionary translates is not counted (D157). Wikilinks and Markdown links alike. A line that states another of the question's words outside its
links ("Primary DB: [[Postgres]] 15", "In Manchester customers leave it at the office (see [[Manchester
office]])") says something of its own, and points at nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

from krouter.lazy_pattern import lazy_pattern
from krouter.routing.answering_line import outside_links, route_terms, terms_in
from krouter.routing.question import Unit
from krouter.routing.reasons import quoted
from krouter.routing.receipt import Citation, Receipt
from krouter.routing.untranslated import in_english, untranslatable
from krouter.tokens.normal_form import normalize, without_accents
from krouter.vault.links import LinkResolver

# A wikilink ([[Decisions/New#Why|new]]) or a Markdown link ([see](../Decisions/New%20page.md)), whole:
# ``LinkResolver`` reads which page it names, as it does for a replacement link.
LINK = lazy_pattern(r"\[\[[^\[\]]*\]\]|\[[^\[\]]*\]\([^()]*\)")
# A Markdown link's destination, which states nothing on the line.
DESTINATION = lazy_pattern(r"\]\([^()]*\)")
# A page points a word away on a few lines ("see [[…]]"), not on dozens.
MAX_POINTING_LINES = 12


def pointed_away(
    text_of: Callable[[str], str],
    cited: str,
    units: list[Unit],
    words: set[int],
    held: set[int],
    runner_up: tuple[str, int] | None,
) -> tuple[list[str], str] | None:
    """The question's words among ``words`` (indexes into ``units``: the ones the page matched, not by
    its title, aliases or a trigger) that the ``cited`` page's text (``text_of`` reads it) writes only
    on lines that point at the runner-up (its path and page id): lines that write the word and link to
    the runner-up, whose name holds the word, and state none of the page's other words (``held``)
    outside their links but the name's. With the runner-up's path, when its own title and text hold as
    many of the question's words as this page does without them (not a page replaced by it, nor its
    triggers), a Chinese word no dictionary translates not counted against a runner-up written in
    English; None otherwise."""
    text = text_of(cited)
    if ("[[" not in text and "](" not in text) or not words or runner_up is None:
        return None
    path, page_id = runner_up
    terms = route_terms(units[i] for i in held)
    # Read as the receipt's line reads text, without the pages' segmenter: a Chinese name cut by it
    # loaded jieba's whole dictionary into the lookup (a 0.35 s Chinese p99 in bench/perf).
    name_terms = terms_in(terms, path.rsplit("/", 1)[-1].removesuffix(".md"))
    in_name = {i for i in held if units[i].in_terms(name_terms)}
    named = words & in_name
    if not named:
        return None
    # A link names the runner-up as a replacement link would, among the pages: by its path, the end of
    # it or its file name, in any case (a folder it is not in names another page).
    to_runner_up = LinkResolver([path])
    pointing = dict.fromkeys(named, False)
    for n, (line, holding) in enumerate(lines_writing(text, units, named)):
        # A word written on that many lines is the page's own, whatever they link to.
        if n == MAX_POINTING_LINES:
            return None
        to_it = any(to_runner_up.resolve(m.group(0)) == path for m in LINK.finditer(line))
        own = outside_links(terms, [DESTINATION.sub("]", line)])
        stated = any(units[i].in_terms(own) for i in held - in_name)
        for i in holding:
            # "Manchester does it differently: [[Manchester key handover]]" writes the word and points;
            # "- [[Kafka]]" under "## Owned services" names a thing the page is about (a second review).
            if to_it and not stated and units[i].in_terms(own):
                pointing[i] = True
            else:
                named.discard(i)
    pointed = {i for i in named if pointing[i]}
    # Counted, not weighed: the word pointed at is often one most pages write (a city of a vault about
    # two cities), and its weight is no measure of how much it says about which page answers.
    theirs = {i for i, u in enumerate(units) if (p := u.postings.get(page_id)) and (p[0] or p[2])}
    mine = held - pointed
    if pointed and len(theirs) < len(mine) and in_english(text_of(path)):
        # An English page cannot hold a Chinese word no route of ours translates (七天, 寄回 of a
        # question the China returns page answers word for word, D11-33): its absence there says
        # nothing of which page the question is about (untranslated.py).
        mine = {i for i in mine if not untranslatable(units[i])}
    if not pointed or len(theirs) < len(mine):
        return None
    return [units[i].text for i in sorted(pointed)], path


def lines_writing(text: str, units: list[Unit], named: set[int]) -> Iterator[tuple[str, list[int]]]:
    """The lines of ``text`` that write one of the question's words ``named`` (read as the set is when
    a line is reached: a caller may drop words on the way), each with those it writes, up to one past
    MAX_POINTING_LINES (a page of 50,000 linking lines is not read line by line)."""
    # A line can hold a term only if it writes all but the last letter of it (a stem is read off its
    # words: "polici" of policy), read as the index reads text (full-width letters, accents dropped).
    pointed_terms = route_terms(units[i] for i in named)
    starts = tuple({term[: max(3, len(term) - 1)] for term in pointed_terms})
    raw = text.split("\n")
    plain = without_accents(normalize(text)).split("\n")
    found = 0
    for n, line in enumerate(raw):
        read = plain[n] if len(plain) == len(raw) else without_accents(normalize(line))
        if not any(start in read for start in starts):
            continue
        holding = [i for i in named if units[i].in_terms(terms_in(pointed_terms, line))]
        if not holding:
            continue
        yield line, holding
        found += 1
        if found > MAX_POINTING_LINES:
            return


def as_missing(cited: Citation, words: list[str]) -> Citation:
    """``cited`` with ``words`` listed as missing, not matched (as shown, "曼彻斯特→manchester" among them):
    the page holds them for another page."""
    matched = [w for w in cited.matched if w.split("→", 1)[0] not in words]
    return replace(cited, matched=matched, missing=[*cited.missing, *words])


def pointed_away_from(receipt: Receipt) -> str | None:
    """The page a refusal ruled out for writing the question's word only where it points at another
    (its reason, ``pointer_reason``), or None."""
    closest = receipt.closest
    if receipt.decision != "refuse" or closest is None or _POINTS not in receipt.reason:
        return None
    return closest.path if receipt.reason.startswith(f"{closest.path} writes ") else None


_POINTS = " only where it points at "


def pointer_reason(path: str, words: list[str], target: str, confidence: float) -> str:
    """Why a page that writes the question's ``words`` only to point at ``target`` is not cited."""
    return (
        f"{path} writes {quoted(words)}{_POINTS}{target}, which holds as many of the question's words "
        "(of those a page in its language can hold): the question is about that page (the words' "
        f"confidence {confidence:.0%})"
    )
