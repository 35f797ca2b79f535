"""Words of scripts written with combining marks (Devanagari's vowel signs and virama, Thai's vowels,
Arabic's and Hebrew's points) are whole words: a Hindi page is found by a Hindi question with its
words, and the receipt names those words, not the pieces between the marks."""

from __future__ import annotations

import json
import re
import sqlite3
import unicodedata
from pathlib import Path

import pytest
from typer.testing import CliRunner

import krouter.tokens.terms as terms
from krouter.cli import app
from krouter.routing.router import Router
from krouter.tokens.scripts import CJK
from krouter.tokens.terms import index_terms, query_terms
from krouter.tokens.version import TOKENIZER_VERSION

runner = CliRunner()

HINDI_PAGE = "Decisions/डेटाबेस.md"
ENGLISH_PAGE = "Runbooks/Deploy.md"
# "We use Postgres as the main database for all services."
HINDI_TEXT = "हम सभी सेवाओं के लिए मुख्य डेटाबेस के रूप में पोस्टग्रेस का उपयोग करते हैं।"
# "main database": two words of the page, each with a virama or a vowel sign inside.
HINDI_QUESTION = "मुख्य डेटाबेस"


def _vault(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    for rel, text in {
        HINDI_PAGE: f"---\ntitle: मुख्य डेटाबेस\n---\n# मुख्य डेटाबेस\n\n{HINDI_TEXT}\n",
        ENGLISH_PAGE: "---\ntitle: Deploy runbook\n---\n# Deploy\n\n"
        "Deploys go out with fly deploy from the main branch after CI passes.\n",
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _ask(vault: Path, question: str) -> tuple[int, dict[str, object]]:
    result = runner.invoke(app, ["ask", question, "--vault", str(vault), "--json"])
    return result.exit_code, json.loads(result.stdout)


def test_a_hindi_question_cites_the_hindi_page_by_whole_words(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    code, out = _ask(vault, HINDI_QUESTION)
    assert code == 0, out
    assert out["decision"] == "cite" and out["cited"][0]["path"] == HINDI_PAGE  # type: ignore[index]
    # The receipt names the question's words whole: the pieces between the marks are no words.
    assert out["evidence"]["query_terms"] == ["मुख्य", "डेटाबेस"]  # type: ignore[index]
    assert set(out["cited"][0]["matched"]) <= {"मुख्य", "डेटाबेस"}  # type: ignore[index]
    assert out["cited"][0]["matched"]  # type: ignore[index]
    # One word of the page is enough to find it, and a word the vault lacks is named whole.
    code, out = _ask(vault, "पोस्टग्रेस")
    assert code == 0 and out["cited"][0]["path"] == HINDI_PAGE, out  # type: ignore[index]
    # "Redis cache": not in the notes, refused; before, its pieces were single letters, not looked up.
    code, out = _ask(vault, "रेडिस कैश")
    assert code == 3 and out["decision"] == "refuse", out
    assert out["evidence"]["corpus_missing"] == ["रेडिस", "कैश"]  # type: ignore[index]
    # The English page is still the English question's, and the Hindi page is not.
    code, out = _ask(vault, "how do we deploy from the main branch")
    assert code == 0 and out["cited"][0]["path"] == ENGLISH_PAGE, out  # type: ignore[index]


def test_a_word_is_not_cut_at_a_combining_mark() -> None:
    # Devanagari (vowel signs, virama, nukta), Bengali, Tamil, Arabic and Hebrew points: every word
    # stays one term, in the index and in a question alike. Arabic's and Hebrew's points are optional
    # in writing, so the term is the word without them (a page written without them is the same words).
    for text, words in [
        (HINDI_TEXT, HINDI_TEXT.rstrip("।").split()),
        ("ক্যাশ সার্ভার", ["ক্যাশ", "সার্ভার"]),
        ("தரவுத்தளம் சேவை", ["தரவுத்தளம்", "சேவை"]),
        ("قَاعِدَة بَيَانَات", ["قاعدة", "بيانات"]),
        ("שָׁלוֹם עוֹלָם", ["שלום", "עולם"]),
    ]:
        normal = [unicodedata.normalize("NFKC", w) for w in words]
        assert index_terms(text) == normal, text
        # A question's terms are its words once each.
        assert [t.text for t in query_terms(text)] == list(dict.fromkeys(normal)), text
    # A variation selector is no part of a word ("ℹ️" is the letter i and an emoji selector), and a
    # mark with no letter before it starts no word: as before.
    assert index_terms("ℹ\ufe0f \u0301\u0301 db\ufe0f") == ["db"]


def test_thai_is_taken_a_space_delimited_run_at_a_time() -> None:
    """Thai writes no spaces between words, and KRouter has no Thai segmenter: a run between spaces is
    one term, vowel marks included (no longer cut into pieces at each one). A question finds a Thai
    page by a run the page holds whole, not by one word of a longer run."""
    sentence = "เราใช้ฐานข้อมูลหลัก"  # "we use the main database", one run
    assert index_terms(f"{sentence} ทุกวัน") == [sentence, "ทุกวัน"]
    assert [t.text for t in query_terms("ฐานข้อมูล")] == ["ฐานข้อมูล"]


def test_an_index_of_the_previous_tokenizer_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = _vault(tmp_path)
    # The previous tokenizer's words: letters and digits only, so marks cut words apart.
    with monkeypatch.context() as m:
        m.setattr(terms, "RUN", re.compile(rf"[{CJK}]+|[^\W_{CJK}]+"))
        with Router(vault) as router:
            router.refresh()
            index = router.index.path
    with Router(vault) as router:
        # Stamped with this version, the old terms stay: the Hindi question finds none of its words.
        assert router.ask(HINDI_QUESTION).decision == "refuse"
    with sqlite3.connect(index) as conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'tokenizer'", (str(int(TOKENIZER_VERSION) - 1),))
    conn.close()
    # Stamped with the previous version, as that version wrote it: rebuilt, and the page found.
    with Router(vault) as router:
        receipt = router.ask(HINDI_QUESTION)
        assert router.index.path == index and router.index.meta()["tokenizer"] == TOKENIZER_VERSION
    assert receipt.decision == "cite" and receipt.top is not None and receipt.top.path == HINDI_PAGE


def test_every_combining_mark_of_this_python_continues_a_word() -> None:
    """The written-out mark list against this Python's own Unicode data: every mark (but the variation
    selectors and kana's voiced marks) continues a word, and in the BMP nothing else does."""
    selectors = {*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0), 0x3099, 0x309A}
    missing = []
    for code in range(0x110000):
        ch = chr(code)
        kind = unicodedata.category(ch)
        continues = terms.RUN.fullmatch(f"a{ch}") is not None
        if kind in ("Mn", "Mc") and code not in selectors:
            if not continues:
                missing.append(f"{code:04X}")
        elif code <= 0xFFFF and continues:
            # A word character, or a code point unassigned here (a gap the list takes in).
            assert ch.isalnum() or kind == "Cn", f"{code:04X} {kind}"
    assert missing == [], f"marks of Unicode {unicodedata.unidata_version} not in terms._MARK_RANGES"
