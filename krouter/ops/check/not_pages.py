"""Markdown files of a vault that are not among its pages (unreadable, not UTF-8, too large, a symbolic
link, or ignored), so that ``krouter check`` reports a replacement link naming one of them as that,
rather than as a link that "names no page" when the file is plainly there."""

from __future__ import annotations

import os
from pathlib import Path

from krouter.vault.links import LinkResolver

IGNORED = "is ignored (.krouterignore, the `ignore` setting or Obsidian's excluded files)"


class NotPages:
    """The vault's ``.md`` files outside ``pages``, each with why it is not one; looked for on first
    need only (a vault whose links all resolve is never walked twice)."""

    def __init__(self, root: Path, pages: list[str], why: dict[str, str]) -> None:
        """``why`` gives the reason for files the walk met but could not read; any other ``.md`` file
        the walk left out was ignored by the vault's rules."""
        self._root = root
        self._pages = pages
        self._why = dict(why)
        self._resolver: LinkResolver | None = None

    def explain(self, raw: str, source: str) -> str | None:
        """``names PATH, which exists but WHY`` when the link ``raw`` on ``source`` names one such file
        (resolved as links to pages are), else None."""
        if self._resolver is None:
            self._find_ignored()
            self._resolver = LinkResolver([*self._pages, *self._why])
        found = self._resolver.matches(raw, source)
        if len(found) != 1 or found[0] not in self._why:
            return None
        return f"names {found[0]}, which exists but {self._why[found[0]]}"

    def _find_ignored(self) -> None:
        known = {*self._pages, *self._why}
        for folder, dirs, files in os.walk(self._root):
            # As the vault walk: dot-folders are never part of the vault.
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            prefix = Path(folder).relative_to(self._root).as_posix()
            for name in files:
                rel = name if prefix == "." else f"{prefix}/{name}"
                if not name.lower().endswith(".md") or name.startswith(".") or rel in known:
                    continue
                try:
                    rel.encode("utf-8")
                except UnicodeEncodeError:
                    continue  # a name that is not UTF-8: the walk reports it as such
                self._why[rel] = IGNORED
