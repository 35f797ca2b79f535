"""``krouter check``: lint a vault for what makes KRouter cite wrongly or refuse needlessly.

Findings: replacement links that name no page (or name a file that is no page: unreadable, not UTF-8,
ignored), pages whose status says current while their ``superseded_by`` replaces them, replacement
cycles, superseded pages with no replacement, pages replaced by a page that is itself replaced (the chain works but should be collapsed;
reported, never fixed), pages replaced by several pages (a hit leads to one), broken YAML, files that
are not UTF-8, symbolic links (not followed), live pages sharing a title, near-duplicate
pages, triggers on replaced pages (they can never recall anything), and links in page bodies
(``[[wikilinks]]`` and Markdown links to pages) that name no page or could mean several. The vault is read through
``krouter.vault`` exactly as the index reads it and is never written.

"Replaced" means what it means to the router: a replaced status, a ``superseded_by`` (even one that
names no page), or another page's ``supersedes`` naming it.
"""

from __future__ import annotations

from pathlib import Path

from krouter.config import in_folders, input_folders
from krouter.ops.check.graph import (
    body_link_findings,
    current_but_replaced,
    replacement_findings,
    replacement_graph,
)
from krouter.ops.check.not_pages import NotPages
from krouter.ops.check.report import KIND_ORDER, CheckReport, Finding
from krouter.ops.check.similar import NEAR_DUP_DISTANCE, duplicate_titles, near_duplicates
from krouter.vault.fields import tagged_clipping
from krouter.vault.files import PageTooLarge, check_vault, read_page_bytes, walk
from krouter.vault.ignore import ignore_problems
from krouter.vault.page import Page, Problem, decode, parse_page
from krouter.vault.templates import template_message


def check(vault: Path, *, near_distance: int = NEAR_DUP_DISTANCE) -> CheckReport:
    """Lint the vault at ``vault``; raises VaultNotFound when it is not a folder."""
    root = check_vault(vault)
    findings: list[Finding] = []
    pages: dict[str, Page] = {}
    symlinks: list[str] = []
    found: list[Problem] = []
    unreadable: list[str] = []
    not_read: dict[str, str] = {}
    for fs in sorted(walk(root, unreadable, symlinks, found), key=lambda f: f.path):
        try:
            data = read_page_bytes(root, fs.path)
        except PageTooLarge as exc:
            findings.append(Finding("too_large", fs.path, str(exc)))
            not_read[fs.path] = "is not a page KRouter reads (too large)"
            continue
        except OSError as exc:
            findings.append(Finding("unreadable", fs.path, f"cannot read: {exc.strerror or exc}"))
            not_read[fs.path] = f"is not a page KRouter reads (cannot read: {exc.strerror or exc})"
            continue
        text = decode(fs.path, data)
        if not isinstance(text, str):
            findings.append(Finding("encoding", fs.path, text.message))
            not_read[fs.path] = "is not a page KRouter reads (not UTF-8)"
            continue
        page = parse_page(fs.path, text)
        if page.template:
            findings.append(Finding("template", fs.path, template_message(page.template)))
            not_read[fs.path] = "is a template, which KRouter does not index"
            continue
        pages[fs.path] = page
        if page.yaml_error:
            # Broken YAML: the whole file is searched as text. Otherwise (a list or a string for
            # frontmatter, a field written twice) the error says itself what was read.
            how = (
                ""
                if page.body_line > 1
                else "broken frontmatter, read as plain text (title, status and replacement links are "
                "still read line by line): "
            )
            findings.append(Finding("yaml", fs.path, f"{how}{page.yaml_error}"))
        if page.status_disagreement:
            findings.append(Finding("status_spellings", fs.path, page.status_disagreement))
    findings.extend(
        Finding("symlink", link, "a symbolic link: not followed (it could lead out of the vault or loop)")
        for link in sorted(symlinks)
    )
    findings.extend(Finding(p.kind, p.path, p.message) for p in found)
    findings.extend(Finding("ignore_file", rules, why) for rules, why in ignore_problems(root))
    findings.extend(
        Finding("unreadable", folder or ".", "folder cannot be listed; its pages are not checked")
        for folder in unreadable
    )

    folders = input_folders()
    not_read.update(dict.fromkeys(symlinks, "is a symbolic link, which KRouter does not follow"))
    elsewhere = NotPages(root, list(pages), not_read).explain

    # Clipped material (an input folder, or tagged as a clipping) retires no page, as the lookup reads it.
    def clipped(path: str) -> bool:
        return in_folders(path, folders) or (path in pages and tagged_clipping(pages[path].tags))

    graph = replacement_graph(pages, findings, clipped, elsewhere)
    findings.extend(body_link_findings(pages))
    findings.extend(replacement_findings(pages, graph))
    findings.extend(duplicate_titles(pages, graph.replaced))
    findings.extend(near_duplicates(pages, graph.successor, near_distance))
    findings.extend(current_but_replaced(pages, graph))
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
    order = {k: i for i, k in enumerate(KIND_ORDER)}
    findings.sort(key=lambda f: (order.get(f.kind, len(order)), f.path, f.related))
    return CheckReport(str(root), len(pages), findings)
