"""The link checks of ``krouter check``: the replacement graph (links that name no page, cycles,
chains, pages replaced by several) and the links in page bodies, resolved exactly as the router does."""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from pathlib import PurePosixPath

from krouter.lazy_pattern import lazy_pattern
from krouter.ops.check.report import Finding
from krouter.routing.replacements import SPLIT, Link, Replacements
from krouter.vault.fields import PROMISE_REPLACEMENT
from krouter.vault.links import LinkResolver, parse_link
from krouter.vault.page import Page
from krouter.vault.page_lines import file_lines
from krouter.vault.templates import fenced_lines


def replacement_graph(
    pages: dict[str, Page],
    findings: list[Finding],
    untrusted: Callable[[str], bool],
    elsewhere: Callable[[str, str], str | None] | None = None,
) -> Replacements:
    """The replacement graph exactly as the router builds it; links that name no page are findings.
    ``elsewhere(raw, source)`` may say what a link naming no page does name (a file that is no page)."""
    resolver = LinkResolver(list(pages))
    links: list[Link] = []
    for path, page in pages.items():
        for kind, raws in (("superseded_by", page.superseded_by), ("supersedes", page.supersedes)):
            reported: set[str] = set()
            for raw in raws:
                found, loose = resolver.explain(raw, path)
                dst = found[0] if len(found) == 1 else None
                links.append((path, dst, kind, raw))
                if raw in reported:
                    continue  # written twice (a field and the status): one finding
                reported.add(raw)
                # Named where it is written: a link only a status line names is no field to look for.
                in_status = page.status_links.count(raw)
                where = "status" if kind == "superseded_by" and in_status >= raws.count(raw) else kind
                if dst is not None and loose:
                    findings.append(
                        Finding(
                            "loose_link",
                            path,
                            f"{where}: {raw!r} names no page from this page's folder; it is read from the "
                            f"vault root as {dst!r}: point it there",
                            [dst],
                        )
                    )
                if dst is None:
                    shown = ", ".join(repr(p) for p in found[:5]) + (
                        f" and {len(found) - 5} more" if len(found) > 5 else ""
                    )
                    if found:
                        why = f"is ambiguous: it could mean {shown}; use the full path, in the file's own letter case"
                    else:
                        there = elsewhere(raw, path) if elsewhere is not None else None
                        why = f"{there}; a hit on this page cannot lead there" if there else "names no page"
                    findings.append(Finding("dangling_link", path, f"{where}: {raw!r} {why}"))
                elif kind == "supersedes" and untrusted(path):
                    findings.append(
                        Finding(
                            "untrusted_supersedes",
                            path,
                            f"supersedes {dst!r} from clipped material (an input folder, or tagged as a "
                            "clipping): ignored, such pages cannot retire the vault's own pages",
                            [dst],
                        )
                    )
    return Replacements.build((p for p, page in pages.items() if page.replaced), links, untrusted)


# [[Page]], [[Page#Heading]], [[Page|label]], ![[embed]]; and [text](dest) that is not an image.


def _strongly_connected(graph: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's SCCs, iteratively (a long replacement chain must not hit the recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(graph.get(start, [])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(graph.get(nxt, []))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    comp.append(member)
                    if member == node:
                        break
                out.append(sorted(comp))
    return out


_BODY_WIKILINK = lazy_pattern(r"(!?)\[\[([^\[\]\n]+?)\]\]")
_BODY_MD_LINK = lazy_pattern(r"(?<!!)\[([^\[\]\n]*)\]\(([^()\s]+(?:\s+\"[^\"]*\")?|<[^<>\n]+>)\)")
_CODE_SPAN = lazy_pattern(r"`+[^`\n]*`+")
# A destination with a scheme (https:, mailto:, obsidian:) or only a #fragment is not a page of the vault.
# Another site or scheme, a fragment, or a Joplin note's own id (":/4f1c…": a bug hunt's false alarm).
_NOT_A_PAGE = lazy_pattern(r"^(?:[A-Za-z][A-Za-z0-9+.-]*:|#|:/)")


def _page_target(target: str) -> bool:
    """True when a link target names a page (``x``, ``x.md``), not an attachment (``x.png``)."""
    name = target.split("#", 1)[0].split("|", 1)[0].strip().rsplit("/", 1)[-1]
    suffix = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    return suffix in ("", "md") or not suffix.isalnum()


def _names_a_folder(raw: str, source: str, folders: set[str]) -> bool:
    """Whether a Markdown link names a folder of the vault (``[ADRs](adr/)``, ``(./adr)``): a code host
    shows its README there, and `check` called it broken, failing the check (a bug hunt)."""
    target, _markdown = parse_link(raw)
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(source), target.rstrip("/")))
    return joined in folders or target.rstrip("/") in folders


def body_link_findings(pages: dict[str, Page]) -> list[Finding]:
    """Links in page bodies that name no page, or could mean several (resolved as replacement links
    are, so a link that works in Obsidian works here). Code blocks and code spans are skipped, and
    so are links to attachments (images, PDFs) and to other sites."""
    resolver = LinkResolver(list(pages))
    folders = {str(parent) for p in pages for parent in PurePosixPath(p).parents if str(parent) != "."}
    out: list[Finding] = []
    for path, page in pages.items():
        lines = file_lines(page.body)
        # The lookup's fence reader: "```brew install x``` once" opens none (a second review).
        fenced = fenced_lines(lines)
        for offset, line in enumerate(lines):
            if offset in fenced or ("[" not in line):
                continue
            text = _CODE_SPAN.sub("", line)
            links = [
                (m.group(0).lstrip("!"), True)
                for m in _BODY_WIKILINK.finditer(text)
                if m.group(2).split("|", 1)[0].split("#", 1)[0].strip() and _page_target(m.group(2))
            ]
            links += [
                (m.group(0), False)
                for m in _BODY_MD_LINK.finditer(text)
                if not _NOT_A_PAGE.match(m.group(2).strip("<")) and _page_target(m.group(2).strip("<>"))
            ]
            for raw, wiki in links:
                found = resolver.matches(raw, path)
                if len(found) == 1 or (not wiki and not found and _names_a_folder(raw, path, folders)):
                    continue
                where = f"line {page.body_line + offset}: {raw}"
                if found:
                    shown = ", ".join(repr(p) for p in found[:5])
                    out.append(Finding("broken_link", path, f"{where} could mean {shown}; use the full path"))
                elif wiki:
                    out.append(
                        Finding("unresolved_wikilink", path, f"{where} names no page (not written yet?)")
                    )
                else:
                    out.append(Finding("broken_link", path, f"{where} names no page"))
    return out


def replacement_findings(pages: dict[str, Page], graph: Replacements) -> list[Finding]:
    out: list[Finding] = []
    in_cycle: set[str] = set()
    for comp in _strongly_connected(graph.successor):
        if len(comp) > 1 or comp[0] in graph.successor.get(comp[0], []):
            in_cycle.update(comp)
            loop = " → ".join([*comp, comp[0]]) if len(comp) > 1 else f"{comp[0]} → itself"
            out.append(Finding("cycle", comp[0], f"replacement cycle: {loop}; no current page", comp[1:]))
    for path in sorted(graph.replaced):
        page = pages[path]
        if not graph.successor.get(path):
            # Only "superseded"/"replaced" promise a replacement; retired/rejected/archived pages may have none.
            if page.status in PROMISE_REPLACEMENT and not page.superseded_by:
                out.append(
                    Finding(
                        "no_replacement",
                        path,
                        "status superseded but no superseded_by, and no page supersedes it; "
                        "hits on it cannot lead anywhere",
                    )
                )
            continue
        if path in in_cycle:
            continue
        red = graph.resolve(path)
        successors = graph.successor.get(path, [])
        if red.to_path is not None and len(successors) > 1:
            # Branches that meet again on one current page: hits lead there, as they should.
            out.append(
                Finding(
                    "several_replacements",
                    path,
                    f"replaced by {len(successors)} pages ({', '.join(map(repr, successors))}), which all "
                    f"lead to {red.to_path!r}",
                    successors,
                )
            )
        if red.problem and red.problem.startswith(SPLIT):
            out.append(
                Finding(
                    "several_replacements",
                    path,
                    f"{red.problem}: each answers on its own words (name one in superseded_by to send "
                    "hits there)",
                    successors,
                )
            )
        elif red.to_path is None:
            out.append(
                Finding(
                    "no_replacement",
                    path,
                    f"its replacements lead to no current page ({' → '.join(red.chain)}: {red.problem})",
                    red.chain[1:],
                )
            )
        elif len(red.chain) > 2:
            out.append(
                Finding(
                    "chain_not_collapsed",
                    path,
                    f"replaced by {red.chain[1]!r}, which is itself replaced ({' → '.join(red.chain)}); "
                    f"point it at {red.to_path!r}",
                    red.chain[1:],
                )
            )
    return out


def current_but_replaced(pages: dict[str, Page], graph: Replacements) -> list[Finding]:
    """Pages whose status says they are current (``active``, ``accepted``) while their own
    ``superseded_by`` replaces them: the router reads them as replaced and never cites them, which
    the status hides from the person reading the page."""
    out: list[Finding] = []
    for path, page in pages.items():
        if page.superseded_by and page.status and not page.replaced:
            links = ", ".join(repr(raw) for raw in page.superseded_by)
            out.append(
                Finding(
                    "replaced_but_current",
                    path,
                    f"status {page.status!r} says the page is current, but superseded_by {links} replaces "
                    "it: KRouter never cites it; set status: superseded, or remove superseded_by",
                    graph.successor.get(path, []),
                )
            )
    return out
