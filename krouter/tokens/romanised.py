"""Chinese names as English text writes them: pinyin without tones ("Ruixin" for 瑞芯, 明辉 as "Minghui").

A bilingual team writes its suppliers, people and places in characters on Chinese pages and in pinyin
on English ones, and no dictionary lists them: a company's or a person's name is not a word. So a
question word the dictionary does not know is read as syllables, both ways: a Latin word as the
characters the vault holds that it spells (two to four syllables of two letters or more, so that an
ordinary English word rarely parses), a Han word as its spellings. The router keeps only the spellings
a page holds, as it does for translations; the readings come from the dictionary's single-character
entries (CC-CEDICT, see ``krouter.tokens.bilingual``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from functools import lru_cache

from krouter.tokens import bilingual

MIN_SYLLABLES = 2
MAX_SYLLABLES = 4
# One-letter syllables (a, e, o) would let most English words parse as pinyin.
MIN_SYLLABLE_LETTERS = 2
# Han words tried for one Latin word, over all its readings as syllables: the vault's characters for a
# common syllable run to dozens, and each try is an index lookup.
MAX_WORDS = 64
# Spellings tried for one Han word (a polyphonic character multiplies them).
MAX_SPELLINGS = 8
# Characters tried for one syllable, the commonest first: names are written in common characters, and
# each one the vault may hold is an index look-up.
MAX_CHARACTERS = 24


def spellings(word: str) -> tuple[tuple[str, ...], ...]:
    """The pinyin spellings of a Han word of two to four characters, tones dropped, as its syllables
    (瑞芯: ("rui", "xin")); none when a character has no reading."""
    if not MIN_SYLLABLES <= len(word) <= MAX_SYLLABLES:
        return ()
    options = [readings(char) for char in word]
    if not all(options):
        return ()
    return tuple(itertools.islice(itertools.product(*options), MAX_SPELLINGS))


def hanzi(word: str, held: Callable[[str], bool]) -> Iterator[str]:
    """Han words that the Latin ``word`` spells in pinyin ("minghui": 明辉), built from characters for
    which ``held`` is true, at most MAX_WORDS of them, fewest syllables first."""
    letters = word.lower()
    if not (letters.isascii() and letters.isalpha()):
        return
    tried = 0
    for split in _splits(letters, syllables()):
        options: list[list[str]] = []
        for syllable in split:
            chars = [char for char in read_as(syllable, MAX_CHARACTERS) if held(char)]
            if not chars:
                break
            options.append(chars)
        if len(options) < len(split):
            continue
        for combo in itertools.product(*options):
            if tried == MAX_WORDS:
                return
            tried += 1
            yield "".join(combo)


def _splits(letters: str, known: frozenset[str]) -> list[tuple[str, ...]]:
    """Every way to read ``letters`` as MIN_SYLLABLES to MAX_SYLLABLES known syllables, fewest first. A
    syllable after the first never starts with a, e or o (pinyin writes "Xi'an" to tell it from
    "xian"), so a one-syllable word is not read as two ("yuan" is not yu + an)."""
    out: list[tuple[str, ...]] = []
    if letters in known or len(letters) < MIN_SYLLABLES * MIN_SYLLABLE_LETTERS:
        return out

    def walk(start: int, parts: tuple[str, ...]) -> None:
        if start == len(letters):
            if len(parts) >= MIN_SYLLABLES:
                out.append(parts)
            return
        if len(parts) == MAX_SYLLABLES or (parts and letters[start] in "aeo"):
            return
        for end in range(start + MIN_SYLLABLE_LETTERS, min(len(letters), start + 6) + 1):
            if letters[start:end] in known:
                walk(end, (*parts, letters[start:end]))

    walk(0, ())
    return sorted(out, key=len)


@lru_cache(maxsize=4096)
def readings(char: str) -> tuple[str, ...]:
    """The toneless syllables the dictionary reads a single Han character as (瑞: "rui"), in order."""
    return bilingual.column("SELECT syllable FROM reading WHERE zh=? ORDER BY syllable", char)


@lru_cache(maxsize=4096)
def read_as(syllable: str, limit: int) -> tuple[str, ...]:
    """The ``limit`` commonest single Han characters (by jieba's counts) the dictionary reads as
    ``syllable`` (toneless): names are written in common characters."""
    return bilingual.column(
        "SELECT zh FROM reading WHERE syllable=? ORDER BY count DESC, zh LIMIT ?", syllable, limit
    )


@lru_cache(maxsize=4096)
def is_surname(char: str) -> bool:
    """True when the dictionary lists the Han character as a surname (李, 王, 张)."""
    return bool(bilingual.column("SELECT zh FROM surname WHERE zh=?", char))


@lru_cache(maxsize=1)
def syllables() -> frozenset[str]:
    """Every toneless syllable the dictionary reads a character as."""
    return frozenset(bilingual.column("SELECT DISTINCT syllable FROM reading"))
