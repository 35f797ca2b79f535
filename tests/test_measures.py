"""A quantity is one whichever way it is spelled: 5kg and 5 kg, 10GB and 10 GB."""

from __future__ import annotations

from pathlib import Path

from krouter import Router
from tests.vault_files import write


def test_a_number_and_its_unit_match_glued_or_apart(tmp_path: Path) -> None:
    """A bug hunt: "how much to ship a 5 kg parcel" was refused, "the vault never mentions '5', 'kg'", on
    the page stating "Parcels up to 5kg"; the reverse spelling missed as one word."""
    vault = write(
        tmp_path,
        {
            "Shipping.md": "# Shipping\n\nParcels up to 5kg ship with Royal Mail for £4.20; heavier go by DPD.\n",
            "Backup box.md": "# Backup box\n\nThe backup box has 10 GB of RAM and four disks.\n",
            "Office.md": "# Office\n\nThe office is open 9 to 5 on weekdays; the kitchen is on floor 2.\n",
        },
    )
    with Router(vault) as router:
        for question, page in (
            ("how much to ship a 5 kg parcel", "Shipping.md"),
            ("how much to ship a 5kg parcel", "Shipping.md"),
            ("does the backup box have 10GB of RAM", "Backup box.md"),
            ("does the backup box have 10 gb of ram", "Backup box.md"),
        ):
            receipt = router.decide(question)
            assert receipt.decision == "cite", (question, receipt.reason)
            assert receipt.top is not None and receipt.top.path == page, question
            assert not receipt.evidence.corpus_missing, question


def test_units_notes_abbreviate_are_reached_from_chinese(tmp_path: Path) -> None:
    """A bug hunt: 最重能寄多少公斤 named 公斤 a word the vault never contains on the page stating "30 kg", and
    Priya 的电话多少 lacked 电话 on the page writing "Phone +44 …": CC-CEDICT renders them "kilogram" and
    "telephone" only; the work glossary gives the abbreviation and the everyday word."""
    vault = write(
        tmp_path,
        {
            "Parcel weight limit.md": "# Parcel weight limit\n\nThe maximum is 30 kg per parcel.\n",
            "People/Priya Shah.md": "# Priya Shah\n\nProduct manager, London. Phone +44 7700 900123.\n",
            "Meetings/Pricing.md": "# Pricing\n\nPriya presented the new price list.\n",
        },
    )
    with Router(vault) as router:
        for question, page in (
            ("一个包裹最重能寄多少公斤", "Parcel weight limit.md"),
            ("Priya 的电话多少", "People/Priya Shah.md"),
        ):
            receipt = router.decide(question)
            assert receipt.top is not None and receipt.top.path == page, question
            assert (
                "公斤" not in receipt.evidence.corpus_missing
                and "电话" not in receipt.evidence.corpus_missing
            )
        assert router.decide("Priya 的电话多少").decision == "cite"
