"""The ``krouter`` command: a thin layer over the library. Errors become messages and exit codes.

Exit codes: 0 cited (or success), 3 refused, 2 usage error, 1 any other error.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from krouter import __version__
from krouter.check import check_command
from krouter.cli_options import EXIT_USAGE, Command, VaultOption, exit_codes, fail, terminal_progress
from krouter.config import default_vault, is_demo
from krouter.config_cli import config_app
from krouter.learn_cli import learn_command
from krouter.mcp_server import mcp_command
from krouter.phrasings import MAX_PHRASING_CHARS, MAX_PHRASINGS, BadPhrasings
from krouter.phrasings import check as check_phrasings
from krouter.recall import recall_command
from krouter.router import Router
from krouter.safe_text import clean, visible, visible_text
from krouter.session_import import import_command
from krouter.setup_agents import setup_command
from krouter.teach_cli import teach_command
from krouter.vault_init import init_command
from krouter.watch import watch_command

EXIT_REFUSED = 3

app = typer.Typer(
    name="krouter",
    help="Which page of your Markdown vault holds the answer — or does none? Cites the page, or refuses.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    # Plain help, as other command-line tools print it (no boxes, no `<str>` type column).
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

DEMO_NOTE = "krouter: this is the bundled demo vault: its pages are fictional examples, not your notes"


def _router(vault: Path | None, *, as_json: bool = False) -> Router:
    with exit_codes(as_json=as_json):
        router = Router(vault if vault is not None else default_vault())
    if is_demo(router.root):
        typer.echo(DEMO_NOTE, err=True)
    return router


def _version(value: bool) -> None:
    if value:
        typer.echo(f"krouter {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """KRouter: cite the right page of a Markdown vault, or refuse with a reason."""


@app.command(cls=Command)
def ask(
    question: Annotated[str, typer.Argument(metavar="QUESTION", help="The question, in any language.")],
    vault: VaultOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the receipt as one JSON object.")] = False,
    k: Annotated[
        int, typer.Option("-k", metavar="N", min=1, max=50, help="How many ranked pages to show.")
    ] = 3,
    also: Annotated[
        list[str] | None,
        typer.Option(
            "--also",
            metavar="PHRASING",
            help=f"Another wording of the question, e.g. in the notes' language; repeatable, at most "
            f"{MAX_PHRASINGS} of {MAX_PHRASING_CHARS} characters.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Ask which page answers QUESTION. Exit 0 when a page is cited, 3 when KRouter refuses."""
    question = clean(question)  # undecodable bytes in the argument must not reach the log or stdout
    try:
        phrasings = [clean(p) for p in check_phrasings(also or [])]
    except BadPhrasings as exc:
        raise fail(str(exc), EXIT_USAGE, as_json=as_json) from exc
    router = _router(vault, as_json=as_json)
    try:
        with exit_codes(as_json=as_json):
            progress = terminal_progress("indexing the vault (first lookup)")
            if progress is not None and not router.index.meta().get("n_pages"):
                # A first lookup on a big vault reads every page: show it, rather than seem to hang.
                router.index.refresh(progress)
            receipt = router.ask(question, k=k, also=phrasings)
    finally:
        router.close()
    if as_json:
        typer.echo(json.dumps(receipt.to_dict(), ensure_ascii=False))
    else:
        typer.echo(receipt.to_text())
    if receipt.decision == "refuse":
        raise typer.Exit(EXIT_REFUSED)


@app.command(cls=Command)
def index(
    vault: VaultOption = None,
    rebuild: Annotated[
        bool, typer.Option("--rebuild", help="Drop the index and build it from scratch.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Bring the vault's index up to date (only changed pages are re-read)."""
    router = _router(vault, as_json=as_json)
    bar = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if total < 200:
            return
        if bar is None:
            bar = typer.progressbar(length=total, label="indexing", file=sys.stderr)
            bar.__enter__()
        bar.update(1)

    try:
        with exit_codes(as_json=as_json):
            stats = router.index.rebuild(progress) if rebuild else router.index.refresh(progress)
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
        router.close()
    if as_json:
        report = {
            "vault": str(router.root),
            **{key: getattr(stats, key) for key in ("added", "updated", "deleted", "unchanged")},
            "seconds": round(stats.seconds, 3),
            "problems": [{"path": p.path, "kind": p.kind, "message": p.message} for p in stats.problems],
            "unreadable_folders": stats.unreadable,
        }
        typer.echo(json.dumps(report, ensure_ascii=False))
        return
    typer.echo(
        f"indexed {router.root}: {stats.added} added, {stats.updated} updated, {stats.deleted} deleted, "
        f"{stats.unchanged} unchanged ({stats.seconds:.2f}s)"
    )
    for p in stats.problems:
        typer.echo(visible(f"  problem: {p.path}: {p.message}"), err=True)
    for folder in stats.unreadable:
        typer.echo(
            visible(f"  problem: {folder or '.'}: folder cannot be read; its pages are kept as last indexed"),
            err=True,
        )


@app.command(cls=Command)
def status(
    vault: VaultOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Show the vault's pages, replaced pages, broken pages, and where the index lives."""
    router = _router(vault, as_json=as_json)
    try:
        with exit_codes(as_json=as_json):
            stats = router.refresh()
            report = router.status(stats)
    finally:
        router.close()
    if as_json:
        typer.echo(json.dumps(report, ensure_ascii=False))
        return
    typer.echo(f"vault:    {report['vault']}")
    typer.echo(f"pages:    {report['pages']} ({report['replaced']} replaced)")
    typer.echo(f"index:    {report['index']} ({report['index_bytes']} bytes)")
    for p in report["problems"]:
        typer.echo(visible(f"problem:  {p['path']}: {p['message']}"))
    for folder in report["unreadable_folders"]:
        typer.echo(
            visible(f"problem:  {folder or '.'}: folder cannot be read; its pages are kept as last indexed")
        )
    for r in report["broken_links"]:
        typer.echo(visible(f"link:     {r['from']}: {r['problem']}"))


@app.command(cls=Command)
def read(
    path: Annotated[str, typer.Argument(metavar="PATH", help="Vault-relative path of the page, as cited.")],
    vault: VaultOption = None,
) -> None:
    """Print a page. Paths outside the vault (``..``, absolute, symlinks leaving it) are refused."""
    router = _router(vault)
    try:
        with exit_codes():
            page, text = router.read_page(path)
            note = router.resolve(page).replaced_note()
    finally:
        router.close()
    typer.echo(visible_text(text), nl=False)
    if note:
        # The page is printed as asked, but an agent reading it must not take it as current.
        typer.echo(visible(f"krouter: {note}"), err=True)


# Commands defined in their own modules, registered here so `krouter --help` lists them all.
app.command("init", cls=Command)(init_command)
app.command("import", cls=Command)(import_command)
app.command("check", cls=Command)(check_command)
app.command("learn", cls=Command)(learn_command)
app.command("teach", cls=Command)(teach_command)


# Agent surfaces live in their own modules (heavy imports such as the MCP SDK stay inside them).
app.command("mcp", cls=Command)(mcp_command)
app.command("watch", cls=Command)(watch_command)
app.command("recall-context", cls=Command)(recall_command)
app.command("setup", cls=Command)(setup_command)
app.add_typer(config_app, name="config")


def run() -> None:
    """Entry point: runs the app and maps usage errors to exit code 2."""
    app()
