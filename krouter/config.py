"""Where KRouter keeps things, and the user's configuration.

Every location derives from one of three directories (cache, state, config), each overridable by an
environment variable, so tests and sandboxes can point the whole program somewhere else.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from krouter.errors import ConfigError, VaultNotNamed

APP_NAME = "krouter"


def cache_dir() -> Path:
    """Directory for rebuildable data: the per-vault indexes and jieba's dictionary cache."""
    return Path(os.environ.get("KROUTER_CACHE_DIR") or platformdirs.user_cache_dir(APP_NAME))


def state_dir() -> Path:
    """Directory for data that cannot be rebuilt: the private query log and the learner's journal."""
    return Path(os.environ.get("KROUTER_STATE_DIR") or platformdirs.user_state_dir(APP_NAME))


def config_dir() -> Path:
    """Directory holding ``config.toml``."""
    return Path(os.environ.get("KROUTER_CONFIG_DIR") or platformdirs.user_config_dir(APP_NAME))


def config_path() -> Path:
    """Path of the user's configuration file (it need not exist)."""
    return config_dir() / "config.toml"


def private_dir(folder: Path) -> Path:
    """Create ``folder`` 0700, with every missing parent 0700 too (XDG's rule for folders a program
    creates: ``~/.cache`` made by us must not be world-readable), and narrow ``folder`` itself to 0700
    if it is wider: the cache and state dirs hold the words of the user's notes and questions."""
    missing: list[Path] = []
    probe = folder
    while not probe.exists() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    for part in reversed(missing):
        with contextlib.suppress(FileExistsError):  # another process made it meanwhile
            os.mkdir(part, 0o700)
    if not folder.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "not a folder", str(folder))
    if folder.stat().st_mode & 0o077:
        # Best effort: a folder someone else owns stays as it is rather than make KRouter unusable.
        with contextlib.suppress(PermissionError):
            os.chmod(folder, 0o700)
    return folder


@dataclass(frozen=True)
class Config:
    """The user's settings; every field has a working default."""

    vault: Path | None = None
    query_log: bool = True
    exclude_folders: tuple[str, ...] = ("Inputs", "Clippings", "03 资料与证据")
    learn_model: str = "claude-sonnet-4-5"
    # Whether agents may teach triggers (``krouter_teach``, ``krouter teach``); the nightly learner is
    # not affected.
    agent_teaching: bool = True


def load_config(path: Path | None = None) -> Config:
    """Read ``config.toml``; a missing file gives the defaults, a broken one raises ConfigError."""
    path = path or config_path()
    if not path.is_file():
        return Config()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc
    vault = data.get("vault")
    if vault is not None and not isinstance(vault, str):
        raise ConfigError(f"{path}: 'vault' must be a string path")
    query_log = data.get("query_log", True)
    if not isinstance(query_log, bool):
        raise ConfigError(f"{path}: 'query_log' must be true or false")
    exclude = data.get("exclude_folders", list(Config.exclude_folders))
    if not isinstance(exclude, list) or not all(isinstance(x, str) for x in exclude):
        raise ConfigError(f"{path}: 'exclude_folders' must be a list of folder names")
    model = data.get("learn_model", Config.learn_model)
    if not isinstance(model, str):
        raise ConfigError(f"{path}: 'learn_model' must be a string")
    agent_teaching = data.get("agent_teaching", True)
    if not isinstance(agent_teaching, bool):
        raise ConfigError(f"{path}: 'agent_teaching' must be true or false")
    return Config(
        vault=Path(vault).expanduser() if vault else None,
        query_log=query_log,
        exclude_folders=tuple(exclude),
        learn_model=model,
        agent_teaching=agent_teaching,
    )


def bundled_vault() -> Path:
    """The demo vault shipped with the package (or beside it, in a source checkout)."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "vault_template", here.parent / "vault_template"):
        if candidate.is_dir():
            return candidate
    return here / "vault_template"


def default_vault() -> Path:
    """The vault used when none is named: ``KROUTER_VAULT``, then the configured one, then the demo vault."""
    env = os.environ.get("KROUTER_VAULT")
    if env:
        return Path(env).expanduser()
    configured = load_config().vault
    if configured is not None:
        return configured
    return bundled_vault()


def vault_to_write(vault: Path | None, purpose: str) -> Path:
    """The vault for a command that writes into it: ``vault`` when named, else ``default_vault()``.

    Raises VaultNotNamed instead of falling back to the bundled demo vault: it lives inside the
    installed package, so writing there would put the user's data where an upgrade deletes it and
    every other user of the install reads it. ``purpose`` completes "name the vault to ...".
    """
    if vault is not None:
        return vault
    target = default_vault()
    if target.expanduser().resolve() == bundled_vault().resolve():
        raise VaultNotNamed(
            f"name the vault to {purpose} with --vault DIR (or set $KROUTER_VAULT, or vault in config.toml)"
        )
    return target


def input_folders() -> tuple[str, ...]:
    """The configured input/clipping folder names, case-folded (defaults when config.toml is broken:
    a lookup must not fail over a setting it can do without)."""
    try:
        folders = load_config().exclude_folders
    except ConfigError:
        folders = Config.exclude_folders
    return folder_names(folders)


def folder_names(folders: Iterable[str]) -> tuple[str, ...]:
    """Folder names as ``in_folders`` compares them: case-folded, without surrounding slashes."""
    return tuple(f.casefold().strip("/") for f in folders)


def vault_id(root: Path) -> str:
    """A stable short id for a vault (its resolved path, hashed): names its index file and tags its
    query-log entries."""
    return hashlib.sha1(str(root).encode("utf-8")).hexdigest()[:16]


def in_folders(path: str, folders: tuple[str, ...]) -> bool:
    """True when any folder on a vault-relative path is one of ``folders`` (case-folded names)."""
    return any(part.casefold() in folders for part in path.split("/")[:-1])
