"""``krouter learn --list``: what was taught in the vault, as text or JSON (registered by ``learner.cli``)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import typer

from krouter import config
from krouter.cli_options import EXIT_USAGE, fail
from krouter.errors import VaultNotFound, VaultNotNamed
from krouter.learner.pending import OWNER
from krouter.learner.taught import history
from krouter.learner.teach import shown_quote
from krouter.safe_text import visible
from krouter.vault.files import check_vault


def _utc(stamp: object) -> str:
    """A journal or hold time as the list shows it; a hand-edited time that is no number is shown as
    the epoch, not a crash."""
    seconds = float(stamp) if isinstance(stamp, (int, float)) else 0.0
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(seconds))


def listed_vault(vault: Path | None, as_json: bool) -> Path | None:
    """The vault whose history is listed: ``--vault``, then the default vault as every other command
    takes it; None, every vault's, only when no vault is named or configured at all."""
    try:
        root = vault if vault is not None else config.default_vault()
    except VaultNotNamed as exc:
        if os.environ.get("KROUTER_VAULT"):
            raise fail(str(exc), EXIT_USAGE, as_json=as_json) from exc  # $KROUTER_VAULT=demo, not a folder
        return None
    try:
        # A mistyped vault would list nothing, as if nothing had been taught there.
        check_vault(root)
    except VaultNotFound as exc:
        raise fail(
            f"{exc}{config.default_vault_origin(vault is not None)}", EXIT_USAGE, as_json=as_json
        ) from exc
    return root


def print_list(vault: Path | None, as_json: bool) -> None:
    """Print what was taught in ``listed_vault``: one line per trigger, oldest first. A row recorded
    under another path (the vault moved since) says so; listing every vault, each row names its own."""
    root = listed_vault(vault, as_json)
    rows = history(root)
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False))
        return
    if not rows:
        typer.echo("nothing taught yet")
        return
    for r in rows:
        when, page = _utc(r["time"]), r["page"]
        if root is None:
            page = f"{page} (in {r['vault']})"
        elif r["recorded_vault"] != r["vault"]:
            page = f"{page} (recorded in {r['recorded_vault']}, not there now)"
        if r["pending"]:
            # Triggers and page names came from agents and the query log: shown, never interpreted.
            typer.echo(
                visible(
                    f"pending {r['pending_id']}  {when}Z  {r['taught_by']}  {page}  <- {r['trigger']!r}"
                    f"  (not written: krouter learn --accept {r['pending_id']} or --reject {r['pending_id']})"
                )
            )
            if r["quote"]:
                # What the owner judges an accept by: the sentence the teacher says answers.
                typer.echo(visible(f"    quote: {shown_quote(str(r['quote']))}"))
            if r["doubt"]:
                typer.echo(visible(f"    for the owner alone: {r['doubt']}"))
            continue
        if r["superseded_by"]:
            # Held for the owner (a doubt), or quoting what the page no longer says: the pick that took
            # over passed every check only in the first case (the second may be held for the owner too).
            why = "held for the owner" if r["doubt"] else "its quote no longer on the page"
            typer.echo(
                visible(
                    f"superseded {r['pending_id']}  {when}Z  {r['taught_by']}  {page}  <- {r['trigger']!r}"
                    f"  ({why}; taken over by a later teaching of it, {r['superseded_by']})"
                )
            )
            continue
        if r["rejected"]:
            rejected = _utc(r["rejected_time"])
            typer.echo(
                visible(
                    f"rejected {r['pending_id']}  {when}Z  {r['taught_by']}  {page}  <- {r['trigger']!r}"
                    f"  (rejected by the owner {rejected}Z: nothing written)"
                )
            )
            continue
        undone = "  (taken back)" if r["taken_back"] else "  (undone)" if r["undone"] else ""
        who = r["taught_by"]
        if who == OWNER and str(r["model"]).startswith("accepted "):
            # Who taught it is the teacher the owner accepted ("accepted cli"), not only "owner".
            who = f"owner ({r['model']})"
        typer.echo(visible(f"{r['run_id']}  {when}Z  {who}  {page}  <- {r['trigger']!r}{undone}"))
