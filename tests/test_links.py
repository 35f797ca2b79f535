"""How replacement links are split and resolved to pages (``krouter.vault.links``)."""

from __future__ import annotations

import pytest

from krouter.vault.links import LinkResolver, split_links

PAGES = [
    "Decisions/New.md",
    "New.md",
    "C.md",
    "Decisions/New (2).md",
    "Archive/Decisions/Old.md",
    "Issues/Issue #42.md",
    "Issues/Issue.md",
    "auth.md",
    "D/Auth.md",
    "Runbooks/Message broker.md",
    "x/Plan.md",
    "y/Plan.md",
]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("[[A]], [[B]]", ["[[A]]", "[[B]]"]),
        ("[[A]]", ["[[A]]"]),
        ("[[]]", []),
        ('""', []),
        ("#", []),
        ("[[A", ["[[A"]),
        ("see [[A]]", ["[[A]]"]),
        ("[[A]] and [[B]]", ["[[A]] and [[B]]"]),  # prose around two links: no guess, it names no page
        ("[[New plan]] (was [[Draft plan]])", ["[[New plan]] (was [[Draft plan]])"]),
        ("Decisions/New", ["Decisions/New"]),
    ],
)
def test_split_links(raw: str, expected: list[str]) -> None:
    assert split_links(raw) == expected


@pytest.mark.parametrize(
    ("raw", "source", "expected"),
    [
        ("Decisions/New", None, "Decisions/New.md"),
        ("decisions/new.MD", None, "Decisions/New.md"),  # another case, when only one page matches
        ("[[Decisions/New#Why]]", None, "Decisions/New.md"),
        ("[x](Decisions/New.md#why)", None, "Decisions/New.md"),
        ("Decisions/New#Why", None, "Decisions/New.md"),  # not a file name: the part before # is tried
        ("Issues/Issue #42", None, "Issues/Issue #42.md"),  # a # that is part of a file name
        ("[i](Issues/Issue%20%2342.md)", None, "Issues/Issue #42.md"),
        ("Decisions/Old", None, "Archive/Decisions/Old.md"),  # the path ends with the link
        ("Auth", None, "D/Auth.md"),  # exact letter case beats a case-insensitive full path
        ("../Decisions/New", "Runbooks/Page.md", "Decisions/New.md"),
        ("./Message broker", "Top.md", None),  # no guess by name: Runbooks/Message broker.md is elsewhere
        ("./Runbooks/Message broker", "Decisions/New.md", "Runbooks/Message broker.md"),  # read from the root
        ("../../x/Plan", "Runbooks/Page.md", "x/Plan.md"),  # read from the vault root (loose)
        ("../../Other vault/New.md", "Runbooks/Page.md", None),  # outside the vault: no guess
        ("../Plan", "q/Sub/Page.md", None),  # neither q/Plan nor a root Plan: no other Plan is guessed
        ("https://wiki.example.com/display/ENG/Plan", None, None),
        ("/home/me/Other vault/Decisions/New.md", None, None),  # an absolute path is not in this vault
        ("Team/Message broker", None, None),  # a moved or deleted page: no guess by name
        ("Archive/2021/Plan", "x/Plan.md", None),
        ("Plan", None, None),  # two pages of that name: ambiguous
        ("C# guide", None, None),  # a missing name with a # is not "C" plus a heading
        ("Issues/Issue #43", None, None),
        ("[[New]]", "Decisions/Old.md", "Decisions/New.md"),  # the linking page's folder breaks a tie
        ("[[New]]", "Other/Old.md", "New.md"),  # no New in the page's folder: the vault root's
        ("[[Plan]]", "x/Old.md", "x/Plan.md"),
        ("[n](New.md)", "Decisions/Old.md", None),  # relative and vault-root readings differ: ambiguous
        ("[n](Plan.md)", "x/Old.md", "x/Plan.md"),  # Markdown links are relative to their page
        ("[o](Old.md)", "Decisions/Queue.md", "Archive/Decisions/Old.md"),  # Obsidian's shortest path
        ("[n](New.md)", "Other/Old.md", "New.md"),  # ... then from the vault root
        ("[n](<Decisions/New (2).md>)", None, "Decisions/New (2).md"),
        ('[n](Decisions/New.md "the new one")', None, "Decisions/New.md"),
    ],
)
def test_resolve(raw: str, source: str | None, expected: str | None) -> None:
    assert LinkResolver(PAGES).resolve(raw, source) == expected


def test_an_ambiguous_link_lists_what_it_could_mean() -> None:
    assert sorted(LinkResolver(PAGES).matches("Plan")) == ["x/Plan.md", "y/Plan.md"]


@pytest.mark.parametrize(
    ("raw", "source"),
    [("./Runbooks/Message broker", "Decisions/New.md"), ("../../x/Plan", "Runbooks/Page.md")],
)
def test_a_relative_link_read_from_the_root_is_loose(raw: str, source: str | None) -> None:
    resolver = LinkResolver(PAGES)
    assert resolver.explain(raw, source)[1]
    assert not resolver.explain("Decisions/New", None)[1]


def test_a_page_names_itself_only_when_nothing_else_matches() -> None:
    resolver = LinkResolver(["Plan.md", "Decisions/Plan.md", "Self.md"])
    assert resolver.resolve("[[Plan]]", "Decisions/Plan.md") == "Plan.md"
    assert resolver.resolve("Self", "Self.md") == "Self.md"


def test_a_logseq_namespace_link_names_the_page_file_logseq_writes() -> None:
    """A bug hunt: `superseded_by:: [[Project/Alpha]]` named no page in a Logseq graph, which keeps that
    page as pages/Project___Alpha.md (pages/Project%2FAlpha.md before Logseq 0.9)."""
    resolver = LinkResolver(["pages/Project___Alpha.md", "pages/Team%2FOps.md", "pages/Old Alpha.md"])
    assert resolver.resolve("[[Project/Alpha]]", "pages/Old Alpha.md") == "pages/Project___Alpha.md"
    assert resolver.resolve("[[Team/Ops]]", "pages/Old Alpha.md") == "pages/Team%2FOps.md"
    # A path that names a page is that page, whatever a namespace file would be called.
    both = LinkResolver(["Project/Alpha.md", "pages/Project___Alpha.md"])
    assert both.resolve("[[Project/Alpha]]") == "Project/Alpha.md"
