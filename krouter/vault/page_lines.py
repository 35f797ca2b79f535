"""A page's text as lines, cut where an editor cuts them, and where its frontmatter ends: one rule for
the index (`krouter.vault.page`), the learner's edits and the line a receipt cites.
"""

from __future__ import annotations

from krouter.lazy_pattern import lazy_pattern

# Full-width hyphens (U+FF0D, typed with a Chinese input method on) fence frontmatter too.
FENCE = lazy_pattern(r"^[-\uff0d]{3,}[ \t]*\r?$")


# A line ends at \n, \r\n or a lone \r, as editors and grep count them; str.splitlines also breaks at
# U+2028, U+0085, form feeds and \x1c-\x1e, which put every later line number of a receipt off.
_LINE = lazy_pattern(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def file_lines(text: str, keepends: bool = False) -> list[str]:
    """``text`` cut into lines where an editor cuts it (see ``_LINE``), like ``str.splitlines``."""
    lines = _LINE.findall(text)
    return lines if keepends else [line.rstrip("\r\n") for line in lines]


def line_range(text: str, start_line: int | None, end_line: int | None, name: str) -> tuple[str, int]:
    """(the 1-based inclusive lines ``start_line`` to ``end_line`` of ``text``, the first one's number),
    either end open when None; the whole text when both are. ValueError names the page (``name``) for a
    range past its end or backwards."""
    if start_line is None and end_line is None:
        return text, 1
    lines = file_lines(text, keepends=True)
    start = max(start_line or 1, 1)
    end = min(end_line or len(lines), len(lines))
    if start > len(lines):
        raise ValueError(f"{name} has {len(lines)} lines; the start line, {start}, is past its end")
    if end < start:
        raise ValueError(f"the end line, {end}, is before the start line, {start}")
    return "".join(lines[start - 1 : end]), start


def split_frontmatter(text: str) -> tuple[str | None, str, int]:
    """(frontmatter text or None, body, 1-based line where the body starts): only a ``---`` fence on
    the very first line opens frontmatter, so a ``---`` rule inside the body is left alone."""
    lines = file_lines(text, keepends=True)
    start = body_start(lines)
    if start == 1:
        return None, text, 1
    return "".join(lines[1 : start - 2]), "".join(lines[start - 1 :]), start


def body_start(lines: list[str]) -> int:
    """The 1-based line where the body of a page cut into ``lines`` (``file_lines``) starts: after
    frontmatter opened by a ``---`` fence on the very first line and closed by another; 1 without."""
    if not lines or not FENCE.match(lines[0].rstrip("\n")):
        return 1
    return next((i + 2 for i in range(1, len(lines)) if FENCE.match(lines[i].rstrip("\n"))), 1)
