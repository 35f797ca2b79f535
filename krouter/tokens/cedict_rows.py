"""CC-CEDICT lines as the dictionary store's rows: which senses translate, into which English words.

A sense short enough to be one translation (``MAX_SENSE_WORDS`` content words), the one-word synonyms a
sense lists (for English to Chinese), a place's name without its gloss; not a cross-reference, a
classifier note, a negation or a phrasal verb. ``krouter.tokens.bilingual`` compiles its store from
what these rules make of each line, and keys the store by what they make of its sample lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from krouter.lazy_pattern import lazy_pattern
from krouter.tokens.pinyin_names import join_apostrophes
from krouter.tokens.stems import accented_word, written_term
from krouter.tokens.terms import english_terms
from krouter.tokens.word_forms import derivation

# A sense of more content words than this is a definition, not a translation.
MAX_SENSE_WORDS = 2
# The first senses of an entry are its common ones; later ones are rare readings that add noise.
MAX_SENSES = 4

# A dictionary line: traditional, simplified, [reading], then its senses between slashes.
LINE = lazy_pattern(r"^\S+ (\S+) \[([^\]]*)\] /(.*)/\s*$")
_PAREN = lazy_pattern(r"\([^)]*\)")
# Senses that point at other entries or describe usage rather than translate.
_NOT_A_TRANSLATION = lazy_pattern(
    r"^(?:surname|variant of|old variant of|see |see also|cl:|abbr\. for|used in|classifier for|"
    r"bound form|erhua variant|japanese variant|taiwan pr|also pr|also written|pr\. |euphemism for)"
)
# A proper name followed by its gloss ("Rotterdam, port city in the Netherlands", "Chicago, USA"): the
# name is the translation, the gloss is not (it made the sense a definition, or a phrase no page holds).
NAMED = lazy_pattern(r"^([A-Z][\w'.-]*(?: [A-Z][\w'.-]*)*), ")
# A proper noun's name followed by its gloss with no comma: its capitalised words, then lower case.
_LEADING_NAME = lazy_pattern(r"^([A-Z][\w'.-]*(?: [A-Z][\w'.-]*)*) (?=[a-z(])")
# A syllable as names are romanised: the tone number dropped, ü ("u:") written u (Lü is "Lu" in English),
# with a vowel (CC-CEDICT writes "xx5" for a character it has no reading for).
_SYLLABLE = lazy_pattern(r"^([a-z]*[aeiou][a-z]*)[1-5]?$")
_LETTERS_ONLY = lazy_pattern(r"[^a-z]")
_LETTERS = lazy_pattern(r"[a-z]*")
HAN_WORD = lazy_pattern(r"^[\u3400-\u4dbf\u4e00-\u9fff]{2,}$")
# Synonyms that stop-word removal would turn into another word: a negation anywhere ("not to allow" is
# not "allow", 吹了 "to have not succeeded" not "succeed", 及时 "without delay" not "delay") and a
# phrasal verb ("to set up" is not "set": D25 saw 设置 answer a checkpoint question through "set").
_NEGATED = lazy_pattern(r"\b(?:not|no|never|without|cannot)\b|n't\b")
_PHRASAL = lazy_pattern(
    r"^(?:to )?[a-z]+ (?:up|down|out|off|in|on|over|back|away|through|about|around)(?: to)?$"
)


def senses(defs: str, reading: str = "") -> list[tuple[list[tuple[str, str]], list[tuple[str, str]], bool]]:
    """Each usable sense of an entry, commonest first: its English content words as (stemmed term, word
    as written) when it is short enough to be one translation (else empty), the English words it
    translates into Chinese, likewise: each one-word synonym it lists ("to link; to join; to connect":
    link, join, connect), else its one word unless it is negated ("not to speak" is not "speak"), and
    whether it is a place's name without its gloss. A proper noun's gloss may follow its name without a
    comma ("Chengdu subprovincial city and capital of Sichuan"): then the name counts only when it spells
    the entry's ``reading`` (cheng2 du1), which "History of the Ming dynasty" (明史) or "Sichuan opera"
    (川剧) do not."""
    out = []
    for sense in defs.split("/")[:MAX_SENSES]:
        named = NAMED.match(sense) or _spelled_name(sense, reading)
        if named and not _plain_name(named.group(1)):
            continue
        plain = _PAREN.sub(" ", named.group(1) if named else sense).strip().lower()
        if not plain or _NOT_A_TRANSLATION.match(plain):
            continue
        words = [(term, word) for word in plain.split() for term in _first_term(word)]
        # A numeral's sense (六: "6") would let any page holding the number stand for the word.
        if not (0 < len(words) <= MAX_SENSE_WORDS) or any(term.isdigit() for term, _ in words):
            words = []
        if ";" in plain:
            english = _synonyms(plain)
        else:
            english = words[:1] if len(words) == 1 and not _NEGATED.search(plain) else []
        if words or english:
            out.append((words, english, named is not None))
    return out


# A dictionary's senses write the same English words over and over: each word read once per compile (a
# third of compiling the store went to reading them again; ``compile_lines`` empties both when done, so
# that a long-running server keeps none of it).
@cache
def _first_term(word: str) -> tuple[str, ...]:
    return tuple(english_terms(word)[:1])


_derivation = cache(derivation)


def _spelled_name(sense: str, reading: str) -> re.Match[str] | None:
    """The capitalised words a proper noun's sense starts with, when they spell its reading in pinyin
    (tones dropped, ü written u) and a gloss in lower case follows; else None."""
    lead = _LEADING_NAME.match(sense) if reading[:1].isupper() else None
    if lead is None:
        return None
    syllables = [romanised(s) or "" for s in reading.split()]
    if not all(syllables):
        return None
    return lead if _LETTERS_ONLY.sub("", lead.group(1).lower()) == "".join(syllables) else None


def romanised(syllable: str) -> str | None:
    """A dictionary reading's syllable as names write it ("Lu:3" → "lu"), or None when it has no vowel
    (a character with no reading)."""
    m = _SYLLABLE.match(syllable.lower().replace("u:", "u"))
    return m.group(1) if m else None


# An English word's Chinese translation: (en term, zh) -> (the rank of its commonest sense, the forms
# of the English word its senses write, ``word_forms.derivation``'s, sorted: the store's key hashes them).
En2Zh = dict[tuple[str, str], tuple[int, tuple[str, ...]]]


def compile_lines(lines: Iterable[str]) -> tuple[dict[tuple[str, str], str], En2Zh]:
    """The store's rows for these dictionary lines: (zh, en terms) -> en as written, and ``En2Zh``'s. A
    place's name that stems like another English word ("Daye" and "day") is left out: it would translate
    that word."""
    try:
        return _compiled(lines)
    finally:
        # Emptied even when a damaged dictionary file stops the compile halfway (a server goes on).
        _first_term.cache_clear()
        _derivation.cache_clear()


def _compiled(lines: Iterable[str]) -> tuple[dict[tuple[str, str], str], En2Zh]:
    zh2en: dict[tuple[str, str], str] = {}
    en2zh: En2Zh = {}
    names: list[tuple[str, int, list[tuple[str, str]]]] = []
    written: dict[str, set[str]] = {}
    for line in lines:
        if line.startswith("#"):
            continue
        m = LINE.match(line)
        if not m or not HAN_WORD.match(m.group(1)):
            continue
        word = m.group(1)
        for rank, (words, english, named) in enumerate(senses(m.group(3), m.group(2))):
            if named:
                names.append((word, rank, words))
                continue
            for term, as_written in words:
                # "beijing-harbin" writes the word "beijing"; "days" is another word than "daye".
                written.setdefault(term, set()).add(_LETTERS.match(as_written + " ").group())
            _add(zh2en, en2zh, word, rank, words, english, m.group(3))
    # The apostrophe tells pinyin names apart (济南 Jinan, 晋安 Jin'an): a name written with it whose
    # letters another name spells without it would reach that other place's pages.
    plain = {_letters(words) for _, _, words in names if not any("'" in w for _, w in words)}
    for word, rank, words in names:
        if any("'" in w for _, w in words) and _letters(words) in plain:
            continue
        if all(written.get(term, {as_written}) == {as_written} for term, as_written in words):
            _add(zh2en, en2zh, word, rank, words, words[:1] if len(words) == 1 else [])
    return zh2en, en2zh


def _add(
    zh2en: dict[tuple[str, str], str],
    en2zh: En2Zh,
    word: str,
    rank: int,
    words: list[tuple[str, str]],
    english: list[tuple[str, str]],
    source: str = "",
) -> None:
    """One sense of ``word`` into the store's rows; ``source`` is the entry's senses as the dictionary
    writes them (its letters' case)."""
    if words:
        # A two-word sense ("server push") is one phrase: a page must hold both words.
        zh2en.setdefault((word, " ".join(t for t, _ in words)), " ".join(w for _, w in words))
    # The rank keeps the dictionary's order of senses.
    for term, written in english:
        keys = {(term, word)}
        # A word with an accent the dictionary writes in lower case (résumé; not Réunion or Nestlé, names)
        # is also known as written: a question's accented word the dictionary knows is English, not a
        # mark of another language (``unread_language``).
        if (
            (accented := accented_word(written))
            and accented in source
            and (as_written := written_term(accented))
        ):
            keys.add((as_written, word))
        for key in keys:
            old_rank, forms = en2zh.get(key, (rank, ()))
            en2zh[key] = (min(rank, old_rank), tuple(sorted({*forms, _derivation(written)})))


def _letters(words: list[tuple[str, str]]) -> str:
    """A name's letters, as written, without spaces or apostrophes ("Jin'an" and "Jinan": jinan)."""
    return "".join(ch for _, w in words for ch in w if ch.isalpha())


def _plain_name(name: str) -> bool:
    """True for a place's name of plain words of four letters or more; a pinyin name written with an
    apostrophe is one word, as the index holds it ("Lin'an" is "linan", which a page writing "Lin'an" or
    "Linan" holds)."""
    return all(w.isascii() and w.isalpha() and len(w) >= 4 for w in join_apostrophes(name).split())


def _synonyms(sense: str) -> list[tuple[str, str]]:
    """(stemmed, as written) of each one-word synonym a sense lists ("to link; to join; to connect"), for
    English to Chinese only: the other way, more English words per Chinese word were more chances for a
    colloquial question to meet a generic English page word (处理 → handle, deal, process; D25, refused
    by the held-out sets)."""
    out = []
    for synonym in sense.split(";"):
        plain = synonym.strip()
        if not plain or _NOT_A_TRANSLATION.match(plain) or _NEGATED.search(plain) or _PHRASAL.match(plain):
            continue
        terms = [(term, w) for w in plain.split() for term in _first_term(w)]
        if len(terms) == 1 and not terms[0][0].isdigit():
            out.append(terms[0])
    return out
