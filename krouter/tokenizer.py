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

import contextlib
import hashlib
import logging
import re
import sqlite3
import threading
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import Stemmer

from krouter import config
from krouter.atomic import remove_others, sqlite_aside
from krouter.stopwords import CHINESE, ENGLISH

TOKENIZER_VERSION = "4"

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f"
_KANA = "\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f"
_HANGUL = "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f"
_CJK = _HAN + _KANA + _HANGUL
_RUN = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+")
_HAS_HAN = re.compile(rf"[{_HAN}]")
_ONLY_HAN = re.compile(rf"^[{_HAN}]+$")
_IS_CJK = re.compile(rf"^[{_CJK}]")
_HAS_HANGUL = re.compile(rf"[{_HANGUL}]")
# In a Japanese question, hiragana stretches are particles, endings and auxiliaries (は, の, ですか,
# ました): grammar, not subject. Kanji and katakana stretches carry the content; 何 and 誰 (what, who)
# ask rather than name.
_JA_CONTENT = re.compile(rf"[{_HAN}]+|[\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f]+")
_JA_ASKING = re.compile(r"[何誰]")

_stemmer = Stemmer.Stemmer("english")
_jieba_lock = threading.Lock()
_jieba = None
_query_segmenter = None


def _import_jieba():
    """jieba, imported without pkg_resources: jieba's compat module uses it when it can (about 57 ms of
    setuptools on every fresh process) and otherwise opens its data files by path, as it does here."""
    import sys

    if "jieba" in sys.modules:
        return sys.modules["jieba"]
    blocked = "pkg_resources" not in sys.modules
    if blocked:
        sys.modules["pkg_resources"] = None  # type: ignore[assignment]  # makes `import pkg_resources` fail
    try:
        import jieba
    finally:
        if blocked:
            del sys.modules["pkg_resources"]
    return jieba


def _load_jieba():
    """Import jieba on first use, its whole dictionary in memory, its chatter silenced.

    The dictionary comes from our store when there is one (0.8 s, against 1.1 s for jieba's own
    marshal cache or for parsing dict.txt), else from dict.txt, which then fills the store. jieba's
    own 9 MB cache file is never written: the store is the one copy in the cache dir.
    """
    global _jieba
    with _jieba_lock:
        if _jieba is None:
            jieba = _import_jieba()

            jieba.setLogLevel(logging.WARNING)
            cache = config.cache_dir()
            with contextlib.suppress(OSError):
                cache.mkdir(parents=True, exist_ok=True)
                # Left by KRouter versions that let jieba keep its own cache here.
                (cache / "jieba.cache").unlink(missing_ok=True)
            jieba.dt.tmp_dir = str(cache)
            stored = None
            if jieba.dt.dictionary is None:
                uri = f"{_freq_store_path(jieba).as_uri()}?mode=ro"
                with (
                    contextlib.suppress(OSError, sqlite3.Error, TypeError),
                    contextlib.closing(sqlite3.connect(uri, uri=True)) as conn,
                ):
                    (total,) = conn.execute("SELECT value FROM meta WHERE key='total'").fetchone()
                    stored = dict(conn.execute("SELECT word, n FROM freq")), total
            if stored is not None:
                jieba.dt.FREQ, jieba.dt.total = stored
                jieba.dt.initialized = True
            elif jieba.dt.dictionary is None:
                # What jieba.initialize() does, without writing its cache file.
                jieba.dt.FREQ, jieba.dt.total = jieba.dt.gen_pfdict(jieba.dt.get_dict_file())
                jieba.dt.initialized = True
            else:
                jieba.initialize()  # a custom dictionary: jieba's own way
            _jieba = jieba
            # Only a start-up speed-up for later processes: without the store they load in full.
            with contextlib.suppress(OSError, sqlite3.Error):
                _write_freq_store(jieba)
    return _jieba


# Loading jieba's dictionary takes most of a second on every fresh process, yet segmenting one question
# only consults the dictionary for that question's substrings. So the first full load (indexing any
# Chinese page) also writes the dictionary to an SQLite file, and a process that only segments
# questions reads just the entries it asks for. Same words, same frequencies, same total: the same cut.


def _freq_store_path(jieba) -> Path:
    """The dictionary store for this jieba version and dictionary size (a new jieba gets a new store).

    Not keyed on the file's time: every venv holding the same jieba (the installer's, a project's, a
    test's) then shares one store instead of writing an 8.7 MB copy each.
    """
    dict_file = Path(jieba.__file__).parent / "dict.txt"
    key = f"{jieba.__version__}-{dict_file.stat().st_size}"
    return config.cache_dir() / f"jieba-freq-{hashlib.sha1(key.encode()).hexdigest()[:12]}.sqlite3"


def _write_freq_store(jieba) -> None:
    if jieba.dt.dictionary is not None:
        return  # a custom dictionary: keep to the full load
    path = _freq_store_path(jieba)
    if path.exists():
        return
    with sqlite_aside(path) as conn:
        conn.execute("CREATE TABLE freq (word TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID")
        conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)")
        conn.executemany("INSERT INTO freq VALUES (?, ?)", sorted(jieba.dt.FREQ.items()))
        conn.execute("INSERT INTO meta VALUES ('total', ?)", (jieba.dt.total,))
    remove_others(path, "jieba-freq-*.sqlite3")  # stores of other jieba versions (an upgrade)


class _StoredFreq:
    """jieba's prefix dictionary (word → frequency, prefix → 0) read from the store as needed."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._memo: dict[str, int | None] = {}

    def get(self, word: str, default: int | None = None) -> int | None:
        if word in self._memo:
            n = self._memo[word]
        else:
            row = self._conn.execute("SELECT n FROM freq WHERE word=?", (word,)).fetchone()
            n = row[0] if row else None
            if len(self._memo) > 200_000:
                self._memo.clear()
            self._memo[word] = n
        return default if n is None else n

    def __contains__(self, word: str) -> bool:
        return self.get(word) is not None

    def __getitem__(self, word: str) -> int:
        n = self.get(word)
        if n is None:
            raise KeyError(word)
        return n


def _question_jieba():
    """What segments questions: the loaded jieba if there is one, else a jieba reading the store."""
    global _query_segmenter
    if _jieba is not None:
        return _jieba.dt
    with _jieba_lock:
        if _query_segmenter is None:
            jieba = _import_jieba()

            jieba.setLogLevel(logging.WARNING)
            _query_segmenter = _stored_segmenter(jieba)
    return _query_segmenter if _query_segmenter is not None else _load_jieba().dt


def _stored_segmenter(jieba):
    """A jieba Tokenizer whose dictionary is the store, or None when there is no (readable) store."""
    try:
        path = _freq_store_path(jieba)
        conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, check_same_thread=False)
        (total,) = conn.execute("SELECT value FROM meta WHERE key='total'").fetchone()
    except (OSError, sqlite3.Error, TypeError):
        return None
    segmenter = jieba.Tokenizer()
    segmenter.FREQ = _StoredFreq(conn)
    segmenter.total = total
    segmenter.initialized = True  # so jieba never loads its own dictionary into this one
    return segmenter


# Characters that print as nothing (zero-width space and joiners, word joiner, BOM, soft hyphen): pasted
# text carries them inside words, and left in they split "data\u200bbase" into two words.
_INVISIBLE = re.compile("[\u00ad\u200b-\u200d\u2060\ufeff]")


def normalize(text: str) -> str:
    """NFKC-normalise and case-fold, so full-width letters, ligatures and case all meet; characters that
    print as nothing are dropped."""
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", text)).casefold()


def is_cjk(term: str) -> bool:
    """True when a term is CJK (segmented), not a Latin-script word."""
    return _IS_CJK.match(term) is not None


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
    for run in _RUN.findall(normalize(text)):
        if not _IS_CJK.match(run):
            term = _word_terms(run)
            if term:
                out.append(term)
    return out


def _bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _jieba_words(run: str) -> list[str]:
    return [w for w in _load_jieba().cut(run, HMM=True) if w.strip() and w not in CHINESE]


def index_terms(text: str) -> list[str]:
    """Terms to index for a text, in order, repeats kept (they are term frequencies).

    Han runs give their jieba words, then their character bigrams, then their single characters (but
    function words); kana/Hangul runs give bigrams. Single characters are indexed so that a character a
    question is left with after segmentation (人 of 几个人, 少 of 最少) is looked up like any other
    term: found where the vault holds it, weighed by how common it is, and never reported as a word the
    vault lacks when the vault is full of it. They do not count towards a page's length
    (``counts_toward_length``), so Chinese pages are not made to look longer than English ones.
    """
    out: list[str] = []
    for run in _RUN.findall(normalize(text)):
        if not _IS_CJK.match(run):
            term = _word_terms(run)
            if term:
                out.append(term)
            continue
        if _ONLY_HAN.match(run):
            words = _jieba_words(run)
            out.extend(words)
            seen = set(words)  # a set: runs can be long, and this ran once per bigram
            if len(run) > 1:
                out.extend(b for b in _bigrams(run) if b not in seen)
            out.extend(c for c in run if c not in seen and c not in CHINESE)
        else:
            out.extend(_bigrams(run))
    return out


def counts_toward_length(term: str) -> bool:
    """False for a single Han character: indexed for lookup, but not part of a page's BM25 length."""
    return not (len(term) == 1 and _HAS_HAN.match(term) is not None)


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
)


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
    for run in _RUN.findall(_EN_FRAMES.sub(" ", _MD_SUFFIX.sub(" ", normalize(question)))):
        if not _IS_CJK.match(run):
            term = _word_terms(run)
            if term:
                yield run, term
        elif _ONLY_HAN.match(run):
            words = _question_jieba().lcut(run, HMM=True)
            if known is not None:
                words = _repair(words, known)
            for word in words:
                if word.strip() and word not in CHINESE:
                    yield word, word
        elif _HAS_HANGUL.search(run):
            for piece in _korean_pieces(run, known):
                yield piece, piece
        else:
            for piece in _japanese_pieces(run, known):
                yield piece, piece


# Korean attaches particles and endings to the word before them (회의실은, 어디예요): they are cut off a
# question word, longest first, so the word's own bigrams remain; question words ask rather than name.
_KO_ENDINGS = tuple(
    sorted(
        """은 는 이 가 을 를 에 에서 에게 께 한테 의 로 으로 와 과 도 만 까지 부터 보다 처럼 이랑 랑 요 예요 이에요
        인가요 나요 까요 니까 습니까 입니까 ㅂ니까 는지 은지 인지 이나 나 죠 지요 야 이야 입니다 습니다""".split(),
        key=len,
        reverse=True,
    )
)
_KO_ASKING = frozenset(
    "어디 언제 무엇 뭐 뭔가 누구 누가 몇 며칠 어떻게 왜 어느 어떤 무슨 얼마 얼마나 "
    "우리 저희 제 내 혹시 아직 지금 현재 요즘 좀".split()
)
# What turns a noun into a verb (사용 + 하 + 나요, 실행 + 되 + 나요): cut too, so the noun is what is looked for.
_KO_VERBAL = ("하", "되", "해", "했", "됐", "합", "됩", "할", "될")


def _korean_pieces(run: str, known: Callable[[str], bool] | None) -> list[str]:
    """The content bigrams of a Hangul word in a question: its particle or ending cut off, then a
    verb-forming 하/되; question and filler words dropped. A word whose bigrams the vault holds as
    written is kept whole."""
    holds = known or _holds_nothing
    if run in _KO_ASKING:
        return []
    if all(holds(g) for g in _bigrams(run)):
        return _bigrams(run)
    stem = run
    # A word whose last two syllables the vault holds as a word (응답속도: 속도) has no ending to cut.
    for ending in () if holds(run[-2:]) else _KO_ENDINGS:
        # A one-syllable particle must leave two syllables (휴가 and 회의 end like particles too); a longer
        # ending may leave one (하나요 → 하, then dropped as a lone syllable the vault does not hold).
        if stem.endswith(ending) and len(stem) >= len(ending) + (1 if len(ending) > 1 else 2):
            stem = stem[: -len(ending)]
            break
    if stem in _KO_ASKING:
        return []
    if len(stem) > 2 and stem.endswith(_KO_VERBAL) and not holds(stem[-2:]):
        stem = stem[:-1]
    return _content_grams(stem, holds)


def _japanese_pieces(run: str, known: Callable[[str], bool] | None) -> list[str]:
    """The content bigrams of a kana-and-kanji run: hiragana and question kanji dropped. A lone kanji
    left between them is kept only when the vault holds it alone (pages index runs as bigrams)."""
    holds = known or _holds_nothing
    return [
        gram
        for stretch in _JA_CONTENT.findall(run)
        for part in _JA_ASKING.split(stretch)
        for gram in _content_grams(part, holds)
    ]


def _holds_nothing(term: str) -> bool:
    """The vault test when no vault is given: a lone character is then never kept."""
    return False


def _content_grams(piece: str, holds: Callable[[str], bool]) -> list[str]:
    """A piece's bigrams; a single character only when the vault holds it alone."""
    if len(piece) > 1:
        return _bigrams(piece)
    return [piece] if piece and holds(piece) else []


def _repair(words: list[str], known: Callable[[str], bool]) -> list[str]:
    """Re-cut stretches of single characters and unknown words by longest match against the vault."""
    out: list[str] = []
    stretch: list[str] = []
    for word in [*(_split_asking(w) for w in words), ""]:
        weak = bool(word) and (len(word) == 1 or not known(word)) and word not in CHINESE
        if weak:
            stretch.append(word)
            continue
        out.extend(_recut(stretch, known))
        stretch = []
        if word:
            out.append(word)
    return out


# Units a question counts in (几秒, 几号, 几台, 几辆): after 几 they are what is asked about. The
# classifiers of the standard language as an explicit list, because 几 also begins ordinary words
# (几率, 几乎, 几何) that must stay whole.
_MEASURES = frozenset(
    "秒分时天周月年号点次个位台件条张种人岁层楼页块元套家处所本辆只头匹架座栋间名届场部首篇节期批份双对句段颗棵株根支把口户例项款门轮代任集章幅封笔顿遍趟回步级倍日度杯类样片道声眼行"
)


def _split_asking(word: str) -> str:
    """几 before a measure word asks for a number: the measure word is what is asked about."""
    if len(word) == 2 and word[0] == "几" and word[1] in _MEASURES and word not in CHINESE:
        return word[1]
    return word


def _recut(stretch: list[str], known: Callable[[str], bool]) -> list[str]:
    """The cut of a stretch of segmenter words into pieces the vault holds that leaves the fewest
    characters unexplained. Characters left over from one segmenter word stay together as one missing
    word: 邮件, or a name the segmenter guessed (王伟), is missing as a word, not matched character by
    character. A function character of a dictionary word joins it (需求 is not 需 + 求); of a mere guess
    it does not (要值 of 要值几天 is 要 + 值). Only a character cut alone (人 of 几个人) is looked up
    alone; the index knows every character."""
    text = "".join(stretch)
    pieces = _best_cut(text, known)
    dictionary = _question_jieba().FREQ
    # Which multi-character segmenter word each character came from (None: a character cut alone), and
    # the same for dictionary words only.
    owner: list[int | None] = []
    in_word: list[int | None] = []
    for n, word in enumerate(stretch):
        owner.extend([n if len(word) > 1 else None] * len(word))
        in_word.extend([n if len(word) > 1 and dictionary.get(word, 0) else None] * len(word))
    out: list[str] = []
    unknown = ""
    unknown_owner: int | None = None
    pos = 0
    for piece in pieces:
        at = pos
        pos += len(piece)
        # A function character inside a word the vault lacks (需 of 需求) belongs to that word; alone,
        # it is dropped when the question's terms are read (it is a function word).
        if len(piece) == 1 and (piece not in CHINESE or in_word[at] is not None):
            if unknown and (owner[at] is None or owner[at] != unknown_owner):
                out.append(unknown)
                unknown = ""
            unknown += piece
            unknown_owner = owner[at]
            continue
        if unknown:
            out.append(unknown)
            unknown = ""
        if piece not in CHINESE:
            # A function word ends an unknown stretch and is dropped: 钱 + 一 + 套 must not become the
            # "missing word" 钱一.
            out.append(piece)
    if unknown:
        out.append(unknown)
    return out


def _best_cut(text: str, known: Callable[[str], bool], longest: int = 4) -> list[str]:
    """Dynamic programming over cut points: fewest unexplained characters (a function word such as 一
    or 的 costs nothing), then fewest content pieces, then fewest pieces. A greedy left-to-right match
    would take 一上 from 一上午 because the index holds every bigram, and leave 午 unexplained."""
    inf = (len(text) + 1,) * 3
    best: list[tuple[int, int, int]] = [(0, 0, 0)] + [inf] * len(text)
    back = [0] * (len(text) + 1)
    for end in range(1, len(text) + 1):
        for size in range(1, min(longest, end) + 1):
            piece = text[end - size : end]
            function = piece in CHINESE
            if size > 1 and not function and not known(piece):
                continue
            # A lone character explains nothing here, though the index holds every character: cutting
            # an unknown word into characters the vault holds would hide that the word is missing.
            unexplained = 0 if size > 1 or function else 1
            content = 0 if function else 1
            prev = best[end - size]
            cost = (prev[0] + unexplained, prev[1] + content, prev[2] + 1)
            if cost < best[end]:
                best[end], back[end] = cost, end - size
    pieces = []
    end = len(text)
    while end:
        pieces.append(text[back[end] : end])
        end = back[end]
    return pieces[::-1]


def fallback_bigrams(word: str) -> list[str]:
    """Bigrams of a CJK query word the vault does not hold as a word (jieba may have cut it differently)."""
    return _bigrams(word) if len(word) > 2 else []
