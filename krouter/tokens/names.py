"""Which words are names: what a question asks about by what it is called, not a word of the language.

A name is what the decision's name rules turn on (docs/decisions.md D43, D59): a question that names
another page's subject is not answered by this page, and one that names something the vault never
mentions (MongoDB, 北京) is not answered by a page about something else, however well its other words
match ("MongoDB backup time" on the PostgreSQL backups page).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache

from krouter.lazy_pattern import lazy_pattern
from krouter.tokens import bilingual, jieba_dict
from krouter.tokens.pinyin_names import join_apostrophes
from krouter.tokens.scripts import is_cjk
from krouter.tokens.stopwords import FOREIGN
from krouter.tokens.terms import english_terms

_LETTER = lazy_pattern(r"[^\W\d_]")
# Months and weekdays as people shorten them ("Aug 15th", "Thu"): no dictionary knows them as words,
# and they name a date, not a subject.
CALENDAR_SHORT = frozenset(
    "jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun".split()
)
# Their full names, which English writes with a capital wherever they stand: a capital there says
# nothing of a name (July is no Julia, "the Thursday evening deadline" no subject).
WEEKDAYS = tuple("monday tuesday wednesday thursday friday saturday sunday".split())
CALENDAR_NAMES = frozenset(
    [
        *"january february march april may june july august september october november december".split(),
        *WEEKDAYS,
    ]
)
# Short forms written in capitals that name no subject: everyday abbreviations, units, time zones and
# currencies ("need it ASAP", "is it 10:00 CET"). A closed, general list, like tokens/abbreviations.py.
_NOT_NAMES = frozenset(
    "asap fyi wfh pto ooo eod eow btw tbd tba faq aka etc imo imho tldr diy rsvp hr pm am ps nb "
    "kb mb gb tb kg km cm mm ms "
    "utc gmt cet cest eet eest wet bst ist jst kst pst pdt mst mdt cst cdt est edt aest "
    "usd eur gbp cny rmb jpy krw hkd cad aud chf".split()
)
# Where a sentence starts, a capital says nothing; the word next to a name, written as a name too. What
# may stand before a sentence's first word: the end of the one before. Not « or „: in a question they
# wrap a name as often as a sentence.
_SENTENCE_END = frozenset(".!?:;\"'“‘(-—–•*>#。！？：；")
# Spanish ¿ and ¡ open a sentence too, but a name opens one as often ("¿Redis tiene…?"): after them, only
# a function word (¿Cuántas, ¿En, ¿Cada) is taken as opening the sentence.
_SPANISH_OPENERS = frozenset("¿¡")
_LAST_WORD = lazy_pattern(r"([^\W_]+)[ \t-]*$")
_FIRST_WORD = lazy_pattern(r"[ \t-]*([^\W_]+)")
_LATIN_WORD = lazy_pattern(r"[A-Za-z\u00c0-\u024f]{2,}")
# jieba's part-of-speech tags for a place (北京, 芝加哥) and an organisation.
_PLACE_OR_BODY = frozenset({"ns", "nt"})


def has_letter(word: str) -> bool:
    """True when the word holds a letter or a Han character (29 of 29.md, a numbered paragraph, does not)."""
    return bool(_LETTER.search(word))


def is_name(word: str) -> bool:
    """True for a word that can be a name: it holds a letter or a Han character (29 of 29.md does not),
    and CC-CEDICT does not know it as a word of either language (the work glossary's words are not asked:
    its abbreviations, SLA, GMV, KPI, name a subject a page may lack, as D59 reads them)."""
    if not has_letter(word):
        return False
    if is_cjk(word):
        return not bilingual.to_english(word, work=False)
    stems = english_terms(word)
    return bool(stems) and not bilingual.to_chinese(stems[0], work=False)


def names_a_subject(word: str) -> bool:
    """True for a question word that names what the question is about: in Latin script, a name as
    ``is_name`` says (MongoDB, Cloudflare, SQS), not a number, a time or a date ("10am", "Aug"), nor a
    common abbreviation, unit, time zone or currency ("ASAP", "MB", "CET", "EUR"); in Han script, a word
    of two characters or more that jieba's dictionary tags as a place or organisation and CC-CEDICT gives
    only as a proper name (北京 /Beijing, …/), or that CC-CEDICT gives only as a proper name it describes
    after a comma (柏林 /Berlin, capital of Germany/, which jieba tags a person's name; 首尔 an adverb).
    Either dictionary's word alone is too wide: jieba tags 东西 ("things") and 城市 as places, and
    CC-CEDICT writes 文革 (the Cultural Revolution, which notes write 文化大革命) with a capital. A Chinese word neither dictionary knows is as often a cut jieba made of a run-on question
    (仓发, 来收) as a name, so it is not taken for one."""
    if is_cjk(word):
        return len(word) >= 2 and (
            (
                word in _places_and_bodies()
                and bool(bilingual.column("SELECT zh FROM proper WHERE zh=?", word))
            )
            or bool(bilingual.column("SELECT zh FROM described WHERE zh=?", word))
        )
    if any(ch.isdigit() for ch in word) or word.lower() in CALENDAR_SHORT | _NOT_NAMES:
        return False
    return is_name(word) or _only_a_proper_name(word)


def _only_a_proper_name(word: str) -> bool:
    """True for a Latin word whose commonest CC-CEDICT translation is a place's name, as the Han rule
    reads one (jieba tags it a place, CC-CEDICT gives it only capitalised: Chengdu, Paris, Australia:
    成都, 巴黎, 澳大利亚): it names a subject as an unknown name does. Known to the dictionary, it was no
    name to D59, and "Which coach company books school trips for Paris?" was answered from the London
    coach company's page (docs/decisions.md D81). Not a weekday, a language or a word CC-CEDICT also
    lists capitalised (Friday, English, Internet, Mac: 周五, 英语, 网络). A place jieba tags otherwise is
    one by its CC-CEDICT description (Berlin, Seoul, Toronto: the mixed-language review had "Berlin
    office leave policy" cited on the London office's page at 0.63)."""
    stems = english_terms(word)
    chinese = bilingual.to_chinese(stems[0], work=False) if stems else ()
    return bool(chinese) and names_a_subject(chinese[0])


def written_as_name(word: str, question: str, held: set[str]) -> bool:
    """True when ``word`` (as a unit shows it: folded to lower case) stands in ``question`` written as a
    name: with a capital inside it (MongoDB, SQS) or a capital first letter where no sentence starts
    (Cloudflare in "purge the Cloudflare cache"). Not when it is part of a name whose other word the
    vault holds (``held``: Liu of "Kevin Liu" where the notes say Kevin): the notes may name that one
    by the word they hold. The dictionary knows too few English words to tell a name from one by
    itself: "toggle" is not in it."""
    text = _spelled(question)
    if _capitals_say_nothing(text):
        return False
    for m in _whole_words(word, text):
        written = m.group()
        capital_inside = _capital_inside(written)
        before = _char_before(text, m)
        opens = before in _SPANISH_OPENERS and word in FOREIGN
        mid_sentence = bool(before) and before not in _SENTENCE_END and written[0].isupper() and not opens
        if not (capital_inside or mid_sentence):
            continue
        around = (_LAST_WORD.search(text[: m.start()]), _FIRST_WORD.match(text[m.end() :]))
        if any(n and n.group(1)[0].isupper() and n.group(1).lower() in held for n in around):
            continue
        return True
    return False


def _capital_inside(written: str) -> bool:
    """A capital inside a word that starts with one (MongoDB, SQS); not an identifier (maxConnections)."""
    return written[0].isupper() and any(ch.isupper() for ch in written[1:])


def written_with_capital_inside(word: str, question: str) -> bool:
    """True when ``word`` (folded to lower case) stands in ``question`` with a capital inside it as well
    as first (MongoDB, SQS): a name in any language, German included, which capitalises every noun."""
    text = _spelled(question)
    return any(_capital_inside(m.group()) for m in _whole_words(word, text))


def opens_a_sentence(word: str, question: str) -> bool:
    """True when ``word`` (folded to lower case) stands first in ``question`` or in one of its sentences
    (after ., ?, ¿ and the like), where a capital says nothing."""
    text = _spelled(question)
    for m in _whole_words(word, text):
        before = _char_before(text, m)
        if not before or before in _SENTENCE_END or before in _SPANISH_OPENERS:
            return True
    return False


def opens_a_question(word: str, question: str) -> bool:
    """True when ``word`` (folded to lower case) stands in ``question`` right after Spanish ¿ or ¡."""
    text = _spelled(question)
    return any(_char_before(text, m) in _SPANISH_OPENERS for m in _whole_words(word, text))


def written_in_lower_case(word: str, question: str) -> bool:
    """True when ``word`` (folded to lower case) stands in ``question`` as a whole word in lower case."""
    text = _spelled(question)
    return any(m.group()[0].islower() for m in _whole_words(word, text))


def capitalised(word: str, question: str) -> bool:
    """True when ``word`` (folded to lower case) stands in ``question`` as a whole word with a capital, in
    a question whose capitals say something (not one in capitals or in title case)."""
    text = _spelled(question)
    return not _capitals_say_nothing(text) and any(m.group()[0].isupper() for m in _whole_words(word, text))


def _spelled(text: str) -> str:
    """``text`` as the name checks read it: NFKC, apostrophes joined as the tokenizer joins them."""
    return join_apostrophes(unicodedata.normalize("NFKC", text))


def _char_before(text: str, m: re.Match[str]) -> str:
    """The last character before the match ``m`` in ``text``, spaces left out ("" at the start)."""
    return text[: m.start()].rstrip()[-1:]


def _whole_words(word: str, text: str) -> Iterator[re.Match[str]]:
    """Where ``word`` stands in ``text`` as a whole word, any case; a Han character may stand right next
    to one (线性SD频道)."""
    for m in re.finditer(re.escape(word), text, flags=re.IGNORECASE):
        if not _joined(text, m.start() - 1) and not _joined(text, m.end()):
            yield m


def _capitals_say_nothing(text: str) -> bool:
    """True for a question written in capitals or in title case ("HOW TO TOGGLE DARK MODE", "How To
    Toggle Dark Mode"): most of its words start with a capital, so a capital marks no name. Not for one
    in Chinese or Japanese, whose Latin words are mostly names (Virgin Media 的 SD 频道)."""
    if any(map(is_cjk, text)):
        return False
    words = _LATIN_WORD.findall(text)
    return len(words) >= 3 and sum(w[0].isupper() for w in words) >= 0.7 * len(words)


def _joined(text: str, i: int) -> bool:
    """True when ``text[i]`` is a letter or digit of a script written with spaces: part of the same word."""
    return 0 <= i < len(text) and text[i].isalnum() and not is_cjk(text[i])


@lru_cache(maxsize=1)
def _places_and_bodies() -> frozenset[str]:
    """jieba's dictionary words tagged as places or organisations (read once, ~0.1 s; only when a Han
    word the vault never mentions stands in the way of a citation)."""
    path = jieba_dict.location()
    if path is None:
        return frozenset()
    try:
        with path.open(encoding="utf-8") as fh:
            return frozenset(p[0] for p in map(str.split, fh) if len(p) == 3 and p[2] in _PLACE_OR_BODY)
    except (OSError, UnicodeDecodeError):
        return frozenset()
