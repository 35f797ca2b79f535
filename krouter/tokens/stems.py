"""English words as the index holds them: one spelling, stemmed; and a Latin word with an accent, as
written (D169)."""

from __future__ import annotations

from functools import lru_cache

import Stemmer

from krouter.lazy_pattern import lazy_pattern
from krouter.tokens.normal_form import ACCENTED_LETTERS, has_accent, without_accents
from krouter.tokens.spelling import canonical
from krouter.tokens.stopwords import ENGLISH

# A Latin word written with an accent is also indexed as written, marked and outside the length: its
# term drops the accent (Inês is ines, as people type it), and whether the vault writes it so tells a
# word of the notes from a word of another language that meets an English stem once bare (équipe is
# no "equip" of equipment: ``routing.unread_language``).
WRITTEN = "\u2032"

_stemmer = Stemmer.Stemmer("english")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The stem of an English word, in one spelling (colour is color: the stemmer alone keeps the two
    apart)."""
    return _stemmer.stemWord(canonical(word))


def written_term(word: str) -> str | None:
    """The term of a Latin word that carries an accent (cómo, équipe, Inês), stemmed as written, the
    accent kept; None for any other word, and for a function word written with one (à, só)."""
    if word.isascii() or (bare := without_accents(word)) == word or bare in ENGLISH:
        return None
    return stem(word)


# A word of Latin letters with an accented one among them.
_LATIN = f"a-zA-Z{ACCENTED_LETTERS}"
_ACCENTED = lazy_pattern(f"(?<![{_LATIN}])[{_LATIN}]*[{ACCENTED_LETTERS}][{_LATIN}]*")


def written_terms(norm: str) -> list[str]:
    """The as-written terms (``WRITTEN``) of a normalised text's accented Latin words, in order."""
    # Most texts have no accented letter, and are not searched word by word.
    if not has_accent(norm):
        return []
    return [WRITTEN + term for word in _ACCENTED.findall(norm) if (term := written_term(word))]


def accented_word(text: str) -> str | None:
    """The first Latin word of ``text`` with an accent in it (a dictionary sense's "résumé,"), or None."""
    found = _ACCENTED.search(text)
    return found.group() if found else None
