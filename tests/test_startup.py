"""A fresh ``krouter ask`` imports only what answering needs (start-up is most of its cost)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from krouter.cli import app

# Modules `ask` has no use for on an up-to-date index: other commands' modules, and the YAML reader
# (no page is parsed when nothing changed).
NOT_FOR_ASK = (
    "yaml",
    "frontmatter",
    "krouter.agents",  # MCP, recall hook, setup, session import
    "krouter.ops.check",
    "krouter.learner",
    "krouter.ops.watch",
    "watchdog",
    "mcp",
    "multiprocessing",  # the build's worker processes (~15 ms of imports)
)

_PROBE = """
import json, sys
from krouter.cli import run
sys.argv = ["krouter", *sys.argv[1:]]
try:
    run()
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)))
"""


def _modules_after(*args: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def _vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "Decisions").mkdir(parents=True)
    (root / "Decisions" / "Primary database.md").write_text(
        "---\ntitle: Primary database\ntags: [database]\n---\n# Primary database\n\nWe use PostgreSQL 16.\n",
        encoding="utf-8",
    )
    return root


def test_ask_on_a_fresh_index_imports_no_other_command_and_no_yaml(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    indexing = _modules_after("index", "--vault", str(vault))
    assert "yaml" in indexing  # reading a page's frontmatter does load it
    asking = _modules_after("ask", "which database do we use", "--vault", str(vault))
    assert "krouter.routing.router" in asking
    loaded = sorted(m for m in asking if m.split(".")[0] in {n.split(".")[0] for n in NOT_FOR_ASK})
    assert not [m for m in loaded if any(m == n or m.startswith(n + ".") for n in NOT_FOR_ASK)]


def test_every_command_is_listed_and_runs_though_loaded_on_demand(tmp_path: Path) -> None:
    runner = CliRunner()
    listed = runner.invoke(app, ["--help"])
    assert listed.exit_code == 0
    for name in (
        "ask",
        "index",
        "init",
        "import",
        "check",
        "learn",
        "teach",
        "mcp",
        "watch",
        "recall-context",
        "setup",
        "config",
    ):
        assert name in listed.output
    checked = runner.invoke(app, ["check", "--vault", str(_vault(tmp_path))])
    assert checked.exit_code == 0, checked.output
    assert runner.invoke(app, ["nosuchcommand"]).exit_code == 2


def test_a_chinese_question_does_not_import_pkg_resources(tmp_path: Path) -> None:
    """jieba's compat module imports setuptools' pkg_resources when it can: ~57 ms of every fresh ask."""
    vault = _vault(tmp_path)
    (vault / "Decisions" / "值班.md").write_text("# 值班\n\n每次值班至少 2 人。\n", encoding="utf-8")
    _modules_after("index", "--vault", str(vault))
    asking = _modules_after("ask", "值班要几个人", "--vault", str(vault))
    assert "jieba" in asking
    assert "pkg_resources" not in asking
