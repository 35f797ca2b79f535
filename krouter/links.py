"""Replacement links: split what a frontmatter field holds into links, and resolve each to a page.

A link is written as a path (``Decisions/New``, ``Decisions/New.md``), an Obsidian wikilink
(``[[New]]``, ``[[Decisions/New|label]]``, ``[[New#Heading]]``), a Markdown link (``[x](Decisions/New.md)``)
or a path relative to the linking page (``../Decisions/New``). Resolution follows Obsidian: the full
path, else a page whose path ends with the link (a bare name matches a page of that name in any folder).
Letter case must match when it can; a rule that matches two pages makes the link ambiguous.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
import urllib.parse
from pathlib import PurePosixPath

_WIKILINK = re.compile(r"\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|[^\]]*)?\]\]")
_MD_LINK = re.compile(r"^\[[^\]]*\]\(([^)]+)\)$")
# What may sit between several wikilinks written in one string: "[[A]], [[B]]".
_BETWEEN_LINKS = re.compile(r"^[\s,;|]*$")


def split_links(raw: str) -> list[str]:
    """The links one written value holds: ``"[[A]], [[B]]"`` gives two, a placeholder (``""``,
    ``[[]]``, ``#``) none, anything else itself, however malformed (it then names no page)."""
    text = raw.strip()
    if not text.strip("\"' []#"):
        return []
    found = list(_WIKILINK.finditer(text))
    if len(found) > 1 and _BETWEEN_LINKS.match(_WIKILINK.sub("", text)):
        return [m.group(0) for m in found if m.group(1).strip()]
    return [text]


def _strip_md(path: str) -> str:
    return path[:-3] if path.lower().endswith(".md") else path


def link_target(raw: str) -> str:
    """The page a link points at, as a path without ``.md``. A wikilink's ``#heading`` and ``|label``
    and a Markdown link's ``#fragment`` are dropped; a ``#`` in a plain path is kept, because a file
    name may hold one (the resolver also tries the part before it)."""
    # NFC: macOS file names arrive decomposed (NFD) while typed links are composed.
    raw = unicodedata.normalize("NFC", raw).strip().strip('"').strip("'").strip()
    m = _WIKILINK.fullmatch(raw)
    if m:
        raw = m.group(1).strip()
    elif raw.startswith("[["):
        # An unclosed or otherwise malformed wikilink: its page name, as well as can be read.
        raw = raw.strip("[]").split("|", 1)[0].strip()
    else:
        md = _MD_LINK.match(raw)
        if md:
            # The fragment goes before unquoting: a %23 in the path is part of a file name.
            raw = urllib.parse.unquote(md.group(1).strip().strip("<>").split("#", 1)[0])
    return _strip_md(raw.replace("\\", "/").lstrip("/"))


class LinkResolver:
    """Resolves links to the paths of the pages given (vault-relative, as indexed)."""

    def __init__(self, paths: list[str]) -> None:
        self._paths: dict[str, str] = {}
        # Stems by the last part of their path, so a link naming "b/c" or "c" is matched against the few
        # pages called "c" rather than every page. Built on every refresh that changes anything, from
        # every page path: kept to one dict entry per page; the case-folded maps wait until needed.
        self._by_name: dict[str, list[str]] = {}
        self._folded: dict[str, list[str]] | None = None
        self._by_name_folded: dict[str, list[str]] = {}
        for p in paths:
            stem = unicodedata.normalize("NFC", _strip_md(p))
            self._paths[stem] = p
            self._by_name.setdefault(stem.rsplit("/", 1)[-1], []).append(stem)

    def _folded_maps(self) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
        """Stems by case-folded path and by case-folded last part, built on first need."""
        if self._folded is None:
            self._folded = {}
            for stem in self._paths:
                folded = stem.casefold()
                self._folded.setdefault(folded, []).append(stem)
                self._by_name_folded.setdefault(folded.rsplit("/", 1)[-1], []).append(stem)
        return self._folded, self._by_name_folded

    def resolve(self, raw: str, source: str | None = None) -> str | None:
        """The page path a link names, or None when it names no page or several equally well.

        ``source`` is the linking page's vault-relative path: ``./x`` and ``../x`` are resolved from its
        folder, must then name a full path, and never name anything outside the vault."""
        found = self.matches(raw, source)
        return found[0] if len(found) == 1 else None

    def matches(self, raw: str, source: str | None = None) -> list[str]:
        """The pages a link could mean at the first rule that matches any: one page, several (the link
        is ambiguous) or none."""
        target = link_target(raw)
        relative = target.startswith(("./", "../")) or target in (".", "..")
        if relative:
            folder = str(PurePosixPath(source).parent) if source else "."
            target = posixpath.normpath(posixpath.join(folder, target))
            if target == ".." or target.startswith("../"):
                return []
        tries = [target]
        if "#" in target:
            tries.append(_strip_md(target.split("#", 1)[0].strip()))
        for t in tries:
            if t and t != ".":
                found = self._lookup(t, suffixes=not relative)
                if found:
                    return found
        return []

    def _lookup(self, target: str, suffixes: bool) -> list[str]:
        if target in self._paths:
            return [self._paths[target]]
        if suffixes:
            ends = "/" + target
            exact = [st for st in self._by_name.get(target.rsplit("/", 1)[-1], []) if st.endswith(ends)]
            if exact:
                return [self._paths[st] for st in exact]
        folded_paths, folded_names = self._folded_maps()
        folded = target.casefold()
        if folded in folded_paths:
            return [self._paths[st] for st in folded_paths[folded]]
        if suffixes:
            ends = "/" + folded
            found = folded_names.get(folded.rsplit("/", 1)[-1], [])
            return [self._paths[st] for st in found if st.casefold().endswith(ends)]
        return []
