"""One CC-CEDICT entry's senses as translations: which senses translate, into which English words.

The store (``krouter.tokens.bilingual``) is compiled from what these rules make of each line: a sense
short enough to be one translation, its listed one-word synonyms for English to Chinese, a place's name
without its gloss; not a cross-reference, a classifier note, a negation or a phrasal verb.
"""

from __future__ import annotations

import re

from krouter.tokens.terms import english_terms

# A sense of more content words than this is a definition, not a translation.
MAX_SENSE_WORDS = 2
# The first senses of an entry are its common ones; later ones are rare readings that add noise.
MAX_SENSES = 4
_PAREN = re.compile(r"\([^)]*\)")
# Senses that point at other entries or describe usage rather than translate.
_NOT_A_TRANSLATION = re.compile(
    r"^(?:surname|variant of|old variant of|see |see also|cl:|abbr\. for|used in|classifier for|"
    r"bound form|erhua variant|japanese variant|taiwan pr|also pr|also written|pr\. |euphemism for)"
)
# A proper name followed by its gloss ("Rotterdam, port city in the Netherlands", "Chicago, USA"): the
# name is the translation, the gloss is not (it made the sense a definition, or a phrase no page holds).
_NAMED = re.compile(r"^([A-Z][\w'.-]*(?: [A-Z][\w'.-]*)*), ")
# Chinese a sense writes inline ("United Kingdom 聯合王國|联合王国[Lian2 he2 wang2 guo2]"): left in, the
# sense was a phrase no page holds or too long to translate (英国 had no translation).
_INLINE_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff|]+(?:\[[^\]]*\])?")
# A proper noun's sense that names it, then describes it in three words or more without a comma (not
# "Sichuan opera", a thing of its own): the capitalised words first.
_LEADING_NAME = re.compile(r"^([A-Z][\w'.-]*(?: [A-Z][\w'.-]*)*) (?=[a-z(]\S* \S+ \S)")

# Synonyms that stop-word removal would turn into another word: a negation anywhere ("not to allow" is
# not "allow", 吹了 "to have not succeeded" not "succeed", 及时 "without delay" not "delay") and a
# phrasal verb ("to set up" is not "set": D25 saw 设置 answer a checkpoint question through "set").
_NEGATED = re.compile(r"\b(?:not|no|never|without|cannot)\b|n't\b")
_PHRASAL = re.compile(
    r"^(?:to )?[a-z]+ (?:up|down|out|off|in|on|over|back|away|through|about|around)(?: to)?$"
)


def senses(defs: str, proper: bool = False) -> list[tuple[list[tuple[str, str]], list[str], bool]]:
    """Each usable sense of an entry, commonest first: its English content words as (stemmed term, word
    as written) when it is short enough to be one translation (else empty), the English words it
    translates into Chinese: each one-word synonym it lists ("to link; to join; to connect": link, join,
    connect), else its one word unless it is negated ("not to speak" is not "speak"), and whether it is
    a place's name without its gloss. A ``proper`` noun's sense (the entry's pinyin is capitalised) may
    run its gloss on without a comma ("Chengdu subprovincial city and capital of Sichuan")."""
    out = []
    for raw in defs.split("/")[:MAX_SENSES]:
        if _NOT_A_TRANSLATION.match(raw.lower()):  # before the Chinese goes: "see 西安區" is no "see"
            continue
        sense = " ".join(_INLINE_HAN.sub(" ", raw).split())
        named = _NAMED.match(sense) or (_LEADING_NAME.match(sense) if proper else None)
        if named and not plain_name(named.group(1)):
            continue
        plain = _PAREN.sub(" ", named.group(1) if named else sense).strip().lower()
        if not plain or _NOT_A_TRANSLATION.match(plain):
            continue
        words = [(term, word) for word in plain.split() for term in english_terms(word)[:1]]
        # A numeral's sense (六: "6") would let any page holding the number stand for the word.
        if not (0 < len(words) <= MAX_SENSE_WORDS) or any(term.isdigit() for term, _ in words):
            words = []
        if ";" in plain:
            english = _synonyms(plain)
        else:
            english = [words[0][0]] if len(words) == 1 and not _NEGATED.search(plain) else []
        if words or english:
            out.append((words, english, named is not None))
    return out


def plain_name(name: str) -> bool:
    """True for a place's name of plain words of four letters or more ("Lin'an" would reach "lin")."""
    return all(word.isascii() and word.isalpha() and len(word) >= 4 for word in name.split())


def _synonyms(sense: str) -> list[str]:
    """The stemmed word of each one-word synonym a sense lists ("to link; to join; to connect"), for
    English to Chinese only: the other way, more English words per Chinese word were more chances for a
    colloquial question to meet a generic English page word (处理 → handle, deal, process; D25, refused
    by the held-out sets)."""
    out = []
    for synonym in sense.split(";"):
        plain = synonym.strip()
        if not plain or _NOT_A_TRANSLATION.match(plain) or _NEGATED.search(plain) or _PHRASAL.match(plain):
            continue
        terms = [term for w in plain.split() for term in english_terms(w)[:1]]
        if len(terms) == 1 and not terms[0].isdigit():
            out.append(terms[0])
    return out
