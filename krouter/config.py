"""Where KRouter keeps things, and the user's configuration.

Every location derives from one of three directories (cache, state, config), each overridable by an
environment variable, so tests and sandboxes can point the whole program somewhere else.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from krouter.errors import ConfigError, VaultNotFound, VaultNotNamed

APP_NAME = "krouter"
# What `--vault demo` means: the bundled demo vault, unless a folder of that name is in the way.
DEMO_NAME = "demo"
# The values of ``pending_triggers`` in config.toml: whose verified picks wait for a second source.
PENDING_MODES = ("agents", "all", "none")
# The values of ``semantic``: whether a lookup asks the semantic second opinion (krouter.routing.semantic)
# when its package is installed ("auto" and "on") or never ("off").
SEMANTIC_MODES = ("auto", "on", "off")
# Other spellings of them that $KROUTER_SEMANTIC and `krouter config set semantic` take.
SEMANTIC_SPELLINGS = {"0": "off", "false": "off", "no": "off", "1": "on", "true": "on", "yes": "on"}
# The largest ``teach_daily_cap``: a bound, however generous, is still one (0: agent_teaching = false).
TEACH_CAP_MAX = 1000
DAILY_CAP_MUST = (
    f"a whole number from 1 to {TEACH_CAP_MAX}, no decimal point (agent_teaching = false turns it off)"
)
NO_VAULT = (
    "no vault named: pass --vault DIR, set $KROUTER_VAULT, or record a default with "
    "`krouter config set vault DIR` (`krouter init DIR` creates a vault and records it); "
    "to try the bundled demo vault, pass --vault demo"
)


def _platform_dir(kind: str) -> str:
    """The platform's folder of ``kind`` (``user_cache_dir``, ...) for KRouter. platformdirs, like
    tomllib and the atomic writer below, is imported on first use: a fresh ``krouter ask`` answered by
    a running watcher (krouter.ops.ask_socket) pays only for what it reads."""
    import platformdirs

    return str(getattr(platformdirs, kind)(APP_NAME))


def cache_dir() -> Path:
    """Directory for rebuildable data: the per-vault indexes and jieba's dictionary cache."""
    return Path(os.environ.get("KROUTER_CACHE_DIR") or _platform_dir("user_cache_dir"))


def state_dir() -> Path:
    """Directory for data that cannot be rebuilt: the private query log and the learner's journal."""
    return Path(os.environ.get("KROUTER_STATE_DIR") or _platform_dir("user_state_dir"))


def config_dir() -> Path:
    """Directory holding ``config.toml``."""
    return Path(os.environ.get("KROUTER_CONFIG_DIR") or _platform_dir("user_config_dir"))


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


class Config:
    """The user's settings, read-only by convention; every field has a working default (class attributes).

    A plain class rather than a frozen dataclass: ``import dataclasses`` pulls in ``inspect`` and costs
    a fresh process ~10 ms, and a ``krouter ask`` answered by a running watcher imports this module.
    """

    vault: Path | None = None
    query_log: bool = True
    # Folders of raw material (clippings, imported sessions): ranked at half weight, never trusted
    # to replace a page. Spelled `input_folders` in config.toml (`exclude_folders` is the old name).
    exclude_folders: tuple[str, ...] = ("Inputs", "Clippings", "03 资料与证据")
    learn_model: str = "claude-sonnet-4-5"
    # Folders or files never indexed (gitignore-like patterns, as in a vault's .krouterignore).
    ignore: tuple[str, ...] = ()
    # Whether agents may teach triggers (``krouter_teach``, ``krouter teach``); the nightly learner is
    # not affected.
    agent_teaching: bool = True
    # Whose verified picks wait ("pending") until a second, independent source agrees before they are
    # written: "all" (the default: agents' and the nightly model's), "agents" (krouter_teach and krouter
    # teach only) or "none". A second source is the nightly model for an agent's pick, an agent for the
    # nightly model's, or the owner (krouter learn --accept). docs/decisions.md D50.
    pending_triggers: str = "all"
    # Whether a near-miss refusal may be turned into a citation of the same page by the local embedding
    # model of ``krouter[semantic]``: "auto" or "on" (the same: when it is installed; `krouter status`
    # says when it is not) or "off". docs/decisions.md D57.
    semantic: str = "auto"
    # How many triggers agents may teach or hold in one vault in any 24 hours (``krouter_teach``): a
    # bound on what a misled agent can put into pages or the owner's list of pending picks in a day.
    teach_daily_cap: int = 20

    def __init__(self, **settings: object) -> None:
        # Only what config.toml gave is set on the instance; the rest reads the class attributes above.
        for name, value in settings.items():
            if name not in Config.__annotations__:
                raise TypeError(f"Config has no setting {name!r}")
            setattr(self, name, value)


def load_config(path: Path | None = None) -> Config:
    """Read ``config.toml``; a missing file gives the defaults, a broken one raises ConfigError.

    Never fall back to the defaults over a broken file: they log every question and ignore nothing, so
    a typo in one setting would index the pages the user's ``ignore`` patterns leave out and log the
    questions of a user who turned the log off. Every command that reads settings stops with the error
    (naming the file and the setting) until the file is fixed, as git does over a broken config."""
    settings, problems = read_config(path)
    if problems:
        raise ConfigError(next(iter(problems.values())))
    return settings


def read_config(path: Path | None = None) -> tuple[Config, dict[str, str]]:
    """``config.toml`` read setting by setting: (the settings, each broken one at its default; what is
    wrong, by setting, each message naming the file). For what reports on the file (`krouter config`)
    or edits it; everything else uses ``load_config``. ConfigError when the file is not TOML at all."""
    path = path or config_path()
    if not path.is_file():
        if path.is_dir():
            # Read as "no settings", its ignore patterns and a query_log = false were silently dropped.
            raise ConfigError(f"{path} is a folder, not a file: remove it or put config.toml there")
        if path.is_symlink():
            # A link to a dotfiles folder not mounted, or a loop: read as "no settings", the user's
            # ignore patterns and query_log = false were silently dropped, and `config` said "not created".
            raise ConfigError(f"{path} is a symbolic link to {os.readlink(path)}, {_link_trouble(path)}")
        return Config(), {}
    try:
        # utf-8-sig: a byte-order mark (Windows Notepad) made line 1 an "Invalid statement".
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc
    return parse_config(text, path)


def _link_trouble(path: Path) -> str:
    """What is wrong with the symbolic link ``path`` that leads to no file, in words."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "which leads back to itself (a loop of links): fix or remove the link"
    return "which is not a file (is it missing?): fix or remove the link"


def _strings(value: object, names: bool = False) -> bool:
    # A folder setting holds names, each matched at any depth: "../outside" or "A/B" names no folder.
    return isinstance(value, list) and all(
        isinstance(x, str) and not (names and (x.strip("/") in ("", ".", "..") or {*"/\\"} & {*x.strip("/")}))
        for x in value
    )


_NAMES = 'a list of folder names such as ["Inputs"] (a name, not a path: not "../Inputs" nor "Notes/Inputs")'
# Each setting of config.toml: (its key, the Config field it sets, whether a value fits, what it must be).
_CHECKS: tuple[tuple[str, str, Callable[[object], bool], str], ...] = (
    ("vault", "vault", lambda v: isinstance(v, str), "a string path"),
    ("query_log", "query_log", lambda v: isinstance(v, bool), "true or false"),
    ("input_folders", "exclude_folders", lambda v: _strings(v, names=True), _NAMES),
    ("exclude_folders", "exclude_folders", lambda v: _strings(v, names=True), _NAMES),
    ("ignore", "ignore", _strings, "a list of folder or file patterns"),
    ("learn_model", "learn_model", lambda v: isinstance(v, str), "a string"),
    ("agent_teaching", "agent_teaching", lambda v: isinstance(v, bool), "true or false"),
    (
        "pending_triggers",
        "pending_triggers",
        PENDING_MODES.__contains__,
        f"one of {', '.join(map(repr, PENDING_MODES))}",
    ),
    ("semantic", "semantic", SEMANTIC_MODES.__contains__, f"one of {', '.join(map(repr, SEMANTIC_MODES))}"),
    (
        "teach_daily_cap",
        "teach_daily_cap",
        lambda v: type(v) is int and 1 <= v <= TEACH_CAP_MAX,
        DAILY_CAP_MUST,
    ),
)


def parse_config(text: str, path: Path) -> tuple[Config, dict[str, str]]:
    """``read_config`` for the text of config.toml at ``path`` (named in the messages)."""
    import tomllib

    try:
        data = tomllib.loads(text)
    except ValueError as exc:
        # TOMLDecodeError, or an integer of thousands of digits past int's limit (ValueError, uncaught).
        raise ConfigError(f"{path}: {exc}") from exc
    except RecursionError as exc:
        # Arrays or tables nested thousands deep: tomllib recurses, and the error killed `krouter watch`.
        raise ConfigError(f"{path}: nested too deeply to read (arrays or tables within each other)") from exc
    # object, not typing.Any: a fresh `krouter ask` a running watcher answers imports this, not typing.
    given: dict[str, object] = {}
    problems: dict[str, str] = {}
    for key, field, fits, must in _CHECKS:
        # ``exclude_folders`` is the old name of ``input_folders``, which wins when both are there.
        if key not in data or (key == "exclude_folders" and "input_folders" in data):
            continue
        value = data[key]
        if not fits(value):
            problems[key] = f"{path}: {key!r} must be {must}, not {value!r}"
        elif field == "vault":
            given[field] = Path(value).expanduser() if value else None
        else:
            given[field] = tuple(value) if isinstance(value, list) else value
    names = [check[0] for check in _CHECKS]
    if unknown := data.keys() - set(names):
        import difflib

        for key in sorted(unknown):
            # One letter or two off a setting ("query_logs = false") is that setting misspelt: the
            # default stayed in force, and questions were logged. Other keys (a table of the user's
            # own) are left alone.
            near = difflib.get_close_matches(key, names, n=1, cutoff=0.8)
            if near:
                problems[key] = (
                    f"{path}: unknown setting {key!r} (did you mean {near[0]!r}?); rename that line"
                )
    return Config(**given), problems


# The demo vault's guide page, which tells its copy in a source checkout from other folders.
DEMO_GUIDE = "README.md"


def bundled_vault() -> Path:
    """The demo vault shipped with the package (or beside it, in a source checkout)."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "vault_template", here.parent / "vault_template"):
        if candidate.is_dir():
            return candidate
    return here / "vault_template"


def named_vault(name: Path) -> Path:
    """What a vault named on the command line means: ``demo`` is the bundled demo vault (unless a
    folder called ``demo`` is in the current directory: a real folder wins), anything else a folder."""
    if str(name) == DEMO_NAME and not name.exists():
        return bundled_vault()
    return name


def is_demo(root: Path) -> bool:
    """True when ``root`` is the bundled demo vault (whose pages are fictional examples), or the copy a
    source checkout holds: after ``pip install .`` the package has its own copy, and the README's first
    command names the clone's ``vault_template``. A folder of that name whose guide page is the demo's,
    byte for byte, is that copy."""
    try:
        here, bundled = Path(root).expanduser().resolve(), bundled_vault().resolve()
        if here == bundled:
            return True
        guide = DEMO_GUIDE
        return here.name == bundled.name and (here / guide).read_bytes() == (bundled / guide).read_bytes()
    except OSError:
        return False


def default_vault() -> Path:
    """The vault used when none is named: ``KROUTER_VAULT``, then ``vault`` in config.toml.

    Raises VaultNotNamed when neither is set, or when ``KROUTER_VAULT`` is ``demo`` and no folder of
    that name is here. There is no fallback to the demo vault: its fictional
    pages, cited at full confidence to someone who thinks they asked their own notes, would be a lie.
    """
    env = os.environ.get("KROUTER_VAULT")
    if env:
        # Absolute, so that a folder path is never read as a vault's name ("demo" names the demo vault
        # only when typed on the command line or passed to the library).
        folder = Path(env).expanduser().absolute()
        if env == DEMO_NAME and not folder.exists():
            # Whoever wrote this meant the demo vault: "vault folder not found" would hide why not.
            raise VaultNotNamed(
                f"$KROUTER_VAULT is 'demo', read as a folder, and there is none ({folder}): the bundled "
                "demo vault is never a default; name it per command with --vault demo, or point "
                "$KROUTER_VAULT at your vault"
            )
        return folder
    configured = load_config().vault
    if configured is not None:
        return configured
    raise VaultNotNamed(NO_VAULT)


def default_vault_origin(named: bool = False) -> str:
    """Where ``default_vault()`` took its folder from, as an error about that folder ends: a path the user
    did not type on the command line is otherwise a mystery; "" when the command line ``named`` it."""
    if named:
        return ""
    if os.environ.get("KROUTER_VAULT"):
        return " (named by $KROUTER_VAULT; unset it or point it at your vault)"
    return f" (the default vault in {config_path()}; change it with `krouter config set vault DIR`)"


def vault_not_found(root: Path, named: bool) -> VaultNotFound:
    """The error for a vault folder that is not there, or is a file (``default_vault_origin`` says where
    an unnamed one came from)."""
    return VaultNotFound.at(root, default_vault_origin(named))


def vault_to_write(vault: Path | None, purpose: str) -> Path:
    """The vault for a command that writes into it: ``vault`` when named, else ``default_vault()``.

    Raises VaultNotNamed for the bundled demo vault: it lives inside the installed package, so
    writing there would put the user's data where an upgrade deletes it and every other user of the
    install reads it. ``purpose`` completes "name the vault to ...".
    """
    target = vault if vault is not None else default_vault()
    if is_demo(target):
        raise VaultNotNamed(
            f"the bundled demo vault is read-only; name your own vault to {purpose} with --vault DIR"
        )
    return target


def input_folders() -> tuple[str, ...]:
    """The configured input/clipping folder names, case-folded. A broken config.toml raises
    ConfigError, as every setting does where it is read (``load_config``)."""
    return folder_names(load_config().exclude_folders)


_WARNED: set[str] = set()


def _warn_once(message: str) -> None:
    if message not in _WARNED:
        _WARNED.add(message)
        print(f"krouter: {message}", file=sys.stderr)


def semantic_mode(*, env: bool = True) -> str:
    """The ``semantic`` setting: ``$KROUTER_SEMANTIC``'s (``semantic_from_environment``), else
    config.toml's (ConfigError when that is broken). ``env=False``: config.toml's alone."""
    return (semantic_from_environment() if env else None) or load_config().semantic


def semantic_from_environment() -> str | None:
    """``$KROUTER_SEMANTIC`` when it holds one of SEMANTIC_MODES (or 0/false/no for off, 1/true/yes for
    on); None when it is unset, or holds anything else (said once on stderr)."""
    given = os.environ.get("KROUTER_SEMANTIC", "").strip().lower()
    given = SEMANTIC_SPELLINGS.get(given, given)
    if given in SEMANTIC_MODES:
        return given
    if given:
        _warn_once(f"$KROUTER_SEMANTIC={given!r} is not one of {', '.join(SEMANTIC_MODES)}: ignored")
    return None


def folder_names(folders: Iterable[str]) -> tuple[str, ...]:
    """Folder names as ``in_folders`` compares them: NFC, case-folded, without surrounding slashes."""
    from unicodedata import normalize  # here, not at the top: only these two functions need it

    # A name typed in config.toml is NFC; one macOS wrote to disk may be NFD: the same folder.
    return tuple(normalize("NFC", normalize("NFC", f).casefold()).strip("/") for f in folders)


def vault_id(root: Path) -> str:
    """A stable short id for a vault (its resolved path, hashed): names its index file and tags its
    query-log entries."""
    # fsencode: the path's own bytes, which need not be UTF-8 (a Latin-1 folder name on an old disk);
    # for a UTF-8 path the same bytes, and so the same id, as before.
    return hashlib.sha1(os.fsencode(root)).hexdigest()[:16]


def in_folders(path: str, folders: tuple[str, ...]) -> bool:
    """True when any folder on a vault-relative path is one of ``folders`` (``folder_names``: NFC and
    case-folded, so neither the Unicode form nor the case of a name on disk hides it)."""
    from unicodedata import normalize

    return any(
        normalize("NFC", normalize("NFC", part).casefold()) in folders for part in path.split("/")[:-1]
    )
