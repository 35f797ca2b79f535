"""A question as looked up: its content units, each with the routes by which a page can hold it.

A unit is a question word (or, for a Chinese word jieba cut differently from the pages, its bigrams),
its translations into the vault's other script, its IDF weight and its postings over all routes.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

from krouter.index.store import Index
from krouter.lazy_pattern import lazy_pattern
from krouter.routing.question_words import asked_words
from krouter.routing.question_words import holding as _holding
from krouter.routing.tables import Tables
from krouter.tokens import abbreviations, bilingual, romanised, spoken_chinese, traditional
from krouter.tokens.chinese import fallback_bigrams
from krouter.tokens.compounds import CLOSED
from krouter.tokens.dates import DATE
from krouter.tokens.hiragana_words import other_kana
from krouter.tokens.measures import other_spellings
from krouter.tokens.scripts import HANGUL, is_cjk
from krouter.tokens.terms import AMOUNT, QueryTerm, english_terms, number_parts

# A page that holds a question word only through a translation counts it at this share of its term
# frequency when ranking (the decision counts it in full): a page holding the question's own word comes
# first, and a generic translation ("tool", "monitor") does not outrank the page in the question's language.
TRANSLATION_TF = 0.5
# A single Han character the vault never holds, left over from a question word (号 of 手机号, 钱 of
# 多少钱, 做 of 谁做的), weighs this share of a never-seen word: a character is a piece of many words,
# and its absence says less about the vault than a word's (docs/decisions.md D41).
UNSEEN_CHARACTER_SHARE = 0.5
# A question word keeps at most this many of its translations the vault holds (the dictionary's commonest
# senses first): later senses are rarer readings, and each one is a posting list to merge per question.
HELD_TRANSLATIONS = 3
# A question's katakana or Hangul word (one unit, looked up by its bigrams: D52), as the query terms hold it.
_BIGRAM_WORD = lazy_pattern(rf"[\u30a0-\u30ff\u31f0-\u31ff]{{3,}}|[{HANGUL}]{{3,}}")


@dataclass
class Unit:
    """One content unit of the question as looked up: its display text, the routes by which a page can
    hold it (each a tuple of index terms that must all be on the page: the word itself, its bigrams, a
    translation), its IDF weight and postings over all routes."""

    text: str
    key: str
    alts: tuple[tuple[str, ...], ...]
    df: int
    weight: float
    postings: dict[int, tuple[int, int, int]]
    # Pages that hold the unit only through a translation, with that translation (for the receipt).
    translated: dict[int, str] = field(default_factory=dict)

    def in_terms(self, terms: frozenset[str] | set[str]) -> bool:
        """True when a passage's terms hold the unit by one of its routes."""
        return any(all(term in terms for term in alt) for alt in self.alts)

    def shown_for(self, page_ids: list[int]) -> str:
        """The unit as a receipt shows it for a page: with the translation it matched through, if any."""
        via = next((self.translated[p] for p in page_ids if p in self.translated), None)
        return f"{self.text}→{via}" if via else self.text


def question_units(question: str, index: Index, t: Tables) -> list[Unit]:
    """The content units of ``question`` with their postings in ``index``."""
    units: list[Unit] = []
    n = t.n_pages
    asked = asked_words(question, index, t)
    names = _pinyin_names(asked, question, index) if t.has_han else {}
    measures = other_spellings(asked, question)
    for i, qt in enumerate(asked):
        terms: tuple[str, ...] = (qt.term,)
        rows = _holding(index, terms)
        if not rows and is_cjk(qt.term):
            # jieba may cut the question's word differently from the page's text; the page's
            # bigrams then still match, if all of them sit on one page. A Simplified word the vault
            # writes in Traditional characters (备份: 備份) is looked up as the vault writes it.
            if pairs := tuple(fallback_bigrams(qt.term)):
                terms, rows = pairs, _holding(index, pairs)
            if not rows and (written := traditional.held_in_traditional(qt.term, index.has_term)):
                terms = (written,) if index.has_term(written) else tuple(fallback_bigrams(written))
                rows = _holding(index, terms)
        elif not rows and number_parts(qt.term):
            terms = number_parts(qt.term)
            rows = _holding(index, terms)
        elif not rows and _amount_like(qt.term) and (amount := _holding(index, (AMOUNT + qt.term,))):
            # A bare number no page writes bare, that a page writes as an amount ($1.99, 1.99 元) or
            # grouped in thousands (1,000 of "每 1000 台").
            terms, rows = (AMOUNT + qt.term,), amount
        alts = [terms]
        # A word's weight is how rare it is in the question's own words, whatever its translations
        # match: a word the vault never writes as asked weighs what a never-seen word weighs, so it
        # counts fully when a translation finds it on a page and fully when the page lacks it.
        own_df = len(rows)
        translated: dict[int, str] = {}
        merged = False
        grouped = [(AMOUNT + qt.term,)] if rows and terms == (qt.term,) and _groupable(qt.term) else []
        if kana := other_kana(qt.term):  # ごみ and ゴミ are one word
            grouped.append((kana,) if len(kana) == 2 else tuple(fallback_bigrams(kana)))
        if "," in qt.text and qt.term.replace(".", "").isdigit():
            # Asked grouped (80,443): its parts too, as a page may list them (ports 80 and 443).
            grouped.append(tuple(qt.text.split(",")))
        spellings = _closed_forms(qt, t.has_closed) + _acronym_plural(qt.term) + grouped + measures.get(i, [])
        for closed in spellings:
            # The pages that write the question's hyphenated word closed (rollout for roll-out), or its
            # closed word hyphenated (roll-out for rollout), an acronym's plural (PRs for PR), its
            # number grouped in thousands (1,000 for 1000) or a quantity spelled the other way (5kg for
            # 5 kg) hold it too: as a spelling, not a translation.
            if held := _holding(index, closed):
                rows, merged = _with_closed(rows, held), True
                alts.append(closed)
        # A date (§03-04) is a day, in any language: no word to translate.
        routes = (
            []
            if qt.term.startswith(DATE)
            else _translations(index, qt.term, qt.text, t, question) + names.get(i, [])
        )
        for label, alt, held in routes:
            if held:
                if not merged:
                    # ``rows`` may be the index's kept list (read, never changed): merge into a copy.
                    rows, merged = dict(rows), True
                _merge(rows, translated, held, label)
            alts.append(alt)
        df = len(rows)
        weight = math.log(1 + (n - own_df + 0.5) / (own_df + 0.5)) if n else 1.0
        if own_df == 0 and len(qt.term) == 1 and is_cjk(qt.term):
            weight *= UNSEEN_CHARACTER_SHARE
        elif df == 0 and len(terms) > 1 and _BIGRAM_WORD.fullmatch(qt.term):
            # A katakana word no page holds weighs what its bigrams did before it was one unit: a
            # Japanese question's kanji compound counts as its overlapping bigrams (設定方法: three), and
            # one missing word against them let the printer page answer "how do I set up the scanner?"
            # (スキャナー) at 0.63. The receipt still names the one word. So does a Hangul word no page
            # holds (플레이스토어: "how long does Play Store review take" was cited on an SMS vendor's
            # template review); one a page holds counts once (타임아웃, against 로그 the page lacks).
            weight *= len(terms)
        units.append(Unit(qt.text, qt.term, tuple(alts), df, weight, rows, translated))
    return units


def _closed_forms(qt: QueryTerm, marked: bool) -> list[tuple[str, ...]]:
    """The routes by which a page holds an English question word as a spelling of a hyphenated word:
    for a part of one (roll of roll-out), the word closed as pages write it (rollout) and, when some
    page writes a hyphenated word (``marked``), as pages index theirs (‐rollout); for any other English
    word, that marked form of it."""
    if is_cjk(qt.term) or not qt.term.isalpha():
        return []
    forms = [(qt.closed,)] if qt.closed else []
    if marked:
        forms.append((CLOSED + (qt.closed or qt.term),))
    return forms


def _acronym_plural(term: str) -> list[tuple[str, ...]]:
    """The plural a page writes of an acronym the question writes singular (PR: PRs, SDK: SDKs, MR: MRs),
    which the stemmer leaves as it is: a word with no vowel keeps its s. An agent-loop run's "a pay-api
    PR" was refused for naming 'pr', "which no page of the vault mentions", on the page saying "PRs"."""
    if 2 <= len(term) <= 5 and term.isascii() and term.isalpha() and not _VOWELS.intersection(term):
        return [(term + "s",)]
    return []


_VOWELS = frozenset("aeiouy")


def _groupable(term: str) -> bool:
    """True for a number a page may write grouped in thousands: four digits or more."""
    return term.isdigit() and len(term) >= 4


def _amount_like(term: str) -> bool:
    """True for a number a page may write as an amount (dotted: $1.99) or grouped in thousands."""
    return "." in term or _groupable(term)


def _with_closed(
    rows: dict[int, tuple[int, int, int]], closed: dict[int, tuple[int, int, int]]
) -> dict[int, tuple[int, int, int]]:
    """A unit's postings (not changed: they may be the index's kept list) with the pages that hold it
    closed added after them, at the closed word's tfs; a page holding both keeps its own."""
    held = dict(rows)
    held.update(itertools.filterfalse(lambda item: item[0] in rows, closed.items()))
    return held


def _merge(
    rows: dict[int, tuple[int, int, int]],
    translated: dict[int, str],
    held: dict[int, tuple[int, int, int]],
    label: str,
) -> None:
    """Merge a translation's postings into a unit's ``rows``: a page the unit did not hold yet is added
    (after the others, in the translation's order) with its tfs at TRANSLATION_TF and ``label`` noted;
    a page it held keeps, per field, the larger of its tf and the translation's share. The result is
    the per-posting loop's, page order included: its added pages are the translation's pages not in
    ``rows`` before, in the order the translation lists them, and an updated page keeps its place.
    The added pages, most of a translation's, are found and written in C, their halved tfs worked out
    once per distinct (title, trigger, body) triple; only the pages both hold run Python code."""
    half = TRANSLATION_TF
    new = list(itertools.filterfalse(rows.__contains__, held))
    if len(new) < len(held):
        for pid in filter(rows.__contains__, held):
            old = rows[pid]
            m, g, b = held[pid]
            rows[pid] = (max(old[0], m * half), max(old[1], g * half), max(old[2], b * half))  # type: ignore[assignment]
    halves = _Halves()
    rows.update(zip(new, map(halves.__getitem__, map(held.__getitem__, new)), strict=True))
    translated.update(dict.fromkeys(new, label))


class _Halves(dict[tuple[int, int, int], tuple[float, float, float]]):
    """A tf triple at TRANSLATION_TF, worked out once per distinct triple (a decoded list holds a few
    dozen) and shared by the pages that have it."""

    def __missing__(self, tfs: tuple[int, int, int]) -> tuple[float, float, float]:
        half = TRANSLATION_TF
        found = self[tfs] = (tfs[0] * half, tfs[1] * half, tfs[2] * half)
        return found


def _translations(
    index: Index, term: str, word: str, t: Tables, question: str
) -> list[tuple[str, tuple[str, ...], dict[int, tuple[int, int, int]]]]:
    """(translation, index terms, postings) for a question word (``term`` as indexed, ``word`` as
    written): the other form of a common abbreviation, then at most HELD_TRANSLATIONS in the vault's
    other script that some page holds: a Chinese word as a word (or, over two characters, by all its
    bigrams), an English phrase by every one of its words; a translation no page holds takes no place.
    The postings are read once, here: for a single term, holding it is having postings."""
    # The other form of a common abbreviation (db / database) is a route like a translation, on top of
    # the dictionary's.
    short_long = [
        (shown, terms, held)
        for shown, terms in abbreviations.expansions(word)
        if (held := _holding(index, terms))
    ]
    # A spoken Chinese word's written form (礼拜 / 周) likewise, in the question's own script.
    for zh in spoken_chinese.written_forms(word, question):
        terms, held = _chinese_route(index, zh)
        if held:
            short_long.append((zh, terms, held))
    out: list[tuple[str, tuple[str, ...], dict[int, tuple[int, int, int]]]] = []
    if is_cjk(term):
        if t.has_latin:
            english = bilingual.to_english(term)
            for terms, shown in english:
                held = _holding(index, terms)
                if held:
                    out.append((shown, terms, held))
                    if len(out) == HELD_TRANSLATIONS:
                        break
            if not english:
                out.extend(_spelled(index, term))
    elif t.has_han:
        chinese = bilingual.to_chinese(term, written=word)
        for zh in chinese:
            terms, held = _chinese_route(index, zh)
            if held:
                out.append((zh, terms, held))
                if len(out) == HELD_TRANSLATIONS:
                    break
        if not chinese:
            out.extend(_named_in_hanzi(index, word))
    return short_long + out


def _spelled(index: Index, word: str) -> list[tuple[str, tuple[str, ...], dict[int, tuple[int, int, int]]]]:
    """A Han word no dictionary lists (a name: 瑞芯) as English pages write it in pinyin: joined
    ("ruixin") or, for a person (a surname first), as separate syllables ("Li Jun"). A spelling that is
    an English word ("mode" of 没得, "side" of 似地) or stems to another word is no name."""
    for syllables in romanised.spellings(word):
        joined = "".join(syllables)
        if english_terms(joined) != [joined] or bilingual.to_chinese(joined):
            continue
        forms = [(joined, (joined,))]
        if romanised.is_surname(word[0]) and all(english_terms(s) == [s] for s in syllables):
            forms.append((" ".join(syllables), syllables))
        for shown, terms in forms:
            held = _holding(index, terms)
            if held:
                return [(shown, terms, held)]
    return []


# A name English writes as one-syllable words, capitalised and side by side ("Li Jun", "Zhang Wei"): each
# word of the question with the one after it, when only spaces stand between them. Read once per
# question: a pattern built from each pair's words missed `re`'s cache whenever the words were new, as
# most questions' are, and was compiled again (6% of an English lookup at 10k pages in a profile).
_WORD_PAIRS = lazy_pattern(r"\b(\w+)(?=\s+(\w+))")


def _pinyin_names(
    asked: list[QueryTerm], question: str, index: Index
) -> dict[int, list[tuple[str, tuple[str, ...], dict[int, tuple[int, int, int]]]]]:
    """For two question words that are one name written in pinyin ("Li Jun": 李军), the Han word the
    vault holds for it, as a route of both words."""
    out: dict[int, list[tuple[str, tuple[str, ...], dict[int, tuple[int, int, int]]]]] = {}
    side_by_side: set[tuple[str, str]] | None = None
    for i, (first, second) in enumerate(itertools.pairwise(asked)):
        joined = first.text + second.text
        if i in out or not (joined.isascii() and joined.isalpha()):
            continue
        if side_by_side is None:
            side_by_side = set(_WORD_PAIRS.findall(question))
        if (first.text.capitalize(), second.text.capitalize()) not in side_by_side:
            continue
        found = _named_in_hanzi(index, joined, person=True)
        if found:
            out[i] = out[i + 1] = found
    return out


def _named_in_hanzi(
    index: Index, word: str, person: bool = False
) -> list[tuple[str, tuple[str, ...], dict[int, tuple[int, int, int]]]]:
    """A Latin word no dictionary lists, read as the pinyin of a Han name the vault holds ("Minghui":
    明辉; for a ``person``, a surname first). A Han word the dictionary lists (预案, 实例, 账号) is a
    word, not a name; of the rest, one must be held by more pages than all the others together (a name
    recurs; two characters that meet across a word boundary, 名回, seldom do), else there is no route."""
    found = []
    for zh in romanised.hanzi(word, index.has_term):
        if (person and not romanised.is_surname(zh[0])) or bilingual.to_english(zh):
            continue
        # Whether the word, or each of its bigrams, is held at all is kept per generation; most spellings
        # stop there, before any posting list is read.
        if index.has_term(zh) or (len(zh) > 2 and all(map(index.has_term, fallback_bigrams(zh)))):
            terms, held = _chinese_route(index, zh)
            if held:
                found.append((zh, terms, held))
    found.sort(key=lambda route: len(route[2]), reverse=True)
    if not found or len(found[0][2]) <= sum(len(route[2]) for route in found[1:]):
        return []
    return found[:1]


def _chinese_route(index: Index, zh: str) -> tuple[tuple[str, ...], dict[int, tuple[int, int, int]]]:
    """(index terms, postings) by which a page holds a Chinese word: the word itself, or, when no page
    holds it as a word and it has three or more characters, all of its bigrams (jieba may cut the
    page's text differently)."""
    held = _holding(index, (zh,))
    if held or len(zh) <= 2:
        return (zh,), held
    grams = tuple(fallback_bigrams(zh))
    return grams, _holding(index, grams)
