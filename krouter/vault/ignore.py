"""Folders and files of a vault that are never indexed (beyond dot-folders, which are always skipped).

Patterns come from three places, all read on every vault walk so an edit takes effect at the next
lookup (a running watcher has the whole vault walked again when one of them changes, ``RULE_FILES``): ``ignore = [...]`` in config.toml, the vault's own ``.krouterignore`` (one pattern a line, as in
``.gitignore``), and Obsidian's settings inside the vault (the core Templates plugin's folder, the
Templater plugin's folder, and "Excluded files"), so a template full of placeholders never answers; in
a Logseq graph, Logseq's own copies of pages (``logseq/bak/``, ``logseq/version-files/``).

Pattern rules (a subset of ``.gitignore``): ``#`` starts a comment; a trailing ``/`` matches folders
only; a pattern containing ``/`` elsewhere is matched against the vault-relative path (a leading ``/``
is dropped), any other against the name at any depth; ``*``, ``?`` and ``[...]`` are wildcards;
letter case is ignored (Obsidian runs on case-insensitive disks). ``!`` (un-ignore) is not supported:
such lines are skipped.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import re
from dataclasses import dataclass
from fnmatch import translate
from pathlib import Path

from krouter import config

IGNORE_FILE = ".krouterignore"
# Obsidian's own settings files (inside the vault) that name folders to leave out, and the key.
_OBSIDIAN = (
    (".obsidian/templates.json", "folder"),
    (".obsidian/plugins/templater-obsidian/data.json", "templates_folder"),
)
_OBSIDIAN_APP = ".obsidian/app.json"
# Logseq keeps its own copies of pages in the graph's logseq/ folder: backups of a page it found changed
# on disk, and file versions. Stale by design, they were cited over the live page ("Wi-Fi channel is 6"
# where the page now says 36: a cold review).
_LOGSEQ_COPIES = ["/logseq/bak/", "/logseq/version-files/"]
# Every file inside a vault whose content changes which of its pages are indexed (vault-relative): a
# file watcher must have the whole vault walked again when one changes.
RULE_FILES = frozenset({IGNORE_FILE, _OBSIDIAN_APP, *(rel for rel, _key in _OBSIDIAN)})


@dataclass(frozen=True)
class _Rule:
    pattern: str  # case-folded, without leading or trailing "/"
    anchored: bool
    folders_only: bool


def _rule(line: str) -> _Rule | None:
    text = line.strip()
    if not text or text.startswith(("#", "!")):
        return None
    folders_only = text.endswith("/")
    text = text.strip("/")
    if not text:
        return None
    return _Rule(text.casefold(), "/" in text or line.strip().startswith("/"), folders_only)


def _union(rules: list[_Rule]) -> re.Pattern[str] | None:
    # One regular expression per kind of rule: the vault walk asks about every entry on every lookup.
    return re.compile("|".join(translate(r.pattern) for r in rules)) if rules else None


class IgnoreRules:
    """The ignore patterns in force for one vault, and Obsidian's excluded files (``_obsidian_filters``)."""

    def __init__(self, rules: tuple[_Rule, ...], obsidian: _ObsidianFilters | None = None) -> None:
        self.rules = rules
        self.obsidian = obsidian
        # (matched against the name or the path, folders only) -> the union of those patterns
        self._by_kind = {
            (anchored, folders): _union(
                [r for r in rules if r.anchored == anchored and r.folders_only == folders]
            )
            for anchored in (False, True)
            for folders in (False, True)
        }

    def ignored(self, rel_path: str, is_folder: bool) -> bool:
        """True when the vault-relative ``rel_path`` (a folder when ``is_folder``) is left out."""
        written = rel_path.strip("/")
        if self.obsidian is not None and self.obsidian.excludes(written, is_folder):
            return True
        path = written.casefold()
        name = path.rsplit("/", 1)[-1]
        for (anchored, folders), pattern in self._by_kind.items():
            if (
                pattern is not None
                and (is_folder or not folders)
                and pattern.match(path if anchored else name)
            ):
                return True
        return False


def _obsidian_patterns(root: Path) -> list[str]:
    """The template folders Obsidian's settings name, as patterns."""
    patterns = []
    for rel, key in _OBSIDIAN:
        try:
            data = json.loads((root / rel).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError):
            continue
        folder = data.get(key) if isinstance(data, dict) else None
        if isinstance(folder, str) and folder.strip("/ "):
            patterns.append(f"/{folder.strip('/ ')}/")
    return patterns


@dataclass(frozen=True)
class _ObsidianFilters:
    """Obsidian's "Excluded files" as Obsidian applies them, to each file's vault-relative path: an entry
    excludes every path that starts with it (``prefixes``, one pattern; letter case aside, as KRouter's
    own patterns), ``/regex/`` every path it matches (``regexes``). A folder is left out whole only when
    every path in it starts with an entry; a regex is asked of files alone ("files whose name starts with
    _" left out every page of a folder called _inbox: a cold review)."""

    prefixes: re.Pattern[str] | None
    regexes: tuple[re.Pattern[str], ...]

    def excludes(self, path: str, is_folder: bool) -> bool:
        if self.prefixes is not None and self.prefixes.match(path + "/" if is_folder else path):
            return True
        return not is_folder and any(r.search(path) for r in self.regexes)


def _obsidian_filters(root: Path) -> tuple[_ObsidianFilters | None, str | None]:
    """Obsidian's "Excluded files" (``userIgnoreFilters`` in .obsidian/app.json), and why some cannot apply,
    or None. A regex was skipped and a path read as a whole name, and the pages they exclude in Obsidian
    were indexed and cited, with no word (a bug hunt); so were all of them when app.json does not parse.
    An entry starting with "/" that is no regex names no path (Obsidian's paths never start so)."""
    try:
        app = json.loads((root / _OBSIDIAN_APP).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, None
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        return None, f"cannot be read ({why}): Obsidian's excluded files are not left out"
    filters = app.get("userIgnoreFilters") if isinstance(app, dict) else None
    prefixes, regexes, bad = [], [], []
    for entry in filters if isinstance(filters, list) else ():
        text = entry.strip() if isinstance(entry, str) else ""
        if len(text) > 2 and text.startswith("/") and text.endswith("/"):
            try:
                regexes.append(re.compile(text[1:-1]))
            except re.error:
                bad.append(text)
        elif text and not text.startswith("/"):
            prefixes.append(re.escape(text))
    union = re.compile(f"(?:{'|'.join(prefixes)})", re.IGNORECASE) if prefixes else None
    found = _ObsidianFilters(union, tuple(regexes)) if union or regexes else None
    if bad:
        return found, f"excluded files {', '.join(map(repr, bad))} are not regular expressions KRouter reads"
    return found, None


def ignore_rules(root: Path) -> IgnoreRules | None:
    """The rules for the vault at ``root``; None when nothing is ignored (the common, fast case)."""
    # A broken config.toml raises ConfigError here: indexing with no patterns would index and cite the
    # very pages the user's ignore patterns leave out.
    lines = [*config.load_config().ignore, *_ignore_file(root)[0]]
    obsidian = None
    # An unreadable vault folder is the walk's to report, by its own name, not .obsidian's.
    with contextlib.suppress(OSError):
        if (root / ".obsidian").is_dir():
            lines += _obsidian_patterns(root)
            obsidian = _obsidian_filters(root)[0]
        if (root / "logseq").is_dir():
            lines += _LOGSEQ_COPIES
    rules = tuple(r for r in map(_rule, lines) if r is not None)
    return IgnoreRules(rules, obsidian) if rules or obsidian else None


def _ignore_file(root: Path) -> tuple[list[str], str | None]:
    """The lines of the vault's ``.krouterignore`` ([] when there is none) and, when it is there but
    cannot be read, why (``krouter check`` reports it: the pages it lists are indexed and cited)."""
    try:
        data = (root / IGNORE_FILE).read_bytes()
    except FileNotFoundError:
        return [], None
    except OSError as exc:
        why = "it is a folder, not a file" if isinstance(exc, IsADirectoryError) else exc.strerror or exc
        return [], f"cannot be read ({why}): none of its patterns apply"
    # Windows editors: Notepad's byte-order mark made the first pattern "\ufeffPrivate/", which matched
    # nothing; PowerShell's `>` writes UTF-16.
    codec = "utf-16" if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE) else "utf-8-sig"
    try:
        return data.decode(codec).splitlines(), None
    except UnicodeDecodeError as exc:
        # Every other line still applies: dropping them all indexed and cited the private pages they
        # list, for one stray byte (the diff review).
        lines = data.decode(codec, errors="replace").splitlines()
        return (
            lines,
            f"is not UTF-8 text ({exc.reason} at byte {exc.start}): the line holding it may not apply",
        )


def ignore_problems(root: Path) -> list[tuple[str, str]]:
    """(file, why) for each file of ignore rules that cannot apply whole: the vault's ``.krouterignore``
    unreadable, Obsidian's app.json unreadable or holding a regex KRouter cannot read. The pages they
    would leave out are indexed and cited: ``krouter check`` and ``krouter status`` say so."""
    found = []
    if (why := _ignore_file(root)[1]) is not None:
        found.append((IGNORE_FILE, why))
    with contextlib.suppress(OSError):
        if (root / ".obsidian").is_dir() and (why := _obsidian_filters(root)[1]) is not None:
            found.append((_OBSIDIAN_APP, why))
    return found


def excluded(root: Path, rel_path: str) -> bool:
    """True when the ignore rules in force for the vault at ``root`` leave out the file at the
    vault-relative ``rel_path``, itself or through one of its folders."""
    return excluded_by(ignore_rules(root), rel_path)


def excluded_by(rules: IgnoreRules | None, rel_path: str) -> bool:
    """``excluded`` with the rules read already (``ignore_rules``)."""
    if rules is None:
        return False
    parts = rel_path.strip("/").split("/")
    folders = ("/".join(parts[:i]) for i in range(1, len(parts)))
    return rules.ignored(rel_path, False) or any(rules.ignored(f, True) for f in folders)
