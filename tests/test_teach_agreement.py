"""Two teachers agree when they name the same page and quote the same passage of it (docs/decisions.md
D78): a held pick is confirmed by the other teacher's pick of the page only when its quote sits in the
same passage (a block between blank lines), and the reply says why one that quotes elsewhere did not."""

from __future__ import annotations

from pathlib import Path

import pytest
from learn_vault import CODE_REVIEW, GOOD_QUOTE, MERGE_Q, PAGES, log_weak, snapshot, write_vault
from test_teach_pending import cites, listed, picking, query_log_on, teach_lib  # noqa: F401 (an autouse fixture)

from krouter import config
from krouter.learner import journal as learn_journal
from krouter.learner import nightly
from krouter.learner.quotes import same_passage
from krouter.learner.report import LEARNED, PENDING

# Another passage of the same page, which also shares "merge" with the question.
ELSEWHERE = "Merges wait in the merge queue until the nightly build is green."
# Another sentence of the passage that holds the answer (a line of its own, no blank line between).
BESIDE = "Approvals from one team count once towards a merge."


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    pages = dict(PAGES)
    pages[CODE_REVIEW] = PAGES[CODE_REVIEW] + f"{BESIDE}\n\n{ELSEWHERE}\n"
    return write_vault(tmp_path / "vault", pages)


def test_the_nightly_model_quoting_another_passage_does_not_confirm_an_agents_pick(vault: Path) -> None:
    agent_hold = teach_lib(vault).pending_id
    before = snapshot(vault)
    log_weak(vault, MERGE_Q)
    report = nightly.learn(vault, picking({MERGE_Q: (CODE_REVIEW, ELSEWHERE)}))
    [outcome] = report.outcomes
    assert outcome.status == PENDING, report.to_text()
    assert f"an agent's pending {agent_hold} names this page but quotes another passage" in outcome.reason
    assert snapshot(vault) == before and learn_journal.journal_entries() == []
    assert [r["pending"] for r in listed(vault)] == [True, True]


def test_the_nightly_model_quoting_the_same_passage_confirms_it(vault: Path) -> None:
    agent_hold = teach_lib(vault).pending_id
    log_weak(vault, MERGE_Q)
    report = nightly.learn(vault, picking({MERGE_Q: (CODE_REVIEW, BESIDE)}))
    [outcome] = report.outcomes
    assert outcome.status == LEARNED and f"confirms an agent's pending {agent_hold}" in outcome.reason
    assert cites(vault, MERGE_Q) == CODE_REVIEW


def test_an_agent_quoting_another_passage_does_not_confirm_the_nightly_models_pick(vault: Path) -> None:
    config.config_path().write_text('pending_triggers = "all"\n', encoding="utf-8")
    log_weak(vault, MERGE_Q)
    nightly.learn(vault, picking({MERGE_Q: (CODE_REVIEW, GOOD_QUOTE)}))
    [held] = listed(vault)
    before = snapshot(vault)
    result = teach_lib(vault, quote=ELSEWHERE)
    assert result.status == PENDING and not result.taught, result.to_text()
    wanted = f"the nightly model's pending {held['pending_id']} names this page but quotes another passage"
    assert wanted in result.reason and wanted in result.to_text()
    assert snapshot(vault) == before and cites(vault, MERGE_Q) is None
    # The agent quoting the answer's passage is the second source: written at once.
    assert teach_lib(vault, quote=BESIDE).taught
    assert cites(vault, MERGE_Q) == CODE_REVIEW


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_passages_are_cut_at_blank_lines_and_headings_whatever_the_line_ends(newline: str) -> None:
    body = newline.join(
        ["# Code review", GOOD_QUOTE, BESIDE, "\u3000", ELSEWHERE, "## Merge queue", "Merges run at noon."]
    )
    assert same_passage(GOOD_QUOTE, BESIDE, body)
    assert not same_passage(GOOD_QUOTE, ELSEWHERE, body)
    # A section under its own heading is a passage, with no blank line before the heading.
    assert not same_passage(ELSEWHERE, "Merges run at noon.", body)
    # The same sentence agrees with itself, wherever the page breaks it.
    assert same_passage(GOOD_QUOTE, GOOD_QUOTE.replace("*", ""), body)


def test_quotes_with_a_link_agree_on_their_passage() -> None:
    """The session diff's review: the page's links were read by their labels and the quotes' were not,
    so two teachers quoting one paragraph that holds a [[link]] no longer agreed."""
    body = (
        "# Dashboards\n\nCheckout graphs live in [[Grafana]] under the Payments folder. Alerts page Omar.\n"
    )
    first = "Checkout graphs live in [[Grafana]] under the Payments folder."
    both = "Checkout graphs live in [[Grafana]] under the Payments folder. Alerts page Omar."
    assert same_passage(first, both, body)


def test_a_lone_comment_mark_does_not_hide_the_rest_of_the_page() -> None:
    """The review: a lone "%%" (printf's "%5.1f%%") or "<!--" in prose made every later line unquotable."""
    from krouter.learner.quotes import quote_on_page

    body = (
        'Format with `printf("%5.1f%%")` in reports.\nThe nightly report job runs on batch-02 at 02:30.\n'
        "Sentences must not contain <!-- comments in the wiki.\nThe weekly job runs on batch-03 at 04:00.\n"
    )
    assert quote_on_page("The nightly report job runs on batch-02 at 02:30.", body)
    assert quote_on_page("The weekly job runs on batch-03 at 04:00.", body)
    # Obsidian's own comments, closed, are hidden as a reader of the note sees it (the late review).
    obsidian = (
        "The production deploy window opens at 9am %%confirm with Ana%% on Tuesdays and Thursdays.\n%%\n"
        "The admin password is hunter2 for now.\n%%\nRollbacks need two approvals.\n"
    )
    assert quote_on_page("The production deploy window opens at 9am on Tuesdays and Thursdays.", obsidian)
    assert not quote_on_page("The admin password is hunter2 for now.", obsidian)
    assert quote_on_page("Rollbacks need two approvals.", obsidian)


def test_a_held_quote_no_longer_on_the_page_is_said_so(vault: Path) -> None:
    config.config_path().write_text('pending_triggers = "all"\n', encoding="utf-8")
    log_weak(vault, MERGE_Q)
    nightly.learn(vault, picking({MERGE_Q: (CODE_REVIEW, ELSEWHERE)}))
    [held] = listed(vault)
    page = vault / CODE_REVIEW
    page.write_text(page.read_text(encoding="utf-8").replace(ELSEWHERE, ""), encoding="utf-8")
    result = teach_lib(vault)
    assert result.status == PENDING and not result.taught
    assert (
        f"the nightly model's pending {held['pending_id']} names this page, but its quote is no longer on it"
        in (result.reason)
    )
