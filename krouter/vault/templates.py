"""What of a vault is scaffolding rather than notes: template pages, and query blocks inside pages.

A template page (Obsidian's core Templates plugin, Templater, QuickAdd) is headings and prompts around
placeholders: "What we chose, and the version or region." under ``# {{title}}`` was cited, at full
confidence, for "which version of the database" and "what region did we choose". Obsidian's settings
name the template folder when the plugin was set up in that vault (``vault/ignore.py``); a folder of
templates copied in by hand, or kept after the plugin was switched off, has no such setting, so a page
kept where templates are (its folder or file named for them) is also known by what it holds.

A query block (```dataview, ```query, ```tasks, ```base) asks Obsidian to list other pages when
it renders; its words are field and folder names ("TABLE status, date FROM Decisions"), not
statements, and they made an index page the answer to "what date did we decide on the database".
"""

from __future__ import annotations

import re

from krouter.lazy_pattern import lazy_pattern

# Obsidian's core placeholders ({{title}}, {{date}}, {{time}}, each with an optional :format) and
# QuickAdd's, which it writes in capitals ({{DATE:YYYY}}, {{VALUE}}, {{NAME}}, {{LINKCURRENT}}):
# lower-case {{name}} or {{value}} are what Handlebars or Jinja documentation shows, not a template.
_PLACEHOLDER = lazy_pattern(
    r"\{\{\s*(?:title|date|time|TITLE|DATE|TIME|VALUE|NAME|LINKCURRENT)(?::[^{}\n]*)?\s*\}\}"
)
# A Templater command: <% tp.date.now() %>, <%* tR += … %>, <%_ … _%>. Unmistakable wherever it stands.
_TEMPLATER = lazy_pattern(r"<%[*_-]?[^%\n]*?(?:\btp\.|\btR\b)[^\n]*?%>|<%\*")
# A placeholder in a page's frontmatter or title is the template's own: a real note's title is text.
# In the body one could be a note quoting a template in passing; two are a template.
BODY_PLACEHOLDERS = 2

QUERY_LANGUAGES = frozenset({"dataview", "dataviewjs", "query", "tasks", "base"})
# Up to three spaces before a fence; a tab makes the line indented code (CommonMark), not a fence that
# could swallow the rest of the page.
_FENCE_OPEN = lazy_pattern(r"^ {0,3}(`{3,}|~{3,})[ \t]*([^`\s]*)")
_INLINE_CODE = lazy_pattern(r"(`+)[^`\n]+?\1")


# Where templates are kept: a folder or file named for them ("Templates/", "99 Templates/", "_templates/",
# "Decision template.md", 模板, テンプレート, 템플릿).
_TEMPLATE_PLACE = lazy_pattern(r"templat|模板|模版|テンプレート|템플릿", re.IGNORECASE)


def template_mark(path: str, frontmatter: str | None, title: str, body: str) -> str | None:
    """The placeholder that shows a page is a template, or None when it is a page of notes. Only a page
    whose folder or file is named for templates is read for one: a note copied from a template with a
    placeholder left unfilled, or one Templater did not run on (``<% tp.date.now() %>`` above a day's
    notes), is still a note, and a diff review found such notes dropped. Code (fenced blocks, `inline
    spans`) is not read: a note about templates shows their syntax there."""
    if not _TEMPLATE_PLACE.search(path):
        return None
    if not any("{{" in text or "<%" in text for text in (frontmatter or "", title, body)):
        return None  # no regular expression run
    lines = body.splitlines()
    fenced = fenced_lines(lines)
    prose = _INLINE_CODE.sub(" ", "\n".join(x for i, x in enumerate(lines) if i not in fenced))
    command = _TEMPLATER.search(prose) or _TEMPLATER.search(frontmatter or "")
    if command:
        return command.group(0)
    for text in (frontmatter or "", title):
        if m := _PLACEHOLDER.search(text):
            return m.group(0)
    found = _PLACEHOLDER.findall(prose)
    return found[0] if len(found) >= BODY_PLACEHOLDERS else None


def template_message(mark: str) -> str:
    """What ``check`` and the index say of a template page."""
    return (
        f"a template (it holds {mark}): not indexed, so it never answers a question; "
        "put its folder in .krouterignore to leave it out quietly"
    )


def query_block_lines(lines: list[str]) -> set[int]:
    """The 0-based numbers of the lines that belong to a query block, its fences included."""
    if not any(x.lstrip().startswith(("```", "~~~")) for x in lines):
        return set()
    return {
        i
        for first, last, info in _fenced_blocks(lines)
        if info.lower() in QUERY_LANGUAGES
        for i in range(first, last + 1)
    }


def fenced_lines(lines: list[str]) -> set[int]:
    """The 0-based numbers of the lines inside fenced code blocks, their fences included."""
    return {i for first, last, _info in _fenced_blocks(lines) for i in range(first, last + 1)}


def closed_fenced_lines(lines: list[str]) -> set[int]:
    """The lines inside fenced code blocks that are closed: text after a fence never closed is not
    counted as code (an appended part that a reader of the raw file sees as text)."""
    # With one more line, a block never closed ends on it; a closed one ends before it.
    return {
        i
        for first, last, _info in _fenced_blocks([*lines, ""])
        if last < len(lines)
        for i in range(first, last + 1)
    }


def _fenced_blocks(lines: list[str]) -> list[tuple[int, int, str]]:
    """(first line, last line, info word) of each fenced code block, 0-based; a block never closed
    runs to the end, as Obsidian renders it."""
    out: list[tuple[int, int, str]] = []
    fence, start, info = "", 0, ""
    for i, line in enumerate(lines):
        m = _FENCE_OPEN.match(line)
        if not fence:
            # A backtick fence's info string holds no backtick (CommonMark): "```brew install x``` once"
            # is inline code, and read as a fence it hid the rest of the page.
            if m and not (m.group(1)[0] == "`" and "`" in line[m.end(1) :]):
                fence, start, info = m.group(1), i, m.group(2)
        elif m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not m.group(2):
            out.append((start, i, info))
            fence = ""
    if fence:
        out.append((start, len(lines) - 1, info))
    return out
