"""How frontmatter field names and status values are read: the spellings people write for the fields
that decide whether a page may be cited, and the statuses that mean a page was replaced.

On the cautious side throughout: a replaced page cited as current is the failure users get burned by,
so every spelling that plainly says "replaced" counts (a misspelling, camelCase, full-width letters,
Chinese), and a field written twice counts under each value.
"""

from __future__ import annotations

import datetime as _dt
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

from krouter.lazy_pattern import lazy_pattern

# Tags that mark a page as clipped material, wherever it is kept: Obsidian Web Clipper tags its pages
# "clippings"; 剪藏 is the Chinese word for a web clipping (an agent-loop run's vault kept its clippings in
# "99 剪藏/", no input folder, and the receipt called a tagged clipping the user's own note).
CLIPPING_TAGS = frozenset({"clipping", "clippings", "web-clip", "webclip", "剪藏"})


def tagged_clipping(tags: Iterable[str]) -> bool:
    """True when a page's tags mark it as clipped material (``CLIPPING_TAGS``, any case, a leading #, a
    nested tag under one: clippings/web; tags written in one string, "clippings, research")."""
    return any(
        word.lstrip("#").split("/", 1)[0] in CLIPPING_TAGS
        for tag in tags
        for word in _TAG_WORDS.split(unicodedata.normalize("NFKC", tag).casefold())
    )


_TAG_WORDS = lazy_pattern(r"[\s,，、]+")


# Japanese (abolished, deprecated, discarded, void, archived, rejected) and Korean (discarded, abolished,
# out of use, void, archived, rejected, old version), and those of them that say "replaced".
_REPLACING_JA_KO = frozenset({"置き換え済み", "置換済み", "差し替え済み", "대체됨", "교체됨"})
_REPLACED_JA_KO = (
    _REPLACING_JA_KO
    | frozenset(
        """廃止 廃止済み 非推奨 廃棄 破棄 無効 アーカイブ アーカイブ済み 却下 廃案
    폐기 폐기됨 폐지 폐지됨 사용중단 사용중지 무효 보관됨 아카이브 아카이브됨 반려 기각 구버전""".split()
    )
    | frozenset({"사용 중단", "사용 중지"})
)
# Of those, the archived and rejected: a line of its own at a page's top retires it with none of them.
ARCHIVED_JA_KO = frozenset("アーカイブ アーカイブ済み 却下 廃案 보관됨 아카이브 아카이브됨 반려 기각".split())
# Statuses that mean "this page was replaced or abandoned": never cited. "superceded" is how the word
# is misspelt as often as not, "superseeded" and "supersceded" often enough (a bug hunt found one cited);
# the Chinese ones (Simplified and Traditional) are what a Chinese vault writes for deprecated, outdated,
# void, replaced and archived, and the Japanese and Korean ones what those vaults write for the same (a
# bug hunt: 廃止 and 폐기 pages were cited as current, and `krouter check` called them current).
REPLACED_STATUSES = frozenset(
    {
        "superseded",
        "superceded",
        "superseeded",
        "supersceded",
        "replaced",
        "outdated",
        "retired",
        "deprecated",
        "archived",
        "rejected",
        "obsolete",
        "废弃",
        "已废弃",
        "廢棄",
        "已廢棄",
        "弃用",
        "已弃用",
        "棄用",
        "已棄用",
        "过时",
        "已过时",
        "過時",
        "已過時",
        "作废",
        "已作废",
        "作廢",
        "已作廢",
        "已替代",
        "已取代",
        "已被取代",
        "已被替代",
        "归档",
        "已归档",
        "歸檔",
        "已歸檔",
        *_REPLACED_JA_KO,
    }
)
# The statuses that promise a replacement page; the others (retired, archived, rejected) may rightly
# have none.
PROMISE_REPLACEMENT = frozenset(
    {
        "superseded",
        "superceded",
        "superseeded",
        "supersceded",
        "replaced",
        "已替代",
        "已取代",
        "已被取代",
        "已被替代",
        *_REPLACING_JA_KO,
    }
)
_HAN_STATUSES = tuple(
    sorted(
        (s for s in REPLACED_STATUSES if not s.isascii() and s not in _REPLACED_JA_KO), key=len, reverse=True
    )
)
# What says a Japanese or Korean status is done, and what says it is not (yet).
_DONE = lazy_pattern(
    r"(?:済み|済|された|されました|されている|となった|になった|됨|되었음|되었습니다|됐음|완료)$"
)
_NOT_YET = lazy_pattern(r"予定|しない|しません|せず|検討|保留|見送|예정|않|보류|검토|안 함")
# Where a line ends, as editors count lines (vault.page_lines.file_lines): \n, \r\n or a lone \r.
_LINE_BREAK = lazy_pattern(r"\r\n|\r|\n")
_CAMEL = lazy_pattern(r"(?<=[a-z])(?=[A-Z])")
_SEPARATORS = lazy_pattern(r"[\s-]+")
_STATUS_WORD = lazy_pattern(r"[a-z]+|[\u4e00-\u9fff\u3040-\u30ff]+|[\uac00-\ud7af]+")
# A passive replacement with the replacement inside it: 已被 [[新方案]] 取代, 被 X 替代了.
_REPLACED_BY_HAN = lazy_pattern(r"^已?被[^。；;\n]{1,80}?(?:取代|替代|替换|代替)")


def field_key(name: str) -> str:
    """The form a frontmatter field name is compared in: ``Superseded-By``, ``supersededBy``,
    ``Superseded by``, ``superseded_by`` and the misspelt ``superceded_by`` agree."""
    key = _SEPARATORS.sub("_", _CAMEL.sub("_", name.strip().strip("\"'").strip()).lower())
    return key.replace("superced", "supersed")


def fields_by_key(meta: dict[str, object]) -> dict[str, list[object]]:
    """Every value of each field by its compared name, the one spelled exactly in lower case first."""
    out: dict[str, list[object]] = {}
    for key, value in meta.items():
        norm = field_key(key)
        if key == norm:
            out.setdefault(norm, []).insert(0, value)
        else:
            out.setdefault(norm, []).append(value)
    return out


def top_fields(fm_text: str, top_field: re.Pattern[str]) -> list[tuple[int, str, str]]:
    """The frontmatter's top-level ``key: value`` lines (``top_field`` at no indentation): (line index,
    key as written, value as written)."""
    out = []
    for n, line in enumerate(_LINE_BREAK.split(fm_text)):
        m = top_field.match(line)
        if m and line[:1] not in " \t":
            out.append((n, m.group(1).strip("\"'"), m.group(2) or ""))
    return out


def repeated_fields(lines: list[tuple[int, str, str]], wanted: Iterable[str]) -> list[str]:
    """The ``wanted`` fields whose key starts two of the frontmatter's ``lines`` (``top_fields``): YAML
    reads only the last of them."""
    wanted = set(wanted)
    # The key as written: two spellings (Status, status) are two keys to YAML, both read already.
    seen = Counter(key for _n, key, _v in lines if field_key(key) in wanted)
    return sorted({field_key(k) for k, n in seen.items() if n > 1})


def status_disagreement(lines: list[tuple[int, str, str]]) -> str | None:
    """What to tell the owner when ``status`` is written under two spellings (``status``, ``Status``) of
    which one reads as replaced and another not, else None. Every value is read and a replaced one wins,
    so "status: current" above "Status: superseded" is a page never cited that its owner may think is
    current (a bug hunt: `krouter check` said clean). Spellings that agree, whatever their wording
    (``Active``/``active``, ``[current]``, ``superseded``/``deprecated``), are not reported."""
    by_spelling: dict[str, list[str]] = {}
    for _n, key, value in lines:
        if field_key(key) == "status":
            by_spelling.setdefault(key, []).append(value)
    if len(by_spelling) < 2:
        return None
    replaced = {key: status_of(values) in REPLACED_STATUSES for key, values in by_spelling.items()}
    if len(set(replaced.values())) < 2:
        return None
    said = ", ".join(f"{key}: {' '.join(by_spelling[key][0].split())}" for key in by_spelling)
    return f"status written in two spellings that disagree ({said}): every value is read, so the page is replaced"


def status_of(items: Iterable[str]) -> str:
    """A page's status in the form compared with REPLACED_STATUSES, from every value its status field(s)
    hold. A replaced status anywhere among them (``[active, superseded]``, two spellings of the field)
    wins, and a phrase counts by its first word (``superseded by [[New]]``, ``❌ superseded``,
    ``已废弃（见新页）``); full-width letters read as their ASCII form."""
    words = []
    for item in items:
        text = unicodedata.normalize("NFKC", item).lower()
        first = _STATUS_WORD.search(text)
        word = first.group(0) if first else text
        if word in REPLACED_STATUSES and not (word in _REPLACED_JA_KO and _NOT_YET.search(text)):
            return word
        # Japanese and Korean say it is done at the word's end (廃止されました, 폐기됨), and that it is not
        # there too (廃止しない, 廃止予定, 폐기 예정: still current, a cold review): a whole word only.
        done = _DONE.sub("", word)
        if done in _REPLACED_JA_KO and not _NOT_YET.search(text):
            return done
        # Chinese runs on without a space: 废弃的方案, 已过时了.
        han = next((h for h in _HAN_STATUSES if word.startswith(h)), None)
        if han is not None:
            return han
        plain = text.strip("\"'#").strip()
        # The replacement named inside the phrase: 已被 [[新方案]] 取代 read 已被 alone, a page cited as
        # current (a cold review).
        if _REPLACED_BY_HAN.match(plain):
            return "已被取代"
        words.append(plain)
    return words[0] if words else ""


# Fields KRouter reads for what they mean, and fields that are about the file rather than what it says
# (an id, a publishing flag, a CSS class): not indexed as the page's words.
_NOT_WORDS = frozenset(
    {
        "title",
        "aliases",
        "alias",
        "tags",
        "tag",
        "triggers",
        "status",
        "superseded_by",
        "supersedes",
        "replaced_by",
        "replaces",
        "pending_triggers",
        "id",
        "uid",
        "cssclass",
        "cssclasses",
        "publish",
        "permalink",
        "layout",
        "template",
    }
)


# When the note was made or changed, written as a date: about the file, not what it says (a deadline or a
# renewal date is). Written as text (`date: "2022-12-17"`), it has always been a line of the page.
_NOTE_DATES = frozenset(
    {
        "date",
        "created",
        "updated",
        "modified",
        "created_at",
        "updated_at",
        "last_modified",
        "lastmod",
        "published",
        "date_created",
        "date_modified",
        "creation_date",
        "modification_date",
    }
)
# How deep a nested map is read for words (a client's name and contact, not a plugin's settings tree).
_NESTED_DEPTH = 3


def properties(
    loaded: dict[object, object], fm_text: str, lines: list[tuple[int, str, str]]
) -> list[tuple[int, str]]:
    """The page's other fields as lines of words, each with its line in the file (frontmatter opens on
    line 1): ``owner: Gwendolyn Harper``, ``hostname: ci-runner-07``, ``renewal_date: 2025-03-01``,
    ``client: name Northwind Traders, contact Maria Anders``. Obsidian's properties hold facts a question
    asks about; unindexed, the receipt said "the vault never mentions 'gwendolyn'" of a vault that does
    (and, a later review, 'northwind' of a nested map, 'renewal' of a date field). Flags, ids and the
    note's own dates written as dates (created, updated) are about the note, not what it says. ``lines`` are the
    frontmatter's ``top_fields``."""
    # The last line of a key written twice: the one YAML read.
    where = {key: (n, value) for n, key, value in lines}
    text_lines = _LINE_BREAK.split(fm_text)
    out = []
    for key, value in loaded.items():
        items = value if isinstance(value, list) else [value]
        name = field_key(str(key))
        if name in _NOT_WORDS or (name in _NOTE_DATES and any(isinstance(v, _dt.date) for v in items)):
            continue
        words = [w for w in (_words(v, _NESTED_DEPTH) for v in items) if w]
        if not words:
            continue
        n, raw = where.get(str(key), (None, ""))
        if n is None:
            # A key the field pattern does not read (负责人): found by its own text at a line's start.
            n = next((i for i, line in enumerate(text_lines) if _starts_field(line, str(key))), None)
        written = _as_written(raw)
        if written and any(isinstance(v, (int, float)) for v in items) and _same_values(written, items):
            # A number as the page writes it: YAML reads "python: 3.10" as the float 3.1.
            words = [written]
        out.append(((n or 0) + 2, f"{key}: {', '.join(words)}"))
    return sorted(out)


def _words(value: object, depth: int) -> str:
    """A field's value as words: text, a number, a date as written in ISO form, a nested map's keys and
    values ("name Northwind Traders, contact Maria Anders"); "" for a flag or nothing."""
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, (str, int, float)):
        return str(value).strip()
    if isinstance(value, (_dt.date, _dt.time)):
        return value.isoformat()
    if depth <= 0:
        return ""
    if isinstance(value, list):
        return ", ".join(w for w in (_words(v, depth - 1) for v in value) if w)
    if isinstance(value, dict):
        pairs = ((str(k), _words(v, depth - 1)) for k, v in value.items())
        return ", ".join(f"{k} {w}" for k, w in pairs if w)
    return ""


def _as_written(raw: str) -> str:
    """A field's value as its line writes it: without a trailing comment, quotes or the brackets of an
    inline list ("" for a value on the lines below)."""
    value = re.sub(r"\s+#.*$", "", raw).strip()
    if value.startswith("[") and value.endswith("]"):
        value = value[1:-1]
    return value.strip().strip("\"'")


def _starts_field(line: str, key: str) -> bool:
    rest = line[len(key) :].lstrip(" \t") if line.startswith(key) else ""
    return rest[:1] in (":", "\uff1a")


def _same_values(written: str, items: list[object]) -> bool:
    """Whether ``written`` (a value as the line writes it) holds exactly ``items``, item for item: not
    an anchor or alias (&v 3.10), not a list that goes on below (``[3.10,``)."""
    parts = [p.strip().strip("\"'") for p in written.split(",")]
    if len(parts) != len(items):
        return False
    for part, item in zip(parts, items, strict=True):
        try:
            same = float(part) == float(item) if isinstance(item, (int, float)) else part == str(item)
        except ValueError:
            return False
        if not same:
            return False
    return True
