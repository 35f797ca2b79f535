"""The normal form every text is read in before it is cut into words: NFKC, case-folded, with what
prints as nothing dropped. The index and every question go through it, so a change here is a change
of ``TOKENIZER_VERSION`` (krouter.tokens.version)."""

from __future__ import annotations

import unicodedata
from functools import cache

from krouter.lazy_pattern import lazy_pattern

# Characters that print as nothing (zero-width space and joiners, word joiner, BOM, soft hyphen, the
# direction marks, embeddings and isolates, variation selectors: 葛\U000e0100城 is how a Japanese name's
# glyph is pinned): pasted text carries them inside words, and left in they split "data\u200bbase" into
# two words. Arabic's short vowels and tatweel and Hebrew's points are optional in writing (a page
# without them is the same words), so they are dropped too, as search engines do.
_INVISIBLE = lazy_pattern(
    "[\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufe00-\ufe0f\ufeff\U000e0100-\U000e01ef"
    "\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7\u0640\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e4"
    "\u06e7\u06e8\u06ea-\u06ed]"
)


# "US" in capitals is the country: case-folded, it would be the pronoun "us", a stop word, and "US
# warehouse" would lose its only distinguishing word (and 美国 its dictionary sense "US"). Written
# "USA" before case-folding, it meets "USA" and "U.S.A." pages alike. Latin letters or digits either
# side make another word (USB, "US2"); a Han character does not (发往US仓). After NFKC, so full-width
# ＵＳ is matched too.
# The letter U first: a pattern opening with the look-behind was tried at every character (130 µs for
# 4 KB of text, a fifth of tokenising it); this one only where a U stands.
# "U.S.A" with no final dot is the country too, and nothing runs into it ("U.S.Army", "U.S.A.F." are
# left as they were, not glued into "USAArmy", "USA.F.").
_US = lazy_pattern(r"U(?<![A-Za-z0-9]U)(?:S|\.S\.(?:A\.?)?)(?![A-Za-z0-9]|\.[A-Za-z0-9])")


def normalize(text: str) -> str:
    """NFKC-normalise and case-fold, so full-width letters, ligatures and case all meet; characters that
    print as nothing and optional vowel points are dropped; "US" in capitals (the country) becomes
    "usa", not the pronoun."""
    folded = _INVISIBLE.sub("", _US.sub("USA", unicodedata.normalize("NFKC", text))).casefold()
    # Turkish İ folds to i and a combining dot: İstanbul must meet Istanbul.
    return folded.replace("i\u0307", "i") if "\u0307" in folded else folded


# The Latin blocks whose letters carry accents: Latin-1 Supplement, Latin Extended-A and -B, and Latin
# Extended Additional (first and last code point of each).
_ACCENT_BLOCKS = ((0xC0, 0x24F), (0x1E00, 0x1EFF))
# Those blocks as a regex character range, for the patterns that look for an accented letter.
ACCENTED_LETTERS = "".join(f"{chr(first)}-{chr(last)}" for first, last in _ACCENT_BLOCKS)


def without_accents(word: str) -> str:
    """``word`` (normalised) with its Latin letters' accents dropped, as SQLite's unicode61 tokenizer
    drops them: notes write "Inês", "José", "Zoë" and "café", and people type them bare. Index terms,
    and the text read for them (``terms.word_text``), drop them; a question's words as a receipt shows
    them keep them, and so tell a language (läuft, cómo). One letter for one, so a line's positions
    hold; letters with no accent to drop (ø, æ, ł) stay."""
    if not has_accent(word):
        return word
    return word.translate(_latin_bases())


def has_accent(text: str) -> bool:
    """True when ``text`` holds a letter of the accented Latin blocks; a Chinese page is scanned for one
    in C, not translated character by character."""
    return not text.isascii() and _ACCENTED.search(text) is not None


_ACCENTED = lazy_pattern(f"[{ACCENTED_LETTERS}]")


@cache
def _latin_bases() -> dict[int, str]:
    """Each accented letter of the Latin blocks mapped to its letter without the accent."""
    table: dict[int, str] = {}
    for first, last in _ACCENT_BLOCKS:
        for code in range(first, last + 1):
            parts = unicodedata.normalize("NFD", chr(code))
            base = "".join(ch for ch in parts if not unicodedata.combining(ch))
            if base != chr(code) and len(base) == 1 and base.isascii() and base.isalpha():
                table[code] = base
    return table
