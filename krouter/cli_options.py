"""What several commands share, declared once: the --vault option and how errors become exit codes."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from krouter.errors import KRouterError, PageNotFound, PathOutsideVault, VaultNotFound, VaultNotNamed

EXIT_ERROR = 1
EXIT_USAGE = 2
# Errors in what the user asked for (a folder that is not there, a path outside the vault): exit 2.
USAGE_ERRORS = (VaultNotFound, VaultNotNamed, PathOutsideVault, PageNotFound)


def fail(message: str, code: int = EXIT_ERROR) -> typer.Exit:
    """Print ``krouter: message`` on stderr and return the Exit to raise."""
    typer.echo(f"krouter: {message}", err=True)
    return typer.Exit(code)


@contextmanager
def exit_codes() -> Iterator[None]:
    """Turn the library's typed errors into a message and an exit code: 2 for usage, 1 for the rest."""
    try:
        yield
    except USAGE_ERRORS as exc:
        raise fail(str(exc), EXIT_USAGE) from exc
    except KRouterError as exc:
        raise fail(str(exc)) from exc


VaultOption = Annotated[
    Path | None,
    typer.Option(
        "--vault",
        help="Vault folder. Default: $KROUTER_VAULT, then 'vault' in config.toml, then the bundled demo vault.",
        show_default=False,
    ),
]
"""--vault for commands that only read: they may fall back to the demo vault."""

NamedVaultOption = Annotated[
    Path | None,
    typer.Option(
        "--vault",
        help="Vault folder. Default: $KROUTER_VAULT, then 'vault' in config.toml (never the demo vault).",
        show_default=False,
    ),
]
"""--vault for commands that write into the vault or act for the user's own notes: no demo fallback."""
