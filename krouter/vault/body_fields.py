"""Fields a page writes in its body instead of frontmatter: the page properties of Logseq and Dataview's
inline fields at the top of a page (``status:: superseded``, ``superseded_by:: [[Budget 2024]]``,
``alias:: GP, 家庭医生``), and the status section of an architecture decision record as adr-tools and
MADR write it (``## Status`` then ``Superseded by [3. Use Postgres](0003-use-postgres.md)``).

A cold review found both kinds of replaced decision cited as current, with ``krouter status`` counting
none replaced: the README's promise that a replaced page is never cited held only for frontmatter.
Only the fields that decide what a page is called and whether it may be cited are read here; they
join the frontmatter's, on the cautious side as a field written twice does (any replaced status wins).
"""

from __future__ import annotations

import re

from krouter.vault.fields import field_key

# A property line: `key:: value`, at the page's top (Logseq writes the page's first block so, with or
# without a bullet).
_PROPERTY = re.compile(r"^[ \t]*(?:-[ \t]+)?([A-Za-z][\w-]*)::[ \t]*(.*?)[ \t]*$")
# Comma-separated in Logseq (`alias:: GP, 家庭医生`), except inside a wikilink.
_LISTED = frozenset({"aliases", "alias", "tags", "superseded_by", "replaced_by", "supersedes", "replaces"})
_READ = frozenset({"title", "status", *_LISTED})
_COMMA = re.compile(r",(?![^\[]*\]\])")

_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.*?)[ \t#]*$")
_MARKUP = "*_`> -:"
# An ADR's status line: a replaced status alone, perhaps with a date ("Deprecated 2024-03-01"), or a
# replacement named after it ("Superseded by [3. …](0003-….md)").
_REPLACED_LINE = re.compile(
    r"^(superseded|superceded|deprecated|rejected|obsolete|retired|replaced)(?:\s+by\b[\s:]*(.*))?$", re.I
)
_SUPERSEDES_LINE = re.compile(r"^(?:supersedes|replaces)\b[\s:]*(.+)$", re.I)
_LINK = re.compile(r"\[\[[^\]]+\]\]|\[[^\]]*\]\([^)]+\)")
# A status line is a few words; a sentence that starts with "Deprecated" is prose about something else.
_STATUS_WORDS = 4


def body_fields(body: str) -> dict[str, list[object]]:
    """The title, status, aliases, tags and replacement links the body of a page writes, by field key."""
    fields: dict[str, list[object]] = {}
    lines = body.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    for line in lines[start:]:
        match = _PROPERTY.match(line)
        if match is None:
            break
        key, value = field_key(match.group(1)), match.group(2)
        if key in _READ and value:
            items = [v.strip() for v in _COMMA.split(value)] if key in _LISTED else [value]
            fields.setdefault(key, []).extend(v for v in items if v)
    for key, values in _status_section(lines).items():
        fields.setdefault(key, []).extend(values)
    return fields


def _status_section(lines: list[str]) -> dict[str, list[object]]:
    """The status and replacement links of an ADR's ``Status`` section (the first one)."""
    heading = next(
        (
            i
            for i, line in enumerate(lines)
            if (h := _HEADING.match(line)) and h.group(1).strip().lower() == "status"
        ),
        None,
    )
    if heading is None:
        return {}
    found: dict[str, list[object]] = {}
    first = True
    for line in lines[heading + 1 :]:
        if _HEADING.match(line):
            break
        text = line.strip().strip(_MARKUP).strip()
        if not text:
            continue
        replaced = _REPLACED_LINE.match(text)
        if replaced and (replaced.group(2) is not None or (first and len(text.split()) <= _STATUS_WORDS)):
            found.setdefault("status", []).append(replaced.group(1))
            if replaced.group(2):
                found.setdefault("superseded_by", []).extend(_links(replaced.group(2)))
        elif supersedes := _SUPERSEDES_LINE.match(text):
            found.setdefault("supersedes", []).extend(_links(supersedes.group(1)))
        first = False
    return found


def _links(text: str) -> list[str]:
    """The links written in ``text``, or the text itself when it holds none (it then names no page,
    and a replaced page stays replaced)."""
    return _LINK.findall(text) or [text.strip()]
