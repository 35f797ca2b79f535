"""``krouter setup --write`` and ``krouter config set`` edit files the user owns: every byte outside
KRouter's part kept, nothing written unless everything can be, links and read-only files respected."""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import threading
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from pathlib import Path

import pytest
from typer.testing import CliRunner

from krouter.agents.project_files import BEGIN, END, ProjectFileError
from krouter.agents.setup import merge_mcp_json, upsert_block
from krouter.cli import app
from krouter.config import config_path

runner = CliRunner()


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "Database.md").write_text("# Database\n\nWe use PostgreSQL.\n", encoding="utf-8")
    return root


def _setup(agent: str, vault: Path, project: Path) -> tuple[int, str]:
    result = runner.invoke(app, ["setup", agent, "--vault", str(vault), "--write", "--project", str(project)])
    return result.exit_code, result.output


def test_a_begin_marker_without_its_end_is_refused_not_spliced_over_the_users_text(tmp_path: Path) -> None:
    """A cold review: with the end marker gone, a first run appended a second block and the next
    replaced everything from the old begin marker to the new end, the user's sections between them."""
    path = tmp_path / "AGENTS.md"
    before = f"# Rules\n\n{BEGIN}\nold snippet\n\n## Build instructions\n\nRun make.\n".encode()
    path.write_bytes(before)
    for _ in range(2):
        with pytest.raises(ProjectFileError, match="marker lines do not pair up"):
            upsert_block(path, "new snippet")
    assert path.read_bytes() == before


def test_markers_mentioned_in_a_sentence_are_the_users_text(tmp_path: Path) -> None:
    """A cold review: markers were found anywhere in the text, so a sentence mentioning them got the
    block spliced into its middle."""
    path = tmp_path / "AGENTS.md"
    prose = f"Anything between {BEGIN} and {END} is generated; do not edit it.\n"
    path.write_text(prose, encoding="utf-8")
    assert upsert_block(path, "snippet") == "updated"
    text = path.read_text(encoding="utf-8")
    assert text.startswith(prose) and text.endswith(f"{BEGIN}\nsnippet\n{END}\n")
    assert upsert_block(path, "snippet") == "unchanged"


def test_markers_inside_a_code_block_are_the_users_example(tmp_path: Path) -> None:
    """A bug hunt: an onboarding page showing KRouter's block in a code fence had the example between
    the markers replaced by the snippet, and no block appended."""
    path = tmp_path / "CLAUDE.md"
    example = f"How the block looks:\n\n```\n{BEGIN}\n(our example, keep me)\n{END}\n```\n\nKeep this.\n"
    path.write_text(example, encoding="utf-8")
    assert upsert_block(path, "snippet") == "updated"
    assert path.read_text(encoding="utf-8") == f"{example}\n{BEGIN}\nsnippet\n{END}\n"
    assert upsert_block(path, "snippet") == "unchanged"
    # Inline code at a line's start opens no block (a cold review: every run appended one more block).
    inline = tmp_path / "AGENTS.md"
    inline.write_text("# Project\n\n```make test``` runs the suite.\n", encoding="utf-8")
    for _ in range(3):
        upsert_block(inline, "snippet")
    assert inline.read_text(encoding="utf-8").count(BEGIN) == 1


def test_a_file_with_other_hard_links_is_not_split(tmp_path: Path, vault: Path) -> None:
    """A bug hunt: CLAUDE.md hard-linked to AGENTS.md was replaced by a rename, and the two names became
    two files; nothing is written now, and the reply says why and what to do."""
    project = tmp_path / "proj"
    project.mkdir()
    (project / "AGENTS.md").write_text("# Rules\n", encoding="utf-8")
    (project / "CLAUDE.md").hardlink_to(project / "AGENTS.md")
    code, out = _setup("claude-code", vault, project)
    assert code == 1 and "has 2 hard links" in out and "symbolic link" in out, out
    assert (project / "CLAUDE.md").samefile(project / "AGENTS.md")
    assert (project / "AGENTS.md").read_text(encoding="utf-8") == "# Rules\n"
    assert not (project / ".mcp.json").exists()


def test_an_mcp_config_with_no_final_newline_gets_none(tmp_path: Path) -> None:
    """A bug hunt: one byte outside KRouter's entry, a final newline the file did not have, was added."""
    path = tmp_path / ".mcp.json"
    text = json.dumps({"mcpServers": {"a": {"command": "x"}}}, indent=2)
    path.write_text(text, encoding="utf-8")
    assert merge_mcp_json(path, {"command": "krouter", "args": ["mcp"]}) == "updated"
    written = path.read_text(encoding="utf-8")
    assert not written.endswith("\n") and json.loads(written)["mcpServers"]["krouter"]["args"] == ["mcp"]


def test_nothing_is_written_when_one_of_the_files_cannot_be(tmp_path: Path, vault: Path) -> None:
    """A cold review: CLAUDE.md and SKILL.md were written, then a broken .mcp.json stopped the command,
    which reported neither and did not record them for the uninstaller."""
    project = tmp_path / "proj"
    project.mkdir()
    (project / "CLAUDE.md").write_text("# Rules\n", encoding="utf-8")
    (project / ".mcp.json").write_text('{\n  // a comment\n  "mcpServers": {}\n}\n', encoding="utf-8")
    code, out = _setup("claude-code", vault, project)
    assert code == 1 and "is not valid JSON" in out
    assert (project / "CLAUDE.md").read_text(encoding="utf-8") == "# Rules\n"
    assert not (project / ".claude").exists()


def test_windows_line_endings_are_kept_in_the_users_files(tmp_path: Path, vault: Path) -> None:
    """A cold review: the files were read with newline translation and written back with LF only."""
    project = tmp_path / "proj"
    project.mkdir()
    (project / "CLAUDE.md").write_bytes(b"# Windows notes\r\nline two\r\n")
    assert _setup("claude-code", vault, project)[0] == 0
    data = (project / "CLAUDE.md").read_bytes()
    assert data.startswith(b"# Windows notes\r\nline two\r\n") and BEGIN.encode() in data
    assert data.count(b"\n") == data.count(b"\r\n")
    (project / "CLAUDE.md").write_bytes(data + b"## Later\r\n")
    assert _setup("claude-code", vault, project)[0] == 0  # the block replaced in place, CRLF kept
    assert (project / "CLAUDE.md").read_bytes() == data + b"## Later\r\n"
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_bytes(b"# mine\r\nquery_log = true\r\n")
    assert runner.invoke(app, ["config", "set", "semantic", "off"]).exit_code == 0
    assert config_path().read_bytes() == b'semantic = "off"\r\n# mine\r\nquery_log = true\r\n'


def test_a_file_that_is_a_link_is_edited_where_it_points(tmp_path: Path, vault: Path) -> None:
    """A cold review: the temp file was renamed over the link itself: CLAUDE.md linked to AGENTS.md
    became a file of its own, and AGENTS.md never got the block; config.toml left its dotfiles copy."""
    project = tmp_path / "proj"
    project.mkdir()
    (project / "AGENTS.md").write_text("# Shared rules\n", encoding="utf-8")
    (project / "CLAUDE.md").symlink_to("AGENTS.md")
    assert _setup("claude-code", vault, project)[0] == 0
    assert (project / "CLAUDE.md").is_symlink()
    assert BEGIN in (project / "AGENTS.md").read_text(encoding="utf-8")
    dotfiles = tmp_path / "dotfiles" / "config.toml"
    dotfiles.parent.mkdir()
    dotfiles.write_text("query_log = true\n", encoding="utf-8")
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().symlink_to(dotfiles)
    assert runner.invoke(app, ["config", "set", "semantic", "off"]).exit_code == 0
    assert config_path().is_symlink()
    assert dotfiles.read_text(encoding="utf-8") == 'semantic = "off"\nquery_log = true\n'


def test_a_file_its_owner_made_read_only_is_not_rewritten(tmp_path: Path, vault: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "CLAUDE.md").write_text("# Locked\n", encoding="utf-8")
    (project / "CLAUDE.md").chmod(0o444)
    code, out = _setup("claude-code", vault, project)
    assert code == 1 and "read-only" in out
    assert (project / "CLAUDE.md").read_text(encoding="utf-8") == "# Locked\n"
    assert not (project / ".mcp.json").exists()


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('{"mcpServers": {}, "limit": 1e400}', "byte for byte"),
        ('{"mcpServers": {}, "ratio": NaN}', "NaN"),
        ('{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}', "written twice"),
        ('{"mcpServers": {}, "pi": 3.14159265358979323846264}', "byte for byte"),
        # Laid out by hand: rewritten, its indentation, CRLF and escape would change (a cold review).
        ('{\r\n    "mcpServers": {"other": {"command": "caf\\u00e9", "args": []}}\r\n}\r\n', "byte for byte"),
        ('{"mcpServers": {}, "x": ' + "[" * 100_000 + "]" * 100_000 + "}", "nests too deeply"),
    ],
)
def test_json_that_would_not_come_back_as_written_is_refused(tmp_path: Path, text: str, why: str) -> None:
    """A cold review: round-tripped through Python, 1e400 came back as the bare word Infinity, which
    Node's JSON.parse refuses; long decimals lost digits and a key written twice lost a value."""
    path = tmp_path / "mcp.json"
    path.write_bytes(text.encode("utf-8"))
    with pytest.raises(ProjectFileError, match=why):
        merge_mcp_json(path, {"command": "krouter", "args": ["mcp"]})
    assert path.read_bytes() == text.encode("utf-8")


@pytest.mark.parametrize("indent", [2, 4, "\t", None])
@pytest.mark.parametrize("ascii_only", [False, True])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_an_mcp_config_is_written_back_in_its_own_layout(
    tmp_path: Path, indent: int | str | None, ascii_only: bool, newline: str
) -> None:
    other = {"mcpServers": {"other": {"command": "café", "args": ["--port", "8080"]}}, "z": [1, 2.5]}
    text = (json.dumps(other, indent=indent, ensure_ascii=ascii_only) + "\n").replace("\n", newline)
    path = tmp_path / "mcp.json"
    path.write_bytes(text.encode("utf-8"))
    assert merge_mcp_json(path, {"command": "krouter", "args": ["mcp"]}) == "updated"
    other["mcpServers"]["krouter"] = {"command": "krouter", "args": ["mcp"]}  # type: ignore[index]
    expected = (json.dumps(other, indent=indent, ensure_ascii=ascii_only) + "\n").replace("\n", newline)
    assert path.read_bytes() == expected.encode("utf-8")


def test_keys_the_user_added_to_krouters_entry_are_kept(tmp_path: Path) -> None:
    """A cold review: the whole entry was replaced, dropping an env block the user had added."""
    path = tmp_path / "mcp.json"
    path.write_text(
        json.dumps({"mcpServers": {"krouter": {"command": "old", "env": {"KROUTER_SEMANTIC": "off"}}}}),
        encoding="utf-8",
    )
    assert merge_mcp_json(path, {"command": "krouter", "args": ["mcp"]}) == "updated"
    entry = json.loads(path.read_text(encoding="utf-8"))["mcpServers"]["krouter"]
    assert entry == {"command": "krouter", "env": {"KROUTER_SEMANTIC": "off"}, "args": ["mcp"]}


def _set_at_once(key: str, value: str, barrier: Barrier, out: Queue) -> None:
    """One `krouter config set`: after reading the file it waits for the other to have read it too (or
    for the wait to time out, when a lock keeps the other from reading)."""
    from krouter import config_edit

    parse = config_edit.parse_config

    def then_wait(*args: object) -> object:
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(2)
        return parse(*args)  # type: ignore[arg-type]

    config_edit.parse_config = then_wait  # type: ignore[assignment]
    out.put(runner.invoke(app, ["config", "set", key, value]).exit_code)


def test_two_config_sets_at_once_both_land() -> None:
    """A cold review: each read config.toml, then renamed its own copy over it: one setting was lost in
    8 to 12 of 20 tries while both said it was set."""
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text("# mine\n", encoding="utf-8")
    ctx = multiprocessing.get_context("spawn")
    barrier, out = ctx.Barrier(2), ctx.Queue()
    sets = [("semantic", "off"), ("query_log", "false")]
    procs = [ctx.Process(target=_set_at_once, args=(k, v, barrier, out)) for k, v in sets]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=60)
    assert [out.get(timeout=5) for _ in sets] == [0, 0]
    text = config_path().read_text(encoding="utf-8")
    assert 'semantic = "off"' in text and "query_log = false" in text and "# mine" in text


def test_replacing_krouters_own_file_that_differs_is_said(tmp_path: Path, vault: Path) -> None:
    """A cold review: an edited .cursor/rules/krouter.mdc was replaced whole, reported only as written."""
    project = tmp_path / "proj"
    project.mkdir()
    assert _setup("cursor", vault, project)[0] == 0
    rules = project / ".cursor" / "rules" / "krouter.mdc"
    rules.write_text(rules.read_text(encoding="utf-8") + "\nMy own extra rule.\n", encoding="utf-8")
    code, out = _setup("cursor", vault, project)
    assert code == 0
    assert "updated: .cursor/rules/krouter.mdc (it differed from this KRouter's: replaced whole)" in out
    assert "unchanged: .cursor/mcp.json" in out


def test_an_mcp_config_laid_out_by_hand_that_already_holds_the_entry_is_left_alone(tmp_path: Path) -> None:
    """The diff's cold review: refused for its layout before the entry was compared, so a project whose
    owner added the entry by hand, as told to, could never run setup --write again."""
    text = '{ "mcpServers": { "krouter": { "command": "krouter", "args": ["mcp"] } } }\n'
    path = tmp_path / "mcp.json"
    path.write_bytes(text.encode("utf-8"))
    assert merge_mcp_json(path, {"command": "krouter", "args": ["mcp"]}) == "unchanged"
    assert path.read_bytes() == text.encode("utf-8")
    # A file without mcpServers, in a layout tools write, gets it in that layout.
    other = tmp_path / "other.json"
    other.write_bytes(b'{\n    "editor": "vim"\n}\n')
    assert merge_mcp_json(other, {"command": "krouter", "args": ["mcp"]}) == "updated"
    assert other.read_bytes().startswith(b'{\n    "editor": "vim",\n    "mcpServers": {\n        "krouter"')


def test_a_project_without_write_is_a_usage_error_not_a_silent_print(tmp_path: Path, vault: Path) -> None:
    """A cold review: `setup claude-code --project p` printed the snippets and exited 0, which read as
    installed into p."""
    from krouter.cli import app

    project = tmp_path / "p"
    project.mkdir()
    result = CliRunner().invoke(
        app, ["setup", "claude-code", "--vault", str(vault), "--project", str(project)]
    )
    assert result.exit_code == 2 and "add --write" in result.output
    assert list(project.iterdir()) == []


def test_the_printed_plan_does_not_say_a_file_exists_that_does_not(tmp_path: Path, vault: Path) -> None:
    """A first-hour trial: `krouter setup claude-code` (no --write) said ".mcp.json (merged into the
    existing file with --write)" in a project with no .mcp.json."""
    result = CliRunner().invoke(app, ["setup", "claude-code", "--vault", str(vault)])
    assert result.exit_code == 0, result.output
    assert (
        "existing file" not in result.output
        and ".mcp.json (merged into it with --write, or the file created)" in result.output
    )
