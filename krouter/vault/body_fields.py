"""Fields a page writes in its body instead of frontmatter: the page properties of Logseq and Dataview's
inline fields at the top of a page (``status:: superseded``, ``superseded_by:: [[Budget 2024]]``,
``alias:: GP, 家庭医生``), and the status of an architecture decision record as adr-tools writes it
(``## Status`` then ``Superseded by [3. Use Postgres](0003-use-postgres.md)``), MADR 2 does (``* Status:
superseded by [ADR-0007](0007-….md)`` under the title) and people write under a title (``Status:
superseded by [[New]]``).

A cold review found both kinds of replaced decision cited as current, with ``krouter status`` counting
none replaced: the README's promise that a replaced page is never cited held only for frontmatter.
Only the fields that decide what a page is called and whether it may be cited are read here; they
join the frontmatter's, on the cautious side as a field written twice does (any replaced status wins).
"""

from __future__ import annotations

import re

from krouter.lazy_pattern import lazy_pattern
from krouter.vault.fields import ARCHIVED_JA_KO, PROMISE_REPLACEMENT, REPLACED_STATUSES, field_key, status_of
from krouter.vault.status_lines import (
    LINK,
    MARKUP,
    NOT_WORD,
    STATUS_LINKS,
    STATUS_WORDS,
    names_a_status,
    status_line,
)
from krouter.vault.templates import fenced_lines

# A property line: `key:: value`, at the page's top (Logseq writes the page's first block so, with or
# without a bullet). A value longer than a person writes is not read (the line still is one).
# A key may be two words (Roam's "Superseded by:: [[X]]": a bug hunt found it read as no field).
_PROPERTY = lazy_pattern(r"^[ \t]*(?:-[ \t]+)?([A-Za-z][\w-]*(?: [A-Za-z][\w-]*)?)::[ \t]*(.*?)[ \t]*$")
_MAX_PROPERTY_CHARS = 2000
# Comma-separated in Logseq (`alias:: GP, 家庭医生`), except inside a wikilink.
_LISTED = frozenset({"aliases", "alias", "tags", "superseded_by", "replaced_by", "supersedes", "replaces"})
_READ = frozenset({"title", "status", *_LISTED})
# Dataview reads an inline field on any line, not only at the top: "status:: superseded" under the
# page's title marks it as surely as frontmatter does (a bug hunt found such a page cited). Below the top
# block only the fields that decide whether a page may be cited are read (a title or aliases further
# down are as often prose), and only at a line's start: indented or in a list item it is a Logseq
# block's property ("- Vendor quote" then "  status:: rejected"), about that block, not the page. Code
# blocks are examples, not fields (``scattered_fields``).
_ANYWHERE = frozenset({"status", "superseded_by", "replaced_by", "supersedes", "replaces"})
_PAGE_FIELD = lazy_pattern(r"^[A-Za-z][\w-]*(?: [A-Za-z][\w-]*)?::")

_HEADING = lazy_pattern(r"^[ \t]{0,3}#{1,6}[ \t]+(.*?)[ \t#]*$")
_TITLE = lazy_pattern(r"^[ \t]{0,3}#[ \t]")
_FENCE = lazy_pattern(r"^[ \t]{0,3}(```|~~~)")
# A Chinese ADR's status section ("## 状态": 已废弃, 已被 [[新方案]] 取代) is read as an English one is: a
# replaced record written so was cited as current. A first line longer than this (links aside) is prose.
_STATUS_HEADINGS = frozenset({"status", "状态", "狀態", "状態", "ステータス", "상태"})
_HAN = lazy_pattern(r"[\u4e00-\u9fff]")
_HAN_STATUS_CHARS = 20
_LIST_ITEM = lazy_pattern(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]")
# A status line at the page's top: a line of its own, in bold, quoted or not (``Status: superseded by
# [[New]]``, ``**Status:** Outdated``, ``状态：已被 [[新方案]] 取代``), or under a title MADR 2's list item
# (``* Status: superseded by [ADR-0007](…)``); never indented. Read only above the page's first section,
# and only as far down as a page's header lines go: further down, or nested under an item, a status is a
# section's, an option's or a block's (a Logseq journal's "- Vendor quote" then "  - Status: rejected").
_TOP_STATUS = lazy_pattern(
    r"^(?:>[ \t]*)?([-*+][ \t]+)?[*_]{0,2}(?:status|状态|狀態|状態|ステータス|상태)[*_]{0,2}[ \t]*[:：](?!:)[*_]{0,2}[ \t]*(.+)$",
    re.I,
)
_TOP_LINES = 12
# A replacement written as a field of its own at the top, with a link ("Replaced by: [Page](Page%20….md)",
# "Superseded by: [[New]]", a Notion export's property; a bug hunt found such pages cited as current).
_TOP_REPLACED_BY = lazy_pattern(
    r"^(?:>[ \t]*)?[*_]{0,2}(?:superseded|superceded|replaced)[ \t]+by[*_]{0,2}(?![ \t]*::)[ \t]*(?:[:：](?!:))?[*_]{0,2}[ \t]*(.+)$",
    re.I,
)
_CALLOUT_TYPE = lazy_pattern(r"^>[ \t]*\[![\w-]+\][+-]?")
# The statuses a line of its own retires its page with: alone, those that say the note is out of date
# (superseded, outdated); with a link to what replaces it, also replaced, deprecated, obsolete ("Deprecated,
# see [[New]]"). Alone, those as often describe what the page is about (an API endpoint deprecated, a
# feature flag obsolete, an invoice 作废), and rejected, retired and archived do (a job application, a
# vendor weighed, a server, a person): two cold reviews found each page retired. In frontmatter, an
# ADR's status section or MADR 2's item they keep the meaning they have there.
_TOP_ALONE = frozenset(
    {"superseded", "superceded", "superseeded", "supersceded", "outdated", "过时", "已过时", "過時", "已過時"}
) | frozenset(s for s in PROMISE_REPLACEMENT if not s.isascii())
_TOP_LINKED = frozenset(
    s
    for s in REPLACED_STATUSES
    if s not in {"rejected", "retired", "archived", *ARCHIVED_JA_KO} and not s.endswith(("归档", "歸檔"))
)
# Besides its status and links, such a line holds only these ("Superseded (see [[New]])", "Deprecated in
# favour of [[New]]", "Superseded by [[X]] in March 2024"): "Replaced the disk" is a sentence, and so is
# Chinese of more than a few characters besides a date (废弃的旧接口已下线, "the old API is offline").
_MONTHS = frozenset(
    "jan january feb february mar march apr april may jun june jul july aug august sep sept september oct"
    " october nov november dec december".split()
)
# Words that may stand between a replaced status and its "by" ("Superseded on 2024-03-01 by [[X]]",
# "Superseded by the [[X]]", "by ADR [[0007-new]]").
_DATED = _MONTHS | frozenset({"on", "in", "since", "the", "adr"})
_TOP_FILLER = _DATED | frozenset(
    "by see as of from with use instead favor favour and or for our new latest current updated please".split()
)
_TOP_HAN_CHARS = 6
# Before the link that replaces the page, more (已过时，请参阅最新的 [[新方案]]); after it, a few words or
# characters of anything ("Superseded by [[New]], do not use", 请改用 [[新接口]] 代替).
_TOP_HAN_BEFORE_LINK = 10
_TOP_AFTER_LINK = 6
# What says the link after it replaces the page ("see [[New]]", "use [[New]] instead", "in favour of
# [[New]]", "→ [[New]]", 见/参阅/改用 [[新]]); after "by" or "with", only a replaced status's ("superseded
# by", "replaced with"), and after 被 one that 取代 ends. A link after anything else names who decided or
# when ("Deprecated by [[Platform team]]", "deprecated in [[2024-03-01]]", 由 [[平台组]] 决定: a third
# review found each page sent to it), and a link written as the status itself ("Status: [[Deprecated]]")
# names the status page.
_LEADS_TO = lazy_pattern(
    r"(?:\b(?:see|use|favou?r\s+of|instead\s+of)(?:\s+(?:the|our|new|latest|current|updated))*"
    r"|→|->|=>|(?:见|参阅|参见|参考|改用|请用|使用|改为|换成|替换为|替换成|迁移到|迁移至|迁至)[\u4e00-\u9fff]{0,4})"
    r"[\s:：,，]*$",
    re.I,
)
_PASSIVE = lazy_pattern(r"被[\s:：]*$")
# After the link: what takes the page's place (由 [[新]] 替代, "[[New]] replaces it"): the link is its replacement.
_TAKES_OVER = lazy_pattern(r"^[\s，,]*(?:替代|取代|代替|替换)")
# Joined to a replacement by a word, not a comma alone ("Superseded by [[Kafka]], [[2024-03-01]]": a date).
_AND = lazy_pattern(r"^[\s,，]*(?:and|or|和|或|及|、)[\s,，]*$", re.I)
# A line of a frontmatter block, read or not: "key: value", "- item", a comment.
_FIELD_LINE = lazy_pattern(r"^(?:[ \t]*[-#]|[ \t]*[\w\"'][^:]*:)")
_HAN_DATE = lazy_pattern(r"\d+\s*[年月日号號]")
_VERSION = lazy_pattern(r"v?\d+")
# Under it, adr-tools names the record the new one replaces: "Supersedes [1. …](0001-….md)".
_SUPERSEDES_LINE = lazy_pattern(r"^(?:supersedes|replaces)\b[\s:]*(.+)$", re.I)


def body_fields(body: str) -> dict[str, list[object]]:
    """The title, status, aliases, tags and replacement links the body of a page writes at its top (and an
    ADR's status), by field key."""
    fields: dict[str, list[object]] = {}
    lines = body.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    for line in lines[start:]:
        match = _PROPERTY.match(line)
        if match is None:
            break
        _add_property(fields, match, _READ)
    for key, values in _adr_status(lines).items():
        fields.setdefault(key, []).extend(values)
    return fields


def scattered_fields(body: str) -> dict[str, list[object]]:
    """The status and replacement links Dataview fields write further down the page (``status::
    superseded`` under the title), when they agree that the page is replaced: a page whose sections carry
    statuses of their own (an old option superseded, the current one accepted) is a decision log, not a
    replaced page (a cold review found one cited no more). ``vault.page`` reads them only for a page that
    states no status elsewhere."""
    fields: dict[str, list[object]] = {}
    lines = body.splitlines()
    fenced = fenced_lines(lines)
    for i, line in enumerate(lines):
        match = _PAGE_FIELD.match(line) and i not in fenced and _PROPERTY.match(line)
        if match:
            _add_property(fields, match, _ANYWHERE)
    if any(status_of([str(v)]) not in REPLACED_STATUSES for v in fields.get("status", [])):
        return {}
    return fields


def _add_property(fields: dict[str, list[object]], match: re.Match[str], read: frozenset[str]) -> None:
    """Add a property line's items to ``fields`` when its key is one of ``read`` and its value is one a
    person writes (not over _MAX_PROPERTY_CHARS)."""
    key, value = field_key(match.group(1)), match.group(2)
    if key in read and value and len(value) <= _MAX_PROPERTY_CHARS:
        items = _commas(value) if key in _LISTED else [value]
        fields.setdefault(key, []).extend(v for v in items if v)


def _commas(value: str) -> list[str]:
    """A property's items: split at commas outside wikilinks."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(value):
        if value.startswith("[[", i):
            depth += 1
        elif value.startswith("]]", i) and depth:
            depth -= 1
        elif ch == "," and not depth:
            items.append(value[start:i].strip())
            start = i + 1
    return [*items, value[start:].strip()]


def _adr_status(lines: list[str]) -> dict[str, list[object]]:
    """The status and replacement links of an architecture decision record: its ``Status`` section (the
    first one outside code, read only when its first line is a status line: not a list, not a
    sentence), else a status line at the page's top (MADR 2's list item among them)."""
    heading, fenced = None, fenced_lines(lines)
    for i, line in enumerate(lines):
        if i not in fenced and (h := _HEADING.match(line)) and h.group(1).strip().lower() in _STATUS_HEADINGS:
            heading = i
            break
    if heading is None:
        return _top_status(lines)
    section = []
    for line in lines[heading + 1 :]:
        if _HEADING.match(line) or _FENCE.match(line):
            break
        if line.strip():
            section.append(line)
    if section and not _LIST_ITEM.match(section[0]) and (han := _hanstatus_line(section[0])):
        return han
    if not section or _LIST_ITEM.match(section[0]) or not status_line(section[0]):
        # Prose under "## Status" ("Migration 80% done") is no status; a line at the top may be.
        return _top_status(lines)
    # Every status line of the section counts (adr-tools adds "Superceded by" below an "Amended by", and
    # below "Accepted" when the old record is not rewritten), a replaced one winning as in frontmatter.
    found: dict[str, list[object]] = {}
    for line in section:
        if _LIST_ITEM.match(line):
            continue
        for key, values in status_line(line).items():
            found.setdefault(key, []).extend(values)
        supersedes = _SUPERSEDES_LINE.match(line.strip().strip(MARKUP).strip())
        named = supersedes.group(1) if supersedes else ""
        links = LINK.findall(named)
        if links and len(LINK.sub(" ", named).split()) <= STATUS_WORDS:
            found.setdefault("supersedes", []).extend(links)
    return found


def _hanstatus_line(line: str) -> dict[str, list[object]]:
    """The status a Chinese ADR's 状态 section states in its first line (已废弃, 已被 [[新方案]] 取代, 已接受),
    with the links a replacement it promises is named by; empty for a line with no Han or a sentence."""
    text = line.strip().strip(MARKUP).strip()
    if not _HAN.search(text) or len(LINK.sub("", text)) > _HAN_STATUS_CHARS:
        return {}
    # The status as ``status_of`` reads it, as an English line gives its word: the line itself, links
    # and all, was read again as a status naming its replacement, and each link came out twice.
    status = status_of([text])
    found: dict[str, list[object]] = {"status": [status]}
    if status in PROMISE_REPLACEMENT and (links := LINK.findall(text)):
        found["superseded_by"] = found[STATUS_LINKS] = links
    return found


def _top_status(lines: list[str]) -> dict[str, list[object]]:
    """The status a line at the page's top states (``_TOP_STATUS``): among its first _TOP_LINES lines
    that are not blank, above the first heading after its title (and after frontmatter too broken to
    be read as such), outside code; a list item only in the list right under a title, MADR 2's. A
    hand-written replaced page ("# Old plan" then "Status: superseded by [[New plan]]") was cited as
    current: only MADR 2's item was read. Two status lines there are a log of options (Datadog
    rejected, Grafana accepted), not the page's status: neither is read."""
    fenced = fenced_lines(lines)
    seen, listed, found = 0, False, []
    replaced_by: list[re.Match[str]] = []
    for i in range(_after_frontmatter(lines), len(lines)):
        line = lines[i]
        if not line.strip():
            continue
        seen += 1
        if seen == 1 and _TITLE.match(line):
            listed = True
            continue
        if seen > _TOP_LINES or (seen > 1 and _HEADING.match(line)):
            break
        listed = listed and bool(_LIST_ITEM.match(line))
        if i in fenced:
            continue
        # An Obsidian callout's type is no part of what its title says ("> [!warning] Superseded by [[New]]").
        line = _CALLOUT_TYPE.sub(">", line)
        if (item := _TOP_STATUS.match(line)) and (listed or not item.group(1)):
            found.append(item)
        # The link and at most a date or a word: "Replaced by [[Bob]] as team lead in March" is a sentence
        # about a person, not the page's status.
        elif (
            (by := _TOP_REPLACED_BY.match(line))
            and LINK.search(by.group(1))
            and len(LINK.sub(" ", by.group(1)).split()) <= 2
        ):
            replaced_by.append(by)
    if replaced_by and len(replaced_by) == 1 and all(_named_replaced(f.group(2)) for f in found):
        # A replacement field of its own under the title (Notion's "Replaced by: [Page](…)" beside its
        # "Status: Deprecated"): read as "superseded by" it, as frontmatter's superseded_by is.
        return _retiring_line(f"superseded by {replaced_by[0].group(1)}")
    if len(found) != 1:
        return {}
    item, value = found[0], found[0].group(2)
    if item.group(1):
        # MADR 2's item, read as it always was.
        return status_line(value)
    return _retiring_line(value)


def _named_replaced(value: str) -> bool:
    """Whether a status line's value is empty of any status but a replaced one (a Notion page's "Status:
    Deprecated" beside its "Replaced by:" field): a current status beside a replacement field wins."""
    return status_of([value]) in REPLACED_STATUSES


def _after_frontmatter(lines: list[str]) -> int:
    """Where the page's text starts after a leading ``---`` block of field lines: frontmatter the YAML
    reader could not read is the body's top (``title: Plan: v1``), and the title under it was taken for
    a later section's heading (a cold review)."""
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None or lines[first].strip() != "---":
        return 0
    for i in range(first + 1, min(len(lines), first + _TOP_LINES * 4)):
        if lines[i].strip() in ("---", "..."):
            return i + 1
        if lines[i].strip() and not _FIELD_LINE.match(lines[i]):
            return 0
    return 0


def _retiring_line(value: str) -> dict[str, list[object]]:
    """The status a line of its own at a page's top states, when it retires the page (_TOP_ALONE, or
    _TOP_LINKED with a link that replaces it, ``_replacing``) and is no sentence (_TOP_FILLER, the Han
    counts), with the links that replace it; else nothing."""
    status = status_of([value])
    links = _replacing(value, status)
    if not (status in _TOP_ALONE or (links and status in _TOP_LINKED)):
        return {}
    cut = value.index(links[0]) if links else len(value)
    before, after = LINK.sub(" ", value[:cut]), LINK.sub(" ", value[cut:])
    if _HAN.search(before + after):
        limit = _TOP_HAN_BEFORE_LINK if links else _TOP_HAN_CHARS
        if len(_HAN.findall(_HAN_DATE.sub("", before))) > limit or len(_HAN.findall(after)) > _TOP_AFTER_LINK:
            return {}
    else:
        words = [w for w in NOT_WORD.sub(" ", before.lower()).split() if not _VERSION.fullmatch(w)]
        if any(w not in _TOP_FILLER for w in words[1:]) or len(after.split()) > _TOP_AFTER_LINK + 1:
            return {}
    found: dict[str, list[object]] = {"status": [status]}
    if links:
        found["superseded_by"] = found[STATUS_LINKS] = links
    return found


def _replacing(value: str, status: str) -> list[str]:
    """The links of a top status line that name what replaces the page (``_LEADS_TO``; one right after
    a replaced status's word or its "by", "Superseded: [[New]]", 已被 [[新]] 取代; and those joined to one
    by "and", "or", a comma), not one that is the status itself."""
    found: list[str] = []
    end = None
    for m in LINK.finditer(value):
        before = value[: m.start()]
        joined = end is not None and _AND.match(value[end : m.start()])
        words = [
            w
            for w in NOT_WORD.sub(" ", before).lower().split()
            if w not in _DATED and not _VERSION.fullmatch(w)
        ]
        # Right after a replaced status's word, or its "by"/"with" ("superseded by", "replaced with",
        # 已被 … 取代), a date aside: "Superseded by [[B]], approved by [[Ann]]" names Ann as who approved.
        promised = words in ([status], [status, "by"], [status, "with"]) or bool(_PASSIVE.search(before))
        takes_over = bool(_TAKES_OVER.match(value[m.end() :]))
        leads = (
            _LEADS_TO.search(before) or (status in PROMISE_REPLACEMENT and promised) or takes_over or joined
        )
        if leads and not names_a_status(m.group(0)):
            found.append(m.group(0))
            end = m.end()
        else:
            end = None
    return found
