"""What several commands share, declared once: the --vault option and how errors become exit codes."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand

from krouter.errors import KRouterError, PageNotFound, PathOutsideVault, VaultNotFound, VaultNotNamed

EXIT_ERROR = 1
EXIT_USAGE = 2
# Errors in what the user asked for (a folder that is not there, a path outside the vault): exit 2.
USAGE_ERRORS = (VaultNotFound, VaultNotNamed, PathOutsideVault, PageNotFound)


def fail(message: str, code: int = EXIT_ERROR, *, as_json: bool = False) -> typer.Exit:
    """Print ``krouter: message`` on stderr and return the Exit to raise.

    With ``as_json`` (a command run with ``--json``) stdout also gets one JSON object,
    ``{"error": message, "exit_code": code}``, so a script that parses stdout never meets plain text.
    """
    typer.echo(f"krouter: {message}", err=True)
    if as_json:
        typer.echo(json.dumps({"error": message, "exit_code": code}, ensure_ascii=False))
    return typer.Exit(code)


@contextmanager
def exit_codes(*, as_json: bool = False, default_vault: bool = False) -> Iterator[None]:
    """Turn the library's typed errors into a message and an exit code: 2 for usage, 1 for the rest.

    ``default_vault``: no vault was named on the command line, so a vault that is not there is said to
    come from $KROUTER_VAULT or config.toml: a path the user did not type is otherwise a mystery."""
    try:
        yield
    except VaultNotFound as exc:
        from krouter.config import default_vault_origin

        raise fail(f"{exc}{default_vault_origin(not default_vault)}", EXIT_USAGE, as_json=as_json) from exc
    except USAGE_ERRORS as exc:
        raise fail(str(exc), EXIT_USAGE, as_json=as_json) from exc
    except KRouterError as exc:
        raise fail(str(exc), as_json=as_json) from exc


def vault_path(value: str) -> Path:
    """``--vault``'s text as a folder; an empty value is refused: Path("") is the current folder, and
    ``--vault "$VAULT"`` with the variable unset would walk, index or import into wherever one stands."""
    if not value.strip():
        raise typer.BadParameter("an empty value names no folder (is a variable unset?)")
    return Path(value)


def vault_name(value: Path | None) -> Path | None:
    """``--vault demo`` names the bundled demo vault; any other value is a folder."""
    from krouter.config import named_vault

    return named_vault(value) if value is not None else None


VaultOption = Annotated[
    Path | None,
    typer.Option(
        "--vault",
        metavar="DIR",
        parser=vault_path,
        callback=vault_name,
        help="Vault folder ('demo' for the bundled demo vault). Default: $KROUTER_VAULT, then 'vault' in "
        "config.toml (`krouter config set vault DIR`).",
        show_default=False,
    ),
]
"""--vault for commands that only read (the demo vault only when named)."""

NamedVaultOption = Annotated[
    Path | None,
    typer.Option(
        "--vault",
        metavar="DIR",
        parser=vault_path,
        callback=vault_name,
        help="Vault folder. Default: $KROUTER_VAULT, then 'vault' in config.toml (never the demo vault).",
        show_default=False,
    ),
]
"""--vault for commands that write into the vault or act for the user's own notes."""


def terminal_progress(label: str, min_total: int = 200) -> Callable[[int, int], None] | None:
    """A progress callback for ``Index.refresh`` drawing a bar on stderr once there are at least
    ``min_total`` pages to read; None when stderr is not a terminal (logs and agents get no bar)."""
    if not sys.stderr.isatty():
        return None
    bar: Any = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if total < min_total:
            return
        if bar is None:
            bar = typer.progressbar(length=total, label=label, file=sys.stderr)
            bar.__enter__()
        bar.update(1)
        if done >= total:
            bar.__exit__(None, None, None)

    return progress


class Command(TyperCommand):
    """A command whose usage line names its arguments as people write them (``QUESTION``), where
    recent typer writes ``{QUESTION}``."""

    def collect_usage_pieces(self, ctx: typer.Context) -> list[str]:
        """The usage pieces, with typer's braces around required arguments removed."""
        pieces = super().collect_usage_pieces(ctx)
        return [p[1:-1] if p.startswith("{") and p.endswith("}") else p for p in pieces]
