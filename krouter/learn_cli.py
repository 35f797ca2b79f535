"""``krouter learn``: the command-line face of the learner (registered in ``krouter.cli``).

Exit codes: 0 done, 1 the model could not be asked for some questions ("uncertain") or another error,
2 usage error.
"""

from __future__ import annotations

import json
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
        int, typer.Option("--max", metavar="N", min=0, help="Handle at most N weak questions this run.")
    ] = 50,
    lane: Annotated[
        str | None,
        typer.Option(
            "--lane",
            metavar="LANE",
            help="How to call the model: api (needs ANTHROPIC_API_KEY), claude (the Claude Code CLI), or "
            "another command (only with KROUTER_ALLOW_UNCONFINED=1). Default: api if a key is set, else claude.",
            show_default=False,
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            metavar="NAME",
            help="Model name. Default: 'learn_model' in config.toml.",
            show_default=False,
        ),
    ] = None,
    undo: Annotated[
        str | None,
        typer.Option("--undo", metavar="RUN_ID", help="Restore every page a run changed, byte for byte."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as one JSON object.")] = False,
) -> None:
    """Learn recall triggers from weak questions in the private query log (quote-verified, undoable)."""
    # Imported here so that `krouter ask` never pays for the learner's modules.
    from krouter import learn

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
    except KRouterError as exc:
        raise fail(str(exc)) from exc
    typer.echo(json.dumps(report.to_dict(), ensure_ascii=False) if as_json else report.to_text())
    if report.count(learn.UNCERTAIN):
        raise typer.Exit(1)
