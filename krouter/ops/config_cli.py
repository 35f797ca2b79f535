"""``krouter config``: show where the configuration lives, and get or set its values."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer

from krouter import config, config_edit
from krouter.cli_options import EXIT_USAGE, Command, exit_codes, fail

# The settings `krouter config set` writes (lists such as `ignore` are edited in the file by hand).
SETTABLE = (
    "vault",
    "query_log",
    "learn_model",
    "agent_teaching",
    "pending_triggers",
    "semantic",
    "teach_daily_cap",
)
KEYS = (*SETTABLE, "input_folders", "ignore")
# Settings that are true or false.
SWITCHES = ("query_log", "agent_teaching")

config_app = typer.Typer(
    help="Show or change KRouter's settings (config.toml): the default vault and the rest.",
    no_args_is_help=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _values(cfg: config.Config, problems: dict[str, str]) -> dict[str, object]:
    """The settings ``krouter config`` shows, the broken ones (``problems``) left out."""
    values = {
        "vault": str(cfg.vault) if cfg.vault is not None else None,
        "query_log": cfg.query_log,
        "learn_model": cfg.learn_model,
        "agent_teaching": cfg.agent_teaching,
        "pending_triggers": cfg.pending_triggers,
        "semantic": cfg.semantic,
        "teach_daily_cap": cfg.teach_daily_cap,
        "input_folders": list(cfg.exclude_folders),
        "ignore": list(cfg.ignore),
    }
    return {key: value for key, value in values.items() if key not in _broken(problems)}


def _broken(problems: dict[str, str]) -> set[str]:
    """The keys of ``krouter config`` that ``problems`` (``config.read_config``'s) are about."""
    # `exclude_folders` is the old name of `input_folders`.
    return {"input_folders" if key == "exclude_folders" else key for key in problems}


def _note_problems(problems: dict[str, str], still: bool = False) -> None:
    """Say on stderr what is wrong with config.toml, and what that stops."""
    for message in problems.values():
        typer.echo(f"krouter: {'still broken: ' if still else ''}{message}", err=True)
    if problems:
        typer.echo(
            "krouter: every command that reads the settings stops until the file is fixed "
            "(`krouter config set KEY VALUE` sets a value; lists are edited in the file)",
            err=True,
        )


def _from_environment(values: dict[str, object]) -> dict[str, tuple[object, str]]:
    """The settings an environment variable overrides for this process: key -> (value in effect,
    the variable), so that what is shown is what a lookup obeys. ``values``: config.toml's (``_values``)."""
    out: dict[str, tuple[object, str]] = {}
    env = os.environ.get("KROUTER_VAULT")
    # As every command reads it: ~ expanded, a relative path from here, links and .. resolved.
    vault = str(Path(env).expanduser().resolve()) if env else None
    if vault and vault != values.get("vault"):
        out["vault"] = (vault, "$KROUTER_VAULT")
    given = config.semantic_from_environment()
    if given is not None and given != values.get("semantic"):
        out["semantic"] = (given, "$KROUTER_SEMANTIC")
    if os.environ.get("KROUTER_NO_QUERY_LOG", "").strip() not in ("", "0", "false", "no"):
        out["query_log"] = (False, "$KROUTER_NO_QUERY_LOG")
    return out


def _vault_source(cfg: config.Config, problems: dict[str, str]) -> tuple[str | None, str]:
    env = os.environ.get("KROUTER_VAULT")
    if env:
        return str(Path(env).expanduser().resolve()), "$KROUTER_VAULT"
    if "vault" in problems:
        return None, "none: 'vault' in config.toml is broken"
    if cfg.vault is not None:
        return str(cfg.vault), "config.toml"
    return None, "none: pass --vault DIR, or `krouter config set vault DIR`"


@config_app.callback(invoke_without_command=True)
def show(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Show the config file's path, the vault in use (and where it comes from), where the cache and state
    are kept, and every setting.

    A broken setting is shown as broken, the others as read, what is wrong on stderr (JSON: under
    "problems", the broken ones left out of "settings"), and the exit code is 1."""
    if ctx.invoked_subcommand is not None:
        return
    path = config.config_path()
    with exit_codes(as_json=as_json):
        # A file that is not TOML at all has nothing to show: the error names it, and where it breaks.
        cfg, problems = config.read_config()
    vault, source = _vault_source(cfg, problems)
    values = _values(cfg, problems)
    env = _from_environment(values)
    if as_json:
        out = {"path": str(path), "exists": path.is_file(), "vault_in_use": vault, "vault_from": source}
        out |= {"cache_dir": str(config.cache_dir()), "state_dir": str(config.state_dir())}
        settings = {**values, **{key: value for key, (value, _) in env.items()}}
        from_env = {key: var for key, (_, var) in env.items()}
        report = {**out, "settings": settings, "from_environment": from_env}
        typer.echo(json.dumps({**report, "problems": problems} if problems else report, ensure_ascii=False))
    else:
        typer.echo(f"config file:  {path}{'' if path.is_file() else ' (not created yet)'}")
        typer.echo(f"vault in use: {vault or '-'} ({source})")
        # Where KRouter keeps what it makes: the indexes (your notes' words) and the query log and
        # learner's journal (your questions); removing them is yours to do after a pip install.
        typer.echo(f"cache dir:    {config.cache_dir()} (indexes: rebuilt on demand)")
        typer.echo(f"state dir:    {config.state_dir()} (query log, learner's journal, held picks)")
        for key in KEYS:
            shown = json.dumps(values[key], ensure_ascii=False) if key in values else "(broken, see below)"
            if key in env:
                effective, var = env[key]
                typer.echo(f"  {key} = {json.dumps(effective)}  (from {var}; config.toml: {shown})")
            else:
                typer.echo(f"  {key} = {shown}")
    _note_problems(problems)
    if problems:
        raise typer.Exit(1)


# The subcommands' own --json: `krouter config get vault --json`, as every other command takes it.
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


def _as_json(ctx: typer.Context, own: bool) -> bool:
    """Whether JSON was asked for: ``krouter config --json SUBCOMMAND`` (the group's option) or the
    subcommand's own ``--json``."""
    return own or bool(ctx.parent is not None and ctx.parent.params.get("as_json"))


@config_app.command("path", cls=Command)
def path_command(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Print the path of config.toml (it need not exist yet)."""
    path = config.config_path()
    typer.echo(json.dumps({"path": str(path)}, ensure_ascii=False) if _as_json(ctx, as_json) else str(path))


@config_app.command("get", cls=Command)
def get_command(
    ctx: typer.Context,
    key: Annotated[str, typer.Argument(metavar="KEY", help=f"One of: {', '.join(KEYS)}.")],
    as_json: JsonOption = False,
) -> None:
    """Print one setting's value in effect: an environment variable's ($KROUTER_VAULT, $KROUTER_SEMANTIC,
    $KROUTER_NO_QUERY_LOG; named on stderr), else config.toml's, else its default (for `vault`, which
    has none: empty output and exit 1 when it is not set). With ``krouter config --json get KEY``:
    {"key", "value"}, and "from" naming the variable."""
    as_json = _as_json(ctx, as_json)
    if key not in KEYS:
        raise fail(f"unknown setting {key!r}; known: {', '.join(KEYS)}", EXIT_USAGE, as_json=as_json)
    with exit_codes(as_json=as_json):
        cfg, problems = config.read_config()
    if key in _broken(problems):
        raise fail(problems.get(key) or problems["exclude_folders"], as_json=as_json)
    # Another setting broken: this one's value is still the file's, said with what is wrong.
    _note_problems(problems)
    values = _values(cfg, problems)
    value = values[key]
    out: dict[str, object] = {"key": key, "value": value}
    if key in (env := _from_environment(values)):
        out["value"], out["from"] = env[key]
        # stdout stays the bare value for scripts; where it comes from is for the person, on stderr.
        if not as_json:
            typer.echo(f"krouter: from {out['from']} (config.toml: {json.dumps(value)})", err=True)
    if as_json:
        typer.echo(json.dumps(out, ensure_ascii=False))
    if out["value"] is None:
        raise typer.Exit(1)
    if not as_json:
        value = out["value"]
        typer.echo(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))


@config_app.command("set", cls=Command)
def set_command(
    ctx: typer.Context,
    key: Annotated[str, typer.Argument(metavar="KEY", help=f"One of: {', '.join(SETTABLE)}.")],
    value: Annotated[
        str,
        typer.Argument(
            metavar="VALUE",
            help="A folder for vault; true/false for query_log and agent_teaching; all, agents or none "
            f"for pending_triggers; auto, on or off for semantic; 1 to {config.TEACH_CAP_MAX} for "
            "teach_daily_cap.",
        ),
    ],
    as_json: JsonOption = False,
) -> None:
    """Set one setting in config.toml (the rest of the file is kept as written)."""
    as_json = _as_json(ctx, as_json)
    new: str | bool | int
    if key == "vault":
        if not value.strip():
            # Path("") is the current folder: an unset variable would make it the default vault.
            raise fail("an empty value names no folder (is a variable unset?)", EXIT_USAGE, as_json=as_json)
        folder = Path(value).expanduser()
        if (value == config.DEMO_NAME and not folder.exists()) or config.is_demo(folder):
            raise fail(
                "the demo vault is never a default; name it per command with --vault demo",
                EXIT_USAGE,
                as_json=as_json,
            )
        if folder.exists() and not folder.is_dir():
            message = f"{folder} is a file, not a folder: a vault is a folder of Markdown pages"
            raise fail(message, EXIT_USAGE, as_json=as_json)
        if not folder.is_dir():
            raise fail(f"vault folder not found: {folder}", EXIT_USAGE, as_json=as_json)
        new = str(folder.resolve())
    elif key in SWITCHES:
        if value.lower() not in ("true", "false"):
            raise fail(f"{key} is true or false", EXIT_USAGE, as_json=as_json)
        new = value.lower() == "true"
    elif key == "pending_triggers":
        if value not in config.PENDING_MODES:
            raise fail(
                f"pending_triggers is one of: {', '.join(config.PENDING_MODES)}", EXIT_USAGE, as_json=as_json
            )
        new = value
    elif key == "semantic":
        new = config.SEMANTIC_SPELLINGS.get(value.lower(), value.lower())
        if new not in config.SEMANTIC_MODES:
            raise fail(
                f"semantic is one of: {', '.join(config.SEMANTIC_MODES)} (auto and on: used when installed)",
                EXIT_USAGE,
                as_json=as_json,
            )
    elif key == "teach_daily_cap":
        # At most four digits before int(): a 5,000-digit one raised ValueError past int's digit limit.
        if not (
            value.isascii()
            and value.isdigit()
            and len(value) <= 4
            and 1 <= int(value) <= config.TEACH_CAP_MAX
        ):
            raise fail(f"teach_daily_cap is {config.DAILY_CAP_MUST}", EXIT_USAGE, as_json=as_json)
        new = int(value)
    elif key in SETTABLE:
        new = value
    else:
        raise fail(
            f"cannot set {key!r} here; settable: {', '.join(SETTABLE)} (edit lists in the file)",
            EXIT_USAGE,
            as_json=as_json,
        )
    with exit_codes(as_json=as_json):
        path = config_edit.set_config_value(key, new)
        # A fix of one broken setting is written while another stays broken (set_config_value).
        _note_problems(config.read_config()[1], still=True)
    if as_json:
        typer.echo(json.dumps({"key": key, "value": new, "path": str(path)}, ensure_ascii=False))
    else:
        typer.echo(f"{key} = {json.dumps(new, ensure_ascii=False)} in {path}")


@config_app.command("unset", cls=Command)
def unset_command(
    ctx: typer.Context,
    key: Annotated[str, typer.Argument(metavar="KEY", help=f"One of: {', '.join(SETTABLE)}.")],
    as_json: JsonOption = False,
) -> None:
    """Remove one setting from config.toml, so its default applies again."""
    as_json = _as_json(ctx, as_json)
    if key not in SETTABLE:
        raise fail(f"cannot unset {key!r} here; settable: {', '.join(SETTABLE)}", EXIT_USAGE, as_json=as_json)
    with exit_codes(as_json=as_json):
        was_set = config_edit.is_set(key)
        path = config_edit.set_config_value(key, None)
        _note_problems(config.read_config()[1], still=True)
    if as_json:
        typer.echo(json.dumps({"key": key, "removed": was_set, "path": str(path)}, ensure_ascii=False))
    elif was_set:
        typer.echo(f"{key} removed from {path}")
    else:
        typer.echo(f"{key} is not set in {path}: its default applies")
