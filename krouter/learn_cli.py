"""``krouter learn``: the command-line face of the learner (registered in ``krouter.cli``).

Exit codes: 0 done, 1 the model could not be asked for some questions ("uncertain") or another error,
2 usage error.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from krouter import config
from krouter.cli_options import EXIT_USAGE, USAGE_ERRORS, NamedVaultOption, fail
from krouter.errors import KRouterError, VaultNotFound
from krouter.lanes import Lane, LaneError, make_lane

if TYPE_CHECKING:
    from krouter.learn import LearnReport


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
    listing_only = False
    try:
        if undo:
            report = learn.undo(undo)
        else:
            cfg = config.load_config()
            root = config.vault_to_write(vault, "learn on")
            if not root.is_dir():
                raise VaultNotFound(f"vault folder not found: {root}")
            # The key the service units get from learn.env: a manual run or a cron line gets it too.
            config.load_learn_env()
            try:
                chosen: Lane = make_lane(lane, model or cfg.learn_model)
            except LaneError:
                if not dry_run or lane is not None:
                    raise
                # A dry run without a model still shows what a run would send.
                chosen, listing_only = _NoModel(), True
            report = learn.learn(root, chosen, max_questions=max_questions, dry_run=dry_run)
    except USAGE_ERRORS as exc:
        raise fail(str(exc), EXIT_USAGE, as_json=as_json) from exc
    except (KRouterError, OSError) as exc:  # an unwritable state dir, a vault gone mid-run: one line
        raise fail(str(exc), as_json=as_json) from exc
    if listing_only and not as_json:
        typer.echo(f"no model lane ({_no_lane()}); listing the weak questions a run would send")
    if as_json:
        typer.echo(json.dumps(report.to_dict(), ensure_ascii=False))
    else:
        typer.echo(_undo_text(report) if undo else report.to_text())
    if report.count(learn.UNCERTAIN) and not listing_only:
        raise typer.Exit(1)


def _undo_text(report: LearnReport) -> str:
    """What an undo did, page by page (a learn run's header would speak of weak questions)."""
    restored = report.count("restored")
    left = len(report.outcomes) - restored
    restored_how = " (page restored byte for byte)" if restored == 1 else " (pages restored byte for byte)"
    lines = [
        f"undo of run {report.run_id}: {restored} trigger{'' if restored == 1 else 's'} removed"
        f"{restored_how if restored else ''}, {left} left as {'it is' if left == 1 else 'they are'}"
    ]
    for o in report.outcomes:
        why = f" ({o.reason})" if o.reason else ""
        lines.append(f"  {o.status:9} {o.page}: trigger {o.question!r}{why}")
    return "\n".join(lines)


def _no_lane() -> str:
    return f"set ANTHROPIC_API_KEY, e.g. in {config.learn_env_path()}, or install the claude CLI"


class _NoModel:
    """The lane of a dry run with no model: every question is listed, none is sent."""

    name = "none"
    model = "-"

    def complete(self, system: str, prompt: str) -> str:
        """Never asks anything: the question stays uncertain, with the reason."""
        raise LaneError(f"not sent: no model lane ({_no_lane()})")


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
