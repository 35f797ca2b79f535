"""One page: Markdown with YAML frontmatter parsed into a `Page` (title, aliases, tags, triggers,
status, replacement links, body), or a `Problem` that says what is wrong with it.

YAML is read safely and bounded (depth, expansion, size); frontmatter that does not parse is read as
plain text with its replacement fields salvaged, so a broken page still never gets cited over its
replacement.
"""

from __future__ import annotations

import datetime as _dt
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from krouter.lazy_pattern import lazy_pattern
from krouter.vault.body_fields import body_fields, scattered_fields
from krouter.vault.fields import (
    REPLACED_STATUSES,
    field_key,
    fields_by_key,
    properties,
    repeated_fields,
    status_disagreement,
    status_of,
    top_fields,
)
from krouter.vault.links import split_links
from krouter.vault.loose_frontmatter import SALVAGED as _SALVAGED
from krouter.vault.loose_frontmatter import TOP_FIELD as _TOP_FIELD
from krouter.vault.loose_frontmatter import loose_frontmatter
from krouter.vault.page_lines import split_frontmatter
from krouter.vault.status_lines import STATUS_LINKS, status_links
from krouter.vault.templates import template_mark
from krouter.vault.yaml_bounds import MAX_DEPTH, bounded_as_written, check_expansion


@functools.cache
def _yaml() -> tuple[Callable[[str], object], Any]:
    """(load frontmatter text, the ``yaml`` module for its error and mark classes). PyYAML and
    python-frontmatter are imported when the first page is parsed, not by every process importing this
    module: ``krouter ask`` parses none."""
    import yaml
    from frontmatter.default_handlers import YAMLHandler

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class _Loader(base):  # type: ignore[misc,valid-type]
        """The safe loader with YAML 1.2 booleans: ``title: yes`` or ``aliases: [no, on]`` are words, not
        True/False (the YAML 1.1 reading turned them into "True"/"False" in titles and aliases)."""

        def get_single_data(self) -> object:
            """Compose the document, measure what it expands to, and only then build Python objects
            from it: PyYAML's constructor shares aliased objects, but merge keys (``<<: [*a, *a]``) and
            everything that later walks or prints the values copy each alias again."""
            node = self.get_single_node()
            if node is None:
                return None
            check_expansion(node, yaml)
            return self.construct_document(node)

    bool_tag = "tag:yaml.org,2002:bool"
    _Loader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag != bool_tag]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    _Loader.add_implicit_resolver(
        bool_tag, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
    )

    def timestamp(loader: Any, node: Any) -> object:
        # A date no calendar has (created: 2024-02-30) is text, as Obsidian shows it: PyYAML's error
        # lost the whole frontmatter, the page's aliases with it (a bug hunt).
        try:
            return base.construct_yaml_timestamp(loader, node)
        except ValueError:
            return loader.construct_scalar(node)

    _Loader.add_constructor("tag:yaml.org,2002:timestamp", timestamp)

    class _TreeLoader(_Loader):
        """For frontmatter that `bounded_as_written` clears: nothing to measure before building it."""

        get_single_data = base.get_single_data

    handler = YAMLHandler()
    return (
        lambda text: handler.load(text, Loader=_TreeLoader if bounded_as_written(text) else _Loader)
    ), yaml


MAX_FRONTMATTER_CHARS = 256 * 1024
_HEADING = lazy_pattern(r"^#{1,6}\s+(.+?)\s*#*\s*$")


@dataclass
class Problem:
    """Something wrong with one file, reported by vault-relative path."""

    path: str
    kind: str
    message: str


@dataclass
class Page:
    """One parsed page. ``body_line`` is the 1-based line number in the file where the body starts."""

    path: str
    title: str
    body: str
    body_line: int
    status: str = ""
    aliases: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    triggers: list[str] = field(default_factory=list)
    superseded_by: list[str] = field(default_factory=list)
    supersedes: list[str] = field(default_factory=list)
    # Those of ``superseded_by`` a status names (``status: superseded by [[X]]``, a status line at the top,
    # an ADR's Status section), not a field of their own: `krouter check` names them so.
    status_links: list[str] = field(default_factory=list)
    meta: dict[str, object] = field(default_factory=dict)
    yaml_error: str | None = None
    # Its status written under two spellings, one replaced and one not (``fields.status_disagreement``).
    status_disagreement: str | None = None
    # Its other fields as (file line, "key: value") lines, indexed with the body (``fields.properties``).
    properties: list[tuple[int, str]] = field(default_factory=list)
    # The placeholder that shows the page is a template (``vault.templates``): never indexed nor cited.
    template: str | None = None

    @property
    def replaced(self) -> bool:
        """True when the page's status marks it replaced or abandoned."""
        return self.status in REPLACED_STATUSES


def _as_text(value: object) -> str:
    if isinstance(value, (_dt.date, _dt.datetime, _dt.time)):
        return value.isoformat()
    if value is None:
        return ""
    return str(value)


def _as_list(value: object) -> list[str]:
    if value is None or value == "":
        return []
    if _is_bare_wikilink(value):
        return [f"[[{value[0][0]}]]"]  # type: ignore[index]
    if isinstance(value, (list, tuple, set, frozenset)):
        # A YAML !!set has no order: sorted, so every process reads the page the same way.
        items = sorted(value, key=str) if isinstance(value, (set, frozenset)) else value
        return [text for text in (_item_text(v) for v in items if v is not None) if text]
    return [_as_text(value).strip()] if _as_text(value).strip() else []


def _item_text(value: object) -> str:
    """One list item as text. Items may be unquoted wikilinks too: `- [[A]]` or `[[[A]], [[B]]]`; in
    `[[A], [B]]` YAML reads each `[A]` as a one-item list, which can only have meant a link to A."""
    if _is_bare_wikilink(value):
        return f"[[{value[0][0]}]]"  # type: ignore[index]
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
        return f"[[{value[0]}]]"
    return _as_text(value).strip()


def _is_bare_wikilink(value: object) -> bool:
    """An unquoted ``[[Page]]`` in YAML is a list holding a list holding one string."""
    return (
        isinstance(value, list)
        and len(value) == 1
        and isinstance(value[0], list)
        and len(value[0]) == 1
        and isinstance(value[0][0], str)
    )


def _normalise(value: object, depth: int = 0) -> object:
    """Dates become ISO strings so metadata is JSON-able and compares as text."""
    if depth > MAX_DEPTH:
        raise ValueError("frontmatter nests too deeply (a recursive alias?)")
    if isinstance(value, dict):
        return {str(k): _normalise(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_normalise(v, depth + 1) for v in value]
    if isinstance(value, (_dt.date, _dt.datetime, _dt.time)):
        return value.isoformat()
    return value


def parse_page(rel_path: str, text: str) -> Page:
    """Parse one page's text; broken YAML is recorded in ``yaml_error`` and the body is still kept.

    Field names are read case- and hyphen-insensitively (``Status:``, ``superseded-by:``), and a field
    written under several spellings counts under all of them, on the cautious side: any replaced status
    marks the page replaced, and every replacement link counts. When the YAML is broken, the fields that
    decide whether a page may be cited (status, replacement links) and the title are still read line by
    line: a colon in a title must not turn a replaced page current."""
    text = text.lstrip("\ufeff")  # an editor that added a BOM to a file that had one
    fm_text, body, body_line = split_frontmatter(text)
    meta: dict[str, object] = {}
    error = disagreement = None
    fields: dict[str, list[object]] = {}
    props: list[tuple[int, str]] = []
    loose = loose_frontmatter(text) if fm_text is None else None
    if loose is not None:
        # Frontmatter meant as such that YAML readers do not read (never closed, closed by '...', not
        # opening the page): a `status: superseded` in it keeps the page from being cited all the same,
        # its field lines read as broken YAML's are, and the page is reported.
        block, error = loose
        fields = _salvage(block)
    if fm_text is not None:
        load, yaml = _yaml()
        try:
            if len(fm_text) > MAX_FRONTMATTER_CHARS:
                raise ValueError(
                    f"frontmatter longer than {MAX_FRONTMATTER_CHARS // 1024} KiB; fields not read"
                )
            loaded = load(fm_text)
            if isinstance(loaded, dict):
                meta = {str(k): _normalise(v) for k, v in loaded.items()}
        # PyYAML raises ValueError for impossible dates (2024-13-45) and recurses on deep nesting;
        # neither may stop the page from being read.
        except (yaml.YAMLError, ValueError, OverflowError, RecursionError) as exc:
            if isinstance(exc, yaml.MarkedYAMLError):
                # PyYAML counts from the first line inside the fence: name the file and its own line.
                exc.context_mark, exc.problem_mark = (
                    yaml.Mark(rel_path, m.index, m.line + 1, m.column, None, None) if m is not None else None
                    for m in (exc.context_mark, exc.problem_mark)
                )
            error = " ".join(str(exc).split())
            loaded = None
        if error is not None:
            # Broken frontmatter is read as plain text, so words in it (a title) still find the page.
            body, body_line = text, 1
            fields = _salvage(fm_text)
        elif loaded is not None and not isinstance(loaded, dict):
            error = (
                f"frontmatter is a {type(loaded).__name__}, not a mapping of fields: only its title, status "
                "and replacement links are read, line by line"
            )
            # `status：superseded` (a full-width colon) is one string to YAML, yet says what it says.
            fields = _salvage(fm_text)
        else:
            fields = fields_by_key(meta)
            lines = top_fields(fm_text, _TOP_FIELD)
            props = properties(loaded, fm_text, lines) if loaded else []
            if repeated := repeated_fields(lines, _SALVAGED):
                # YAML keeps a key's last value; a status written twice counts under every value, as
                # two spellings of it do, so a "status: current" left below "superseded" is no way back.
                salvaged = _salvage(fm_text)
                for key in repeated:
                    fields[key] = [*fields.get(key, []), *salvaged.get(key, [])]
                error = f"{', '.join(repeated)} written more than once; every value is read"
            # Not an error of the YAML, which was read whole: a page with one stays teachable.
            disagreement = status_disagreement(lines)

    for key, values in body_fields(body).items():
        fields[key] = [*fields.get(key, []), *values]
    if not fields.get("status"):
        for key, values in scattered_fields(body).items():
            fields[key] = [*fields.get(key, []), *values]

    def every(*names: str) -> list[str]:
        return [item for name in names for value in fields.get(name, []) for item in _as_list(value)]

    # A replaced status that names its replacement by a link leads there, as an ADR's status line in the
    # body does: written so in the frontmatter (MADR 3) or a Logseq property, the page was "replaced,
    # with no replacement page", and a hit on it led nowhere (an audit).
    named = [link for status in every("status") for link in status_links(status)]
    if named:
        fields["superseded_by"] = [*fields.get("superseded_by", []), *named]

    title = next((t for t in (_as_text(v).strip() for v in fields.get("title", [])) if t), "")
    if not title:
        title = _first_heading(body) or PurePosixPath(rel_path).stem
    return Page(
        path=rel_path,
        title=title,
        body=body,
        body_line=body_line,
        status=status_of(item for v in fields.get("status", []) for item in _as_list(v)),
        # Hugo's aliases are the old URLs a page redirects from ("/blog/2019/vpn-setup/"), no names of it:
        # read as names, "vpn setup" was cited on the laptop policy (a bug hunt).
        aliases=[a for a in every("aliases", "alias") if not _URL_PATH.match(a)],
        # "tag" too, as "alias" is read with "aliases": Obsidian reads both, and a tag: field was neither
        # a tag nor words (a second review).
        tags=every("tags", "tag"),
        triggers=every("triggers"),
        superseded_by=[link for raw in every("superseded_by", "replaced_by") for link in split_links(raw)],
        supersedes=[link for raw in every("supersedes", "replaces") for link in split_links(raw)],
        status_links=[link for raw in [*named, *every(STATUS_LINKS)] for link in split_links(raw)],
        meta=meta,
        yaml_error=error,
        status_disagreement=disagreement,
        properties=props,
        template=template_mark(rel_path, fm_text, title, body),
    )


_ITEM = lazy_pattern(r"^[ \t]*-[ \t]+(.+?)[ \t]*$")
_BLOCK_SCALAR = lazy_pattern(r"^[|>][+-]?\d*$")


class _Block(list):
    """The lines of a ``>`` or ``|`` block scalar: one value once joined."""


def _salvage(fm_text: str) -> dict[str, list[object]]:
    """The title, status and replacement links of frontmatter that YAML cannot parse, read line by line:
    ``key: value`` (each value read as YAML on its own, so quotes and ``# comments`` mean what they mean
    in YAML), ``key:`` followed by ``- item`` lines (indented or not), or a ``>``/``|`` block."""
    out: dict[str, list[object]] = {}
    current: list[object] | None = None
    block: _Block | None = None
    lines = fm_text.splitlines()
    # Fields sit at the frontmatter's own indentation (usually none); deeper "key:" lines belong to a
    # nested map or a text block and must not be read as this page's status or links.
    keyed = [len(x) - len(x.lstrip(" \t")) for x in lines if _TOP_FIELD.match(x) and not _ITEM.match(x)]
    top = min(keyed, default=0)
    for line in lines:
        m = _TOP_FIELD.match(line)
        if m and not _ITEM.match(line) and len(line) - len(line.lstrip(" \t")) == top:
            key = field_key(m.group(1))
            current = block = None
            if key not in _SALVAGED:
                continue
            raw = (m.group(2) or "").strip()
            if _BLOCK_SCALAR.match(raw):
                block = _Block()
                out.setdefault(key, []).append(block)
                continue
            value = _scalar(raw)
            if value in (None, ""):
                current = []
                out.setdefault(key, []).append(current)
            else:
                out.setdefault(key, []).append(value)
            continue
        item = _ITEM.match(line)
        if item and current is not None:
            current.append(_scalar(item.group(1)))
        elif block is not None and line.strip():
            block.append(line.strip())
        elif line.strip() and len(line) - len(line.lstrip(" \t")) <= top:
            current = block = None
    return {k: [" ".join(v) if isinstance(v, _Block) else v for v in vs] for k, vs in out.items()}


def load_frontmatter(text: str) -> object:
    """Frontmatter text read as the router reads it (YAML 1.2 booleans, a date no calendar has as text,
    its expansion bounded); raises as PyYAML does, or ValueError. The learner's edits read a page so: a
    date the router reads as text stopped an undo as "not valid YAML" (a second loader's reading)."""
    return _yaml()[0](text)


def _scalar(text: str) -> object:
    """One salvaged value, read as YAML when it can be, else as text without a trailing comment."""
    load, yaml = _yaml()
    try:
        return _normalise(load(f"v: {text}")["v"])  # type: ignore[index]
    except (yaml.YAMLError, ValueError, OverflowError, RecursionError, TypeError):
        return re.sub(r"\s+#.*$", "", text).strip().strip("\"'")


_URL_PATH = lazy_pattern(r"^(?:/|[a-z][a-z0-9+.-]*://)\S*$", re.I)


def _first_heading(body: str) -> str | None:
    for line in body.splitlines()[:40]:
        m = _HEADING.match(line)
        if m:
            return m.group(1)
    return None


def decode(rel_path: str, data: bytes) -> str | Problem:
    """Decode a file as UTF-8 (with or without BOM), or report it as a Problem."""
    if b"\x00" in data:
        # UTF-16 without a byte-order mark decodes as "UTF-8" with a NUL between letters: words
        # nobody can find, and a page reported as fine.
        at = data.index(b"\x00")
        return Problem(rel_path, "encoding", f"not UTF-8 text (a NUL byte at {at}: UTF-16?); skipped")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Problem(rel_path, "encoding", f"not UTF-8 (byte {exc.start}: {exc.reason}); skipped")
