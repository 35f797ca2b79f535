"""Pending triggers: one teacher's verified pick is held, not written, until a second source agrees
(the nightly model for an agent's pick, an agent for the nightly model's, or the owner with
``krouter learn --accept``); the replies, the list and the caps say exactly what was and was not written.

The nightly model is called through the real anthropic client on a mocked transport, as in ``test_learn``.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import re
import subprocess
import sys
import threading
import time
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from pathlib import Path

import anyio
import pytest
from learn_vault import (
    CODE_REVIEW,
    GOOD_QUOTE,
    MERGE_Q,
    PAGES,
    PAYMENTS,
    SEARCH_Q,
    log_weak,
    message,
    snapshot,
    write_vault,
)
from mcp import Client
from mcp_stdio import server_params, text_of
from typer.testing import CliRunner

from krouter import config
from krouter.cli import app
from krouter.learner import journal as learn_journal
from krouter.learner import nightly, pending, teach
from krouter.learner import undo as learn_undo
from krouter.learner.lanes import ApiLane
from krouter.learner.report import LEARNED, PENDING
from krouter.routing.router import Router
from krouter.vault.page import parse_page

try:
    import httpx2 as httpx
except ImportError:  # anthropic < 2 runs on httpx
    import httpx  # type: ignore[no-redef]

NEXT_WEEK = "how many sign-offs does a merge need before it lands"


@pytest.fixture(autouse=True)
def query_log_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KROUTER_NO_QUERY_LOG", raising=False)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_vault(tmp_path / "vault", PAGES)


def picking(picks: dict[str, tuple[str, str]]) -> ApiLane:
    """A mocked model that answers each question it is sent with ``picks[question]`` (page, quote)."""

    def handler(request: httpx.Request) -> httpx.Response:
        prompt = json.loads(request.content)["messages"][0]["content"]
        qs = json.loads(prompt.split("QUESTIONS (JSON):\n", 1)[1].split("\n\nPAGES:", 1)[0])
        out = [{"q": i["q"], "page": picks[i["question"]][0], "quote": picks[i["question"]][1]} for i in qs]
        return httpx.Response(200, json=message(json.dumps({"answers": out})))

    client = httpx.Client(transport=httpx.MockTransport(handler))
    return ApiLane("claude-test", api_key="test-key", http_client=client, max_retries=0, timeout=5)


def cli(vault: Path, *args: str) -> tuple[int, str]:
    res = CliRunner().invoke(app, [*args, "--vault", str(vault)])
    return res.exit_code, res.output


def teach_lib(
    vault: Path,
    question: str = MERGE_Q,
    page: str = CODE_REVIEW,
    quote: str = GOOD_QUOTE,
    client: str = "agent",
) -> teach.TeachResult:
    with Router(vault) as router:
        return teach.teach(router, question, page, quote, client=client)


def cites(vault: Path, question: str) -> str | None:
    with Router(vault) as router:
        r = router.decide(question)
    return r.top.path if r.decision == "cite" and r.top is not None else None


def listed(vault: Path) -> list[dict[str, object]]:
    code, out = cli(vault, "learn", "--list", "--json")
    assert code == 0, out
    return json.loads(out)


def test_an_agents_verified_pick_is_held_and_writes_nothing(vault: Path) -> None:
    before = snapshot(vault)
    result = teach_lib(vault)
    assert result.status == PENDING and not result.taught and result.pending_id
    assert result.run_id is None and result.trigger is None
    text = result.to_text()
    assert text.startswith(f"pending, nothing written: {CODE_REVIEW} is held")
    assert f"krouter learn --accept {result.pending_id}" in text
    assert snapshot(vault) == before
    assert cites(vault, MERGE_Q) is None and cites(vault, NEXT_WEEK) is None
    assert learn_journal.journal_entries() == []
    [row] = listed(vault)
    assert row["pending"] is True and row["pending_id"] == result.pending_id and row["run_id"] is None
    assert (row["page"], row["trigger"], row["taught_by"], row["quote"]) == (
        CODE_REVIEW,
        MERGE_Q,
        "agent",
        GOOD_QUOTE,
    )
    code, out = cli(vault, "learn", "--list")
    assert code == 0 and f"pending {result.pending_id}" in out and "not written" in out
    # The owner judges an accept by the sentence the teacher quoted: the list shows it.
    assert f"    quote: {GOOD_QUOTE}" in out, out


def test_a_second_agent_teaching_the_same_pick_does_not_confirm_it(vault: Path) -> None:
    before = snapshot(vault)
    first = teach_lib(vault, client="mcp")
    second = teach_lib(vault, client="cli")
    assert second.status == PENDING and second.pending_id == first.pending_id
    assert "teaching it again, by this agent or another, does not confirm it" in second.to_text()
    assert snapshot(vault) == before and len(listed(vault)) == 1


def test_teaching_a_held_pick_again_with_a_quote_not_on_the_page_is_refused(vault: Path) -> None:
    # A walkthrough's second call, with a made-up quote, was answered "pending" with that quote echoed:
    # the hold short-circuited every check.
    first = teach_lib(vault)
    again = teach_lib(vault, quote="We may merge with no review at all, for free.")
    assert first.status == PENDING and again.status == teach.NOT_TAUGHT
    assert again.reason == "the quote is not on the page" and again.pending_id is None
    [row] = listed(vault)
    assert row["quote"] == GOOD_QUOTE and row["pending_id"] == first.pending_id


def test_the_cli_says_pending_and_the_owner_accepts_then_undoes_byte_for_byte(vault: Path) -> None:
    before = snapshot(vault)
    code, out = cli(vault, "teach", MERGE_Q, "--page", CODE_REVIEW, "--quote", GOOD_QUOTE)
    assert code == 3 and out.startswith("pending, nothing written"), out
    pid = out.split("krouter learn --accept ", 1)[1].split()[0]
    assert snapshot(vault) == before

    code, out = cli(vault, "learn", "--accept", pid)
    assert code == 0, out
    run_id = out.split("(run ", 1)[1].split(";", 1)[0]
    assert out.startswith(f"accepted pending {pid}: written (run {run_id}")
    assert parse_page(CODE_REVIEW, (vault / CODE_REVIEW).read_text()).triggers == [MERGE_Q]
    assert cites(vault, NEXT_WEEK) == CODE_REVIEW
    [entry] = learn_journal.journal_entries(run_id)
    assert entry["lane"] == "owner" and entry["pending_id"] == pid
    [row] = listed(vault)
    assert row["pending"] is False and row["run_id"] == run_id and row["pending_id"] == pid
    # The listing names the teacher the owner accepted, not only "owner".
    code, out = cli(vault, "learn", "--list")
    assert code == 0 and f"{run_id}  " in out and "  owner (accepted agent)  " in out, out
    # Accepted once: a second --accept says so and writes nothing more.
    code, out = cli(vault, "learn", "--accept", pid)
    assert code == 1 and "was written already" in out, out

    res = CliRunner().invoke(app, ["learn", "--undo", run_id])
    assert res.exit_code == 0, res.output
    assert snapshot(vault) == before


def test_the_owner_settles_a_pending_pick_without_naming_its_vault(vault: Path) -> None:
    """A bug hunt: the reply says "run krouter learn --accept ID", which failed, "no vault named", though
    the id names its vault. Without --vault the id's own vault is taken."""
    pid = teach_lib(vault).pending_id
    assert pid
    res = CliRunner().invoke(app, ["learn", "--accept", pid])
    assert res.exit_code == 0 and res.output.startswith(f"accepted pending {pid}: written"), res.output
    assert parse_page(CODE_REVIEW, (vault / CODE_REVIEW).read_text()).triggers == [MERGE_Q]
    # An id no vault holds still needs the vault named.
    res = CliRunner().invoke(app, ["learn", "--reject", "p00000000"])
    assert res.exit_code == 2 and "--vault" in res.output, res.output


def test_the_owner_rejects_a_pending_pick_and_nothing_is_written(vault: Path) -> None:
    before = snapshot(vault)
    pid = teach_lib(vault).pending_id
    assert pid
    code, out = cli(vault, "learn", "--reject", pid)
    assert code == 0 and out.startswith(f"rejected pending {pid}: nothing written"), out
    assert snapshot(vault) == before
    # What an agent tried to teach stays on record, marked rejected, with nothing to accept or undo.
    rows = listed(vault)
    assert [(r["pending_id"], r["pending"], r["rejected"], r["run_id"]) for r in rows] == [
        (pid, False, True, None)
    ]
    code, out = cli(vault, "learn", "--list")
    assert code == 0 and f"rejected {pid}" in out and "rejected by the owner " in out, out
    assert "Z: nothing written" in out and isinstance(rows[0]["rejected_time"], float), out
    assert "--accept" not in out, out
    code, out = cli(vault, "learn", "--accept", pid)
    assert code == 1 and "was rejected already" in out, out
    code, out = cli(vault, "learn", "--accept", "p00000000")
    assert code == 1 and "no pending trigger 'p00000000'" in out, out
    code, out = cli(vault, "learn", "--accept", pid, "--reject", pid)
    assert code == 2 and "not both" in out, out
    assert snapshot(vault) == before


def test_a_pick_the_owner_rejected_is_not_held_again_nor_written_by_the_nightly_model(vault: Path) -> None:
    # A walkthrough: rejected, taught again by the agent (held again, the rejection not mentioned), then
    # written by the nightly model's agreement.
    before = snapshot(vault)
    pid = teach_lib(vault).pending_id
    assert pid and cli(vault, "learn", "--reject", pid)[0] == 0
    again = teach_lib(vault)
    assert again.status == teach.NOT_TAUGHT and again.pending_id is None
    assert again.reason == f"the owner rejected this pick before (pending {pid}): it is not taught again"
    log_weak(vault, MERGE_Q)
    report = nightly.learn(vault, picking({MERGE_Q: (CODE_REVIEW, GOOD_QUOTE)}))
    [outcome] = report.outcomes
    assert outcome.status != LEARNED and "the owner rejected this pick before" in outcome.reason
    assert snapshot(vault) == before and [r["pending"] for r in listed(vault)] == [False]


def test_a_trigger_the_owner_undid_is_not_taught_again(vault: Path) -> None:
    config.config_path().write_text('pending_triggers = "none"\n', encoding="utf-8")
    before = snapshot(vault)
    first = teach_lib(vault)
    assert first.taught and first.run_id
    res = CliRunner().invoke(app, ["learn", "--undo", first.run_id])
    assert res.exit_code == 0 and snapshot(vault) == before, res.output
    again = teach_lib(vault)
    assert not again.taught
    assert again.reason == f"the owner undid this trigger before (run {first.run_id}): it is not taught again"
    log_weak(vault, MERGE_Q)
    report = nightly.learn(vault, picking({MERGE_Q: (CODE_REVIEW, GOOD_QUOTE)}))
    assert report.outcomes[0].status != LEARNED and snapshot(vault) == before


def test_the_owner_s_no_holds_for_the_question_asked_again_with_other_punctuation(vault: Path) -> None:
    """A cold review: a rejected pick came back held, then written by the nightly model's agreement, when
    the agent taught the same question with a question mark added or dropped; and after an undo, too.
    The same words in another order are another question (the session diff's review: "who reports to
    Alice" rejected kept "who does Alice report to" out)."""
    before = snapshot(vault)
    pid = teach_lib(vault).pending_id
    assert pid and cli(vault, "learn", "--reject", pid)[0] == 0
    for variant in ("How many sign-offs does a merge need", "how many sign-offs does a merge need ?"):
        again = teach_lib(vault, question=variant)
        assert again.pending_id is None and "the owner rejected this pick before" in again.reason, variant
        log_weak(vault, variant)
    report = nightly.learn(vault, picking({v: (CODE_REVIEW, GOOD_QUOTE) for v in (MERGE_Q[:-1], MERGE_Q)}))
    assert all(o.status != LEARNED for o in report.outcomes)
    assert snapshot(vault) == before


def test_the_owner_s_no_is_for_that_question_not_for_its_words_in_another_order(vault: Path) -> None:
    pid = teach_lib(vault).pending_id
    assert pid and cli(vault, "learn", "--reject", pid)[0] == 0
    other = teach_lib(vault, question="Does a merge need how many sign-offs?")
    assert "the owner rejected this pick before" not in other.reason, other.to_text()


def test_a_trigger_the_owner_undid_is_not_taught_again_with_other_punctuation(vault: Path) -> None:
    config.config_path().write_text('pending_triggers = "none"\n', encoding="utf-8")
    before = snapshot(vault)
    first = teach_lib(vault)
    assert first.taught and first.run_id
    assert CliRunner().invoke(app, ["learn", "--undo", first.run_id]).exit_code == 0
    again = teach_lib(vault, question="How many sign-offs does a merge need ？")
    assert not again.taught and "the owner undid this trigger before" in again.reason
    assert snapshot(vault) == before


def test_an_agent_s_hold_confirms_nothing_once_agent_teaching_is_turned_off(vault: Path) -> None:
    """A cold review: an agent's pick held before the owner turned agent teaching off was written by the
    next nightly run's agreement, with nothing in the list saying an agent taught it."""
    before = snapshot(vault)
    assert teach_lib(vault).pending_id
    config.config_path().write_text("agent_teaching = false\n", encoding="utf-8")
    log_weak(vault, MERGE_Q)
    report = nightly.learn(vault, picking({MERGE_Q: (CODE_REVIEW, GOOD_QUOTE)}))
    [outcome] = report.outcomes
    assert outcome.status == PENDING and "held until a second source agrees" in outcome.reason
    assert snapshot(vault) == before


def test_accept_checks_the_pick_again_and_keeps_it_pending_when_the_quote_is_gone(vault: Path) -> None:
    pid = teach_lib(vault).pending_id
    assert pid
    page = vault / CODE_REVIEW
    page.write_text(page.read_text().replace("two approvals", "three approvals"))
    edited = snapshot(vault)
    code, out = cli(vault, "learn", "--accept", pid)
    assert code == 3 and f"pending {pid} not written, it stays pending" in out and "not on the page" in out, (
        out
    )
    assert snapshot(vault) == edited
    assert [r["pending_id"] for r in listed(vault) if r["pending"]] == [pid]


def test_the_nightly_model_naming_the_same_page_confirms_an_agents_pick(vault: Path) -> None:
    pid = teach_lib(vault).pending_id
    log_weak(vault, MERGE_Q)
    report = nightly.learn(vault, picking({MERGE_Q: (CODE_REVIEW, GOOD_QUOTE)}))
    [outcome] = report.outcomes
    assert outcome.status == LEARNED and f"confirms an agent's pending {pid}" in outcome.reason, (
        report.to_text()
    )
    assert cites(vault, NEXT_WEEK) == CODE_REVIEW
    [entry] = learn_journal.journal_entries(report.run_id)
    assert entry["pending_id"] == pid and entry["lane"] == "api"
    assert [r["pending"] for r in listed(vault)] == [False]


def test_the_nightly_model_naming_another_page_leaves_the_agents_pick_held(vault: Path) -> None:
    pid = teach_lib(vault).pending_id
    before = snapshot(vault)
    log_weak(vault, MERGE_Q)
    report = nightly.learn(
        vault, picking({MERGE_Q: (PAYMENTS, "The read timeout for Stripe calls is 10 seconds.")})
    )
    [outcome] = report.outcomes
    assert outcome.status != LEARNED and outcome.page == PAYMENTS, report.to_text()
    assert snapshot(vault) == before and cites(vault, MERGE_Q) is None
    assert pid in [r["pending_id"] for r in listed(vault) if r["pending"] and r["page"] == CODE_REVIEW]


def test_pending_all_holds_the_nightly_pick_until_an_agent_agrees(vault: Path) -> None:
    config.config_path().write_text('pending_triggers = "all"\n', encoding="utf-8")
    before = snapshot(vault)
    log_weak(vault, MERGE_Q)
    report = nightly.learn(vault, picking({MERGE_Q: (CODE_REVIEW, GOOD_QUOTE)}))
    [outcome] = report.outcomes
    assert outcome.status == PENDING and "held until a second source agrees" in outcome.reason
    assert "pending 1," in report.to_text() and snapshot(vault) == before
    [row] = listed(vault)
    assert row["pending"] is True and row["taught_by"] == "api"
    # The agent is the second source: its teaching writes at once.
    result = teach_lib(vault)
    assert result.taught, result.to_text()
    assert cites(vault, NEXT_WEEK) == CODE_REVIEW
    [entry] = learn_journal.journal_entries(result.run_id)
    assert entry["pending_id"] == row["pending_id"] and entry["lane"] == "agent"
    assert [r["pending"] for r in listed(vault)] == [False]


def test_pending_none_writes_an_agents_pick_at_once_and_a_bad_value_is_named(vault: Path) -> None:
    config.config_path().write_text('pending_triggers = "none"\n', encoding="utf-8")
    assert teach_lib(vault).taught
    config.config_path().write_text('pending_triggers = "sometimes"\n', encoding="utf-8")
    code, out = cli(vault, "teach", NEXT_WEEK, "--page", CODE_REVIEW, "--quote", GOOD_QUOTE)
    assert code == 1 and "config.toml" in out and "'pending_triggers' must be one of" in out, out


def test_held_picks_count_towards_the_caps_and_a_question_is_held_for_one_page(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = teach_lib(vault)
    assert held.status == PENDING
    # The same question on another page: refused while the first hold is open.
    other = teach_lib(vault, page=PAYMENTS, quote="The read timeout for Stripe calls is 10 seconds.")
    assert other.status == teach.NOT_TAUGHT
    assert f"already held as pending for {CODE_REVIEW} (pending {held.pending_id})" in other.reason
    monkeypatch.setattr(teach, "PAGE_CAP", 1)
    capped = teach_lib(vault, question="how many sign-offs before merging a pull request")
    assert capped.status == teach.NOT_TAUGHT and "the per-page cap is reached" in capped.reason
    assert "and 1 pending" in capped.reason
    config.config_path().parent.mkdir(parents=True, exist_ok=True)
    config.config_path().write_text("teach_daily_cap = 1\n", encoding="utf-8")
    daily = teach_lib(vault, question=SEARCH_Q, page=PAYMENTS)
    assert daily.status == teach.NOT_TAUGHT and "the daily cap is reached" in daily.reason
    # When the next fits, said (an agent-loop run stopped teaching, not knowing): 24 hours after the hold.
    [hold] = [h for h in pending.all_holds(vault) if h["pending"] == held.pending_id]
    frees = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(-(-(hold["time"] + 24 * 60 * 60) // 60) * 60))
    assert f"the next can be taught from {frees}, in 2" in daily.reason, daily.reason
    assert re.search(r", in 2[34] h \d+ min$", daily.reason), daily.reason


def test_krouter_teach_over_stdio_replies_pending_and_writes_nothing(vault: Path) -> None:
    before = snapshot(vault)
    params = server_params(vault)
    seen: dict[str, object] = {}

    async def session() -> None:
        with anyio.fail_after(60):
            async with Client(params, read_timeout_seconds=30) as client:
                tools = {t.name: t for t in (await client.list_tools()).tools}
                assert "pending_id" in (tools["krouter_teach"].output_schema or {})["properties"]
                res = await client.call_tool(
                    "krouter_teach", {"question": MERGE_Q, "path": CODE_REVIEW, "quote": GOOD_QUOTE}
                )
                assert not res.is_error and res.structured_content is not None
                seen.update(res.structured_content)
                seen["text"] = text_of(res)
                asked = await client.call_tool("krouter_ask", {"question": MERGE_Q})
                assert asked.structured_content is not None
                seen["decision"] = asked.structured_content["decision"]

    anyio.run(session)
    assert seen["status"] == "pending" and seen["run_id"] is None and seen["trigger"] is None
    assert str(seen["text"]).startswith("pending, nothing written") and seen["pending_id"]
    assert f"krouter learn --accept {seen['pending_id']}" in str(seen["text"])
    assert seen["decision"] == "refuse"
    assert snapshot(vault) == before
    assert [r["pending_id"] for r in listed(vault)] == [seen["pending_id"]]
    # The owner accepts it: written, and the next wording cites the page.
    code, out = cli(vault, "learn", "--accept", str(seen["pending_id"]))
    assert code == 0 and out.startswith(f"accepted pending {seen['pending_id']}: written"), out
    assert cites(vault, NEXT_WEEK) == CODE_REVIEW


def test_pending_agents_writes_the_nightly_pick_at_once_and_still_holds_an_agents(
    vault: Path, tmp_path: Path
) -> None:
    config.config_path().write_text('pending_triggers = "agents"\n', encoding="utf-8")
    log_weak(vault, MERGE_Q)
    report = nightly.learn(vault, picking({MERGE_Q: (CODE_REVIEW, GOOD_QUOTE)}))
    assert [o.status for o in report.outcomes] == [LEARNED], report.to_text()
    assert cites(vault, NEXT_WEEK) == CODE_REVIEW
    assert [r["pending"] for r in listed(vault)] == [False]
    other = write_vault(tmp_path / "other", PAGES)
    before = snapshot(other)
    assert teach_lib(other).status == PENDING
    assert snapshot(other) == before


def test_a_hold_left_open_is_closed_when_the_same_pick_is_written_another_way(vault: Path) -> None:
    held = teach_lib(vault)
    assert held.status == PENDING
    # The owner turns holding off; the agent teaches the same pick again and it is written at once.
    config.config_path().write_text('pending_triggers = "none"\n', encoding="utf-8")
    written = teach_lib(vault)
    assert written.taught, written.to_text()
    # The earlier hold of the same question and page is not left waiting for an accept that can only
    # say "already a trigger of the page".
    rows = listed(vault)
    assert [r["pending"] for r in rows] == [False], rows
    code, out = cli(vault, "learn", "--accept", str(held.pending_id))
    assert code == 1 and "was written already" in out, out


def test_a_duplicate_hold_is_closed_by_the_accept_of_its_twin(vault: Path) -> None:
    held = teach_lib(vault)
    assert held.pending_id
    # Two processes teaching at once can each append a hold of the same pick (no lock between them).
    path = pending.pending_path()
    twin = {**json.loads(path.read_text(encoding="utf-8").splitlines()[0]), "pending": "ptwin0001"}
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(twin) + "\n")
    code, out = cli(vault, "learn", "--accept", str(held.pending_id))
    assert code == 0, out
    assert [r["pending"] for r in listed(vault)] == [False]
    code, out = cli(vault, "learn", "--accept", "ptwin0001")
    assert code == 1 and "was written already" in out, out


@pytest.mark.parametrize(
    "by_hand",
    [MERGE_Q, "  ".join(MERGE_Q.upper().split()), MERGE_Q.replace(" ", " \u200b ", 1)],
    ids=["as-held", "other-spacing-and-case", "zero-width-space-between-spaces"],
)
def test_accepting_a_pick_already_on_the_page_closes_it_and_says_nothing_was_written(
    vault: Path, by_hand: str
) -> None:
    held = teach_lib(vault)
    page = vault / CODE_REVIEW
    # The owner wrote the trigger by hand meanwhile, maybe with other spacing or case: the router reads
    # it as the same trigger, so a second copy must not be written.
    page.write_text(
        PAGES[CODE_REVIEW].replace("tags: [process]", f'tags: [process]\ntriggers: ["{by_hand}"]')
    )
    edited = snapshot(vault)
    code, out = cli(vault, "learn", "--accept", str(held.pending_id))
    assert code == 3 and "already a trigger of the page" in out and "stays pending" not in out, out
    assert f"pending {held.pending_id} closed, nothing written" in out, out
    assert snapshot(vault) == edited and listed(vault) == []


def test_hand_edited_pending_lines_are_skipped_not_a_crash(vault: Path) -> None:
    held = teach_lib(vault)
    path = pending.pending_path()
    good = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    no_vault = {k: v for k, v in good.items() if k != "vault"} | {"pending": "pnovault1"}
    bad_time = good | {"pending": "pbadtime1", "time": "yesterday"}
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(no_vault) + "\n" + json.dumps(bad_time) + "\n{not json\n")
    code, out = cli(vault, "learn", "--list")
    assert code == 0 and "pbadtime1" in out and held.pending_id in out, out
    code, out = cli(vault, "learn", "--accept", "pnovault1")
    assert code == 1 and "no pending trigger 'pnovault1'" in out and str(path) in out, out
    assert path.read_text(encoding="utf-8").count("\n") == 4


def test_a_dry_run_says_the_nightly_pick_would_be_held_and_holds_nothing(vault: Path) -> None:
    before = snapshot(vault)
    log_weak(vault, MERGE_Q)
    report = nightly.learn(vault, picking({MERGE_Q: (CODE_REVIEW, GOOD_QUOTE)}), dry_run=True)
    [outcome] = report.outcomes
    # "proposed" would say that the real run writes it; with pending_triggers = "all" it holds it.
    assert outcome.status == PENDING and "dry run" in outcome.reason, report.to_text()
    assert snapshot(vault) == before and listed(vault) == []


def test_accept_with_dry_run_or_undo_is_a_usage_error_and_writes_nothing(vault: Path) -> None:
    held = teach_lib(vault)
    before = snapshot(vault)
    for extra in (["--dry-run"], ["--undo", "20261202T000000Z-abcdef"]):
        code, out = cli(vault, "learn", "--accept", str(held.pending_id), *extra)
        assert code == 2 and "--accept" in out, out
        code, out = cli(vault, "learn", "--reject", str(held.pending_id), *extra)
        assert code == 2 and "--reject" in out, out
    assert snapshot(vault) == before
    assert [r["pending_id"] for r in listed(vault) if r["pending"]] == [held.pending_id]


def test_accept_does_not_take_a_question_from_the_page_that_now_answers_it(vault: Path) -> None:
    held = teach_lib(vault)
    # Since the hold, the owner wrote a page that answers the question in its own words.
    (vault / "Runbooks/Merging.md").write_text(
        "---\ntitle: Release rules\n---\n# Release rules\n\nEvery merge needs two sign-offs.\n",
        encoding="utf-8",
    )
    assert cites(vault, MERGE_Q) == "Runbooks/Merging.md"
    before = snapshot(vault)
    code, out = cli(vault, "learn", "--accept", str(held.pending_id))
    assert code == 3 and "not written, it stays pending" in out, out
    assert snapshot(vault) == before and cites(vault, MERGE_Q) == "Runbooks/Merging.md"


def test_an_over_long_quote_is_refused_and_not_echoed_back(vault: Path) -> None:
    before = snapshot(vault)
    result = teach_lib(vault, quote="Merges need two approvals. " * 5000)
    assert result.status == teach.NOT_TAUGHT and result.reason.startswith(
        "the quote is 135000 characters long"
    )
    assert len(result.to_text()) < 300 and len(result.quote) <= teach.QUOTE_SHOWN + 1
    assert snapshot(vault) == before


def test_undoing_an_older_run_first_keeps_the_later_one_and_both_give_the_bytes_back(vault: Path) -> None:
    # A walkthrough: undoing the older of two runs on a page, then the newer, left the page with the
    # frontmatter list the runs had made of it. The page is rewound now: in either order, exact bytes.
    config.config_path().write_text('pending_triggers = "none"\n', encoding="utf-8")
    before = snapshot(vault)
    first = teach_lib(vault)
    second = teach_lib(
        vault,
        question="can authors sign off their own work",
        quote="The author cannot approve their own pull request.",
    )
    assert first.taught and second.taught, (first.reason, second.reason)
    report = learn_undo.undo(str(first.run_id))
    [outcome] = report.outcomes
    assert outcome.status == learn_undo.REWOUND, outcome.reason
    assert [o.status for o in learn_undo.undo(str(second.run_id)).outcomes] == [learn_undo.RESTORED]
    assert snapshot(vault) == before


def test_a_lesson_is_asked_again_on_the_written_page_whatever_another_watcher_says(vault: Path) -> None:
    # A walkthrough: two MCP servers teaching at once took back valid lessons as "would still not
    # cite": the re-ask's refresh trusted the other server's watcher (its lease still "clean"), which
    # had not seen this write yet. Here another process holds the lease, marked clean, and sees nothing.
    config.config_path().write_text('pending_triggers = "none"\n', encoding="utf-8")
    with Router(vault) as router:
        router.refresh()
        index_path = router.index.path
    code = (
        "import sys; from pathlib import Path; from krouter.ops.watch_lease import WatchLease; "
        "lease = WatchLease.acquire(Path(sys.argv[1])); lease.mark(dirty=False); print('ready', flush=True); "
        "sys.stdin.read()"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", code, str(index_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        result = teach_lib(vault)
        assert result.taught, result.reason
    finally:
        holder.communicate(timeout=30)


def test_an_agents_pick_the_nightly_model_confirmed_counts_towards_the_page_cap(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold review: the confirmed write is journaled under the nightly lane and the hold is closed,
    so neither counted, and agents put eight triggers on one page whose cap is three."""
    monkeypatch.setattr(teach, "PAGE_CAP", 1)
    assert teach_lib(vault).status == PENDING
    log_weak(vault, MERGE_Q)
    report = nightly.learn(vault, picking({MERGE_Q: (CODE_REVIEW, GOOD_QUOTE)}))
    assert [o.status for o in report.outcomes] == [LEARNED], report.to_text()
    capped = teach_lib(vault, question="can the author sign off on their own work")
    assert capped.status == teach.NOT_TAUGHT, capped.reason
    assert "already holds 1 triggers taught by agents and 0 pending" in capped.reason


RACING = [
    "How many sign-offs does a merge need?",
    "how many sign-offs before merging a pull request",
    "sign-off count for merging",
    "what sign-off count lets a merge land",
]


def _teach_at_once(vault: str, question: str, barrier: Barrier, out: Queue) -> None:
    """One agent process: it passes the caps' check, then waits for the others to pass theirs (or for
    the wait to time out, when a lock keeps them from the check) before it holds its pick."""
    check = teach._limits_problem

    def then_wait(*args: object) -> str | None:
        problem = check(*args)  # type: ignore[arg-type]
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(2)
        return problem

    teach._limits_problem = then_wait  # type: ignore[assignment]
    out.put(teach_lib(Path(vault), question=question).status)


def test_agents_teaching_at_once_from_several_processes_stay_within_the_page_cap(vault: Path) -> None:
    """A cold review: the caps were checked outside any lock, then the pick held, so six processes
    teaching one page at once each saw it under its cap of three, and all six were held."""
    with Router(vault) as router:
        router.refresh()
    ctx = multiprocessing.get_context("spawn")
    barrier, out = ctx.Barrier(len(RACING)), ctx.Queue()
    agents = [ctx.Process(target=_teach_at_once, args=(str(vault), q, barrier, out)) for q in RACING]
    for a in agents:
        a.start()
    for a in agents:
        a.join(timeout=120)
    statuses = [out.get(timeout=5) for _ in RACING]
    assert statuses.count(PENDING) == teach.PAGE_CAP, statuses
    assert len([h for h in pending.open_holds(vault) if h["page"] == CODE_REVIEW]) == teach.PAGE_CAP
