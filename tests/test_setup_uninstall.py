"""``krouter setup AGENT --uninstall`` takes out what ``--write`` put into a project, and nothing else."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from krouter.agents.project_files import BEGIN, END
from krouter.agents.setup import WRITTEN_RECORD
from krouter.cli import app
from krouter.config import state_dir

runner = CliRunner()


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "Database.md").write_text("# Database\n\nWe use PostgreSQL.\n", encoding="utf-8")
    return root


def _setup(project: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["setup", *args, "--project", str(project)])
    return result.exit_code, result.output


def _files(project: Path) -> dict[str, bytes]:
    return {str(p.relative_to(project)): p.read_bytes() for p in sorted(project.rglob("*")) if p.is_file()}


def _folders(project: Path) -> list[str]:
    return [str(p.relative_to(project)) for p in sorted(project.rglob("*")) if p.is_dir()]


def test_uninstall_leaves_the_users_files_as_they_were_before_write(tmp_path: Path, vault: Path) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text('{"model": "opus"}\n', encoding="utf-8")
    # CRLF line endings, no blank line at the end, and another MCP server, 4-space JSON.
    (project / "CLAUDE.md").write_bytes(b"# House rules\r\n\r\nRun make test.\r\n")
    servers = {"mcpServers": {"github": {"command": "gh-mcp", "args": []}}}
    (project / ".mcp.json").write_text(json.dumps(servers, indent=4) + "\n", encoding="utf-8")
    before, folders = _files(project), _folders(project)

    code, out = _setup(project, "claude-code", "--vault", str(vault), "--write")
    assert code == 0, out
    assert BEGIN in (project / "CLAUDE.md").read_text(encoding="utf-8")
    assert (project / ".claude/skills/krouter/SKILL.md").is_file()
    assert "krouter" in json.loads((project / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]

    code, out = _setup(project, "claude-code", "--uninstall")
    assert code == 0, out
    assert _files(project) == before
    assert _folders(project) == folders  # .claude/skills/krouter and .claude/skills made by setup: gone
    assert "removed: .claude/skills/krouter/SKILL.md" in out
    assert "updated: CLAUDE.md (KRouter's part removed)" in out
    assert "recall hook" in out  # what setup only printed is named for the user to remove


def test_uninstall_in_a_project_setup_made_from_nothing_leaves_nothing(tmp_path: Path, vault: Path) -> None:
    for agent in ("claude-code", "cursor", "codex"):
        project = tmp_path / agent
        project.mkdir()
        assert _setup(project, agent, "--vault", str(vault), "--write")[0] == 0
        assert _files(project)
        code, out = _setup(project, agent, "--uninstall")
        assert code == 0, out
        assert list(project.iterdir()) == [], agent
        # Once more: nothing to do, said so, and still exit 0.
        code, out = _setup(project, agent, "--uninstall")
        assert code == 0 and "not there" in out and "removed" not in out, out
    assert "~/.codex/config.toml" in out


def test_an_appended_block_goes_with_the_blank_line_before_it(tmp_path: Path, vault: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    user = "# Agents\n\nUse tabs.\n"
    (project / "AGENTS.md").write_text(user, encoding="utf-8")
    assert _setup(project, "codex", "--vault", str(vault), "--write")[0] == 0
    text = (project / "AGENTS.md").read_text(encoding="utf-8")
    assert text.startswith(user + "\n" + BEGIN)
    # The user writes below KRouter's block afterwards: that stays too.
    (project / "AGENTS.md").write_text(text + "\n## Later\n\nMore rules.\n", encoding="utf-8")
    assert _setup(project, "codex", "--uninstall")[0] == 0
    assert (project / "AGENTS.md").read_text(encoding="utf-8") == user + "\n## Later\n\nMore rules.\n"


def test_a_file_that_cannot_be_edited_safely_stops_it_before_anything_changes(
    tmp_path: Path, vault: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    assert _setup(project, "claude-code", "--vault", str(vault), "--write")[0] == 0
    # The end marker lost by hand: which lines are KRouter's is not known.
    claude = project / "CLAUDE.md"
    claude.write_text(claude.read_text(encoding="utf-8").replace(END, ""), encoding="utf-8")
    before = _files(project)
    code, out = _setup(project, "claude-code", "--uninstall")
    assert code == 1
    assert "marker lines do not pair up" in out and "CLAUDE.md" in out
    assert _files(project) == before


def test_a_config_laid_out_by_hand_is_refused_and_kept(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".cursor").mkdir(parents=True)
    hand = '{ "mcpServers": { "krouter": { "command": "krouter", "args": ["mcp"] } } }\n'
    (project / ".cursor" / "mcp.json").write_text(hand, encoding="utf-8")
    code, out = _setup(project, "cursor", "--uninstall")
    assert code == 1 and "by hand" in out
    assert (project / ".cursor" / "mcp.json").read_text(encoding="utf-8") == hand


def test_the_record_of_written_files_forgets_what_was_removed(tmp_path: Path, vault: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    assert _setup(project, "cursor", "--vault", str(vault), "--write")[0] == 0
    record = state_dir() / WRITTEN_RECORD
    assert str((project / ".cursor/mcp.json").resolve()) in record.read_text(encoding="utf-8")
    assert _setup(project, "cursor", "--uninstall")[0] == 0
    assert ".cursor" not in record.read_text(encoding="utf-8")


def test_uninstall_needs_no_vault_and_refuses_write_and_a_missing_project(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    code, out = _setup(project, "claude-code", "--uninstall")
    assert code == 0, out  # no vault named anywhere: none is needed to remove
    code, out = _setup(project, "claude-code", "--uninstall", "--write")
    assert code == 2 and "give one of them" in out
    code, out = _setup(tmp_path / "nope", "claude-code", "--uninstall")
    assert code == 2 and "not found" in out


def test_a_skill_file_the_user_edited_is_kept(tmp_path: Path, vault: Path) -> None:
    """A cold review: the user's lines in KRouter's skill went with it, said only "removed"."""
    project = tmp_path / "project"
    project.mkdir()
    assert _setup(project, "claude-code", "--vault", str(vault), "--write")[0] == 0
    skill = project / ".claude/skills/krouter/SKILL.md"
    skill.write_text(skill.read_text(encoding="utf-8") + "\n## My own notes\n", encoding="utf-8")
    code, out = _setup(project, "claude-code", "--uninstall")
    assert code == 0, out
    assert "## My own notes" in skill.read_text(encoding="utf-8")
    assert "left: .claude/skills/krouter/SKILL.md" in out
    assert not (project / ".mcp.json").exists()


def test_what_cannot_be_done_safely_is_found_before_anything_changes(tmp_path: Path, vault: Path) -> None:
    """A cold review: with the skill's folder a link (a dotfiles checkout), CLAUDE.md was edited and
    SKILL.md deleted before the folder failed, and .mcp.json still started krouter; a read-only
    CLAUDE.md holding only KRouter's block was deleted where --write refuses it."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "CLAUDE.md").write_text("# Rules\n", encoding="utf-8")
    assert _setup(project, "claude-code", "--vault", str(vault), "--write")[0] == 0
    dotfiles = tmp_path / "dotfiles"
    (project / ".claude/skills/krouter").rename(dotfiles)
    (project / ".claude/skills/krouter").symlink_to(dotfiles, target_is_directory=True)
    before = {**_files(project), **_files(dotfiles)}
    code, out = _setup(project, "claude-code", "--uninstall")
    assert code == 1 and "is a link" in out, out
    assert {**_files(project), **_files(dotfiles)} == before

    other = tmp_path / "other"
    other.mkdir()
    assert _setup(other, "codex", "--vault", str(vault), "--write")[0] == 0
    (other / "AGENTS.md").chmod(0o444)
    code, out = _setup(other, "codex", "--uninstall")
    assert code == 1 and "read-only" in out
    assert BEGIN in (other / "AGENTS.md").read_text(encoding="utf-8")


def test_a_block_after_a_fence_never_closed_is_found(tmp_path: Path, vault: Path) -> None:
    """A cold review: setup appended its block after the user's unclosed code fence, then read the block
    as the user's example: uninstall said "nothing of KRouter's", and each --write appended another."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "CLAUDE.md").write_text("A\n```\ncode\n", encoding="utf-8")
    for _ in range(2):
        assert _setup(project, "claude-code", "--vault", str(vault), "--write")[0] == 0
    assert (project / "CLAUDE.md").read_text(encoding="utf-8").count(BEGIN) == 1
    code, out = _setup(project, "claude-code", "--uninstall")
    assert code == 0 and "updated: CLAUDE.md" in out, out
    assert (project / "CLAUDE.md").read_text(encoding="utf-8") == "A\n```\ncode\n"


def test_a_block_that_opens_the_file_leaves_no_blank_line(tmp_path: Path, vault: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    assert _setup(project, "codex", "--vault", str(vault), "--write")[0] == 0
    agents = project / "AGENTS.md"
    agents.write_text(agents.read_text(encoding="utf-8") + "\n# Mine\n", encoding="utf-8")
    assert _setup(project, "codex", "--uninstall")[0] == 0
    assert agents.read_text(encoding="utf-8") == "# Mine\n"


def test_the_installer_leaves_a_project_another_install_starts(
    tmp_path: Path, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold review: install.sh --uninstall deleted a project's .cursor/mcp.json whose krouter entry
    started another install (pipx); the projects of the venv being removed are cleaned."""
    from krouter.agents.removal import uninstall_recorded

    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    for project in (mine, theirs):
        project.mkdir()
        assert _setup(project, "cursor", "--vault", str(vault), "--write")[0] == 0
    config = theirs / ".cursor/mcp.json"
    data = json.loads(config.read_text(encoding="utf-8"))
    data["mcpServers"]["krouter"]["command"] = "/home/me/.local/pipx/venvs/krouter/bin/krouter"
    config.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    venv = Path(
        json.loads((mine / ".cursor/mcp.json").read_text(encoding="utf-8"))["mcpServers"]["krouter"][
            "command"
        ]
    ).parent.parent
    lines: list[str] = []
    assert uninstall_recorded(lines.append, venv) == 0
    assert not (mine / ".cursor").exists()
    assert config.exists() and "pipx" in config.read_text(encoding="utf-8")
    assert any("another install" in line for line in lines)


def test_a_codex_project_another_install_wrote_is_left(tmp_path: Path, vault: Path) -> None:
    """A second cold review: the installer spared another install's .mcp.json, not its AGENTS.md block,
    which names the krouter the agent's shell runs (here this test's interpreter, no venv of ours)."""
    from krouter.agents.removal import uninstall_recorded

    project = tmp_path / "theirs"
    project.mkdir()
    assert _setup(project, "codex", "--vault", str(vault), "--write")[0] == 0
    agents = project / "AGENTS.md"
    before = agents.read_bytes()
    lines: list[str] = []
    uninstall_recorded(lines.append, tmp_path / "my-venv")
    assert agents.read_bytes() == before
    assert any("AGENTS.md starts another install's krouter" in line for line in lines), lines


def test_a_skill_file_that_is_a_link_is_not_emptied(tmp_path: Path, vault: Path) -> None:
    """A second cold review: a SKILL.md linked into a dotfiles folder was truncated to nothing."""
    project = tmp_path / "project"
    project.mkdir()
    assert _setup(project, "claude-code", "--vault", str(vault), "--write")[0] == 0
    skill = project / ".claude/skills/krouter/SKILL.md"
    dotfile = tmp_path / "dotfiles-SKILL.md"
    skill.rename(dotfile)
    skill.symlink_to(dotfile)
    before = {**_files(project), "dotfile": dotfile.read_bytes()}
    code, out = _setup(project, "claude-code", "--uninstall")
    assert code == 1 and "is a link" in out, out
    assert {**_files(project), "dotfile": dotfile.read_bytes()} == before


def test_the_mcp_config_goes_first(tmp_path: Path, vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What starts krouter is changed before anything else: a failure part-way (a disk error) leaves no
    agent starting a krouter about to be removed."""
    from krouter.agents import project_files
    from krouter.agents.removal import uninstall
    from krouter.agents.setup import Agent

    project = tmp_path / "project"
    project.mkdir()
    (project / "CLAUDE.md").write_text("# Rules\n", encoding="utf-8")
    assert _setup(project, "claude-code", "--vault", str(vault), "--write")[0] == 0

    def disk_full(path: Path, text: str) -> None:
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(project_files, "write", disk_full)
    with pytest.raises(OSError):
        uninstall(Agent.claude_code, project)
    assert not (project / ".mcp.json").exists()
    assert BEGIN in (project / "CLAUDE.md").read_text(encoding="utf-8")


def test_recorded_files_that_are_gone_leave_the_record(tmp_path: Path, vault: Path) -> None:
    from krouter.agents.removal import recorded_projects

    project = tmp_path / "project"
    project.mkdir()
    assert _setup(project, "cursor", "--vault", str(vault), "--write")[0] == 0
    shutil.rmtree(project)
    assert recorded_projects() == []
    record = state_dir() / WRITTEN_RECORD
    assert "project" not in record.read_text(encoding="utf-8")
