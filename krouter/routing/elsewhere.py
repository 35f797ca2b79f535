"""Question words that belong to another page: what keeps a trigger from counting, and a name asked about.

A word this page lacks while another current page's title, aliases, tags or path hold it may name that
page's subject: a trigger holding it may have been taught for a neighbour's question (the decision
counts it only for a question that holds the trigger whole, and ``krouter teach`` holds such a pick for
the owner: D130), and a question naming another page by its name (王磊, Sarah Chen) is not answered by
a page that never mentions it (docs/decisions.md D43).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from difflib import SequenceMatcher
from pathlib import Path

from krouter.index.store import Index
from krouter.lazy_pattern import lazy_pattern
from krouter.routing.citation import PageReads
from krouter.routing.language_bridge import bridged
from krouter.routing.other_names import mentioned_by_name
from krouter.routing.question import Unit, question_units
from krouter.routing.tables import Tables
from krouter.routing.unread_language import in_unread_language, unread_words, unreadable
from krouter.tokens.hiragana_words import honoured
from krouter.tokens.languages import capitalises_nouns
from krouter.tokens.names import (
    CALENDAR_NAMES,
    capitalised,
    has_letter,
    is_name,
    names_a_subject,
    opens_a_question,
    written_as_name,
    written_with_capital_inside,
)
from krouter.tokens.normal_form import without_accents
from krouter.tokens.scripts import KANA, has_han, is_cjk
from krouter.tokens.terms import identifier_words, normalize, number_parts, question_identifiers

_KANA = lazy_pattern(f"[{KANA}]")


def named_elsewhere(u: Unit, mine: set[int], index: Index, t: Tables) -> bool:
    """True when the pages ``mine`` (a page and the replaced pages leading to it) hold the unit in
    neither their titles, aliases, tags, path nor text, while another current page's title, aliases,
    tags or path hold it (by any route, a translation included): the word names another subject.

    Not a single Han character that pages writing none lack ("年" of 第二年, asked of an English page
    through the agent's translation: an agent-loop run): it has no translation of its own to be held
    by (``writes_han``)."""
    own = any(u.postings[p][0] or u.postings[p][2] for p in mine if p in u.postings)
    if own or (len(u.text) == 1 and is_cjk(u.text) and not writes_han(mine, index, t)):
        return False
    pages = t.pages
    return any(
        tf[0] and p not in mine and p in pages and not pages[p].replaced for p, tf in u.postings.items()
    )


def writes_han(pages: set[int], index: Index, t: Tables) -> bool:
    """True when one of ``pages`` writes a Han character: in its title or its text (a Chinese page may
    have a Latin title, a cold review found)."""
    return any(
        has_han(t.pages[p].title) or any(has_han(terms) for _line, terms in index.passage_rows(p))
        for p in pages
        if p in t.pages
    )


def named_page(
    units: list[Unit],
    matched: set[int],
    mine: set[int],
    t: Tables,
    mentioned: Callable[[int], bool] = lambda pid: False,
) -> tuple[str, str] | None:
    """(the name, that page's path) when the question words the top page lacks hold every word of another
    current page's title or file name, and those words are a name: each holds a letter or a Han
    character and none is a word the dictionary knows (王磊, Sarah Chen, not Database, which titles
    many a page a question only mentions). Only pages whose title or aliases hold one of the missing
    words are looked at, and the dictionary only for a title they hold whole: a vault in one script
    never opens it otherwise (compiling it takes seconds, once). A page the top page ``mentioned`` by
    another of its names (``mentioned_by_name``) is not one it never mentions."""
    missing = [u for i, u in enumerate(units) if i not in matched]
    words = {without_accents(normalize(u.text)) for u in missing}
    seen: set[int] = set()
    for u in missing:
        if not has_letter(u.text):
            continue
        for pid, tf in u.postings.items():
            if not tf[0] or pid in mine or pid in seen or pid not in t.pages or t.pages[pid].replaced:
                continue
            seen.add(pid)
            for name, parts in t.names_of(pid):
                if parts and words.issuperset(parts) and all(map(is_name, parts)):
                    if mentioned(pid):
                        break
                    return name, t.pages[pid].path
    return None


def unknown_name(
    units: list[Unit],
    question: str,
    index: Index,
    matched: set[int],
    kept: Sequence[str] | None = None,
    spare_openers: Sequence[str] = (),
) -> str | None:
    """The first question word that names a subject (``names.names_a_subject``: MongoDB, 北京) which no
    page of the vault mentions by any route, or None; in Latin script only one the question writes as a
    name (``names.written_as_name``). A page about something else cannot answer a question about it,
    however well the question's other words match (docs/decisions.md D59). So is an identifier the
    question writes with an underscore (realtime_gmv) that no page holds whole when the page lacks one of
    its words (gmv): a page that holds them all ("user id", "user-id" for user_id) may write it so (D69).
    ``matched`` holds the indexes of the units the page holds.

    ``kept``: the agent's phrasings of a German question KRouter cannot read. A word there with only its
    first letter a capital is a name when a phrasing keeps it (a translation renders a word and keeps a
    name): German writes every noun so (Tage, Vollsicherung). ``spare_openers``: the phrasings of any
    question; the word right after its ¿ or ¡ is then a name only when one of them keeps it (¿Puedo
    saber…, translated "Can I find out…", opens with a verb; ¿Redis…, "Does Redis…", with a name)."""
    mine = {units[i].text for i in matched}
    unheld = next(
        (
            name
            for name in question_identifiers(question)
            if not index.has_term(name) and not all(word in mine for word in identifier_words(name))
        ),
        None,
    )
    if unheld:
        return unheld
    # A version or an address no page holds (Redis 7.0 asked of a page about Redis 6.0) names a thing
    # the notes never mention, as a name does.
    version = next((u.text for u in units if u.df == 0 and _a_version(u.text)), None)
    if version:
        return version
    held = {u.text for u in units if u.df}
    # A Japanese question's kanji are looked up as bigrams, not words: 東京都 gives 京都, a place the
    # asker never named. Han names are read in Chinese questions only.
    han_names = not _KANA.search(question)
    return next(
        (
            u.text
            for u in units
            # How a word is written is read before the dictionary is asked: a vault in one script does
            # not open the dictionary for every lower-case word a question has and the vault lacks.
            if u.df == 0
            and (
                honoured(u.text, question)
                or (han_names if is_cjk(u.text) else written_as_name(u.text, question, held))
            )
            and (kept is None or is_cjk(u.text) or _kept_as_name(u.text, question, kept))
            and (
                not spare_openers
                or not opens_a_question(u.text, question)
                or _kept_as_name(u.text, question, spare_openers)
            )
            and (names_a_subject(u.text) or honoured(u.text, question))
        ),
        None,
    )


_DOTTED_NUMBER = lazy_pattern(r"\d+(?:\.\d+)+")


def _a_version(term: str) -> bool:
    """A number written with dots that names a version or an address: not a date (2024.11.08, whose
    parts are looked up), nor what may be a time of day (9.30, which a page may write 9:30)."""
    if not _DOTTED_NUMBER.fullmatch(term) or number_parts(term):
        return False
    parts = term.split(".")
    return not (len(parts) == 2 and len(parts[1]) == 2 and int(parts[0]) <= 24 and int(parts[1]) <= 59)


def _kept_as_name(word: str, question: str, kept: Sequence[str]) -> bool:
    """True when ``word`` of ``question`` is a name whatever the phrasings say (MongoDB), or one of the
    phrasings ``kept`` writes it as a name: a translation renders a word and keeps a name."""
    return written_with_capital_inside(word, question) or any(
        written_as_name(word, text, set()) for text in kept
    )


def names_against(
    question: str, path: str, index: Index, t: Tables, root: Path, phrasings: Sequence[str] = ()
) -> str | None:
    """Why the page at ``path`` cannot answer ``question`` by the names the question holds, or None: the
    question names another page by its name, which this page never mentions (D43), or names something
    no page mentions (D59). Asked of a page a phrasing found: a rewording that drops the question's
    subject ("when does the database backup run" for "…the MongoDB backup…") must not let another page
    answer.

    In a German question KRouter cannot read (German writes every noun with a capital), a word with only
    its first letter a capital is a name when one of the ``phrasings`` keeps it (``unknown_name``). In
    any question KRouter cannot read, the names are read from the phrasings too: a translation writes
    them as names (Munich for München, "Klarna's" for Klarnas), and one the page lacks vetoes it, as the
    question's own word would lower an English question's coverage (D91), unless the page holds a word
    the question writes with a capital ("das Büro in Lisboa", which the translation may write Lisbon);
    and a name of the question no page mentions does not veto a page that holds a name the translation
    wrote in its place ("…la région AWS de Francfort", translated "…the AWS Frankfurt region": an
    agent-loop run, D115)."""
    pid = t.by_path.get(path)
    if pid is None:
        return None
    mine = {pid, *t.predecessors.get(pid, ())}
    units = question_units(question, index, t)
    held = {i for i, u in enumerate(units) if any(p in u.postings for p in mine)}
    other = named_page(units, held, mine, t, mentioned_by_name(t, PageReads(index, root, units).text, mine))
    if other:
        return f"the question names {other[0]!r}, the page {other[1]}, which {path} never mentions"
    unread = unread_words(units, index)
    german = capitalises_nouns(question, unread) and in_unread_language(question, unread)
    foreign = german or unreadable(question, units, t, index)
    # A phrasing that repeats the question keeps every word of it: it says nothing of which are names.
    others = [text for text in phrasings if text.strip() != question.strip()]
    unknown = unknown_name(units, question, index, held, others if german else None, others)
    if unknown and not (
        foreign and any(_renders(unknown, text, question, index, t, mine) for text in others)
    ):
        return f"the question names {unknown!r}, which no page of the vault mentions"
    if foreign and not _holds_a_name_as_asked(units, question, held):
        for text in others:
            name = _name_it_lacks(text, index, t, mine)
            if name:
                return f"its phrasing {text!r} names {name!r}, which {path} never mentions"
    return None


def _holds_a_name_as_asked(units: list[Unit], question: str, held: set[int]) -> bool:
    """True when the page holds a word the question writes with a capital that names something (Lisboa,
    CloudWatch; not Backup, a German noun): a translation may write that name its own way (Lisbon),
    which the page need not hold."""
    return any(
        capitalised(units[i].text, question) and names_a_subject(units[i].text)
        for i in held
        if not is_cjk(units[i].text)
    )


def _renders(name: str, text: str, question: str, index: Index, t: Tables, mine: set[int]) -> bool:
    """True when the phrasing ``text`` writes as a name a word the question does not write, that the
    pages ``mine`` hold and that begins as the question's unknown ``name`` does (its first three
    letters, accents aside) and is like it as a whole: the translation rendered the name (Frankfurt for
    Francfort, Munich for München, London for Londres). Not any capitalised word the page holds:
    "Platform" is no rendering of Datadog (a cold review). A name it keeps that the page lacks still
    vetoes (``_name_it_lacks``)."""
    asked, plain = question.casefold(), _plain(name)
    return len(plain) >= 3 and any(
        not is_cjk(u.text)
        and u.text.casefold() not in asked
        and _plain(u.text)[:3] == plain[:3]
        # A month or a weekday a translation writes with a capital renders no name (March no Marseille).
        and _plain(u.text) not in CALENDAR_NAMES
        # Close as a whole too: "March" begins as Marseille does (a third review).
        and SequenceMatcher(None, _plain(u.text), plain).ratio() >= _RENDERED
        and any(p in u.postings for p in mine)
        and written_as_name(u.text, text, set())
        for u in question_units(text, index, t)
    )


# How like the question's name a translation's word must be to render it (difflib's ratio): Francfort and
# Frankfurt 0.78, Londres and London 0.62, München and Munich 0.77, Hambourg and Hamburg 0.93; Marseille
# and March 0.43.
_RENDERED = 0.6


def _plain(word: str) -> str:
    """A word case-folded without its accents (München: munchen)."""
    return "".join(c for c in unicodedata.normalize("NFKD", word.casefold()) if not unicodedata.combining(c))


def _name_it_lacks(text: str, index: Index, t: Tables, mine: set[int]) -> str | None:
    """The first word the phrasing ``text`` writes as a name of something (Munich, Klarna's) that the
    pages ``mine`` do not hold, or None. For a question KRouter cannot read, the translation's names are
    the question's: a page that lacks one answers another question, as it would the English one."""
    said = question_units(text, index, t)
    known = {u.text for u in said if u.df}
    return next(
        (
            u.text
            for u in said
            if not is_cjk(u.text)
            and not any(p in u.postings for p in mine)
            and written_as_name(u.text, text, known)
            and names_a_subject(u.text)
        ),
        None,
    )


def holds_none(question: str, path: str, index: Index, t: Tables) -> str | None:
    """Why the page at ``path`` cannot answer ``question`` when only a phrasing found it: it holds none
    of the question's own words by any route (a translation, an abbreviation), or None. A phrasing says
    the question in other words; a page none of the question's words reach was vouched for by the
    phrasing alone ("Kafka retention" with the phrasing "vacation days" cited the vacation page).

    Not for a question in a language KRouter cannot read (``in_unread_language``: French, German against
    English notes), nor for one in a language no dictionary of ours links to the page's (English or
    Chinese and a Japanese or Korean page, Japanese and Korean): no route of ours could reach the page
    from its words, so the agent's translation is the only bridge there is, and refusing it would refuse
    every such question (a bug hunt: the refusal told the agent to translate, and refused the translation)."""
    units = question_units(question, index, t)
    if not units or _held(units, path, index, t) or in_unread_language(question, unread_words(units, index)):
        return None
    if not bridged(question, path, index, t):
        return None
    return "it holds none of the question's own words, in any language: the phrasing alone found it"


def lacking_words(question: str, path: str, index: Index, t: Tables) -> list[str]:
    """The question's words (as shown, in its order) that the page at ``path`` does not hold by any
    route (``held_words``); none for a question in a language KRouter cannot read, whose words are its
    translation's in another language (an agent-loop run: a right citation through the English
    translation listed "cuántas", "peticiones" as missing, and the agent could not tell it from a
    neighbour)."""
    units = question_units(question, index, t)
    if unreadable(question, units, t, index):
        return []
    held = _held(units, path, index, t)
    return [u.text for u in units if u.text not in held]


def held_words(question: str, path: str, index: Index, t: Tables) -> set[str]:
    """The question's words (as shown) that the page at ``path``, or a replaced page leading to it,
    holds in its title, aliases, tags, path or text, by any route (db→database, a translation).

    A route of several terms (PR → pull request, a Chinese word's bigrams) counts only where its terms
    stand together: all in the title, aliases, tags and path, or all in one passage. The lookup's
    postings hold it page-wide, so "pulls" in one paragraph and "request" in another would make a page
    about webhooks hold "PR", and the teach check let a pull-request question be taught onto it."""
    return _held(question_units(question, index, t), path, index, t)


def _held(units: list[Unit], path: str, index: Index, t: Tables) -> set[str]:
    """``held_words`` for the question's units, looked up already."""
    pid = t.by_path.get(path)
    if pid is None:
        return set()
    mine = {pid, *t.predecessors.get(pid, ())}
    held: set[str] = set()
    passages: list[frozenset[str]] | None = None
    for u in units:
        if not any(u.postings[p][0] or u.postings[p][2] for p in mine if p in u.postings):
            continue
        if any(_named_by(index, alt, mine) for alt in u.alts):
            held.add(u.text)
            continue
        if passages is None:
            passages = [frozenset(terms.split()) for p in mine for _line, terms in index.passage_rows(p)]
        if any(u.in_terms(terms) for terms in passages):
            held.add(u.text)
    return held


def _named_by(index: Index, alt: tuple[str, ...], mine: set[int]) -> bool:
    """True when one of the pages ``mine`` holds the route ``alt``: its one term in its fields or text,
    or all its terms in its title, aliases, tags and path."""
    if len(alt) == 1:
        found = index.holding(alt[0], copy=False)
        return any(found[p][0] or found[p][2] for p in mine if p in found)
    per = [index.holding(term, copy=False) for term in alt]
    return any(all(p in found and found[p][0] for found in per) for p in mine)


def trigger_blocker(question: str, path: str, index: Index, t: Tables) -> tuple[str, str] | None:
    """(the word, as it matched, and the other page) that would keep ``question``, as a trigger of the
    page at ``path``, from counting for a question that does not hold it whole
    (``fired_triggers.fired_triggers``): a word the page lacks while another current page's title, aliases,
    tags or path hold it, by any route (cost→费用 of an alias 费用报销); None when no word does."""
    pid = t.by_path.get(path)
    if pid is None:
        return None
    mine = {pid, *t.predecessors.get(pid, ())}
    for u in question_units(question, index, t):
        if named_elsewhere(u, mine, index, t):
            other = min(
                (
                    p
                    for p, tf in u.postings.items()
                    if tf[0] and p not in mine and p in t.pages and not t.pages[p].replaced
                ),
                key=lambda p: t.pages[p].path,
            )
            return u.shown_for([other]), t.pages[other].path
    return None
