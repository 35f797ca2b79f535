"""Chinese: jieba, loaded once and lazily, its dictionary kept in a store questions can read without
loading it, and the re-cut of a question's Han stretch into the longest pieces the vault holds.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import sqlite3
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from krouter import config
from krouter.atomic import remove_others, sqlite_aside
from krouter.tokens.glued_grammar import grammar_words_whole
from krouter.tokens.jieba_cut import Cutter
from krouter.tokens.scripts import char_bigrams, is_cjk
from krouter.tokens.stopwords import CHINESE

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


def question_jieba():
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


def jieba_words(run: str) -> list[str]:
    """The words jieba cuts a Han run into (HMM on), function words dropped: what a page indexes."""
    cutter = _cutter
    if cutter is None or not cutter.current(_jieba):
        cutter = _new_cutter()
    return [w for w in cutter.cut(run) if w not in CHINESE]


_cutter: Cutter | None = None


def _new_cutter() -> Cutter:
    global _cutter
    _cutter = Cutter(_load_jieba())
    return _cutter


def repair(
    words: list[str], known: Callable[[str], bool], reached: Callable[[str], bool] | None = None
) -> list[str]:
    """Re-cut stretches of single characters and unknown words by longest match against the vault; a
    segmenter's word the vault holds another way (``reached``: through a translation) is kept as it is.
    A grammar word the segmenter glued to a word the vault lacks is cut out first (``glued_grammar``)."""
    out: list[str] = []
    stretch: list[str] = []
    words = grammar_words_whole(words, known, question_jieba().FREQ)
    # Joined before 几条 gives 条: 收 + 条 of 能收几条 is no 收条 (a receipt).
    for word in [*(_split_asking(w) for w in _joined_words(words)), ""]:
        weak = (
            bool(word)
            and (len(word) == 1 or not (known(word) or (reached is not None and reached(word))))
            and word not in CHINESE
        )
        if weak:
            stretch.append(word)
            continue
        out.extend(_recut(stretch, known))
        stretch = []
        if word:
            out.append(word)
    return out


def _joined_words(words: Iterable[str]) -> list[str]:
    """Characters the segmenter cut alone, side by side, that make a word of CC-CEDICT's, as that one
    word (年 + 假 is 年假, annual leave, which jieba's dictionary lacks): looked up alone, each matched
    any page holding it anywhere, and "年假怎么申请" cited the sick-leave page (病假, 每年) at 1.0."""
    from krouter.tokens import bilingual

    out = list(words)
    i = 0
    while i < len(out):
        run = 0
        while i + run < len(out) and len(out[i + run]) == 1 and out[i + run] not in CHINESE:
            run += 1
        for size in range(min(run, 4), 1, -1):
            word = "".join(out[i : i + size])
            if bilingual.to_english(word):
                out[i : i + size] = [word]
                break
        i += 1
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
    dictionary = question_jieba().FREQ
    # Which multi-character segmenter word each character came from (None: a character cut alone), and
    # the same for dictionary words only.
    owner: list[int | None] = []
    in_word: list[int | None] = []
    for n, word in enumerate(stretch):
        owner.extend([n if len(word) > 1 else None] * len(word))
        in_word.extend([n if len(word) > 1 and dictionary.get(word, 0) else None] * len(word))

    def inner_word(start: int, piece: str) -> bool:
        # A dictionary word inside one segmenter word the vault lacks (昨天 of 昨天下午), never one
        # made across two (收 + 条 of 能收几条 is no 收条).
        end = start + len(piece) - 1
        return owner[start] is not None and owner[start] == owner[end] and bool(dictionary.get(piece, 0))

    pieces = _best_cut(text, known, inner_word)
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


def _best_cut(
    text: str,
    known: Callable[[str], bool],
    word: Callable[[int, str], bool] = lambda start, piece: False,
    longest: int = 4,
) -> list[str]:
    """Dynamic programming over cut points: fewest unexplained characters (a function word such as 一
    or 的 costs nothing), then fewest content pieces, then fewest pieces. A greedy left-to-right match
    would take 一上 from 一上午 because the index holds every bigram, and leave 午 unexplained. A piece
    the vault lacks may still be a ``word`` (starting at that index): its characters stay unexplained,
    but as one piece it beats a cut that explains as many characters through a word the text does not
    hold (昨天 + 下午 of 昨天下午, not 昨 + 天下 + 午)."""
    inf = (len(text) + 1,) * 3
    best: list[tuple[int, int, int]] = [(0, 0, 0)] + [inf] * len(text)
    back = [0] * (len(text) + 1)
    for end in range(1, len(text) + 1):
        for size in range(1, min(longest, end) + 1):
            piece = text[end - size : end]
            function = piece in CHINESE
            held = size == 1 or function or known(piece)
            if not held and not word(end - size, piece):
                continue
            # A lone character explains nothing here, though the index holds every character: cutting
            # an unknown word into characters the vault holds would hide that the word is missing.
            unexplained = size if not held else 0 if size > 1 or function else 1
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
    return char_bigrams(word) if len(word) > 2 else []


def holds_word(terms: set[str] | frozenset[str], term: str) -> bool:
    """Whether a text's index ``terms`` hold a question's ``term``: as a word, or a CJK word by all of its
    bigrams (pages index kana and Hangul runs as bigrams, and jieba may cut a Han word otherwise)."""
    if term in terms:
        return True
    grams = fallback_bigrams(term) if is_cjk(term) else []
    return bool(grams) and all(gram in terms for gram in grams)
