"""A new user's first hour (issue #14): no silent demo vault, a clean `init`, `krouter config`, a cold
index warmed in the background, an ignore mechanism, Codex imports, and CLI conventions."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from krouter.cli import app
from krouter.config import bundled_vault, config_path, load_config

runner = CliRunner()
REPO = Path(__file__).resolve().parents[1]


def krouter(
    *args: str, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The real command in a subprocess, with the test's cache/state/config dirs."""
    return subprocess.run(
        [sys.executable, "-m", "krouter", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=180,
        env=env or os.environ.copy(),
    )


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    (root / "Ops").mkdir(parents=True)
    (root / "Ops" / "Pager.md").write_text(
        "---\ntitle: Pager rotation\n---\n# Pager rotation\n\nThe pager rotation is weekly, on Mondays.\n",
        encoding="utf-8",
    )
    return root


# --- 1. no silent demo vault; init records the vault; krouter config ----------------------------------


@pytest.mark.parametrize("command", ["ask", "status", "check", "index", "read"])
def test_no_vault_named_is_an_error_not_the_demo_vault(command: str) -> None:
    args = {"ask": ["ask", "which database do we use"], "read": ["read", "Decisions/Primary database.md"]}
    result = runner.invoke(app, args.get(command, [command]))
    assert result.exit_code == 2, result.output
    assert "no vault named" in result.stderr and "--vault demo" in result.stderr
    assert "Primary database" not in result.stdout


@pytest.mark.parametrize("command", ["ask", "status", "check", "index", "read", "import", "learn"])
def test_an_empty_vault_value_is_a_usage_error_not_the_current_folder(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold review: ``--vault "$VAULT"`` with the variable unset was the current folder (Path("") is
    "."), so import wrote Inputs/Sessions/ where one stood, and ask or index walked it."""
    (tmp_path / "t.jsonl").write_text(
        '{"role": "user", "content": "hello about postgres"}\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    args = {"ask": ["ask", "which database"], "read": ["read", "p.md"], "import": ["import", "t.jsonl"]}
    result = runner.invoke(app, [*args.get(command, [command]), "--vault", ""])
    assert result.exit_code == 2, result.output
    assert "an empty value names no folder" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_no_vault_named_under_json_is_a_json_error() -> None:
    result = runner.invoke(app, ["ask", "which database do we use", "--json"])
    assert result.exit_code == 2
    out = json.loads(result.stdout)
    assert out["exit_code"] == 2 and "no vault named" in out["error"]


def test_mcp_server_without_a_vault_refuses_to_start() -> None:
    result = krouter("mcp")
    assert result.returncode == 2 and "no vault named" in result.stderr and result.stdout == ""


def test_demo_vault_answers_when_named_and_says_so() -> None:
    result = runner.invoke(app, ["ask", "which database do we use", "--vault", "demo", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["cited"][0]["path"] == "Decisions/Primary database.md"
    assert "demo vault" in result.stderr and "fictional" in result.stderr


def test_a_folder_called_demo_wins_over_the_demo_vault(
    notes: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "Pager.md").write_text(
        "# Pager\n\nThe pager rotation is weekly.\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["status", "--vault", "demo", "--json"])
    assert json.loads(result.stdout)["pages"] == 1 and "demo vault" not in result.stderr


def test_init_records_the_new_vault_as_the_default(tmp_path: Path) -> None:
    target = tmp_path / "my notes"
    result = runner.invoke(app, ["init", str(target)])
    assert result.exit_code == 0, result.output
    assert "recorded as the default vault" in result.stdout and "krouter config set vault" in result.stdout
    (target / "Ops.md").write_text("# Ops\n\nThe pager rotation is weekly.\n", encoding="utf-8")
    asked = runner.invoke(app, ["ask", "pager rotation weekly", "--json"])
    assert asked.exit_code == 0, asked.output
    out = json.loads(asked.stdout)
    assert out["vault"] == str(target.resolve()) and out["cited"][0]["path"] == "Ops.md"
    assert "demo" not in asked.stderr
    # --no-default leaves the recorded default alone.
    other = tmp_path / "other"
    result = runner.invoke(app, ["init", str(other), "--no-default"])
    assert result.exit_code == 0 and "not recorded" in result.stdout
    assert runner.invoke(app, ["config", "get", "vault"]).stdout.strip() == str(target.resolve())


def test_config_command_shows_gets_and_sets(notes: Path) -> None:
    path = config_path()
    path.write_text('# my settings\nquery_log = false\n\n[extra]\nkeep = "me"\n', encoding="utf-8")
    assert runner.invoke(app, ["config", "path"]).stdout.strip() == str(path)
    shown = runner.invoke(app, ["config"])
    assert shown.exit_code == 0 and str(path) in shown.stdout and "vault in use: -" in shown.stdout
    assert runner.invoke(app, ["config", "get", "vault"]).exit_code == 1
    assert runner.invoke(app, ["config", "set", "vault", str(notes)]).exit_code == 0
    text = path.read_text(encoding="utf-8")
    # Every other line of the file is kept as written.
    assert "# my settings\nquery_log = false\n" in text and '[extra]\nkeep = "me"\n' in text
    assert runner.invoke(app, ["config", "get", "vault"]).stdout.strip() == str(notes.resolve())
    out = json.loads(runner.invoke(app, ["config", "--json"]).stdout)
    assert out["vault_in_use"] == str(notes.resolve()) and out["vault_from"] == "config.toml"
    assert out["settings"]["query_log"] is False
    assert runner.invoke(app, ["ask", "pager rotation"]).exit_code == 0
    # Setting it again replaces the line rather than adding a second one.
    assert runner.invoke(app, ["config", "set", "vault", str(notes)]).exit_code == 0
    assert path.read_text(encoding="utf-8").count("vault =") == 1
    assert runner.invoke(app, ["config", "unset", "vault"]).exit_code == 0
    assert runner.invoke(app, ["ask", "pager rotation"]).exit_code == 2


def test_config_shows_and_sets_the_teaching_settings(notes: Path) -> None:
    """`agent_teaching` and `pending_triggers`, which the README tells users to set, are shown with
    the rest and settable like them (the file read back is what the learner obeys)."""
    settings = json.loads(runner.invoke(app, ["config", "--json"]).stdout)["settings"]
    assert settings["agent_teaching"] is True and settings["pending_triggers"] == "all"
    assert runner.invoke(app, ["config", "set", "pending_triggers", "none"]).exit_code == 0
    assert runner.invoke(app, ["config", "set", "agent_teaching", "false"]).exit_code == 0
    assert runner.invoke(app, ["config", "get", "pending_triggers"]).stdout.strip() == "none"
    shown = runner.invoke(app, ["config"]).stdout
    assert "agent_teaching = false" in shown and 'pending_triggers = "none"' in shown
    assert load_config().agent_teaching is False and load_config().pending_triggers == "none"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["set", "vault", "demo"], "never a default"),
        (["set", "vault", "/no/such/folder"], "not found"),
        (["set", "vault", ""], "an empty value names no folder"),
        (["set", "query_log", "maybe"], "true or false"),
        (["set", "agent_teaching", "maybe"], "agent_teaching is true or false"),
        (["set", "pending_triggers", "some"], "one of: agents, all, none"),
        (["set", "vault", str(bundled_vault())], "never a default"),
        (["set", "colour", "red"], "cannot set"),
        (["get", "colour"], "unknown setting"),
    ],
)
def test_config_rejects_bad_settings(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["config", *args])
    assert result.exit_code == 2 and message in result.stderr
    assert not config_path().exists()


def test_learn_and_import_refuse_the_demo_vault_even_when_named(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    src.write_text(json.dumps({"session_id": "a", "role": "user", "content": "hi"}) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["import", str(src), "--vault", "demo"])
    assert result.exit_code == 2 and "read-only" in result.stderr
    assert not (bundled_vault() / "Inputs").exists()


def test_the_clone_s_demo_vault_is_the_demo_vault_after_a_plain_install(tmp_path: Path) -> None:
    """After `pip install .` the package holds its own copy of the demo vault, and the README's first
    command names the clone's `vault_template`: that copy is fictional and read-only too. A copy under
    another name (someone's start of a vault) is not."""
    import shutil

    clone = tmp_path / "checkout" / "vault_template"
    shutil.copytree(bundled_vault(), clone)
    result = runner.invoke(app, ["ask", "which database do we use", "--vault", str(clone), "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["demo_vault"] is True, result.output
    assert "fictional" in result.stderr
    src = tmp_path / "s.jsonl"
    src.write_text(json.dumps({"session_id": "a", "role": "user", "content": "hi"}) + "\n", encoding="utf-8")
    refused = runner.invoke(app, ["import", str(src), "--vault", str(clone)])
    assert refused.exit_code == 2 and "read-only" in refused.stderr
    mine = tmp_path / "notes"
    shutil.copytree(bundled_vault(), mine)
    result = runner.invoke(app, ["ask", "which database do we use", "--vault", str(mine), "--json"])
    assert json.loads(result.stdout)["demo_vault"] is False


# --- 2. init makes an empty vault ------------------------------------------------------------------------


def test_init_over_a_broken_config_makes_nothing(tmp_path: Path) -> None:
    """A cold review: the vault was made, then the broken config.toml stopped the command before it was
    recorded, and the same init run again refused the folder as not empty."""
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text('semantic = "of"\n', encoding="utf-8")
    target = tmp_path / "notes"
    result = runner.invoke(app, ["init", str(target)])
    assert result.exit_code == 1 and "config.toml" in result.stderr
    assert not target.exists()


def test_init_of_an_empty_value_makes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cold review: `krouter init "$VAULT"` with the variable unset made the folder one stood in a
    vault, and the default one, as --vault refuses to let an empty value do."""
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    result = runner.invoke(app, ["init", ""])
    assert result.exit_code == 2 and "an empty value names no folder" in result.output
    assert list(here.iterdir()) == [] and not config_path().exists()


def test_init_of_a_quoted_tilde_makes_the_vault_at_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold review: `krouter init "~/notes"` made a folder named ~ where one stood, where --vault and
    `krouter config set vault` read the same text as a folder at home."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    result = runner.invoke(app, ["init", "~/my notes", "--no-default"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "home" / "my notes" / "Decisions").is_dir() and list(here.iterdir()) == []
    # The command it suggests survives being pasted into a shell.
    assert f"--vault '{tmp_path / 'home' / 'my notes'}'" in result.stdout


def test_init_makes_an_empty_vault_whose_guide_is_not_indexed(tmp_path: Path) -> None:
    target = tmp_path / "fresh"
    assert runner.invoke(app, ["init", str(target)]).exit_code == 0
    assert (target / "Decisions").is_dir() and (target / "Templates").is_dir()
    assert (target / "KRouter guide.md").is_file() and (target / ".krouterignore").is_file()
    assert not list(target.rglob("Primary database.md"))
    status = json.loads(runner.invoke(app, ["status", "--vault", str(target), "--json"]).stdout)
    assert status["pages"] == 0
    # The guide talks about frontmatter and replaced decisions; it must never be the "closest" page.
    result = runner.invoke(app, ["ask", "how do we mark a decision as superseded", "--json"])
    assert result.exit_code == 3 and json.loads(result.stdout)["candidates"] == []


# --- 5. a cold index is built in the background; a first lookup shows progress ----------------------


def _big_vault(root: Path, n: int) -> Path:
    root.mkdir()
    for i in range(n):
        (root / f"p{i}.md").write_text(
            f"# Page {i}\n\nWidget {i} notes: gadget{i * 7}, filler words alpha beta gamma {i % 13}.\n",
            encoding="utf-8",
        )
    (root / "Pager.md").write_text("# Pager\n\nThe pager rotation is weekly, on Mondays.\n", encoding="utf-8")
    return root


def test_recall_context_warms_a_cold_index_in_the_background(tmp_path: Path) -> None:
    vault = _big_vault(tmp_path / "big", 1500)
    prompt = json.dumps({"prompt": "pager rotation weekly"})
    # A bound far shorter than indexing 1,500 pages takes: the hook gives up, but the work goes on.
    first = krouter("recall-context", "--vault", str(vault), "--timeout", "0.1", stdin=prompt)
    assert first.returncode == 0
    assert "<krouter-recall>" not in first.stdout
    assert "indexing the notes" in first.stdout  # said where Claude Code shows it (stdout)
    locks = list(Path(os.environ["KROUTER_CACHE_DIR"], "indexes").glob("*.warming"))
    for _ in range(1200):  # the detached indexer removes its lock when done
        if not any(lock.exists() for lock in locks):
            break
        time.sleep(0.1)
    second = krouter("recall-context", "--vault", str(vault), "--timeout", "60", stdin=prompt)
    assert "Pager.md" in second.stdout, second.stderr
    # The index was built by the background process: the hook only read it.
    assert "indexing the notes" not in second.stdout


def test_first_lookup_on_a_terminal_shows_indexing_progress(tmp_path: Path) -> None:
    vault = _big_vault(tmp_path / "big", 300)
    master, slave = pty.openpty()
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    proc = subprocess.run(
        [sys.executable, "-m", "krouter", "ask", "pager rotation", "--vault", str(vault)],
        stderr=slave,
        stdout=subprocess.PIPE,
        timeout=180,
        env=os.environ.copy(),
    )
    os.close(slave)
    reader.join(timeout=30)
    os.close(master)
    assert proc.returncode == 0
    assert b"indexing the vault (first lookup)" in b"".join(chunks)


# --- 10. folders and files left out of the index ---------------------------------------------------------


def _cited(vault: Path, question: str) -> list[str]:
    result = runner.invoke(app, ["ask", question, "--vault", str(vault), "--json", "-k", "5"])
    return [c["path"] for c in json.loads(result.stdout)["candidates"]]


def test_krouterignore_keeps_folders_and_files_out(notes: Path) -> None:
    (notes / "Templates").mkdir()
    (notes / "Templates" / "Pager template.md").write_text(
        "# Pager template\n\nThe pager rotation is weekly.\n", encoding="utf-8"
    )
    (notes / "Ops" / "Pager.draft.md").write_text(
        "# Pager draft\n\nPager rotation draft.\n", encoding="utf-8"
    )
    assert "Templates/Pager template.md" in _cited(notes, "pager rotation")
    (notes / ".krouterignore").write_text("# comment\nTemplates/\n*.draft.md\n", encoding="utf-8")
    assert _cited(notes, "pager rotation") == ["Ops/Pager.md"]
    report = json.loads(runner.invoke(app, ["check", "--vault", str(notes), "--json"]).stdout)
    assert report["pages"] == 1
    # Taking the rule away brings the pages back at the next lookup.
    (notes / ".krouterignore").unlink()
    assert "Templates/Pager template.md" in _cited(notes, "pager rotation")


def test_ignore_in_config_and_obsidian_templates_folder(notes: Path) -> None:
    for folder in ("Meta/Templates", "Archive"):
        (notes / folder).mkdir(parents=True)
        (notes / folder / "Pager.md").write_text("# Pager\n\nPager rotation, old.\n", encoding="utf-8")
    (notes / ".obsidian").mkdir()
    (notes / ".obsidian" / "templates.json").write_text('{"folder": "Meta/Templates"}', encoding="utf-8")
    config_path().write_text('ignore = ["/archive/"]\n', encoding="utf-8")
    assert _cited(notes, "pager rotation") == ["Ops/Pager.md"]


def test_logseq_s_own_copies_of_pages_are_left_out(tmp_path: Path) -> None:
    """A cold review: Logseq's backup of a page (the old value) was cited over the live page."""
    graph = tmp_path / "graph"
    for rel, text in {
        "pages/Home Network.md": "- Wi-Fi channel is 36\n- router admin password rotated in May\n",
        "logseq/bak/pages/Home Network/2024-04-01T10_00_00.000Z.Desktop.md": "- Wi-Fi channel is 6\n",
        "logseq/version-files/base/pages/Home Network.md": "- Wi-Fi channel is 11\n",
        "logseq/custom.css": "",
    }.items():
        (graph / rel).parent.mkdir(parents=True, exist_ok=True)
        (graph / rel).write_text(text, encoding="utf-8")
    assert _cited(graph, "what wi-fi channel does the home network use") == ["pages/Home Network.md"]


# --- 11. Codex sessions import; unknown formats say so ----------------------------------------------------


def _rollout(path: Path) -> Path:
    ts = "2025-09-01T10:00:0{}.000Z"
    rows = [
        {"timestamp": ts.format(0), "type": "session_meta", "payload": {"id": "0199-abc", "cwd": "/w/app"}},
        {
            "timestamp": ts.format(1),
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [
                    {
                        "type": "input_text",
                        "text": "<environment_context>\n<cwd>/w</cwd>\n</environment_context>",
                    }
                ],
            },
        },
        {
            "timestamp": ts.format(2),
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "Why does the staging deploy fail?"}],
            },
        },
        {
            "timestamp": ts.format(2),
            "type": "event_msg",
            "payload": {"type": "user_message", "message": "Why?"},
        },
        {"timestamp": ts.format(3), "type": "turn_context", "payload": {"cwd": "/w/app", "model": "gpt-5"}},
        {"timestamp": ts.format(4), "type": "response_item", "payload": {"type": "reasoning", "summary": []}},
        {
            "timestamp": ts.format(5),
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "The migration lock is still held on staging."}],
            },
        },
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_codex_rollout_files_import(notes: Path, tmp_path: Path) -> None:
    src = _rollout(
        tmp_path / "sessions" / "2025" / "09" / "01" / "rollout-2025-09-01T10-00-00-0199-abc.jsonl"
    )
    result = runner.invoke(app, ["import", str(tmp_path / "sessions"), "--vault", str(notes), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert len(out["created"]) == 1 and out["unrecognised_files"] == []
    page = (notes / out["created"][0]).read_text(encoding="utf-8")
    assert "Why does the staging deploy fail?" in page and "migration lock" in page
    assert "environment_context" not in page
    assert src.exists()


def test_unknown_transcript_format_is_named_and_fails(notes: Path, tmp_path: Path) -> None:
    src = tmp_path / "chat.jsonl"
    src.write_text(json.dumps({"kind": "note", "body": "hello"}) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["import", str(src), "--vault", str(notes)])
    assert result.exit_code == 1
    assert "chat.jsonl: not a transcript KRouter reads" in result.stderr
    assert "0 created" in result.stdout


# --- 13. CLI conventions --------------------------------------------------------------------------------


def test_short_help_and_readable_usage_lines() -> None:
    result = runner.invoke(app, ["ask", "-h"])
    assert result.exit_code == 0
    assert "Usage: krouter ask [OPTIONS] QUESTION" in result.stdout
    assert "{question}" not in result.stdout and "<str>" not in result.stdout
    assert runner.invoke(app, ["-h"]).exit_code == 0
    assert "--install-completion" in runner.invoke(app, ["--help"]).stdout


@pytest.mark.parametrize(
    "command",
    [
        "ask",
        "index",
        "status",
        "read",
        "init",
        "import",
        "check",
        "learn",
        "mcp",
        "watch",
        "recall-context",
        "setup",
        "config",
    ],
)
def test_every_command_help_names_its_values(command: str) -> None:
    result = runner.invoke(app, [command, "--help"])
    assert result.exit_code == 0, result.output
    usage = next(line for line in result.stdout.splitlines() if line.startswith("Usage:"))
    assert "{" not in usage and "<" not in usage, usage
    # typer's type placeholders (<str>, <int range>, {agent}:<...>) instead of a named value.
    assert not re.search(r"<(str|path|int|float)[a-z ]*>|\{[a-z]+\}", result.stdout), result.stdout


def test_index_json(notes: Path) -> None:
    result = runner.invoke(app, ["index", "--vault", str(notes), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["added"] == 1 and out["vault"] == str(notes.resolve()) and out["problems"] == []


def test_yaml_errors_name_the_file_and_its_own_line(notes: Path) -> None:
    (notes / "Broken.md").write_text("---\ntitle: ok\nstatus: [broken\n---\nbody\n", encoding="utf-8")
    report = json.loads(runner.invoke(app, ["check", "--vault", str(notes), "--json"]).stdout)
    (finding,) = [f for f in report["findings"] if f["kind"] == "yaml"]
    # "status: [broken" is line 3 of the file (line 2 inside the fence, as PyYAML counts).
    assert 'in "Broken.md", line 3, column 9' in finding["message"], finding


# --- 9. check lints links in page bodies --------------------------------------------------------------


def test_check_lints_wikilinks_and_markdown_links_in_bodies(notes: Path) -> None:
    (notes / "Ops" / "Backups.md").write_text(
        "# Backups\n\nSee [[Pager]], [[Ops/Pager#Rota|the rota]], [pager](Pager.md) and [x](../Ops/Pager.md).\n"
        "Broken: [old](Old%20runbook.md), and a page to write: [[Disaster recovery]].\n"
        "Not pages: ![[diagram.png]], [site](https://example.org), [top](#backups), `[[in code]]`.\n"
        "```\n[[in a fence]]\n```\n",
        encoding="utf-8",
    )
    result = runner.invoke(app, ["check", "--vault", str(notes), "--json"])
    assert result.exit_code == 1, result.output
    found = {(f["kind"], f["message"]) for f in json.loads(result.stdout)["findings"]}
    assert found == {
        ("broken_link", "line 4: [old](Old%20runbook.md) names no page"),
        ("unresolved_wikilink", "line 4: [[Disaster recovery]] names no page (not written yet?)"),
    }
    # An unresolved wikilink alone is a notice (Obsidian's way to note a page to write): exit 0.
    page = notes / "Ops" / "Backups.md"
    page.write_text(
        page.read_text(encoding="utf-8").replace("[old](Old%20runbook.md), ", ""), encoding="utf-8"
    )
    assert runner.invoke(app, ["check", "--vault", str(notes)]).exit_code == 0
    # A link to a folder (a code host shows its README) and a Joplin note's own id are no broken links
    # (a bug hunt: both failed the check); a folder that is not there still is.
    page.write_text(
        "# Backups\n\n[Ops](../Ops/), [ops](./), [note](:/4f1c2d) and [gone](../Gone/).\n", encoding="utf-8"
    )
    found = {
        (f["kind"], f["message"])
        for f in json.loads(runner.invoke(app, ["check", "--vault", str(notes), "--json"]).stdout)["findings"]
    }
    assert found == {("broken_link", "line 3: [gone](../Gone/) names no page")}, found


def test_ignore_pattern_rules(tmp_path: Path) -> None:
    from krouter.vault.ignore import ignore_rules

    (tmp_path / ".krouterignore").write_text(
        "# a comment\nTemplates/\n/Archive/2019/\n*.draft.md\n!keep.md\nPrivate notes.md\n", encoding="utf-8"
    )
    rules = ignore_rules(tmp_path)
    assert rules is not None
    cases = {
        ("Templates", True): True,
        ("a/b/templates", True): True,  # a name at any depth, in any letter case
        ("Templates.md", False): False,  # "Templates/" is for folders only
        ("Archive/2019", True): True,
        ("Old/Archive/2019", True): False,  # anchored at the vault root
        ("Ops/Plan.draft.md", False): True,
        ("keep.md", False): False,
        ("x/Private notes.md", False): True,
        ("Ops/Plan.md", False): False,
    }
    for (path, folder), expected in cases.items():
        assert rules.ignored(path, folder) is expected, (path, folder)
    assert ignore_rules(tmp_path / "nothing") is None


def test_config_set_keeps_the_settings_line_in_place_with_its_comment() -> None:
    # A walkthrough: `config set` dropped the comment on the line it rewrote, and moved the line to the top.
    from krouter import config

    config.config_path().write_text(
        'ignore = ["Drafts/"]\nsemantic = "off"  # the model is slow on this laptop\n'
        'learn_model = "claude-#1"   # a hash in a string is no comment\n',
        encoding="utf-8",
    )
    assert runner.invoke(app, ["config", "set", "semantic", "auto"]).exit_code == 0
    assert runner.invoke(app, ["config", "set", "learn_model", "claude-sonnet-4-5"]).exit_code == 0
    assert config.config_path().read_text(encoding="utf-8") == (
        'ignore = ["Drafts/"]\nsemantic = "auto"  # the model is slow on this laptop\n'
        'learn_model = "claude-sonnet-4-5"  # a hash in a string is no comment\n'
    )
