"""The ``krouter`` command: a thin layer over the library. Errors become messages and exit codes.

Exit codes: 0 cited (or success), 3 refused, 2 usage error, 1 any other error.
"""

from __future__ import annotations

import importlib
import json
import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer
import typer.core
import typer.main

from krouter import __version__
from krouter.cli_options import (
    EXIT_ERROR,
    EXIT_USAGE,
    Command,
    VaultOption,
    exit_codes,
    fail,
    terminal_progress,
)
from krouter.config import default_vault, is_demo
from krouter.errors import PageNotFound
from krouter.routing import notes_languages
from krouter.routing.phrasings import (
    MAX_PHRASING_CHARS,
    MAX_PHRASINGS,
    MAX_QUESTION_CHARS,
    BadPhrasings,
    BadQuestion,
    check_question,
)
from krouter.routing.phrasings import check as check_phrasings
from krouter.routing.receipt import Receipt
from krouter.routing.router import Router
from krouter.safe_text import clean, visible, visible_text
from krouter.vault.page_lines import line_range
from krouter.vault.suggestions import with_suggestions

EXIT_REFUSED = 3

# Commands defined in their own modules: (module, function), in the order `krouter --help` lists them.
# A module is imported only when its command runs or help is shown, so `krouter ask` does not pay for
# the importer, the learner, the MCP server or the watcher.
_LAZY_COMMANDS = {
    "init": ("krouter.ops.vault_init", "init_command"),
    "import": ("krouter.agents.sessions.command", "import_command"),
    "check": ("krouter.ops.check.command", "check_command"),
    "learn": ("krouter.learner.cli", "learn_command"),
    "teach": ("krouter.learner.cli", "teach_command"),
    "mcp": ("krouter.agents.mcp.command", "mcp_command"),
    "watch": ("krouter.ops.watch", "watch_command"),
    "recall-context": ("krouter.agents.recall", "recall_command"),
    "setup": ("krouter.agents.setup", "setup_command"),
    # A group of its own (``krouter config path|show|get|set|unset``), a Typer app rather than a function.
    "config": ("krouter.ops.config_cli", "config_app"),
}


# -h as well as --help, on every command.
_CONTEXT = {"help_option_names": ["-h", "--help"]}


class _LazyGroup(typer.core.TyperGroup):
    """The command group, with the commands of ``_LAZY_COMMANDS`` built when first looked up."""

    def list_commands(self, ctx: typer.Context) -> list[str]:  # type: ignore[override]
        return [*super().list_commands(ctx), *(n for n in _LAZY_COMMANDS if n not in self.commands)]

    def get_command(self, ctx: typer.Context, cmd_name: str) -> typer.core.TyperCommand | None:  # type: ignore[override]
        if cmd_name in _LAZY_COMMANDS and cmd_name not in self.commands:
            module, attr = _LAZY_COMMANDS[cmd_name]
            target = getattr(importlib.import_module(module), attr)
            if isinstance(target, typer.Typer):
                self.add_command(typer.main.get_group(target), cmd_name)
            else:
                one = typer.Typer(
                    add_completion=False,
                    pretty_exceptions_enable=False,
                    rich_markup_mode=None,
                    context_settings=_CONTEXT,
                )
                one.command(cmd_name, cls=Command)(target)
                self.add_command(typer.main.get_command(one), cmd_name)
        return super().get_command(ctx, cmd_name)  # type: ignore[return-value]


app = typer.Typer(
    name="krouter",
    help="Which page of your Markdown vault holds the answer — or does none? Cites the page, or refuses.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    # Plain help, as other command-line tools print it (no boxes, no `<str>` type column).
    rich_markup_mode=None,
    context_settings=_CONTEXT,
    cls=_LazyGroup,
)

DEMO_NOTE = "krouter: this is the bundled demo vault: its pages are fictional examples, not your notes"


def _router(vault: Path | None, *, as_json: bool = False) -> Router:
    with exit_codes(as_json=as_json, default_vault=vault is None):
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


def ask_output(receipt: Receipt, router: Router, wordings: list[str], as_json: bool) -> str:
    """What ``krouter ask`` prints: the receipt (``--json``: with whether it came from the bundled demo
    vault, whose pages are fictional, as the MCP reply's ``demo_vault`` says) and, on a refusal, the
    languages of the notes none of the wordings is in (``notes_languages``): ``translate_into`` in
    JSON, a last line in text."""
    refused = receipt.decision == "refuse"
    closest = notes_languages.closest_languages(router, receipt) if refused else []
    missing = (
        notes_languages.unasked(router.writings(), wordings, router.unreadable, closest) if refused else []
    )
    if as_json:
        out = {**receipt.to_dict(), "demo_vault": is_demo(router.root)}
        # A clipping (pasted material, not the user's own note) is said so, as the MCP reply says it: an
        # agent-loop run answered from a cited clipping as if the user had written it.
        for c in out["cited"]:  # type: ignore[attr-defined]
            c["clipping"] = router.is_clipping(c["path"])
        if refused:
            out["translate_into"] = notes_languages.as_json(missing)
        return json.dumps(out, ensure_ascii=False)
    text = receipt.to_text()
    if receipt.top is not None and router.is_clipping(receipt.top.path):
        text += "\n  a clipping: pasted material, not your own note"
    if missing:
        text += (
            f"\n  of the notes' pages, {notes_languages.shares_text(missing)}: "
            'ask again with --also "<a translation>"'
        )
    return text


class _AskCommand(Command):
    """``krouter ask``, whose extra arguments (an unquoted question) get a hint to quote the question."""

    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:  # type: ignore[override]
        """Parse as click does, but name the fix when words are left over: the shell split the question."""
        ctx.allow_extra_args = True
        rest = super().parse_args(ctx, args)
        ctx.allow_extra_args = False
        if rest and not ctx.resilient_parsing:
            words = " ".join([str(ctx.params.get("question") or ""), *rest]).strip()
            ctx.fail(
                visible(
                    f"Got unexpected extra argument(s) ({' '.join(rest)}): put the question in quotes, "
                    f"e.g. krouter ask {shlex.quote(words)}"
                )
            )
        return rest


@app.command(cls=_AskCommand)
def ask(
    question: Annotated[
        str,
        typer.Argument(
            metavar="QUESTION",
            help=f"The question, in any language; at most {MAX_QUESTION_CHARS} characters.",
        ),
    ],
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
    """Ask which page answers QUESTION. Exit 0 when a page is cited, 3 when KRouter refuses, 2 when the
    question has nothing to look up (empty, no words, only question and grammar words) or is too long."""
    question = clean(question)  # undecodable bytes in the argument must not reach the log or stdout
    try:
        # Before the vault is opened: a question with nothing to find is the asker's to reword, not a
        # refusal by the vault (which the query log would hand to the nightly learner).
        check_question(question)
        phrasings = [clean(p) for p in check_phrasings(also or [])]
    except (BadQuestion, BadPhrasings) as exc:
        raise fail(str(exc), EXIT_USAGE, as_json=as_json) from exc
    router = _router(vault, as_json=as_json)
    try:
        with exit_codes(as_json=as_json):
            progress = terminal_progress("indexing the vault (first lookup)")
            if progress is not None and not router.index.meta().get("n_pages"):
                # A first lookup on a big vault reads every page: show it, rather than seem to hang.
                router.index.refresh(progress)
            receipt = router.ask(question, k=k, also=phrasings)
            output = ask_output(receipt, router, [question, *phrasings], as_json)
    finally:
        router.close()
    typer.echo(output)
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
            # Walk even when a running watcher says fresh (how a user makes sure); then what the first lookups
            # would wait for: the dictionary, every page's vectors (an embed waits for a server's slice).
            stats = router.index.rebuild(progress) if rebuild else router.index.refresh(progress, force=True)
            router.warm(wait=True)
            embedded = router.embed() or 0
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
        router.close()
    if as_json:
        report = {
            "vault": str(router.root),
            **{key: getattr(stats, key) for key in ("added", "updated", "deleted", "unchanged")},
            "seconds": round(stats.seconds, 3),
            "embedded": embedded,
            "problems": [{"path": p.path, "kind": p.kind, "message": p.message} for p in stats.problems],
            "unreadable_folders": stats.unreadable,
        }
        typer.echo(json.dumps(report, ensure_ascii=False))
        return
    typer.echo(
        f"indexed {router.root}: {stats.added} added, {stats.updated} updated, {stats.deleted} deleted, "
        f"{stats.unchanged} unchanged ({stats.seconds:.2f}s)"
        + (f"; {embedded} embedded for the semantic second opinion" if embedded else "")
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
            # Agents' teachings wait for the owner unseen otherwise (an agent-loop run held twelve).
            from krouter.learner import pending

            report["pending"] = pending.waiting(router.root)
    finally:
        router.close()
    if as_json:
        typer.echo(json.dumps(report, ensure_ascii=False))
        return
    typer.echo(f"vault:    {report['vault']}")
    typer.echo(f"pages:    {report['pages']} ({report['replaced']} replaced)")
    typer.echo(f"index:    {report['index']} ({report['index_bytes']} bytes)")
    sem = report["semantic"]
    if sem["active"]:
        typer.echo(f"semantic: on, {sem['embedded']} of {sem['pages']} current pages embedded")
    else:
        typer.echo(f"semantic: {sem['why']}")
    if line := pending.status_line(report["pending"], Path(report["vault"])):
        typer.echo(visible(line))
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
    start_line: Annotated[
        int | None, typer.Option(min=1, metavar="N", help="First line to print (1-based).")
    ] = None,
    end_line: Annotated[
        int | None, typer.Option(min=1, metavar="N", help="Last line to print (inclusive).")
    ] = None,
    vault: VaultOption = None,
) -> None:
    """Print a page, or its lines from --start-line to --end-line (a receipt's `line` says where its
    answer is). Paths outside the vault (``..``, absolute, symlinks leaving it) are refused."""
    router = _router(vault)
    try:
        with exit_codes():
            try:
                page, text = router.read_page(path)
            except PageNotFound as e:
                raise PageNotFound(with_suggestions(str(e), path, router.index.page_table(), vault)) from e
            note = router.resolve(page).replaced_note()
            try:
                text = line_range(text, start_line, end_line, page)[0]
            except ValueError as exc:
                raise fail(str(exc), EXIT_USAGE) from exc
    finally:
        router.close()
    typer.echo(visible_text(text), nl=False)
    if note:
        # The page is printed as asked, but an agent reading it must not take it as current.
        typer.echo(visible(f"krouter: {note}"), err=True)


def run() -> None:
    """Entry point: runs the app and maps usage errors to exit code 2.

    With ``--json`` a usage error (a missing argument, an unknown option, a bad value) is also printed
    as one JSON object on stdout, as every other error of a ``--json`` command is: an agent that parses
    stdout never meets click's plain-text usage message. A file-system error that no command turned
    into a message is one plain line too (exit 1), never a traceback."""
    args = sys.argv[1:]
    try:
        _run(args)
    except BrokenPipeError:
        raise  # stdout closed by a pager or `head`: nothing more to tell
    except OSError as exc:
        from krouter.os_errors import os_error_message

        fail(os_error_message(exc), as_json="--json" in args)
        sys.exit(EXIT_ERROR)


def _run(args: list[str]) -> None:
    if "--json" not in args:
        app(args)
        return
    try:
        code = app(args, standalone_mode=False)
    except typer.Abort:
        typer.echo("Aborted!", err=True)
        sys.exit(1)
    except Exception as exc:
        # Click's errors (typer 0.28 vendors its own copy of click, so they are recognised by their
        # interface rather than by class): usage errors exit 2, others their own code.
        message = getattr(exc, "format_message", None)
        if message is None or not hasattr(exc, "show"):
            raise
        exc.show()
        exit_code = int(getattr(exc, "exit_code", 1))
        typer.echo(json.dumps({"error": message(), "exit_code": exit_code}, ensure_ascii=False))
        sys.exit(exit_code)
    sys.exit(code if isinstance(code, int) else 0)
