"""``krouter init``: start a new vault, and record it as the default one.

A new vault is empty but for a folder skeleton, a short guide and a ``.krouterignore`` that keeps the
guide (and Obsidian's ``Templates/`` folder) out of the index: example pages in a real vault compete
with the user's own, and a guide about KRouter would be the "closest" page to many real questions.
``--with-examples`` copies the bundled demo vault instead, for trying KRouter out. Such a vault
replaces an existing default only when asked (``--default``): its pages are fictional, and a plain
``krouter ask`` that quietly answered from them instead of the user's notes would mislead.
"""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path
from typing import Annotated

import typer

from krouter.cli_options import EXIT_USAGE, exit_codes, fail, vault_path
from krouter.config import bundled_vault, load_config
from krouter.config_edit import set_config_value
from krouter.os_errors import reason
from krouter.vault.ignore import IGNORE_FILE

FOLDERS = ("Decisions", "Runbooks", "Preferences", "People", "Daily", "Inputs", "Templates")
GUIDE_NAME = "KRouter guide.md"

IGNORE_TEXT = f"""\
# Folders and files KRouter never indexes, one pattern a line (as in .gitignore):
#   Templates/        a folder of that name, at any depth
#   /Archive/2019/    one folder, from the vault root
#   *.excalidraw.md   files by name
# Lines starting with # are comments. Dot-folders (.obsidian, .trash) are always skipped.
/{GUIDE_NAME}
Templates/
"""

GUIDE_TEXT = """\
# KRouter guide

This page is not indexed (see `.krouterignore`), so it never answers a question. Delete it when you
like.

KRouter cites the page of this vault that answers a question, or refuses when none does. Write
**one page per topic** ("Primary database", "Release checklist"), in any language. Folders are for
people; KRouter searches them all. `Inputs/` is for raw material (clippings, imported sessions): it
ranks at half weight.

Optional YAML frontmatter makes pages easier to find:

```yaml
---
title: Release checklist
aliases: [shipping steps]
tags: [runbook, release]
triggers:                       # phrasings that should recall the page
  - how do we ship a release
---
```

**When a decision changes**, do not edit the old page into the new answer. Write a new page and mark
the old one `status: superseded` with `superseded_by: "[[New page]]"` (or put `supersedes:` on the new
page). KRouter never cites a replaced page; it leads to the current one.

Once you have pages, ask about them: `krouter ask "how do we ship a release"`. `krouter check` lints
the vault (broken links, replaced pages); `krouter status` and `krouter config` show which vault is in
use. To see a filled-in example vault: `krouter ask "which database do we use" --vault demo`.
"""


def _in_the_way(name: str) -> bool:
    """Whether a file already in the target folder stops init. A folder holding only an editor's or a
    tool's dot-folder (.obsidian, .git: a vault Obsidian just made) is empty to a person; init refused it
    (a cold review). Its own ignore file is never written over."""
    return not name.startswith(".") or name == IGNORE_FILE


def _create(target: Path, examples: Path | None) -> None:
    """Fill ``target`` (created with its parents) with a copy of ``examples``, or else the skeleton."""
    if examples is not None:
        shutil.copytree(examples, target, dirs_exist_ok=True)
        return
    for folder in FOLDERS:
        (target / folder).mkdir(parents=True, exist_ok=True)
    (target / GUIDE_NAME).write_text(GUIDE_TEXT, encoding="utf-8")
    (target / IGNORE_FILE).write_text(IGNORE_TEXT, encoding="utf-8")


def _folder(value: str) -> Path:
    """DIR as ``--vault`` reads it: an empty value is refused (it was the current folder, made the vault
    and the default by ``krouter init "$VAULT"`` with the variable unset), and a quoted ``~`` is home,
    not a folder named ``~`` made where one stands."""
    return vault_path(value).expanduser()


def init_command(
    target: Annotated[
        Path, typer.Argument(metavar="DIR", parser=_folder, help="Folder to create the new vault in.")
    ],
    with_examples: Annotated[
        bool,
        typer.Option(
            "--with-examples", help="Copy the demo vault's example pages instead of starting empty."
        ),
    ] = False,
    default: Annotated[
        bool | None,
        typer.Option(
            "--default/--no-default",
            help="Record the new vault as the default one in config.toml (default: yes; with "
            "--with-examples, only when no default is recorded yet).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Create a new, empty vault (folder skeleton and a guide kept out of the index), and make it the
    default vault. Refuses to overwrite a non-empty folder (one holding only dot-folders, as Obsidian or
    git leave them, is empty)."""
    if target.exists() and not target.is_dir():
        raise fail(f"{target} exists and is not a folder; choose a new folder", EXIT_USAGE)
    if target.exists() and any(_in_the_way(entry.name) for entry in target.iterdir()):
        raise fail(f"{target} exists and is not empty; choose a new folder", EXIT_USAGE)
    examples = bundled_vault() if with_examples else None
    if examples is not None and not examples.is_dir():
        raise fail(f"the bundled vault template is missing from this install ({examples})")
    if default is not False:
        with exit_codes():
            # Before the folder is made: a broken config.toml after it left a vault made but not recorded,
            # and the same init run again refused the folder as not empty (a cold review).
            load_config()
    try:
        _create(target, examples)
    except OSError as exc:
        raise fail(f"cannot create the vault {target}: {reason(exc)}") from exc
    root = target.resolve()
    what = "with the demo's example pages" if with_examples else "empty, with a folder skeleton"
    typer.echo(f"created vault {root} ({what})")
    if default is False:
        typer.echo(f"not recorded as the default vault; name it with --vault {shlex.quote(str(root))}")
        return
    with exit_codes():
        previous = load_config().vault
        if with_examples and default is None and previous is not None:
            # Fictional pages must not silently take the place of the user's own default vault.
            typer.echo(
                f"not recorded as the default vault (its pages are fictional examples); the default "
                f"stays {previous}"
            )
            quoted = shlex.quote(str(root))
            typer.echo(f'try it with: krouter ask "which database do we use" --vault {quoted}')
            typer.echo(f"to make it the default: krouter config set vault {quoted}")
            return
        path = set_config_value("vault", str(root))
    was = f" (was {previous})" if previous is not None and previous != root else ""
    typer.echo(f"recorded as the default vault in {path}{was}")
    typer.echo("change it with: krouter config set vault DIR")
    env = os.environ.get("KROUTER_VAULT")
    if env:
        typer.echo(f"note: $KROUTER_VAULT ({env}) is set, and wins over config.toml while it is")
    if with_examples:
        typer.echo(
            "its pages are fictional examples: plain `krouter ask` answers from them until the default changes"
        )
        typer.echo('try: krouter ask "which database do we use"')
    else:
        typer.echo(
            f"next: write your pages in {root} (one topic a page; see {GUIDE_NAME}), then ask about them"
        )
