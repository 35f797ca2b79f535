"""The learner's frontmatter editor: adds one trigger, keeps every other byte, writes atomically."""

from __future__ import annotations

from pathlib import Path

import pytest

from krouter.learner import trigger_writes
from krouter.learner import undo as learn_undo
from krouter.learner.page_edit import PageEditError, splice, with_trigger, without_trigger
from krouter.learner.page_write import PageChanged, atomic_replace
from krouter.learner.report import LEARNED
from krouter.vault.page import MAX_FRONTMATTER_CHARS, parse_page

Q = 'what: "is" - the [merge] rule?'


def _triggers(data: bytes) -> list[str]:
    return parse_page("p.md", data.decode("utf-8")).triggers


@pytest.mark.parametrize(
    "before",
    [
        b"---\ntitle: A\ntriggers:\n  - one\n  - two\ntags: [x]\n---\nbody\n",
        b"---\ntitle: A\ntriggers:\n- one\n# a comment\nx: 1\n---\nbody\n",
        b"---\r\ntitle: A\r\ntriggers: [one]\r\n---\r\nbody\r\n",
        b"\xef\xbb\xbf---\ntitle: A\n---\nbody",
        b"---\ntitle: A\ntriggers: []\n---\n",
        b"---\ntitle: A\ntriggers:\n---\nbody\n",
        b"---\ntitle: A\ntriggers: one\n---\n",
        b"# No frontmatter\r\n\r\nbody\r\n",
        # Classic Mac OS line endings: the added lines end in a lone CR too (a bug hunt found LF).
        b"---\rtitle: A\rtags: [ops]\r---\rbody\r",
        b"---\rtitle: A\rtriggers:\r  - one\r---\rbody\r",
        b"# No frontmatter\r\rbody\r",
        b"",
    ],
)
def test_adds_trigger_and_keeps_every_other_byte(before: bytes) -> None:
    after = with_trigger(before, Q)
    old = _triggers(before)
    assert _triggers(after) == [*old, Q]
    before_meta = parse_page("p.md", before.decode("utf-8")).meta
    after_meta = parse_page("p.md", after.decode("utf-8")).meta
    assert {k: v for k, v in after_meta.items() if k != "triggers"} == {
        k: v for k, v in before_meta.items() if k != "triggers"
    }
    assert after.startswith(b"\xef\xbb\xbf") == before.startswith(b"\xef\xbb\xbf")
    if b"\r\n" in before:
        assert after.count(b"\n") == after.count(b"\r\n")
    if b"\r" in before and b"\n" not in before:
        assert b"\n" not in after
        if before.startswith(b"---"):
            assert without_trigger(after, Q) == before
    sp = splice(before, after)
    # One contiguous change; everything before and after it is the old file's bytes.
    assert before[: sp.offset] == after[: sp.offset]
    assert before[sp.offset + len(sp.old) :] == after[sp.offset + len(sp.new) :]
    assert (
        parse_page("p.md", after.decode("utf-8")).body.strip()
        == parse_page("p.md", before.decode("utf-8")).body.strip()
    )


def test_refuses_pages_it_cannot_edit_safely() -> None:
    with pytest.raises(PageEditError):
        with_trigger(b"---\ntitle: [\n---\nbody\n", Q)
    with pytest.raises(PageEditError):
        with_trigger(b"---\ntriggers: |\n  a\n---\n", Q)
    with pytest.raises(PageEditError):
        with_trigger(b"\xff\xfe not utf-8", Q)


def test_multiline_question_becomes_one_line_trigger() -> None:
    after = with_trigger(b"---\ntitle: A\n---\n", "which\u2028database\nwe use")
    assert _triggers(after) == ["which database we use"]


def test_triggers_are_capped_at_200_characters() -> None:
    page = b"---\ntitle: A\n---\n"
    assert _triggers(with_trigger(page, "x" * 200)) == ["x" * 200]
    with pytest.raises(PageEditError, match="too long for a trigger"):
        with_trigger(page, "x" * 201)


def test_atomic_replace_skips_page_changed_since_read(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_bytes(b"new text\n")
    with pytest.raises(PageChanged):
        atomic_replace(page, b"edited\n", expected=b"old text\n")
    assert page.read_bytes() == b"new text\n"
    assert [p.name for p in tmp_path.iterdir()] == ["p.md"]


def test_atomic_replace_rechecks_just_before_rename(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_bytes(b"old\n")

    def editor_saves() -> None:
        page.write_bytes(b"saved by the editor\n")

    with pytest.raises(PageChanged):
        atomic_replace(page, b"ours\n", expected=b"old\n", before_rename=editor_saves)
    assert page.read_bytes() == b"saved by the editor\n"
    assert [p.name for p in tmp_path.iterdir()] == ["p.md"]


def test_atomic_replace_keeps_file_mode(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_bytes(b"old\n")
    page.chmod(0o640)
    atomic_replace(page, b"new\n", expected=b"old\n")
    assert page.read_bytes() == b"new\n"
    assert page.stat().st_mode & 0o777 == 0o640


@pytest.mark.parametrize(
    "before",
    [b"---\ntitle: A\nTriggers:\n  - one\n---\nbody\n", b"---\nTRIGGERS: [one]\n---\nbody\n"],
)
def test_adds_to_the_triggers_field_as_the_page_spells_it(before: bytes) -> None:
    after = with_trigger(before, "two")
    assert _triggers(after) == ["one", "two"]
    assert b"\ntriggers:" not in after  # no second, lower-case field shadowing the page's own


def test_a_page_with_two_triggers_fields_is_not_edited() -> None:
    with pytest.raises(PageEditError, match="2 triggers fields"):
        with_trigger(b"---\nTriggers: [a]\ntriggers: [b]\n---\nbody\n", "c")


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (b"---\ntriggers : [boiler basics]\n---\n", b'---\ntriggers : [boiler basics, "Q"]\n---\n'),
        (b"---\ntriggers: [a ]  # kept \n---\n", b'---\ntriggers: [a, "Q" ]  # kept \n---\n'),
        (b"---\ntriggers: boiler basics   \n---\n", b'---\ntriggers:\n  - boiler basics   \n  - "Q"\n---\n'),
        (b"---\ntriggers: 'x'  # keep  \n---\n", b"---\ntriggers:\n  - 'x'  # keep  \n  - \"Q\"\n---\n"),
        (b"---\ntriggers: null\n---\nbody\n", b'---\ntriggers: ["Q"]\n---\nbody\n'),
        (b"---\ntriggers: ~  # none yet \n---\n", b'---\ntriggers: ["Q"]  # none yet \n---\n'),
        (b"---\r\ntriggers: ''\r\ntitle: x\r\n---\r\n", b'---\r\ntriggers: ["Q"]\r\ntitle: x\r\n---\r\n'),
        (b'---\ntriggers: ""\n---\n', b'---\ntriggers: ["Q"]\n---\n'),
    ],
)
def test_every_byte_but_the_trigger_is_kept_whatever_the_fields_shape(
    tmp_path: Path, before: bytes, after: bytes
) -> None:
    """A cold review: a space before the colon and trailing spaces were lost, and a null or empty
    triggers field was refused; undo gives the bytes back."""
    page = tmp_path / "p.md"
    page.write_bytes(before)
    read = trigger_writes.read_for_edit(tmp_path, "p.md")
    assert trigger_writes.write_trigger(tmp_path, read, "Q", "R1", dry_run=False, record={}) == (LEARNED, "")
    assert page.read_bytes() == after
    assert _triggers(after)[-1] == "Q"
    assert [o.status for o in learn_undo.undo("R1").outcomes] == ["restored"]
    assert page.read_bytes() == before


def test_a_question_holding_bytes_that_are_not_utf8_is_refused_not_a_crash() -> None:
    # A cold review: a question logged from a terminal's non-UTF-8 bytes (lone surrogates) crashed the
    # edit with UnicodeEncodeError instead of being refused like any other trigger that cannot be written.
    with pytest.raises(PageEditError, match="not UTF-8"):
        with_trigger(b"---\ntitle: p\n---\nbody\n", "what is \udc80 the pressure")


def test_a_trigger_that_would_take_the_frontmatter_over_what_krouter_reads_is_refused() -> None:
    """A cold review: on a page just under the frontmatter size limit the added line pushed it over,
    and the page's aliases, tags and the new trigger became body text while teach said "taught"."""
    head = b"---\ntitle: A\naliases: [review policy]\nnotes: '"
    filler = b"x" * (MAX_FRONTMATTER_CHARS - len(head) - 4)
    before = head + filler + b"'\n---\nbody\n"
    assert parse_page("p.md", before.decode("utf-8")).yaml_error is None
    with pytest.raises(PageEditError, match="could no longer read"):
        with_trigger(before, "what is the review policy")


@pytest.mark.parametrize(
    "before",
    [
        b'---\n"title": "A"\n"triggers": []\n---\nbody\n',
        b"---\ntitle: A\n? triggers\n: [a]\n---\nbody\n",
        b"---\ntitle: A\n'triggers': null\n---\nbody\n",
    ],
)
def test_a_triggers_key_written_quoted_or_complex_gets_no_second_key(before: bytes) -> None:
    """A cold review: the key did not match the editor's pattern, so a second ``triggers:`` was added;
    PyYAML keeps the last of two, strict readers (Obsidian's) refuse the page."""
    with pytest.raises(PageEditError, match="not rewritten"):
        with_trigger(before, "Q")


def test_a_frontmatter_block_closed_by_yaml_end_marker_is_not_buried_under_a_new_one() -> None:
    """A cold review: a block closed by ``...`` (YAML's end marker, Pandoc's) was read as body, and the
    edit put a new ``---`` block above it, turning the owner's fields into body text."""
    with pytest.raises(PageEditError, match="no '---' line closes it"):
        with_trigger(b"---\naliases: [review policy]\ntags: [process]\n...\n# Code review\n", "Q")


def test_frontmatter_that_does_not_parse_is_refused_with_a_reason() -> None:
    """A cold review: PyYAML's error escaped the editor (and crashed undo)."""
    with pytest.raises(PageEditError, match="not valid YAML"):
        with_trigger(b"---\ntitle: A\nreviewed: [2024\n---\nbody\n", "Q")


def test_a_date_no_calendar_has_is_text_to_the_editor_as_to_the_router() -> None:
    # 2024-02-30 was "not valid YAML" to the editor while the router reads it as text (D223).
    after = with_trigger(b"---\ntitle: A\nreviewed: 2024-02-30\n---\nbody\n", "Q")
    assert after.startswith(b"---\ntitle: A\nreviewed: 2024-02-30\n") and _triggers(after) == ["Q"]


def test_a_question_holding_characters_yaml_may_not_hold_raw_is_written_escaped() -> None:
    """A cold review: DEL, a C1 control or U+FFFE in a question made every write fail the re-parse (PyYAML
    refuses them raw), so such a question could never be taught. Control characters are dropped from a
    trigger (a bug hunt), U+FFFE is written escaped."""
    question = "what\x7f is the \x9f merge rule \ufffe today"
    after = with_trigger(b"---\ntitle: A\n---\nbody\n", question)
    assert _triggers(after) == ["what is the merge rule \ufffe today"]
    assert b"\x7f" not in after and b"\xc2\x9f" not in after and "\ufffe".encode() not in after


def test_control_characters_of_a_question_never_reach_its_trigger() -> None:
    """A bug hunt: a question holding ESC and BEL was written as \\u001b[2J... into the page's triggers."""
    question = "wibblix charging \x1b[2J\x1b[31mteam\x07 meeting\r\nnow\x00"
    after = with_trigger(b"---\ntitle: A\n---\nbody\n", question)
    assert _triggers(after) == ["wibblix charging team meeting now"]
    assert b"\\u001b" not in after and b"\\e" not in after and b"\x1b" not in after


@pytest.mark.parametrize(
    ("question", "trigger"),
    [
        ("see \x1b] the deploy key is in vault/prod", "see ] the deploy key is in vault/prod"),
        ("price \x9b costs 5 dollars", "price costs 5 dollars"),
        ("the \x1bPqpayload\x1b\\ merge rule", "the merge rule"),
        ("title \x1b]0;hello\x07 merge rule", "title merge rule"),
    ],
)
def test_an_unterminated_escape_sequence_takes_no_ordinary_text(question: str, trigger: str) -> None:
    """A cold review: an OSC sequence without its terminator took the rest of its line, a C1 CSI the
    letter after it; a DCS string left its payload behind."""
    after = with_trigger(b"---\ntitle: A\n---\nbody\n", question)
    assert _triggers(after) == [trigger]


def test_a_line_separator_inside_a_frontmatter_line_does_not_split_it() -> None:
    """A bug hunt: the page was cut with ``str.splitlines``, which breaks at U+2028 too, and the new
    key landed inside what editors and receipts count as one comment line."""
    before = "---\ntitle: Code review\n# owner note\u2028# second half\n---\nbody\n".encode()
    after = with_trigger(before, Q)
    assert after.startswith(
        "---\ntitle: Code review\n# owner note\u2028# second half\ntriggers:\n  - ".encode()
    )
    assert _triggers(after) == [Q]
    assert without_trigger(after, Q) == before
