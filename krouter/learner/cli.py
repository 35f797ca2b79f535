"""``krouter learn`` and ``krouter teach``: the command-line face of the learner (registered in ``krouter.cli``).

``krouter learn`` exit codes: 0 done, 1 the model could not be asked for some questions ("uncertain") or
another error, 2 usage error, 130 stopped by Ctrl-C (what was done before it is reported and recorded). ``krouter teach`` exit codes: 0 taught, 3 not taught (the reason is
printed; nothing was written; a pick held pending for a second source is one of these), 2 usage error (phrasings over the bounds, a vault that is not there), 1
another error.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from krouter import config
from krouter.cli_options import EXIT_USAGE, USAGE_ERRORS, NamedVaultOption, fail
from krouter.errors import KRouterError, VaultNotFound
from krouter.learner import learn_env
from krouter.learner.lane_choice import make_lane
from krouter.learner.lanes import Lane, LaneError
from krouter.os_errors import os_error_message

if TYPE_CHECKING:
    from krouter.learner.report import LearnReport

EXIT_NOT_TAUGHT = 3


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
            "--list",
            help="List every trigger the learner and agents taught in the vault (when, which page, run id), "
            "and the pending ones waiting for a second source; every vault's when no vault is set.",
        ),
    ] = False,
    accept: Annotated[
        str | None,
        typer.Option(
            "--accept", metavar="ID", help="Write a pending trigger (checked again; undoable with --undo)."
        ),
    ] = None,
    reject: Annotated[
        str | None,
        typer.Option("--reject", metavar="ID", help="Drop a pending trigger: nothing is written."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as one JSON object.")] = False,
) -> None:
    """Learn recall triggers from weak questions in the private query log (quote-verified, undoable)."""
    # Imported here so that `krouter ask` never pays for the learner's modules.
    from krouter.learner import nightly
    from krouter.learner import undo as undo_run
    from krouter.learner.report import SKIPPED, UNCERTAIN

    if list_runs:
        if accept is not None or reject is not None or undo is not None or dry_run:
            # --list only reads: an action beside it was silently dropped, and exit 0 said it was done.
            raise fail(
                "--list only lists: not with --accept, --reject, --undo or --dry-run",
                EXIT_USAGE,
                as_json=as_json,
            )
        from krouter.learner.listing import print_list

        print_list(vault, as_json)
        return
    if accept is not None or reject is not None:
        given = [
            (option, value)
            for option, value in (("--accept", accept), ("--reject", reject))
            if value is not None
        ]
        blank = next((option for option, value in given if not value.strip()), None)
        if blank:
            # An empty $ID in a script must not fall through to a learning run, as --undo "" did.
            raise fail(
                f"{blank} needs a pending id, as krouter learn --list shows it", EXIT_USAGE, as_json=as_json
            )
        if dry_run or undo:
            # --accept writes a page: a --dry-run beside it must not be silently ignored.
            option = "--accept" if accept else "--reject"
            raise fail(
                f"{option} settles one pending trigger: not with --dry-run or --undo",
                EXIT_USAGE,
                as_json=as_json,
            )
        _settle(vault, accept, reject, as_json)
        return
    if undo is not None and dry_run:
        # Undo restores pages: a --dry-run beside it ("write nothing") was ignored, and the page rewritten.
        raise fail("--undo restores pages: not with --dry-run", EXIT_USAGE, as_json=as_json)
    if undo is not None and not undo_run.RUN_ID.fullmatch(undo):
        raise fail(
            f"--undo needs a run id, as krouter learn --list shows it; got {undo!r}",
            EXIT_USAGE,
            as_json=as_json,
        )
    listing_only = False
    stand_in: Path | None = None
    root: Path | None = None
    try:
        if undo is not None:
            # A run id names its vault: another one named beside it was ignored, and the run's pages
            # restored without a word (a bug hunt); unless the run's vault is gone and the one named
            # holds its pages (moved there), which then stands in for it.
            stand_in = undo_run.check_vault(undo, vault) if vault is not None else None
            report = undo_run.undo(undo, stand_in)
        else:
            cfg = config.load_config()
            root = config.vault_to_write(vault, "learn on")
            if not root.is_dir():
                raise config.vault_not_found(root, named=vault is not None)
            # The key the service units get from learn.env: a manual run or a cron line gets it too.
            try:
                learn_env.load_learn_env()
            except KRouterError as exc:
                # Said, not fatal: the key may be in the environment already (the lane says if it is not).
                typer.echo(f"warning: {exc}", err=True)
            if warning := learn_env.loose_permissions():
                typer.echo(warning, err=True)
            chosen: Lane | None
            try:
                chosen = make_lane(lane, model or cfg.learn_model)
            except LaneError:
                if not dry_run or lane is not None:
                    raise
                # A dry run without a model still shows what a run would send.
                chosen, listing_only = None, True
            report = nightly.learn(root, chosen, max_questions=max_questions, dry_run=dry_run)
    except USAGE_ERRORS as exc:
        raise fail(str(exc), EXIT_USAGE, as_json=as_json) from exc
    except KRouterError as exc:
        raise fail(str(exc), as_json=as_json) from exc
    except OSError as exc:  # an unwritable state dir, a vault gone mid-run: one line
        raise fail(os_error_message(exc, root), as_json=as_json) from exc
    if listing_only and not as_json:
        typer.echo(f"no model lane ({_no_lane()}); nothing was sent: listing the questions a run would send")
    if as_json:
        typer.echo(json.dumps(report.to_dict(), ensure_ascii=False))
    else:
        typer.echo(_undo_text(report) if undo else report.to_text())
        if stand_in is not None:
            typer.echo(f"(the run's vault is not there now: undone in {stand_in}, which holds its pages)")
    if report.interrupted:
        raise typer.Exit(130)  # as a shell reports a Ctrl-C, after the report of what was done
    if report.count(UNCERTAIN) and not listing_only:
        raise typer.Exit(1)
    if undo and report.count(SKIPPED):
        raise typer.Exit(1)  # a trigger the run wrote is still on its page


def _undo_text(report: LearnReport) -> str:
    """What an undo did, page by page (a learn run's header would speak of weak questions)."""
    from krouter.learner.undo import REMOVED, RESTORED, REWOUND

    ways = (
        (RESTORED, "restored byte for byte", "restored byte for byte"),
        (
            REWOUND,
            "restored, the triggers later runs wrote kept",
            "restored, the triggers later runs wrote kept",
        ),
        (REMOVED, "edited since: its later edits kept", "edited since: their later edits kept"),
    )
    taken = sum(report.count(status) for status, _, _ in ways)
    left = len(report.outcomes) - taken
    how = []
    for status, one, many in ways:
        # One run may write a page several times: pages are counted once.
        pages = len({o.page for o in report.outcomes if o.status == status})
        if pages:
            how.append(f"page {one}" if pages == 1 else f"{pages} pages {many}")
    lines = [
        f"undo of run {report.run_id}: {taken} trigger{'' if taken == 1 else 's'} removed"
        f"{' (' + '; '.join(how) + ')' if how else ''}, {left} left as {'it is' if left == 1 else 'they are'}"
    ]
    for o in report.outcomes:
        why = f" ({o.reason})" if o.reason else ""
        lines.append(f"  {o.status:9} {o.page}: trigger {o.question!r}{why}")
    return "\n".join(lines)


def _no_lane() -> str:
    hint = f"set ANTHROPIC_API_KEY, e.g. in {learn_env.learn_env_path()}, or install the claude CLI"
    if importlib.util.find_spec("anthropic") is None:
        # The key alone is not enough without the optional client package.
        hint += "; the API lane also needs the anthropic package: pip install 'krouter[learn]'"
    return hint


def _settle(vault: Path | None, accept: str | None, reject: str | None, as_json: bool) -> None:
    """``--accept ID`` writes a pending trigger (exit 0, or 3 when nothing was kept); ``--reject ID``
    drops it. Either says exactly what was and was not written."""
    from krouter.learner import pending
    from krouter.learner.report import LEARNED
    from krouter.routing.router import Router
    from krouter.safe_text import visible

    if accept and reject:
        raise fail("give --accept or --reject, not both", EXIT_USAGE, as_json=as_json)
    root: Path | None = None
    try:
        # A pending id names its vault: the held pick's reply and `learn --list` say "run krouter learn
        # --accept ID", which failed, "no vault named" (a bug hunt).
        held = next((h for h in pending.all_holds() if h["pending"] == (accept or reject)), None)
        recorded = Path(str(held["vault"])) if vault is None and held is not None else None
        # A reject writes no page: a hold an earlier version made in the demo vault (`krouter_teach` held
        # picks there) is closed all the same, or it stayed listed for ever (a documentation audit).
        if accept:
            root = config.vault_to_write(recorded or vault, "accept pending triggers")
        else:
            root = recorded or vault or config.default_vault()
        if recorded is not None and not root.is_dir() and accept:
            # The path came from the hold, not from config.toml or $KROUTER_VAULT: said so, with the
            # way on when the vault moved (its folder, named, stands in for it).
            raise VaultNotFound.at(
                root,
                f" (the vault pending {accept} was held in; if it moved, name its folder: "
                f"krouter learn --accept {accept} --vault DIR)",
            )
        if recorded is None and not root.is_dir():
            raise config.vault_not_found(root, named=vault is not None)
        if reject:
            # A reject writes nothing to pages: a hold whose vault is gone is rejected all the same, or
            # it would stay listed for ever.
            h = pending.reject(root if recorded is not None else root.resolve(), reject)
            out = {"pending_id": reject, "status": "rejected", "page": h["page"], "trigger": h["trigger"]}
            text = f"rejected pending {reject}: nothing written ({h['page']} <- {h['trigger']!r})"
        else:
            with Router(root, embed_budget_s=0) as router:
                status, reason, run_id = pending.accept(router, str(accept))
            out = {"pending_id": accept, "status": status, "reason": reason, "run_id": run_id}
            if status == LEARNED:
                text = f"accepted pending {accept}: written (run {run_id}; undo with: krouter learn --undo {run_id})"
                text += f"; but {reason}" if reason else ""
            # By its id alone: a hold of the gone vault this folder stands in for is not among the
            # folder's own, and its accept, refused, was said to have closed it.
            elif any(h["pending"] == accept for h in pending.open_holds()):
                text = f"pending {accept} not written, it stays pending: {reason}"
            else:
                text = f"pending {accept} closed, nothing written: {reason}"
    except USAGE_ERRORS as exc:
        raise fail(str(exc), EXIT_USAGE, as_json=as_json) from exc
    except KRouterError as exc:
        raise fail(str(exc), as_json=as_json) from exc
    except OSError as exc:
        raise fail(os_error_message(exc, root), as_json=as_json) from exc
    typer.echo(json.dumps(out, ensure_ascii=False) if as_json else visible(text))
    if accept and out["status"] != LEARNED:
        raise typer.Exit(EXIT_NOT_TAUGHT)


def teach_command(
    question: Annotated[
        str, typer.Argument(metavar="QUESTION", help="The question KRouter refused, as it was asked.")
    ],
    page: Annotated[
        str,
        typer.Option(
            "--page",
            metavar="PATH",
            help="Vault-relative path of the page that answers it.",
            show_default=False,
        ),
    ],
    quote: Annotated[
        str,
        typer.Option(
            "--quote",
            metavar="SENTENCE",
            help="The sentence of that page that answers it, copied.",
            show_default=False,
        ),
    ],
    also: Annotated[
        list[str] | None,
        typer.Option(
            "--also",
            metavar="PHRASING",
            help="Another phrasing of the question (e.g. in the notes' language); repeatable, at most 4.",
            show_default=False,
        ),
    ] = None,
    vault: NamedVaultOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as one JSON object.")] = False,
) -> None:
    """Teach KRouter that PAGE answers QUESTION: checked like the nightly learner's picks, undoable. By
    default (pending_triggers = "all") a pick that passes is held, nothing written, until a second
    source agrees: the nightly learner, or `krouter learn --accept ID`."""
    from krouter.learner import teach
    from krouter.routing.phrasings import BadPhrasings, BadQuestion
    from krouter.routing.router import Router
    from krouter.safe_text import clean, visible

    root: Path | None = None
    try:
        root = config.vault_to_write(vault, "teach")
        if not root.is_dir():
            raise config.vault_not_found(root, named=vault is not None)
        with Router(root, embed_budget_s=0) as router:
            # Undecodable bytes in an argument must not reach the journal, the page or the terminal.
            phrasings = [clean(p) for p in also or []]
            result = teach.teach(router, clean(question), clean(page), clean(quote), phrasings, client="cli")
    except (BadQuestion, BadPhrasings, *USAGE_ERRORS) as exc:
        raise fail(str(exc), EXIT_USAGE, as_json=as_json) from exc
    except KRouterError as exc:
        raise fail(str(exc), as_json=as_json) from exc
    except OSError as exc:  # an unwritable state dir: one line
        raise fail(os_error_message(exc, root), as_json=as_json) from exc
    # The JSON carries the line the text prints too: an agent-loop run read a held pick's doubt in
    # ``reason`` ("it lacks '块', which other pages hold") as a rejection beside "status": "pending".
    shown = {**result.to_dict(), "message": result.to_text()}
    typer.echo(json.dumps(shown, ensure_ascii=False) if as_json else visible(result.to_text()))
    if not result.taught:
        raise typer.Exit(EXIT_NOT_TAUGHT)
