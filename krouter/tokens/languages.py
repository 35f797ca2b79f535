"""Words that show a question is written in a language KRouter does not read.

A question most of whose words no page holds and no dictionary knows is either in another language
("Wann läuft die Vollsicherung?") or about things the vault never names ("kafka debezium",
"Klarna Sofort refunds?"). Only the first leaves the agent's translation as the only bridge to the
notes (docs/decisions.md D89, D91), so it needs evidence of a language, not only unknown words: a word
in a script other than Latin and Han (kana, hangul, Cyrillic, Greek, Arabic...), or a lower-case Latin
word with a letter English does not write (läuft, cómo, długo), or one of the commonest function words
of the Latin-script languages nearest to English (``stopwords.FOREIGN``). Two such words are needed
(one "resumé" or "est" is English); a language with fewer (Indonesian, say) is read as unknown words:
refused as before, the safe side.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from krouter.lazy_pattern import lazy_pattern
from krouter.tokens.names import opens_a_sentence, written_in_lower_case
from krouter.tokens.scripts import HAS_HAN
from krouter.tokens.stopwords import ENGLISH, FOREIGN, GERMAN

_WORD = lazy_pattern(r"[^\W\d_]+")


def marks_a_language(word: str, question: str) -> bool:
    """True when ``word`` (an unread Latin-script unit of ``question``, folded to lower case) shows the
    question is in a language: a listed function word in lower case or opening a sentence (wie, Qué), or
    a word in lower case holding a letter outside English's alphabet (läuft, cómo, długo). A capitalised
    word with such a letter is as likely a name (Zoë, Tromsø) and is not evidence."""
    letters = [ch for ch in unicodedata.normalize("NFKC", word) if ch.isalpha()]
    if not letters or not all(map(_latin, letters)):
        return False
    if word in FOREIGN:
        # A function word: in lower case, or capitalised because it opens a sentence (Qué, Welche).
        return written_in_lower_case(word, question) or opens_a_sentence(word, question)
    return not all(ch.isascii() for ch in letters) and written_in_lower_case(word, question)


def lone_foreign_letters(question: str) -> set[str]:
    """The one-letter words of ``question`` that say "is" in Portuguese (é) and Italian (è): function
    words, too short to be units of a lookup. Not French à, which English writes (à la carte), nor a
    letter alone such as ß, which is no word."""
    return {w for w in _WORD.findall(unicodedata.normalize("NFKC", question)) if w in ("é", "è")}


def in_another_script(question: str) -> bool:
    """True when ``question`` holds a word of a script other than Latin and Han (kana, hangul, Cyrillic,
    Greek, Arabic...): a language of its own, whatever its words. Two letters running: a lone µ (NFKC's
    Greek mu) or σ beside digits is a unit or a symbol."""
    run = 0
    for ch in unicodedata.normalize("NFKC", question):
        run = run + 1 if ch.isalpha() and not _latin(ch) and not HAS_HAN.match(ch) else 0
        if run == 2:
            return True
    return False


def english_function_words(question: str) -> int:
    """How many distinct English function words of two letters or more (``stopwords.ENGLISH``: the,
    is, from) ``question`` holds: English borrowing a few foreign words ("Is the crème brûlée vegan?",
    "…the fridge, por favor?") still holds more of them than marks of the other language."""
    words = _WORD.findall(unicodedata.normalize("NFKC", question).lower())
    return len({word for word in words if len(word) > 1 and word in ENGLISH})


def capitalises_nouns(question: str, words: Iterable[str]) -> bool:
    """True when one of ``words`` (unread units of ``question``) is a German function word in lower case
    or opening a sentence (wie, Welche): the question is German, which writes every noun with a capital,
    so there a capital does not by itself mark a name. French, Spanish, Dutch and the rest capitalise
    names only, as English does; so do Russian and Greek."""
    return any(
        word in GERMAN and (written_in_lower_case(word, question) or opens_a_sentence(word, question))
        for word in words
    )


def _latin(ch: str) -> bool:
    return ch.isascii() or unicodedata.name(ch, "").startswith("LATIN")
