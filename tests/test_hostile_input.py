"""Hostile and unlucky input (issue #15): one bad file must never take a vault down.

Each test names the failure it pins: undecodable names, alias bombs and huge pages, surrogates in a
question, and the read-containment race. Every vault is made in tmp_path; nothing leaves the machine.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from krouter.check import check
from krouter.cli import app
from krouter.index import Index
from krouter.router import Router
from krouter.vault import MAX_PAGE_BYTES, parse_page

runner = CliRunner()

needs_bytes_names = pytest.mark.skipif(
    sys.platform in ("darwin", "win32"), reason="the file system refuses names that are not UTF-8"
)


def _vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "Decisions").mkdir(parents=True)
    (root / "Decisions" / "Database.md").write_text(
        "---\ntitle: Primary database\n---\nWe use PostgreSQL as the primary database for every service.\n",
        encoding="utf-8",
    )
    (root / "Runbooks.md").write_text(
        "# Runbooks\n\nRestart the queue worker with systemctl.\n", encoding="utf-8"
    )
    return root


def _alias_bomb(levels: int, width: int = 9, field: str = "tags") -> str:
    names = [f"l{i}" for i in range(levels)]
    lines = [f"{names[0]}: &{names[0]} [" + ", ".join(['"lol"'] * width) + "]"]
    for prev, name in itertools.pairwise(names):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * width) + "]")
    return "---\n" + "\n".join(lines) + f"\n{field}: *{names[-1]}\n---\nThe queue worker restarts nightly.\n"


def _merge_bomb(levels: int, width: int = 9) -> str:
    names = [f"m{i}" for i in range(levels)]
    lines = [f"{names[0]}: &{names[0]} {{a: 1, b: 2}}"]
    for prev, name in itertools.pairwise(names):
        lines.append(f"{name}: &{name} {{<<: [" + ", ".join([f"*{prev}"] * width) + "]}")
    return "---\n" + "\n".join(lines) + "\n---\nBody.\n"


# ----- 1. names that are not UTF-8 ------------------------------------------------------------------


@needs_bytes_names
def test_undecodable_names_are_skipped_reported_and_the_rest_answers(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    raw = os.fsencode(root)
    with open(raw + b"/caf\xe9.md", "wb") as fh:
        fh.write(b"hello\n")
    os.mkdir(raw + b"/Arch\xefv")
    with open(raw + b"/Arch\xefv/old.md", "wb") as fh:
        fh.write(b"# Old\n\nprimary database notes\n")

    result = runner.invoke(app, ["ask", "which primary database do we use", "--vault", str(root)])
    assert result.exit_code == 0, result.output
    assert "Decisions/Database.md" in result.output

    status = runner.invoke(app, ["status", "--vault", str(root), "--json"])
    assert status.exit_code == 0, status.output
    problems = {p["path"]: p["kind"] for p in json.loads(status.output)["problems"]}
    assert problems == {"caf\\xe9.md": "name", "Arch\\xefv/": "name"}

    report = check(root)
    names = [(f.kind, f.path) for f in report.findings if f.kind == "name"]
    assert names == [("name", "Arch\\xefv/"), ("name", "caf\\xe9.md")]
    assert not report.ok

    # Stored once: a later refresh neither rewrites the rows nor counts a change.
    index = Index(root)
    try:
        before = index.generation()
        assert not index.refresh().changed
        assert index.generation() == before
    finally:
        index.close()


# ----- 2. bounded work per page -----------------------------------------------------------------------


@pytest.mark.parametrize("text", [_alias_bomb(7), _merge_bomb(7)], ids=["list-aliases", "merge-keys"])
def test_alias_bombs_are_a_yaml_problem_not_a_copy(text: str) -> None:
    page = parse_page("Bomb.md", text)
    assert page.yaml_error and "alias" in page.yaml_error
    assert page.tags == []


def test_billion_laughs_page_leaves_the_rest_of_the_vault_answering(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    (root / "Bomb.md").write_text(_alias_bomb(9), encoding="utf-8")
    (root / "Merge.md").write_text(_merge_bomb(12), encoding="utf-8")
    with Router(root) as router:
        receipt = router.ask("which primary database do we use")
        assert receipt.decision == "cite" and receipt.top and receipt.top.path == "Decisions/Database.md"
        kinds = {p.path: p.kind for p in router.index.problems()}
    assert kinds == {"Bomb.md": "yaml", "Merge.md": "yaml"}
    found = {f.path for f in check(root).findings if f.kind == "yaml"}
    assert found == {"Bomb.md", "Merge.md"}


def test_frontmatter_that_refers_to_itself_is_reported() -> None:
    page = parse_page("Loop.md", "---\nstatus: superseded\nx: &x [a, *x]\n---\nbody\n")
    assert page.yaml_error
    assert page.status == "superseded"  # still salvaged line by line


def test_deep_nesting_is_reported_not_a_crash() -> None:
    page = parse_page("Deep.md", "---\nx: " + "[" * 5000 + "]" * 5000 + "\n---\nbody\n")
    assert page.yaml_error
    assert page.body.startswith("---")


def test_huge_frontmatter_is_not_parsed_as_yaml() -> None:
    fm = "title: Big\nnotes: |\n" + "  line of notes\n" * 40_000
    page = parse_page("Big.md", f"---\n{fm}---\nbody\n")
    assert page.yaml_error and "KiB" in page.yaml_error
    assert page.title == "Big"


def test_a_page_over_the_size_cap_is_skipped_and_reported(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    with open(root / "Dump.md", "wb") as fh:
        fh.truncate(MAX_PAGE_BYTES + 1)  # sparse: no disk used
    with Router(root) as router:
        receipt = router.ask("which primary database do we use")
        assert receipt.top and receipt.top.path == "Decisions/Database.md"
        assert [(p.path, p.kind) for p in router.index.problems()] == [("Dump.md", "too_large")]
    assert [(f.kind, f.path) for f in check(root).findings] == [("too_large", "Dump.md")]
