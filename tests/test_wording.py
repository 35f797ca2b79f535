"""Past the two rarest words a page lacks, the rest weigh a quarter: likelier the question's wording than a
subject the page does not hold (D153)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import krouter.routing.wording as wording
from krouter import Router
from krouter.cli import app
from krouter.routing.receipt import Receipt
from tests.vault_files import write

NOTE = (
    "# Weekly note {n}\n\nThe team kept working on the house move checklist; the office printer is running"
    " again.\nCustomers asked about gift cards, and we leave the lights on in the lobby after six.\n"
)
PAGES = {
    "Policies/Pets.md": (
        "---\ntitle: Pets in customer homes\nstatus: current\n---\n# Pets in customer homes\n\n"
        "Customers must keep dogs in a closed room or a crate while the cleaner is in the home.\n"
        "If a dog is loose when the cleaner arrives, the cleaner may leave and the visit is charged in full.\n"
        "Cats may stay out.\n"
    ),
    "Runbooks/Dispatch.md": (
        "---\ntitle: Dispatch moved to in-house scheduler\nstatus: current\n---\n# Dispatch\n\n"
        "The scheduler now runs in-house. Offers go out to cleaners working nearby, the house rules apply,\n"
        "and a job running late is flagged to dispatch.\n"
    ),
    "Policies/Keys.md": (
        "---\ntitle: Lost keys policy\nstatus: current\n---\n# Lost keys policy\n\n"
        "If one of our people loses a customer's key, we pay a locksmith to re-key the lock, up to $300.\n"
        "Leave the spare key in the lockbox at the office.\n"
    ),
    "Decisions/SMS.md": (
        "---\ntitle: SMS provider Vonage\nstatus: current\n---\n# SMS provider Vonage\n\n"
        "All customer text messages go through Vonage: booking reminders 24h and 1h before the job.\n"
    ),
    **{f"Notes/Note{n}.md": NOTE.format(n=n) for n in range(1, 7)},
}
LOOSE_DOG = "the dog was loose and barking when our cleaner arrived late, do we still bill the visit?"


def _ask(root: Path, question: str) -> Receipt:
    with Router(write(root, PAGES)) as router:
        return router.ask(question)


def test_a_third_word_the_page_lacks_is_wording_and_weighs_a_quarter(tmp_path: Path) -> None:
    """The pets page answers, in its own words: it lacks barking and bill, which no page holds, and late,
    which the dispatch page writes. The two rarest may be a subject the page does not hold and weigh in
    full; late is read as the question's wording. At full weight the page was refused (0.54 against the
    floor)."""
    r = _ask(tmp_path, LOOSE_DOG)
    assert r.decision == "cite"
    assert r.cited[0].path == "Policies/Pets.md"
    assert r.cited[0].missing == ["barking", "late", "bill"]
    assert r.evidence.wording == ["late"]
    assert "lacking past its two rarest, counted at a quarter: late" in r.to_text()


def test_at_full_weight_the_same_question_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the quarter changes: with every lacking word at full weight the page falls under the floor."""
    monkeypatch.setattr(wording, "WORDING_SHARE", 1.0)
    r = _ask(tmp_path, LOOSE_DOG)
    assert r.decision == "refuse"
    assert r.closest is not None and r.closest.path == "Policies/Pets.md"


def test_a_neighbour_lacking_its_subject_in_two_words_weighs_both_in_full(tmp_path: Path) -> None:
    """The SMS page lacks WhatsApp, the subject asked about, and "use": both weigh in full, and the
    question is refused."""
    r = _ask(tmp_path, "Which provider do we use for WhatsApp messages to customers?")
    assert r.decision == "refuse"
    assert r.closest is not None and r.closest.path == "Decisions/SMS.md"
    assert r.evidence.wording == []
    assert "counted at a quarter" not in r.to_text()


def test_the_rarest_words_a_page_lacks_keep_their_weight(tmp_path: Path) -> None:
    """Garage and remote, which no page holds, are the words that may name another subject: they weigh
    in full; cleaner and six, which other pages write, are the ones read as wording. The page still lacks
    the subject, and the question is refused."""
    r = _ask(
        tmp_path, "can the cleaner leave the customer's garage remote in the lockbox at the office after six?"
    )
    assert r.decision == "refuse"
    assert r.closest is not None and r.closest.path == "Policies/Keys.md"
    assert r.evidence.wording == ["cleaner", "six"]


def test_every_word_as_rare_as_the_second_keeps_its_weight(tmp_path: Path) -> None:
    """Barking, bill and whole: no page holds any of them, so none is less likely than the others to be
    a subject (公众号 cut into 公众 + 号 lacks as many words no page holds; a cold review). The question's
    order does not pick two of them: all three weigh in full, and the question is refused."""
    r = _ask(
        tmp_path, "the dog was loose and barking when our cleaner arrived, do we still bill the whole visit?"
    )
    assert r.decision == "refuse"
    assert r.closest is not None and r.closest.path == "Policies/Pets.md"
    assert r.closest.missing == ["barking", "bill", "whole"]
    assert r.evidence.wording == []


def test_a_word_another_page_is_named_by_is_never_wording(tmp_path: Path) -> None:
    """Dispatch names another page (its title): a subject sibling pages name is common in the vault and
    would come last in rarity ("staging" on a vault of staging pages; a cold review). It keeps its weight
    while late, as rare, is read as wording."""
    r = _ask(
        tmp_path,
        "the dog was loose and barking when our cleaner arrived late, do we still bill the visit or tell dispatch?",
    )
    assert r.closest is not None and r.closest.path == "Policies/Pets.md"
    assert "dispatch" in r.closest.missing
    assert r.evidence.wording == ["late"]


def test_the_json_receipt_lists_the_wording(tmp_path: Path) -> None:
    """``krouter ask --json`` carries the words counted at a quarter in its evidence."""
    root = write(tmp_path / "vault", PAGES)
    result = CliRunner().invoke(app, ["ask", LOOSE_DOG, "--vault", str(root), "--json"])
    assert result.exit_code == 0, result.output
    receipt = json.loads(result.output)
    assert receipt["decision"] == "cite"
    assert receipt["evidence"]["wording"] == ["late"]
