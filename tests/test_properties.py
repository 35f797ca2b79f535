"""Property-based tests: page parsing and tokenisation never crash, whatever the text."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from krouter.tokens.terms import index_terms, query_terms
from krouter.vault.page import Page, parse_page

FAST = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Latin, CJK (Han, kana, Hangul), full-width forms, control characters, BOM, YAML punctuation.
ALPHABET = st.one_of(
    st.characters(min_codepoint=0, max_codepoint=0x7F),
    st.characters(min_codepoint=0x4E00, max_codepoint=0x4FFF),
    st.characters(min_codepoint=0x3040, max_codepoint=0x30FF),
    st.characters(min_codepoint=0xAC00, max_codepoint=0xAC80),
    st.characters(min_codepoint=0xFF01, max_codepoint=0xFF5E),
    st.sampled_from(["\ufeff", "\u200b", "\x00", "\x1b", "\r", "\u2028", "\ud7ff", "\U00020000"]),
    st.characters(blacklist_categories=("Cs",)),
)
TEXT = st.text(alphabet=ALPHABET, max_size=200)

YAML_BITS = st.sampled_from(
    [
        "---",
        "--- ",
        "----",
        "title: ",
        "aliases: [",
        "]",
        "{",
        "}",
        "- ",
        ": ",
        "&a ",
        "*a",
        "!!binary ",
        "!!python/object ",
        "'",
        '"',
        "|",
        ">",
        "? ",
        "2024-13-45",
        "2024-05-01",
        "12:30:00",
        "yes",
        "no",
        "~",
        "null",
        "[[A|b]]",
        "status: superseded",
        "superseded_by: ",
        "#",
        "\t",
        "  ",
        "\n",
        "%YAML 1.2",
    ]
)
YAMLISH = st.lists(st.one_of(YAML_BITS, TEXT), max_size=20).map("".join)


def page_text(draw_fm: str, body: str) -> str:
    return f"---\n{draw_fm}\n---\n{body}"


def check_page(page: Page, path: str) -> None:
    assert page.path == path
    assert isinstance(page.title, str) and page.title
    assert isinstance(page.body, str) and page.body_line >= 1
    for values in (page.aliases, page.tags, page.triggers, page.superseded_by, page.supersedes):
        assert all(isinstance(v, str) and v for v in values)


@FAST
@given(TEXT)
def test_parse_page_any_text(text: str) -> None:
    check_page(parse_page("Folder/Any page.md", text), "Folder/Any page.md")


@FAST
@given(YAMLISH, TEXT)
@example("date: 2024-13-45", "body")  # PyYAML raises ValueError, not YAMLError, for impossible dates
@example("a: &x [*x]", "body")  # a recursive alias
@example("title: yes", "")
def test_parse_page_yamlish_frontmatter(frontmatter: str, body: str) -> None:
    check_page(parse_page("p.md", page_text(frontmatter, body)), "p.md")
    check_page(parse_page("p.md", "\ufeff" + page_text(frontmatter, body)), "p.md")


@FAST
@given(YAMLISH)
def test_parse_page_lone_fences(text: str) -> None:
    check_page(parse_page("p.md", "---\n" + text), "p.md")
    check_page(parse_page("p.md", text + "\n---\n"), "p.md")


@FAST
@given(TEXT)
def test_index_terms_any_text(text: str) -> None:
    terms = index_terms(text)
    assert all(isinstance(t, str) and t and not t.isspace() for t in terms)


@FAST
@given(TEXT)
def test_query_terms_any_text(text: str) -> None:
    terms = query_terms(text)
    assert len({t.term for t in terms}) == len(terms)
    assert all(t.term and t.text for t in terms)
