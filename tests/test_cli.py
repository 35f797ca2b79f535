"""The ``krouter`` command: the done-when checks, exit codes, the JSON schema, read confinement, init."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from typer.testing import CliRunner
from vault_files import write

from krouter import Router, __version__
from krouter.cli import app
from krouter.learner import teach

REPO = Path(__file__).resolve().parents[1]
TEMPLATE = REPO / "vault_template"
runner = CliRunner()

CITE_KEYS = {"path", "title", "score", "line", "snippet", "matched", "missing"}


def krouter(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the real command in a subprocess, from the repository root, with the test's env dirs."""
    return subprocess.run(
        [sys.executable, "-c", "from krouter.cli import run; run()", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ.copy(),
    )


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    pages = {
        "Ops/Pager.md": "---\ntitle: Pager rotation\n---\n# Pager\n\nThe pager rotation is weekly.\n",
        "Ops/Backups.md": "# Backups\n\nNightly database dumps go to object storage.\n",
        "Notes/Cooking.md": "# Cooking\n\nBake bread at high heat with steam.\n",
    }
    for rel, text in pages.items():
        (tmp_path / "v" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "v" / rel).write_text(text, encoding="utf-8")
    return tmp_path / "v"


# --- the done-when checks ---------------------------------------------------------------------------


def test_done_when_database_cites_current_page() -> None:
    result = krouter("ask", "which database do we use", "--vault", "vault_template", "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["decision"] == "cite"
    assert out["cited"][0]["path"] == "Decisions/Primary database.md"
    assert all(c["path"] != "Decisions/Database - MySQL.md" for c in out["cited"])
    assert {"from": "Decisions/Database - MySQL.md", "to": "Decisions/Primary database.md"}.items() <= (
        out["redirects"][0].items()
    )


def test_only_the_cited_page_is_listed_as_cited() -> None:
    # A runner-up that matched one word ("use") was listed under "cited" beside the answer: an agent
    # reading the receipt would take it for a second citation. It belongs among the candidates only.
    result = krouter("ask", "which database do we use", "--vault", "vault_template", "--json")
    out = json.loads(result.stdout)
    assert [c["path"] for c in out["cited"]] == ["Decisions/Primary database.md"]
    assert len(out["candidates"]) > 1 and out["candidates"][0]["path"] == "Decisions/Primary database.md"
    text = krouter("ask", "which database do we use", "--vault", "vault_template").stdout
    assert "  also " not in text and "runner-up: Runbooks/Database backups.md" in text


def test_done_when_neighbour_question_refused() -> None:
    result = krouter("ask", "what is the search API timeout", "--vault", "vault_template", "--json")
    assert result.returncode == 3, result.stderr
    out = json.loads(result.stdout)
    assert out["decision"] == "refuse" and out["cited"] == []
    assert "search" in out["reason"]


# --- ask: exit codes and JSON ----------------------------------------------------------------------


def test_ask_json_schema(vault: Path) -> None:
    result = runner.invoke(app, ["ask", "pager rotation", "--vault", str(vault), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert {"query", "decision", "cited", "redirects", "evidence", "reason"} <= set(out)
    assert out["query"] == "pager rotation" and out["decision"] == "cite"
    top = out["cited"][0]
    assert set(top) >= CITE_KEYS
    assert top["path"] == "Ops/Pager.md" and top["title"] == "Pager rotation"
    assert isinstance(top["score"], float) and isinstance(top["line"], int)
    assert top["snippet"] == "The pager rotation is weekly."
    assert top["matched"] == ["pager", "rotation"] and top["missing"] == []
    assert isinstance(out["redirects"], list) and isinstance(out["evidence"], dict)
    assert isinstance(out["reason"], str) and out["reason"]


def test_ask_redirect_json(tmp_path: Path) -> None:
    shutil.copytree(TEMPLATE, tmp_path / "v")
    result = runner.invoke(app, ["ask", "are we on mysql", "--vault", str(tmp_path / "v"), "--json"])
    out = json.loads(result.stdout)
    assert result.exit_code == 0 and out["cited"][0]["path"] == "Decisions/Primary database.md"
    for r in out["redirects"]:
        assert {"from", "to"} <= set(r)


def test_ask_refuse_exit_3(vault: Path) -> None:
    result = runner.invoke(app, ["ask", "giraffe vaccination schedule", "--vault", str(vault)])
    assert result.exit_code == 3
    assert "REFUSE" in result.stdout and "reason:" in result.stdout
    # Not "the vault does not hold a page that answers this": its closest pages may (a first-hour trial).
    assert "no page answers this clearly enough to cite" in result.stdout


def test_ask_text_cite(vault: Path) -> None:
    result = runner.invoke(app, ["ask", "pager rotation", "--vault", str(vault)])
    assert result.exit_code == 0
    assert result.stdout.startswith("CITE  Ops/Pager.md")


def test_usage_errors_exit_2(tmp_path: Path, vault: Path) -> None:
    assert runner.invoke(app, ["ask", "x", "--vault", str(tmp_path / "missing")]).exit_code == 2
    (tmp_path / "file.md").write_text("x")
    assert runner.invoke(app, ["ask", "x", "--vault", str(tmp_path / "file.md")]).exit_code == 2
    assert runner.invoke(app, ["ask"]).exit_code == 2
    assert runner.invoke(app, ["read", "../x", "--vault", str(vault)]).exit_code == 2
    assert runner.invoke(app, ["frobnicate"]).exit_code == 2


def test_missing_vault_real_process(tmp_path: Path) -> None:
    result = krouter("ask", "which database", "--vault", str(tmp_path / "missing"))
    assert result.returncode == 2
    assert "vault folder not found" in result.stderr and "Traceback" not in result.stderr


def test_other_error_exit_1(tmp_path: Path) -> None:
    # A broken config file, with no --vault, is an error that is not the user's command line.
    Path(os.environ["KROUTER_CONFIG_DIR"], "config.toml").write_text("vault = [not toml", encoding="utf-8")
    result = runner.invoke(app, ["ask", "pager rotation"])
    assert result.exit_code == 1
    assert "config.toml" in result.stderr


@pytest.mark.parametrize("command", ["ask", "status", "index"])
def test_unusable_cache_dir_is_a_message_not_a_traceback(vault: Path, command: str) -> None:
    # A file where the index folder should be: the same as a cache dir that cannot be written.
    Path(os.environ["KROUTER_CACHE_DIR"], "indexes").write_text("", encoding="utf-8")
    args = [command, "pager rotation"] if command == "ask" else [command]
    result = krouter(*args, "--vault", str(vault))
    assert result.returncode == 1
    assert "cannot create the index folder" in result.stderr and "KROUTER_CACHE_DIR" in result.stderr
    assert "Traceback" not in result.stderr


def test_default_vault_from_config(vault: Path) -> None:
    Path(os.environ["KROUTER_CONFIG_DIR"], "config.toml").write_text(f'vault = "{vault}"\n', encoding="utf-8")
    result = runner.invoke(app, ["ask", "pager rotation", "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["cited"][0]["path"] == "Ops/Pager.md"


# --- read --------------------------------------------------------------------------------------------


def test_read_prints_page(vault: Path) -> None:
    result = runner.invoke(app, ["read", "Ops/Pager.md", "--vault", str(vault)])
    assert result.exit_code == 0
    assert result.stdout == (vault / "Ops/Pager.md").read_text(encoding="utf-8")


def test_read_prints_the_lines_asked_for(vault: Path) -> None:
    """An agent-loop run (dev8): receipts give the answer's line, and `krouter_read` takes a range, but
    the CLI read only whole pages: an agent on the CLI paid for every line of a long page."""
    lines = (vault / "Ops/Pager.md").read_text(encoding="utf-8").splitlines(keepends=True)
    result = runner.invoke(
        app, ["read", "Ops/Pager.md", "--vault", str(vault), "--start-line", "2", "--end-line", "3"]
    )
    assert result.exit_code == 0 and result.stdout == "".join(lines[1:3])
    result = runner.invoke(app, ["read", "Ops/Pager.md", "--vault", str(vault), "--start-line", "2"])
    assert result.exit_code == 0 and result.stdout == "".join(lines[1:])
    past = runner.invoke(app, ["read", "Ops/Pager.md", "--vault", str(vault), "--start-line", "900"])
    assert past.exit_code == 2 and f"{len(lines)} lines; the start line, 900, is past its end" in past.output
    backwards = runner.invoke(
        app, ["read", "Ops/Pager.md", "--vault", str(vault), "--start-line", "3", "--end-line", "2"]
    )
    assert backwards.exit_code == 2 and "the end line, 2, is before the start line, 3" in backwards.output


def test_read_confined_to_vault(tmp_path: Path, vault: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("the launch codes")
    os.symlink(secret, vault / "Ops" / "Link.md")
    os.symlink(tmp_path, vault / "Escape")
    for path in [
        "../secret.md",
        "Ops/../../secret.md",
        str(secret),
        "/etc/passwd",
        "Ops/Link.md",
        "Escape/secret.md",
    ]:
        result = runner.invoke(app, ["read", path, "--vault", str(vault)])
        assert result.exit_code == 2, path
        assert "launch codes" not in result.stdout
    missing = runner.invoke(app, ["read", "Ops/Nope.md", "--vault", str(vault)])
    assert missing.exit_code == 2


def test_read_finds_a_page_as_people_and_links_spell_it(vault: Path) -> None:
    nfd = unicodedata.normalize("NFD", "Ops/Café notes.MD")
    (vault / nfd).write_text("# Café\n\nEspresso at ten.\n", encoding="utf-8")
    runner.invoke(app, ["index", "--vault", str(vault)])
    for typed in ["Ops/Café notes.md", "Ops/Café notes", "ops/café NOTES", nfd]:
        result = runner.invoke(app, ["read", typed, "--vault", str(vault)])
        assert result.exit_code == 0, typed
        assert "Espresso at ten." in result.stdout


@pytest.mark.parametrize("path", ["x" * 300 + ".md", "Ops/a\x00b.md"])
def test_read_of_an_impossible_path_is_a_message(vault: Path, path: str) -> None:
    result = runner.invoke(app, ["read", path, "--vault", str(vault)])
    assert result.exit_code == 2 and "no page at" in result.stderr


def test_read_serves_pages_only_and_says_when_one_was_replaced(tmp_path: Path, vault: Path) -> None:
    (vault / "notes.txt").write_text("not a page", encoding="utf-8")
    result = runner.invoke(app, ["read", "notes.txt", "--vault", str(vault)])
    assert result.exit_code == 2 and "not a Markdown page" in result.stderr
    (vault / "Ops" / "Old pager.md").write_text(
        "---\nstatus: superseded\nsuperseded_by: Ops/Pager\n---\nThe pager used to rotate daily.\n",
        encoding="utf-8",
    )
    for spelled in ("Ops/Old pager.md", "ops/old PAGER", "./Ops/Old pager"):
        result = runner.invoke(app, ["read", spelled, "--vault", str(vault)])
        assert result.exit_code == 0 and "rotate daily" in result.stdout, spelled
        assert "Ops/Old pager.md was replaced; the current page is Ops/Pager.md" in result.stderr, spelled


def test_read_refuses_a_file_that_is_not_utf8(vault: Path) -> None:
    (vault / "Ops" / "Latin.md").write_bytes("caf\xe9 notes".encode("latin-1"))
    result = runner.invoke(app, ["read", "Ops/Latin.md", "--vault", str(vault)])
    assert result.exit_code == 2 and "not UTF-8" in result.stderr


def test_read_refuses_hidden_folders(vault: Path) -> None:
    """.trash and .git are never indexed, so they are never served either."""
    (vault / ".trash").mkdir()
    (vault / ".trash" / "old.md").write_text("a deleted note about salaries")
    (vault / ".git").mkdir()
    (vault / ".git" / "config").write_text("[remote] url = secret")
    for path in [".trash/old.md", ".git/config", "Ops/../.trash/old.md"]:
        result = runner.invoke(app, ["read", path, "--vault", str(vault)])
        assert result.exit_code == 2, path
        assert "salaries" not in result.stdout and "secret" not in result.stdout


def test_read_refuses_pages_the_ignore_rules_leave_out(vault: Path) -> None:
    """An ignored page is never indexed or cited; an agent reading by path must not get it either."""
    (vault / "Private").mkdir()
    (vault / "Private" / "Salaries.md").write_text("# Salaries\n\nEveryone earns 90k.\n")
    (vault / "Ops" / "Draft.md").write_text("# Draft\n\nA half-written salary note.\n")
    (vault / ".krouterignore").write_text("Private/\nDraft.md\n")
    for path in ["Private/Salaries.md", "Private/Salaries", "Ops/Draft.md", "private/salaries.md"]:
        result = runner.invoke(app, ["read", path, "--vault", str(vault)])
        assert result.exit_code == 2, (path, result.output)
        assert "90k" not in result.stdout and "half-written" not in result.stdout
        # Spelled another way on a case-sensitive disk it is no page at all; as written, the reply says why.
        assert path.islower() or "ignore rules" in result.stderr, result.stderr


# --- init, status, index, version ---------------------------------------------------------------------


def test_init_with_examples_copies_template(tmp_path: Path) -> None:
    target = tmp_path / "new vault"
    result = runner.invoke(app, ["init", str(target), "--with-examples"])
    assert result.exit_code == 0, result.output
    expected = sorted(p.relative_to(TEMPLATE).as_posix() for p in TEMPLATE.rglob("*.md"))
    assert sorted(p.relative_to(target).as_posix() for p in target.rglob("*.md")) == expected
    asked = runner.invoke(app, ["ask", "which database do we use", "--vault", str(target), "--json"])
    assert json.loads(asked.stdout)["cited"][0]["path"] == "Decisions/Primary database.md"


def test_init_into_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert runner.invoke(app, ["init", str(tmp_path / "empty")]).exit_code == 0
    assert (tmp_path / "empty" / "Decisions").is_dir()


def test_init_refuses_non_empty_folder(tmp_path: Path) -> None:
    target = tmp_path / "mine"
    target.mkdir()
    (target / "keep.md").write_text("my own notes")
    result = runner.invoke(app, ["init", str(target)])
    assert result.exit_code == 2
    assert sorted(p.name for p in target.iterdir()) == ["keep.md"]
    assert (target / "keep.md").read_text() == "my own notes"


def test_init_takes_a_folder_holding_only_an_editors_dot_folders(tmp_path: Path) -> None:
    """A cold review: a vault Obsidian had just made (only .obsidian/) or a fresh git repository was
    refused as "not empty"; its own ignore file is still never written over."""
    target = tmp_path / "obsidian-vault"
    (target / ".obsidian").mkdir(parents=True)
    (target / ".obsidian" / "app.json").write_text("{}")
    (target / ".git").mkdir()
    assert runner.invoke(app, ["init", str(target)]).exit_code == 0
    assert (target / "Decisions").is_dir() and (target / ".obsidian" / "app.json").read_text() == "{}"
    again = tmp_path / "ignored"
    again.mkdir()
    (again / ".krouterignore").write_text("mine\n")
    assert runner.invoke(app, ["init", str(again)]).exit_code == 2
    assert (again / ".krouterignore").read_text() == "mine\n"


def test_init_refuses_a_file(tmp_path: Path) -> None:
    (tmp_path / "notes").write_text("a file")
    result = runner.invoke(app, ["init", str(tmp_path / "notes")])
    assert result.exit_code == 2
    assert (tmp_path / "notes").read_text() == "a file"


def test_status(tmp_path: Path, vault: Path) -> None:
    (vault / "Bad.md").write_bytes(b"\xff\xfe not utf8")
    (vault / "Old.md").write_text("---\nstatus: superseded\nsuperseded_by: Nowhere\n---\nold\n")
    result = runner.invoke(app, ["status", "--vault", str(vault), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["pages"] == 4 and report["replaced"] == 1
    assert [p["path"] for p in report["problems"]] == ["Bad.md"]
    assert [b["from"] for b in report["broken_links"]] == ["Old.md"]
    assert Path(report["index"]).is_file()
    assert Path(report["index"]).is_relative_to(os.environ["KROUTER_CACHE_DIR"])
    text = runner.invoke(app, ["status", "--vault", str(vault)])
    assert text.exit_code == 0
    assert "pages:    4 (1 replaced)" in text.stdout and "Bad.md" in text.stdout


def test_index_and_rebuild(vault: Path) -> None:
    first = runner.invoke(app, ["index", "--vault", str(vault)])
    assert first.exit_code == 0 and "3 added" in first.stdout
    again = runner.invoke(app, ["index", "--vault", str(vault)])
    assert again.exit_code == 0 and "0 added" in again.stdout and "3 unchanged" in again.stdout
    rebuilt = runner.invoke(app, ["index", "--vault", str(vault), "--rebuild"])
    assert rebuilt.exit_code == 0 and "3 added" in rebuilt.stdout
    assert runner.invoke(app, ["ask", "pager rotation", "--vault", str(vault)]).exit_code == 0


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.strip() == f"krouter {__version__}"
    assert krouter("--version").stdout.strip() == f"krouter {__version__}"


def test_read_accepts_the_link_form_without_md(vault: Path) -> None:
    page = next(p for p in vault.rglob("*.md"))
    rel = page.relative_to(vault).as_posix()
    result = runner.invoke(app, ["read", rel[:-3], "--vault", str(vault)])
    assert result.exit_code == 0 and result.stdout == page.read_text(encoding="utf-8")


def test_a_usage_error_under_json_is_one_json_object_on_stdout(tmp_path: Path) -> None:
    """`krouter ask --json` without a question printed only click's plain-text usage message: an agent
    parsing stdout met nothing it could read. The real console entry point, as installed."""
    import os
    import shutil
    import subprocess

    exe = shutil.which("krouter", path=str(Path(sys.executable).parent)) or "krouter"
    env = {**os.environ, "KROUTER_CACHE_DIR": str(tmp_path / "c"), "KROUTER_STATE_DIR": str(tmp_path / "s")}
    for args, message in (
        (["ask", "--json"], "Missing argument 'QUESTION'."),
        (["ask", "x", "--json", "--k", "3"], "No such option: --k"),
    ):
        done = subprocess.run([exe, *args], capture_output=True, text=True, env=env, timeout=60)
        assert done.returncode == 2
        assert json.loads(done.stdout) == {"error": message, "exit_code": 2}
        assert "Usage: krouter ask" in done.stderr
    done = subprocess.run([exe, "ask", "-h", "--json"], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0 and "Usage: krouter ask" in done.stdout


def test_the_demo_vault_is_never_the_configured_vault(tmp_path: Path) -> None:
    """KROUTER_VAULT=demo is a folder called demo (which does not exist), not the bundled demo vault: the
    demo answers only when named on the command line or passed to the library. The error says so."""
    import os

    env = {**os.environ, "KROUTER_VAULT": "demo", "KROUTER_CACHE_DIR": str(tmp_path / "c")}
    env["KROUTER_STATE_DIR"] = str(tmp_path / "s")
    env["PYTHONPATH"] = str(REPO)  # this checkout's krouter, run from another folder
    done = subprocess.run(
        [sys.executable, "-m", "krouter", "ask", "值班最少要几个人", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 2
    assert "the bundled demo vault is never a default" in json.loads(done.stdout)["error"]


def test_a_refusal_just_under_the_floor_never_reads_as_equal_to_it() -> None:
    """The walkthrough saw "confidence 55% < floor 55%": rounding hid why the question was refused."""
    from krouter import Router
    from krouter.config import bundled_vault

    question = "which database do we use"
    with Router(bundled_vault()) as router:
        confidence = router.ask(question).evidence.confidence
    # The receipt rounds the confidence to four places, so the true value lies within half a step of
    # it: this floor refuses the question by less than one rounding step, whatever the fifth place.
    floor = confidence + 0.00005
    with Router(bundled_vault(), floor=floor) as router:
        receipt = router.ask(question)
    assert receipt.decision == "refuse"
    shown = re.search(r"confidence (\S+) < floor (\S+)$", receipt.reason)
    assert shown is not None and shown.group(1) != shown.group(2), receipt.reason
    text = re.search(r"confidence (\S+) vs floor (\S+)", receipt.to_text())
    assert text is not None and text.group(1) != text.group(2)


def test_the_cited_line_is_the_sentence_that_answers_not_its_heading(tmp_path: Path) -> None:
    """A heading and the sentences under it with no blank line between are one passage: the receipt
    named the heading's line, not the line that answers (from the walkthrough)."""
    from krouter import Router

    page = tmp_path / "Runbooks" / "Feature flags.md"
    page.parent.mkdir(parents=True)
    page.write_text(
        "---\ntitle: Feature flags\n---\n# Feature flags\nWe use Unleash for feature toggles.\n"
        "Flags are reviewed monthly by the platform team.\n\n## Cleanup\nRemove a flag within two weeks.\n",
        encoding="utf-8",
    )
    (tmp_path / "Payments.md").write_text("# Payments\n\nThe payments API timeout is 30 seconds.\n")
    with Router(tmp_path) as router:
        receipt = router.ask("how often are flags reviewed")
    assert receipt.closest is not None and receipt.closest.line == 6
    assert receipt.closest.snippet == "Flags are reviewed monthly by the platform team."


def test_the_cited_line_is_found_deep_in_a_page_with_no_blank_line(tmp_path: Path) -> None:
    """A pasted transcript or log with no blank line is one passage; the answering line was searched
    only in its first 40 lines, and the receipt showed line 3, which holds none of the matched words."""
    from krouter import Router

    filler = [f"entry {n}: the shuttle left the depot on time." for n in range(600)]
    filler[400] = "The Kafka consumer lag alert fires when lag exceeds 50000 messages."
    (tmp_path / "Notes").mkdir()
    (tmp_path / "Notes" / "Transcript.md").write_text("# Transcript\n\n" + "\n".join(filler) + "\n")
    (tmp_path / "Kafka.md").write_text("# Kafka\n\nWe run Kafka on three brokers.\n")
    with Router(tmp_path) as router:
        receipt = router.ask("when does the kafka consumer lag alert fire")
    assert receipt.top is not None and receipt.top.path == "Notes/Transcript.md"
    assert receipt.top.line == 403
    assert receipt.top.snippet.startswith("The Kafka consumer lag alert fires")


def test_a_refusal_names_the_languages_of_the_notes_the_question_was_not_in(tmp_path: Path) -> None:
    """D106 for the command line (Codex and shell agents read `--json`): which languages a tenth or more
    of the pages are in that no wording is."""
    vault = write(
        tmp_path / "notes",
        {
            "Office.md": "# Office\n\nThe office opens at nine.\n",
            "Deploys.md": "# Deploys\n\nDeploys go out on Tuesdays.\n",
            "值班.md": "# 值班安排\n\n每人值班一周。\n",
        },
    )
    text = CliRunner().invoke(app, ["ask", "what is the parking fee", "--vault", str(vault)])
    assert text.exit_code == 3
    assert (
        'of the notes\' pages, about 33% are in Chinese: ask again with --also "<a translation>"'
        in text.stdout
    )
    as_json = CliRunner().invoke(app, ["ask", "what is the parking fee", "--vault", str(vault), "--json"])
    assert json.loads(as_json.stdout)["translate_into"] == [{"language": "Chinese", "share": 0.333}]
    both = CliRunner().invoke(
        app, ["ask", "what is the parking fee", "--also", "停车费多少", "--vault", str(vault), "--json"]
    )
    assert json.loads(both.stdout)["translate_into"] == []
    cited = CliRunner().invoke(app, ["ask", "when does the office open", "--vault", str(vault), "--json"])
    assert "translate_into" not in json.loads(cited.stdout)
    # Asked in Chinese: the Latin-script pages are named as the text says, not "Latin", which an agent
    # read as a language (an agent-loop run).
    zh = CliRunner().invoke(app, ["ask", "停车费多少钱", "--vault", str(vault), "--json"])
    assert json.loads(zh.stdout)["translate_into"] == [
        {"language": "English or another Latin-script language", "share": 0.667}
    ]


def test_an_english_rewording_that_keeps_a_chinese_name_counts_as_english(tmp_path: Path) -> None:
    """AGENTS.md tells agents to keep names as written, so an English rewording of a Chinese question
    often holds a Han name ("Rotterdam 鹿特丹 warehouse pallet fee"): read by its script alone it was
    Chinese, and the refusal asked again for an English wording it had (the dev11 agent-loop run, D156).
    A Chinese question that names English things ("Redis Sentinel 的配置") is still Chinese only."""
    vault = write(
        tmp_path / "notes",
        {
            "Office.md": "# Office\n\nThe office opens at nine.\n",
            "Deploys.md": "# Deploys\n\nDeploys go out on Tuesdays.\n",
            "值班.md": "# 值班安排\n\n每人值班一周。\n",
        },
    )

    def hint(question: str, *also: str) -> list[object]:
        args = ["ask", question, *(a for w in also for a in ("--also", w)), "--vault", str(vault), "--json"]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 3, result.output
        return json.loads(result.stdout)["translate_into"]

    english = [{"language": "English or another Latin-script language", "share": 0.667}]
    assert hint("鹿特丹仓库存放费多少钱", "Rotterdam 鹿特丹 warehouse pallet storage fee") == []
    assert hint("陈总审批上限", "陈总 approval limit") == []
    assert hint("Redis Sentinel 的配置在哪") == english
    assert hint("Kafka 的超时是多少") == english


def test_japanese_pages_titled_in_kanji_alone_are_japanese_notes(tmp_path: Path) -> None:
    """A Japanese vault's pages are often titled in kanji alone (経費精算, 議事録): they counted as Chinese,
    so a Japanese question the vault could not answer was told to ask again in Chinese. A Chinese page
    beside them, whose text writes no kana, is still Chinese."""
    vault = write(
        tmp_path / "notes",
        {
            "経費精算.md": "# 経費精算\n\n経費精算の締め日は毎月25日です。領収書は写真でアップロードしてください。\n",
            "議事録.md": "# 議事録\n\n週次ミーティングの議事録はNotionに保存しています。\n",
            "有給休暇.md": "# 有給休暇\n\n有給休暇は年に20日あります。申請は三日前までにお願いします。\n",
            # A memo-style page: little kana, but Japanese grammar (a second review read it as Chinese).
            "交通費.md": "# 交通費\n\n締め日は毎月末。領収書原本を経理部へ提出。\n",
            "值班.md": "# 值班安排\n\n每人值班一周，周一交接。\n",
        },
    )
    refused = CliRunner().invoke(app, ["ask", "駐車場はどこですか？", "--vault", str(vault), "--json"])
    assert json.loads(refused.stdout)["translate_into"] == [{"language": "Chinese", "share": 0.2}]
    english = CliRunner().invoke(app, ["ask", "where do we park", "--vault", str(vault), "--json"])
    assert json.loads(english.stdout)["translate_into"] == [
        {"language": "Japanese", "share": 0.8},
        {"language": "Chinese", "share": 0.2},
    ]


def test_chinese_pages_quoting_a_little_japanese_stay_chinese(tmp_path: Path) -> None:
    """A cold review: a Chinese page writing a Japanese shop's name (小鹿の家) or a foreign name's middle
    dot (哈利・波特) counted as Japanese, and a Chinese learner's notes with Japanese example sentences
    made a Chinese question one KRouter cannot read."""
    vault = write(
        tmp_path / "notes",
        {
            "团建.md": "# 团建\n\n团建订在小鹿の家，周五晚上七点。\n",
            "读书会.md": "# 读书会\n\n这个月读《哈利・波特》，每周三晚上。\n",
            "年假.md": "# 年假\n\n每人每年十五天年假。\n",
            "报销.md": "# 报销\n\n发票当月提交。\n",
        },
    )
    english = CliRunner().invoke(app, ["ask", "where do we park", "--vault", str(vault), "--json"])
    assert json.loads(english.stdout)["translate_into"] == [{"language": "Chinese", "share": 1.0}]
    study = write(
        tmp_path / "study",
        {
            "敬语.md": "# 敬语\n\n例句：先生はもう帰りました。お待ちしております。よろしくお願いします。\n",
            "助词.md": "# 助词\n\n例句：私は学生です。これはペンです。駅まで歩いて行きます。\n",
        },
    )
    chinese = CliRunner().invoke(app, ["ask", "考试报名什么时候截止？", "--vault", str(study), "--json"])
    assert json.loads(chinese.stdout)["translate_into"] == [{"language": "Japanese", "share": 1.0}]
    with Router(study) as router:
        router.refresh()
        assert not router.unreadable("考试报名什么时候截止？")
    # A Chinese page with a Japanese word in it is a Chinese page (a third review: ありがとう in a
    # learner's notes told a refused question to translate into Japanese).
    learner = write(
        tmp_path / "learner",
        {
            "礼貌用语.md": "# 礼貌用语\n\n谢谢在日语里是ありがとう，正式场合说得更完整一些，见面时先鞠躬再说。\n",
            "数字.md": "# 数字\n\n日语数字一到十的读法和汉语不同，考试前要多听录音多跟读。\n",
        },
    )
    with Router(learner) as router:
        router.refresh()
        assert router.writings() == {"Chinese": 1.0}


def test_kanji_heavy_japanese_memos_are_japanese_notes(tmp_path: Path) -> None:
    """A fourth review: memo pages, kanji bullets and one Japanese sentence each, read as Chinese when a
    fifth of a page's terms had to hold hiragana; a Japanese question then counted as one KRouter cannot
    read, and a citation listed none of its missing words."""
    memo = "# {title}\n\n{title}の手順について説明します。\n\n" + "".join(
        f"- {item}\n"
        for item in ("申請期限: 毎月末日", "承認者: 所属部長", "上限金額: 五万円", "領収書原本提出必須")
    )
    vault = write(
        tmp_path / "notes",
        {f"{title}.md": memo.format(title=title) for title in ("経費精算", "議事録作成", "有給休暇申請")},
    )
    with Router(vault) as router:
        router.refresh()
        assert router.writings() == {"Japanese": 1.0}
        receipt = router.ask("経費精算の上限と歓送迎会の会費はいくらですか？", also=["経費精算 上限金額"])
    assert receipt.top is not None and receipt.top.path == "経費精算.md"
    assert "会費" in receipt.top.missing, receipt.top.missing


def test_the_japanese_share_does_not_depend_on_where_the_pages_stand(tmp_path: Path) -> None:
    """A third review: the share of Japanese among Han-titled pages was read from the first 64 page ids,
    so the same notes under swapped folder names gave 98% Japanese or 100% Chinese."""
    zh = {
        f"{i:02d}.md": f"# 报销规定{i:02d}\n\n发票要在当月提交给财务部，逾期不予报销。\n" for i in range(66)
    }
    ja = {
        f"{i:02d}.md": f"# 経費精算規程{i:02d}\n\n領収書は月末までに経理部へ提出してください。\n"
        for i in range(65)
    }
    shares = []
    for first, second in (("a", "b"), ("b", "a")):
        pages = {f"{first}/{k}": v for k, v in zh.items()} | {f"{second}/{k}": v for k, v in ja.items()}
        with Router(write(tmp_path / first, pages)) as router:
            router.refresh()
            shares.append({lang: round(share, 2) for lang, share in router.writings().items()})
            assert not router.unreadable("経費精算の締め日はいつですか")
    assert shares[0] == shares[1] and set(shares[0]) == {"Chinese", "Japanese"}, shares


def test_a_cited_clipping_is_said_to_be_one(tmp_path: Path) -> None:
    """An agent-loop run (otherlang) answered from a cited clipping as if the user had written it: the
    MCP reply marks one (`clipping`), `krouter ask` did not."""
    page = tmp_path / "v" / "Inputs" / "Postgres 16 article.md"
    page.parent.mkdir(parents=True)
    page.write_text("# Postgres 16\n\nPostgres 16 allows logical replication from a standby server.\n")
    (tmp_path / "v" / "Notes.md").write_text("# Notes\n\nWe run Postgres on two servers.\n")
    args = ["ask", "can postgres 16 do logical replication from a standby", "--vault", str(tmp_path / "v")]
    out = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    assert out["decision"] == "cite" and out["cited"][0]["clipping"] is True
    assert "a clipping: pasted material, not your own note" in runner.invoke(app, args).stdout


def test_a_page_tagged_as_a_clipping_is_one_wherever_it_is_kept(tmp_path: Path) -> None:
    """The dev4 agent loop: a vault kept its clippings in "99 剪藏/", no input folder, and the receipt said
    `clipping: false` of a page tagged `clipping`. A page tagged so is clipped material wherever it is
    kept: the receipt says so, its `supersedes` retires no page, and it is taught no trigger."""
    vault = write(
        tmp_path / "v",
        {
            "99 剪藏/IL2CPP tips.md": "---\ntags: [clippings, unity]\nsupersedes: Decisions/Build size\n---\n"
            "# IL2CPP build size tips\n\nSet Managed Stripping Level to High to cut the IL2CPP build size by "
            "4-9 MB.\n",
            "Decisions/Build size.md": "# Build size\n\nOur Android build must stay under 150 MB; we check it in "
            "every release.\n",
            "Notes.md": "# Notes\n\nWe ship the Unity game to Android and iOS.\n",
        },
    )
    args = ["--vault", str(vault), "--json"]
    clipped = json.loads(runner.invoke(app, ["ask", "how do I cut the IL2CPP build size", *args]).stdout)
    assert clipped["cited"] and clipped["cited"][0]["path"] == "99 剪藏/IL2CPP tips.md", clipped["reason"]
    assert clipped["cited"][0]["clipping"] is True
    own = json.loads(runner.invoke(app, ["ask", "how big may our Android build be", *args]).stdout)
    assert own["decision"] == "cite" and own["cited"][0]["path"] == "Decisions/Build size.md", own["reason"]
    assert own["cited"][0]["clipping"] is False and not own["redirects"]

    def taught_stripping() -> teach.TeachResult:
        with Router(vault) as router:
            return teach.teach(
                router,
                "what stripping level shrinks the build",
                "99 剪藏/IL2CPP tips.md",
                "Set Managed Stripping Level to High to cut the IL2CPP build size by 4-9 MB.",
            )

    taught = taught_stripping()
    assert taught.status == "not-taught" and "tagged as a clipping" in taught.reason, taught.reason
    # The tag taken off, the next teaching reads the page as it is now, not as the index last had it (a
    # second review: the check ran before anything refreshed the index).
    clip = vault / "99 剪藏" / "IL2CPP tips.md"
    clip.write_text(clip.read_text(encoding="utf-8").replace("clippings, unity", "unity"), encoding="utf-8")
    again = taught_stripping()
    assert "clipping" not in again.reason, again.reason
    # A tag: field is read as tags: is, nested and in one string too (a second review).
    (vault / "Inbox.md").write_text(
        "---\ntag: clippings/web, research\n---\n# Ferments\n\nKimchi ferments for five days at room temperature.\n",
        encoding="utf-8",
    )
    with Router(vault) as router:
        router.refresh()
        assert router.is_clipping("Inbox.md") and not router.is_clipping("Notes.md")


@pytest.mark.parametrize(
    ("path", "text"),
    [
        (
            "値段/ヒカリ商会 田中さん.md",
            "# ヒカリ商会 田中さん\n\nHikari の担当は田中さん。卸の最低ロットは 300 個。\n",
        ),
        # A Chinese page naming a katakana brand is still Chinese (a second review).
        ("样品/样品寄送.md", "# 样品寄送\n\nHikari 的样品用サクラ牌纸箱寄,最少 300 个起订。\n"),
        # Titled in kanji alone, written in Japanese: read by its title, it was Chinese (a cold review).
        (
            "値段/卸価格.md",
            "# 卸価格\n\nHikari への卸の最低ロットは 300 個です。価格は毎年四月に見直します。"
            "送料はこちらで負担しますが、急ぎの場合は別途ご相談ください。\n",
        ),
    ],
)
def test_a_refusal_names_the_language_of_its_closest_pages_however_few(
    tmp_path: Path, path: str, text: str
) -> None:
    """An agent-loop run: an English question about a Japanese distributor, whose few pages are under a
    tenth of the vault, was told to translate into Chinese only; a Japanese phrasing then cited the page."""
    pages = {
        f"Notes/Topic {i}.md": f"# Topic {i}\n\nRoutine note number {i} about the office.\n" for i in range(9)
    }
    pages["Notes/Orders.md"] = "# Orders\n\nOrders ship on Mondays.\n"
    pages["Notes/Passwords.md"] = "# Passwords\n\nMinimum password length is 12.\n"
    pages[path] = text
    pages["值班.md"] = "# 值班安排\n\n每人值班一周。\n"
    vault = write(tmp_path / "notes", pages)
    out = CliRunner().invoke(
        app, ["ask", "What's the minimum order per shipment for Hikari?", "--vault", str(vault), "--json"]
    )
    receipt = json.loads(out.stdout)
    assert receipt["decision"] == "refuse", receipt["reason"]
    assert path in [c["path"] for c in receipt["candidates"][:3]]
    wanted = ["Chinese"] if path.startswith("样品") else ["Japanese"]
    assert [x["language"] for x in receipt["translate_into"]] == wanted, receipt["translate_into"]


def test_ctrl_c_while_a_command_loads_is_one_line_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bug hunt: Ctrl-C in the first ~0.3 s of any command (while its modules import) printed a
    KeyboardInterrupt traceback."""
    import krouter.cli
    from krouter.entry import run

    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(krouter.cli, "run", interrupted)
    monkeypatch.setattr(sys, "argv", ["krouter", "status"])
    with pytest.raises(SystemExit) as exit_info:
        run()
    assert exit_info.value.code == 130
    assert capsys.readouterr().err == "\nAborted!\n"
