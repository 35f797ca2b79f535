"""The ``krouter`` command: a thin layer over the library. Errors become messages and exit codes.

Exit codes: 0 cited (or success), 3 refused, 2 usage error, 1 any other error.
"""

from __future__ import annotations

import importlib
import json
import shutil
import sys
from pathlib import Path
from typing import Annotated

import typer
import typer.core
import typer.main

from krouter import __version__
from krouter.cli_options import EXIT_USAGE, VaultOption, exit_codes, fail
from krouter.config import bundled_vault, default_vault
from krouter.router import Router

EXIT_REFUSED = 3

# Commands defined in their own modules: (module, function), in the order `krouter --help` lists them.
# A module is imported only when its command runs or help is shown, so `krouter ask` does not pay for
# the importer, the learner, the MCP server or the watcher.
_LAZY_COMMANDS = {
    "import": ("krouter.session_import", "import_command"),
    "check": ("krouter.check", "check_command"),
    "learn": ("krouter.learn_cli", "learn_command"),
    "mcp": ("krouter.mcp_server", "mcp_command"),
    "watch": ("krouter.watch", "watch_command"),
    "recall-context": ("krouter.recall", "recall_command"),
    "setup": ("krouter.setup_agents", "setup_command"),
}


class _LazyGroup(typer.core.TyperGroup):
    """The command group, with the commands of ``_LAZY_COMMANDS`` built when first looked up."""

    def list_commands(self, ctx: typer.Context) -> list[str]:  # type: ignore[override]
        return [*super().list_commands(ctx), *(n for n in _LAZY_COMMANDS if n not in self.commands)]

    def get_command(self, ctx: typer.Context, cmd_name: str) -> typer.core.TyperCommand | None:  # type: ignore[override]
        if cmd_name in _LAZY_COMMANDS and cmd_name not in self.commands:
            module, attr = _LAZY_COMMANDS[cmd_name]
            one = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
            one.command(cmd_name)(getattr(importlib.import_module(module), attr))
            self.add_command(typer.main.get_command(one), cmd_name)
        return super().get_command(ctx, cmd_name)  # type: ignore[return-value]


app = typer.Typer(
    name="krouter",
    help="Which page of your Markdown vault holds the answer — or does none? Cites the page, or refuses.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=_LazyGroup,
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
) -> None:
    """Ask which page answers QUESTION. Exit 0 when a page is cited, 3 when KRouter refuses."""
    router = _router(vault)
    try:
        with exit_codes():
            receipt = router.ask(question, k=k)
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
            # Walk even when a running watcher says the index is fresh: this is how a user makes sure.
            stats = router.index.rebuild(progress) if rebuild else router.index.refresh(progress, force=True)
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
        router.close()
    typer.echo(
        f"indexed {router.root}: {stats.added} added, {stats.updated} updated, {stats.deleted} deleted, "
        f"{stats.unchanged} unchanged ({stats.seconds:.2f}s)"
    )
    for p in stats.problems:
        typer.echo(f"  problem: {p.path}: {p.message}", err=True)
    for folder in stats.unreadable:
        typer.echo(
            f"  problem: {folder or '.'}: folder cannot be read; its pages are kept as last indexed", err=True
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
        typer.echo(f"problem:  {p['path']}: {p['message']}")
    for folder in report["unreadable_folders"]:
        typer.echo(f"problem:  {folder or '.'}: folder cannot be read; its pages are kept as last indexed")
    for r in report["broken_links"]:
        typer.echo(f"link:     {r['from']}: {r['problem']}")


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
    typer.echo(text, nl=False)
    if note:
        # The page is printed as asked, but an agent reading it must not take it as current.
        typer.echo(f"krouter: {note}", err=True)


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


def run() -> None:
    """Entry point: runs the app and maps usage errors to exit code 2."""
    app()
