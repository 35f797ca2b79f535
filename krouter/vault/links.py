"""Replacement links: split what a frontmatter field holds into links, and resolve each to a page.

A link is written as a path (``Decisions/New``, ``Decisions/New.md``), an Obsidian wikilink
(``[[New]]``, ``[[Decisions/New|label]]``, ``[[New#Heading]]``), a Markdown link (``[x](Decisions/New.md)``)
or a path relative to the linking page (``../Decisions/New``). Resolution follows Obsidian: the full
path, else a page whose path ends with the link; a bare name shared by several pages means the one in
the linking page's folder, else the one at the vault root; a Markdown link is read from the linking
page's folder and from the vault root (two different pages: ambiguous), then like a wikilink.
Letter case must match when it can; a rule that matches two pages makes the link ambiguous: it names
no page, which keeps the linking page replaced and refused rather than redirected to a guess.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
import urllib.parse
from pathlib import PurePosixPath

from krouter.lazy_pattern import lazy_pattern

# Characters Logseq percent-encodes in a page's file name (the ones Windows and macOS forbid, but /).
_FILE_NAME_ESCAPED = lazy_pattern(r'[<>:"\\|?*]')
_WIKILINK = lazy_pattern(r"\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|[^\]]*)?\]\]")
_MD_LINK = lazy_pattern(r"^\[[^\]]*\]\((.+)\)$")
# What may sit between several wikilinks written in one string: "[[A]], [[B]]".
_BETWEEN_LINKS = lazy_pattern(r"^[\s,;|]*$")


def split_links(raw: str) -> list[str]:
    """The links one written value holds: a placeholder (``""``, ``[[]]``, ``#``) none; several
    wikilinks with only separators between them (``"[[A]], [[B]]"``) each; one wikilink inside other
    text (``see [[A]]``) that one; anything else itself, however malformed: it then names no page, so
    its page stays replaced and no other page is retired or redirected to by a guess."""
    text = raw.strip()
    if not text.strip("\"' []#"):
        return []
    if _WIKILINK.fullmatch(text.strip("\"'")):
        return [text]
    found = [m.group(0) for m in _WIKILINK.finditer(text) if m.group(1).strip()]
    if len(found) == 1 or (found and _BETWEEN_LINKS.match(_WIKILINK.sub("", text.strip("\"'")))):
        return found
    return [text]


def _without_title(dest: str) -> str:
    """A Markdown link destination without its optional title (``path.md "title"``)."""
    if dest[-1:] in ("'", '"'):
        opening = dest.rfind(dest[-1], 0, len(dest) - 1)
        if opening > 0 and dest[opening - 1].isspace():
            return dest[:opening].rstrip()
    return dest


def _strip_md(path: str) -> str:
    return path[:-3] if path.lower().endswith(".md") else path


def parse_link(raw: str) -> tuple[str, bool]:
    """(the page a link points at, as a path without ``.md``; whether it was written as a Markdown link).

    A wikilink's ``#heading`` and ``|label`` and a Markdown link's ``#fragment`` and title are dropped;
    a ``#`` in a plain path is kept, because a file name may hold one (the resolver may also try the
    part before it)."""
    # NFC: macOS file names arrive decomposed (NFD) while typed links are composed.
    raw = unicodedata.normalize("NFC", raw).strip().strip('"').strip("'").strip()
    markdown = False
    m = _WIKILINK.fullmatch(raw)
    if m:
        raw = m.group(1).strip()
    elif raw.startswith("[["):
        # An unclosed or otherwise malformed wikilink: its page name, as well as can be read.
        raw = raw.strip("[]").split("|", 1)[0].strip()
    else:
        md = _MD_LINK.match(raw)
        if md:
            markdown = True
            dest = _without_title(md.group(1).strip())
            if dest.startswith("<") and ">" in dest:
                dest = dest[1 : dest.index(">")]
            # The fragment goes before unquoting: a %23 in the path is part of a file name. NFC again after:
            # a macOS file name percent-encoded as it is stored (Cafe%CC%81) is decomposed (a bug hunt).
            raw = unicodedata.normalize("NFC", urllib.parse.unquote(dest.split("#", 1)[0].strip()))
    return _strip_md(raw.replace("\\", "/").lstrip("/")), markdown


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
        folder (only ever to a page of this vault)."""
        found = self.matches(raw, source)
        return found[0] if len(found) == 1 else None

    def matches(self, raw: str, source: str | None = None) -> list[str]:
        """The pages a link could mean at the first rule that matches any: one page, several (the link
        is ambiguous) or none. A page names itself only when nothing else matches.

        A relative link that names nothing from the linking page's folder (written from the vault root,
        or from the wrong depth) is read once more as a full vault path without its ``./`` and ``../``;
        ``krouter check`` reports such links (see ``explain``). There is no guess by page name alone: a
        link to a moved or deleted page must not retire, or lead to, another page that shares its name."""
        return self.explain(raw, source)[0]

    def explain(self, raw: str, source: str | None = None) -> tuple[list[str], bool]:
        """``matches`` and whether the link is loose: a relative link that names its page only when
        read from the vault root."""
        target, markdown = parse_link(raw)
        found = self._strict(target, markdown, source)
        if found or not target.startswith(("./", "../")):
            return found, False
        # Only ever a full vault path, and only one page: the same exact-then-case-folded lookup as
        # any path, with no suffix or name matching.
        path = re.sub(r"^(?:\.{1,2}/)+", "", target)
        rooted = [p for p in self._lookup(path, False, ".", source) if p != source] if path else []
        return (rooted, True) if len(rooted) == 1 else ([], False)

    def _strict(self, target: str, markdown: bool, source: str | None) -> list[str]:
        folder = str(PurePosixPath(source).parent) if source else "."
        relative = target.startswith(("./", "../")) or target in (".", "..")
        tries: list[tuple[str, bool]] = []
        if relative:
            joined = posixpath.normpath(posixpath.join(folder, target))
            if joined != ".." and not joined.startswith("../"):
                tries.append((joined, False))
        elif markdown:
            # A Markdown link is relative to the page that holds it, but vaults also write vault-root
            # paths and, in Obsidian's "shortest path" style, bare names: when the relative and the
            # vault-root reading name two different pages the link is ambiguous; when neither names a
            # page, the wikilink rules apply.
            joined = posixpath.normpath(posixpath.join(folder, target))
            exact = {self._paths[t] for t in (joined, target) if not t.startswith("../") and t in self._paths}
            exact.discard(source or "")
            if exact:
                return sorted(exact)
            tries.append((target, True))
        else:
            tries.append((target, True))
            head, sep, tail = target.partition("#")
            # "Page#Heading" written as a plain path; "C# notes" or "Issue #42" is a name, not a heading.
            if sep and head and tail and not head[-1].isspace() and not tail[0].isspace():
                tries.append((_strip_md(head), True))
            if "/" in target:
                # A Logseq namespace page: [[Project/Alpha]] is the file Project___Alpha.md (Project%2FAlpha.md
                # in Logseq 0.6.8 to 0.8): superseded_by:: [[Project/Alpha]] led nowhere (a bug hunt).
                tries += [(target.replace("/", "___"), True), (target.replace("/", "%2F"), True)]
            if _FILE_NAME_ESCAPED.search(target):
                # Logseq writes a page name's characters no file name may hold percent-encoded (Q1: Planning
                # is Q1%3A Planning.md): [[Q1: Planning]] led nowhere (a bug hunt).
                tries.append((_FILE_NAME_ESCAPED.sub(lambda m: f"%{ord(m.group()):02X}", target), True))
        for t, suffixes in tries:
            if t and t != ".":
                found = self._lookup(t, suffixes, folder, source)
                if found:
                    return found
        return []

    def _lookup(self, target: str, suffixes: bool, folder: str, source: str | None) -> list[str]:
        if "/" not in target and suffixes:
            # A bare name: the page of that name in the linking page's own folder, else the one at the
            # vault root, else the only page of that name; several otherwise (ambiguous).
            for pick in (
                lambda: self._by_name.get(target, []),
                lambda: self._folded_maps()[1].get(target.casefold(), []),
            ):
                found = pick()  # the case-folded map is built only when the exact case finds nothing
                # The linking page itself only when it is the one page of that name (a self-link).
                found = [st for st in found if self._paths[st] != source] or found
                if len(found) > 1:
                    here = [st for st in found if (st.rpartition("/")[0] or ".") == folder]
                    root = [st for st in found if "/" not in st]
                    found = here if len(here) == 1 else root if len(root) == 1 else found
                if found:
                    return [self._paths[st] for st in found]
            return []
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
