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
from krouter.routing.tables import Tables
from krouter.routing.untranslated import in_english, untranslatable
from krouter.tokens.names import is_name
from krouter.tokens.normal_form import normalize, without_accents
from krouter.tokens.scripts import is_cjk
from krouter.tokens.terms import word_text
from krouter.vault.links import LinkResolver

# A wikilink ([[Decisions/New#Why|new]]) or a Markdown link ([see](../Decisions/New%20page.md)), whole:
# ``LinkResolver`` reads which page it names, as it does for a replacement link.
_LINK = lazy_pattern(r"\[\[[^\[\]]*\]\]|\[[^\[\]]*\]\([^()]*\)")
# A Markdown link's destination, which states nothing on the line.
_DESTINATION = lazy_pattern(r"\]\([^()]*\)")
# A page points a word away on a few lines ("see [[…]]"), not on dozens.
MAX_POINTING_LINES = 12
# A link in a line read for what it writes around it.
_A_LINK = "\ue000"
# What a line writes beside a link to send the reader to another page's subject or set it apart from
# this page's: "see [[…]]", "not to be confused with [[…]]", "[[…]] is a different plan", "见 [[…]]",
# "别和 [[…]] 搞混", "…是另一套规则". A bare "- [[Kafka]]" under "## Owned services" does neither: it
# names a thing the page is about.
_POINTING = lazy_pattern(
    r"(?i)\b(?:see|cf|confuse[ds]?|confusing|mix(?:ed)? up|differ(?:s|ent|ently)?|separate(?:ly)?|another"
    r"|unlike|instead|elsewhere)\b|参见|详见|见\s*\ue000|别和|别跟|不要和|不要跟|搞混|混淆|混用|另一|另外一"
    r"|不同|不一样|区别"
)


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
    for n, (line, holding) in enumerate(_lines_writing(text, units, named)):
        # A word written on that many lines is the page's own, whatever they link to.
        if n == MAX_POINTING_LINES:
            return None
        to_it = any(to_runner_up.resolve(m.group(0)) == path for m in _LINK.finditer(line))
        own = outside_links(terms, [_DESTINATION.sub("]", line)])
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


def named_where_pointed(
    text_of: Callable[[str], str],
    cited: str,
    units: list[Unit],
    words: set[int],
    held: set[int],
    question: str,
    t: Tables,
    mine: set[int],
) -> tuple[str, str] | None:
    """(the name, that page's path) when the question names another current page by its whole title or
    file name, a name (every word of it ``is_name``: 明远证券, Acme, not Production deploy), which the
    ``cited`` page (with the replaced pages leading to it, ``mine``) writes only on lines that link to
    that page and set it apart or send the reader there ("别和 [[客户/明远证券]] 搞混", "not to be confused
    with [[Acme]]", "见 [[…]]"), stating none of its other question words (``held``) outside their
    links. ``words``: the question's words the page matched in its text (not by its title, aliases or
    a trigger). The page is about another subject, whatever else it shares with the question: unlike
    ``pointed_away``, the page named need not be the runner-up nor hold the question's other words (a
    question about that subject's renewal the notes never wrote down is refused, not answered with the
    renewal of the customer it was set apart from)."""
    text = text_of(cited)
    if ("[[" not in text and "](" not in text) or not words:
        return None
    asked = word_text(question)
    seen: set[int] = set()
    for i in sorted(words):
        for pid, tf in units[i].postings.items():
            if not tf[0] or pid in mine or pid in seen or pid not in t.pages or t.pages[pid].replaced:
                continue
            seen.add(pid)
            path = t.pages[pid].path
            for name, parts in t.names_of(pid):
                named = _naming(parts, units, words, asked)
                if named and all(map(is_name, parts)) and _only_pointing(text, units, named, held, path):
                    return name, path
    return None


def _naming(parts: tuple[str, ...], units: list[Unit], words: set[int], asked: str) -> set[int]:
    """The question's ``words`` that write a name's ``parts`` (a Han part, 明远证券, written whole in
    ``asked``, the question as the index reads it, by the words cut from it: 明远, 证券); none unless
    the question writes every part."""
    named: set[int] = set()
    texts = {i: without_accents(normalize(units[i].text)) for i in words}
    for part in parts:
        if not is_cjk(part):
            found = {i for i, text in texts.items() if text == part}
        elif part in asked:
            found = {i for i, text in texts.items() if text in part}
        else:
            return set()
        if not found:
            return set()
        named |= found
    return named


def _only_pointing(text: str, units: list[Unit], named: set[int], held: set[int], path: str) -> bool:
    """True when every line of ``text`` that writes one of the question's words ``named`` links to the
    page at ``path`` and sets it apart or sends the reader there (``_POINTING``, outside the links),
    stating none of the other question words ``held`` outside its links."""
    to_page = LinkResolver([path])
    terms = route_terms(units[i] for i in held)
    others = held - named
    found = False
    for n, (line, _holding) in enumerate(_lines_writing(text, units, set(named))):
        if n == MAX_POINTING_LINES:
            return False
        prose = _LINK.sub(_A_LINK, line)
        own = outside_links(terms, [_DESTINATION.sub("]", line)])
        if (
            not any(to_page.resolve(m.group(0)) == path for m in _LINK.finditer(line))
            or not _POINTING.search(prose)
            or any(units[i].in_terms(own) for i in others)
        ):
            return False
        found = True
    return found


def _lines_writing(text: str, units: list[Unit], named: set[int]) -> Iterator[tuple[str, list[int]]]:
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
