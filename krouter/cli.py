"""The ``krouter`` command: a thin layer over the library. Errors become messages and exit codes.

Exit codes: 0 cited (or success), 3 refused, 2 usage error, 1 any other error.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Annotated

import typer

from krouter import __version__
from krouter.check import check_command
from krouter.cli_options import EXIT_USAGE, VaultOption, exit_codes, fail
from krouter.config import bundled_vault, default_vault
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
from krouter.watch import watch_command

EXIT_REFUSED = 3

app = typer.Typer(
    name="krouter",
    help="Which page of your Markdown vault holds the answer — or does none? Cites the page, or refuses.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _router(vault: Path | None) -> Router:
    with exit_codes():
        return Router(vault if vault is not None else default_vault())


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


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="The question, in any language.")],
    vault: VaultOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the receipt as one JSON object.")] = False,
    k: Annotated[int, typer.Option("-k", min=1, max=50, help="How many ranked pages to show.")] = 3,
    also: Annotated[
        list[str] | None,
        typer.Option(
            "--also",
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
        raise fail(str(exc), EXIT_USAGE) from exc
    router = _router(vault)
    try:
        with exit_codes():
            receipt = router.ask(question, k=k, also=phrasings)
    finally:
        router.close()
    if as_json:
        typer.echo(json.dumps(receipt.to_dict(), ensure_ascii=False))
    else:
        typer.echo(receipt.to_text())
    if receipt.decision == "refuse":
        raise typer.Exit(EXIT_REFUSED)


@app.command()
def index(
    vault: VaultOption = None,
    rebuild: Annotated[
        bool, typer.Option("--rebuild", help="Drop the index and build it from scratch.")
    ] = False,
) -> None:
    """Bring the vault's index up to date (only changed pages are re-read)."""
    router = _router(vault)
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
        with exit_codes():
            stats = router.index.rebuild(progress) if rebuild else router.index.refresh(progress)
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
        router.close()
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


@app.command()
def status(
    vault: VaultOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Show the vault's pages, replaced pages, broken pages, and where the index lives."""
    router = _router(vault)
    try:
        with exit_codes():
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


@app.command()
def read(
    path: Annotated[str, typer.Argument(help="Vault-relative path of the page, as cited.")],
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


@app.command()
def init(target: Annotated[Path, typer.Argument(help="Folder to create the new vault in.")]) -> None:
    """Start a new vault from the bundled template (refuses to overwrite a non-empty folder)."""
    if target.exists() and not target.is_dir():
        raise fail(f"{target} exists and is not a folder; choose a new folder", EXIT_USAGE)
    if target.exists() and any(target.iterdir()):
        raise fail(f"{target} exists and is not empty; choose a new folder", EXIT_USAGE)
    source = bundled_vault()
    if not source.is_dir():
        raise fail(f"the bundled vault template is missing from this install ({source})")
    shutil.copytree(source, target, dirs_exist_ok=True)
    typer.echo(
        f'created vault {target} from the template; try: krouter ask "which database do we use" --vault {target}'
    )


# Commands defined in their own modules, registered here so `krouter --help` lists them all.
app.command("import")(import_command)
app.command("check")(check_command)
app.command("learn")(learn_command)
app.command("teach")(teach_command)


# Agent surfaces live in their own modules (heavy imports such as the MCP SDK stay inside them).
app.command("mcp")(mcp_command)
app.command("watch")(watch_command)
app.command("recall-context")(recall_command)
app.command("setup")(setup_command)


def run() -> None:
    """Entry point: runs the app and maps usage errors to exit code 2."""
    app()
