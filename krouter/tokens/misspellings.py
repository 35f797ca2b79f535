"""A question word typed with two letters swapped (januray, earthqauke, recieve) read as the word meant.

People type questions fast, and a word the vault never holds weighs the most a word can: one slip in the
word the question is about refused the page that answers it ("do we still do the defrost in the second
week of Januray?" was refused as naming something no page mentions). A word is read as another only
when nothing says it is a word of its own and exactly one word fits (docs/decisions.md D188):

- it is written in ASCII letters, from MIN_LETTERS to MAX_LETTERS long, and is no function word; the
  question is in English, not in a language whose words are a slip from an English one (semaine);
- no page holds it and the dictionary does not know it (CC-CEDICT's English side, with the work
  glossary's), and it does not read as pinyin: "anming" is a swap from "naming", "baoting" from
  "boating", and either may be a person (安明, 宝亭), whose page the pinyin route finds;
- swapping two neighbouring letters gives exactly one word that the dictionary knows as more than a
  name (its translations not all names: 一月 for January, not 玛丽亚 for Maria) and that a page holds;
- one written as a name (a capital mid-sentence) is read only as a month or a day.

Only swaps: a letter left out, added or changed reads far too many words as others. CC-CEDICT's English
side lacks many everyday words (absence, fridge, colder, bought, rental), and a cold review found each
of them read as a held word one such slip away (fridge as ridge, rental as dental, faulty as faculty),
surnames that are also words (bakker as baker) and pinyin given names (huiling as hailing) likewise, and
neighbour pages cited at full confidence. Swapping two letters of a word rarely makes another.

The receipt shows the reading (januray→january), like a translation.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from krouter.lazy_pattern import lazy_pattern
from krouter.tokens import bilingual, romanised
from krouter.tokens.dates import MONTH_NAMES
from krouter.tokens.languages import marks_a_language
from krouter.tokens.names import WEEKDAYS, written_as_name
from krouter.tokens.stems import stem
from krouter.tokens.stopwords import ENGLISH

# The shortest word read as a slip of another (a swap in a short one lands on a word too often: form,
# from), and the longest (a run of letters that long is a sequence or a code, not a word).
MIN_LETTERS = 6
MAX_LETTERS = 30
_WORD = lazy_pattern(r"[a-z]+")
_ANY_WORD = lazy_pattern(r"[^\W\d_]+")
_NAMED_AS_NAMES = MONTH_NAMES | frozenset(WEEKDAYS)


def respelling(word: str, question: str, held: Callable[[str], bool]) -> tuple[str, str] | None:
    """(the word meant, as written, and its index term) for a ``word`` of ``question`` that no page
    holds and the dictionary does not know, when swapping two of its neighbouring letters gives exactly
    one common word the dictionary knows and the vault holds (``held``, by index term); else None."""
    lower = word.lower()
    if not MIN_LETTERS <= len(lower) <= MAX_LETTERS or not _WORD.fullmatch(lower) or lower in ENGLISH:
        return None
    own = stem(lower)
    if held(own) or _known(own) or romanised.reads_as_pinyin(lower) or _in_another_language(question):
        return None
    swaps = [s for s in dict.fromkeys(_swaps(lower)) if s != lower and s not in ENGLISH]
    by_term: dict[str, str] = {}
    for swap in swaps:
        by_term.setdefault(stem(swap), swap)
    by_term.pop(own, None)
    if written_as_name(lower, question, set()):
        by_term = {term: swap for term, swap in by_term.items() if swap in _NAMED_AS_NAMES}
    common = [term for term in sorted(by_term) if held(term) and _common(term)]
    return (by_term[common[0]], common[0]) if len(common) == 1 else None


def _in_another_language(question: str) -> bool:
    """True when a word of ``question`` shows it is in a language KRouter does not read."""
    return any(marks_a_language(w, question) for w in _ANY_WORD.findall(question.lower()))


def _swaps(word: str) -> list[str]:
    """``word`` with each pair of neighbouring letters swapped."""
    return [word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)]


@lru_cache(maxsize=4096)
def _known(term: str) -> bool:
    """True when the dictionary or the work glossary translates the English term (a name included)."""
    return bool(
        bilingual.column("SELECT 1 FROM en2zh WHERE en=? LIMIT 1", term)
        or bilingual.column("SELECT 1 FROM work_en2zh WHERE en=? LIMIT 1", term)
    )


@lru_cache(maxsize=4096)
def _common(term: str) -> bool:
    """True when a word that translates ``term`` is not only a name (一月 for January, not 玛丽亚 for
    Maria), or the work glossary translates it."""
    return bool(
        bilingual.column(
            "SELECT 1 FROM en2zh AS e WHERE en=? AND NOT EXISTS (SELECT 1 FROM proper AS p WHERE p.zh=e.zh) LIMIT 1",
            term,
        )
        or bilingual.column("SELECT 1 FROM work_en2zh WHERE en=? LIMIT 1", term)
    )
