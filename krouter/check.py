"""``krouter check``: lint a vault for what makes KRouter cite wrongly or refuse needlessly.

Findings: replacement links that name no page, replacement cycles, superseded pages with no
replacement, pages replaced by a page that is itself replaced (the chain works but should be collapsed;
reported, never fixed), pages replaced by several pages (a hit leads to one), broken YAML, files that
are not UTF-8, symbolic links (not followed), live pages sharing a title, near-duplicate
pages, triggers on replaced pages (they can never recall anything), and links in page bodies
(``[[wikilinks]]`` and Markdown links to pages) that name no page or could mean several. The vault is read through
``krouter.vault`` exactly as the index reads it and is never written.

"Replaced" means what it means to the router: a replaced status, a ``superseded_by`` (even one that
names no page), or another page's ``supersedes`` naming it.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Annotated

import typer

from krouter.cli_options import VaultOption, exit_codes
from krouter.config import default_vault, in_folders, input_folders
from krouter.routing.replacements import Link, Replacements
from krouter.safe_text import visible
from krouter.tokens.terms import index_terms, normalize
from krouter.vault.files import PageTooLarge, check_vault, read_page_bytes, walk
from krouter.vault.links import LinkResolver
from krouter.vault.page import Page, Problem, decode, parse_page

SIMHASH_BITS = 64
# At most this many differing bits counts as near-duplicate. Measured on the bundled and bench vaults:
# distinct pages sit 12+ bits from their nearest neighbour, while a page with 5% of its terms changed
# lands 0-8 bits from the original; 6 catches most light edits with a wide margin from distinct pages.
NEAR_DUP_DISTANCE = 6
# Short pages share most of their few terms by chance; their fingerprints say little.
MIN_TERMS = 24
# A bucket this large means many pages are alike; comparing neighbours in fingerprint order keeps
# the check linear there while still reporting them.
MAX_BUCKET = 256


# Reported but not a failure: a chain A -> B -> C still redirects correctly (the router follows it);
# collapsing it is tidying, not repair.
# An unresolved [[wikilink]] is how Obsidian notes a page not written yet: reported, not a failure.
NOTICE_KINDS = frozenset(
    {
        "chain_not_collapsed",
        "several_replacements",
        "symlink",
        "loose_link",
        "hardlink",
        "leftover_tmp",
        "unresolved_wikilink",
    }
)


@dataclass
class Finding:
    """One thing wrong with the vault, reported against a vault-relative path."""

    kind: str
    path: str
    message: str
    related: list[str] = field(default_factory=list)

    @property
    def severity(self) -> str:
        """'error' fails the check; 'notice' is reported only."""
        return "notice" if self.kind in NOTICE_KINDS else "error"


@dataclass
class CheckReport:
    """All findings for one vault."""

    vault: str
    pages: int
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing but notices was found."""
        return all(f.severity == "notice" for f in self.findings)

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {
            "vault": self.vault,
            "pages": self.pages,
            "ok": self.ok,
            "counts": dict(Counter(f.kind for f in self.findings)),
            "findings": [{**asdict(f), "severity": f.severity} for f in self.findings],
        }


_LANE = 32  # bits per counter in the packed sum below: room for 4 billion occurrences of a term


@lru_cache(maxsize=262144)
def _spread(term: str) -> int:
    """A term's 64-bit hash with each bit moved into its own 32-bit lane of one big integer.

    Adding spread hashes counts, per bit, how often it was set, in one bigint addition per term
    instead of 64 Python-level additions; the vocabulary repeats across pages, so this is cached.
    """
    h = int.from_bytes(hashlib.blake2b(term.encode("utf-8"), digest_size=8).digest(), "big")
    return sum(1 << (bit * _LANE) for bit in range(SIMHASH_BITS) if (h >> bit) & 1)


def simhash(terms: list[str]) -> int:
    """64-bit SimHash of a bag of terms, each weighted by its frequency."""
    packed = 0
    total = 0
    for term, count in Counter(terms).items():
        packed += count * _spread(term)
        total += count
    lane = (1 << _LANE) - 1
    # A bit is set when the terms setting it outweigh those clearing it: set-count > total / 2.
    return sum(1 << bit for bit in range(SIMHASH_BITS) if 2 * ((packed >> (bit * _LANE)) & lane) > total)


def hamming(a: int, b: int) -> int:
    """Number of differing bits."""
    return (a ^ b).bit_count()


def near_duplicate_pairs(
    fingerprints: dict[str, int], distance: int = NEAR_DUP_DISTANCE
) -> list[tuple[str, str, int]]:
    """Pairs of paths whose fingerprints differ in at most ``distance`` bits, without comparing all pairs.

    The fingerprint is cut into ``distance + 2`` bands; ``distance`` differing bits touch at most
    ``distance`` bands, so a near pair agrees exactly on at least two (pigeonhole). Pages are bucketed
    by every pair of bands, and only pages sharing a bucket are compared: with 8-bit bands a bucket key
    is 16 bits, so buckets stay small on a 100k-page vault.
    """
    distance = max(0, min(distance, SIMHASH_BITS // 2 - 2))
    bands = distance + 2
    width = SIMHASH_BITS // bands
    mask = (1 << width) - 1
    buckets: dict[tuple[int, int, int, int], list[str]] = defaultdict(list)
    for path, fp in fingerprints.items():
        parts = [(fp >> (band * width)) & mask for band in range(bands)]
        for i, j in itertools.combinations(range(bands), 2):
            buckets[(i, j, parts[i], parts[j])].append(path)
    seen: set[tuple[str, str]] = set()
    out: list[tuple[str, str, int]] = []
    for members in buckets.values():
        if len(members) < 2:
            continue
        members = sorted(members, key=lambda p: (fingerprints[p], p))
        if len(members) > MAX_BUCKET:
            pairs = itertools.pairwise(members)
        else:
            pairs = itertools.combinations(members, 2)
        for a, b in pairs:
            key = (a, b) if a < b else (b, a)
            if key in seen:
                continue
            seen.add(key)
            d = hamming(fingerprints[a], fingerprints[b])
            if d <= distance:
                out.append((key[0], key[1], d))
    return sorted(out)


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


def check(vault: Path, *, near_distance: int = NEAR_DUP_DISTANCE) -> CheckReport:
    """Lint the vault at ``vault``; raises VaultNotFound when it is not a folder."""
    root = check_vault(vault)
    findings: list[Finding] = []
    pages: dict[str, Page] = {}
    symlinks: list[str] = []
    found: list[Problem] = []
    unreadable: list[str] = []
    for fs in sorted(walk(root, unreadable, symlinks, found), key=lambda f: f.path):
        try:
            data = read_page_bytes(root, fs.path)
        except PageTooLarge as exc:
            findings.append(Finding("too_large", fs.path, str(exc)))
            continue
        except OSError as exc:
            findings.append(Finding("unreadable", fs.path, f"cannot read: {exc.strerror or exc}"))
            continue
        text = decode(fs.path, data)
        if not isinstance(text, str):
            findings.append(Finding("encoding", fs.path, text.message))
            continue
        page = parse_page(fs.path, text)
        pages[fs.path] = page
        if page.yaml_error:
            # Broken YAML: the whole file is searched as text. YAML that parses to something other than
            # a mapping: the fields are ignored and the body after the fence is the page.
            how = (
                "fields ignored"
                if page.body_line > 1
                else "broken frontmatter, read as plain text (title, status and replacement links are "
                "still read line by line)"
            )
            findings.append(Finding("yaml", fs.path, f"{how}: {page.yaml_error}"))
    findings.extend(
        Finding("symlink", link, "a symbolic link: not followed (it could lead out of the vault or loop)")
        for link in sorted(symlinks)
    )
    findings.extend(Finding(p.kind, p.path, p.message) for p in found)
    findings.extend(
        Finding("unreadable", folder or ".", "folder cannot be listed; its pages are not checked")
        for folder in unreadable
    )

    folders = input_folders()
    graph = _links(pages, findings, lambda path: in_folders(path, folders))
    findings.extend(_body_links(pages))
    findings.extend(_replacement_findings(pages, graph))
    findings.extend(_duplicate_titles(pages, graph.replaced))
    findings.extend(_near_duplicates(pages, graph.successor, near_distance))
    for path, page in pages.items():
        if page.triggers and path in graph.replaced:
            findings.append(
                Finding(
                    "trigger_on_replaced",
                    path,
                    f"{len(page.triggers)} trigger(s) on a replaced page never recall it; "
                    "move them to its replacement",
                    graph.successor.get(path, []),
                )
            )
    order = {k: i for i, k in enumerate(_KIND_ORDER)}
    findings.sort(key=lambda f: (order.get(f.kind, len(order)), f.path, f.related))
    return CheckReport(str(root), len(pages), findings)


_KIND_ORDER = (
    "name",
    "too_large",
    "encoding",
    "unreadable",
    "yaml",
    "dangling_link",
    "untrusted_supersedes",
    "cycle",
    "no_replacement",
    "chain_not_collapsed",
    "loose_link",
    "broken_link",
    "unresolved_wikilink",
    "several_replacements",
    "symlink",
    "hardlink",
    "leftover_tmp",
    "trigger_on_replaced",
    "duplicate_title",
    "near_duplicate",
)


def _links(pages: dict[str, Page], findings: list[Finding], untrusted: Callable[[str], bool]) -> Replacements:
    """The replacement graph exactly as the router builds it; links that name no page are findings."""
    resolver = LinkResolver(list(pages))
    links: list[Link] = []
    for path, page in pages.items():
        for kind, raws in (("superseded_by", page.superseded_by), ("supersedes", page.supersedes)):
            for raw in raws:
                found, loose = resolver.explain(raw, path)
                dst = found[0] if len(found) == 1 else None
                links.append((path, dst, kind, raw))
                if dst is not None and loose:
                    findings.append(
                        Finding(
                            "loose_link",
                            path,
                            f"{kind}: {raw!r} names no page from this page's folder; it is read from the "
                            f"vault root as {dst!r}: point it there",
                            [dst],
                        )
                    )
                if dst is None:
                    shown = ", ".join(repr(p) for p in found[:5]) + (
                        f" and {len(found) - 5} more" if len(found) > 5 else ""
                    )
                    why = (
                        f"is ambiguous: it could mean {shown}; use the full path, in the file's own letter case"
                        if found
                        else "names no page"
                    )
                    findings.append(Finding("dangling_link", path, f"{kind}: {raw!r} {why}"))
                elif kind == "supersedes" and untrusted(path):
                    findings.append(
                        Finding(
                            "untrusted_supersedes",
                            path,
                            f"supersedes {dst!r} from an input/clipping folder: ignored, such pages "
                            "cannot retire the vault's own pages",
                            [dst],
                        )
                    )
    return Replacements.build((p for p, page in pages.items() if page.replaced), links, untrusted)


# [[Page]], [[Page#Heading]], [[Page|label]], ![[embed]]; and [text](dest) that is not an image.
_BODY_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
_BODY_MD_LINK = re.compile(r"(?<!!)\[([^\[\]\n]*)\]\(([^()\s]+(?:\s+\"[^\"]*\")?|<[^<>\n]+>)\)")
_CODE_SPAN = re.compile(r"`+[^`\n]*`+")
_FENCE_LINE = re.compile(r"^\s*(```|~~~)")
# A destination with a scheme (https:, mailto:, obsidian:) or only a #fragment is not a page of the vault.
_NOT_A_PAGE = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]*:|#)")


def _page_target(target: str) -> bool:
    """True when a link target names a page (``x``, ``x.md``), not an attachment (``x.png``)."""
    name = target.split("#", 1)[0].split("|", 1)[0].strip().rsplit("/", 1)[-1]
    suffix = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    return suffix in ("", "md") or not suffix.isalnum()


def _body_links(pages: dict[str, Page]) -> list[Finding]:
    """Links in page bodies that name no page, or could mean several (resolved as replacement links
    are, so a link that works in Obsidian works here). Code blocks and code spans are skipped, and
    so are links to attachments (images, PDFs) and to other sites."""
    resolver = LinkResolver(list(pages))
    out: list[Finding] = []
    for path, page in pages.items():
        fenced = False
        for offset, line in enumerate(page.body.splitlines()):
            if _FENCE_LINE.match(line):
                fenced = not fenced
                continue
            if fenced or ("[" not in line):
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
                if len(found) == 1:
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


def _replacement_findings(pages: dict[str, Page], graph: Replacements) -> list[Finding]:
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
            if page.status in ("superseded", "replaced") and not page.superseded_by:
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
            out.append(
                Finding(
                    "several_replacements",
                    path,
                    f"replaced by {len(successors)} pages ({', '.join(map(repr, successors))}); a hit on it "
                    f"leads to {red.to_path!r} only",
                    successors,
                )
            )
        if red.to_path is None:
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


def _duplicate_titles(pages: dict[str, Page], replaced: set[str]) -> list[Finding]:
    """Live pages sharing a title: a receipt naming that title is ambiguous to whoever reads it.

    Replaced pages are left out: an old decision and its replacement often keep the same title, and
    the router never cites the old one.
    """
    groups: dict[str, list[str]] = defaultdict(list)
    for path, page in pages.items():
        if path not in replaced:
            groups[" ".join(normalize(page.title).split())].append(path)
    out = []
    for paths in groups.values():
        if len(paths) > 1:
            paths.sort()
            title = pages[paths[0]].title
            out.append(
                Finding(
                    "duplicate_title", paths[0], f"title {title!r} is shared by {len(paths)} pages", paths[1:]
                )
            )
    return out


def _near_duplicates(pages: dict[str, Page], successor: dict[str, list[str]], distance: int) -> list[Finding]:
    """Pages whose bodies are nearly the same, except a page and its own replacement (expected)."""
    fingerprints = {}
    for path, page in pages.items():
        terms = index_terms(page.body)
        if len(terms) >= MIN_TERMS:
            fingerprints[path] = simhash(terms)
    out = []
    for a, b, d in near_duplicate_pairs(fingerprints, distance):
        if _in_chain(a, b, successor) or _in_chain(b, a, successor):
            continue
        what = (
            "identical bodies"
            if d == 0 and pages[a].body.strip() == pages[b].body.strip()
            else (f"near-duplicate bodies (SimHash distance {d} of {SIMHASH_BITS} bits)")
        )
        out.append(Finding("near_duplicate", a, f"{what} with {b!r}; merge them or mark one replaced", [b]))
    return out


def _in_chain(old: str, new: str, successor: dict[str, list[str]]) -> bool:
    """True when ``new`` is reached from ``old`` by following replacements."""
    stack, seen = [old], {old}
    while stack:
        for nxt in successor.get(stack.pop(), []):
            if nxt == new:
                return True
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return False


def check_command(
    vault: VaultOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Lint the vault: broken replacement links, cycles, broken YAML, duplicates. Exit 1 on any problem.

    Uncollapsed replacement chains are reported as notices and do not fail the check."""
    with exit_codes(as_json=as_json):
        report = check(vault if vault is not None else default_vault())
    if as_json:
        typer.echo(json.dumps(report.to_dict(), ensure_ascii=False))
    else:
        for f in report.findings:
            related = f" [{', '.join(f.related)}]" if f.related else ""
            typer.echo(visible(f"{f.kind:<20} {f.path}: {f.message}{related}"))
        errors = sum(f.severity == "error" for f in report.findings)
        summary = (
            f"{errors} problem(s), {len(report.findings) - errors} notice(s)" if report.findings else "clean"
        )
        typer.echo(f"checked {report.pages} page(s) in {report.vault}: {summary}")
    if not report.ok:
        raise typer.Exit(1)
