"""The replacement graph: which pages replace which, and where a hit on a replaced page leads.

Shared by the router (to redirect) and the vault check (to lint), so both follow links the same way.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from krouter.routing.receipt import Redirect

# The start of a Redirect's problem when a page's branches end on several current pages.
SPLIT = "replaced by several current pages"

Link = tuple[str, str | None, str, str]
"""(page, resolved target or None, "superseded_by" | "supersedes", the link as written)."""


@dataclass
class Replacements:
    """Edges old → new, the pages never cited, and replacement links that name no page."""

    successor: dict[str, list[str]] = field(default_factory=dict)
    replaced: set[str] = field(default_factory=set)
    dangling: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def build(
        cls, replaced_by_status: Iterable[str], links: Iterable[Link], untrusted: Callable[[str], bool]
    ) -> Replacements:
        """Build the graph. A page is replaced when its status says so, when it names a replacement
        (even one that names no page), or when a page says it ``supersedes`` it.

        ``untrusted(path)`` marks pages (clippings, imported inputs) whose ``supersedes`` is ignored:
        pasted outside text must not be able to retire one of the vault's own pages.
        """
        successor: dict[str, set[str]] = defaultdict(set)
        replaced = set(replaced_by_status)
        dangling: dict[str, list[str]] = defaultdict(list)
        for src, dst, kind, raw in links:
            if kind == "supersedes" and untrusted(src):
                continue
            if dst is None:
                if kind == "superseded_by":
                    dangling[src].append(raw)
                    replaced.add(src)
                continue
            old, new = (src, dst) if kind == "superseded_by" else (dst, src)
            if old != new or kind == "superseded_by":
                successor[old].add(new)
                replaced.add(old)
        return cls({k: sorted(v) for k, v in successor.items()}, replaced, dict(dangling))

    def resolve(self, path: str) -> Redirect:
        """Follow replacements from a page to its current page; dead ends and cycles are reported.

        Every branch is followed to its first current page (breadth first, so a branch that dead-ends
        does not hide another that leads somewhere). A page whose branches end on two or more current
        pages (one old decision split into two) leads to none of them: which one answers depends on
        the question, and sending every hit to one of them cited it for questions only the other
        answers."""
        if path not in self.replaced:
            return Redirect(path, path, [path])
        parent: dict[str, str | None] = {path: None}
        queue = deque([path])
        looped = False
        current_pages: list[str] = []
        while queue:
            here = queue.popleft()
            for nxt in self.successor.get(here, []):
                if nxt in parent:
                    # Only a back edge is a cycle; two branches meeting again (a diamond) is not.
                    looped = looped or nxt in _chain(parent, here)
                    continue
                parent[nxt] = here
                if nxt in self.replaced:
                    queue.append(nxt)
                else:
                    current_pages.append(nxt)
        if len(current_pages) == 1:
            return Redirect(path, current_pages[0], _chain(parent, current_pages[0]))
        if current_pages:
            names = ", ".join(current_pages)
            return Redirect(path, None, [path], f"{SPLIT} ({names}); a hit on it leads to none of them")
        chain = _chain(parent, _deepest(parent))
        if looped:
            return Redirect(path, None, chain, "replacement cycle")
        ends = [p for p in parent if self.dangling.get(p)]
        if ends:
            # None, or several pages equally well: `krouter check` tells which (a cold review found an
            # ambiguous link called one that names no page).
            raw = self.dangling[ends[0]][0]
            return Redirect(
                path,
                None,
                chain,
                f"replacement {raw!r} does not name exactly one page (krouter check says why)",
            )
        return Redirect(path, None, chain, "replaced, with no replacement page")


def _chain(parent: dict[str, str | None], end: str) -> list[str]:
    out = [end]
    while (up := parent[out[-1]]) is not None:
        out.append(up)
    return out[::-1]


def _deepest(parent: dict[str, str | None]) -> str:
    """The last page reached: the end of the longest chain walked."""
    return next(reversed(parent))
