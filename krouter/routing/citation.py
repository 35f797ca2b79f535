"""A citation of the receipt: the page, its score, what it matched and lacked, and its best snippet."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from krouter.index.passages import Passage
from krouter.index.store import Index
from krouter.routing.question import Unit
from krouter.routing.receipt import Citation
from krouter.routing.scoring import Target
from krouter.routing.tables import Tables
from krouter.tokens.terms import normalize

SNIPPET_CHARS = 240
# How far past its first line a page's last passage is searched for the answering line.
_MAX_PASSAGE_LINES = 40


def page_text(root: Path, path: str, texts: dict[str, str]) -> str:
    """A page's text as a receipt reads it (undecodable bytes replaced, "" when it cannot be read),
    read at most once per lookup: ``texts`` holds what this lookup has read so far."""
    if path not in texts:
        try:
            texts[path] = (root / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            texts[path] = ""
    return texts[path]


def citation(
    x: Target,
    units: list[Unit],
    meta_hits: dict[int, set[int]],
    t: Tables,
    index: Index,
    root: Path,
    texts: dict[str, str],
) -> Citation:
    """The receipt's entry for target ``x``; the page's text is read through ``texts`` (``page_text``)."""
    info = t.pages[x.page_id]
    line, snippet = _snippet(x, units, meta_hits.get(x.page_id, set()), index, root, t, texts)
    return Citation(
        path=info.path,
        title=info.title,
        score=round(x.score, 4),
        line=line,
        snippet=snippet,
        matched=[units[i].shown_for(x.contributors) for i in sorted(x.matched)],
        missing=[u.text for i, u in enumerate(units) if i not in x.matched],
        via=t.pages[x.via].path if x.via is not None else None,
    )


def _snippet(
    x: Target,
    units: list[Unit],
    in_title: set[int],
    index: Index,
    root: Path,
    t: Tables,
    texts: dict[str, str],
) -> tuple[int, str]:
    """The passage of the cited page that holds most of the question's weight.

    Words matched by the title, aliases or triggers count as present in every passage (they say
    what the whole page is about), so a page found by its title shows its first paragraph, not
    the one line that happens to repeat a title word. On a tie, content beats a heading."""
    passages = index.passages(x.page_id)
    if not passages:
        return 1, ""
    text_lines = page_text(root, t.pages[x.page_id].path, texts).splitlines()

    def line_text(n: int) -> str:
        return text_lines[n - 1].strip() if 0 < n <= len(text_lines) else ""

    best = max(
        passages,
        key=lambda p: (
            sum(u.weight for i, u in enumerate(units) if i in in_title or u.in_terms(p.terms)),
            not line_text(p.line).startswith("#"),
            -p.line,
        ),
    )
    line = _answering_line(best, passages, units, line_text)
    text = line_text(line)
    if len(text) > SNIPPET_CHARS:
        text = text[: SNIPPET_CHARS - 1] + "…"
    return line, text


def _answering_line(
    best: Passage, passages: list[Passage], units: list[Unit], line_text: Callable[[int], str]
) -> int:
    """The line of passage ``best`` that holds most of the question's weight: a heading and the sentence
    under it with no blank line between are one passage, and the receipt's line should be the sentence
    ("Flags are reviewed monthly."), not the heading. Lines are matched on their text (a unit's route
    terms found in it), which is enough to choose among a passage's few lines; with no line matching,
    the passage's first line stands."""
    following = [p.line for p in passages if p.line > best.line]
    end = min(following) if following else best.line + _MAX_PASSAGE_LINES
    chosen, top = best.line, (0.0, False)
    for n in range(best.line, end):
        text = line_text(n)
        if not text:
            continue
        plain = normalize(text)
        weight = sum(u.weight for u in units if any(all(term in plain for term in alt) for alt in u.alts))
        score = (weight, not text.startswith("#"))
        if weight > 0 and score > top:
            chosen, top = n, score
    return chosen
