"""Every example in README.md and docs/ runs (issue #14 item 6).

Each fenced code block of those files is either run here, line by line as a person would type it (in
a throwaway HOME, with `krouter` on PATH), or named in COVERED_ELSEWHERE with the test that runs it. A
new example that neither runs here nor names its test fails `test_every_example_is_run_somewhere`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOC_FILES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
BIN = Path(sys.executable).parent

# (file, first line of the block): why it is not run here, and what runs it instead.
COVERED_ELSEWHERE = {
    (
        "README.md",
        'python3 -m venv .venv && .venv/bin/pip install -e ".[dev]" && .venv/bin/python -m pytest',
    ): "the whole suite: .ci/run runs exactly this",
    (
        "README.md",
        "sh install.sh                            # from a checkout, typed at a terminal: lookup + nightly learner",
    ): "tests/test_install.py runs install.sh's life cycle",
    (
        "docs/PERFORMANCE.md",
        "python bench/perf/run.py                                        # 1k and 10k pages (~3–5 min on 2 cores)",
    ): "benchmarks of minutes; tests/test_perf_smoke.py runs the CI-sized line",
    (
        "docs/PERFORMANCE.md",
        "python bench/perf/lookup_ab.py --size 10k  --work-dir /tmp/kab10k  --code /tmp/base --code . --rounds 4",
    ): "benchmarks of minutes against another checkout; tests/test_perf_smoke.py runs lookup_ab.py at 300 pages",
    (
        "docs/PERFORMANCE.md",
        "python bench/perf/lookup_ab.py --size 10k  --work-dir /tmp/h75/w10k  --code /tmp/h75/base --code . --code /tmp/h75/exp3 --rounds 3 --warm",
    ): "benchmarks of minutes against other checkouts; tests/test_perf_smoke.py runs lookup_ab.py --warm at 300 pages",
}
SETUP = 'python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/krouter ask "which database do we use" --vault vault_template'


def code_blocks(path: Path) -> list[tuple[str, str]]:
    """(language, text) of every fenced block in a Markdown file."""
    return re.findall(r"^```(\w*)\n(.*?)^```", path.read_text(encoding="utf-8"), flags=re.S | re.M)


def block(name: str, lang: str, starts: str) -> str:
    for found_lang, text in code_blocks(REPO / name):
        if found_lang == lang and text.startswith(starts):
            return text
    raise AssertionError(f"no {lang} block starting {starts!r} in {name}")


def test_every_example_is_run_somewhere() -> None:
    run_here = {
        ("README.md", SETUP),
        ("README.md", "krouter init ~/notes"),
        ("README.md", "from krouter import"),
    }
    for path in DOC_FILES:
        rel = path.relative_to(REPO).as_posix()
        for lang, text in code_blocks(path):
            if lang not in ("bash", "sh", "python", "console"):
                continue
            first = text.splitlines()[0]
            known = (rel, first) in COVERED_ELSEWHERE or any(
                rel == f and first.startswith(s) for f, s in run_here
            )
            assert known, f"{rel}: example {first!r} is run by no test: run it in tests/test_docs_examples.py"


def _person(home: Path) -> dict[str, str]:
    """A new user's environment: a fresh HOME, this install's `krouter` on PATH, no model CLI."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "KROUTER_VAULT"))}
    # The test's cache/state/config dirs stay (conftest), so nothing touches the real user's.
    env.update(HOME=str(home), PATH=f"{BIN}:/usr/bin:/bin")
    assert shutil.which("claude", path=env["PATH"]) is None, "a claude CLI on PATH would be a real model call"
    return env


def _typed(line: str) -> str:
    """A documented command line as a person would run it: comment dropped, [optional] parts included,
    placeholders filled."""
    command = line.split("  #", 1)[0].strip()
    command = re.sub(r"\[([^\]]*)\]", r"\1", command)
    return re.sub(r"\bN\b", "2", command).replace(" DIR", " ~/notes")


def test_readme_command_examples_run(tmp_path: Path) -> None:
    home = tmp_path / "home"
    sessions = home / ".claude" / "projects" / "my-app"
    sessions.mkdir(parents=True)
    turns = [("user", "How do we rotate the pager?"), ("assistant", "Weekly, on Mondays.")]
    (sessions / "s1.jsonl").write_text(
        "".join(
            json.dumps(
                {"type": role, "sessionId": "s1", "uuid": f"u{i}", "message": {"role": role, "content": text}}
            )
            + "\n"
            for i, (role, text) in enumerate(turns)
        ),
        encoding="utf-8",
    )
    env = _person(home)
    ran = []
    for line in block("README.md", "bash", "krouter init ~/notes").splitlines():
        command = _typed(line)
        result = subprocess.run(["bash", "-c", command], capture_output=True, text=True, env=env, timeout=180)
        allowed = {"ask": (0, 3), "check": (0, 1), "teach": (0, 3)}.get(command.split()[1], (0,))
        assert result.returncode in allowed, f"{command}\n{result.stdout}\n{result.stderr}"
        assert "Traceback" not in result.stderr, command
        ran.append((command, result))
    by_start = {c.split()[1] + (" demo" if "--vault demo" in c else ""): r for c, r in ran}
    asked_json = next(r for c, r in ran if c.startswith("krouter ask") and "--json" in c)
    assert (home / "notes").is_dir() and json.loads(asked_json.stdout)["decision"] == "refuse"
    assert "PostgreSQL" in by_start["read demo"].stdout
    assert list((home / "notes" / "Inputs" / "Sessions").glob("*.md"))
    learned = next(r for c, r in ran if c.startswith("krouter learn") and "--list" not in c)
    assert "weak question" in learned.stdout
    assert "nothing taught yet" in by_start["learn"].stdout  # `learn --list`, the last learn line
    assert f"vault = {json.dumps(str((home / 'notes').resolve()))}" in by_start["config"].stdout


def test_readme_python_example_runs(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = _person(home)
    subprocess.run(
        ["bash", "-c", "krouter init ~/notes"], check=True, capture_output=True, env=env, timeout=60
    )
    code = block("README.md", "python", "from krouter import")
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "Decisions/Primary database.md 16 All application data lives in **PostgreSQL 16** (16.4 at the time of writing).",
        result.stdout.splitlines()[1],
    ]
    assert result.stdout.splitlines()[1].startswith("refuse ")  # an empty vault refuses, without a crash


def test_readme_setup_command_runs(tmp_path: Path) -> None:
    """The first command of the README, verbatim, in a copy of this checkout (needs the package index)."""
    work = tmp_path / "checkout"
    work.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(REPO / name, work / name)
    for name in ("krouter", "vault_template", "systemd", "launchd"):
        shutil.copytree(REPO / name, work / name, ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "KROUTER_VAULT")}
    env["PATH"] = ":".join(p for p in env["PATH"].split(":") if not p.startswith(str(REPO)))
    result = subprocess.run(
        ["bash", "-c", SETUP], cwd=work, capture_output=True, text=True, env=env, timeout=600
    )
    if result.returncode != 0 and "pip install" in result.stderr and "Could not" in result.stderr:
        pytest.skip(f"package index unreachable: {result.stderr.strip().splitlines()[-1]}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "\nCITE  Decisions/Primary database.md  (Primary database)\n" in result.stdout
    assert block("README.md", "bash", "python3 -m venv .venv && .venv/bin/pip install . &&").strip() == SETUP


def test_agent_snippet_commands_run(tmp_path: Path) -> None:
    """The shell commands the agent snippets tell an agent to run: ask --json, then read the cited path."""
    for name in ("CLAUDE.md", "AGENTS.md", "SKILL.md", "krouter.mdc"):
        text = (REPO / "docs" / "agents" / name).read_text(encoding="utf-8")
        assert re.search(r'krouter ask "<question>"( --also "<[a-z]+>")? --json', text), name
        assert 'krouter read "' in text, name
    env = _person(tmp_path / "home")
    env["KROUTER_VAULT"] = str(REPO / "vault_template")
    asked = subprocess.run(
        ["bash", "-c", 'krouter ask "which database do we use" --json'],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert asked.returncode == 0, asked.stderr
    path = json.loads(asked.stdout)["cited"][0]["path"]
    read = subprocess.run(["krouter", "read", path], capture_output=True, text=True, env=env, timeout=60)
    assert read.returncode == 0 and "PostgreSQL" in read.stdout
