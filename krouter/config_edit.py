"""Writing one setting into ``config.toml`` (``krouter config set``, ``krouter init``), keeping the rest of
the file as the user wrote it."""

from __future__ import annotations

import json
import re
from pathlib import Path

from krouter.config import config_path, parse_config
from krouter.errors import ConfigError
from krouter.file_lock import state_lock

# In the state dir (private, KRouter's own), not beside the user's config.toml.
CONFIG_LOCK_NAME = "config.lock"


def _toml_value(value: str | bool | int) -> str:
    # A JSON string is a valid TOML basic string (the same escapes); JSON's booleans and integers are TOML's.
    return json.dumps(value, ensure_ascii=False)


def _trailing_comment(line: str) -> str:
    """The ``# ...`` comment ending a TOML line, or "": a ``#`` inside a quoted string is not one."""
    quote = ""
    escaped = False
    for i, ch in enumerate(line):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\" and quote == '"':
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            return line[i:].rstrip("\r\n").rstrip()
    return ""


def set_config_value(key: str, value: str | bool | int | None, path: Path | None = None) -> Path:
    """Set (or, with ``None``, remove) one top-level scalar setting in ``config.toml``.

    Every other line of the file is kept as written, and the setting's own line keeps its place and its
    comment (``semantic = "off"  # slow laptop``). The result is checked before it replaces the file: one
    that is not TOML, or whose ``key`` is wrong, or that is broken while ``key`` was not (a change that
    would leave the file as unusable as it was), raises ConfigError naming the broken setting, the old
    file untouched. A fix of a broken setting is written even while another stays broken (``read_config``
    says which): refusing it too would leave no setting fixable this way while two are broken.
    Returns the path.
    """
    path = path or config_path()
    # A config.toml linked from a dotfiles folder is edited there, not replaced by a file of its own.
    if path.is_symlink():
        try:
            path = path.resolve(strict=True)
        except FileNotFoundError:
            path = path.resolve()  # a link to a file not there yet: written where it points
        except (OSError, RuntimeError) as exc:
            # A loop: RuntimeError before Python 3.13, OSError (ELOOP) since. Not resolved without
            # strict: Python 3.13 returns a loop's path itself, and the write replaced the link.
            raise ConfigError(
                f"{path} is a symbolic link that leads back to itself (a loop of links): fix or remove the link"
            ) from exc
    # Two `krouter config set` at once each read the file and renamed their own copy over it: one
    # setting was lost while both said it was set.
    with state_lock(CONFIG_LOCK_NAME):
        _set(path, key, value)
    return path


def is_set(key: str, path: Path | None = None) -> bool:
    """Whether ``config.toml`` sets ``key`` at its top level (False when there is no such file, or it
    cannot be read: ``set_config_value`` then says why)."""
    import tomllib

    path = path or config_path()
    try:
        return path.is_file() and key in tomllib.loads(path.read_bytes().decode("utf-8-sig"))
    # ValueError: TOMLDecodeError, or an integer past int's digit limit.
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return False


def _set(path: Path, key: str, value: str | bool | int | None) -> None:
    # Bytes decoded as they are: Python's newline translation turned a CRLF file into LF.
    try:
        # utf-8-sig: a byte-order mark is read past, as read_config does, and not written back.
        old = path.read_bytes().decode("utf-8-sig") if path.is_file() else ""
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path} is not UTF-8 text (byte {exc.start}: {exc.reason}); fix it by hand, then set {key!r}"
        ) from exc
    nl = "\r\n" if "\r\n" in old else "\n"
    lines = old.splitlines(keepends=True)
    # Written bare or quoted ("vault" = ...): a quoted one missed was set a second time, which TOML refuses.
    pattern = re.compile(rf"""^\s*(?:{re.escape(key)}|"{re.escape(key)}"|'{re.escape(key)}')\s*=""")
    # Top-level keys are the ones before the first [table] header.
    top = next((i for i, line in enumerate(lines) if line.lstrip().startswith("[")), len(lines))
    mine = [i for i in range(top) if pattern.match(lines[i])]
    kept = [line for i, line in enumerate(lines) if i not in mine[1:]]
    if value is not None:
        line = f"{key} = {_toml_value(value)}"
        if mine:
            old_line = lines[mine[0]]
            comment = _trailing_comment(old_line)
            ending = old_line[len(old_line.rstrip("\r\n")) :] or nl
            kept[mine[0]] = line + (f"  {comment}" if comment else "") + ending
        else:
            kept.insert(0, line + nl)
    elif mine:
        del kept[mine[0]]
    new = "".join(kept)
    import tomllib

    from krouter.atomic import atomic_write

    try:
        tomllib.loads(new)
    # ValueError: TOMLDecodeError, or an integer past int's digit limit (as parse_config reads it).
    except (ValueError, RecursionError) as exc:
        try:
            tomllib.loads(old)
        except (ValueError, RecursionError) as broken:
            # The file was broken before the edit: its own error, at its own line (the edited copy's
            # line numbers named lines the user's file does not have).
            raise ConfigError(f"{path} is not TOML ({broken}); fix it by hand, then set {key!r}") from exc
        raise ConfigError(f"{path}: cannot set {key!r} ({exc}); edit the file by hand") from exc
    problems = parse_config(new, path)[1]
    if problems and (key in problems or not _was_broken(key, old, path)):
        broken = key if key in problems else next(iter(problems))
        fix = "" if broken == key else f"; fix that setting first, then set {key!r}"
        raise ConfigError(f"{problems[broken]}{fix} ({path} is left as it was)")
    if new == old:
        return  # nothing to change: an unset of a key never set made an empty config.toml
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else None
    atomic_write(path, new, mode=mode)


def _was_broken(key: str, text: str, path: Path) -> bool:
    """Whether setting ``key`` is a fix of the file ``text``: the key was broken, or the file was not
    TOML (the key's own line was what broke it)."""
    try:
        return key in parse_config(text, path)[1]
    except ConfigError:
        return True
