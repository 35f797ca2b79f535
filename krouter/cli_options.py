"""Command-line options shared by several commands, declared once so their help cannot drift."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

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
