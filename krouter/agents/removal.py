"""``krouter setup AGENT --uninstall``: take out of a project what ``setup --write`` put in for an agent.

KRouter's block leaves CLAUDE.md / AGENTS.md (every other byte kept; a file left empty goes), the
``krouter`` server leaves the project's MCP config (a config naming nothing else goes), and KRouter's
own files (the Claude Code skill, the Cursor rule) are deleted unless the user edited them. As with
``--write``, every change is worked out and checked before any is made (a read-only file, a folder that
is a link or cannot be written): a file that cannot be edited safely stops the command with nothing
changed. The MCP config, which starts krouter, goes first. What setup only printed (Codex's global
config, the recall hook) is named for the user to remove, since KRouter never wrote it.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from krouter import config
from krouter.agents import project_files
from krouter.agents.project_files import ProjectFileError
from krouter.agents.setup import WRITTEN_RECORD, Agent, agent_doc, is_vault_note, noted_command, plan
from krouter.atomic import atomic_write

# The order changes are made in: what starts krouter first, so that a failure part-way (a disk error)
# leaves no agent starting a krouter that is about to go.
_ORDER = {"mcp-json": 0, "block": 1, "file": 2}


class _Removal(NamedTuple):
    """One file of the plan: its path as setup names it, and its text once KRouter's part is out."""

    label: str
    path: Path
    new: str


def uninstall(
    agent: Agent,
    project: Path,
    echo: Callable[[str], None] = lambda line: None,
    *,
    venv: Path | None = None,
) -> list[str]:
    """Remove KRouter's part for ``agent`` from ``project``; returns one line per item saying what
    happened, each also given to ``echo`` as it happens. Raises ProjectFileError (nothing changed)
    when a file cannot be edited safely. With ``venv``, a project whose MCP config starts a krouter
    from elsewhere (another install) is left as it is, and said so."""
    items: list[tuple[int, _Removal | str]] = []
    clean: list[Path] = []  # files that hold nothing of KRouter's (any more): the record forgets them
    for kind, rel, _content in plan(agent, None):
        if kind == "print":
            items.append((3, _printed_note(rel)))
            continue
        path = project / rel
        old = project_files.read(path)
        if old is None:
            items.append((3, f"not there: {rel}"))
            continue
        if venv is not None and (other := _started_elsewhere(kind, old, venv)):
            line = f"left as it is: {rel} starts another install's krouter ({other})"
            echo(line)
            return [line]
        if kind == "block":
            new = project_files.without_block(path, old)
        elif kind == "mcp-json":
            new = project_files.without_mcp_entry(path, old)
        elif _own_file(rel, old):
            new = ""
        else:
            # The user's own lines in KRouter's skill or rule: kept, as everything outside its part is.
            why = "it differs from this KRouter's: edited by hand, or another version's"
            items.append((3, f"left: {rel} ({why}); delete it yourself"))
            continue
        if new is None:
            items.append((3, f"nothing of KRouter's in {rel}"))
            clean.append(path.absolute())
            continue
        _check(path, new, project, own=kind == "file")
        items.append((_ORDER[kind], _Removal(rel, path, new)))
    report: list[str] = []
    try:
        for _, item in sorted(items, key=lambda pair: pair[0]):
            if isinstance(item, str):
                line = item
            elif _kept(item.path, item.new):
                project_files.write(item.path, item.new)
                line = f"updated: {item.label} (KRouter's part removed)"
                clean.append(item.path.absolute())
            else:
                item.path.unlink()
                clean.append(item.path.absolute())
                _remove_empty_folders(item.path.parent, project)
                line = f"removed: {item.label}"
            report.append(line)
            echo(line)
    finally:
        forget_written(clean)
    return report


def _kept(path: Path, new: str) -> bool:
    """Whether a file is written back rather than deleted: it holds more than KRouter's part, or it is
    a link, whose file may be another agent's too (CLAUDE.md linked to AGENTS.md)."""
    return bool(new.strip()) or path.is_symlink()


def _check(path: Path, new: str, project: Path, own: bool) -> None:
    """Refuse, before anything changes, what could not be done safely: a read-only or hard-linked file
    (as --write refuses it), a file written back into a folder that cannot be written, a file to delete
    in such a folder, and KRouter's ``own`` file reached through a link or a linked folder (its files
    are someone else's: a dotfiles checkout)."""
    project_files.check_writable(path)
    if _kept(path, new):
        if own:
            # KRouter's own file linked from elsewhere (a dotfiles checkout): emptying it would empty theirs.
            raise ProjectFileError(f"{path} is a link; remove KRouter's file by hand")
        # An atomic write makes its temp file beside the file the link points to.
        if not os.access(project_files.target(path).parent, os.W_OK | os.X_OK):
            raise ProjectFileError(
                f"{path}: the folder it is written in cannot be written; nothing was changed"
            )
        return
    folder = path.parent
    while folder != project and project in folder.parents:
        if folder.is_symlink():
            raise ProjectFileError(f"{path}: its folder {folder} is a link; remove KRouter's file by hand")
        folder = folder.parent
    if not os.access(path.parent, os.W_OK | os.X_OK):
        raise ProjectFileError(f"{path}: its folder cannot be written; nothing was changed")


def _own_file(rel: str, text: str) -> bool:
    """Whether KRouter's own skill or rule file is as setup writes it: its snippet, then at most the
    paragraph naming the vault."""
    doc = agent_doc(Path(rel).name).rstrip("\n") + "\n"
    return text.startswith(doc) and (text == doc or is_vault_note(text[len(doc) :]))


def _started_elsewhere(kind: str, old: str, venv: Path) -> str | None:
    """The krouter command a project file starts when it is not ``venv``'s: the MCP config's server, or
    the command a Codex block tells the agent's shell to run (a venv's path when krouter was on no PATH,
    else the bare ``krouter`` the PATH finds); None when it is ``venv``'s, or for a file that names none
    (a file that cannot be read as JSON: the removal says why)."""
    if kind == "mcp-json":
        try:
            entry = json.loads(old).get("mcpServers", {}).get("krouter")
        except (ValueError, AttributeError):
            return None
        command = entry.get("command") if isinstance(entry, dict) else None
        if not isinstance(command, str):
            return None
    elif kind == "block":
        command = noted_command(old)
    else:
        return None
    # A bare name is what the PATH finds; the venv's python is a link out of it, ~/.local/bin/krouter one
    # into it.
    found = shutil.which(command) if "/" not in command else command
    if found is None:
        return command
    path = Path(found)
    if path.is_relative_to(venv) or path.resolve().is_relative_to(venv.resolve()):
        return None
    return command


def _printed_note(label: str) -> str:
    """What the user may have copied by hand from setup's printed part, to remove the same way."""
    if "codex" in label:
        return "not written by KRouter: remove [mcp_servers.krouter] from ~/.codex/config.toml by hand"
    return "not written by KRouter: if you added the recall hook to .claude/settings.json, remove it by hand"


def _remove_empty_folders(folder: Path, project: Path) -> None:
    """Remove the folders setup made for KRouter's file (``.claude/skills/krouter``) that are empty now,
    up to the project; a folder holding anything stays, and one that will not go is left (the file is
    gone all the same)."""
    while folder != project and project in folder.parents and not folder.is_symlink():
        try:
            if any(folder.iterdir()):
                return
            folder.rmdir()
        except OSError:
            return
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
    told by where the file sits (``CLAUDE.md``: Claude Code, ``.cursor/mcp.json``: Cursor), in order.
    A recorded file that is gone is dropped from the record."""
    record = config.state_dir() / WRITTEN_RECORD
    try:
        lines = record.read_text(encoding="utf-8").splitlines() if record.exists() else []
    except (OSError, UnicodeError):
        return []
    # Where each agent's files sit in a project: worked out once, not per recorded line.
    files = [(agent, rel) for agent in Agent for kind, rel, _ in plan(agent, None) if kind != "print"]
    found: dict[tuple[Agent, Path], None] = {}
    for line in lines:
        for agent, rel in files:
            project = Path(line[: -len(rel) - 1])
            if line.endswith("/" + rel) and project.is_dir() and Path(line).exists():
                found[(agent, project)] = None
    forget_written([Path(line) for line in lines if not Path(line).exists()])
    return list(found)


def uninstall_recorded(echo: Callable[[str], None], venv: Path) -> int:
    """``setup --uninstall`` in every project the record names, for the krouter of ``venv`` (what
    ``install.sh --uninstall`` runs before removing that venv); returns how many projects could not be
    cleaned (each named, with why, for the user to finish by hand)."""
    failed = 0
    for agent, project in recorded_projects():
        try:
            uninstall(agent, project, echo=lambda line, p=project: echo(f"{p}: {line}"), venv=venv)
        except (ValueError, OSError) as exc:
            failed += 1
            echo(f"{project}: left as it is ({agent}): {exc}")
    return failed


if __name__ == "__main__":
    sys.exit(1 if uninstall_recorded(print, Path(sys.prefix)) else 0)
