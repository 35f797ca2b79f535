"""``krouter setup AGENT --uninstall``: take out of a project what ``setup --write`` put in for an agent.

KRouter's block leaves CLAUDE.md / AGENTS.md (every other byte kept; a file left empty goes), the
``krouter`` server leaves the project's MCP config (a config naming nothing else goes), and KRouter's
own files (the Claude Code skill, the Cursor rule) are deleted. As with ``--write``, every change is
worked out before any is made: a file that cannot be edited safely stops the command with nothing
changed. What setup only printed (Codex's global config, the recall hook) is named for the user to
remove, since KRouter never wrote it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from krouter import config
from krouter.agents import project_files
from krouter.agents.setup import WRITTEN_RECORD, Agent, plan
from krouter.atomic import atomic_write


class _Removal(NamedTuple):
    """One file of the plan: its path as setup names it, and its text once KRouter's part is out."""

    label: str
    path: Path
    new: str


def uninstall(agent: Agent, project: Path, echo: Callable[[str], None] = lambda line: None) -> list[str]:
    """Remove KRouter's part for ``agent`` from ``project``; returns one line per item saying what
    happened, each also given to ``echo`` as it happens. Raises ProjectFileError (nothing changed)
    when a file cannot be edited safely."""
    items: list[_Removal | str] = []
    clean: list[Path] = []  # files that hold nothing of KRouter's (any more): the record forgets them
    for kind, rel, _content in plan(agent, None):
        if kind == "print":
            items.append(_printed_note(rel))
            continue
        path = project / rel
        old = project_files.read(path)
        if old is None:
            items.append(f"not there: {rel}")
            continue
        if kind == "block":
            new = project_files.without_block(path, old)
        elif kind == "mcp-json":
            new = project_files.without_mcp_entry(path, old)
        else:
            new = ""
        if new is None:
            items.append(f"nothing of KRouter's in {rel}")
            clean.append(path.absolute())
            continue
        if _kept(path, new):
            project_files.check_writable(path)
        items.append(_Removal(rel, path, new))
    report: list[str] = []
    try:
        for item in items:
            if isinstance(item, str):
                line = item
            elif _kept(item.path, item.new):
                project_files.write(item.path, item.new)
                line = f"updated: {item.label} (KRouter's part removed)"
                clean.append(item.path.absolute())
            else:
                item.path.unlink()
                _remove_empty_folders(item.path.parent, project)
                line = f"removed: {item.label}"
                clean.append(item.path.absolute())
            report.append(line)
            echo(line)
    finally:
        forget_written(clean)
    return report


def _kept(path: Path, new: str) -> bool:
    """Whether a file is written back rather than deleted: it holds more than KRouter's part, or it is
    a link, whose file may be another agent's too (CLAUDE.md linked to AGENTS.md)."""
    return bool(new.strip()) or path.is_symlink()


def _printed_note(label: str) -> str:
    """What the user may have copied by hand from setup's printed part, to remove the same way."""
    if "codex" in label:
        return "not written by KRouter: remove [mcp_servers.krouter] from ~/.codex/config.toml by hand"
    return "not written by KRouter: if you added the recall hook to .claude/settings.json, remove it by hand"


def _remove_empty_folders(folder: Path, project: Path) -> None:
    """Remove the folders setup made for KRouter's file (``.claude/skills/krouter``) that are empty now,
    up to the project; a folder holding anything stays."""
    while folder != project and project in folder.parents and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def forget_written(paths: list[Path]) -> None:
    """Drop paths from the record of files ``setup --write`` wrote; best effort, as writing it is."""
    record = config.state_dir() / WRITTEN_RECORD
    gone = {str(p) for p in paths}
    try:
        if not gone or not record.exists():
            return
        lines = record.read_text(encoding="utf-8").splitlines()
        kept = [line for line in lines if line not in gone]
        if len(kept) < len(lines):
            atomic_write(record, "".join(f"{p}\n" for p in kept), mode=0o600)
    except (OSError, UnicodeError) as exc:
        os.write(2, f"krouter: could not update {record}: {exc}\n".encode())


def recorded_projects() -> list[tuple[Agent, Path]]:
    """(agent, project) for every file the record says ``setup --write`` wrote and that is still there,
    told by where the file sits (``CLAUDE.md``: Claude Code, ``.cursor/mcp.json``: Cursor), in order."""
    record = config.state_dir() / WRITTEN_RECORD
    try:
        lines = record.read_text(encoding="utf-8").splitlines() if record.exists() else []
    except (OSError, UnicodeError):
        return []
    found: dict[tuple[Agent, Path], None] = {}
    for line in lines:
        for agent in Agent:
            for kind, rel, _ in plan(agent, None):
                if kind != "print" and line.endswith("/" + rel):
                    project = Path(line[: -len(rel) - 1])
                    if project.is_dir() and Path(line).exists():
                        found[(agent, project)] = None
    return list(found)


def uninstall_recorded(echo: Callable[[str], None]) -> int:
    """``setup --uninstall`` in every project the record names (what ``install.sh --uninstall`` runs
    before removing the venv those configs start); returns how many projects could not be cleaned
    (each named, with why, for the user to finish by hand)."""
    failed = 0
    for agent, project in recorded_projects():
        try:
            uninstall(agent, project, echo=lambda line, p=project: echo(f"{p}: {line}"))
        except (ValueError, OSError) as exc:
            failed += 1
            echo(f"{project}: left as it is ({agent}): {exc}")
    return failed


if __name__ == "__main__":
    import sys

    sys.exit(1 if uninstall_recorded(print) else 0)
