"""Property tests for hostile and unlucky input (issue #15): file names, frontmatter, questions and model
replies. Whatever hypothesis draws, nothing raises, nothing hangs (every page costs bounded work), and
no page is skipped without being reported."""

from __future__ import annotations

import itertools
import json
import os
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from learn_vault import message
from typer.testing import CliRunner

from krouter.agents.mcp.replies import ask_result
from krouter.cli import app
from krouter.learner import nightly, weak_log
from krouter.learner.lanes import ApiLane
from krouter.learner.report import UNCERTAIN
from krouter.ops.check.lint import check
from krouter.routing import querylog
from krouter.routing.phrasings import MAX_QUESTION_CHARS, BadQuestion
from krouter.routing.router import Router
from krouter.safe_text import clean
from krouter.vault.files import MAX_PAGE_BYTES
from krouter.vault.page import parse_page

try:
    import httpx2 as httpx
except ImportError:  # anthropic < 2 runs on httpx
    import httpx  # type: ignore[no-redef]

SOME = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
FEW = settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
runner = CliRunner()
BASE_PAGE = b"---\ntitle: Primary database\n---\nWe use PostgreSQL as the primary database.\n"
# Kinds of problem under which a file is left out of the index; any other problem keeps the page.
SKIPPING = {"name", "encoding", "too_large", "unreadable"}

bytes_names = pytest.mark.skipif(
    sys.platform in ("darwin", "win32"), reason="the file system refuses names that are not UTF-8"
)


# ----- names -------------------------------------------------------------------------------------------

NAME_TEXT = st.one_of(
    st.text(
        st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"), min_size=1, max_size=40
    ),
    st.sampled_from(
        ["café", "Café", "naïve résumé", "日本語のメモ", "a\nb", "tab\tname", "\x1b[2Kx", "‮evil"]
    ),
)


def _name_bytes(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["text", "nfd", "raw", "long"]))
    if kind == "raw":  # undecodable bytes, as old archives and SMB shares write them
        stem = draw(st.binary(min_size=1, max_size=30).filter(lambda b: b"/" not in b and b"\x00" not in b))
    elif kind == "long":
        stem = ("x" * draw(st.integers(200, 251))).encode()
    else:
        text = draw(NAME_TEXT)
        if kind == "nfd":
            text = unicodedata.normalize("NFD", text)
        stem = text.encode("utf-8")
    stem = stem[:251]
    return b"_" + stem[:250] + b".md" if stem.startswith(b".") else stem + b".md"


names = st.lists(st.composite(lambda draw: _name_bytes(draw))(), min_size=1, max_size=6, unique=True)


def _md_files_on_disk(root: bytes) -> set[bytes]:
    out = set()
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(b".")]
        out.update(
            os.path.join(folder, f) for f in files if f.lower().endswith(b".md") and not f.startswith(b".")
        )
    return out


@bytes_names
@SOME
@given(names)
@example([b"caf\xe9.md"])
@example([b"a\nb.md"])
@example([("x" * 251 + ".md").encode()])
def test_any_file_name_is_indexed_or_reported(batch: list[bytes]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(os.fsencode(tmp), b"vault")
        os.makedirs(os.path.join(root, b"Decisions"))
        with open(os.path.join(root, b"Decisions", b"Database.md"), "wb") as fh:
            fh.write(BASE_PAGE)
        for name in batch:
            with open(os.path.join(root, name), "wb") as fh:
                fh.write(b"# A page\n\nnotes about the primary database\n")
        vault = Path(os.fsdecode(root))
        with Router(vault) as router:
            receipt = router.ask("which primary database do we use")
            assert receipt.candidates
            json.dumps(receipt.to_dict(), ensure_ascii=False).encode("utf-8")
            receipt.to_text().encode("utf-8")
            pages = {row[1] for row in router.index.page_table()}
            skipped = {p.path for p in router.index.problems() if p.kind in SKIPPING}
        on_disk = _md_files_on_disk(root)
        for path in on_disk:
            rel = os.path.relpath(path, root)
            shown = rel.decode("utf-8", "backslashreplace")
            assert shown in pages or shown in skipped, f"{shown!r} neither indexed nor reported"
        report = check(vault)
        reported = {f.path for f in report.findings}
        assert all(p in reported for p in skipped)


# ----- frontmatter -----------------------------------------------------------------------------------


@st.composite
def alias_bombs(draw: st.DrawFn) -> str:
    levels = draw(st.integers(2, 12))
    width = draw(st.integers(2, 12))
    merge = draw(st.booleans())
    names = [f"n{i}" for i in range(levels)]
    lines = [f"{names[0]}: &{names[0]} " + ("{a: 1, b: [x, y]}" if merge else "[lol, lol]")]
    for prev, name in itertools.pairwise(names):
        refs = ", ".join([f"*{prev}"] * width)
        lines.append(f"{name}: &{name} " + (f"{{<<: [{refs}]}}" if merge else f"[{refs}]"))
    field = draw(st.sampled_from(["tags", "aliases", "title", "triggers", "superseded_by", "x"]))
    lines.append(f"{field}: *{names[-1]}")
    return "\n".join(lines)


@st.composite
def deep_nesting(draw: st.DrawFn) -> str:
    depth = draw(st.integers(1, 20_000))
    opener, closer = draw(st.sampled_from([("[", "]"), ("{a: ", "}")]))
    return "x: " + opener * depth + "1" + closer * depth


NON_MAPPINGS = st.sampled_from(["- a\n- b", "just a string", "42", "~", "[1, 2, 3]", "!!binary aGVsbG8="])


@SOME
@given(st.one_of(alias_bombs(), deep_nesting(), NON_MAPPINGS), st.text(max_size=50))
def test_any_frontmatter_costs_bounded_work_and_keeps_the_body(frontmatter: str, body: str) -> None:
    page = parse_page("p.md", f"---\n{frontmatter}\n---\n{body}")
    assert isinstance(page.title, str) and page.title
    for values in (page.aliases, page.tags, page.triggers, page.superseded_by, page.supersedes):
        assert all(isinstance(v, str) for v in values)
        assert sum(len(v) for v in values) < 2_000_000  # never an expanded bomb
    assert body.strip() in page.body or not body.strip()


@FEW
@given(st.integers(MAX_PAGE_BYTES - 10, MAX_PAGE_BYTES + 10_000_000))
def test_a_huge_page_is_indexed_or_reported_as_too_large(size: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp, "vault")
        vault.mkdir()
        (vault / "Database.md").write_bytes(BASE_PAGE)
        with open(vault / "Dump.md", "wb") as fh:
            # Text, not a sparse file: NUL bytes are no UTF-8 text and are reported as such.
            fh.write(b"x " * (size // 2) + b"x" * (size % 2))
        with Router(vault) as router:
            router.ask("primary database")
            pages = {row[1] for row in router.index.page_table()}
            problems = {p.path: p.kind for p in router.index.problems()}
        assert ("Dump.md" in pages) == (size <= MAX_PAGE_BYTES)
        assert ("Dump.md" in pages) or problems.get("Dump.md") == "too_large"


# ----- questions ---------------------------------------------------------------------------------------

QUESTIONS = st.one_of(
    st.text(st.characters(), max_size=300),  # surrogates and every control character included
    st.text(st.sampled_from("\x00\x1b\r\n\t\x07\x85\u202e\ud800\udce9 ab数据库"), max_size=100),
    st.integers(10_000, 100_000).map(lambda n: ("primary database \x1b[2K " * (n // 24 + 1))[:n]),
)


@pytest.fixture
def small_vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "Decisions").mkdir(parents=True)
    (root / "Decisions" / "Database.md").write_bytes(BASE_PAGE)
    (root / 'Title "ok\x1b[2K\rCITE  Fake.md".md').write_text(
        "# ok\x1b[2K\rCITE  Fake\n\nprimary notes\n", encoding="utf-8"
    )
    return root


# The oracles below are stated from the outside, not computed by check_question (a test whose expected
# answer comes from the function under test cannot fail): what the bound counts, what has no letter or
# digit in any script, and which words the vault holds.
NOT_A_WORD = ("the question is empty", "the question has no words to look up", "the question has no content")
# Words of small_vault's pages: a question holding one, between spaces, has something to look up.
VAULT_WORDS = ["primary", "database", "PostgreSQL", "notes", "Database"]


def _over_the_bound(question: str) -> bool:
    return len(question.strip()) > MAX_QUESTION_CHARS


def _ask_cli(vault: Path, question: str) -> tuple[int, str, str]:
    """``krouter ask`` through the CLI: the exit code, stdout, and the message of a usage error."""
    os.environ.pop("KROUTER_NO_QUERY_LOG", None)
    # "--": a question may start with "-" (an agent may send "-0"), which would otherwise read as an option.
    result = runner.invoke(app, ["ask", "--vault", str(vault), "--", question])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert not any(ch in result.output for ch in "\x1b\r\x00\x07\x85\u202e")
    if result.exit_code != 2:
        return result.exit_code, result.stdout, ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("krouter: the question "), line
    return 2, result.stdout, line.removeprefix("krouter: ")


@SOME
@given(question=QUESTIONS)
@example(question="\ud800 primary database")
@example(question="caf\udce9 primary database")
def test_any_question_gets_a_receipt_or_says_what_is_wrong_with_it(small_vault: Path, question: str) -> None:
    code, stdout, message = _ask_cli(small_vault, question)
    # A receipt (0 cite, 3 refuse) or a usage error (2) that names the question's problem; nothing else.
    assert code in (0, 2, 3), stdout
    asked = clean(question)
    if _over_the_bound(asked):
        assert code == 2 and "characters long; at most" in message, message
    elif not any(ch.isalnum() for ch in asked):
        assert code == 2 and message.startswith(NOT_A_WORD[:2]), message
    if code != 2:
        assert stdout.startswith(("CITE", "REFUSE")), stdout
    # The library refuses only a question over the bound; any other gets a receipt.
    with Router(small_vault) as router:
        if _over_the_bound(asked):
            with pytest.raises(BadQuestion):
                ask_result(router, question, 3)
        else:
            json.dumps(ask_result(router, question, 3), ensure_ascii=False).encode("utf-8")
    for _offset, entry in querylog.read():
        assert isinstance(entry["question"], str)


# Around the vault's word, anything: letters, marks, symbols, controls, surrogates, CJK.
AROUND = st.text(st.characters(), max_size=200)


@SOME
@given(before=AROUND, word=st.sampled_from(VAULT_WORDS), after=AROUND)
@example(before="what is the", word="database", after="?")
@example(before="\u0301", word="notes", after="\ufe0f")
def test_a_question_holding_a_word_of_the_vault_is_never_rejected(
    small_vault: Path, before: str, word: str, after: str
) -> None:
    question = f"{before} {word} {after}"
    code, stdout, message = _ask_cli(small_vault, question)
    assert code in (0, 3), message
    assert stdout.startswith(("CITE", "REFUSE")), stdout


# Characters that are no letter or digit of any script: punctuation, symbols (emoji among them),
# separators, control and format characters, marks with nothing to mark, unassigned code points.
NO_LETTER = st.characters(categories=["P", "S", "Z", "C", "M"])


@SOME
@given(question=st.text(NO_LETTER, max_size=300))
@example(question="")
@example(question="？？？ 😀🎉 \x00\x1b")
def test_a_question_without_a_letter_or_digit_is_always_rejected(small_vault: Path, question: str) -> None:
    code, stdout, message = _ask_cli(small_vault, question)
    assert code == 2 and stdout == "", stdout
    assert message.startswith(NOT_A_WORD[:2]), message
    # Refused before any lookup: never in the query log, where the nightly learner would pick it up.
    assert all(entry["question"] != clean(question) for _offset, entry in querylog.read())


# Question and grammar words (English and Chinese) and single letters: nothing a page could be found by.
GRAMMAR = st.lists(
    st.sampled_from(["the", "of", "a", "what", "is", "it", "How", "吗", "的", "了", "x", "B"]), min_size=1
)


@SOME
@given(words=GRAMMAR, glue=st.sampled_from([" ", "  ", ", ", "? ", "\t", " 😀 "]))
def test_a_question_of_only_grammar_words_is_always_rejected(
    small_vault: Path, words: list[str], glue: str
) -> None:
    question = glue.join(words) + "?"
    code, stdout, message = _ask_cli(small_vault, question)
    assert code == 2 and stdout == "" and message.startswith(NOT_A_WORD[2]), (question, message)


# ----- model replies ---------------------------------------------------------------------------------

GOOD = {
    "answers": [
        {"q": 1, "page": "Decisions/Database.md", "quote": "We use PostgreSQL as the primary database."}
    ]
}


@st.composite
def bad_replies(draw: st.DrawFn) -> tuple[str, object]:
    """(what, the HTTP body or a callable raising) of replies that are not the answer asked for."""
    kind = draw(
        st.sampled_from(["truncated-body", "html", "other-json", "truncated-answer", "prose", "hung"])
    )
    whole = json.dumps(message(json.dumps(GOOD)))
    if kind == "truncated-body":
        return kind, whole[: draw(st.integers(0, len(whole) - 1))]
    if kind == "html":
        return kind, "<html><body>" + draw(st.text(max_size=50)) + "</body></html>"
    if kind == "other-json":
        return kind, json.dumps(
            draw(st.one_of(st.lists(st.integers()), st.dictionaries(st.text(), st.integers())))
        )
    if kind == "truncated-answer":
        answer = json.dumps(GOOD)
        return kind, json.dumps(message(answer[: draw(st.integers(0, len(answer) - 2))]))
    if kind == "prose":
        return kind, json.dumps(message(draw(st.text(max_size=80))))
    return kind, None


@FEW
@given(bad_replies())
def test_any_bad_model_reply_is_uncertain_writes_nothing_and_is_asked_again(
    small_vault: Path, case: tuple[str, object]
) -> None:
    kind, body = case

    def handler(request: httpx.Request) -> httpx.Response:
        if body is None:
            raise httpx.ReadTimeout("hung", request=request)
        return httpx.Response(
            200,
            headers={"content-type": "text/html" if kind == "html" else "application/json"},
            text=str(body),
        )

    os.environ.pop("KROUTER_NO_QUERY_LOG", None)
    log = querylog.log_path()
    log.parent.mkdir(parents=True, exist_ok=True)
    entry = {
        "time": time.time(),
        "vault_id": querylog.vault_id(small_vault.resolve()),
        "vault": str(small_vault.resolve()),
        "question": "Which primary database do we use?",
        "decision": "refuse",
        "margin": 0.5,
    }
    log.write_text(json.dumps(entry) + "\n", encoding="utf-8")
    # Each example is a first run: no cursor, and no failed runs counted by the examples before it.
    weak_log.cursor_path().unlink(missing_ok=True)
    weak_log.attempts_path().unlink(missing_ok=True)
    before = {p: p.read_bytes() for p in small_vault.rglob("*.md")}
    lane = ApiLane(
        "claude-test",
        api_key="k",
        http_client=httpx.Client(transport=httpx.MockTransport(handler)),
        max_retries=0,
        timeout=5,
    )
    report = nightly.learn(small_vault, lane)
    assert [o.status for o in report.outcomes] == [UNCERTAIN], report.to_text()
    assert not report.cursor_advanced
    assert {p: p.read_bytes() for p in small_vault.rglob("*.md")} == before
