"""Which words are names: what a question asks about by what it is called, not a word of the language.

A name is what the decision's name rules turn on (docs/decisions.md D43, D59): a question that names
another page's subject is not answered by this page, and one that names something the vault never
mentions (MongoDB, 北京) is not answered by a page about something else, however well its other words
match ("MongoDB backup time" on the PostgreSQL backups page).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from krouter.tokens import bilingual
from krouter.tokens.scripts import is_cjk
from krouter.tokens.terms import english_terms

_LETTER = re.compile(r"[^\W\d_]")
# Months and weekdays as people shorten them ("Aug 15th", "Thu"): no dictionary knows them as words,
# and they name a date, not a subject.
_CALENDAR = frozenset(
    "jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun".split()
)
# jieba's part-of-speech tags for a place (北京, 芝加哥) and an organisation. Its person and "other
# proper noun" tags are not used: they mark everyday words too (阳光, 高峰 and 文明 are "nr", 和平 "nz").
_PLACE_OR_BODY = frozenset({"ns", "nt"})
# Where a sentence starts, a capital says nothing; the word next to a name, written as a name too.
_SENTENCE_END = frozenset(".!?:;\"'“‘(-—–•*>#。！？：；")
_LAST_WORD = re.compile(r"([^\W_]+)[ \t-]*$")
_FIRST_WORD = re.compile(r"[ \t-]*([^\W_]+)")


def has_letter(word: str) -> bool:
    """True when the word holds a letter or a Han character (29 of 29.md, a numbered paragraph, does not)."""
    return bool(_LETTER.search(word))


def is_name(word: str) -> bool:
    """True for a word that can be a name: it holds a letter or a Han character (29 of 29.md does not),
    and the dictionary does not know it as a word of either language."""
    if not has_letter(word):
        return False
    if is_cjk(word):
        return not bilingual.to_english(word)
    stems = english_terms(word)
    return bool(stems) and not bilingual.to_chinese(stems[0])


def names_a_subject(word: str) -> bool:
    """True for a question word that names what the question is about: in Latin script, a name as
    ``is_name`` says (MongoDB, Cloudflare, SQS), not a number, a time or a date ("10am", "Aug"); in Han
    script, a place or an organisation by jieba's dictionary (北京), two characters at least. A Chinese
    word neither dictionary knows is as often a cut jieba made of a run-on question (仓发, 来收) as a
    name, so it is not taken for one."""
    if is_cjk(word):
        return len(word) >= 2 and _proper_nouns().get(word) in _PLACE_OR_BODY
    if any(ch.isdigit() for ch in word) or word.lower() in _CALENDAR:
        return False
    return is_name(word)


def written_as_name(word: str, question: str, held: set[str]) -> bool:
    """True when ``word`` (as a unit shows it: folded to lower case) stands in ``question`` written as a
    name: with a capital inside it (MongoDB, SQS) or a capital first letter where no sentence starts
    (Cloudflare in "purge the Cloudflare cache"). Not when it is part of a name whose other word the
    vault holds (``held``: Liu of "Kevin Liu" where the notes say Kevin): the notes may name that one
    by the word they hold. The dictionary knows too few English words to tell a name from one by
    itself: "toggle" is not in it."""
    text = unicodedata.normalize("NFKC", question)
    for m in re.finditer(re.escape(word), text, flags=re.IGNORECASE):
        # Whole words only; a Han character may stand right next to one (线性SD频道).
        if _joined(text, m.start() - 1) or _joined(text, m.end()):
            continue
        written = m.group()
        capital_inside = any(ch.isupper() for ch in written[1:])
        before = text[: m.start()].rstrip()
        mid_sentence = bool(before) and before[-1] not in _SENTENCE_END and written[0].isupper()
        if not (capital_inside or mid_sentence):
            continue
        around = (_LAST_WORD.search(text[: m.start()]), _FIRST_WORD.match(text[m.end() :]))
        if any(n and n.group(1)[0].isupper() and n.group(1).lower() in held for n in around):
            continue
        return True
    return False


def capitalised(word: str, question: str) -> bool:
    """True when ``word`` (folded to lower case) stands in ``question`` as a whole word with a capital."""
    text = unicodedata.normalize("NFKC", question)
    return any(
        m.group()[0].isupper() and not _joined(text, m.start() - 1) and not _joined(text, m.end())
        for m in re.finditer(re.escape(word), text, flags=re.IGNORECASE)
    )


def _joined(text: str, i: int) -> bool:
    """True when ``text[i]`` is a letter or digit of a script written with spaces: part of the same word."""
    return 0 <= i < len(text) and text[i].isalnum() and not is_cjk(text[i])


@lru_cache(maxsize=1)
def _proper_nouns() -> dict[str, str]:
    """jieba's dictionary words tagged as places or organisations, with their tag (read once, ~0.1 s;
    only when a Han word the vault never mentions stands in the way of a citation)."""
    path = bilingual.jieba_dict()
    out: dict[str, str] = {}
    if path is None:
        return out
    try:
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                parts = line.split()
                if len(parts) == 3 and parts[2] in _PLACE_OR_BODY:
                    out[parts[0]] = parts[2]
    except (OSError, UnicodeDecodeError):
        return {}
    return out
