"""A pick only the last check doubts (the page lacks a wording's most specific word, which other pages
hold) is held for the owner alone: as often an honest lesson as a neighbour's (docs/decisions.md D73),
so neither written nor refused, and no second teacher confirms it; ``krouter learn --accept`` writes it."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from learn_vault import (
    CODE_REVIEW,
    GOOD_QUOTE,
    MERGE_Q,
    PAGES,
    PAYMENTS,
    SEARCH_Q,
    log_weak,
    snapshot,
    write_vault,
)
from test_teach_pending import cites, cli, picking
from typer.testing import CliRunner

from krouter import config
from krouter.cli import app
from krouter.learner import journal as learn_journal
from krouter.learner import nightly, teach
from krouter.learner.report import PENDING
from krouter.routing.router import Router
from krouter.vault.page import parse_page

# The code review page answers it, but lacks "nightly" and "invoices", which the search page holds.
DOUBTED = "who has to okay a merge before the nightly invoices run"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_vault(tmp_path / "vault", PAGES)


def _teach(
    vault: Path,
    question: str = DOUBTED,
    page: str = CODE_REVIEW,
    quote: str = GOOD_QUOTE,
    client: str = "agent",
):
    with Router(vault) as router:
        return teach.teach(router, question, page, quote, client=client)


@pytest.mark.parametrize("mode", ["all", "none"])
def test_a_doubted_pick_is_held_for_the_owner_whatever_pending_triggers_says(vault: Path, mode: str) -> None:
    """Written at once (``pending_triggers = "none"``) or held for a second source (the default), a pick
    the checks doubt waits for a person: before, it was refused and the right lesson lost."""
    config.config_path().write_text(f'pending_triggers = "{mode}"\n', encoding="utf-8")
    before = snapshot(vault)
    result = _teach(vault)
    assert result.status == PENDING and result.for_owner and result.pending_id
    assert "it lacks 'nightly', 'invoices', which other pages hold" in result.reason
    text = result.to_text()
    assert text.startswith(f"pending, nothing written: {CODE_REVIEW} is held for the owner alone")
    assert f"krouter learn --accept {result.pending_id}" in text
    # How it differs from a plain pending pick, and that a retry does nothing (agent-loop runs, D126).
    assert (
        "unlike a plain pending pick, no second teacher can confirm it, and teaching it again does not"
        in text
    )
    assert snapshot(vault) == before and learn_journal.journal_entries() == []
    code, out = cli(vault, "learn", "--list")
    assert code == 0 and f"pending {result.pending_id}" in out
    assert "    for the owner alone: it lacks 'nightly', 'invoices'" in out, out
    # Taught again, by another agent: still held, still the owner's.
    again = _teach(vault, client="cli")
    assert again.status == PENDING and again.pending_id == result.pending_id and again.for_owner
    assert snapshot(vault) == before
    # `krouter status` says teachings wait (an agent-loop run left twelve the owner never heard of).
    code, out = cli(vault, "status")
    assert code == 0 and "pending:  1 taught, not written (1 for you alone): krouter learn --list" in out
    # Naming the vault: `learn --list` alone lists the default vault's (a cold review).
    assert f"krouter learn --list --vault {shlex.quote(str(vault.resolve()))}" in out, out
    code, out = cli(vault, "status", "--json")
    assert json.loads(out)["pending"] == {"pending": 1, "for_owner": 1}


def test_status_reports_a_record_of_holds_it_cannot_read_and_goes_on(vault: Path) -> None:
    """A fifth review: with pending.jsonl a folder, `krouter status` exited 1 over a count it only reports."""
    from krouter.learner import pending

    pending.pending_path().mkdir(parents=True)
    code, out = cli(vault, "status")
    assert code == 0 and "pages:" in out
    assert "pending:  the record of held teachings cannot be read:" in out, out


def test_the_owner_accepts_a_doubted_pick_and_undo_restores_the_page(vault: Path) -> None:
    before = snapshot(vault)
    held = _teach(vault)
    assert cites(vault, DOUBTED) is None
    code, out = cli(vault, "learn", "--accept", str(held.pending_id))
    assert code == 0, out
    run_id = out.split("(run ", 1)[1].split(";", 1)[0]
    assert parse_page(CODE_REVIEW, (vault / CODE_REVIEW).read_text()).triggers == [DOUBTED]
    assert cites(vault, DOUBTED) == CODE_REVIEW
    res = CliRunner().invoke(app, ["learn", "--undo", run_id])
    assert res.exit_code == 0, res.output
    assert snapshot(vault) == before


def test_a_pick_held_with_an_earlier_wording_of_its_doubt_is_still_accepted(vault: Path) -> None:
    """The diff review: the last check's doubt was reworded ("neighbour page: it lacks …" became "it
    lacks …, which other pages hold: a neighbour page's mark, …"), and accepting compared the stored text
    with the new one, so every pick held before the upgrade stayed pending for good."""
    held = _teach(vault)
    path = config.state_dir() / "pending.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        if row.get("doubt"):
            row["doubt"] = "neighbour page: it lacks 'nightly', 'invoices', which other pages hold"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    code, out = cli(vault, "learn", "--accept", str(held.pending_id))
    assert code == 0, out
    assert cites(vault, DOUBTED) == CODE_REVIEW


def test_the_owner_accepting_a_hold_gets_no_advice_meant_for_an_agent(tmp_path: Path) -> None:
    """The diff review: a held page that stopped being one of the question's candidates answered the
    owner's accept with the agent's hint to give a phrasing, which `learn --accept` has no way to take."""
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "Stipend.md").write_text(
        "# On-call\n\nThe on-call engineer gets a stipend of 300 euros a week.\n", encoding="utf-8"
    )
    (vault / "Garden.md").write_text("# Gardening\n\nTomatoes need sun.\n", encoding="utf-8")
    question = "weekly money for on-call duty"
    with Router(vault) as router:
        held = teach.teach(
            router, question, "Stipend.md", "The on-call engineer gets a stipend of 300 euros a week."
        )
    assert held.status == PENDING and held.pending_id
    for i in range(1, 8):
        (vault / f"Duty{i}.md").write_text(
            f"# Weekly on-call duty money {i}\n\nWeekly money for on-call duty item {i}, money duty weekly call.\n",
            encoding="utf-8",
        )
    code, out = cli(vault, "learn", "--accept", str(held.pending_id))
    assert code != 0 and "not one of this question's candidates" in out
    assert "give that phrasing" not in out


def test_a_pick_lacking_a_word_of_another_pages_name_is_the_owners_to_judge(vault: Path) -> None:
    """A word of another page's name that this page lacks marks a neighbour ('search' of the search page,
    asked of the payments page) as often as an everyday word a name or a tag holds (an agent-loop run,
    D126: seven honest lessons refused for tour, customer, call…): no word rule tells them apart (D130).
    The pick waits for the owner, not for a second teacher; rejected, nothing is written and the
    question still refuses; a careless nightly model agreeing confirms nothing."""
    config.config_path().write_text('pending_triggers = "none"\n', encoding="utf-8")
    before = snapshot(vault)
    quote = "The read timeout for Stripe calls is 10 seconds."
    result = _teach(vault, question=SEARCH_Q, page=PAYMENTS, quote=quote)
    assert result.status == PENDING and result.for_owner and result.pending_id, result.to_text()
    assert "it lacks 'search', which names another page (Search/Search service.md, its title" in result.reason
    assert "neighbour page:" not in result.reason  # a doubt, not a verdict
    assert snapshot(vault) == before
    log_weak(vault, SEARCH_Q)
    report = nightly.learn(vault, picking({SEARCH_Q: (PAYMENTS, quote)}), max_questions=5)
    assert [o.status for o in report.outcomes] == ["rejected"]
    assert snapshot(vault) == before
    code, out = cli(vault, "learn", "--reject", result.pending_id)
    assert code == 0, out
    assert snapshot(vault) == before and cites(vault, SEARCH_Q) is None


def test_an_accepted_pick_lacking_a_word_of_another_pages_name_makes_its_question_cite(vault: Path) -> None:
    """Accepted, the trigger counts for its own question, which holds it whole (the owner vouched for it
    as asked), and not for a wording that shares only part of it with the word naming the other page."""
    quote = "The read timeout for Stripe calls is 10 seconds."
    result = _teach(vault, question=SEARCH_Q, page=PAYMENTS, quote=quote)
    assert result.for_owner, result.to_text()
    code, out = cli(vault, "learn", "--accept", result.pending_id)
    assert code == 0, out
    assert parse_page(PAYMENTS, (vault / PAYMENTS).read_text(encoding="utf-8")).triggers == [SEARCH_Q]
    assert cites(vault, SEARCH_Q) == PAYMENTS
    assert cites(vault, "what is the search API timeout") is None


# A phrasing that ties the (clean) merge question to the search page's words: the pick is doubted through
# the phrasing alone, while the question itself passes every check.
DOUBTING_PHRASING = "approvals for a merge of the nightly invoices job"


def _teach_phrased(vault: Path, phrasings: list[str]):
    with Router(vault) as router:
        return teach.teach(router, MERGE_Q, CODE_REVIEW, GOOD_QUOTE, phrasings, client="agent")


def test_the_nightly_model_does_not_confirm_a_pick_held_for_the_owner(vault: Path) -> None:
    """The model's own check of the question alone passes; the agent's hold it names was doubted through
    the agent's phrasing: the model holds its own pick, and nothing is written."""
    config.config_path().write_text('pending_triggers = "all"\n', encoding="utf-8")
    held = _teach_phrased(vault, [DOUBTING_PHRASING])
    assert held.for_owner, held.to_text()
    before = snapshot(vault)
    log_weak(vault, MERGE_Q)
    report = nightly.learn(vault, picking({MERGE_Q: (CODE_REVIEW, GOOD_QUOTE)}))
    [outcome] = report.outcomes
    assert outcome.status == PENDING, report.to_text()
    assert snapshot(vault) == before and learn_journal.journal_entries() == []


def test_a_clean_pick_of_a_page_held_for_the_owner_takes_its_place(vault: Path) -> None:
    """Taught again without the phrasing that raised the doubt, every check passes: written at once with
    ``pending_triggers = "none"``, and the owner's hold is closed, not left waiting."""
    config.config_path().write_text('pending_triggers = "none"\n', encoding="utf-8")
    held = _teach_phrased(vault, [DOUBTING_PHRASING])
    assert held.for_owner and held.status == PENDING
    again = _teach_phrased(vault, [DOUBTING_PHRASING])
    assert again.for_owner and again.pending_id == held.pending_id
    assert f"the checks doubt it ({held.reason})" in again.to_text()
    clean = _teach_phrased(vault, [])
    assert clean.taught, clean.to_text()
    code, out = cli(vault, "learn", "--list", "--json")
    assert code == 0 and not any(row["pending"] for row in json.loads(out)), out


def test_accept_still_checks_an_ordinary_hold_in_full(vault: Path) -> None:
    """The owner vouches for a doubt they were shown: an ordinary hold that has since come to lack the
    question's rarest word (a page holding it was added) is not written silently."""
    held = _teach(vault, question=MERGE_Q)
    assert held.status == PENDING and not held.for_owner
    write_vault(
        vault, {"Runbooks/Release log.md": "# Release log\n\nEvery release records its sign-offs here.\n"}
    )
    code, out = cli(vault, "learn", "--accept", str(held.pending_id))
    assert code == 3 and "it no longer passes the checks" in out, out


def test_accept_of_a_doubted_hold_refuses_a_doubt_that_arose_since(vault: Path) -> None:
    """The owner vouches for the doubt they were shown; a page added since that holds the question's
    rarest word raises another, which is shown, and the hold stays (the second cold review's case)."""
    held = _teach_phrased(vault, [DOUBTING_PHRASING])
    assert held.for_owner
    write_vault(
        vault, {"Runbooks/Release log.md": "# Release log\n\nEvery release records its sign-offs here.\n"}
    )
    before = snapshot(vault)
    code, out = cli(vault, "learn", "--accept", str(held.pending_id))
    assert code == 3 and "it no longer passes the checks" in out and "sign" in out, out
    assert snapshot(vault) == before


def test_a_clean_pick_held_for_a_second_source_takes_over_the_owner_s_hold(vault: Path) -> None:
    """Held by default: the clean pick is an ordinary hold, the reply says whose place it takes, and
    the list shows the owner's hold as taken over."""
    doubted = _teach_phrased(vault, [DOUBTING_PHRASING])
    other_doubt = _teach_phrased(vault, ["approvals for a merge of the Stripe retry backoff"])
    assert other_doubt.pending_id == doubted.pending_id and "this teaching's own doubt" in other_doubt.reason
    clean = _teach_phrased(vault, [])
    assert clean.status == PENDING and not clean.for_owner and clean.pending_id != doubted.pending_id
    assert f"it takes the place of pending {doubted.pending_id}" in clean.to_text()
    code, out = cli(vault, "learn", "--list")
    assert code == 0 and f"superseded {doubted.pending_id}" in out and f"pending {clean.pending_id}" in out, (
        out
    )
    code, out = cli(vault, "learn", "--accept", str(doubted.pending_id))
    assert code == 1 and "superseded" in out, out


def test_the_question_itself_is_checked_when_only_a_phrasing_shares_a_word_with_the_quote(
    vault: Path,
) -> None:
    """A cold review: the last check ran only on the wordings the quote shares a word with, so a
    phrasing that shares one vouched for a question that shares none, and its pick was held as an
    ordinary one (written at once with pending_triggers = "none"), with no doubt shown."""
    config.config_path().write_text('pending_triggers = "none"\n', encoding="utf-8")
    before = snapshot(vault)
    with Router(vault) as router:
        result = teach.teach(
            router,
            "who has to okay the invoices",
            CODE_REVIEW,
            GOOD_QUOTE,
            ["how many approvals does a pull request need"],
            client="agent",
        )
    assert result.status == PENDING and result.for_owner, result.to_text()
    assert "it lacks 'invoices'" in result.reason
    assert snapshot(vault) == before


def test_a_word_the_page_holds_through_the_dictionary_is_not_lacking(tmp_path: Path) -> None:
    """The session diff's review: the last check compared the question's word 日期 with the citation's
    shown "日期→date", so a Chinese question taught onto the English page that answers it was doubted
    ("it lacks '日期', which other pages hold") and held for the owner alone."""
    root = write_vault(
        tmp_path / "v",
        {
            "expenses.md": "# Expense claims\n\nExpense claims must be submitted within 30 days of the "
            "purchase date, with the receipt attached.\n",
            "meeting.md": "# 会议记录\n\n会议日期是每周一，地点在三楼。\n",
            "lunch.md": "# Lunch\n\nPizza on Fridays.\n",
        },
    )
    question = "报销在购买日期后几天内要交给财务"
    with Router(root) as router:
        assert router.decide(question).decision == "refuse"
        result = teach.teach(
            router,
            question,
            "expenses.md",
            "Expense claims must be submitted within 30 days of the purchase date, with the receipt attached.",
            ["expense claims purchase date days"],
        )
    assert result.status == PENDING and not result.for_owner, result.to_text()


ROTA = {
    "Support rota.md": "# Support rota\n\nHannah staffs the support desk Monday to Wednesday.\n",
    "Meetings/Weekly ops call.md": "---\ntitle: Weekly ops call\n---\n# Weekly ops call\n\n"
    "The weekly ops call is on Tuesdays at 9:30. Priya runs it.\n",
    "Email.md": "# Email\n\nCustomer emails go through Postmark with a five second timeout.\n",
    "Office.md": "# Office\n\nHannah ordered new chairs for the support desk.\n",
    "Notes/Deploy.md": "# Deploy\n\nDeploys go out from the main branch after CI passes on Monday.\n",
}


def test_every_doubt_is_shown_to_the_owner_and_vouched_for_together(tmp_path: Path) -> None:
    """A cold review of D130: the hold showed only "it lacks 'calls', which names another page", and
    accepting it also wrote past the doubt the checks never said (the page lacks 'postmark', which
    another page holds). Both are said; the owner's accept vouches for both."""
    vault = write_vault(tmp_path / "vault", ROTA)
    quote = "Hannah staffs the support desk Monday to Wednesday."
    with Router(vault) as router:
        held = teach.teach(
            router, "which days does Hannah take calls about Postmark", "Support rota.md", quote
        )
    assert held.for_owner, held.to_text()
    assert (
        "it lacks 'calls', which names another page (Meetings/Weekly ops call.md, its title 'Weekly ops call')"
        in held.reason
    )
    assert "'postmark', which other pages hold" in held.reason
    code, out = cli(vault, "learn", "--accept", held.pending_id)
    assert code == 0 and "written (run" in out, out


def test_a_disputed_pick_lacking_a_word_of_another_pages_name_can_be_accepted(tmp_path: Path) -> None:
    """A cold review of D130: a pick of another page than the one KRouter cites (a dispute, D113) whose
    question holds a word naming another page was held with both doubts, and `--accept` said it "no
    longer passes the checks" naming the very doubt it was held with."""
    pages = {**ROTA, "Support rota.md": ROTA["Support rota.md"] + "\nShe joins the call every Tuesday.\n"}
    vault = write_vault(tmp_path / "vault", pages)
    with Router(vault) as router:
        held = teach.teach(
            router, "when is the weekly ops call", "Support rota.md", "She joins the call every Tuesday."
        )
    assert held.for_owner and held.reason.startswith("KRouter cites Meetings/Weekly ops call.md"), (
        held.to_text()
    )
    assert "which names another page" in held.reason
    # The checks find the doubt it was held with; written, it is taken back, as the ops page still wins.
    code, out = cli(vault, "learn", "--accept", held.pending_id)
    assert code == 3 and "no longer passes" not in out and "would still not cite Support rota.md" in out, out


def test_a_doubt_says_which_of_the_other_pages_names_holds_the_word(tmp_path: Path) -> None:
    """An agent-loop run (D133) read "'call', which names another page (Runbooks/Cloud incident
    response.md)", found no "call" in that title and took the check for a mistake: it was an alias."""
    from krouter.learner.name_fields import naming_field

    vault = write_vault(
        tmp_path / "vault",
        {
            "Runbooks/Cloud incident response.md": "---\naliases: [on-call call tree]\ntags: [customer-service]\n"
            "---\n# Cloud incident response\n\nPage the on-call engineer first.\n",
            "Weekly/ops.md": "# Ops\n\nNotes.\n",
        },
    )
    cloud = "Runbooks/Cloud incident response.md"
    assert naming_field(vault, cloud, "call") == "its alias 'on-call call tree'"
    assert naming_field(vault, cloud, "customers") == "its tag 'customer-service'"
    assert naming_field(vault, cloud, "incident") == "its title 'Cloud incident response'"
    assert naming_field(vault, "Weekly/ops.md", "weekly") == "its path"
    assert naming_field(vault, cloud, "postmark") is None
    assert naming_field(vault, "Missing.md", "call") is None


def test_every_word_of_another_pages_name_is_in_the_doubt(tmp_path: Path) -> None:
    """A cold review (D133): only the first such word was listed ('call'), and the owner's accept wrote a
    trigger holding 'weekly' too, another page's tag, which the hold never showed."""
    pages = {
        **ROTA,
        "Meetings/Weekly ops call.md": "---\ntitle: Ops call\n---\n# Ops call\n\nThe ops call is on Tuesdays.\n",
        "Reports/Status.md": "---\ntags: [weekly]\n---\n# Status\n\nA status report goes out on Fridays.\n",
    }
    vault = write_vault(tmp_path / "vault", pages)
    quote = "Hannah staffs the support desk Monday to Wednesday."
    with Router(vault) as router:
        held = teach.teach(router, "which days is Hannah on call weekly", "Support rota.md", quote)
    assert held.for_owner, held.to_text()
    assert "it lacks 'call', which names another page (Meetings/Weekly ops call.md" in held.reason
    assert "it lacks 'weekly', which names another page (" in held.reason, held.reason


def test_a_hold_whose_doubts_are_fewer_since_can_still_be_accepted(tmp_path: Path) -> None:
    """The learner bench: a hold listed with two doubts ('calls' names another page; the page lacks
    'postmark') was refused as "no longer passes the checks" once the page held Postmark, though what
    was left was a doubt the owner had been shown."""
    vault = write_vault(tmp_path / "vault", ROTA)
    quote = "Hannah staffs the support desk Monday to Wednesday."
    with Router(vault) as router:
        held = teach.teach(
            router, "which days does Hannah take calls about Postmark", "Support rota.md", quote
        )
    assert held.for_owner and "'postmark', which other pages hold" in held.reason, held.to_text()
    with (vault / "Support rota.md").open("a", encoding="utf-8") as fh:
        fh.write("\nPostmark bounce reports go to her as well.\n")
    code, out = cli(vault, "learn", "--accept", held.pending_id)
    assert code == 0 and "written (run" in out, out


def test_a_page_reached_through_a_link_is_taught_with_a_rewording_for_the_owner(tmp_path: Path) -> None:
    """Agent-loop runs: the answer was on a page the closest one links to, which no list names. Taught
    without a phrasing it is refused and told what to give; with a rewording in the page's own words it
    is held for the owner (the question's own words name the other page), and once accepted the question
    cites it."""
    root = write_vault(
        tmp_path / "vault",
        {
            "Projects/Hub C2.md": "---\ntitle: Hub C2\n---\n# Hub C2\n\nThe C2 controller ships in Q3. "
            "Matter certification is in the lab (see [[Allion Taipei]]).\n",
            "Suppliers/Allion Taipei.md": "---\ntitle: Allion Taipei\n---\n# Allion Taipei\n\nAllion runs our "
            "certification tests in Taipei. The quote for one product is USD 9,500, paid half upfront.\n",
            "Runbooks.md": "# Runbooks\n\nRestart the hub with the reset button held for ten seconds.\n",
        },
    )
    question = "How much is getting the C2 Matter-certified costing us?"
    page, quote = "Suppliers/Allion Taipei.md", "The quote for one product is USD 9,500, paid half upfront."
    assert cites(root, question) is None
    before = snapshot(root)
    with Router(root) as router:
        bare = teach.teach(router, question, page, quote)
        reworded = teach.teach(router, question, page, quote, ["Allion certification test quote price"])
    assert not bare.taught and "give a rewording of the question in the page's own words" in bare.reason
    assert reworded.status == PENDING and reworded.for_owner, (reworded.status, reworded.reason)
    assert snapshot(root) == before
    code, out = cli(root, "learn", "--accept", str(reworded.pending_id))
    assert code == 0, out
    assert cites(root, question) == page
