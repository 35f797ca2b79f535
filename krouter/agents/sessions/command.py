"""``krouter import``: turn conversation transcripts into Markdown pages of the vault.

``transcripts.py`` reads the files, ``pages.py`` writes one page per session; this prints what was done.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from krouter.agents.sessions.pages import DEFAULT_FOLDER, import_sessions, sessions_folder
from krouter.agents.sessions.transcripts import transcript_files
from krouter.cli_options import EXIT_USAGE, USAGE_ERRORS, NamedVaultOption, fail
from krouter.config import vault_to_write
from krouter.errors import KRouterError
from krouter.os_errors import os_error_message


def import_command(
    source: Annotated[
        Path,
        typer.Argument(
            metavar="SOURCE",
            help="A transcript (.jsonl; a pipe such as /dev/stdin too), or a folder: every *.jsonl under it "
            "is imported.",
        ),
    ],
    vault: NamedVaultOption = None,
    folder: Annotated[
        str | None,
        typer.Option(
            "--folder",
            metavar="FOLDER",
            help=f"Vault-relative folder the session pages go in [default: {DEFAULT_FOLDER}, or Sessions in "
            "the first of config.toml's input_folders]. Outside an input folder, sessions are cited as "
            "the vault's own notes (said on stderr).",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Import Claude Code, Codex or {role, content} JSONL transcripts as pages, one per session.

    Re-importing updates the same page, unless it was edited by hand. A file in no known format, or too
    large (a line past 64 MiB), is named and skipped (the others are imported), and makes the command
    exit 1."""
    if not source.exists():
        raise fail(f"no such file or folder: {source}", EXIT_USAGE, as_json=as_json)
    if not transcript_files(source):
        # An empty result would look like a successful import of nothing.
        raise fail(f"no *.jsonl transcript under {source}: nothing to import", as_json=as_json)
    root: Path | None = None
    try:
        root = vault_to_write(vault, "import into")
        folder, warning = sessions_folder(folder)
        if warning:
            typer.echo(f"krouter: warning: {warning}", err=True)
        report = import_sessions([source], root, folder)
    except USAGE_ERRORS as exc:
        raise fail(str(exc), EXIT_USAGE, as_json=as_json) from exc
    except KRouterError as exc:
        raise fail(str(exc), as_json=as_json) from exc
    except OSError as exc:
        raise fail(os_error_message(exc, root), as_json=as_json) from exc
    refused = [
        f"{name}: not a transcript KRouter reads (Claude Code, Codex, or JSONL lines of "
        "{session_id, role, content}); nothing imported from it"
        for name in report.unrecognised
    ] + [why for _, why in report.too_large]
    # A file in no known format, or too large, gave nothing: it is named below, not counted as imported.
    imported = report.files - len(report.unrecognised) - len(report.too_large)
    if as_json:
        out = {
            "files": report.files,
            "imported_files": imported,
            "created": report.created,
            "updated": report.updated,
            "unchanged": report.unchanged,
            "kept": [{"path": rel, "why": why} for rel, why in report.kept],
            "moved": [{"from": old, "to": new} for old, new in report.moved],
            "elsewhere": report.elsewhere,
            "empty_sessions": report.empty,
            "skipped_lines": report.problems,
            "unrecognised_files": report.unrecognised,
            # Paths, as unrecognised_files holds, each with why it was skipped (as "kept" says).
            "too_large_files": [{"path": path, "why": why} for path, why in report.too_large],
        }
        typer.echo(json.dumps(out, ensure_ascii=False))
        for line in refused:
            typer.echo(f"krouter: {line}", err=True)
        if refused:
            raise typer.Exit(1)
        return
    for problem in report.problems:
        typer.echo(f"  skipped: {problem}", err=True)
    for rel in report.created:
        typer.echo(f"created   {rel}")
    for rel in report.updated:
        typer.echo(f"updated   {rel}")
    for rel, why in report.kept:
        typer.echo(f"kept      {rel} ({why})")
    for old, new in report.moved:
        typer.echo(f"moved     {old} -> {new} ({old.rsplit('/', 1)[0]} is in no input folder)")
    of = f" of {report.files}" if imported != report.files else ""
    typer.echo(
        f"imported {imported}{of} file(s): {len(report.created)} created, {len(report.updated)} updated, "
        f"{len(report.unchanged)} unchanged, {len(report.kept)} kept, {len(report.moved)} moved, "
        f"{len(report.empty)} empty session(s) skipped, "
        f"{len(report.problems)} line(s) skipped, {len(report.too_large)} file(s) skipped as too large"
    )
    if report.elsewhere:
        # --folder names where new sessions go; one imported before is not moved out of an input folder.
        typer.echo(
            f"krouter: note: {len(report.elsewhere)} session(s) imported before into another folder stay "
            f"there (not {folder}): {', '.join(report.elsewhere)}",
            err=True,
        )
    for line in refused:
        typer.echo(f"krouter: {line}", err=True)
    if refused:
        raise typer.Exit(1)
