"""An architecture decision record's status line, as adr-tools, Nygard's template and MADR write it
("Superseded by [3. Use Postgres](0003-use-postgres.md)", "Accepted"), and the links a replaced status
names its replacement by: read for a page's body (``body_fields``) and for its frontmatter's status
(``page``)."""

from __future__ import annotations

import re

from krouter.lazy_pattern import lazy_pattern
from krouter.vault.fields import PROMISE_REPLACEMENT, REPLACED_STATUSES, status_of

# The key under which the fields read here list the replacement links a status line named (also under
# ``superseded_by``): `krouter check` names such a link as the status's, not as a field the page lacks.
STATUS_LINKS = "status links"

# What may wrap a status line (bold, code, a quote, a colon), a run of what is no word, and a link (a
# wikilink or a Markdown link).
MARKUP = "*_`> :"
NOT_WORD = lazy_pattern(r"[\W_]+")
LINK = lazy_pattern(r"\[\[[^\]]+\]\]|\[[^\]]*\]\([^)]+\)")
# An ADR's status line (adr-tools writes "Accepted", "Superseded by [3. …](0003-….md)", "Amended by
# [2. …](…)"; Nygard's template "Superseded by ADR-0005"): a status word alone (perhaps with a date), or
# what it is "by". Only a replaced status's "by" names the page's replacement.
_STATUS_LINE = lazy_pattern(
    r"^(accepted|proposed|approved|draft|amended|superseded|superceded|deprecated|rejected|obsolete|retired"
    r"|replaced)\b(?:\s+by\b[\s:]*(.*))?(.*)$",
    re.I,
)
# The statuses whose "by" names what replaces the record; after the others it names who decided ("rejected
# by [[Alice Chen]]", "deprecated by [[Platform team]]"): read as a replacement, a question on the record
# cited Alice's contact page at full confidence (a cold review).
_REPLACED_BY = frozenset({"superseded", "superceded", "replaced"})
# Words a status line may hold besides its status and links ("Deprecated 2024-03-01", "on 2024-05-01",
# "ADR-0005"): a sentence that starts with "Deprecated" is prose about something else.
STATUS_WORDS = 3


def status_links(status: str) -> list[str]:
    """The links a replaced status names its replacement by ("superseded by [[New]]"; MADR 3 writes its
    status so in the frontmatter: ``status: superseded by [ADR-0005](0005-….md)``); none for a status word
    alone, a sentence, or a replacement named without a link (which names no page)."""
    named = status_line(status).get("superseded_by", [])
    links = [str(link) for link in named if LINK.fullmatch(str(link))]
    if links or status_of([status]) not in PROMISE_REPLACEMENT:
        return links
    # A status that promises a replacement names it by any link it holds, however phrased ("superseded,
    # see [[X]]", "superseded → [[X]]", 已被 [[X]] 取代, 已被取代，见 [[X]]): each had no replacement page.
    # Not one written as the status itself (status: "[[Superseded]]", a link to a page about statuses).
    return [str(link) for link in LINK.findall(status) if not names_a_status(link)]


def names_a_status(link: str) -> bool:
    """Whether a link's whole text is a replaced status ([[Deprecated]], [Superseded](Status/Superseded.md));
    not a title that starts with one ([[Deprecated APIs migration guide]], [[废弃物分类规范]]: a fourth review
    found such replacements dropped)."""
    text = link.strip("[]").split("](")[0].split("|")[-1]
    return NOT_WORD.sub(" ", text).strip().lower() in REPLACED_STATUSES


def status_line(line: str) -> dict[str, list[object]]:
    """The status (and, for a replaced one, replacement links) an ADR's status line states; empty for a
    sentence. A replacement named without a link ("ADR-0005") is kept as written: it names no page, so the
    record stays replaced and `krouter check` reports the link."""
    status = _STATUS_LINE.match(line.strip().strip(MARKUP).strip())
    if status is None:
        return {}
    word, named, rest = status.group(1).lower(), status.group(2), status.group(3)
    found: dict[str, list[object]] = {"status": [word]}
    if named is not None:
        links = LINK.findall(named)
        if len(LINK.sub(" ", named).split()) > STATUS_WORDS:
            return {}
        if word in _REPLACED_BY:
            found["superseded_by"] = found[STATUS_LINKS] = links or [named.strip()]
    elif len(rest.split()) > STATUS_WORDS:
        return {}
    return found
