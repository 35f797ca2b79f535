"""Grading, statistics and baseline adapters of the memory-honesty bench, on small hand-made inputs.

Nothing here reads the bench's own data files or krouter internals: every vault and answer file is built in
tmp_path, and the krouter adapter is exercised against a stand-in module that implements only the public API.
"""

from __future__ import annotations

import json
import subprocess
import sys
import types
import unicodedata
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench" / "memory_honesty"
sys.path.insert(0, str(BENCH))

import adapters  # noqa: E402
import stats  # noqa: E402
from stats import Answer, Question  # noqa: E402


def q(id_: str, kind: str, gold: str | list[str] | None) -> Question:
    return stats.question_from_dict({"id": id_, "q": f"question {id_}", "kind": kind, "gold": gold}, "test")


def a(id_: str, cited: list[str], refused: bool = False, score: float | None = None) -> Answer:
    return stats.answer_from_dict({"id": id_, "cited": cited, "refused": refused, "score": score}, "test")


QUESTIONS = [
    q("C1", "correction", "Decisions/New.md"),
    q("C2", "correction", "Decisions/Other new.md"),
    q("K1", "current", "Ops/Backups.md"),
    q("K2", "current", ["Sessions/session_1.md", "Sessions/session_3.md"]),
    q("R1", "refuse", None),
    q("R2", "refuse", None),
]
ANSWERS = [
    a("C1", ["Decisions/New.md", "Decisions/Old.md"], score=0.9),  # correction right
    a("C2", ["Decisions/Other old.md", "Decisions/Other new.md"], score=0.7),  # wrong first citation
    a("K1", ["Ops/Backups.md"], refused=True, score=0.2),  # answerable refused (candidates kept)
    a("K2", ["Sessions/session_3.md"], score=0.8),  # any page of a gold list is right
    a("R1", ["Ops/Backups.md"], score=0.6),  # answered neighbour: wrong
    a("R2", [], refused=False),  # empty cited = refusal
]


def test_verdicts_per_case() -> None:
    got = {g.question.id: g.verdict for g in stats.grade(QUESTIONS, ANSWERS)}
    assert got == {
        "C1": "right",
        "C2": "wrong",
        "K1": "missed",
        "K2": "right",
        "R1": "wrong",
        "R2": "refused",
    }


def test_metrics_counts_and_rates() -> None:
    m = stats.metrics(stats.grade(QUESTIONS, ANSWERS))["overall"]
    assert m["wrong_citation"] == {"count": 2, "of": 4, "rate": 0.5}  # C2 and R1 of C1, C2, K2, R1
    assert m["neighbours_refused"] == {"count": 1, "of": 2, "rate": 0.5}
    assert m["corrections_right"]["count"] == 1 and m["corrections_right"]["of"] == 2
    assert m["current_right"]["count"] == 1 and m["current_right"]["of"] == 2
    assert m["answerable_right"] == {"count": 2, "of": 4, "rate": 0.5}
    assert m["coverage"] == {"count": 4, "of": 6, "rate": 4 / 6}


def test_gold_list_only_first_citation_counts() -> None:
    qs = [q("K", "current", ["a.md", "b.md"])]
    assert stats.grade(qs, [a("K", ["b.md"])])[0].verdict == "right"
    assert stats.grade(qs, [a("K", ["c.md", "a.md"])])[0].verdict == "wrong"


def test_missing_answer_and_path_spelling() -> None:
    qs = [q("K", "current", "Ops/Backups.md"), q("R", "refuse", None)]
    graded = stats.grade(qs, [a("K", ["./Ops\\Backups"])])  # no answer for R at all
    assert [g.verdict for g in graded] == ["right", "refused"]


def test_path_spelling_across_systems_is_the_same_page() -> None:
    # A macOS file name is decomposed (NFD), a typed gold path composed; ".MD" is still a Markdown page.
    qs = [q("K", "current", "Notes/Café.md"), q("L", "current", "Notes/Ferret Policy")]
    nfd = unicodedata.normalize("NFD", "Notes/Café.md")
    graded = stats.grade(qs, [a("K", [nfd]), a("L", ["Notes/Ferret Policy.MD"])])
    assert [g.verdict for g in graded] == ["right", "right"]


def test_question_file_with_byte_order_mark_and_bad_q(tmp_path: Path) -> None:
    qfile = tmp_path / "q.jsonl"
    qfile.write_bytes(
        b"\xef\xbb\xbf" + json.dumps({"id": "1", "q": "x", "kind": "refuse", "gold": None}).encode()
    )
    assert [x.id for x in stats.load_questions(qfile)] == ["1"]
    with pytest.raises(stats.BenchError, match="q must be a string"):
        stats.question_from_dict({"id": "2", "q": None, "kind": "refuse", "gold": None}, "test")


def test_inconsistent_question_is_rejected() -> None:
    with pytest.raises(stats.BenchError):
        q("X", "refuse", "a.md")
    with pytest.raises(stats.BenchError):
        q("X", "current", None)


def _many() -> list[stats.Graded]:
    qs = [
        q(f"Q{i}", ["correction", "current", "refuse"][i % 3], None if i % 3 == 2 else "g.md")
        for i in range(60)
    ]
    ans = [a(f"Q{i}", ["g.md" if i % 4 else "x.md"], refused=i % 5 == 0) for i in range(60)]
    return stats.grade(qs, ans)


def test_wilson_intervals_contain_the_point_and_are_never_empty() -> None:
    graded = _many()
    point = stats.metrics(graded)["overall"]
    ci = stats.wilson_ci(graded)
    for name in stats.RATIOS:
        lo, hi = ci[name]
        assert lo <= point[name]["rate"] <= hi, name


def test_wilson_interval_at_small_counts() -> None:
    """A cold review: the percentile bootstrap printed [0, 0] for 0 wrong of 14 and [0, 26] for 2 of
    19; Wilson's are [0, 21.5] and [2.9, 31.4]."""
    qs = [q(f"Q{i}", "current", "g.md") for i in range(19)]
    ans = [a(f"Q{i}", ["x.md" if i < 2 else "g.md"]) for i in range(19)]
    lo, hi = stats.wilson_ci(stats.grade(qs, ans))["wrong_citation"]
    assert (round(lo * 100, 1), round(hi * 100, 1)) == (2.9, 31.4)
    none = stats.wilson_ci(stats.grade(qs[:14], [a(f"Q{i}", ["g.md"]) for i in range(14)]))["wrong_citation"]
    assert none[0] == 0.0 and round(none[1] * 100, 1) == 21.5


def test_paired_bootstrap_of_a_system_with_itself_is_zero() -> None:
    graded = _many()
    paired = stats.paired_bootstrap(graded, graded, n_resamples=300, seed=1)
    for d in paired.values():
        assert d["rate_diff"] == 0 and d["rate_diff_ci"] == [0.0, 0.0] and d["count_diff_ci"] == [0.0, 0.0]


def test_answer_top_matches_coverage_by_score() -> None:
    ans = [a("A", ["x.md"], score=0.1), a("B", ["x.md"], refused=True, score=0.9), a("C", [], score=0.95)]
    top = stats.answer_top(ans, 1)
    assert [x.answered for x in top] == [False, True, False]  # C has no candidate, so B is the most confident
    assert [x.answered for x in stats.answer_top(ans, 5)] == [True, True, False]


def test_floor_rule_picks_lower_floor_on_tie() -> None:
    qs = [q(f"Q{i}", "current", "g.md") for i in range(5)]
    # walking down: 5.0 -> +1, 4.0 -> 0, 3.0 -> +1, 2.0 -> 0, 1.0 -> -1; best +1 at 5.0 and 3.0: the lower
    # wins
    right_wrong = [("g.md", 5.0), ("x.md", 4.0), ("g.md", 3.0), ("x.md", 2.0), ("x.md", 1.0)]
    ans = [a(f"Q{i}", [p], score=s) for i, (p, s) in enumerate(right_wrong)]
    floor, counts = adapters.pick_floor(qs, ans)
    assert floor == 3.0
    assert counts == {"right": 2, "wrong": 1, "answered": 3}


def test_floor_rule_answers_nothing_when_every_answer_is_wrong() -> None:
    qs = [q("R", "refuse", None), q("K", "current", "g.md")]
    floor, _ = adapters.pick_floor(qs, [a("R", ["x.md"], score=2.0), a("K", ["x.md"], score=1.0)])
    assert floor == float("inf")


def test_tokenize_splits_cjk_into_bigrams_and_quotes_queries() -> None:
    assert adapters.tokenize("API超时设置 Timeout") == ["api", "超时", "时设", "设置", "timeout"]
    expr = adapters.fts_query('what "NEAR(x" AND OR * -y')
    assert expr.count('"') % 2 == 0 and '"near"' in expr and '"and"' in expr


def _write(vault: Path, rel: str, text: str) -> None:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture()
def vault(tmp_path: Path) -> Path:
    v = tmp_path / "vault"
    _write(
        v,
        "Ops/Payments timeout.md",
        "---\ntitle: Payments API timeout\nstatus: active\n---\n"
        "The payments API times out after 30 seconds.\n",
    )
    _write(v, "Ops/数据库备份.md", "---\ntitle: 数据库备份\n---\n数据库每天凌晨三点备份一次，保留三十天。\n")
    _write(
        v,
        "Decisions/Deploy (old).md",
        "---\ntitle: Deploy from feature branches\nstatus: superseded\n---\n"
        "Deploy from the feature branch.\n",
    )
    _write(
        v, "Decisions/Deploy.md", "---\ntitle: Deploy from main\n---\nDeploy only from main. Merge first.\n"
    )
    _write(v, ".obsidian/ignored.md", "payments payments payments")
    return v


def test_bm25_adapter_finds_english_and_chinese_pages(vault: Path) -> None:
    qs = [
        Question("E", "What is the payments API timeout?", "current", ("Ops/Payments timeout.md",)),
        Question("Z", "数据库多久备份一次？", "current", ("Ops/数据库备份.md",)),
        Question("N", "zebra xylophone quux", "refuse", None),
    ]
    got = adapters.Bm25Adapter().answer(vault, qs)
    assert got[0].cited[0] == "Ops/Payments timeout.md" and got[0].score is not None and got[0].score > 0
    assert got[1].cited[0] == "Ops/数据库备份.md"
    assert not got[2].answered  # nothing matches at all


def test_bm25_floor_skips_replaced_pages(vault: Path) -> None:
    qs = [Question("C", "deploy from the feature branch", "correction", ("Decisions/Deploy.md",))]
    assert adapters.Bm25Adapter().answer(vault, qs)[0].cited[0] == "Decisions/Deploy (old).md"
    floor_adapter = adapters.Bm25FloorAdapter()
    floor_adapter.fit([(vault, qs)], "test")
    got = floor_adapter.answer(vault, qs)[0]
    assert got.cited[0] == "Decisions/Deploy.md" and got.answered


def test_krouter_adapter_uses_public_api_only(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, object] = {}

    class Receipt:
        def __init__(self, question: str) -> None:
            refuse = "zebra" in question
            self.decision = "refuse" if refuse else "cite"
            self.candidates = [types.SimpleNamespace(path="Ops/Payments timeout.md", title="t", score=1.0)]
            self.evidence = types.SimpleNamespace(confidence=0.1 if refuse else 0.8, floor=0.5)

    class Router:
        def __init__(self, vault_dir: object) -> None:
            seen["vault"] = vault_dir
            seen["no_log"] = __import__("os").environ.get("KROUTER_NO_QUERY_LOG")
            seen["cache"] = __import__("os").environ.get("KROUTER_CACHE_DIR")

        def refresh(self) -> None:
            seen["refreshed"] = True

        def embed(self, budget_s: float | None = None) -> int:
            # Every page embedded before the first question: no time budget.
            seen["embedded"] = budget_s is None
            return 0

        def ask(self, question: str, k: int = 5, also: tuple[str, ...] = ()) -> Receipt:
            seen["also"] = also
            seen["ready_before_asking"] = seen.get("refreshed") and seen.get("embedded")
            return Receipt(question)

    monkeypatch.setitem(sys.modules, "krouter", types.SimpleNamespace(Router=Router))
    monkeypatch.delenv("KROUTER_NO_QUERY_LOG", raising=False)
    monkeypatch.delenv("KROUTER_CACHE_DIR", raising=False)
    qs = [
        Question("A", "payments timeout", "current", ("Ops/Payments timeout.md",)),
        Question("B", "zebra", "refuse", None),
    ]
    got = adapters.KRouterAdapter().answer(vault, qs)
    assert seen["no_log"] == "1" and seen["cache"]
    assert not seen["also"]
    assert seen["ready_before_asking"]
    assert got[0].answered and got[0].score == 0.8
    assert got[1].refused and got[1].cited == ("Ops/Payments timeout.md",) and got[1].score == 0.1


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCH / "run.py"), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_run_py_grades_answers_file_as_one_json_object(tmp_path: Path, vault: Path) -> None:
    qfile, afile, out = tmp_path / "q.jsonl", tmp_path / "a.jsonl", tmp_path / "per_question.jsonl"
    qfile.write_text(
        "\n".join(
            json.dumps({"id": x.id, "q": x.q, "kind": x.kind, "gold": list(x.gold) if x.gold else None})
            for x in QUESTIONS
        ),
        encoding="utf-8",
    )
    afile.write_text(
        "\n".join(json.dumps({"id": x.id, "cited": list(x.cited), "refused": x.refused}) for x in ANSWERS),
        encoding="utf-8",
    )
    proc = _run(
        "--vault",
        str(vault),
        "--questions",
        str(qfile),
        "--answers",
        str(afile),
        "--json",
        "--ci",
        "--out",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)  # exactly one object: extra output would make this fail
    res = doc["sets"][0]
    assert res["metrics"]["overall"]["wrong_citation"] == {"count": 2, "of": 4, "rate": 0.5}
    assert res["ci"]["wrong_citation"] is not None
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert [x["verdict"] for x in lines] == ["right", "wrong", "missed", "right", "wrong", "refused"]


def test_run_py_warns_about_gold_pages_the_vault_lacks(tmp_path: Path, vault: Path) -> None:
    qfile, afile = tmp_path / "q.jsonl", tmp_path / "a.jsonl"
    qfile.write_text(
        json.dumps({"id": "G", "q": "x", "kind": "current", "gold": "Nope/Missing.md"}), encoding="utf-8"
    )
    afile.write_text(json.dumps({"id": "G", "cited": [], "refused": True}), encoding="utf-8")
    proc = _run("--vault", str(vault), "--questions", str(qfile), "--answers", str(afile), "--json")
    assert proc.returncode == 0, proc.stderr
    assert "gold page that is not in" in proc.stderr and "ids: G" in proc.stderr


def test_run_py_usage_error_exits_2(tmp_path: Path) -> None:
    assert _run("--vault", str(tmp_path)).returncode == 2  # --questions missing
    missing = _run("--vault", str(tmp_path), "--questions", str(tmp_path / "nope.jsonl"), "--adapter", "bm25")
    assert missing.returncode == 2 and "nope.jsonl" in missing.stderr


def test_pooled_comparison_keeps_same_ids_of_different_sets_apart() -> None:
    """Every set has a 'C1': pooling must pair each question with its own set's counterpart."""
    import run

    mine = stats.grade(QUESTIONS, ANSWERS)
    worse = stats.grade(QUESTIONS, [a(x.id, ["Elsewhere.md"], score=0.5) for x in QUESTIONS])
    args = types.SimpleNamespace(resamples=200, seed=0)
    pooled = run.pooled_matched([("one", mine, worse), ("two", mine, mine)], args)
    wrong = pooled["paired"]["wrong_citation"]
    # set one: mine 2 wrong of 4 answered vs 6 of 6; set two: identical systems, no difference
    assert wrong["mine"] == stats.ratio(4, 8)
    assert wrong["other"] == stats.ratio(8, 10)
    assert wrong["count_diff"] == -4
    assert pooled["sets"] == ["one", "two"]


def _vault(tmp_path: Path, pages: dict[str, str]) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    for rel, text in pages.items():
        (tmp_path / rel).write_text(text, encoding="utf-8")
    return tmp_path


def test_the_phrased_baseline_searches_the_phrasings_krouter_phrased_gets(tmp_path: Path) -> None:
    """A cold review of the bench: krouter-phrased was compared with a BM25 that never saw the phrasings."""
    vault = _vault(tmp_path, {"db.md": "# Database\n\nWe run PostgreSQL.\n", "z.md": "# Lunch\n\nPizza.\n"})
    question = Question(
        "Q1", "主库用的啥", "current", ("db.md",), {"phrasings": ["which database do we run"]}
    )
    plain = adapters.make_adapter("bm25").raw(vault, [question])
    phrased = adapters.make_adapter("bm25-phrased").raw(vault, [question])
    assert plain[0].cited == () and phrased[0].cited[0] == "db.md"


def test_a_floor_pooled_over_sets_that_reuse_ids_grades_each_against_its_own_answers(tmp_path: Path) -> None:
    """A cold review of the bench: pooled dev and dev2 share ids (C01...), so one set's questions were
    graded against the other's answers when the floor was picked."""
    one = _vault(tmp_path / "one", {"a.md": "# Alpha\n\nalpha alpha.\n", "b.md": "# Beta\n\nbeta.\n"})
    two = _vault(tmp_path / "two", {"c.md": "# Gamma\n\ngamma gamma.\n", "d.md": "# Delta\n\ndelta.\n"})
    fitted = adapters.make_adapter("bm25-floor")
    fitted.fit(
        [
            (one, [Question("C01", "alpha", "current", ("a.md",))]),
            (two, [Question("C01", "gamma", "current", ("c.md",))]),
        ],
        "test",
    )
    assert fitted.floor_counts["right"] == 2 and fitted.floor_counts["wrong"] == 0


def test_krouter_is_benched_on_the_settings_of_a_plain_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A cold review of the bench: the runner's own config.toml (an ignore line) changed KRouter's answers
    and not the baselines'."""
    config_dir = tmp_path / "cfg"
    config_dir.mkdir()
    (config_dir / "config.toml").write_text('ignore = ["Decisions/"]\n', encoding="utf-8")
    monkeypatch.setenv("KROUTER_CONFIG_DIR", str(config_dir))
    (tmp_path / "v" / "Decisions").mkdir(parents=True)
    vault = _vault(
        tmp_path / "v",
        {"Decisions/db.md": "# Database\n\nWe run PostgreSQL.\n", "z.md": "# Lunch\n\nPizza.\n"},
    )
    (answer,) = adapters.make_adapter("krouter").answer(
        vault, [Question("Q1", "which database do we run", "current", ("Decisions/db.md",))]
    )
    assert not answer.refused and answer.cited[0] == "Decisions/db.md"


def test_refused_written_as_a_string_is_an_error_not_a_refusal() -> None:
    """A cold review of the bench: "refused": "false" read as true, every answer of such a file a refusal."""
    with pytest.raises(stats.BenchError, match="refused must be true or false"):
        stats.answer_from_dict({"id": "Q1", "cited": ["a.md"], "refused": "false"}, "answers.jsonl:1")


def test_a_limited_self_dev_set_picks_its_floor_on_the_questions_kept(tmp_path: Path) -> None:
    """A cold review of the bench: --limit 10 on dev fitted the floor on all of dev's questions, because
    the set's own floor list is built apart from its question list."""
    import run
    from public_sets import BenchSet, Part

    questions = [Question(f"Q{i}", "x", "current", ("a.md",)) for i in range(30)]
    bset = BenchSet("dev", [Part(tmp_path, list(questions))], [Part(tmp_path, list(questions))], "self", [])
    limited, floor_parts = run._limit(bset, 10)
    assert [len(p.questions) for p in limited.parts] == [10]
    assert [len(p.questions) for p in floor_parts] == [10]
