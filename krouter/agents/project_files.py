"""The files ``krouter setup --write`` edits in the user's project: worked out whole before any is written.

Each edit is a new text computed from the file's bytes as they are (line endings, a BOM and every byte
outside KRouter's part kept), refused with the file named when it cannot be done safely: markers that do
not pair up, JSON that would not come back as written, a file its owner made read-only, text that is
not UTF-8. A file that is a symbolic link is edited where the link points (CLAUDE.md linked to
AGENTS.md stays one file), never replaced by a file of its own.
"""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path
from typing import Any

from krouter.atomic import atomic_write
from krouter.lazy_pattern import lazy_pattern
from krouter.vault.templates import closed_fenced_lines

BEGIN = "<!-- krouter:begin (managed by `krouter setup`; edits inside are replaced) -->"
END = "<!-- krouter:end -->"
# A marker counts only as a line of its own: a sentence that mentions one is the user's text.
_BEGIN_LINE = lazy_pattern(r"^<!-- krouter:begin\b.*-->[ \t]*(?=\r?$)", re.M)
_END_LINE = lazy_pattern(r"^<!-- krouter:end -->[ \t]*(?=\r?$)", re.M)


class ProjectFileError(ValueError):
    """A project file KRouter will not edit as it is; the message names it and says why."""


def target(path: Path) -> Path:
    """Where a write to ``path`` goes: the file a symbolic link points to, else ``path`` itself."""
    return path.resolve() if path.is_symlink() else path


def read(path: Path) -> str | None:
    """The file's text exactly as stored (no newline translation), or None when there is no file."""
    path = target(path)
    if not path.exists():
        return None
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProjectFileError(f"{path} is not UTF-8 text (byte {exc.start}); left as it is") from exc


def check_writable(path: Path) -> None:
    """Refuse a file its owner made read-only (a rename would replace it all the same), and one with
    other hard links (a rename would leave them with the old text: CLAUDE.md hard-linked to AGENTS.md
    became two files, a bug hunt found)."""
    path = target(path)
    if not path.exists():
        return
    st = path.stat()
    if not st.st_mode & stat.S_IWUSR:
        raise ProjectFileError(f"{path} is read-only: its owner made it so; left as it is")
    if st.st_nlink > 1:
        raise ProjectFileError(
            f"{path} has {st.st_nlink} hard links: writing it would split them into separate files; make "
            "it a symbolic link (KRouter edits where one points) or add KRouter's part by hand"
        )


def write(path: Path, text: str) -> None:
    """Write a project file atomically where it (or the link naming it) lives, keeping its mode."""
    path = target(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else None
    atomic_write(path, text, mode=mode)


def with_block(path: Path, old: str | None, snippet: str) -> str:
    """``old`` with ``snippet`` between KRouter's markers: an earlier block replaced, or one appended,
    in the file's own line endings."""
    nl = "\r\n" if old and "\r\n" in old else "\n"
    block = nl.join([BEGIN, *snippet.rstrip().split("\n"), END]) + nl
    if not old:
        return block
    begins, ends = _markers(old)
    if not begins and not ends:
        # One blank line between the user's text and the block.
        sep = "" if old.endswith(nl * 2) else nl if old.endswith("\n") else nl * 2
        return old + sep + block
    if len(begins) != 1 or len(ends) != 1 or ends[0].start() < begins[0].end():
        raise ProjectFileError(
            f"{path}: KRouter's marker lines do not pair up ({len(begins)} begin, {len(ends)} end); "
            "fix them by hand (or remove KRouter's block), then re-run"
        )
    start, end = begins[0].start(), ends[0].end()
    return old[:start] + block.rstrip("\r\n") + old[end:]


def without_block(path: Path, old: str) -> str | None:
    """``old`` with KRouter's marked block taken out, the blank line ``with_block`` put before an
    appended one too; None when there is no block. Markers that do not pair up are refused, as
    ``with_block`` refuses them."""
    begins, ends = _markers(old)
    if not begins and not ends:
        return None
    if len(begins) != 1 or len(ends) != 1 or ends[0].start() < begins[0].end():
        raise ProjectFileError(
            f"{path}: KRouter's marker lines do not pair up ({len(begins)} begin, {len(ends)} end); "
            "remove KRouter's block by hand"
        )
    start, end = begins[0].start(), ends[0].end()
    after = old[end:]
    after = after[2:] if after.startswith("\r\n") else after[1:] if after.startswith("\n") else after
    before = old[:start]
    nl = "\r\n" if "\r\n" in old else "\n"
    # The blank line setup put before the block goes with it, when nothing or another blank line follows;
    # a block that opens the file takes the blank line after it.
    if before.endswith(nl * 2) and (not after or after.startswith(nl)):
        before = before[: -len(nl)]
    elif not before and after.startswith(nl):
        after = after[len(nl) :]
    return before + after


def _markers(text: str) -> tuple[list[re.Match[str]], list[re.Match[str]]]:
    """KRouter's begin and end marker lines in ``text``. A marker inside a code block is the user's
    example of one (a bug hunt: an onboarding page showing the block had its example replaced); not
    one after a fence the user never closed, where setup appended its block (a cold review: the block
    was then found nowhere, and appended again on every run)."""
    fenced = closed_fenced_lines(text.split("\n"))
    begins = [m for m in _BEGIN_LINE.finditer(text) if text.count("\n", 0, m.start()) not in fenced]
    ends = [m for m in _END_LINE.finditer(text) if text.count("\n", 0, m.start()) not in fenced]
    return begins, ends


def without_mcp_entry(path: Path, old: str) -> str | None:
    """``old`` (a JSON MCP config) without ``mcpServers.krouter``, every other byte kept as
    ``with_mcp_entry`` keeps them (an ``mcpServers`` left empty stays); "" when nothing else is left
    in it; None when it names no krouter server. Refused as ``with_mcp_entry`` refuses a file it
    could not write back as it was."""
    if not old.strip():
        return None
    try:
        data = json.loads(old, object_pairs_hook=_strict_object, parse_constant=_no_constant)
    except (json.JSONDecodeError, ProjectFileError, RecursionError) as exc:
        raise ProjectFileError(
            f"{path} is not JSON KRouter can read ({exc}); remove KRouter's entry by hand"
        ) from exc
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict) or "krouter" not in servers:
        return None
    crlf = "\r\n" in old
    layout = next((lay for lay in _LAYOUTS if _written(data, lay, crlf).rstrip() == old.rstrip()), None)
    if layout is None:
        raise ProjectFileError(
            f"{path} is laid out in a way KRouter would not write back byte for byte; remove its "
            '"krouter" server by hand'
        )
    del servers["krouter"]
    if data == {"mcpServers": {}}:
        return ""
    return _written(data, layout, crlf).rstrip() + old[len(old.rstrip()) :]


def _strict_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ProjectFileError(f"the key {next(k for k in keys if keys.count(k) > 1)!r} is written twice")
    return dict(pairs)


def _no_constant(name: str) -> Any:
    raise ProjectFileError(f"it holds {name}, which JSON does not allow")


def with_mcp_entry(path: Path, old: str | None, entry: dict[str, Any]) -> str | None:
    """``old`` (a JSON MCP config) with ``mcpServers.krouter`` set to ``entry``, every other key and
    server kept, and keys the user added to KRouter's own entry (an ``env``) too; None when it already
    says so. Written back in the layout the file has (``_LAYOUTS``, line endings kept); refused when
    the file would not come back byte for byte outside KRouter's entry: not a JSON object, a key
    written twice, NaN or Infinity, or laid out by hand (a number Python writes another way too)."""
    data: dict[str, Any] = {}
    crlf = old is not None and "\r\n" in old
    layout: tuple[int | str | None, bool] | None = _LAYOUTS[0]
    if old is not None and old.strip():
        try:
            loaded = json.loads(old, object_pairs_hook=_strict_object, parse_constant=_no_constant)
        except json.JSONDecodeError as exc:
            raise ProjectFileError(
                f"{path} is not valid JSON ({exc}); fix it or remove it, then re-run"
            ) from exc
        except ProjectFileError as exc:
            raise ProjectFileError(f"{path}: {exc}; fix it, then re-run") from exc
        except RecursionError as exc:
            raise ProjectFileError(
                f"{path} nests too deeply to read; fix it or remove it, then re-run"
            ) from exc
        if not isinstance(loaded, dict):
            raise ProjectFileError(f"{path} does not hold a JSON object; fix it or remove it, then re-run")
        # Found before anything is set in it.
        layout = next((lay for lay in _LAYOUTS if _written(loaded, lay, crlf).rstrip() == old.rstrip()), None)
        data = loaded
        # A file with no final newline gets none: every byte outside KRouter's entry is kept.
        final = old[len(old.rstrip()) :]
    servers = data.get("mcpServers")
    if servers is None:
        servers = data["mcpServers"] = {}
    if not isinstance(servers, dict):
        raise ProjectFileError(f'{path}: "mcpServers" is not an object; fix it, then re-run')
    mine = servers.get("krouter")
    merged = {**mine, **entry} if isinstance(mine, dict) else entry
    if mine == merged:
        return None  # nothing to write, however the file is laid out (by hand, as told to)
    if layout is None:
        # Rewritten, its indentation, escapes or numbers would change: the promise is every byte
        # outside KRouter's part.
        raise ProjectFileError(
            f"{path} is laid out in a way KRouter would not write back byte for byte; add KRouter's "
            "entry by hand (krouter setup without --write prints it)"
        )
    servers["krouter"] = merged
    written = _written(data, layout, crlf)
    return written if old is None or not old.strip() else written.rstrip() + final


# The layouts JSON is written in by tools (JSON.stringify with 2 or 4 spaces or a tab, Python's
# json.dumps on one line), each with text unescaped or escaped: (indent, ensure_ascii). A new file gets
# the first.
_LAYOUTS: tuple[tuple[int | str | None, bool], ...] = tuple(
    (indent, ascii_only) for indent in (2, 4, "\t", None) for ascii_only in (False, True)
)


def _written(data: dict[str, Any], layout: tuple[int | str | None, bool], crlf: bool) -> str:
    """``data`` in ``layout``, with a final newline, in CRLF line endings when ``crlf``."""
    indent, ascii_only = layout
    text = json.dumps(data, indent=indent, ensure_ascii=ascii_only) + "\n"
    return text.replace("\n", "\r\n") if crlf else text
