"""Install-time helper for install.sh: KRouter's directories, and the service units rendered with them.

install.sh is POSIX sh; quoting a path for systemd or for XML is easier to get right, and to test, here.
Run as ``python -m krouter.ops.units path state|cache|config|vault|bundled-vault`` or
``python -m krouter.ops.units render systemd|launchd OUTDIR --vault DIR [--learn] [--watch]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from xml.sax.saxutils import escape as xml_escape

from krouter import config
from krouter.atomic import atomic_write
from krouter.lazy_pattern import lazy_pattern

# Which template files make up each job, per service manager.
JOBS = {
    "systemd": {
        "learn": ("krouter-learn.service", "krouter-learn.timer"),
        "watch": ("krouter-watch.service",),
    },
    "launchd": {"learn": ("com.krouter.learn.plist",), "watch": ("com.krouter.watch.plist",)},
}

# Refused in any path we template: systemd would read `"` and `\` as quoting, `$` as a variable in
# ExecStart=; control characters (a newline above all) would end the directive.
_UNSAFE = set('"\\$') | {chr(c) for c in range(32)} | {"\x7f"}


_PLACEHOLDER = lazy_pattern(r"@[A-Z_]+@")


class UnitError(Exception):
    """A path cannot be put into a unit safely, or the templates are missing."""


def template_dir(kind: str) -> Path:
    """The templates: inside the installed package (wheel), or at the top of a source checkout."""
    here = Path(__file__).resolve().parents[1]  # the krouter package (this module is in krouter/ops)
    for candidate in (here / "templates" / kind, here.parent / kind):
        if candidate.is_dir():
            return candidate
    raise UnitError(f"the {kind} templates are missing from this install ({here / 'templates' / kind})")


def _quote_for(kind: str, value: str) -> str:
    bad = sorted({ch for ch in value if ch in _UNSAFE})
    if bad:
        raise UnitError(f"path {value!r} holds characters a unit file cannot carry safely: {bad!r}")
    if kind == "systemd":
        if ":" in value:  # BindPaths= reads `:` as source:target:options
            raise UnitError(f"path {value!r} holds ':', which systemd's BindPaths= cannot carry")
        return value.replace("%", "%%")  # `%` starts a specifier in every directive
    return xml_escape(value)


def values(vault: Path) -> dict[str, str]:
    """The placeholder values for this install: the running venv, its interpreter, and KRouter's dirs."""
    venv = Path(sys.prefix)
    return {
        "@KROUTER@": str(venv / "bin" / "krouter"),
        "@VENV@": str(venv),
        "@PYTHON_PREFIX@": str(Path(sys.base_prefix).resolve()),
        "@VAULT@": str(vault),
        "@STATE_DIR@": str(config.state_dir().absolute()),
        "@CACHE_DIR@": str(config.cache_dir().absolute()),
        "@CONFIG_DIR@": str(config.config_dir().absolute()),
    }


def render(text: str, kind: str, mapping: dict[str, str]) -> str:
    """Fill every placeholder; a placeholder left over means a template and this code disagree."""
    for key, value in mapping.items():
        text = text.replace(key, _quote_for(kind, value))
    leftover = sorted(set(_PLACEHOLDER.findall(text)))
    if leftover:
        raise UnitError(f"unfilled placeholders: {leftover}")
    return text


def check_vault(vault: Path) -> Path:
    """The learner writes into the vault, so it must be a real folder and not the bundled demo vault."""
    vault = vault.expanduser().resolve()
    if not vault.is_dir():
        raise UnitError(f"vault {vault} is not a folder")
    # The clone's vault_template is the demo too (the README's first command names it): a timer on it
    # failed every night ("the bundled demo vault is read-only"), and a watcher served fictional pages.
    if config.is_demo(vault) or vault.is_relative_to(Path(sys.prefix).resolve()):
        raise UnitError(
            f"{vault} is the demo vault inside the install; create your own with `krouter init DIR`"
        )
    return vault


def write_units(kind: str, outdir: Path, vault: Path, jobs: list[str]) -> list[Path]:
    """Render the chosen jobs' templates into OUTDIR (atomically, so a unit is never half-written)."""
    mapping = values(check_vault(vault))
    source = template_dir(kind)
    outdir.mkdir(parents=True, exist_ok=True)
    written = []
    for job in jobs:
        for name in JOBS[kind][job]:
            text = render((source / name).read_text(encoding="utf-8"), kind, mapping)
            target = outdir / name
            atomic_write(target, text)
            written.append(target)
    return written


def _path(name: str) -> str:
    if name == "vault":
        try:
            configured = config.load_config().vault
        except config.ConfigError:
            configured = None
        return str(configured) if configured else ""
    getters = {
        "state": config.state_dir,
        "cache": config.cache_dir,
        "config": config.config_dir,
        "bundled-vault": config.bundled_vault,
    }
    return str(getters[name]().absolute())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m krouter.ops.units", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser(
        "path", help="print one of KRouter's directories (vault: the configured one, or nothing)"
    )
    p.add_argument("name", choices=["state", "cache", "config", "vault", "bundled-vault"])
    r = sub.add_parser("render", help="write the service units for this install into OUTDIR")
    r.add_argument("kind", choices=sorted(JOBS))
    r.add_argument("outdir", type=Path)
    r.add_argument("--vault", type=Path, required=True)
    r.add_argument("--learn", action="store_true", help="the nightly learner")
    r.add_argument("--watch", action="store_true", help="the index watcher")
    args = parser.parse_args(argv)
    if args.command == "path":
        print(_path(args.name))
        return 0
    jobs = [job for job in ("learn", "watch") if getattr(args, job)]
    try:
        for target in write_units(args.kind, args.outdir, args.vault, jobs):
            print(target)
    except (UnitError, OSError) as exc:
        print(f"krouter: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
