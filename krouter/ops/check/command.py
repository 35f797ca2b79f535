"""``krouter check``: print the findings of ``lint.check`` and exit 1 when any of them is a problem."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from krouter.cli_options import VaultOption, exit_codes
from krouter.config import default_vault
from krouter.ops.check.lint import check
from krouter.safe_text import visible


def check_command(
    vault: VaultOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Lint the vault: broken replacement links, cycles, broken YAML, duplicates. Exit 1 on any problem.

    Notices are reported and do not fail the check: uncollapsed replacement chains, a page replaced by
    several, loose or unresolved links, symbolic and hard links, leftover temp files, templates."""
    with exit_codes(as_json=as_json, default_vault=vault is None):
        report = check(vault if vault is not None else default_vault())
    if as_json:
        typer.echo(json.dumps(report.to_dict(), ensure_ascii=False))
    else:
        for f in report.findings:
            related = f" [{', '.join(f.related)}]" if f.related else ""
            typer.echo(visible(f"{f.kind:<20} {f.path}: {f.message}{related}"))
        errors = sum(f.severity == "error" for f in report.findings)
        summary = (
            f"{errors} problem(s), {len(report.findings) - errors} notice(s)" if report.findings else "clean"
        )
        typer.echo(f"checked {report.pages} page(s) in {report.vault}: {summary}")
    if not report.ok:
        raise typer.Exit(1)
