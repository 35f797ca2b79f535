"""``krouter learn``: the command-line face of the learner (registered in ``krouter.cli``).

Exit codes: 0 done, 1 the model could not be asked for some questions ("uncertain") or another error,
2 usage error.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated

import typer

from krouter import config
from krouter.cli_options import EXIT_USAGE, USAGE_ERRORS, NamedVaultOption, fail
from krouter.errors import KRouterError, VaultNotFound
from krouter.lanes import make_lane


def learn_command(
    vault: NamedVaultOption = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Propose and verify, but write nothing.")
    ] = False,
    max_questions: Annotated[
        int, typer.Option("--max", min=0, help="Handle at most N weak questions this run.")
    ] = 50,
    lane: Annotated[
        str | None,
        typer.Option(
            "--lane",
            help="How to call the model: api (needs ANTHROPIC_API_KEY), claude (the Claude Code CLI), or "
            "another command (only with KROUTER_ALLOW_UNCONFINED=1). Default: api if a key is set, else claude.",
            show_default=False,
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model", help="Model name. Default: 'learn_model' in config.toml.", show_default=False
        ),
    ] = None,
    undo: Annotated[
        str | None,
        typer.Option("--undo", metavar="RUN_ID", help="Restore every page a run changed, byte for byte."),
    ] = None,
    list_runs: Annotated[
        bool,
        typer.Option(
            "--list", help="List every trigger the learner and agents taught (when, which page, run id)."
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as one JSON object.")] = False,
) -> None:
    """Learn recall triggers from weak questions in the private query log (quote-verified, undoable)."""
    # Imported here so that `krouter ask` never pays for the learner's modules.
    from krouter import learn

    if list_runs:
        _list(vault, as_json)
        return
    try:
        if undo:
            report = learn.undo(undo)
        else:
            cfg = config.load_config()
            root = config.vault_to_write(vault, "learn on")
            if not root.is_dir():
                raise VaultNotFound(f"vault folder not found: {root}")
            chosen = make_lane(lane, model or cfg.learn_model)
            report = learn.learn(root, chosen, max_questions=max_questions, dry_run=dry_run)
    except USAGE_ERRORS as exc:
        raise fail(str(exc), EXIT_USAGE) from exc
    except (KRouterError, OSError) as exc:  # an unwritable state dir, a vault gone mid-run: one line
        raise fail(str(exc)) from exc
    typer.echo(json.dumps(report.to_dict(), ensure_ascii=False) if as_json else report.to_text())
    if report.count(learn.UNCERTAIN):
        raise typer.Exit(1)


def _list(vault: Path | None, as_json: bool) -> None:
    """Print what was taught: one line per trigger, oldest first (``--vault`` keeps one vault's)."""
    from krouter.safe_text import visible
    from krouter.teach import history

    rows = history(vault)
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False))
        return
    if not rows:
        typer.echo("nothing taught yet")
        return
    for r in rows:
        when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(float(r["time"] or 0)))  # type: ignore[arg-type]
        undone = "  (undone)" if r["undone"] else ""
        # Triggers and page names came from agents and the query log: shown, never interpreted.
        typer.echo(
            visible(f"{r['run_id']}  {when}Z  {r['taught_by']}  {r['page']}  <- {r['trigger']!r}{undone}")
        )
