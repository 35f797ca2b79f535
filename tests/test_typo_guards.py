"""Questions that a reading of typing slips answered from the wrong page (D188, reverted: D190). Two cold
reviews built these vaults; each question was refused, or answered from the right page, before the
readings and after their revert. They stay as guards for any later reading of misspelt words: a word
CC-CEDICT does not know is often a real word or a name (fridge, rental, christina, controlnet, marital)."""

from __future__ import annotations

from pathlib import Path

import pytest

from krouter import Router
from tests.vault_files import filler, write

_PAGES = {
    "Home/Ridge hike.md": "# Ridge hike\n\n- The ridge trail starts at the north car park.\n- Bring water and snacks.\n",
    "Health/Dental insurance.md": (
        "# Dental insurance\n\n- Provider: Sun Life, policy 88213.\n- Covers 80% of cleanings, claims within 90"
        " days.\n- Claims go through the online portal.\n"
    ),
    "People/Christian Weber.md": (
        "# Christian Weber\n\n- Email: christian.weber@example.com\n- Phone number: +49 30 1234567\n"
        "- Role: lab manager, orders reagents.\n"
    ),
    "People/Anna Schulz.md": (
        "# Anna Schulz\n\n- Email: anna.schulz@example.com\n- Phone number: +49 30 7654321\n"
        "- Role: postdoc, runs the mass spec.\n"
    ),
    "Ops/Quality control.md": (
        "# Quality control\n\n- The quality control model flags 5% of units for manual checks.\n"
        "- Model weights are retrained monthly and kept in s3://qc/weights.\n"
    ),
    "HR/Wedding leave.md": (
        "# Wedding leave\n\n- Staff getting married get 3 days of paid leave.\n"
        "- Claim it in the HR portal before the wedding.\n"
    ),
    "Benefits/Martial arts subsidy.md": (
        "# Martial arts subsidy\n\n- Staff get a 50% subsidy on martial arts classes.\n"
        "- Claim it in the benefits portal with the receipt.\n"
    ),
}


def _vault(tmp_path: Path) -> Path:
    return write(tmp_path, {**filler(), **_PAGES})


@pytest.mark.parametrize(
    ("question", "wrong_page"),
    [
        ("what snacks are in the fridge?", "Home/Ridge hike.md"),
        ("Which company covers our rental insurance?", "Health/Dental insurance.md"),
        ("christina phone number", "People/Christian Weber.md"),
        ("where are the controlnet weights?", "Ops/Quality control.md"),
    ],
)
def test_a_word_one_slip_from_a_held_word_does_not_cite_that_word_s_page(
    tmp_path: Path, question: str, wrong_page: str
) -> None:
    with Router(_vault(tmp_path)) as router:
        receipt = router.decide(question)
    assert not (receipt.decision == "cite" and receipt.top is not None and receipt.top.path == wrong_page)


def test_a_word_one_slip_from_another_page_s_word_does_not_refuse_the_right_page(tmp_path: Path) -> None:
    """marital is a swap from martial: read so, "lacks 'marital→martial' (another page has it)" refused
    the wedding leave page."""
    with Router(_vault(tmp_path)) as router:
        receipt = router.decide("How do I claim marital leave?")
    assert receipt.decision == "cite"
    assert receipt.top is not None and receipt.top.path == "HR/Wedding leave.md"
