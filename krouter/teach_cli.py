"""``krouter teach``: an agent (or a person) reports that a page answers a question KRouter refused.

Registered in ``krouter.cli``. Exit codes: 0 taught, 3 not taught (the reason is printed; nothing was
written), 2 usage error (phrasings over the bounds, a vault that is not there), 1 another error.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from krouter.cli_options import EXIT_USAGE, USAGE_ERRORS, NamedVaultOption, fail
from krouter.errors import KRouterError, VaultNotFound

EXIT_NOT_TAUGHT = 3


def teach_command(
    question: Annotated[str, typer.Argument(help="The question KRouter refused, as it was asked.")],
    page: Annotated[
        str,
        typer.Option("--page", help="Vault-relative path of the page that answers it.", show_default=False),
    ],
    quote: Annotated[
        str,
        typer.Option(
            "--quote", help="The sentence of that page that answers it, copied.", show_default=False
        ),
    ],
    also: Annotated[
        list[str] | None,
        typer.Option(
            "--also",
            help="Another phrasing of the question (e.g. in the notes' language); repeatable, at most 4.",
            show_default=False,
        ),
    ] = None,
    vault: NamedVaultOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as one JSON object.")] = False,
) -> None:
    """Teach KRouter that PAGE answers QUESTION: checked like the nightly learner's picks, undoable."""
    from krouter import config, teach
    from krouter.phrasings import BadPhrasings
    from krouter.router import Router
    from krouter.safe_text import clean, visible

    try:
        root = config.vault_to_write(vault, "teach")
        if not root.is_dir():
            raise VaultNotFound(f"vault folder not found: {root}")
        with Router(root) as router:
            # Undecodable bytes in an argument must not reach the journal, the page or the terminal.
            phrasings = [clean(p) for p in also or []]
            result = teach.teach(router, clean(question), clean(page), clean(quote), phrasings, client="cli")
    except (BadPhrasings, *USAGE_ERRORS) as exc:
        raise fail(str(exc), EXIT_USAGE) from exc
    except KRouterError as exc:
        raise fail(str(exc)) from exc
    typer.echo(json.dumps(result.to_dict(), ensure_ascii=False) if as_json else visible(result.to_text()))
    if not result.taught:
        raise typer.Exit(EXIT_NOT_TAUGHT)
