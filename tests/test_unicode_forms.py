"""Text as it arrives from other tools: marks that print as nothing, optional vowel points, Turkish İ,
and files that are not UTF-8 text. Each was found by a cold review as a word reported "never in the
vault" while a page plainly holds it."""

from __future__ import annotations

from pathlib import Path

import pytest

from krouter import Router
from tests.vault_files import write

OTHER = {"Parking.md": "# Parking\n\nParking is free on Tuesdays.\n"}


@pytest.mark.parametrize(
    ("page", "question"),
    [
        # A variation selector pins a glyph of a Japanese name.
        (
            "---\ntitle: 葛\U000e0100城さんの連絡先\n---\n葛\U000e0100城さんの内線は4021です。\n",
            "葛城さんの内線は",
        ),
        # Direction marks pasted inside a word.
        (
            "# Billing\n\nThe billing\u200freport is mailed monthly to finance.\n",
            "when is the billingreport mailed",
        ),
        (
            "# Billing\n\nThe billingreport is mailed monthly to finance.\n",
            "when is the billing\u200ereport mailed",
        ),
        # Arabic short vowels and Hebrew points are optional in writing.
        ("# سياسة الإجازات\n\nيحصل كل موظف على إجازة سنوية مدتها ثلاثون يوما.\n", "إجَازَة سَنَوِيَّة مُوَظَّف"),
        ("# חניה\n\nהחניה חינם בימי שלישי.\n", "החניה חִינָּם"),
        # İ folds to i with a combining dot unless it is read as i.
        ("# İstanbul office\n\nThe İstanbul office opens at nine.\n", "when does the Istanbul office open"),
        # A Latin letter's accents: notes write names as their owners do, people type them bare (the
        # dev13 agent loop: "Ines" was "a word the page lacks" on a page approved by Inês Carvalho).
        (
            "# Production access\n\nEU approvals: Inês Carvalho, backup Tiago.\n",
            "who approves eu access if ines is out",
        ),
        ("# Café supplier\n\nThe café beans come from Lisbon.\n", "where do the cafe beans come from"),
        ("# Onboarding\n\nJose runs the onboarding session.\n", "who runs onboarding, José?"),
    ],
)
def test_a_word_written_with_marks_meets_it_written_without(tmp_path: Path, page: str, question: str) -> None:
    write(tmp_path, {"Answer.md": page, **OTHER})
    with Router(tmp_path) as router:
        receipt = router.ask(question)
    assert receipt.decision == "cite", receipt.to_text()
    assert receipt.top is not None and receipt.top.path == "Answer.md"
    assert receipt.evidence.corpus_missing == []


def test_utf16_without_a_byte_order_mark_is_reported_not_indexed_as_garbage(tmp_path: Path) -> None:
    write(tmp_path, OTHER)
    (tmp_path / "Badges.md").write_bytes(
        "# Badges\n\nVisitor badges are returned at reception.\n".encode("utf-16-le")
    )
    with Router(tmp_path) as router:
        receipt = router.ask("where are visitor badges returned")
        problems = {p["path"]: p["message"] for p in router.status()["problems"]}
    assert receipt.decision == "refuse"
    assert "Badges.md" in problems and "NUL byte" in problems["Badges.md"]
    assert "Badges.md" in receipt.to_text()


def test_a_foreign_word_that_meets_an_english_stem_bare_still_marks_its_language(tmp_path: Path) -> None:
    """Dropping accents makes équipe "equip", the stem of a page's "equipment": read by its index term, the
    French question held an English word and lost its marks of French, and the agent's translation, the
    only bridge to the English notes (D89), was refused. Whether a page writes the word with its accent,
    or the dictionary knows it so (résumé), is what counts: an English question's loanwords mark nothing."""
    write(
        tmp_path,
        {
            "Security team.md": "# Security team\n\nThe security team meets every Monday at 10:00.\n",
            "Equipment budget.md": "# Equipment budget\n\nEach new hire gets an equipment budget of 1,500 euros.\n",
            **OTHER,
        },
    )
    with Router(tmp_path) as router:
        # réunion too: the dictionary knows Réunion, an island's name, not a word written so (a second review).
        assert router.unreadable("équipe réunion") and router.unreadable("équipe sécurité")
        receipt = router.ask("équipe sécurité", also=["security team"])
        assert not router.unreadable("naïve résumé screening?")
    assert receipt.decision == "cite" and receipt.cited[0].path == "Security team.md", receipt.reason


def test_a_line_is_read_for_an_accented_name_as_the_index_reads_it(tmp_path: Path) -> None:
    """A cold review of D169: the index dropped the accents, but the lines a receipt reads for the
    question's words kept them. The price check found no amount beside "Müller" (refused "states none"
    on a page stating €120 on Müller's line), and the line shown for a question about Inês was Dana's.
    Typed with or without the accent, the question finds the line that writes it."""
    write(
        tmp_path,
        {
            "Cleaning suppliers.md": "# Cleaning suppliers\n\n- Müller Reinigung: €120 per visit, Tuesdays.\n"
            "- Schmidt Service: €90 per visit, Fridays.\n",
            "Production access.md": "# Production access\n\nApprovals work like this, per cluster.\n"
            "For the US cluster Mark approves and Dana is the backup approver.\n"
            "For the EU cluster Inês approves and Tiago is the backup approver.\n",
            **OTHER,
        },
    )
    with Router(tmp_path) as router:
        for question in ("How much does Müller charge?", "How much does Muller charge?"):
            receipt = router.ask(question)
            assert receipt.decision == "cite" and receipt.cited[0].line == 3, receipt.reason
        for question in (
            "who is the backup approver when Inês is out",
            "who is the backup approver when Ines is out",
        ):
            receipt = router.ask(question)
            assert receipt.cited and receipt.cited[0].line == 5, (question, receipt.cited)
