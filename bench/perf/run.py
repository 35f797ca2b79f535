#!/usr/bin/env python3
"""Performance bench: KRouter against plain SQLite FTS5 bm25() on the same synthetic vaults, in one run.

For each size it generates a seeded vault in a temp dir (see ``vaultgen.py``) and measures, each in a
fresh child process so peak RSS belongs to one job:

- cold index build (pages/s, MB/s of Markdown, peak RSS, index bytes on disk);
- warm open (open an existing index and load what a lookup needs) and a no-change refresh check;
- incremental refresh after editing 1 page and after editing 1 % of pages (detection included);
- in-process lookup latency p50/p95/p99 over a fixed seeded question mix (English and Chinese), with
  the index fresh (``auto_refresh=False``) and as ``Router(vault)`` does by default (a change check
  before every question);
- a fresh ``krouter ask`` process end to end, English and Chinese question (median of N runs);
- the same through FTS5: build, refresh by (mtime, size), top-10 ``ORDER BY bm25()``, a fresh process.

FTS5 uses the ``trigram`` tokenizer, the built-in one that can search Chinese (``unicode61`` keeps a
whole Han run as one token, so a Chinese question would match nothing). A question becomes its words
of 3+ characters and the 3-character windows of its Han runs, each quoted, OR-ed.

Examples (from the project root):
    python bench/perf/run.py                                   # 1k and 10k
    python bench/perf/run.py --sizes 1k,10k,100k --json /tmp/perf.json
    python bench/perf/run.py --sizes 300 --questions 20 --process-runs 1   # the CI smoke size

Timings are printed as a table and written as JSON; progress goes to stderr. Nothing here asserts a
timing: the targets of issue 8 are reported as ratios against FTS5 measured in the same run.
"""

from __future__ import annotations

import argparse
import json
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


def _log(msg: str) -> None:
    print(f"[perf {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def _peak_rss_mb() -> float:
    # ru_maxrss is in KiB on Linux (bytes on macOS).
    scale = 1 if sys.platform == "darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 1e6


def _pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a list of milliseconds."""
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q / 100 * len(s) + 0.5) - 1))]


def _lat(values: list[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "p50": _pct(values, 50),
        "p95": _pct(values, 95),
        "p99": _pct(values, 99),
        "mean": statistics.fmean(values) if values else float("nan"),
    }


def _files_bytes(paths: list[Path]) -> int:
    return sum(p.stat().st_size for p in paths if p.exists())


# ---------------------------------------------------------------------------------------------
# Workers: each runs in its own process and prints one JSON object on its last stdout line.
# ---------------------------------------------------------------------------------------------


def w_kr_build(a: dict[str, Any]) -> dict[str, Any]:
    """Cold build of KRouter's index (the default location under KROUTER_CACHE_DIR)."""
    from krouter.index import Index

    vault = Path(a["vault"])
    total = a["pages"]
    step = max(1, total // 20)
    t0 = time.perf_counter()

    def progress(done: int, n: int) -> None:
        if done % step == 0 or done == n:
            rate = done / max(time.perf_counter() - t0, 1e-9)
            _log(f"  krouter build {done}/{n} ({rate:.0f} pages/s)")

    idx = Index(vault)
    t0 = time.perf_counter()
    stats = idx.rebuild(progress=progress if total >= 2000 else None)
    seconds = time.perf_counter() - t0
    path = idx.path
    idx.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    idx.close()
    files = [path, Path(f"{path}-wal"), Path(f"{path}-shm")]
    return {
        "seconds": seconds,
        "pages": stats.added,
        "problems": len(stats.problems),
        "index_bytes": _files_bytes(files),
        "rss_mb": _peak_rss_mb(),
    }


def w_kr_lookup(a: dict[str, Any]) -> dict[str, Any]:
    """Warm open, no-change refresh, and lookup latency (fresh index; and with the default change check)."""
    from krouter.router import Router

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
        router.decide(q["text"])
    lat: dict[str, list[float]] = {"en": [], "zh": []}
    decisions = {"cite": 0, "refuse": 0}
    for q in questions:
        t0 = time.perf_counter()
        r = router.decide(q["text"])
        lat[q["lang"]].append((time.perf_counter() - t0) * 1e3)
        decisions[r.decision] += 1
    router.auto_refresh = True
    with_refresh: list[float] = []
    for q in questions[: a["refresh_questions"]]:
        t0 = time.perf_counter()
        router.decide(q["text"])
        with_refresh.append((time.perf_counter() - t0) * 1e3)
    router.close()
    return {
        "open_ms": open_ms,
        "noop_refresh_ms": noop_ms,
        "lookup": _lat(lat["en"] + lat["zh"]),
        "lookup_en": _lat(lat["en"]),
        "lookup_zh": _lat(lat["zh"]),
        "lookup_auto_refresh": _lat(with_refresh),
        "decisions": decisions,
        "rss_mb": _peak_rss_mb(),
    }


def w_kr_refresh(a: dict[str, Any]) -> dict[str, Any]:
    """One refresh after the main process edited pages: detection + re-indexing, as a lookup would pay."""
    from krouter.router import Router
    from krouter.tokenizer import _load_jieba

    router = Router(Path(a["vault"]), auto_refresh=False)
    router._load_tables()
    # A long-lived router (MCP server, watcher, library user) has jieba loaded already; a fresh process
    # that re-reads a Chinese page pays the load once, reported apart as jieba_load_ms.
    t0 = time.perf_counter()
    _load_jieba()
    jieba_ms = (time.perf_counter() - t0) * 1e3
    t0 = time.perf_counter()
    stats = router.refresh()
    refresh_ms = (time.perf_counter() - t0) * 1e3
    t0 = time.perf_counter()
    router._load_tables()  # the next lookup reloads the page table once per changed generation
    reload_ms = (time.perf_counter() - t0) * 1e3
    router.close()
    return {
        "ms": refresh_ms,
        "reload_ms": reload_ms,
        "jieba_load_ms": jieba_ms,
        "tokenized": stats.tokenized,
        "rss_mb": _peak_rss_mb(),
    }


_FTS_SCHEMA = """
CREATE TABLE files (path TEXT PRIMARY KEY, mtime_ns INTEGER, size INTEGER, rid INTEGER);
CREATE VIRTUAL TABLE pages USING fts5(path UNINDEXED, title, body, tokenize='trigram');
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
    """Cold build of the baseline: every page's text into an FTS5 table, file stats beside it."""
    db = Path(a["db"])
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    vault = Path(a["vault"])
    t0 = time.perf_counter()
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.executescript(_FTS_SCHEMA)
    conn.execute("BEGIN")
    files = _fts_walk(vault)
    for n, (path, stat) in enumerate(sorted(files.items()), 1):
        _fts_insert(conn, vault, path, stat)
        if len(files) >= 2000 and n % max(1, len(files) // 10) == 0:
            _log(f"  fts5 build {n}/{len(files)}")
    conn.execute("COMMIT")
    seconds = time.perf_counter() - t0
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return {
        "seconds": seconds,
        "pages": len(files),
        "index_bytes": _files_bytes([db, Path(f"{db}-wal"), Path(f"{db}-shm")]),
        "rss_mb": _peak_rss_mb(),
    }


_HAN_RUN = re.compile(r"[\u3400-\u9fff]+")
_WORD = re.compile(r"[^\W\u3400-\u9fff]{3,}")


def fts_query(question: str) -> str:
    """The MATCH expression a plain FTS5 user would write: quoted terms, OR-ed (never raw user text)."""
    terms = [w for w in _WORD.findall(question.lower())]
    for run in _HAN_RUN.findall(question):
        terms.extend(run[i : i + 3] for i in range(max(1, len(run) - 2)) if len(run[i : i + 3]) == 3)
    terms = list(dict.fromkeys(terms))
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


_FTS_TOP10 = "SELECT path, title, bm25(pages) AS s FROM pages WHERE pages MATCH ? ORDER BY s LIMIT 10"


def w_fts_lookup(a: dict[str, Any]) -> dict[str, Any]:
    """Open the FTS5 database and time the same question mix: top-10 by bm25()."""
    t0 = time.perf_counter()
    conn = sqlite3.connect(a["db"], isolation_level=None)
    conn.execute("SELECT count(*) FROM files").fetchone()
    open_ms = (time.perf_counter() - t0) * 1e3
    questions = a["questions"]
    for q in questions[:5]:
        m = fts_query(q["text"])
        if m:
            conn.execute(_FTS_TOP10, (m,)).fetchall()
    lat: dict[str, list[float]] = {"en": [], "zh": []}
    for q in questions:
        t0 = time.perf_counter()
        m = fts_query(q["text"])
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


_FTS_PROCESS = """
import sqlite3, sys
sys.path.insert(0, {here!r})
from run import fts_query, _FTS_TOP10
conn = sqlite3.connect({db!r})
for row in conn.execute(_FTS_TOP10, (fts_query(sys.argv[1]),)):
    print(row[0])
"""

WORKERS = {
    "kr_build": w_kr_build,
    "kr_lookup": w_kr_lookup,
    "kr_refresh": w_kr_refresh,
    "fts_build": w_fts_build,
    "fts_lookup": w_fts_lookup,
    "fts_refresh": w_fts_refresh,
}


# ---------------------------------------------------------------------------------------------
# Orchestration
# ---------------------------------------------------------------------------------------------


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
        fts_db = str(self.tmp / f"fts-{size}.sqlite3")

        # jieba writes its dictionary cache on first use on a machine (seconds, once); do that
        # outside the timed build, which still pays the load from cache like any real build.
        subprocess.run(
            [sys.executable, "-c", "from krouter.tokenizer import _load_jieba; _load_jieba()"],
            env=self.env,
            check=True,
        )
        _log("krouter: cold build")
        kb = self.child("kr_build", vault=str(vault), pages=size)
        kb["pages_s"] = kb["pages"] / kb["seconds"]
        kb["mb_s"] = mb / kb["seconds"]
        _log(f"  {kb['seconds']:.1f}s, {kb['mb_s']:.2f} MB/s, peak RSS {kb['rss_mb']:.0f} MB")
        _log("fts5: cold build")
        fb = self.child("fts_build", vault=str(vault), db=fts_db)
        fb["pages_s"] = fb["pages"] / fb["seconds"]
        fb["mb_s"] = mb / fb["seconds"]
        _log(f"  {fb['seconds']:.1f}s, {fb['mb_s']:.2f} MB/s")
        out["build"] = {"krouter": kb, "fts5": fb}

        _log(f"lookups: {len(questions)} questions")
        kl = self.child(
            "kr_lookup", vault=str(vault), questions=questions, refresh_questions=a.refresh_questions
        )
        fl = self.child("fts_lookup", db=fts_db, questions=questions)
        _log(f"  krouter p50 {kl['lookup']['p50']:.2f} ms, fts5 p50 {fl['lookup']['p50']:.2f} ms")
        out["lookup"] = {"krouter": kl, "fts5": fl}

        _log("fresh processes")
        en = next(q["text"] for q in questions if q["lang"] == "en")
        zh = next(q["text"] for q in questions if q["lang"] == "zh")
        kbin = [self.krouter_bin] if self.krouter_bin else [sys.executable, "-m", "krouter"]
        fts_code = _FTS_PROCESS.format(here=str(HERE), db=fts_db)
        out["process"] = {
            "python_startup": self.fresh_process([sys.executable, "-c", "pass"], a.process_runs),
            "krouter_en": self.fresh_process([*kbin, "ask", en, "--vault", str(vault)], a.process_runs),
            "krouter_zh": self.fresh_process([*kbin, "ask", zh, "--vault", str(vault)], a.process_runs),
            "fts5_en": self.fresh_process([sys.executable, "-c", fts_code, en], a.process_runs),
            "fts5_zh": self.fresh_process([sys.executable, "-c", fts_code, zh], a.process_runs),
            "questions": {"en": en, "zh": zh},
        }

        _log("incremental refresh")
        pages = vaultgen.all_pages(vault)
        rng = random.Random(a.seed)
        refresh: dict[str, Any] = {}
        for label, count in (("1 page", 1), ("1%", max(1, size // 100))):
            picks = rng.sample(pages, count)
            vaultgen.edit_pages(vault, picks, label)
            kr = self.child("kr_refresh", vault=str(vault))
            fr = self.child("fts_refresh", vault=str(vault), db=fts_db)
            refresh[label] = {"edited": count, "krouter": kr, "fts5": fr}
            _log(f"  {label}: krouter {kr['ms']:.0f} ms ({kr['tokenized']} re-read), fts5 {fr['ms']:.0f} ms")
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

    row("markdown (MB)", lambda s: f"{s['markdown_mb']:.1f}")
    row(
        "build: krouter s (MB/s)",
        lambda s: f"{s['build']['krouter']['seconds']:.1f} ({s['build']['krouter']['mb_s']:.2f})",
    )
    row(
        "build: fts5 s (MB/s)",
        lambda s: f"{s['build']['fts5']['seconds']:.1f} ({s['build']['fts5']['mb_s']:.2f})",
    )
    row("build: krouter pages/s", lambda s: f"{s['build']['krouter']['pages_s']:.0f}")
    row(
        "build: peak RSS krouter / fts5 (MB)",
        lambda s: f"{s['build']['krouter']['rss_mb']:.0f} / {s['build']['fts5']['rss_mb']:.0f}",
    )
    row(
        "index on disk krouter / fts5 (MB)",
        lambda s: (
            f"{s['build']['krouter']['index_bytes'] / 1e6:.1f} / {s['build']['fts5']['index_bytes'] / 1e6:.1f}"
        ),
    )
    row(
        "warm open krouter / fts5 (ms)",
        lambda s: f"{s['lookup']['krouter']['open_ms']:.1f} / {s['lookup']['fts5']['open_ms']:.1f}",
    )
    row("no-change refresh check (ms)", lambda s: f"{s['lookup']['krouter']['noop_refresh_ms']:.1f}")
    for label, key in (("refresh 1 page", "1 page"), ("refresh 1% pages", "1%")):
        row(
            f"{label}: krouter / fts5 (ms)",
            lambda s, k=key: f"{s['refresh'][k]['krouter']['ms']:.0f} / {s['refresh'][k]['fts5']['ms']:.0f}",
        )
    for pct in ("p50", "p95", "p99"):
        row(
            f"lookup {pct}: krouter / fts5 (ms)",
            lambda s, p=pct: (
                f"{s['lookup']['krouter']['lookup'][p]:.2f} / {s['lookup']['fts5']['lookup'][p]:.2f} "
                f"({_ratio(s['lookup']['krouter']['lookup'][p], s['lookup']['fts5']['lookup'][p])})"
            ),
        )
    for lang in ("en", "zh"):
        row(
            f"lookup p50 {lang}: krouter / fts5 (ms)",
            lambda s, lg=lang: (
                f"{s['lookup']['krouter'][f'lookup_{lg}']['p50']:.2f} / {s['lookup']['fts5'][f'lookup_{lg}']['p50']:.2f}"
            ),
        )
    row(
        "lookup p50 with change check (ms)",
        lambda s: f"{s['lookup']['krouter']['lookup_auto_refresh']['p50']:.1f}",
    )
    row(
        "lookup peak RSS krouter / fts5 (MB)",
        lambda s: f"{s['lookup']['krouter']['rss_mb']:.0f} / {s['lookup']['fts5']['rss_mb']:.0f}",
    )
    row("python -c pass (ms)", lambda s: f"{s['process']['python_startup']['median_ms']:.0f}")
    for lang in ("en", "zh"):
        row(
            f"fresh `krouter ask` {lang} / fts5 (ms)",
            lambda s, lg=lang: (
                f"{s['process'][f'krouter_{lg}']['median_ms']:.0f} / {s['process'][f'fts5_{lg}']['median_ms']:.0f}"
            ),
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
    bench = Bench(args)
    result: dict[str, Any] = {
        "machine": _machine(),
        "sizes": [],
        "started": time.strftime("%Y-%m-%d %H:%M:%S"),
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
    print(table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
