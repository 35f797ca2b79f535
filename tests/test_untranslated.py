"""A question word no dictionary translates weighs half against a page in the other language (D71)."""

from __future__ import annotations

from pathlib import Path

from krouter import Router
from krouter.routing.receipt import Receipt
from tests.vault_files import write

WARRANTY = {
    "Decisions/Warranty.md": (
        "---\ntitle: Two-year warranty\nstatus: current\n---\n# Two-year warranty\n\n"
        "Every lamp bought direct is guaranteed for two years. Customers send the broken part back with a\n"
        "prepaid label, and we replace it within five working days.\n"
    ),
    "Decisions/Returns.md": (
        "---\ntitle: Returns window\nstatus: current\n---\n# Returns window\n\n"
        "Customers may return an unused order within 45 days; the refund goes out when the parcel is scanned.\n"
    ),
    "Runbooks/Packing.md": (
        "# Packing station\n\nEach lamp is packed in a pulp insert and a printed box; the courier collects at four.\n"
    ),
}


def _ask(root: Path, question: str, pages: dict[str, str] | None = None) -> Receipt:
    with Router(write(root, {**WARRANTY, **(pages or {})})) as router:
        return router.ask(question)


def test_an_untranslatable_word_counts_half_against_a_page_in_the_other_language(tmp_path: Path) -> None:
    """寄 (a single character) and 回来 have no dictionary translation: the English page, reached through
    客户 → customer and 零件 → part, may say them in words we cannot look for ("send ... back"). At full
    weight they refused it (0.48 against the floor); the receipt names what was counted at half."""
    r = _ask(tmp_path, "客户要把零件寄回来吗")
    assert r.decision == "cite"
    assert r.cited[0].path == "Decisions/Warranty.md"
    assert r.evidence.untranslated == ["寄", "回来"]
    assert "no translation known, counted at half: 寄, 回来" in r.to_text()


def test_a_word_the_dictionary_translates_still_counts_in_full(tmp_path: Path) -> None:
    """保修期 translates ("warranty period"): it was looked for in English and is not on the page."""
    r = _ask(tmp_path, "保修期是几年？客户要把零件寄回来吗")
    assert r.decision == "refuse"
    assert "保修期" not in r.evidence.untranslated
    assert set(r.evidence.untranslated) == {"寄", "回来"}


def test_a_page_in_the_question_language_weighs_every_missing_word_in_full(tmp_path: Path) -> None:
    """A Chinese page that holds the question's Chinese words as written lacks 寄 as a Chinese page does:
    nothing is halved, whatever the dictionary knows."""
    r = _ask(
        tmp_path,
        "客户要把零件寄回来吗",
        {"决策/零件.md": "# 零件更换\n\n客户的零件坏了，我们免费更换新的零件。\n"},
    )
    assert r.closest is not None and r.closest.path == "决策/零件.md"
    assert r.evidence.untranslated == []
