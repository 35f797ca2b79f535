"""Smoke run of the performance bench at 300 pages, so bench/perf cannot rot unnoticed.

It checks that every measurement is taken and lands in the JSON and the table. It asserts nothing
about speed: timings on shared CI machines say nothing, and the targets are ratios reported in
docs/PERFORMANCE.md, measured side by side with FTS5.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

PERF = Path(__file__).resolve().parents[1] / "bench" / "perf"


def _load(name: str) -> ModuleType:
    """Load a bench/perf module by file path: other benches also have a ``run`` module."""
    spec = importlib.util.spec_from_file_location(f"krouter_perf_{name}", PERF / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    saved = list(sys.path)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = saved  # run.py puts bench/perf first on sys.path; keep that out of other tests
    return module


@pytest.fixture
def perf_run() -> ModuleType:
    return _load("run")


def test_vault_generator_is_seeded(tmp_path: Path) -> None:
    vaultgen = _load("vaultgen")
    a = vaultgen.generate(tmp_path / "a", 60, seed=3, n_questions=10)
    b = vaultgen.generate(tmp_path / "b", 60, seed=3, n_questions=10)
    assert a == b
    files = vaultgen.all_pages(tmp_path / "a")
    assert len(files) == 60
    assert all((tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes() for f in files)
    assert {q["lang"] for q in a["questions"]} == {"en", "zh"}


def test_perf_smoke_300_pages(tmp_path: Path, perf_run, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "perf.json"
    argv = ["--sizes", "300", "--questions", "12", "--refresh-questions", "3", "--process-runs", "1"]
    argv += ["--mcp-calls", "4"]
    assert perf_run.main([*argv, "--json", str(out), "--work-dir", str(tmp_path / "work")]) == 0
    result = json.loads(out.read_text())
    (size,) = result["sizes"]
    assert size["pages"] == 300
    for system in ("krouter", "fts5", "fts5_porter"):
        assert size["build"][system]["pages"] == 300
        assert 0 < size["build"][system]["rss_mb"] < 1000
        assert size["build"][system]["index_bytes"] > 0
        assert size["lookup"][system]["lookup"]["n"] == 12
    assert sum(size["lookup"]["krouter"]["decisions"].values()) == 12
    assert size["lookup"]["krouter"]["lookup_auto_refresh"]["n"] == 3
    assert size["refresh"]["1 page"]["krouter"]["tokenized"] == 1
    assert size["refresh"]["1 page"]["krouter_watched"]["tokenized"] == 1
    assert size["refresh"]["1%"]["krouter_watched"]["tokenized"] == 3
    assert size["refresh"]["1 page"]["fts5"]["changed"] == 1
    assert size["refresh"]["1 page"]["fts5_porter"]["changed"] == 1
    for server in ("krouter", "fts5"):
        assert size["mcp"][server]["call"]["n"] == 4
    assert size["refresh"]["1%"]["krouter"]["tokenized"] == 3
    for key in ("krouter_en", "krouter_zh", "krouter_en_watched", "krouter_zh_watched", "fts5_en", "fts5_zh"):
        assert size["process"][key]["runs"] == 1
    table = capsys.readouterr().out
    assert "300 pages" in table and "lookup p50" in table


def test_fts_query_is_quoted(perf_run) -> None:
    """User text never reaches MATCH unquoted (FTS5 syntax: quotes, NEAR, AND, -, *)."""
    q = perf_run.fts_query('what "NEAR" AND -x* 数据库迁移方案')
    assert q == '"near" OR "数据库" OR "据库迁" OR "库迁移" OR "迁移方" OR "移方案"'
    # The porter baseline looks up the same content words ("what", "did", "about" are stopwords).
    q = perf_run.fts_query('what did we "decide" about DB_2 ids?', "porter")
    assert q == '"decide" OR "db_2" OR "ids"'


def test_fts_process_is_a_plain_script(perf_run, tmp_path: Path) -> None:
    """The fresh-process baseline imports nothing of the bench and builds the query fts_query builds."""
    code = perf_run.fts_process_code(str(tmp_path / "x.db"), "trigram")
    assert "import run" not in code and "from run" not in code and "sys.path" not in code
    for tok in ("porter", "trigram"):
        question = "what did we decide about the 数据库迁移 schema?"
        code = perf_run.fts_process_code(str(tmp_path / "x.db"), tok)
        source = code.split("conn = ")[0]
        scope: dict[str, object] = {}
        saved = sys.argv
        sys.argv = ["-c", question]
        try:
            exec(source, scope)
        finally:
            sys.argv = saved
        assert scope["match"] == perf_run.fts_query(question, tok)


def test_peak_rss_is_the_process_own(perf_run) -> None:
    """A child's peak is its own, not the parent's: ru_maxrss carries the forking process's peak over."""
    import subprocess

    ballast = bytearray(200_000_000)
    for i in range(0, len(ballast), 4096):
        ballast[i] = 1
    code = f"import sys; sys.path.insert(0, {str(PERF)!r}); import run; print(run._peak_rss_mb())"
    child = float(
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    )
    del ballast
    assert child < 150


def test_lookup_ab_smoke_300_pages(tmp_path: Path) -> None:
    """bench/perf/lookup_ab.py makes its vault and indexes, then times one pass per checkout, and with
    --warm the same questions again in the same router (a row of its own): every figure is there for
    both languages, cold and warm (nothing about speed is asserted)."""
    out = tmp_path / "ab.jsonl"
    root = Path(__file__).resolve().parents[1]
    argv = [sys.executable, str(PERF / "lookup_ab.py"), "--size", "300", "--work-dir", str(tmp_path / "w")]
    argv += ["--code", str(root), "--rounds", "2", "--json", str(out), "--warm"]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    passes = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(passes) == 2 and proc.stdout.count(" zh ") == 4 and proc.stdout.count("(warm)") == 2
    for result in passes:
        assert Path(result["code"]) == root
        for figures in (result, result["warm"]):
            for key in ("kr_en", "kr_zh", "fts_en", "fts_zh"):
                assert set(figures[key]) == {"p50", "p95", "p99"}
                assert all(v >= 0 for v in figures[key].values())


def test_lookup_same_smoke_300_pages(tmp_path: Path) -> None:
    """bench/perf/lookup_same.py writes a line per bench lookup (each question with k=1 and k=5, asked
    twice); with pruning forced the lines are byte-identical, as pruning must leave every receipt,
    window and score as it was."""
    root = Path(__file__).resolve().parents[1]
    argv = [sys.executable, str(PERF / "lookup_same.py"), "--size", "300", "--work-dir", str(tmp_path / "w")]
    argv += ["--code", str(root)]
    plain, forced = tmp_path / "plain.jsonl", tmp_path / "forced.jsonl"
    for out, extra in ((plain, []), (forced, ["--force-prune"])):
        proc = subprocess.run([*argv, "--out", str(out), *extra], capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-2000:]
    rows = [json.loads(line) for line in plain.read_text().splitlines()]
    setup = json.loads((tmp_path / "w" / "lookup-ab-300.json").read_text())
    assert len(rows) == 4 * len(setup["questions"])
    assert all(row["receipt"]["decision"] in ("cite", "refuse") and row["scoring"] for row in rows)
    assert forced.read_bytes() == plain.read_bytes()


def test_fresh_ab_smoke_300_pages(tmp_path: Path) -> None:
    """bench/perf/fresh_ab.py times fresh ``krouter ask`` processes of a checkout against the FTS5
    script, for both languages (nothing about speed is asserted)."""
    out = tmp_path / "fresh.json"
    root = Path(__file__).resolve().parents[1]
    argv = [sys.executable, str(PERF / "fresh_ab.py"), "--size", "300", "--work-dir", str(tmp_path / "w")]
    argv += ["--code", str(root), "--rounds", "1", "--questions", "1", "--json", str(out)]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    medians = json.loads(out.read_text())
    assert set(medians) == {f"en {root}", "en fts5 porter", f"zh {root}", "zh fts5 trigram"}
    assert all(ms > 0 for ms in medians.values())
    assert proc.stdout.count("x FTS5") == 4
