#!/usr/bin/env python3
"""Performance bench: KRouter against plain SQLite FTS5 bm25() on the same synthetic vaults, in one run.

For each size it generates a seeded vault in a temp dir (see ``vaultgen.py``) and measures, each in a
fresh child process so peak RSS belongs to one job:

- cold index build (pages/s, MB/s of Markdown by wall clock, and MB per CPU-second of every process
  of the build: KRouter prepares pages in one worker process per core, FTS5 in one thread; peak RSS,
  index bytes on disk);
- warm open (open an existing index and load what a lookup needs) and a no-change refresh check;
- incremental refresh after editing 1 page and after editing 1 % of pages (detection included), with
  the page-table reload the next lookup of a long-lived process pays after it (the total is the figure
  compared with FTS5, whose next query needs nothing more);
- in-process lookup latency p50/p95/p99 over a fixed seeded question mix (English and Chinese), with
  the index fresh (``auto_refresh=False``) and as ``Router(vault)`` does by default (a change check
  before every question); each lookup reads the cited page's line and snippet, or on a refusal the
  first three candidates' lines, as the MCP reply does (they are worked out when first read);
- a fresh ``krouter ask`` process end to end, English and Chinese question (median of N runs);
- MCP per call: ``krouter mcp`` (its own watcher running) against a minimal FTS5 tool on the same MCP
  SDK (``fts_mcp.py``), both driven by the official client over stdio; peak RSS of each server process;
- the same through FTS5: build, refresh by (mtime, size), top-10 ``ORDER BY bm25()``, a fresh process
  that is a plain sqlite3 script (it imports nothing of the bench).

Latency percentiles are nearest-rank within one pass of the question mix; the mix is run ``--passes``
times (default 3), each pass in a fresh process (a fresh router or connection, a fresh server for MCP),
and each percentile reported is the median of the passes' (``n`` is the questions per pass). One pass of
80 Chinese questions makes its p99 the slowest question; a median over passes rests less on one.
The refreshes after an edit are measured in as many rounds (edit, refresh, in fresh processes), each
figure the median of the rounds' (refresh, reload and their total each on its own).

FTS5 runs with two tokenizers, each over the question's content words, quoted and OR-ed:
``porter unicode61`` (what an English user would pick; it keeps a whole Han run as one token, so it is
reported for English questions only) and ``trigram`` (the built-in one that can search Chinese: words
of 3+ characters and the 3-character windows of Han runs). Both drop what KRouter drops as stop words
(``krouter/tokens/stopwords.py``, read by file path): English words in its English list, and Han
windows (or, for porter, Han runs) every character of which an occurrence of a word of its Chinese
list covers (我们的, 们的是, 是什么, 是哪个, 是多少). What remains asymmetric: KRouter cuts Chinese into
words with jieba and drops a stop word wherever it stands, while a window that straddles a function
word and a content word (们的数, 的是数) is still searched, as a trigram table cannot tell; a window of
content words made of characters that are stop words alone (在会上) is dropped, where jieba may keep
会上 as a word; and neither baseline drops KRouter's question
frames (English "how long", "what did we decide"; Chinese 今天, 那家, the A-not-A form 来不来, the 钱 of
多少钱); and a trigram table cannot search a Chinese word of one or two characters at all.

Every KRouter process runs with ``KROUTER_SEMANTIC=off`` (the lexical router, as a plain install runs
it) unless ``--semantic`` says otherwise; the mode is recorded in the JSON and printed. The CC-CEDICT
store and jieba's dictionary store are built before any measured job, as an installed KRouter has them
after its first Chinese question.

Peak RSS is each process's own high-water mark (``VmHWM``): ``ru_maxrss`` of a child carries over the
peak of the process that forked it, which made every job of a 100k run report the orchestrator's.

Examples (from the project root):
    python bench/perf/run.py                                   # 1k and 10k
    python bench/perf/run.py --sizes 1k,10k,100k --json /tmp/perf.json
    python bench/perf/run.py --sizes 300 --questions 20 --process-runs 1   # the CI smoke size

Timings are printed as a table and written as JSON; progress goes to stderr. Nothing here asserts a
timing: the targets of issue 8 are reported as ratios against FTS5 measured in the same run.
"""

from __future__ import annotations

import argparse
import compileall
import functools
import json
import math
import os
import platform
import random
import re
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
for _p in (str(ROOT), str(HERE)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import vaultgen  # noqa: E402

# Targets from issue 8, for the verdict column (never asserted).
TARGETS = {
    "lookup_p50_ms@10000": 5.0,
    "lookup_p99_ms@10000": 20.0,
    "lookup_p50_ms@100000": 30.0,
    "ask_en_ms@10000": 150.0,
    "ask_zh_ms@10000": 400.0,
    "refresh1_ms@10000": 100.0,
    "build_mb_s": 2.0,
    "build_rss_mb@100000": 300.0,
}


# Seconds after a page was written that KRouter still treats its stat as racy (RACY_NS), and a margin.
RACY_S = 2.5


def _log(msg: str) -> None:
    print(f"[perf {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ru_maxrss is in kilobytes on Linux, bytes on macOS.
_RU_MAXRSS_UNIT = 1 if sys.platform == "darwin" else 1024


def _peak_rss_mb() -> float:
    """This process's own peak resident set size, in MB.

    On Linux ``ru_maxrss`` survives fork and exec (the child starts from its parent's peak), so it is
    read from ``VmHWM``, which belongs to the memory map this program got at exec.
    """
    try:
        status = Path("/proc/self/status").read_text()
        m = re.search(r"^VmHWM:\s*(\d+) kB", status, re.M)
        if m:
            return int(m.group(1)) * 1024 / 1e6
    except OSError:
        pass
    # macOS reports bytes and gives a fresh process its own figure.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6


def _pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a list of milliseconds: the ceil(q/100 * n)-th smallest.

    (It was ``round(q/100 * n + 0.5)``, which rounds half to even: where q/100 * n is an odd whole
    number it took the next rank up, p95 of 20 values being the maximum.)"""
    if not values:
        return float("nan")
    s = sorted(values)
    rank = math.ceil(q * len(s) / 100 - 1e-9)
    return s[min(len(s) - 1, max(0, rank - 1))]


def _lat(values: list[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "p50": _pct(values, 50),
        "p95": _pct(values, 95),
        "p99": _pct(values, 99),
        "mean": statistics.fmean(values) if values else float("nan"),
    }


def _median_passes(passes: list[dict[str, Any]]) -> dict[str, Any]:
    """One result of several passes of the same job: each latency figure (p50, p95, p99, mean) the median
    of the passes', with the passes' own values beside it (``per_pass``); other numbers the median too,
    but peak RSS, the largest, each with its passes' values (``<key>_per_pass``); anything else
    (decisions) the first pass's."""
    first = passes[0]
    if len(passes) == 1:
        return first
    out: dict[str, Any] = {}
    for key, value in first.items():
        values = [p[key] for p in passes if key in p]
        if isinstance(value, dict) and "p50" in value:
            merged = {"n": value["n"], "passes": len(values), "samples": sum(v["n"] for v in values)}
            for fig in ("p50", "p95", "p99", "mean"):
                merged[fig] = statistics.median(v[fig] for v in values)
            merged["per_pass"] = {fig: [v[fig] for v in values] for fig in ("p50", "p95", "p99")}
            out[key] = merged
        elif isinstance(value, int | float) and not isinstance(value, bool):
            out[key] = max(values) if key.endswith("rss_mb") else statistics.median(values)
            out[f"{key}_per_pass"] = values
        else:
            out[key] = value
    out["passes"] = len(passes)
    return out


def _cpu_s(*usages: resource.struct_rusage) -> float:
    return sum(u.ru_utime + u.ru_stime for u in usages)


def _files_bytes(paths: list[Path]) -> int:
    return sum(p.stat().st_size for p in paths if p.exists())


# ---------------------------------------------------------------------------------------------
# Workers: each runs in its own process and prints one JSON object on its last stdout line.
# ---------------------------------------------------------------------------------------------


def w_kr_build(a: dict[str, Any]) -> dict[str, Any]:
    """Cold build of KRouter's index (the default location under KROUTER_CACHE_DIR)."""
    from krouter.index.store import Index

    vault = Path(a["vault"])
    total = a["pages"]
    step = max(1, total // 20)
    t0 = time.perf_counter()

    def progress(done: int, n: int) -> None:
        if done % step == 0 or done == n:
            rate = done / max(time.perf_counter() - t0, 1e-9)
            _log(f"  krouter build {done}/{n} ({rate:.0f} pages/s)")

    idx = Index(vault)
    # CPU of this process and of every process it forked and reaped during the build (the tokenising
    # workers, the merge's helper): all of them are waited for before rebuild() returns.
    self0, kids0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    stats = idx.rebuild(progress=progress if total >= 2000 else None)
    seconds = time.perf_counter() - t0
    self1, kids1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_self = _cpu_s(self1) - _cpu_s(self0)
    cpu_children = _cpu_s(kids1) - _cpu_s(kids0)
    path = idx.path
    idx.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    idx.close()
    files = [path, Path(f"{path}-wal"), Path(f"{path}-shm")]
    return {
        "seconds": seconds,
        "cpu_s": cpu_self + cpu_children,
        "cpu_self_s": cpu_self,
        "cpu_children_s": cpu_children,
        "pages": stats.added,
        "problems": len(stats.problems),
        "index_bytes": _files_bytes(files),
        "rss_mb": _peak_rss_mb(),
        # The tokenising worker processes' own peak (the largest one's; ru_maxrss of reaped children).
        "workers_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * _RU_MAXRSS_UNIT / 1e6,
    }


def _read_reply(receipt: Any) -> None:
    """Read what the MCP reply (``agents/mcp/replies.py``) and ``krouter ask`` read of a receipt: the
    cited page's line and snippet, or on a refusal the first three candidates' lines. A citation works
    its passage out when one of these is first read (``Citation.later``), so a lookup that never reads
    them leaves part of an answer's cost out."""
    if receipt.decision == "cite":
        for c in receipt.candidates[:1]:
            _ = (c.line, c.snippet)
    else:
        for c in receipt.candidates[:3]:
            _ = c.line


def w_kr_lookup(a: dict[str, Any]) -> dict[str, Any]:
    """Warm open, no-change refresh, and lookup latency (fresh index; and with the default change check)."""
    from krouter.routing.router import Router

    vault = Path(a["vault"])
    questions = a["questions"]
    t0 = time.perf_counter()
    router = Router(vault, auto_refresh=False)
    router._load_tables()  # what the first lookup would load anyway: the per-generation page table
    open_ms = (time.perf_counter() - t0) * 1e3
    t0 = time.perf_counter()
    noop = router.refresh()
    noop_ms = (time.perf_counter() - t0) * 1e3
    assert not noop.changed, "the vault changed under the bench"
    # Warm up: the first Chinese question loads jieba (~0.6 s), which is a process cost, measured below.
    for q in questions[:5]:
        _read_reply(router.decide(q["text"]))
    lat: dict[str, list[float]] = {"en": [], "zh": []}
    decisions = {"cite": 0, "refuse": 0}
    for q in questions:
        t0 = time.perf_counter()
        r = router.decide(q["text"])
        _read_reply(r)
        lat[q["lang"]].append((time.perf_counter() - t0) * 1e3)
        decisions[r.decision] += 1
    router.auto_refresh = True
    with_refresh: list[float] = []
    for q in questions[: a["refresh_questions"]]:
        t0 = time.perf_counter()
        _read_reply(router.decide(q["text"]))
        with_refresh.append((time.perf_counter() - t0) * 1e3)
    router.close()
    out = {
        "open_ms": open_ms,
        "noop_refresh_ms": noop_ms,
        "lookup": _lat(lat["en"] + lat["zh"]),
        "lookup_en": _lat(lat["en"]),
        "lookup_zh": _lat(lat["zh"]),
        "decisions": decisions,
        "rss_mb": _peak_rss_mb(),
    }
    if with_refresh:
        out["lookup_auto_refresh"] = _lat(with_refresh)
    return out


def w_kr_refresh(a: dict[str, Any]) -> dict[str, Any]:
    """One refresh after the main process edited pages: detection + re-indexing, as a lookup would pay."""
    from krouter.routing.router import Router
    from krouter.tokens.chinese import _load_jieba

    router = Router(Path(a["vault"]), auto_refresh=False)
    router._load_tables()
    # A long-lived router (MCP server, watcher, library user) has jieba loaded already; a fresh process
    # that re-reads a Chinese page pays the load once, reported apart as jieba_load_ms.
    t0 = time.perf_counter()
    _load_jieba()
    jieba_ms = (time.perf_counter() - t0) * 1e3
    t0 = time.perf_counter()
    if a.get("paths") is not None:
        # As the MCP server refreshes when its watcher reported these pages: no walk of the vault.
        try:
            stats = router.index.refresh(paths=set(a["paths"]))
        except TypeError:  # a KRouter before refresh(paths=...)
            router.close()
            return {}
    else:
        stats = router.refresh()
    refresh_ms = (time.perf_counter() - t0) * 1e3
    t0 = time.perf_counter()
    router._load_tables()  # the next lookup reloads the page table once per changed generation
    reload_ms = (time.perf_counter() - t0) * 1e3
    router.close()
    return {
        "ms": refresh_ms,
        "reload_ms": reload_ms,
        # What the target is judged on: the refresh and the reload the next lookup pays (FTS5's next
        # query needs nothing more than its refresh).
        "total_ms": refresh_ms + reload_ms,
        "jieba_load_ms": jieba_ms,
        "tokenized": stats.tokenized,
        "rss_mb": _peak_rss_mb(),
    }


# The two FTS5 baselines: ``porter unicode61`` for English, ``trigram`` (the one that can search Chinese).
FTS_TOKENIZERS = {"porter": "porter unicode61", "trigram": "trigram"}

_FTS_SCHEMA = """
CREATE TABLE files (path TEXT PRIMARY KEY, mtime_ns INTEGER, size INTEGER, rid INTEGER);
CREATE VIRTUAL TABLE pages USING fts5(path UNINDEXED, title, body, tokenize='{tokenize}');
"""


def _fts_walk(root: Path) -> dict[str, tuple[int, int]]:
    out: dict[str, tuple[int, int]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if name.endswith(".md"):
                full = os.path.join(dirpath, name)
                st = os.stat(full)
                out[os.path.relpath(full, root)] = (st.st_mtime_ns, st.st_size)
    return out


def _fts_insert(conn: sqlite3.Connection, root: Path, path: str, stat: tuple[int, int]) -> None:
    text = (root / path).read_text(encoding="utf-8", errors="replace")
    title = path.rsplit("/", 1)[-1].removesuffix(".md")
    cur = conn.execute("INSERT INTO pages (path, title, body) VALUES (?, ?, ?)", (path, title, text))
    conn.execute("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?)", (path, *stat, cur.lastrowid))


def w_fts_build(a: dict[str, Any]) -> dict[str, Any]:
    """Cold build of a baseline: every page's text into an FTS5 table, file stats beside it."""
    db = Path(a["db"])
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    vault = Path(a["vault"])
    self0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.executescript(_FTS_SCHEMA.format(tokenize=FTS_TOKENIZERS[a["tokenizer"]]))
    conn.execute("BEGIN")
    files = _fts_walk(vault)
    for n, (path, stat) in enumerate(sorted(files.items()), 1):
        _fts_insert(conn, vault, path, stat)
        if len(files) >= 2000 and n % max(1, len(files) // 10) == 0:
            _log(f"  fts5 {a['tokenizer']} build {n}/{len(files)}")
    conn.execute("COMMIT")
    seconds = time.perf_counter() - t0
    cpu_s = _cpu_s(resource.getrusage(resource.RUSAGE_SELF)) - _cpu_s(self0)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return {
        "seconds": seconds,
        "cpu_s": cpu_s,
        "pages": len(files),
        "index_bytes": _files_bytes([db, Path(f"{db}-wal"), Path(f"{db}-shm")]),
        "rss_mb": _peak_rss_mb(),
    }


_HAN_RUN = re.compile(r"[\u3400-\u9fff]+")
_WORD = re.compile(r"[^\W\u3400-\u9fff]+")


_STOPWORDS: Any = None


def _kr_stopwords() -> Any:
    """KRouter's stop word module (``krouter/tokens/stopwords.py``), read by file path: importing the
    package would load more of KRouter into the FTS5 processes (and into their peak RSS)."""
    global _STOPWORDS
    if _STOPWORDS is None:
        import importlib.util

        spec = importlib.util.spec_from_file_location(
            "_kr_stopwords", ROOT / "krouter" / "tokens" / "stopwords.py"
        )
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _STOPWORDS = module
    return _STOPWORDS


@functools.cache
def english_stopwords() -> frozenset[str]:
    """KRouter's English stop words (what neither system searches: "what", "did", "about")."""
    return frozenset(_kr_stopwords().ENGLISH)


@functools.cache
def chinese_stopwords() -> frozenset[str]:
    """KRouter's Chinese stop words and question words (的, 我们, 是, 什么, 哪个, 多少, ...)."""
    return frozenset(_kr_stopwords().CHINESE)


@functools.cache
def longest_chinese_stopword() -> int:
    return max(map(len, chinese_stopwords()))


def stop_marks(run: str, stop: frozenset[str], longest: int) -> list[bool]:
    """For each character of a Han run, True where an occurrence of a word of ``stop`` covers it: in
    我们的缓存用的是哪个服务器, 我 们 的 用 的 是 哪 个 (我们, 的, 用, 是, 哪个). A window all of whose
    characters are covered (们的是, 用的是, 是哪个) is one KRouter searches no word of."""
    marks = [False] * len(run)
    for j in range(len(run)):
        for k in range(j + 1, min(len(run), j + longest) + 1):  # longest: of the words of ``stop``
            if run[j:k] in stop:
                marks[j:k] = [True] * (k - j)
    return marks


def _content_words(question: str) -> list[str]:
    """The question's non-Han words without KRouter's English stopwords: the same content words both
    systems look up ("what", "did", "about" are not searched by either)."""
    stop = english_stopwords()
    return [w for w in _WORD.findall(question.lower()) if w not in stop]


def fts_query(question: str, tokenizer: str = "trigram") -> str:
    """The MATCH expression a plain FTS5 user would write: quoted terms, OR-ed (never raw user text).

    ``trigram``: content words of 3+ characters and the 3-character windows of Han runs; ``porter``:
    content words of 2+ characters and whole Han runs (unicode61 keeps a Han run as one token). A window
    (or run) made wholly of KRouter's Chinese stop words (我们的, 是什么, 是多少) is left out, as the
    English stop words are; see the module's docstring for what stays asymmetric.
    """
    zh_stop = chinese_stopwords()
    longest = longest_chinese_stopword()
    if tokenizer == "trigram":
        terms = [w for w in _content_words(question) if len(w) >= 3]
        for run in _HAN_RUN.findall(question):
            marks = stop_marks(run, zh_stop, longest)
            terms.extend(run[i : i + 3] for i in range(len(run) - 2) if not all(marks[i : i + 3]))
    else:
        terms = [w for w in _content_words(question) if len(w) >= 2]
        terms += [r for r in _HAN_RUN.findall(question) if not all(stop_marks(r, zh_stop, longest))]
    terms = list(dict.fromkeys(terms))
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


_FTS_TOP10 = "SELECT path, title, bm25(pages) AS s FROM pages WHERE pages MATCH ? ORDER BY s LIMIT 10"


def w_fts_lookup(a: dict[str, Any]) -> dict[str, Any]:
    """Open an FTS5 database and time the same question mix: top-10 by bm25()."""
    tokenizer = a["tokenizer"]
    t0 = time.perf_counter()
    conn = sqlite3.connect(a["db"], isolation_level=None)
    conn.execute("SELECT count(*) FROM files").fetchone()
    open_ms = (time.perf_counter() - t0) * 1e3
    questions = a["questions"]
    for q in questions[:5]:
        m = fts_query(q["text"], tokenizer)
        if m:
            conn.execute(_FTS_TOP10, (m,)).fetchall()
    lat: dict[str, list[float]] = {"en": [], "zh": []}
    for q in questions:
        t0 = time.perf_counter()
        m = fts_query(q["text"], tokenizer)
        if m:
            conn.execute(_FTS_TOP10, (m,)).fetchall()
        lat[q["lang"]].append((time.perf_counter() - t0) * 1e3)
    conn.close()
    return {
        "open_ms": open_ms,
        "lookup": _lat(lat["en"] + lat["zh"]),
        "lookup_en": _lat(lat["en"]),
        "lookup_zh": _lat(lat["zh"]),
        "rss_mb": _peak_rss_mb(),
    }


def w_fts_refresh(a: dict[str, Any]) -> dict[str, Any]:
    """The baseline's incremental refresh: walk, compare (mtime, size), replace changed rows."""
    vault = Path(a["vault"])
    conn = sqlite3.connect(a["db"], isolation_level=None)
    t0 = time.perf_counter()
    on_disk = _fts_walk(vault)
    stored = {p: (m, s, r) for p, m, s, r in conn.execute("SELECT path, mtime_ns, size, rid FROM files")}
    changed = [p for p, st in on_disk.items() if stored.get(p, (None, None, None))[:2] != st]
    conn.execute("BEGIN")
    for p in changed:
        if p in stored:
            conn.execute("DELETE FROM pages WHERE rowid=?", (stored[p][2],))
        _fts_insert(conn, vault, p, on_disk[p])
    conn.execute("COMMIT")
    ms = (time.perf_counter() - t0) * 1e3
    conn.close()
    return {"ms": ms, "changed": len(changed), "rss_mb": _peak_rss_mb()}


# The fresh-process baseline: a plain script that imports sqlite3 and re only (importing this bench
# module cost it ~70 ms of imports a real FTS5 user would not pay). The query is built as fts_query does.
_FTS_PROCESS = """
import re, sqlite3, sys
STOP = set({stop!r})
ZH_STOP = set({zh_stop!r})
def marks(r):
    m = [False] * len(r)
    for j in range(len(r)):
        for k in range(j + 1, min(len(r), j + {longest}) + 1):
            if r[j:k] in ZH_STOP:
                m[j:k] = [True] * (k - j)
    return m
words = [w for w in re.findall(r"[^\\W\u3400-\u9fff]+", sys.argv[1].lower()) if w not in STOP]
han = re.findall(r"[\u3400-\u9fff]+", sys.argv[1])
if {tokenizer!r} == "trigram":
    terms = [w for w in words if len(w) >= 3]
    for r in han:
        m = marks(r)
        terms += [r[i:i + 3] for i in range(len(r) - 2) if not all(m[i:i + 3])]
else:
    terms = [w for w in words if len(w) >= 2] + [r for r in han if not all(marks(r))]
match = " OR ".join('"' + t.replace('"', '""') + '"' for t in dict.fromkeys(terms))
conn = sqlite3.connect({db!r})
for row in conn.execute("SELECT path FROM pages WHERE pages MATCH ? ORDER BY bm25(pages) LIMIT 10", (match,)):
    print(row[0])
"""


def fts_process_code(db: str, tokenizer: str) -> str:
    """The source of the fresh-process FTS5 baseline for one database and tokenizer."""
    return _FTS_PROCESS.format(
        stop=sorted(english_stopwords()),
        zh_stop=sorted(chinese_stopwords()),
        longest=longest_chinese_stopword(),
        tokenizer=tokenizer,
        db=db,
    )


def _child_pids() -> list[int]:
    """The pids of this process's children (the MCP server the client spawned)."""
    pids: list[int] = []
    try:
        for task in Path("/proc/self/task").iterdir():
            pids.extend(int(x) for x in (task / "children").read_text().split())
    except OSError:
        pids = []
    if not pids:  # a kernel without /proc/<pid>/task/<tid>/children: read each process's parent
        me = os.getpid()
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[1]) == me:
                pids.append(int(stat.parent.name))
    return sorted(set(pids))


def _process_peak_rss_mb(pid: int) -> float | None:
    """Another live process's own peak RSS (``VmHWM``), in MB; None where /proc does not say."""
    try:
        m = re.search(r"^VmHWM:\s*(\d+) kB", Path(f"/proc/{pid}/status").read_text(), re.M)
    except OSError:
        return None
    return int(m.group(1)) * 1024 / 1e6 if m else None


# Edits made while a warm ``krouter mcp`` runs, each followed by one timed call once its watcher has had
# time to report it (its debounce is 0.3 s; an agent's next call comes seconds later).
MCP_EDITS = 5
MCP_EDIT_SETTLE_S = 2.5


def w_mcp(a: dict[str, Any]) -> dict[str, Any]:
    """Per-call latency of one MCP tool, driven by the official client over stdio (a warm server).

    The server is started, initialised and warmed up with five calls first; then every question of the
    mix is one timed ``call_tool`` round trip (request, tool, reply, parsing), as an agent pays it. The
    server process's own peak RSS is read after the last call, before the session closes
    (``server_rss_mb``); ``rss_mb`` is this client's.
    """
    import anyio
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=a["command"][0], args=a["command"][1:], env=a["env"])
    lat: dict[str, list[float]] = {"en": [], "zh": []}
    timing: dict[str, float] = {}

    async def session() -> None:
        t0 = time.perf_counter()
        async with Client(params, read_timeout_seconds=600) as client:
            timing["start_ms"] = (time.perf_counter() - t0) * 1e3
            for q in a["questions"][:5]:
                await client.call_tool(a["tool"], {"question": q["text"]})
            for q in a["questions"]:
                t0 = time.perf_counter()
                result = await client.call_tool(a["tool"], {"question": q["text"]})
                lat[q["lang"]].append((time.perf_counter() - t0) * 1e3)
                if result.is_error:
                    raise RuntimeError(f"{a['tool']} failed: {result.content}")
            peaks = [_process_peak_rss_mb(pid) for pid in _child_pids()]
            timing["server_rss_mb"] = max((p for p in peaks if p is not None), default=float("nan"))
            timing["server_processes"] = len(peaks)
            edit = a.get("edit")
            for n in range(MCP_EDITS if edit else 0):
                # An agent's next call some seconds after a page was saved: the server's watcher has
                # reported the edit by then, and whatever is left to do the call pays.
                vaultgen.edit_pages(Path(edit["vault"]), [edit["page"]], f"mcp edit {n}")
                await anyio.sleep(MCP_EDIT_SETTLE_S)
                q = a["questions"][n % len(a["questions"])]
                t0 = time.perf_counter()
                result = await client.call_tool(a["tool"], {"question": q["text"]})
                after_edit.append((time.perf_counter() - t0) * 1e3)
                if result.is_error:
                    raise RuntimeError(f"{a['tool']} failed after an edit: {result.content}")

    after_edit: list[float] = []
    anyio.run(session)
    return {
        **({"call_after_edit": _lat(after_edit)} if after_edit else {}),
        "start_ms": timing["start_ms"],
        "server_rss_mb": timing["server_rss_mb"],
        "server_processes": timing["server_processes"],
        "call": _lat(lat["en"] + lat["zh"]),
        "call_en": _lat(lat["en"]),
        "call_zh": _lat(lat["zh"]),
        "rss_mb": _peak_rss_mb(),
    }


WORKERS = {
    "kr_build": w_kr_build,
    "kr_lookup": w_kr_lookup,
    "kr_refresh": w_kr_refresh,
    "fts_build": w_fts_build,
    "fts_lookup": w_fts_lookup,
    "fts_refresh": w_fts_refresh,
    "mcp": w_mcp,
}


# ---------------------------------------------------------------------------------------------
# Orchestration
# ---------------------------------------------------------------------------------------------


def _fts_key(tokenizer: str) -> str:
    """Result key of a baseline: "fts5" is the trigram table (as in earlier runs), "fts5_porter" the other."""
    return "fts5" if tokenizer == "trigram" else f"fts5_{tokenizer}"


class Bench:
    """One run: shared temp dir, environment for children, results per size."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.tmp = Path(args.work_dir or tempfile.mkdtemp(prefix="krouter-perf-"))
        self.tmp.mkdir(parents=True, exist_ok=True)
        self.env = dict(os.environ)
        # Everything the children touch lives in the temp dir: index, jieba cache, (disabled) query log.
        for var, sub in (
            ("KROUTER_CACHE_DIR", "cache"),
            ("KROUTER_STATE_DIR", "state"),
            ("KROUTER_CONFIG_DIR", "config"),
        ):
            self.env[var] = str(self.tmp / sub)
        self.env["KROUTER_NO_QUERY_LOG"] = "1"
        # Pinned: "auto" (the default) turns the semantic second opinion on wherever its package is
        # installed, as in a `.[dev]` install, and the bench would time another router than a plain one.
        self.env["KROUTER_SEMANTIC"] = args.semantic
        self.env["PYTHONPATH"] = os.pathsep.join([str(ROOT), self.env.get("PYTHONPATH", "")]).rstrip(
            os.pathsep
        )
        self.env.pop("KROUTER_VAULT", None)
        self.krouter_bin = shutil.which("krouter", path=str(Path(sys.executable).parent)) or ""

    def child(self, worker: str, **kwargs: Any) -> dict[str, Any]:
        cmd = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--worker",
            worker,
            "--worker-args",
            json.dumps(kwargs),
        ]
        proc = subprocess.run(cmd, env=self.env, stdout=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"worker {worker} failed with exit code {proc.returncode}")
        return json.loads(proc.stdout.strip().splitlines()[-1])

    def passes(self, worker: str, first: dict[str, Any] | None = None, **kwargs: Any) -> dict[str, Any]:
        """A job run ``--passes`` times, each in a fresh process, merged by ``_median_passes``; ``first``
        are arguments for the first pass only."""
        runs = [self.child(worker, **{**kwargs, **(first or {})})]
        runs += [self.child(worker, **kwargs) for _ in range(self.args.passes - 1)]
        return _median_passes(runs)

    def fresh_process(self, argv: list[str], runs: int) -> dict[str, Any]:
        """Median wall time of a fresh process (one untimed warm-up run first, for the page cache)."""
        if runs > 1:
            subprocess.run(argv, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            proc = subprocess.run(
                argv, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
            )
            times.append((time.perf_counter() - t0) * 1e3)
            if proc.returncode not in (0, 3):
                raise RuntimeError(f"{argv[:3]} failed ({proc.returncode}): {proc.stderr[-500:]}")
        return {"median_ms": statistics.median(times), "min_ms": min(times), "runs": runs}

    def watched_asks(self, kbin: list[str], vault: Path, en: str, zh: str) -> dict[str, Any]:
        """Fresh ``krouter ask`` processes while ``krouter watch`` runs on the vault (its lease tells
        them the index is fresh, so they skip the walk; its socket, where it has one, answers them);
        empty for a KRouter without that lease."""
        probe = (
            "import sys; from pathlib import Path; from krouter.index.schema import index_path\n"
            # Module paths of this layout first, then those of KRouters before the ops/ package.
            "try:\n    from krouter.ops.watch_lease import watched_clean\n"
            "except ImportError:\n"
            "    try:\n        from krouter.watch_lease import watched_clean\n"
            "    except ImportError:\n        sys.exit(2)\n"
            "index = index_path(Path(sys.argv[1]).resolve())\n"
            "try:\n    from krouter.ops.ask_socket.protocol import socket_path\n"
            "except ImportError:\n"
            "    try:\n        from krouter.ask_socket import socket_path\n"
            "    except ImportError:\n        socket_path = None\n"
            "if socket_path is None:\n    ready = True\n"
            "else:\n    ready = socket_path(index).exists()\n"
            "sys.exit(0 if ready and watched_clean(index) else 1)"
        )
        proc = subprocess.Popen(
            [*kbin, "watch", "--vault", str(vault)],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline:
                rc = subprocess.run(
                    [sys.executable, "-c", probe, str(vault)], env=self.env, stderr=subprocess.DEVNULL
                )
                if rc.returncode == 0:
                    break
                if proc.poll() is not None or rc.returncode != 1:  # the watcher died, or no lease module
                    return {}
                time.sleep(0.2)
            else:
                return {}
            runs = self.args.process_runs
            return {
                "krouter_en_watched": self.fresh_process([*kbin, "ask", en, "--vault", str(vault)], runs),
                "krouter_zh_watched": self.fresh_process([*kbin, "ask", zh, "--vault", str(vault)], runs),
            }
        finally:
            proc.terminate()
            proc.wait()

    def vault(self, size: int) -> tuple[Path, dict[str, Any]]:
        folder = self.tmp / f"vault-{size}-s{self.args.seed}"
        manifest_path = self.tmp / f"vault-{size}-s{self.args.seed}.json"
        if manifest_path.exists():
            # Reused (with --work-dir) only when generated here before with the same seed, size and
            # question count, and not yet edited by a refresh measurement.
            manifest = json.loads(manifest_path.read_text())
            if manifest.get("questions_n") == self.args.questions and manifest.get("pristine"):
                return folder, manifest
        shutil.rmtree(folder, ignore_errors=True)
        t0 = time.perf_counter()
        manifest = vaultgen.generate(folder, size, seed=self.args.seed, n_questions=self.args.questions)
        manifest["generate_s"] = time.perf_counter() - t0
        manifest["questions_n"] = self.args.questions
        manifest["pristine"] = True
        manifest["written_at"] = time.time()
        manifest_path.write_text(json.dumps(manifest))
        _log(f"generated {vaultgen.describe(manifest)} in {manifest['generate_s']:.1f}s")
        return folder, manifest

    def run_size(self, size: int) -> dict[str, Any]:
        a = self.args
        _log(f"== {size} pages")
        vault, manifest = self.vault(size)
        questions = manifest["questions"]
        mb = manifest["bytes"] / 1e6
        out: dict[str, Any] = {
            "pages": size,
            "markdown_mb": mb,
            "replaced": manifest["replaced"],
            "langs": manifest["langs"],
        }
        fts_db = {tok: str(self.tmp / f"fts-{tok}-{size}.sqlite3") for tok in FTS_TOKENIZERS}

        # jieba's dictionary store and the CC-CEDICT store are written on first use on a machine
        # (seconds, once): both before any measured job, which still loads them like any real process.
        # (The CC-CEDICT store used to be compiled inside the first size's lookup job, and counted in
        # its peak RSS.)
        subprocess.run(
            [
                sys.executable,
                "-c",
                "from krouter.tokens.chinese import _load_jieba; _load_jieba()\n"
                "from krouter.tokens.bilingual import to_chinese; to_chinese('database')",
            ],
            env=self.env,
            check=True,
        )
        # A page written within RACY_S of the build is stored as racy and hashed again by the next
        # refresh (krouter.index.refresh.RACY_NS, 2 s): the first no-change refresh of the lookup job
        # re-read the whole vault (323 ms instead of ~50 at 10k) whenever the vault was generated just
        # before the build. A real vault's pages are rarely that fresh when it is indexed.
        settle = manifest.get("written_at", 0.0) + RACY_S - time.time()
        if settle > 0:
            time.sleep(settle)
        _log("krouter: cold build")
        kb = self.child("kr_build", vault=str(vault), pages=size)
        kb["pages_s"] = kb["pages"] / kb["seconds"]
        kb["mb_s"] = mb / kb["seconds"]
        kb["mb_cpu_s"] = mb / kb["cpu_s"]
        _log(
            f"  {kb['seconds']:.1f}s, {kb['mb_s']:.2f} MB/s, {kb['cpu_s']:.1f} CPU s "
            f"({kb['mb_cpu_s']:.2f} MB/CPU-s), peak RSS {kb['rss_mb']:.0f} MB"
        )
        out["build"] = {"krouter": kb}
        for tok in FTS_TOKENIZERS:
            _log(f"fts5 {tok}: cold build")
            fb = self.child("fts_build", vault=str(vault), db=fts_db[tok], tokenizer=tok)
            fb["pages_s"] = fb["pages"] / fb["seconds"]
            fb["mb_s"] = mb / fb["seconds"]
            fb["mb_cpu_s"] = mb / fb["cpu_s"]
            _log(f"  {fb['seconds']:.1f}s, {fb['mb_s']:.2f} MB/s, {fb['mb_cpu_s']:.2f} MB/CPU-s")
            out["build"][_fts_key(tok)] = fb

        _log(f"lookups: {len(questions)} questions, {a.passes} passes")
        # The change-checked lookups (a walk each) are timed in the first pass only: p50 is shown.
        kl = self.passes(
            "kr_lookup",
            first={"refresh_questions": a.refresh_questions},
            vault=str(vault),
            questions=questions,
            refresh_questions=0,
        )
        out["lookup"] = {"krouter": kl}
        for tok in FTS_TOKENIZERS:
            out["lookup"][_fts_key(tok)] = self.passes(
                "fts_lookup", db=fts_db[tok], questions=questions, tokenizer=tok
            )
        _log(
            f"  p50 en: krouter {kl['lookup_en']['p50']:.2f} ms, "
            f"fts5 porter {out['lookup']['fts5_porter']['lookup_en']['p50']:.2f} ms; "
            f"zh: krouter {kl['lookup_zh']['p50']:.2f} ms, fts5 trigram {out['lookup']['fts5']['lookup_zh']['p50']:.2f} ms"
        )

        _log("fresh processes")
        # As an install leaves KRouter: pip compiles a package's modules to bytecode when it installs
        # them, so a user's `krouter ask` reads bytecode. Where PYTHONDONTWRITEBYTECODE is set (this
        # project's machines set it) no run writes it, and every timed process compiled all of KRouter
        # (~75 ms of a 10k-page ask here) while the baseline's one-file script compiled itself only.
        compileall.compile_dir(str(ROOT / "krouter"), quiet=1)
        en = next(q["text"] for q in questions if q["lang"] == "en")
        zh = next(q["text"] for q in questions if q["lang"] == "zh")
        kbin = [self.krouter_bin] if self.krouter_bin else [sys.executable, "-m", "krouter"]

        def fts_proc(tok: str, question: str) -> dict[str, Any]:
            code = fts_process_code(fts_db[tok], tok)
            return self.fresh_process([sys.executable, "-c", code, question], a.process_runs)

        out["process"] = {
            "python_startup": self.fresh_process([sys.executable, "-c", "pass"], a.process_runs),
            "krouter_en": self.fresh_process([*kbin, "ask", en, "--vault", str(vault)], a.process_runs),
            "krouter_zh": self.fresh_process([*kbin, "ask", zh, "--vault", str(vault)], a.process_runs),
            "fts5_en": fts_proc("porter", en),
            "fts5_trigram_en": fts_proc("trigram", en),
            "fts5_zh": fts_proc("trigram", zh),
            "questions": {"en": en, "zh": zh},
        }
        out["process"].update(self.watched_asks(kbin, vault, en, zh))
        if not a.no_mcp:
            _log("MCP per call")
            mcp_questions = questions[: a.mcp_calls]
            out["mcp"] = {
                "krouter": self.passes(
                    "mcp",
                    command=[*kbin, "mcp", "--vault", str(vault)],
                    env=self.env,
                    tool="krouter_ask",
                    questions=mcp_questions,
                    edit={"vault": str(vault), "page": vaultgen.all_pages(vault)[0]},
                ),
                "fts5": self.passes(
                    "mcp",
                    command=[sys.executable, str(HERE / "fts_mcp.py"), fts_db["porter"], fts_db["trigram"]],
                    env=self.env,
                    tool="fts_ask",
                    questions=mcp_questions,
                ),
            }
            _log(
                f"  p50 krouter {out['mcp']['krouter']['call']['p50']:.1f} ms, "
                f"fts5 {out['mcp']['fts5']['call']['p50']:.1f} ms; server peak RSS krouter "
                f"{out['mcp']['krouter']['server_rss_mb']:.0f} MB, fts5 {out['mcp']['fts5']['server_rss_mb']:.0f} MB"
            )

        _log("incremental refresh")
        pages = vaultgen.all_pages(vault)
        rng = random.Random(a.seed)
        refresh: dict[str, Any] = {}
        for label, count in (("1 page", 1), ("1%", max(1, size // 100))):
            picks = rng.sample(pages, count)
            # --passes edit-and-refresh rounds on the same pages, each figure the median of the rounds'
            # (one round under load moved the watcher-reported 10k figure from 22 to 56 ms between runs).
            runs: dict[str, list[dict[str, Any]]] = {}
            for n in range(a.passes):
                tag = label if n == 0 else f"{label}, round {n + 1}"
                vaultgen.edit_pages(vault, picks, tag)
                runs.setdefault("krouter_watched", []).append(
                    self.child("kr_refresh", vault=str(vault), paths=picks)
                )
                vaultgen.edit_pages(vault, picks, f"{tag} again")
                runs.setdefault("krouter", []).append(self.child("kr_refresh", vault=str(vault)))
                for tok in FTS_TOKENIZERS:
                    runs.setdefault(_fts_key(tok), []).append(
                        self.child("fts_refresh", vault=str(vault), db=fts_db[tok])
                    )
            refresh[label] = {"edited": count, **{k: _median_passes(v) for k, v in runs.items()}}
            kr, watched = refresh[label]["krouter"], refresh[label]["krouter_watched"]
            fr = refresh[label]["fts5_porter"]
            _log(
                f"  {label}: krouter {kr['ms']:.0f} + reload {kr['reload_ms']:.0f} ms ({kr['tokenized']} re-read), "
                f"watcher-reported {watched.get('ms', float('nan')):.0f} + {watched.get('reload_ms', float('nan')):.0f} ms, "
                f"fts5 porter {fr['ms']:.0f} ms"
            )
        out["refresh"] = refresh
        # The vault was edited: a later run with --work-dir regenerates it rather than reuse it.
        manifest["pristine"] = False
        (self.tmp / f"vault-{size}-s{a.seed}.json").write_text(json.dumps(manifest))
        return out


def _machine() -> dict[str, Any]:
    info: dict[str, Any] = {
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
    }
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text()
        m = re.search(r"model name\s*:\s*(.+)", cpuinfo)
        info["cpu"] = m.group(1).strip() if m else platform.processor()
        mem = re.search(r"MemTotal:\s*(\d+)", Path("/proc/meminfo").read_text())
        info["ram_gb"] = round(int(mem.group(1)) / 1e6, 1) if mem else None
        info["loadavg_start"] = os.getloadavg()
    except OSError:
        info["cpu"] = platform.processor()
    return info


def header(result: dict[str, Any]) -> str:
    """The lines printed above the table: what the run pinned and how loaded the machine was."""
    m = result["machine"]

    def load(key: str) -> str:
        return " / ".join(f"{x:.2f}" for x in m[key]) if m.get(key) else "-"

    return (
        f"started {result['started']}; KROUTER_SEMANTIC={result['semantic']}; "
        f"{result['passes']} passes per latency figure (median of the passes' percentiles)\n"
        f"{m.get('cpu', '?')}, {m.get('cpus', '?')} CPUs; load average (1/5/15 min) at start "
        f"{load('loadavg_start')}, at end {load('loadavg_end')}\n"
    )


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.1f}x" if b else "-"


def table(result: dict[str, Any]) -> str:
    """The side-by-side table printed at the end (and pasted into docs/PERFORMANCE.md)."""
    rows: list[tuple[str, ...]] = []
    head = ("measure", *[f"{s['pages']:,} pages" for s in result["sizes"]])

    def row(label: str, fn: Any) -> None:
        cells = []
        for s in result["sizes"]:
            try:
                cells.append(fn(s))
            except (KeyError, ZeroDivisionError):
                cells.append("-")
        rows.append((label, *cells))

    def b(s: dict[str, Any], sys_: str) -> dict[str, Any]:
        return s["build"][sys_]

    row("markdown (MB)", lambda s: f"{s['markdown_mb']:.1f}")
    for label, key in (("krouter", "krouter"), ("fts5 porter", "fts5_porter"), ("fts5 trigram", "fts5")):
        row(
            f"build: {label} s (MB/s)",
            lambda s, k=key: f"{b(s, k)['seconds']:.1f} ({b(s, k)['mb_s']:.2f})",
        )
    row(
        "build CPU s (MB per CPU-s): krouter, all processes",
        lambda s: f"{b(s, 'krouter')['cpu_s']:.2f} ({b(s, 'krouter')['mb_cpu_s']:.2f})",
    )
    row(
        "build CPU s (MB per CPU-s): fts5 porter / trigram",
        lambda s: " / ".join(
            f"{b(s, k)['cpu_s']:.2f} ({b(s, k)['mb_cpu_s']:.2f})" for k in ("fts5_porter", "fts5")
        ),
    )
    row(
        "build rate krouter / porter, trigram: wall MB/s",
        lambda s: " / ".join(
            f"{b(s, 'krouter')['mb_s'] / b(s, k)['mb_s']:.2f}" for k in ("fts5_porter", "fts5")
        ),
    )
    row(
        "build rate krouter / porter, trigram: MB per CPU-s (the 1/3 target)",
        lambda s: " / ".join(
            f"{b(s, 'krouter')['mb_cpu_s'] / b(s, k)['mb_cpu_s']:.2f}" for k in ("fts5_porter", "fts5")
        ),
    )
    row("build: krouter pages/s", lambda s: f"{b(s, 'krouter')['pages_s']:.0f}")
    row(
        "build: peak RSS krouter / porter / trigram (MB)",
        lambda s: " / ".join(f"{b(s, k)['rss_mb']:.0f}" for k in ("krouter", "fts5_porter", "fts5")),
    )
    row(
        "build: krouter tokenising workers, largest peak RSS (MB)",
        lambda s: f"{b(s, 'krouter').get('workers_rss_mb', 0):.0f}",
    )
    row(
        "index on disk krouter / porter / trigram (MB)",
        lambda s: " / ".join(
            f"{b(s, k)['index_bytes'] / 1e6:.1f}" for k in ("krouter", "fts5_porter", "fts5")
        ),
    )
    row(
        "index on disk krouter / markdown",
        lambda s: f"{b(s, 'krouter')['index_bytes'] / 1e6 / s['markdown_mb']:.1f}x",
    )
    row(
        "warm open krouter / fts5 (ms)",
        lambda s: f"{s['lookup']['krouter']['open_ms']:.1f} / {s['lookup']['fts5']['open_ms']:.1f}",
    )
    row("no-change refresh check (ms)", lambda s: f"{s['lookup']['krouter']['noop_refresh_ms']:.1f}")

    def rf(s: dict[str, Any], k: str, x: str) -> dict[str, Any]:
        return s["refresh"][k][x]

    def total(s: dict[str, Any], k: str, x: str) -> float:
        r = rf(s, k, x)
        return float(r.get("total_ms", r["ms"] + r["reload_ms"]))

    for label, key in (("refresh 1 page", "1 page"), ("refresh 1% pages", "1%")):
        row(
            f"{label}: krouter / porter / trigram (ms)",
            lambda s, k=key: " / ".join(
                f"{rf(s, k, x)['ms']:.0f}" for x in ("krouter", "fts5_porter", "fts5")
            ),
        )
        row(
            f"{label}: then table reload (ms)",
            lambda s, k=key: f"{rf(s, k, 'krouter')['reload_ms']:.0f}",
        )
        row(
            f"{label}: krouter refresh + reload / porter (ms)",
            lambda s, k=key: (
                f"{total(s, k, 'krouter'):.0f} / {rf(s, k, 'fts5_porter')['ms']:.0f} "
                f"({_ratio(total(s, k, 'krouter'), rf(s, k, 'fts5_porter')['ms'])})"
            ),
        )
        row(
            f"{label}, watcher-reported: krouter (ms)",
            lambda s, k=key: f"{rf(s, k, 'krouter_watched')['ms']:.0f}",
        )
        row(
            f"{label}, watcher-reported: refresh + reload (ms)",
            lambda s, k=key: (
                f"{total(s, k, 'krouter_watched'):.0f} "
                f"({rf(s, k, 'krouter_watched')['ms']:.0f} + {rf(s, k, 'krouter_watched')['reload_ms']:.0f})"
            ),
        )

    def lk(s: dict[str, Any], sys_: str, lang: str, p: str) -> float:
        return float(s["lookup"][sys_][f"lookup_{lang}"][p])

    row(
        "lookup questions per pass en / zh (x passes)",
        lambda s: (
            f"{s['lookup']['krouter']['lookup_en']['n']} / {s['lookup']['krouter']['lookup_zh']['n']} "
            f"(x{s['lookup']['krouter'].get('passes', 1)})"
        ),
    )

    for pct in ("p50", "p95", "p99"):
        row(
            f"lookup {pct} en: krouter / porter / trigram (ms)",
            lambda s, p=pct: (
                f"{lk(s, 'krouter', 'en', p):.2f} / {lk(s, 'fts5_porter', 'en', p):.2f} "
                f"({_ratio(lk(s, 'krouter', 'en', p), lk(s, 'fts5_porter', 'en', p))}) / {lk(s, 'fts5', 'en', p):.2f}"
            ),
        )
    for pct in ("p50", "p95", "p99"):
        row(
            f"lookup {pct} zh: krouter / trigram (ms)",
            lambda s, p=pct: (
                f"{lk(s, 'krouter', 'zh', p):.2f} / {lk(s, 'fts5', 'zh', p):.2f} "
                f"({_ratio(lk(s, 'krouter', 'zh', p), lk(s, 'fts5', 'zh', p))})"
            ),
        )
    row(
        "lookup p50 with change check (ms)",
        lambda s: f"{s['lookup']['krouter']['lookup_auto_refresh']['p50']:.1f}",
    )
    row(
        "lookup peak RSS krouter / porter / trigram (MB)",
        lambda s: " / ".join(f"{s['lookup'][k]['rss_mb']:.0f}" for k in ("krouter", "fts5_porter", "fts5")),
    )
    row("python -c pass (ms)", lambda s: f"{s['process']['python_startup']['median_ms']:.0f}")
    for lang, base in (("en", "porter"), ("zh", "trigram")):
        row(
            f"fresh `krouter ask` {lang} / fts5 {base} script (ms)",
            lambda s, lg=lang: (
                f"{s['process'][f'krouter_{lg}']['median_ms']:.0f} / {s['process'][f'fts5_{lg}']['median_ms']:.0f} "
                f"({_ratio(s['process'][f'krouter_{lg}']['median_ms'], s['process'][f'fts5_{lg}']['median_ms'])})"
            ),
        )
    for lang in ("en", "zh"):
        row(
            f"fresh `krouter ask` {lang}, `krouter watch` running (ms)",
            lambda s, lg=lang: (
                f"{s['process'][f'krouter_{lg}_watched']['median_ms']:.0f} "
                f"({_ratio(s['process'][f'krouter_{lg}_watched']['median_ms'], s['process'][f'fts5_{lg}']['median_ms'])})"
            ),
        )
    row(
        "MCP calls per pass (x passes)",
        lambda s: f"{s['mcp']['krouter']['call']['n']} (x{s['mcp']['krouter'].get('passes', 1)})",
    )
    for pct in ("p50", "p95", "p99"):
        row(
            f"MCP call {pct}: krouter_ask / fts5 tool (ms)",
            lambda s, p=pct: (
                f"{s['mcp']['krouter']['call'][p]:.1f} / {s['mcp']['fts5']['call'][p]:.1f} "
                f"({_ratio(s['mcp']['krouter']['call'][p], s['mcp']['fts5']['call'][p])})"
            ),
        )
    row(
        "MCP call after an edit the watcher reported, p50: krouter_ask / fts5 tool's any call (ms)",
        lambda s: (
            f"{s['mcp']['krouter']['call_after_edit']['p50']:.1f} / {s['mcp']['fts5']['call']['p50']:.1f} "
            f"({_ratio(s['mcp']['krouter']['call_after_edit']['p50'], s['mcp']['fts5']['call']['p50'])})"
            if "call_after_edit" in s["mcp"]["krouter"]
            else "-"
        ),
    )
    row(
        "MCP server peak RSS krouter / fts5 tool (MB)",
        lambda s: f"{s['mcp']['krouter']['server_rss_mb']:.0f} / {s['mcp']['fts5']['server_rss_mb']:.0f}",
    )
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(head, widths, strict=True)) + " |"]
    lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    lines.extend("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |" for r in rows)
    return "\n".join(lines)


def _sizes(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        part = part.strip().lower()
        mult = 1000 if part.endswith("k") else 1
        out.append(int(float(part.removesuffix("k")) * mult))
    return out


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="1k,10k", help="comma-separated page counts (default 1k,10k; add 100k)")
    p.add_argument("--seed", type=int, default=8)
    p.add_argument("--questions", type=int, default=200, help="questions in the mix (60%% English)")
    p.add_argument("--refresh-questions", type=int, default=40, help="questions timed with the change check")
    p.add_argument("--process-runs", type=int, default=5, help="fresh-process runs per question")
    p.add_argument("--mcp-calls", type=int, default=200, help="timed MCP calls per server")
    p.add_argument("--no-mcp", action="store_true", help="skip the MCP per-call measurement")
    p.add_argument(
        "--passes",
        type=int,
        default=3,
        help="passes of the question mix (each a fresh process) for lookups and MCP calls, and rounds "
        "of edit-and-refresh; each figure reported is the median of the passes' (default 3)",
    )
    p.add_argument(
        "--semantic",
        choices=("off", "auto", "on"),
        default="off",
        help="KROUTER_SEMANTIC for every KRouter process (default off: the lexical router)",
    )
    p.add_argument("--json", type=Path, help="write the results here")
    p.add_argument(
        "--work-dir", type=Path, help="keep vaults and indexes here (default: a temp dir, removed)"
    )
    p.add_argument("--worker", choices=sorted(WORKERS), help=argparse.SUPPRESS)
    p.add_argument("--worker-args", help=argparse.SUPPRESS)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.worker:
        print(json.dumps(WORKERS[args.worker](json.loads(args.worker_args))))
        return 0
    if args.passes < 1:
        raise SystemExit("--passes must be 1 or more")
    bench = Bench(args)
    result: dict[str, Any] = {
        "machine": _machine(),
        "sizes": [],
        "started": time.strftime("%Y-%m-%d %H:%M:%S"),
        "semantic": args.semantic,
        "passes": args.passes,
    }
    try:
        for size in _sizes(args.sizes):
            t0 = time.perf_counter()
            entry = bench.run_size(size)
            entry["bench_s"] = time.perf_counter() - t0
            result["sizes"].append(entry)
            if args.json:  # written after every size, so a long run that dies still leaves figures
                args.json.write_text(json.dumps(result, indent=1, ensure_ascii=False))
    finally:
        if args.work_dir is None:
            shutil.rmtree(bench.tmp, ignore_errors=True)
    result["machine"]["loadavg_end"] = os.getloadavg()
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, ensure_ascii=False))
    print(header(result))
    print(table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
