"""Turn text into index terms and questions into query terms, in English, Chinese, Japanese and Korean.

English words are NFKC-normalised, case-folded, stripped of function words and stemmed with the
Snowball English stemmer (PyStemmer: the C implementation, ~20x faster than the pure-Python
snowballstemmer, which matters when a 100k-page vault is indexed). Han text is segmented with jieba
(loaded lazily, only when a text contains Han characters) and indexed as jieba words *and* character
bigrams; questions are segmented into jieba words only. That asymmetric split measured best on a
Chinese memory set (hit@1 0.925 against 0.825 for bigrams on both sides). Kana and Hangul runs, which
jieba does not know, are indexed and queried as bigrams. CJK text is never split on whitespace.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import filterfalse

import Stemmer

from krouter.tokens.chinese import jieba_words, question_jieba, repair
from krouter.tokens.japanese_korean import japanese_pieces, korean_pieces
from krouter.tokens.scripts import HAN, HAS_HAN, HAS_HANGUL, IS_CJK, ONLY_HAN, RUN, char_bigrams
from krouter.tokens.stopwords import CHINESE, ENGLISH

# 5: a page whose opening frontmatter fence is never closed has its fields read (status: superseded).
TOKENIZER_VERSION = "5"

_stemmer = Stemmer.Stemmer("english")


# Characters that print as nothing (zero-width space and joiners, word joiner, BOM, soft hyphen): pasted
# text carries them inside words, and left in they split "data\u200bbase" into two words.
_INVISIBLE = re.compile("[\u00ad\u200b-\u200d\u2060\ufeff]")


def normalize(text: str) -> str:
    """NFKC-normalise and case-fold, so full-width letters, ligatures and case all meet; characters that
    print as nothing are dropped."""
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", text)).casefold()


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _stemmer.stemWord(word)


def _word_terms(word: str) -> str | None:
    if word in ENGLISH:
        return None
    if len(word) == 1 and not word.isdigit():
        return None
    return _stem(word)


def english_terms(text: str) -> list[str]:
    """The stemmed content words of a text's Latin-script words, in order (function words dropped)."""
    out = []
    for run in RUN.findall(normalize(text)):
        if not IS_CJK.match(run):
            term = _word_terms(run)
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
    (``counts_toward_length``), so Chinese pages are not made to look longer than English ones.
    """
    runs = RUN.findall(normalize(text))
    # A text whose every word was seen before (most English passages) is looked up in C.
    known = list(map(_WORD_MEMO.get, runs))
    if None not in known:
        return list(filter(None, known))
    out: list[str] = []
    for run, term in zip(runs, known, strict=True):
        if term is None:
            if IS_CJK.match(run):
                out.extend(_cjk_terms(run))
                continue
            term = _remember(run)
        if term:
            out.append(term)
    return out


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
        return char_bigrams(run)
    words = jieba_words(run)
    out = list(words)
    seen = set(words)  # a set: runs can be long, and this ran once per bigram
    if len(run) > 1:
        out.extend(filterfalse(seen.__contains__, char_bigrams(run)))
    out.extend(filterfalse(CHINESE.__contains__, filterfalse(seen.__contains__, run)))
    return out


def counts_toward_length(term: str) -> bool:
    """False for a single Han character: indexed for lookup, but not part of a page's BM25 length."""
    return not (len(term) == 1 and HAS_HAN.match(term) is not None)


# A line of exactly one Han character: in terms joined by newlines (no term holds one), the terms that
# do not count towards a length.
_LONE_HAN = re.compile(rf"^[{HAN}]$", re.MULTILINE)


def length_of(counts: dict[str, int]) -> int:
    """The length of a text with these term counts: the counts of the terms that ``counts_toward_length``,
    added up (found by one regex scan, not a call per term)."""
    total = sum(counts.values())
    lone = _LONE_HAN.findall("\n".join(counts))
    return total - sum(map(counts.__getitem__, lone)) if lone else total


@dataclass(frozen=True)
class QueryTerm:
    """One unit of a question's content: a stemmed English word, a jieba word, or a kana/Hangul bigram.

    ``text`` is what a person reads in the receipt; ``term`` is what is looked up in the index.
    """

    text: str
    term: str


# Question frames whose words ask *about* a quantity rather than name a subject: "how long", "what
# time", "these days". Left in, "long" or "time" count as content the page must contain.
_EN_FRAMES = re.compile(
    r"\bhow (?:long|many|much|often|far|soon|frequently|quickly|fast|big|large|old)\b|\bwhat time\b"
    r"|\bthese days\b|\bnowadays\b|\bright now\b|\bat the moment\b|\bat present\b"
    # Asking an assistant: "remind me ...", "I was wondering ...", "just curious".
    r"|\bremind me\b|\bwondering\b|\bi wonder\b|\bjust curious\b"
    # Asking for a decision: "what did we decide about X", "which X did we pick". The verb is the
    # question's frame; as content it matched whichever page happens to say "decided" or "picked" (a
    # replaced page's "we picked it because" cited its replacement for "which CI did we pick").
    r"|\bwhat (?:did|have) we (?:decided?|agreed?|settled?|chosen|chose|choose|picked|pick)"
    r"(?: on| about| for)?\b|\bwhat was (?:decided|agreed|chosen)(?: on| about| for)?\b"
    r"|\b(?:did|have) we (?:picked|pick|chosen|chose|choose|gone with|go with|went with|settled on|settle on)\b"
    # Asking for confirmation or for a means: "..., right?" (a tag follows a comma: "left or right?" is
    # content), "is there any way to ...", "what's the right way to ...". A tag or a "way to" names no
    # subject; the words after it do.
    r"|,\s*(?:right|yeah|yes|correct|no|ok|okay)\s*\?"
    r"|\b(?:is there )?(?:any|a|an|the) (?:(?:best|easiest|quickest|easy|quick|good|simple|right|proper|correct"
    r"|recommended|preferred|usual|standard|normal) )?way (?:to|of)\b"
    # Vague amounts and times past ("a couple of weeks ago"): the unit after them is content, they are not.
    r"|\ba (?:couple|bunch|lot|few) of\b|\blots of\b|\bplenty of\b|\bseveral\b|\bago\b"
)


# The A-not-A question (来不来, 收不收钱, 算不算, 要不要): the verb asked about once, the rest is grammar.
# Two-character verbs repeat whole (同意不同意) or by their first character (同不同意).
_A_NOT_A = re.compile(r"([\u4e00-\u9fff]{1,2})[不没]\1|([\u4e00-\u9fff])[不没](?=\2)")


def _asked_once(m: re.Match[str]) -> str:
    """The verb of an A-not-A question; one that is a stop word already (是不是, 有没有) is left as it
    is, since rewriting it changes how the segmenter cuts the words around it (是调过, not 是不是 调 过)."""
    return m.group(0) if m.group(0) in CHINESE else (m.group(1) or "")


# An agent may ask with a page's file name ("Primary database.md"): the extension is not a word to find.
_MD_SUFFIX = re.compile(r"(?<=\w)\.md\b")


def query_terms(question: str, known: Callable[[str], bool] | None = None) -> list[QueryTerm]:
    """The content terms of a question, deduplicated, in the order they appear.

    ``known`` tells whether the vault holds a term. When given, a Han stretch that jieba cut into single
    characters or into words the vault does not hold is re-cut into the longest pieces the vault does
    hold ("一上午" → "上午", "自" + "建" → "自建"), so a segmentation quirk does not read as a missing word.
    """
    seen: set[str] = set()
    out: list[QueryTerm] = []
    for text, term in _query_pairs(question, known):
        if term not in seen:
            seen.add(term)
            out.append(QueryTerm(text=text, term=term))
    return out


def _query_pairs(question: str, known: Callable[[str], bool] | None) -> Iterator[tuple[str, str]]:
    for run in RUN.findall(_EN_FRAMES.sub(" ", _MD_SUFFIX.sub(" ", normalize(question)))):
        if not IS_CJK.match(run):
            term = _word_terms(run)
            if term:
                yield run, term
        elif ONLY_HAN.match(run):
            words = question_jieba().lcut(_A_NOT_A.sub(_asked_once, run), HMM=True)
            if known is not None:
                words = repair(words, known)
            for word in words:
                if word.strip() and word not in CHINESE:
                    yield word, word
        elif HAS_HANGUL.search(run):
            for piece in korean_pieces(run, known):
                yield piece, piece
        else:
            for piece in japanese_pieces(run, known):
                yield piece, piece
