"""Add one phrase to a page's ``triggers`` list (or take it out) with the smallest possible edit.

This is the only place KRouter edits a page the user wrote. The edit touches nothing but the ``triggers``
field: line endings, a BOM, comments, key order and every other byte stay as they were. The result is
re-parsed before it is written and refused unless the only change is the new trigger at the end of the
list. Writing the result is ``page_write``'s job.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import yaml

from krouter.errors import KRouterError
from krouter.lazy_pattern import lazy_pattern
from krouter.safe_text import without_controls
from krouter.tokens.terms import normalize
from krouter.vault.fields import field_key
from krouter.vault.page import load_frontmatter, parse_page
from krouter.vault.page_lines import file_lines, split_frontmatter

BOM = b"\xef\xbb\xbf"
MAX_TRIGGER_CHARS = 200
# Any spelling the router reads as the triggers field (``Triggers:`` too); the page keeps its spelling.
_KEY = lazy_pattern(r"^(?P<key>triggers[ \t]*:)(?P<rest>.*?)(?P<eol>\r?\n)?$", re.IGNORECASE)
# Values that YAML reads as no triggers at all: null, and the empty string.
_NO_VALUE = {"null", "Null", "NULL", "~", "''", '""'}
_ITEM = lazy_pattern(r"^(?P<indent>[ \t]*)-(?:[ \t]|$)")
_TOP_KEY = lazy_pattern(r"^[^\s#-]")
_OPENING_FENCE = lazy_pattern(r"-{3,}[ \t]*\r?(?:\n|$)")


class PageEditError(KRouterError):
    """The page cannot be edited safely (not UTF-8, broken frontmatter, a layout we do not rewrite)."""


@dataclass(frozen=True)
class Splice:
    """A byte range replaced by an edit: enough to reverse it exactly."""

    offset: int
    old: bytes
    new: bytes


def clean_trigger(text: str) -> str:
    """A question as a one-line trigger: control characters dropped, whitespace (including line
    separators) collapsed."""
    return " ".join(without_controls(text).split())


# Sentence punctuation around a word: "…gizmo?", "…gizmo ?" and "…gizmo" are one trigger.
_EDGE_PUNCTUATION = "?!.,;:…？！。，；：、\"'“”‘’「」『』()（）"


def trigger_key(text: str) -> str:
    """A question or trigger as triggers are compared: case and width folded, invisible characters
    dropped, sentence punctuation around words dropped, then whitespace collapsed (a zero-width space
    between two spaces leaves one space)."""
    return " ".join(filter(None, (w.strip(_EDGE_PUNCTUATION) for w in normalize(text).split())))


def holds_trigger(rel: str, text: str, trigger: str) -> bool:
    """Whether the page (``text`` at ``rel``) has ``trigger`` among its triggers, compared by
    ``trigger_key`` on both sides: a trigger written by hand with other spacing, case or width is the
    same trigger to the router, so it is not written twice."""
    return trigger_key(trigger) in trigger_keys(rel, text)


def trigger_keys(rel: str, text: str) -> frozenset[str]:
    """The page's triggers (``text`` at ``rel``) as ``trigger_key`` compares them."""
    return frozenset(trigger_key(t) for t in parse_page(rel, text).triggers)


def trigger_problem(trigger: str) -> str | None:
    """Why a cleaned trigger must not be written, or None when it may be.

    The cap bounds what any client of the query log (an MCP agent as much as the user) can put into
    a page's frontmatter; real questions are far shorter.
    """
    if not trigger:
        return "empty trigger"
    if len(trigger) > MAX_TRIGGER_CHARS:
        return f"too long for a trigger: {len(trigger)} characters (at most {MAX_TRIGGER_CHARS})"
    try:
        trigger.encode("utf-8")
    except UnicodeEncodeError:
        # Bytes that were not UTF-8 (a terminal's or a log's), carried as lone surrogates: no page holds them.
        return "the question holds bytes that are not UTF-8 text"
    return None


# Characters a YAML stream may not hold as they are (YAML 1.1's printable set leaves them out; JSON
# escapes only the C0 controls): DEL, the C1 controls but NEL, and the two non-characters U+FFFE/FFFF.
_UNPRINTABLE = lazy_pattern("[\x7f-\x84\x86-\x9f\ufffe\uffff]")


def _yaml_scalar(text: str) -> str:
    # A JSON string is a valid YAML double-quoted scalar; quoting always means a question that
    # starts with "-", "?", "[" or holds ": " cannot change the YAML structure. Its \u escapes are
    # YAML's too, for the characters a page may not hold raw (a question holding one was never taught).
    return _UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(text, ensure_ascii=False))


def _parse_meta(fm_text: str) -> dict[str, object]:
    try:
        loaded = load_frontmatter(fm_text) if fm_text.strip() else {}
    # PyYAML recurses on deep nesting, and the expansion bound raises ValueError, as ``parse_page``
    # knows: a page the owner edited so must be left alone with a reason, not a traceback.
    except (yaml.YAMLError, ValueError, OverflowError, RecursionError) as exc:
        raise PageEditError(f"frontmatter is not valid YAML: {' '.join(str(exc).split())}") from exc
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise PageEditError("frontmatter is not a mapping of fields")
    return loaded


def _triggers_key(meta: dict[str, object]) -> str:
    """The name the page gives its triggers field ("triggers" when it has none)."""
    return next((str(k) for k in meta if field_key(str(k)) == "triggers"), "triggers")


def _triggers_of(meta: dict[str, object]) -> list[object]:
    value = meta.get(_triggers_key(meta))
    if value is None or value == "":
        return []
    if isinstance(value, list):
        return list(value)
    return [value]


def _as_lf(text: str) -> tuple[str, bool]:
    """A page's text to edit, and whether its lines end in a lone CR (classic Mac OS): such a page is
    edited as LF and turned back (``_as_written``), every line ending as it was; an added line ended in
    LF, and the page held both (a bug hunt)."""
    cr_only = "\r" in text and "\n" not in text
    return (text.replace("\r", "\n"), True) if cr_only else (text, False)


def _as_written(text: str, cr_only: bool) -> str:
    """An edited text in the page's own line endings again (``_as_lf``)."""
    return text.replace("\n", "\r") if cr_only else text


def _newline(text: str) -> str:
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def _insert_into_frontmatter(lines: list[str], end: int, item: str, nl: str) -> list[str]:
    """Lines 1..end-1 are the frontmatter, ``lines[end]`` the closing fence. Returns the new lines."""
    key_at = next((i for i in range(1, end) if _KEY.match(lines[i])), None)
    if key_at is None:
        # No triggers key yet: add it as the last field, just before the closing fence.
        return [*lines[:end], f"triggers:{nl}", f"  - {item}{nl}", *lines[end:]]
    m = _KEY.match(lines[key_at])
    assert m is not None
    # Every byte of the key's line is kept (a space before the colon, trailing spaces, a comment): the
    # edits below only insert, but for a null value, which gives way to the list.
    rest = m.group("rest")
    key = m.group("key")
    eol = m.group("eol") or nl
    value = rest.split(" #", 1)[0].strip()

    def key_line(new_rest: str) -> list[str]:
        return [*lines[:key_at], f"{key}{new_rest}{eol}", *lines[key_at + 1 :]]

    if value in _NO_VALUE:
        at = rest.index(value)
        return key_line(f"{rest[:at]}[{item}]{rest[at + len(value) :]}")
    if value.startswith("["):
        if not value.endswith("]"):
            raise PageEditError("a triggers list spread over several lines in [ ] form is not rewritten")
        close = rest.rindex("]")
        inner = rest[rest.index("[") + 1 : close].strip()
        at = len(rest[:close].rstrip()) if inner else close
        return key_line(rest[:at] + (", " if inner else "") + item + rest[at:])
    if value and not value.startswith(("|", ">", "&", "!")):
        # A single phrase written as a scalar: kept as it is written, as the first item of a list.
        return [*lines[:key_at], f"{key}{eol}", f"  -{rest}{eol}", f"  - {item}{eol}", *lines[key_at + 1 :]]
    if value:
        raise PageEditError("a triggers field written as a block scalar, anchor or tag is not rewritten")
    # A block list (or an empty key): append after its last line, with the indentation its items use.
    last = key_at
    indent = "  "
    seen_item = False
    for i in range(key_at + 1, end):
        line = lines[i]
        if _TOP_KEY.match(line):
            break
        im = _ITEM.match(line)
        if im and not seen_item:
            indent = im.group("indent")
            seen_item = True
        if line.strip() and not line.lstrip().startswith("#"):
            last = i
    tail = lines[last]
    if not tail.endswith("\n"):
        raise PageEditError("frontmatter line without a line ending")
    return [*lines[: last + 1], f"{indent}- {item}{nl}", *lines[last + 1 :]]


def with_trigger(data: bytes, trigger: str) -> bytes:
    """The page's bytes with ``trigger`` appended to its ``triggers`` list; everything else unchanged.

    Creates the ``triggers`` key when absent and a frontmatter block when the page has none. Raises
    PageEditError when the page cannot be edited safely, including when the re-parsed result would
    differ in anything but the new trigger.
    """
    trigger = clean_trigger(trigger)
    problem = trigger_problem(trigger)
    if problem:
        raise PageEditError(problem)
    bom = data.startswith(BOM)
    try:
        text = data[len(BOM) if bom else 0 :].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PageEditError(f"page is not UTF-8 (byte {exc.start})") from exc
    text, cr_only = _as_lf(text)
    nl = _newline(text)
    item = _yaml_scalar(trigger)
    fm_text, _body, body_line = split_frontmatter(text)
    if fm_text is None and _OPENING_FENCE.match(text):
        # A block no '---' closes (YAML's '...' end marker, Pandoc's): a new block above it would turn
        # the owner's fields into body text.
        raise PageEditError("the page opens with '---' and no '---' line closes it; not rewritten")
    if fm_text is None:
        old_meta: dict[str, object] = {}
        new_text = f"---{nl}triggers:{nl}  - {item}{nl}---{nl}{text}"
    else:
        old_meta = _parse_meta(fm_text)
        spellings = [str(k) for k in old_meta if field_key(str(k)) == "triggers"]
        if len(spellings) > 1:
            # The router reads one of them; adding to the other would be learning nothing.
            raise PageEditError(f"the page has {len(spellings)} triggers fields ({', '.join(spellings)})")
        lines = file_lines(text, keepends=True)
        end = body_line - 2  # index of the closing fence
        if spellings and not any(_KEY.match(line) for line in lines[1:end]):
            # Written as "triggers": [], ? triggers or the like: a plain key added for it would be a
            # second one, which strict YAML readers (Obsidian's) refuse.
            raise PageEditError(
                f"the page's {spellings[0]!r} field is written in a form that is not rewritten"
            )
        new_text = "".join(_insert_into_frontmatter(lines, end, item, nl))
    out = (BOM if bom else b"") + _as_written(new_text, cr_only).encode("utf-8")
    _check(out, old_meta, trigger)
    return out


def without_trigger(data: bytes, trigger: str) -> bytes | None:
    """The page's bytes with ``trigger`` (as the learner writes it: one quoted string) taken out of its
    ``triggers`` field: a block-list item's line (and the key's, when the list held nothing else), or a
    ``[ ]`` list's item with its comma. None when there is no such item or the result would differ in
    more than that one trigger (frontmatter re-parsed, body kept).

    An undo uses it when the page was edited since the run: whatever else changed is kept."""
    trigger = clean_trigger(trigger)
    bom = data.startswith(BOM)
    try:
        text = data[len(BOM) if bom else 0 :].decode("utf-8")
        text, cr_only = _as_lf(text)
        fm_text, body, body_line = split_frontmatter(text)
        if fm_text is None:
            return None
        meta = _parse_meta(fm_text)
    except (UnicodeDecodeError, PageEditError):
        return None
    remaining = _triggers_of(meta)
    if trigger not in remaining:
        return None
    remaining.remove(trigger)
    lines = file_lines(text, keepends=True)
    end = body_line - 2  # the closing fence
    key_at = next((i for i in range(1, end) if _KEY.match(lines[i])), None)
    if key_at is None:
        return None
    # As the learner wrote it first; then as a tool that saves the fields again writes it (plain, or
    # single-quoted: Obsidian's properties editor): the re-parse below says whether a cut was right.
    for item in dict.fromkeys((_yaml_scalar(trigger), trigger, "'" + trigger.replace("'", "''") + "'")):
        new_lines = _block_without(lines, key_at, end, item) or _flow_without(lines, key_at, item)
        if new_lines is not None:
            break
    else:
        return None
    new_text = "".join(new_lines)
    key = _triggers_key(meta)
    try:
        new_fm, new_body, _ = split_frontmatter(new_text)
        got = _parse_meta(new_fm or "")
    except PageEditError:
        return None
    without_key = {k: v for k, v in meta.items() if k != key}
    if new_body != body or (got != {**meta, key: remaining} and (remaining or got != without_key)):
        return None
    return (BOM if bom else b"") + _as_written(new_text, cr_only).encode("utf-8")


def _block_without(lines: list[str], key_at: int, end: int, item: str) -> list[str] | None:
    """``lines`` without the block-list item ``item`` (and its key, when it was the only item)."""
    block = range(key_at + 1, next((i for i in range(key_at + 1, end) if _TOP_KEY.match(lines[i])), end))
    hit = next((i for i in block if _ITEM.match(lines[i]) and lines[i].strip() == f"- {item}"), None)
    if hit is None:
        return None
    drop = {hit}
    if (
        not any(_ITEM.match(lines[i]) for i in block if i != hit)
        and not _KEY.match(lines[key_at])["rest"].strip()
    ):
        drop.add(key_at)  # the list held only this trigger: the key goes too
    return [line for i, line in enumerate(lines) if i not in drop]


def _flow_without(lines: list[str], key_at: int, item: str) -> list[str] | None:
    """``lines`` with ``item`` taken out of a one-line ``[ ]`` list: with the comma the learner wrote
    before it (after it, when it is first), or alone when it is the only item."""
    line = lines[key_at]
    for cut in (f", {item}", f"{item}, ", item):
        if line.count(cut) == 1:
            return [*lines[:key_at], line.replace(cut, ""), *lines[key_at + 1 :]]
    return None


def _check(out: bytes, old_meta: dict[str, object], trigger: str) -> None:
    """Refuse any result whose frontmatter differs from the old one in more than the new trigger, or
    that KRouter would no longer read (the new line taking the frontmatter over its size or alias
    limits turns every field of the page into body text)."""
    text = out.decode("utf-8").removeprefix("\ufeff")
    fm_text, _, _ = split_frontmatter(text)
    if fm_text is None:
        raise PageEditError("edit produced no frontmatter")
    unread = parse_page("page.md", text).yaml_error
    if unread is not None:
        raise PageEditError(f"with the trigger, KRouter could no longer read the page's fields ({unread})")
    new_meta = _parse_meta(fm_text)
    expected = dict(old_meta)
    expected[_triggers_key(old_meta)] = [*_triggers_of(old_meta), trigger]
    got = dict(new_meta)
    got[_triggers_key(new_meta)] = _triggers_of(new_meta)
    if got != expected:
        raise PageEditError("edit would change more than the triggers list; page left alone")


def splice(old: bytes, new: bytes) -> Splice:
    """The single byte range that turns ``old`` into ``new`` (common prefix and suffix kept)."""
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    end = 0
    while end < limit - start and old[len(old) - 1 - end] == new[len(new) - 1 - end]:
        end += 1
    return Splice(start, old[start : len(old) - end], new[start : len(new) - end])
