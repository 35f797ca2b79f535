"""Turn text into index terms and questions into query terms, in English, Chinese, Japanese and Korean.

English words are NFKC-normalised, case-folded, stripped of their accents and of function words and
stemmed with the Snowball English stemmer (``stems``; PyStemmer: the C implementation, ~20x faster than
the pure-Python snowballstemmer, which matters when a 100k-page vault is indexed). Han text is segmented with jieba
(loaded lazily, only when a text contains Han characters) and indexed as jieba words *and* character
bigrams; questions are segmented into jieba words only. That asymmetric split measured best on a
Chinese memory set (hit@1 0.925 against 0.825 for bigrams on both sides). Kana and Hangul runs, which
jieba does not know, are indexed and queried as bigrams (a question's katakana word is one word,
looked up by its bigrams). CJK text is never split on whitespace.

Every other script is split into words at spaces and punctuation, as English is; combining marks
(Devanagari's vowel signs and virama, Arabic's and Hebrew's points) belong to the word they are in.
Scripts written without spaces between words (Thai, Lao, Khmer, Burmese) have no segmenter here: a run
between two spaces is one term, so a question finds such a page by a run the page holds whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import filterfalse

from krouter.lazy_pattern import lazy_pattern
from krouter.tokens import compounds
from krouter.tokens.chinese import jieba_words, question_jieba, repair
from krouter.tokens.dates import DATE, date_terms, split_dates
from krouter.tokens.grouped_numbers import as_digits, grouped_numbers, magnitude_numbers, spoken_decimals
from krouter.tokens.japanese_korean import (
    counted_after_asking,
    japanese_pieces,
    korean_counters,
    korean_pieces,
    without_jamo,
)
from krouter.tokens.normal_form import normalize, without_accents
from krouter.tokens.pinyin_names import join_apostrophes
from krouter.tokens.question_frames import asks_only, segmented, verb_asked_once, without_days, without_frames
from krouter.tokens.scripts import CJK, HAN, HAS_HANGUL, HAS_KANA, IS_CJK, ONLY_HAN, char_bigrams
from krouter.tokens.stems import WRITTEN, stem, written_terms
from krouter.tokens.stopwords import CHINESE, ENGLISH

# The combining marks (Unicode categories Mn and Mc, as of Unicode 15.1): vowel signs, viramas, nuktas,
# points. Python's \w leaves them out, which cut "हिन्दी" into "ह", "न", "द" and most Hindi, Thai,
# Arabic or Hebrew words into pieces found on any page of that script. Written out because computing
# them from unicodedata takes 30 to 150 ms, paid by every `krouter ask`. Left out: the variation
# selectors (FE00-FE0F, E0100-E01EF), which choose how an emoji looks and are no part of a word, and
# kana's voiced marks (3099-309A), which the kana run holds. Unassigned code points between two marks are
# taken in, to keep the list short. Past the BMP, where the marks are those of historical scripts and
# musical notation, the one span 101FD-1E94A stands for them: Python's re checks non-BMP ranges one by
# one, and a hundred of them tried after every word made splitting text into words 40% slower; the
# span's other characters (those scripts' punctuation, musical symbols) hardly ever follow a letter.
_MARK_RANGES = (
    "0300-036F 0483-0487 0591-05BD 05BF 05C1-05C2 05C4-05C5 05C7 0610-061A 064B-065F 0670 06D6-06DC "
    "06DF-06E4 06E7-06E8 06EA-06ED 0711 0730-074A 07A6-07B0 07EB-07F3 07FD 0816-0819 081B-0823 0825-0827 "
    "0829-082D 0859-085B 0898-089F 08CA-08E1 08E3-0903 093A-093C 093E-094F 0951-0957 0962-0963 0981-0983 "
    "09BC 09BE-09CD 09D7 09E2-09E3 09FE-0A03 0A3C-0A51 0A70-0A71 0A75 0A81-0A83 0ABC 0ABE-0ACD 0AE2-0AE3 "
    "0AFA-0B03 0B3C 0B3E-0B57 0B62-0B63 0B82 0BBE-0BCD 0BD7 0C00-0C04 0C3C 0C3E-0C56 0C62-0C63 0C81-0C83 "
    "0CBC 0CBE-0CD6 0CE2-0CE3 0CF3-0D03 0D3B-0D3C 0D3E-0D4D 0D57 0D62-0D63 0D81-0D83 0DCA-0DDF 0DF2-0DF3 "
    "0E31 0E34-0E3A 0E47-0E4E 0EB1 0EB4-0EBC 0EC8-0ECE 0F18-0F19 0F35 0F37 0F39 0F3E-0F3F 0F71-0F84 "
    "0F86-0F87 0F8D-0FBC 0FC6 102B-103E 1056-1059 105E-1060 1062-1064 1067-106D 1071-1074 1082-108D 108F "
    "109A-109D 135D-135F 1712-1715 1732-1734 1752-1753 1772-1773 17B4-17D3 17DD 180B-180D 180F 1885-1886 "
    "18A9 1920-193B 1A17-1A1B 1A55-1A7F 1AB0-1ABD 1ABF-1B04 1B34-1B44 1B6B-1B73 1B80-1B82 1BA1-1BAD "
    "1BE6-1BF3 1C24-1C37 1CD0-1CD2 1CD4-1CE8 1CED 1CF4 1CF7-1CF9 1DC0-1DFF 20D0-20DC 20E1 20E5-20F0 "
    "2CEF-2CF1 2D7F 2DE0-2DFF 302A-302F A66F A674-A67D A69E-A69F A6F0-A6F1 A802 A806 A80B A823-A827 A82C "
    "A880-A881 A8B4-A8C5 A8E0-A8F1 A8FF A926-A92D A947-A953 A980-A983 A9B3-A9C0 A9E5 AA29-AA36 AA43 "
    "AA4C-AA4D AA7B-AA7D AAB0 AAB2-AAB4 AAB7-AAB8 AABE-AABF AAC1 AAEB-AAEF AAF5-AAF6 ABE3-ABEA ABEC-ABED "
    "FB1E FE20-FE2F 101FD-1E94A"
)
_MARKS = "".join(
    chr(int(first, 16)) + (f"-{chr(int(last, 16))}" if last else "")
    for first, _, last in (r.partition("-") for r in _MARK_RANGES.split())
)
# A word: a run of CJK characters (segmented below), or a run of letters and digits of another script
# with the combining marks inside or after it. A mark with no letter before it starts no word.
# A number written with dots (a version, an address: 5.7, v8.0.36, 10.0.0.1) is one run, an ASCII "v"
# before it included: split at the dots, "MySQL 5.7" and "MySQL 8.0" were 5, 7, 8 and 0, and
# "7.0啥时候上线" matched the "0" of a page about 6.0. Whole or not at all: never a shorter number inside
# a longer one (7.05 is not 7.0 and 5), nor one after a digit, a dot or a thousands comma (1,234.50: three
# digits after a digit and a comma; "5.7,8.0" and "6.2，7.0" are two versions). Not an amount,
# on a page or in a question alike (after a currency sign; before a per cent sign or a currency word):
# people round amounts ("about 2.6%" for a page's 2.59%), and write them with a sign or a word ($1.99,
# "1.99 dollars"), so an amount's parts match, as before. A unit written against a number is a word of
# its own: "2.5mm" and "2.5 mm" are both 2.5 and mm.
_AMOUNT_AFTER = (
    r"\s*(?:%|[元块]|(?:美元|美金|欧元|英镑|日元|港币|港元|人民币|万元)"
    r"|(?:percent(?:age)?|per cent|dollars?|euros?|pounds?|yuan|rmb|usd|eur|gbp|cny|jpy|hkd)\b)"
)
RUN = lazy_pattern(
    rf"(?<![$€£¥￥\d.])(?!(?<=\d,)\d{{3}}(?!\d))v?\d+(?:\.\d+)+(?!\d|\.\d|{_AMOUNT_AFTER})"
    rf"|[{CJK}]+|[^\W_{CJK}]+(?:[{_MARKS}]+[^\W_{CJK}]*)*"
)

# A page's amount is also indexed whole, marked as an amount (¤1.99), outside the BM25 length: a
# question that asks the bare number ("the 1.99 plan") and finds it nowhere else meets it there (see
# AMOUNT); indexed as the bare number, it lost a held-out answer (docs/decisions.md D62).
AMOUNT = "¤"
_DOTTED = lazy_pattern(r"\d+(?:\.\d+)+")
# An identifier written with an underscore, as code names things (page_id, realtime_gmv, _di): one name.
# Its words are indexed as ever, and the identifier whole besides (outside the BM25 length); a question
# naming one the vault never holds whole asks about something the notes never mention, so "What
# parallelism does the realtime_gmv job run with?" is not answered by a page holding "realtime" and no
# realtime_gmv (``routing/elsewhere.unknown_name``). ASCII letters and digits only, after case folding.
_IDENTIFIER_RUN = r"[a-z0-9_]*_[a-z0-9_]*"
_IDENTIFIER = lazy_pattern(rf"(?<![a-z0-9_]){_IDENTIFIER_RUN}(?![a-z0-9_])")
_AFTER_AMOUNT = lazy_pattern(_AMOUNT_AFTER)
_CURRENCY = frozenset("$€£¥￥")


_HAN_CHAR = lazy_pattern(f"[{HAN}]")
_GLUED_VERSION = lazy_pattern(r"(?<=[^\W\d_]{2})(?=\d+(?:\.\d+)+(?!\d|\.\d))")


def _has_dotted(norm: str) -> bool:
    """True when a dot stands between two digits (a sentence's full stops, most of a text's dots, are
    passed over in C: the amounts' scan is paid only by a text that can hold one)."""
    at = norm.find(".", 1)
    while at != -1:
        if norm[at - 1].isdigit() and norm[at + 1 : at + 2].isdigit():
            return True
        at = norm.find(".", at + 1)
    return False


def _amounts(norm: str) -> list[str]:
    """The amounts of a normalised text, whole and marked (¤1.99): a dotted number after a currency sign,
    or before a per cent sign or a currency word, not inside a longer number or after a thousands comma."""
    if not _has_dotted(norm):
        return []
    out = []
    for m in _DOTTED.finditer(norm):
        at = m.start()
        before = norm[at - 1 : at]
        if before and (before in "0123456789." or (before == "," and norm[at - 2 : at - 1].isdigit())):
            continue
        if before in _CURRENCY or _AFTER_AMOUNT.match(norm, m.end()):
            out.append(AMOUNT + m.group())
    return out


def is_identifier(word: str) -> bool:
    """True for an identifier written with an underscore (page_id, _di): at least one letter or digit."""
    return "_" in word and any(ch.isalnum() for ch in word)


def _identifiers(norm: str) -> list[str]:
    """The identifiers of a normalised text, whole (page_id), each as often as it stands."""
    return [m for m in _IDENTIFIER.findall(norm) if is_identifier(m)] if "_" in norm else []


def word_text(text: str) -> str:
    """A text as the index reads its words: normalised, and a pinyin name written with an apostrophe
    joined (Xi'an is the word "xian": ``pinyin_names``). Whatever looks for index terms in a text reads it
    so (a snippet's answering line, a page's title words). A name glued to its version (Redis7.0,
    MySQL5.7: two letters or more) is the name and the version, as "Redis 7.0" is. A Latin letter's
    accents are dropped, as the index drops them (Inês is ines: D169)."""
    return _unglued(without_accents(join_apostrophes(normalize(text))))


def _unglued(norm: str) -> str:
    return _GLUED_VERSION.sub(" ", norm) if _has_dotted(norm) else norm


# An ordinal written in digits is its number: "the 8th" asks about a page that says "8 December".
_ORDINAL = lazy_pattern(r"(\d+)(?:st|nd|rd|th)")


def _word_terms(word: str) -> str | None:
    word = without_accents(word)
    ordinal = _ORDINAL.fullmatch(word)
    if ordinal:
        return ordinal.group(1)
    if word in ENGLISH:
        return None
    if len(word) == 1 and not word.isdigit():
        return None
    return stem(word)


def _dotted(run: str) -> str | None:
    """The term of a number written with dots (its "v" dropped: v8.0 is 8.0), or None for another run."""
    return run.lstrip("v") if "." in run else None


def _number_terms(run: str) -> list[str]:
    """The index terms of a number written with dots: its parts as written, as before dots made one term
    (a question that writes "MySQL 8" still finds 8.0, "API v2" finds v2.1), then each dotted prefix and
    the whole, a "v" dropped ("8.0.36" gives 8, 0, 36, 8.0, 8.0.36: a question about 8.0 finds a page
    that writes 8.0.36). The dotted terms do not count towards a page's length (``length_of``), so the
    pages' BM25 lengths stay as they were."""
    written = run.split(".")  # v2.1: v2 and 1, as before dots made one term
    parts = run.lstrip("v").split(".")
    return written + [".".join(parts[:i]) for i in range(2, len(parts) + 1)]


def number_parts(term: str) -> tuple[str, ...]:
    """The parts of a dotted date a question writes (2024.11.08, 8.11.2024), looked up instead when no
    page writes it with dots (notes write 2024-11-08); () for any other term. Not a time: 9.30 and 3.11
    (Python) cannot be told apart, and a version's digits are what D62 stopped matching."""
    parts = term.split(".")
    if len(parts) != 3 or not all(map(str.isdigit, parts)):
        return ()
    sizes = [len(p) for p in parts]
    return tuple(parts) if sizes.count(4) == 1 and 4 in (sizes[0], sizes[2]) else ()


def english_terms(text: str) -> list[str]:
    """The stemmed content words of a text's Latin-script words, in order (function words dropped)."""
    out = []
    for run in RUN.findall(word_text(text)):
        if not IS_CJK.match(run):
            term = _dotted(run) or _word_terms(run)
            if term:
                out.append(term)
    return out


def index_terms(text: str) -> list[str]:
    """Terms to index for a text, in order, repeats kept (they are term frequencies).

    Han runs give their jieba words, then their character bigrams, then their single characters (but
    function words); kana/Hangul runs give bigrams. Single characters are indexed so that a character a
    question is left with after segmentation (人 of 几个人, 少 of 最少) is looked up like any other
    term: found where the vault holds it, weighed by how common it is, and never reported as a word the
    vault lacks when the vault is full of it. They do not count towards a page's length
    (``length_of``), so Chinese pages are not made to look longer than English ones.
    """
    written = join_apostrophes(normalize(text))
    norm = _unglued(without_accents(written))
    runs = RUN.findall(norm)
    amounts = _amounts(norm) + [AMOUNT + n for n in grouped_numbers(norm) + magnitude_numbers(norm)]
    amounts += _identifiers(norm)
    amounts += compounds.closed_terms(norm, _word_terms) + date_terms(norm, runs)
    amounts += [] if written.isascii() else written_terms(written)
    amounts += spoken_decimals(norm) + korean_counters(norm)
    # A text whose every word was seen before (most English passages) is looked up in C.
    known = list(map(_WORD_MEMO.get, runs))
    if None not in known:
        return [*filter(None, known), *amounts]
    out: list[str] = []
    for run, term in zip(runs, known, strict=True):
        if term is None:
            if IS_CJK.match(run):
                out.extend(_cjk_terms(run))
                continue
            if "." in run:
                out.extend(_number_terms(run))
                continue
            term = _remember(run)
        if term:
            out.append(term)
    return out + amounts


# The term of each Latin-script word seen lately ("" for none: a function word, a single letter), as
# `_word_terms` gives it; cleared when full, so a worker's memory stays bounded on any vault.
_WORD_MEMO: dict[str, str] = {}
_WORD_MEMO_MAX = 50_000


def _remember(run: str) -> str:
    term = _word_terms(run) or ""
    if len(_WORD_MEMO) >= _WORD_MEMO_MAX:
        _WORD_MEMO.clear()
    _WORD_MEMO[run] = term
    return term


def _cjk_terms(run: str) -> list[str]:
    """The index terms of a run of CJK characters."""
    if not ONLY_HAN.match(run):
        # Kana or Hangul with it: bigrams, and each kanji alone too (秒 of 秒です, as a Chinese run's
        # characters are), or a question's lone kanji would be missing from the page that writes it.
        return char_bigrams(run) + _HAN_CHAR.findall(run)
    words = jieba_words(run)
    out = list(words)
    seen = set(words)  # a set: runs can be long, and this ran once per bigram
    if len(run) > 1:
        out.extend(filterfalse(seen.__contains__, char_bigrams(run)))
    out.extend(filterfalse(CHINESE.__contains__, filterfalse(seen.__contains__, run)))
    return out


# One Han character, a marked amount or date, a dotted number, an identifier or a marked closed form
# (‐rollout), a line each of the terms joined by newlines (no term holds one): second readings of words
# that count (the Han word, the parts), kept out of a page's BM25 length so that Chinese, versions,
# amounts, dates, code or hyphens do not lengthen it.
_NOT_COUNTED = lazy_pattern(
    rf"^(?:[{HAN}]|{AMOUNT}[\d.]+|{DATE}\d\d-\d\d|[\d.]*\.[\d.]*|{_IDENTIFIER_RUN}|{compounds.CLOSED}.*|{WRITTEN}.*)$",
    re.MULTILINE,
)


def length_of(counts: dict[str, int]) -> int:
    """The length of a text with these term counts: the counts of the terms but those _NOT_COUNTED,
    added up (found by one regex scan, not a call per term)."""
    total = sum(counts.values())
    lone = _NOT_COUNTED.findall("\n".join(counts))
    return total - sum(map(counts.__getitem__, lone)) if lone else total


@dataclass(frozen=True)
class QueryTerm:
    """One unit of a question's content: a stemmed English word, a jieba word, or a kana/Hangul bigram.

    ``text`` is what a person reads in the receipt; ``term`` is what is looked up in the index;
    ``closed``, for a part of a hyphenated word, that word written closed (rollout of roll-out).
    """

    text: str
    term: str
    closed: str | None = None


# An agent may ask with a page's file name ("Primary database.md"): the extension is not a word to find.
_MD_SUFFIX = lazy_pattern(r"(?<=\w)\.md\b")


def query_terms(
    question: str, known: Callable[[str], bool] | None = None, reached: Callable[[str], bool] | None = None
) -> list[QueryTerm]:
    """The content terms of a question, deduplicated, in the order they appear.

    ``known`` tells whether the vault holds a term. When given, a Han stretch that jieba cut into single
    characters or into words the vault does not hold is re-cut into the longest pieces the vault does
    hold ("一上午" → "上午", "自" + "建" → "自建"), so a segmentation quirk does not read as a missing word;
    a word of jieba's that ``reached`` says the vault holds another way (through a translation) is kept.
    """
    seen: set[str] = set()
    out: list[QueryTerm] = []
    for text, term, closed in _query_pairs(question, known, reached):
        if term not in seen:
            seen.add(term)
            out.append(QueryTerm(text=text, term=term, closed=closed))
    return out


def identifier_words(identifier: str) -> list[str]:
    """The words of an identifier as a question's units show them (realtime_gmv: realtime, gmv), function
    words left out."""
    return [run for run in RUN.findall(identifier) if _word_terms(run)]


def question_identifiers(question: str) -> list[str]:
    """The identifiers a question writes (page_id, _di), whole, in order, each once."""
    return list(dict.fromkeys(_identifiers(normalize(question))))


def _query_pairs(
    question: str, known: Callable[[str], bool] | None, reached: Callable[[str], bool] | None = None
) -> Iterator[tuple[str, str, str | None]]:
    plain = without_jamo(normalize(without_days(question)))
    asked, spoken = as_digits(without_frames(_MD_SUFFIX.sub(" ", plain)), known)
    # In a Japanese question a kanji run typed apart (決済 タイムアウト 何秒) is Japanese too: read as
    # jieba's Chinese it kept the question word 何秒 as a word the right page lacked.
    japanese = HAS_KANA.search(asked) is not None and HAS_HANGUL.search(asked) is None
    for part, date in split_dates(asked):
        if date is not None:
            yield part, date, None
            continue
        for text, whole in compounds.pieces(_unglued(join_apostrophes(part))):
            # A hyphenated word's content parts carry it closed (roll-out: rollout; routing.question).
            closed = _word_terms(compounds.closed(text)) if whole else None
            for run, term in _run_pairs(text, known, japanese, reached):
                # A number counted in 万 is shown as the question wrote it (5万), looked up in digits.
                shown = spoken.get(run, run)
                yield shown, term, closed if closed and closed != term and term not in ENGLISH else None


def _run_pairs(
    text: str,
    known: Callable[[str], bool] | None,
    japanese: bool,
    reached: Callable[[str], bool] | None = None,
) -> Iterator[tuple[str, str]]:
    before = ""
    for run in RUN.findall(text):
        asked_after, counted, before = before == "몇", before.isdigit(), run
        if asked_after and counted_after_asking(run):
            continue
        if not IS_CJK.match(run):
            term = _dotted(run) or _word_terms(run)
            if term:
                yield run, term
        elif ONLY_HAN.match(run) and not japanese:
            words = segmented(question_jieba().lcut(verb_asked_once(run), HMM=True))
            if known is not None:
                words = repair(words, known, reached)
            for word in words:
                if word.strip() and word not in CHINESE and not asks_only(word):
                    yield word, word
        elif HAS_HANGUL.search(run):
            for piece in korean_pieces(run, known, counted):
                yield piece, piece
        else:
            for piece in japanese_pieces(run, known):
                yield piece, piece
