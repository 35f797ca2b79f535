"""A page that names another page only to warn against mixing the two up does not answer about it
(docs/decisions.md D177, D179, D180).

"明远证券续约报价出了没 多少钱" cited the other customer's page at 57%, with that customer's renewal price:
it writes 明远证券 only in "别和 [[客户/明远证券]] 搞混：那个是信创 + 等保". A question that writes another
page's whole name (a name, not dictionary words) asks about that page's subject; a page that writes the
name only on lines that link there and warn the reader not to confuse the two is about something else,
however much else it shares with the question. The warning must be about that very link ("not to be
confused with [[…]]", "别和 [[…]] 搞混"): "see [[…]]" or 详见 open a project page for its customer, and
"For Zorvane (see [[…]]). Not to be confused with Zorvane Freight" warns about another company (two
cold reviews). A heading that is the link heads a section about that page.
"""

from __future__ import annotations

from collections.abc import Callable

from krouter.lazy_pattern import lazy_pattern
from krouter.routing.answering_line import outside_links, route_terms
from krouter.routing.pointers import DESTINATION, LINK, MAX_POINTING_LINES, lines_writing
from krouter.routing.question import Unit
from krouter.routing.tables import Tables
from krouter.tokens.names import is_name
from krouter.tokens.normal_form import normalize, without_accents
from krouter.tokens.scripts import is_cjk
from krouter.tokens.terms import word_text
from krouter.vault.links import LinkResolver, parse_link

# A warning against mixing the page up with the page named, closed by the link to it (``_THE_LINK``;
# other links read as ``_OTHER_LINK``): "not to be confused with [[…]].", "mixed up with [[…]],", "别和
# [[…]] 搞混", "[[…]]（别搞混）". Not "see [[…]]", 详见 or 参见, nor "different" or 不同 ("[Zorvane](…) is
# different: Sundays 02:00–04:00" states the answer); nor a warning about something of that page's,
# which its link does not close ("don't confuse [[…]]'s staging hosts with production", "别和 [[…]] 的旧
# 合同搞混": a third cold review).
_THE_LINK = "\ue000"
_OTHER_LINK = "\ue001"
_POINTING = lazy_pattern(
    r"(?i)\b(?:confused|mixed\s+up)\s+with\s+\ue000(?=\s*(?:[,.;:)!?—–]|$))"
    r"|(?:别|不要|勿)(?:和|跟|与)\s?\ue000\s?(?:搞混|混淆|混用|弄混|搞错|混为一谈)"
    r"|\ue000\s?[（(]\s?(?:别|不要|勿)(?:搞混|混淆|弄混)\s?[)）]"
)
# The most pages one question word's list may hold for its titled pages to be looked at.
MAX_PAGES_READ = 1000
# A Markdown heading: a line that heads a section about what it names, not one that points away.
_HEADING = lazy_pattern(r"^\s{0,3}#{1,6}\s")


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
    """(the name, that page's path) when the question writes another current page's whole title or file
    name, a name (every word of it ``is_name``: 明远证券, Zorvane; not Production deploy), which the
    ``cited`` page (with the replaced pages leading to it, ``mine``) writes only on lines that link to
    that page and warn, beside the link, against mixing the two up (``_POINTING``), stating none of the
    question's other words (``held``) outside their links. ``words``: the question words the page
    matched in its text. A name no word of which fewer than MAX_PAGES_READ pages hold is not looked
    for."""
    text = text_of(cited)
    if ("[[" not in text and "](" not in text) or not words:
        return None
    # Only the pages the cited page links to can be the one it sets apart: their file names, read off
    # its links, keep a question word that titles thousands of pages from being looked at page by page.
    linked = {name for m in LINK.finditer(text) if (name := _page_file_name(parse_link(m.group(0))[0]))}
    if not linked:
        return None
    asked = word_text(question)
    texts = {i: without_accents(normalize(units[i].text)) for i in words}
    seen: set[int] = set()
    for i in sorted(words):
        # A page is found through any word of its name: a word a thousand pages hold is not read page by
        # page (a vault where "customer" titles thousands of pages finds Zorvane Customer by "zorvane").
        if len(units[i].postings) > MAX_PAGES_READ:
            continue
        for pid, tf in units[i].postings.items():
            if not tf[0] or pid in mine or pid in seen or pid not in t.pages or t.pages[pid].replaced:
                continue
            seen.add(pid)
            path = t.pages[pid].path
            if _page_file_name(path) not in linked:
                continue
            for name, parts in t.names_of(pid):
                named = _naming(parts, texts, asked)
                if not named or not all(map(is_name, parts)):
                    continue
                if _only_pointing(text, units, named, held, path):
                    return name, path
    return None


def _page_file_name(path: str) -> str:
    """A page path's (or a link's target's, ``parse_link``) file name without ``.md``, case-folded: what
    a link can name the page by. Read for every page a question word titles (thousands in a large
    vault), so string work only."""
    name = path.rstrip("/").rsplit("/", 1)[-1]
    return (name[:-3] if name.lower().endswith(".md") else name).casefold()


def _naming(parts: tuple[str, ...], texts: dict[int, str], asked: str) -> set[int]:
    """The question's words (``texts``: each word's text as the index reads it) that write a name's
    ``parts`` (a Han part, 明远证券, written whole in ``asked``, the question as the index reads it, by the
    words cut from it: 明远, 证券); none unless the question writes every part."""
    named: set[int] = set()
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
    page at ``path`` and warns, beside that link, against mixing the two up (``_POINTING``), is no
    heading, and states none of the other question words ``held`` outside its links."""
    to_page = LinkResolver([path])
    terms = route_terms(units[i] for i in held)
    others = held - named
    found = 0
    for found, (line, _words) in enumerate(lines_writing(text, units, set(named)), 1):
        if found > MAX_POINTING_LINES or _HEADING.match(line):
            return False
        warned = LINK.sub(lambda m: _THE_LINK if to_page.resolve(m.group(0)) == path else _OTHER_LINK, line)
        own = outside_links(terms, [DESTINATION.sub("]", line)])
        if not _POINTING.search(warned) or any(units[i].in_terms(own) for i in others):
            return False
    return found > 0
