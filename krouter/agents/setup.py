"""``krouter setup claude-code|codex|cursor``: tell an agent about KRouter.

Prints (default) or installs (``--write``, into the current project) the instruction snippet for the
agent and the MCP server configuration. Installing is idempotent and never loses the user's content:
the snippet sits between marker comments that a re-run replaces, and MCP config JSON is merged so other
servers stay. Files that KRouter writes for the user's home (Codex's ``~/.codex/config.toml``) are only
printed: a project command should not edit global config.

The snippets ship inside the package (``krouter/agents/snippets``), so an installed KRouter has them;
``docs/agents/`` holds the same files for people reading the repository (a test keeps them in sync).
"""

from __future__ import annotations

import enum
import json
import os
import shlex
import sys
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, NamedTuple

import typer

from krouter import config
from krouter.agents import project_files
from krouter.agents.command_line import server_command, shell_words
from krouter.cli_options import EXIT_USAGE, exit_codes, fail, terminal_progress, vault_name
from krouter.os_errors import os_error_message
from krouter.vault.files import check_vault

DOC_FILES = ("CLAUDE.md", "AGENTS.md", "krouter.mdc", "SKILL.md")
# Every file ``setup --write`` wrote, one absolute path a line, in the state dir: ``install.sh
# --uninstall`` lists them, since they name a krouter command that uninstalling removes.
WRITTEN_RECORD = "agent_configs.txt"


class Agent(enum.StrEnum):
    """The agents ``krouter setup`` knows."""

    claude_code = "claude-code"
    codex = "codex"
    cursor = "cursor"


def agent_doc(name: str) -> str:
    """The text of a bundled agent snippet (``CLAUDE.md``, ``AGENTS.md``, ``krouter.mdc``, ``SKILL.md``)."""
    return resources.files("krouter.agents").joinpath("snippets", name).read_text(encoding="utf-8")


def server_args(vault: Path | None) -> list[str]:
    """Arguments for ``krouter mcp``; without a vault the server uses $KROUTER_VAULT / config.toml."""
    return ["mcp", "--vault", str(vault)] if vault is not None else ["mcp"]


def mcp_entry(vault: Path | None, *, stdio_type: bool = False) -> dict[str, Any]:
    """The ``mcpServers.krouter`` entry for a JSON MCP config."""
    program, *prefix = server_command()
    entry: dict[str, Any] = {"command": program, "args": [*prefix, *server_args(vault)]}
    if stdio_type:
        entry = {"type": "stdio", **entry}
    return entry


def codex_toml(vault: Path | None) -> str:
    """The ``[mcp_servers.krouter]`` block for ``~/.codex/config.toml``."""
    program, *prefix = server_command()
    # JSON string escapes are valid TOML basic-string escapes.
    args = ", ".join(json.dumps(a) for a in [*prefix, *server_args(vault)])
    return f"[mcp_servers.krouter]\ncommand = {json.dumps(program)}\nargs = [{args}]\n"


def claude_hook(vault: Path | None) -> dict[str, Any]:
    """The optional proactive-recall hook for ``.claude/settings.json`` (a shell command line)."""
    words = [*server_command(), "recall-context", *(["--vault", str(vault)] if vault else [])]
    return {
        "hooks": {
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": shlex.join(words), "timeout": 10}]}
            ]
        }
    }


def upsert_block(path: Path, snippet: str) -> str:
    """Put ``snippet`` between KRouter's markers in ``path``: replace an earlier block, or append one.

    Everything outside the markers is kept byte for byte. Returns "created", "updated" or "unchanged".
    """
    return _apply(path, lambda old: project_files.with_block(path, old, snippet))


def merge_mcp_json(path: Path, entry: dict[str, Any]) -> str:
    """Set ``mcpServers.krouter`` in a JSON MCP config, keeping every other key and server.

    Raises ValueError when the file exists but is not a JSON object KRouter can write back as it was
    (it is left untouched). Returns "created", "updated" or "unchanged".
    """
    return _apply(path, lambda old: project_files.with_mcp_entry(path, old, entry))


def _apply(path: Path, edit: Callable[[str | None], str | None]) -> str:
    old = project_files.read(path)
    new = edit(old)
    if new is None or new == old:
        return "unchanged"
    project_files.check_writable(path)
    project_files.write(path, new)
    return "created" if old is None else "updated"


# How the vault note starts, and how it names the command a venv install's shell runs: written here,
# read back by ``is_vault_note`` and ``noted_command``.
_NOTE_START = "\n**This project's vault:**"
_RUN_AS = "run it as "


def vault_note(vault: Path | None) -> str:
    """The paragraph that tells an agent which vault this project uses (shell commands need it too:
    without --vault they use the user's default vault, which may be another one)."""
    if vault is None:
        return ""
    flag = shlex.join(["--vault", str(vault)])
    words = shell_words()
    # KRouter installed in a venv is on no PATH: the shell commands must name it as the MCP config does.
    run = (
        ""
        if words == ["krouter"]
        else f" `krouter` is not on the shell's PATH: {_RUN_AS}`{shlex.join(words)}`."
    )
    return (
        f"{_NOTE_START} `{vault}`. The `krouter` MCP server uses it; in a shell, add "
        f"`{flag}` to every `krouter` command.{run}\n"
    )


def is_vault_note(text: str) -> bool:
    """Whether ``text`` is a paragraph ``vault_note`` writes (what follows KRouter's snippet in its own
    files), for ``setup --uninstall`` to tell KRouter's file from one the user edited."""
    return text.startswith(_NOTE_START) and text.endswith("\n") and text.count("\n") == 2


def noted_command(text: str) -> str:
    """The program of the krouter command the ``vault_note`` in ``text`` tells the agent's shell to run:
    the one named after "run it as", else the bare ``krouter`` the PATH finds."""
    at = text.find(_NOTE_START)
    named = text.find(_RUN_AS + "`", at) if at != -1 else -1
    if named == -1:
        return "krouter"
    start = named + len(_RUN_AS) + 1
    end = text.find("`", start)
    words = shlex.split(text[start:end]) if end != -1 else []
    return words[0] if words else "krouter"


def plan(agent: Agent, vault: Path | None) -> list[tuple[str, str, str]]:
    """What setup installs for an agent: (kind, project-relative path or label, content).

    kind is "block" (snippet between markers), "file" (whole file), "mcp-json" (merged JSON) or
    "print" (shown only, never written). Every snippet ends by naming the vault.
    """

    def doc(name: str) -> str:
        return agent_doc(name).rstrip("\n") + "\n" + vault_note(vault)

    if agent is Agent.claude_code:
        return [
            ("block", "CLAUDE.md", doc("CLAUDE.md")),
            ("file", ".claude/skills/krouter/SKILL.md", doc("SKILL.md")),
            ("mcp-json", ".mcp.json", json.dumps(mcp_entry(vault, stdio_type=True))),
            (
                "print",
                "optional: proactive recall hook, merge into .claude/settings.json",
                json.dumps(claude_hook(vault), indent=2),
            ),
        ]
    if agent is Agent.codex:
        return [
            ("block", "AGENTS.md", doc("AGENTS.md")),
            ("print", "add to ~/.codex/config.toml", codex_toml(vault)),
        ]
    return [
        ("file", ".cursor/rules/krouter.mdc", doc("krouter.mdc")),
        ("mcp-json", ".cursor/mcp.json", json.dumps(mcp_entry(vault))),
    ]


def remember_written(paths: list[Path]) -> None:
    """Add paths to the record of files ``setup --write`` wrote (see WRITTEN_RECORD); best effort."""
    record = config.state_dir() / WRITTEN_RECORD
    try:
        known = set(record.read_text(encoding="utf-8").splitlines()) if record.exists() else set()
        new = [str(p) for p in dict.fromkeys(paths) if str(p) not in known]
        if not new:
            return
        config.private_dir(record.parent)
        fd = os.open(record, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, "".join(f"{p}\n" for p in new).encode("utf-8"))
        finally:
            os.close(fd)
    except (OSError, UnicodeError) as exc:
        print(f"krouter: could not note {len(paths)} written file(s) in {record}: {exc}", file=sys.stderr)


class _Edit(NamedTuple):
    """One item of the plan: what the report calls it, and, for a file, its text before and after."""

    label: str
    path: Path | None = None
    old: str | None = None
    new: str | None = None
    whole: bool = False


def install(
    agent: Agent, vault: Path | None, project: Path, echo: Callable[[str], None] = lambda line: None
) -> list[str]:
    """Write the plan into ``project``; returns one line per item saying what happened, each also given
    to ``echo`` as it happens. Every file's new text is worked out first: a file that cannot be edited
    safely (ProjectFileError) stops the command before any is written."""
    edits: list[_Edit] = []
    for kind, rel, content in plan(agent, vault):
        if kind == "print":
            edits.append(_Edit(f"not written ({rel}):\n{content.rstrip()}"))
            continue
        path = project / rel
        old = project_files.read(path)
        if kind == "block":
            new = project_files.with_block(path, old, content)
        elif kind == "mcp-json":
            new = project_files.with_mcp_entry(path, old, json.loads(content))
        else:
            new = content
        if new is not None and new != old:
            project_files.check_writable(path)
        edits.append(_Edit(rel, path, old, new, whole=kind == "file"))
    report = []
    try:
        for e in edits:
            if e.path is None:
                line = e.label
            elif e.new is None or e.new == e.old:
                line = f"unchanged: {e.label}"
            else:
                project_files.write(e.path, e.new)
                line = f"{'created' if e.old is None else 'updated'}: {e.label}"
                if e.whole and e.old is not None:
                    # KRouter's own file, but one the user may have edited: said, not done silently.
                    line += " (it differed from this KRouter's: replaced whole)"
            report.append(line)
            echo(line)
    finally:
        remember_written([e.path.absolute() for e in edits if e.path is not None])
    return report


def render_plan(agent: Agent, vault: Path | None) -> str:
    """Everything setup would install, for a person to copy by hand."""
    out = []
    for kind, rel, content in plan(agent, vault):
        if kind == "mcp-json":
            content = json.dumps({"mcpServers": {"krouter": json.loads(content)}}, indent=2)
            title = f"{rel} (merged into it with --write, or the file created)"
        elif kind == "block":
            title = f"{rel} (appended between marker comments with --write)"
        elif kind == "file":
            title = f"{rel} (written with --write)"
        else:
            title = rel
        out.append(f"# ---- {title}\n{content.rstrip()}\n")
    return "\n".join(out)


def setup_command(
    agent: Annotated[
        Agent, typer.Argument(metavar="AGENT", help="Which agent to set up: claude-code, codex or cursor.")
    ],
    vault: Annotated[
        Path | None,
        typer.Option(
            "--vault",
            metavar="DIR",
            callback=vault_name,
            help="Vault the agent should use. Default: $KROUTER_VAULT, then 'vault' in config.toml; "
            "the config names it explicitly.",
            show_default=False,
        ),
    ] = None,
    write: Annotated[
        bool, typer.Option("--write", help="Install into the current project instead of printing.")
    ] = False,
    project: Annotated[
        Path | None,
        typer.Option(
            "--project",
            metavar="DIR",
            help="Project folder to install into or remove from (with --write or --uninstall; default: "
            "the current folder).",
            show_default=False,
        ),
    ] = None,
    uninstall: Annotated[
        bool,
        typer.Option(
            "--uninstall",
            help="Remove what --write installed for the agent from the project (KRouter's block, its MCP "
            "server entry, its own files); everything else is kept.",
        ),
    ] = False,
) -> None:
    """Print (or, with --write, install) KRouter's agent instructions and MCP config for an agent
    (Codex's MCP config lives in ~/.codex/config.toml: --write prints it for you to add).

    The config names the vault explicitly (an agent's environment may lack $KROUTER_VAULT), and
    --write also builds the vault's index, so the agent's first lookup does not wait for it.
    --uninstall takes KRouter's part out of the project again."""
    from krouter.config import default_vault, is_demo

    if uninstall:
        _uninstall(agent, project, write)
        return
    with exit_codes():
        # Never the demo vault by default: an agent would cite its fictional pages as the user's notes.
        vault = (vault if vault is not None else default_vault()).expanduser().resolve()
    if not vault.is_dir():
        typer.echo(f"krouter: vault folder not found: {vault}", err=True)
        raise typer.Exit(2)
    with exit_codes():
        # A path that is not UTF-8 would be printed into a Codex TOML block no TOML reader accepts.
        check_vault(vault)
    if is_demo(vault):
        typer.echo("krouter: note: this is the bundled demo vault (fictional example pages)", err=True)
    if not write:
        if project is not None:
            # Printed and exit 0, a --project without --write read as installed (a cold review).
            raise fail(
                "--project says where --write installs: add --write, or leave --project out", EXIT_USAGE
            )
        typer.echo(render_plan(agent, vault), nl=False)
        return
    project = project if project is not None else Path(".")
    # A misspelt --project must not become a new folder holding the agent's files.
    if project.exists() and not project.is_dir():
        raise fail(f"project folder {project} is a file, not a folder", EXIT_USAGE)
    if not project.is_dir():
        raise fail(f"project folder not found: {project}", EXIT_USAGE)
    with exit_codes():
        # Indexing the vault, the last step, reads the settings: a broken config.toml stops the
        # command before it writes anything, not after the agent's files are in place.
        config.load_config()
    try:
        install(agent, vault, project.resolve(), echo=typer.echo)
    except ValueError as exc:
        raise fail(str(exc)) from exc
    except OSError as exc:
        raise fail(os_error_message(exc, project.resolve())) from exc
    with exit_codes():
        typer.echo(warm_index(vault))


def _uninstall(agent: Agent, project: Path | None, write: bool) -> None:
    """``setup AGENT --uninstall``: KRouter's part out of the project; no vault is needed."""
    from krouter.agents.removal import uninstall

    if write:
        raise fail("--write installs and --uninstall removes: give one of them", EXIT_USAGE)
    project = project if project is not None else Path(".")
    if not project.is_dir():
        what = "is a file, not a folder" if project.exists() else "not found"
        raise fail(f"project folder {project} {what}", EXIT_USAGE)
    try:
        uninstall(agent, project.resolve(), echo=typer.echo)
    except ValueError as exc:
        raise fail(str(exc)) from exc
    except OSError as exc:
        raise fail(os_error_message(exc, project.resolve())) from exc


def warm_index(vault: Path) -> str:
    """Build or refresh ``vault``'s index now, with a progress bar on a terminal; returns a summary."""
    from krouter.routing.router import Router

    with Router(vault, auto_refresh=False) as router:
        stats = router.index.refresh(terminal_progress("indexing"))
        return (
            f"indexed {router.root}: {router.index.meta().get('n_pages', 0)} page(s) ({stats.seconds:.1f}s)"
        )
