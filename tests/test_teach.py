"""Agents teach triggers (``krouter teach``, ``teach.teach``): checked like the nightly learner's picks,
written by the same edit, journaled, listed and undoable; anything that fails a check writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from learn_vault import (
    ARTICLE,
    CODE_REVIEW,
    GOOD_QUOTE,
    MERGE_Q,
    OLD,
    PAYMENTS,
    PRIMARY,
    write_vault,
)
from learn_vault import PAGES as LEARN_PAGES
from typer.testing import CliRunner

from krouter.cli import app
from krouter.learner import journal as learn_journal
from krouter.learner import pending, teach, trigger_writes
from krouter.learner.table_rows import is_table_row
from krouter.learner.trigger_writes import TAKEN_BACK
from krouter.routing.phrasings import MAX_PHRASING_CHARS, MAX_PHRASINGS
from krouter.routing.router import Router
from krouter.vault.page import parse_page

pytestmark = pytest.mark.usefixtures("teaching_writes_at_once")

CHINESE = "决策/主数据库.md"
ENGINE_Q = "Do all our apps share one cluster?"
ENGINE_ZH = "所有服务都用同一个集群吗？"
ZH_QUOTE = "所有服务都使用同一个主数据库集群。"

PAGES = {
    **LEARN_PAGES,
    CHINESE: "---\ntitle: 主数据库\n---\n# 主数据库\n\n我们在二〇二四年四月把主存储迁移到了 PostgreSQL 16。\n"
    "所有服务都使用同一个主数据库集群。\n",
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = write_vault(tmp_path / "vault", PAGES)
    (tmp_path / "outside.md").write_text("Every pull request needs two approvals before it can be merged.\n")
    return root


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def cli(vault: Path, *args: str) -> tuple[int, str]:
    res = CliRunner().invoke(app, [*args, "--vault", str(vault)])
    return res.exit_code, res.output


def teach_cli(vault: Path, question: str, page: str, quote: str, *also: str) -> tuple[int, str]:
    extra = [a for p in also for a in ("--also", p)]
    return cli(vault, "teach", question, "--page", page, "--quote", quote, *extra)


def decision(vault: Path, question: str) -> tuple[str, str | None]:
    with Router(vault) as router:
        r = router.decide(question)
    return r.decision, r.top.path if r.top else None


def test_taught_trigger_makes_the_next_wording_cite_and_undo_restores_bytes(vault: Path) -> None:
    next_week = "how many sign-offs does a merge need before it lands"
    assert decision(vault, MERGE_Q)[0] == "refuse"
    assert decision(vault, next_week)[0] == "refuse"
    before = snapshot(vault)
    code, out = teach_cli(vault, MERGE_Q, CODE_REVIEW, GOOD_QUOTE)
    assert code == 0, out
    run_id = out.split("(run ", 1)[1].split(";", 1)[0]
    assert f"added the trigger {MERGE_Q!r} to {CODE_REVIEW}" in out
    assert f"krouter learn --undo {run_id}" in out
    after = snapshot(vault)
    assert [k for k in after if after[k] != before[k]] == [CODE_REVIEW]
    assert parse_page(CODE_REVIEW, after[CODE_REVIEW].decode()).triggers == [MERGE_Q]
    assert decision(vault, next_week) == ("cite", CODE_REVIEW)

    # The journal and the list say who taught what, and when; the same run id undoes it.
    entry = learn_journal.journal_entries(run_id)[0]
    assert entry["lane"] == "agent" and entry["model"] == "cli" and entry["quote"] == GOOD_QUOTE
    code, listed = cli(vault, "learn", "--list")
    assert code == 0 and run_id in listed and "agent" in listed and CODE_REVIEW in listed
    assert "undone" not in listed
    res = CliRunner().invoke(app, ["learn", "--undo", run_id])
    assert res.exit_code == 0, res.output
    assert snapshot(vault) == before
    code, listed = cli(vault, "learn", "--list", "--json")
    rows = json.loads(listed)
    assert [(r["run_id"], r["taught_by"], r["undone"]) for r in rows] == [(run_id, "agent", True)]


def test_english_question_about_a_chinese_page_is_taught_through_a_chinese_phrasing(vault: Path) -> None:
    assert decision(vault, ENGINE_Q)[0] == "refuse"
    with Router(vault) as router:
        result = teach.teach(router, ENGINE_Q, CHINESE, ZH_QUOTE, [ENGINE_ZH])
    assert result.taught, result.reason
    assert result.trigger == ENGINE_Q and result.phrasings == [ENGINE_ZH]
    assert decision(vault, "do all the apps share a single cluster") == ("cite", CHINESE)
    # Without the phrasing, the Chinese page is not even a candidate of the English question.
    with Router(vault) as router:
        again = teach.teach(router, "Which engine keeps our records?", CHINESE, ZH_QUOTE)
    assert not again.taught and "not one of this question's candidates" in again.reason
    # The agent is told what it left out: an agent-loop run spent two calls finding that teach takes
    # the phrasing that found the page.
    assert "if a phrasing of the question found it, give that phrasing too" in again.reason
    assert "reached it another way (a link), give a rewording" in again.reason
    # 'payments' is the payments page's title word, which the Chinese page lacks as written and through
    # the dictionary: a neighbour's word. ('database' is no such word: the page holds it as 数据库, D55.)
    with Router(vault) as router:
        named = teach.teach(
            router,
            "Which cluster do the payments timeouts run on?",
            CHINESE,
            ZH_QUOTE,
            ["支付超时用哪个集群"],
        )
    assert (
        not named.taught
        and named.for_owner
        and f"names another page ({PAYMENTS}, its title 'Payments API timeouts')" in named.reason
    )
    # Said as a doubt, not as a verdict on the agent's answer (agent-loop runs).
    assert named.reason.endswith("a neighbour page's mark, or an everyday word that page's name holds")


@pytest.mark.parametrize(
    ("question", "page", "quote", "phrasings", "reason"),
    [
        (MERGE_Q, CODE_REVIEW, "Merges need three sign-offs from the whole team.", [], "not on the page"),
        (MERGE_Q, CODE_REVIEW, "can be merged", [], "fragment"),
        (MERGE_Q, OLD, "merges need one approval", [], "replaced"),
        (MERGE_Q, "../outside.md", GOOD_QUOTE, [], "leaves the vault"),
        (MERGE_Q, str(Path("/etc/passwd")), GOOD_QUOTE, [], "not a vault-relative path"),
        (MERGE_Q, ARTICLE, "a merge should need at most one sign-off, says this article.", [], "clippings"),
        (MERGE_Q, "Runbooks/Nope.md", GOOD_QUOTE, [], "no page"),
        (
            MERGE_Q,
            CODE_REVIEW,
            "The author cannot approve their own pull request.",
            [],
            "shares no content word with the question: if the question is worded unlike the page, teach "
            "again with a rewording in the page's own words as a phrasing (--also; MCP: phrasings)",
        ),
        (
            "When did we migrate the main store to PostgreSQL?",
            PRIMARY,
            "We migrated the main store to PostgreSQL 16 in April 2024.",
            [],
            "already cites",
        ),
        ("x" * 201, CODE_REVIEW, GOOD_QUOTE, [], "too long for a trigger"),
    ],
    ids=[
        "quote-not-on-page",
        "fragment",
        "replaced-page",
        "outside-vault",
        "absolute-path",
        "clipping",
        "no-such-page",
        "no-shared-word",
        "already-cited",
        "too-long",
    ],
)
def test_a_pick_that_fails_a_check_writes_nothing_and_says_why(
    vault: Path, question: str, page: str, quote: str, phrasings: list[str], reason: str
) -> None:
    before = snapshot(vault.parent)
    code, out = teach_cli(vault, question, page, quote, *phrasings)
    assert code == 3, out
    assert out.startswith("not taught, nothing written:") and reason in out, out
    assert snapshot(vault.parent) == before
    assert learn_journal.journal_entries() == []


def test_an_agent_disputing_a_citation_is_held_for_the_owner(vault: Path) -> None:
    """An agent-loop run: KRouter cited the wrong office's page at a strong margin, the agent found the
    answer on another page, and teach could only say "KRouter already cites". The pick now waits for
    the owner, nothing written; accepted, it is written only if the question then cites the page."""
    question = "When did we migrate the main store to PostgreSQL?"
    quote = "我们在二〇二四年四月把主存储迁移到了 PostgreSQL 16。"
    assert decision(vault, question) == ("cite", PRIMARY)
    before = snapshot(vault)
    with Router(vault) as router:
        result = teach.teach(router, question, CHINESE, quote, ["我们什么时候把主存储迁移到了 PostgreSQL?"])
        assert result.status == teach.PENDING and result.for_owner, result.reason
        assert f"KRouter cites {PRIMARY} for this question; only the owner can make it cite {CHINESE}" in (
            result.reason
        )
        assert snapshot(vault) == before
        # Both pages say it: the trigger would not move the citation, so the owner's accept takes it back.
        status, reason, run_id = pending.accept(router, str(result.pending_id))
    assert status == TAKEN_BACK and run_id is None and "would still not cite" in reason
    assert snapshot(vault) == before
    assert decision(vault, question) == ("cite", PRIMARY)
    # The JSON says what the text says: an agent-loop run read a held pick's doubt in ``reason`` as a
    # rejection beside "status": "pending".
    _code, out = cli(
        vault,
        "teach",
        question,
        "--page",
        CHINESE,
        "--quote",
        quote,
        "--also",
        "我们什么时候把主存储迁移到了 PostgreSQL?",
        "--json",
    )
    reply = json.loads(out)
    assert reply["status"] == "pending" and reply["for_owner"], out
    assert reply["message"].startswith(f"pending, nothing written: {CHINESE} is held for the owner alone"), (
        out
    )


def test_caps_and_duplicates(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stripe_quote = "The read timeout for Stripe calls is 10 seconds."
    code, out = teach_cli(vault, "What is the Stripe deadline?", PAYMENTS, stripe_quote)
    assert code == 0, out
    # The same question again: the router now cites the page, so there is nothing to teach.
    code, out = teach_cli(vault, "What is the Stripe deadline?", PAYMENTS, stripe_quote)
    assert code == 3 and "already cites" in out
    before = snapshot(vault)
    monkeypatch.setattr(teach, "PAGE_CAP", 1)
    code, out = teach_cli(vault, "How many seconds do we wait for Stripe?", PAYMENTS, stripe_quote)
    assert code == 3 and "per-page cap" in out, out
    assert CliRunner().invoke(app, ["config", "set", "teach_daily_cap", "1"]).exit_code == 0
    code, out = teach_cli(vault, MERGE_Q, CODE_REVIEW, GOOD_QUOTE)
    assert code == 3 and "daily cap" in out and "(at most 1, a limit the vault's owner sets)" in out, out
    assert snapshot(vault) == before
    # Undoing gives the page its room back, but not the day's budget.
    run_id = learn_journal.journal_entries()[0]["run_id"]
    assert CliRunner().invoke(app, ["learn", "--undo", str(run_id)]).exit_code == 0
    assert CliRunner().invoke(app, ["config", "set", "teach_daily_cap", "2"]).exit_code == 0
    code, out = teach_cli(vault, "How many seconds do we wait for Stripe?", PAYMENTS, stripe_quote)
    assert code == 0, out
    code, out = teach_cli(vault, MERGE_Q, CODE_REVIEW, GOOD_QUOTE)
    assert code == 3 and "daily cap" in out, out


def test_a_question_is_taught_to_one_page_only(vault: Path) -> None:
    q = "How many seconds do we wait for an API?"
    with Router(vault) as router:
        first = teach.teach(router, q, PAYMENTS, "The read timeout for Stripe calls is 10 seconds.")
    assert first.taught, first.reason
    before = snapshot(vault)
    # A floor no answer reaches: the router refuses the question again, so only the journal says no.
    with Router(vault, floor=1.01) as router:
        second = teach.teach(
            router,
            q,
            "Runbooks/Email API timeouts.md",
            "The Postmark API timeout is 5 seconds for all calls.",
        )
    assert not second.taught
    assert f"already a trigger of {PAYMENTS}" in second.reason, second.reason
    assert snapshot(vault) == before


def test_teaching_can_be_turned_off_in_config(vault: Path) -> None:
    from krouter import config

    config.config_path().write_text("agent_teaching = false\n", encoding="utf-8")
    before = snapshot(vault)
    code, out = teach_cli(vault, MERGE_Q, CODE_REVIEW, GOOD_QUOTE)
    assert code == 3 and "agent_teaching = false" in out
    assert snapshot(vault) == before
    config.config_path().write_text("agent_teaching = 'no'\n", encoding="utf-8")
    code, out = teach_cli(vault, MERGE_Q, CODE_REVIEW, GOOD_QUOTE)
    assert code == 1 and "agent_teaching" in out


def test_phrasings_over_the_bounds_are_a_usage_error(vault: Path) -> None:
    before = snapshot(vault)
    code, out = teach_cli(
        vault, MERGE_Q, CODE_REVIEW, GOOD_QUOTE, *[f"phrasing {n}" for n in range(MAX_PHRASINGS + 1)]
    )
    assert code == 2 and f"at most {MAX_PHRASINGS}" in out
    code, out = teach_cli(vault, MERGE_Q, CODE_REVIEW, GOOD_QUOTE, "y" * (MAX_PHRASING_CHARS + 1))
    assert code == 2 and f"at most {MAX_PHRASING_CHARS}" in out
    assert snapshot(vault) == before


def test_teach_refuses_the_demo_vault_when_none_is_named() -> None:
    res = CliRunner().invoke(app, ["teach", MERGE_Q, "--page", CODE_REVIEW, "--quote", GOOD_QUOTE])
    assert res.exit_code == 2 and "--vault" in res.output


def test_a_refusal_names_the_closest_pages_with_their_lines(vault: Path) -> None:
    res = CliRunner().invoke(app, ["ask", MERGE_Q, "--vault", str(vault)])
    assert res.exit_code == 3
    closest = [line for line in res.output.splitlines() if "closest:" in line or "also close:" in line]
    assert len(closest) >= 2 and all("line " in line for line in closest), res.output


def _pages(root: Path, pages: dict[str, str]) -> Path:
    for rel, text in pages.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


SHIPPING = "---\ntitle: Shipping carriers\n---\n# Shipping carriers\n\nDomestic orders ship with SF Express, 12 yuan per parcel.\n"
COST_Q = "how much does a domestic parcel cost to send"
COST_QUOTE = "Domestic orders ship with SF Express, 12 yuan per parcel."
EXPENSES = (
    "---\ntitle: 报销流程\naliases: [费用报销]\n---\n# 报销流程\n\n在飞书审批里提交费用报销，附上发票照片。\n"
)


def test_a_word_naming_another_page_through_the_dictionary_waits_for_the_owner(tmp_path: Path) -> None:
    """A walkthrough's teach said "taught" while the question still refused: 'cost' reaches the other
    page's alias 费用报销 through the dictionary, and the decision did not count the trigger. Such a word
    is as often everyday vocabulary as a neighbour's mark (D130): the pick waits for the owner, and once
    accepted the question cites the page; a wording that holds only part of the trigger does not."""
    root = _pages(tmp_path / "v", {"Shipping.md": SHIPPING, "报销流程.md": EXPENSES})
    before = snapshot(root)
    code, out = cli(root, "teach", COST_Q, "--page", "Shipping.md", "--quote", COST_QUOTE, "--json")
    reply = json.loads(out)
    assert code == 3 and reply["status"] == "pending" and reply["for_owner"], out
    assert (
        "it lacks 'cost→费用', which names another page (报销流程.md, its alias '费用报销')"
        in reply["reason"]
    )
    assert snapshot(root) == before
    code, out = cli(root, "learn", "--accept", reply["pending_id"])
    assert code == 0, out
    assert decision(root, COST_Q) == ("cite", "Shipping.md")
    assert decision(root, "what does it cost to send a parcel") != ("cite", "Shipping.md")


def test_a_word_the_page_holds_through_an_abbreviation_is_not_lacking(tmp_path: Path) -> None:
    """The demo vault's "how far back can we restore the db" on the Database backups page was refused
    ("it lacks 'db', which names another page") because another page's alias says "main DB": the page
    holds the word as db→database, as the decision sees it."""
    root = _pages(
        tmp_path / "v",
        {
            "Runbooks/Database backups.md": "---\ntitle: Database backups\n---\n# Database backups\n\n"
            "WAL archiving is on, so we can restore to any point in the last 7 days.\n",
            "Decisions/Primary database.md": "---\ntitle: Primary database\naliases: [main DB]\n---\n"
            "# Primary database\n\nWe run PostgreSQL 16 on a managed instance.\n",
        },
    )
    quote = "WAL archiving is on, so we can restore to any point in the last 7 days."
    code, out = teach_cli(root, "how far back can we restore the db", "Runbooks/Database backups.md", quote)
    assert code == 0, out
    assert decision(root, "how far back can we restore the db") == ("cite", "Runbooks/Database backups.md")


def test_words_of_a_route_scattered_over_a_page_do_not_hold_it(tmp_path: Path) -> None:
    """PR → pull request: a webhook page saying "pulls" in one paragraph and "request" in another does
    not hold "PR", and a pull-request question is not taught onto it (it was, after D55)."""
    root = _pages(
        tmp_path / "v",
        {
            "Process/PR checklist.md": "---\ntitle: PR checklist\n---\n# PR checklist\n\n"
            "Every PR needs one approval and a green CI run before it is merged.\n",
            "Runbooks/Webhook worker.md": "---\ntitle: Webhook worker\n---\n# Webhook worker\n\n"
            "The worker pulls events from the queue every minute.\n\n"
            "Each outgoing request times out after 30 seconds and is retried three times.\n",
            "Notes/Lunch.md": "# Lunch\n\nWe order from the noodle place on Fridays.\n",
        },
    )
    before = snapshot(root)
    quote = "Each outgoing request times out after 30 seconds and is retried three times."
    code, out = teach_cli(
        root, "is a PR retried after a failed approval", "Runbooks/Webhook worker.md", quote
    )
    assert code == 3, out
    assert (
        "pending, nothing written:" in out
        and "it lacks 'pr', which names another page (Process/PR checklist.md, its title 'PR checklist')"
        in out
    ), out
    assert snapshot(root) == before


JAN = "---\ntitle: Jan Novak\n---\n# Jan Novak\n\nJan sends the weekly status email to the whole team on Fridays.\n"
JAN_QUOTE = "Jan sends the weekly status email to the whole team on Fridays."
EMAIL_Q = "what is Jan's email address"


def test_a_trigger_that_does_not_make_the_question_cite_is_taken_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check after writing, for what the rules before it cannot foresee: asked again, the question
    must cite the page, or the trigger is taken back and the reply says so (nothing kept). Here the page
    states no email address, which the decision asks of an email question (D114)."""
    root = _pages(tmp_path / "v", {"People/Jan Novak.md": JAN, "Lunch.md": "# Lunch\n\nPizza on Fridays.\n"})
    monkeypatch.setattr(teach, "PAGE_CAP", 1)
    before = snapshot(root)
    code, out = cli(root, "teach", EMAIL_Q, "--page", "People/Jan Novak.md", "--quote", JAN_QUOTE, "--json")
    reply = json.loads(out)
    assert code == 3 and reply["status"] == "not-taught" and reply["run_id"] is None, out
    assert "would still not cite People/Jan Novak.md" in reply["reason"] and reply["withdrawn_run"]
    assert snapshot(root) == before
    rows = json.loads(cli(root, "learn", "--list", "--json")[1])
    assert [(r["run_id"], r["undone"]) for r in rows] == [(reply["withdrawn_run"], True)]
    # Taken back, it holds none of the page's room.
    code, out = teach_cli(root, "who sends the weekly status update", "People/Jan Novak.md", JAN_QUOTE)
    assert code == 0, out


def test_a_page_edited_while_a_trigger_is_taken_back_is_not_reported_as_taught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold review: an editor's save between the write and the take-back made the reply say "taught"
    while the trigger was gone."""
    root = _pages(tmp_path / "v", {"People/Jan Novak.md": JAN, "Lunch.md": "# Lunch\n\nPizza on Fridays.\n"})
    write = trigger_writes.write_trigger

    def write_then_edit(*args: object, **kwargs: object) -> tuple[str, str]:
        out = write(*args, **kwargs)  # type: ignore[arg-type]
        with (root / "People/Jan Novak.md").open("a", encoding="utf-8") as fh:
            fh.write("Saved by an editor.\n")
        return out

    monkeypatch.setattr(trigger_writes, "write_trigger", write_then_edit)
    code, out = teach_cli(root, EMAIL_Q, "People/Jan Novak.md", JAN_QUOTE)
    assert code == 3 and out.startswith("not taught, nothing kept:"), out
    assert (root / "People/Jan Novak.md").read_text(encoding="utf-8") == JAN + "Saved by an editor.\n"


def test_a_single_character_of_another_pages_name_is_reported_as_part_of_that_name(tmp_path: Path) -> None:
    """充满电要多久 was refused "for 电, which names another page": 电 is only a character of the alias
    电池供应商. Still refused on a page written in Chinese that lacks it (the learner bench measured the
    cost of letting it pass), but said as it is; on a page that writes no Han character (reached through
    the agent's translation) a lone character names no neighbour (an agent-loop run, dev8)."""
    root = _pages(
        tmp_path / "v",
        {
            "Spec.md": "---\ntitle: Product spec\n---\nCharging: USB-C, full charge in 2.5 hours.\n",
            "规格.md": "---\ntitle: 产品规格\n---\n接口 USB-C，两个半小时充满。\n",
            "Battery.md": "---\ntitle: Battery supplier\naliases: [电池供应商]\n---\n"
            "We buy the 2000 mAh cell from Grepow.\n",
        },
    )
    code, out = teach_cli(root, "充满电要多久", "规格.md", "接口 USB-C，两个半小时充满。")
    assert code == 3, out
    assert "'电', which is part of what another page is called (Battery.md, its alias '电池供应商')" in out
    code, out = teach_cli(
        root,
        "充满电要多久",
        "Spec.md",
        "Charging: USB-C, full charge in 2.5 hours.",
        "how long is a full charge",
    )
    assert "'电'" not in out, out


@pytest.mark.parametrize("question", ["？？？", "the of a", "what is it"])
def test_a_question_with_nothing_to_look_up_is_a_usage_error_and_writes_nothing(
    vault: Path, question: str
) -> None:
    """A cold review: teach took "？？？" through the checks, wrote it onto the page and took it back."""
    before = snapshot(vault)
    code, out = teach_cli(vault, question, CODE_REVIEW, GOOD_QUOTE, "how many approvals does a merge need")
    assert code == 2, out
    assert "nothing to look up" in out or "no words to look up" in out or "no content words" in out, out
    assert snapshot(vault) == before
    assert learn_journal.journal_entries() == []


def test_undo_of_an_older_run_on_a_page_taught_again_since_keeps_the_newer_trigger(vault: Path) -> None:
    """A cold review: undoing the older of two runs on one page was left alone, exit 1."""
    before = (vault / PAYMENTS).read_bytes()
    stripe_quote = "The read timeout for Stripe calls is 10 seconds."
    code, first = teach_cli(vault, "What is the Stripe deadline?", PAYMENTS, stripe_quote)
    assert code == 0, first
    code, second = teach_cli(vault, "How many seconds do we wait for Stripe?", PAYMENTS, stripe_quote)
    assert code == 0, second
    older = first.split("(run ", 1)[1].split(";", 1)[0]
    res = CliRunner().invoke(app, ["learn", "--undo", older])
    assert res.exit_code == 0, res.output
    text = (vault / PAYMENTS).read_text(encoding="utf-8")
    assert parse_page(PAYMENTS, text).triggers == ["How many seconds do we wait for Stripe?"]
    newer = second.split("(run ", 1)[1].split(";", 1)[0]
    assert CliRunner().invoke(app, ["learn", "--undo", newer]).exit_code == 0
    assert (vault / PAYMENTS).read_bytes() == before


def test_undo_of_a_trigger_already_gone_says_so_and_succeeds(vault: Path) -> None:
    code, out = teach_cli(vault, MERGE_Q, CODE_REVIEW, GOOD_QUOTE)
    assert code == 0, out
    run_id = out.split("(run ", 1)[1].split(";", 1)[0]
    page = vault / CODE_REVIEW
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace(f"  - {json.dumps(MERGE_Q)}\n", "") + "Edited.\n", encoding="utf-8")
    edited = page.read_bytes()
    res = CliRunner().invoke(app, ["learn", "--undo", run_id])
    assert res.exit_code == 0, res.output
    assert "no longer on the page" in res.output
    assert page.read_bytes() == edited


def test_a_page_in_an_inputs_folder_named_in_another_unicode_form_is_not_written(tmp_path: Path) -> None:
    """A cold review: config named "Entrées" (NFC), the folder on disk was NFD, and teach wrote the page."""
    import unicodedata

    from krouter import config

    folder = unicodedata.normalize("NFD", "Entrées")
    article = f"{folder}/Article on approvals.md"
    root = write_vault(tmp_path / "vault", {**LEARN_PAGES, article: LEARN_PAGES[ARTICLE]})
    config.config_path().write_text(
        'pending_triggers = "none"\ninput_folders = ["Entrées", "Inputs"]\n', encoding="utf-8"
    )
    before = snapshot(root)
    code, out = teach_cli(
        root, MERGE_Q, article, "a merge should need at most one sign-off, says this article."
    )
    assert code == 3, out
    assert "inputs or clippings folder" in out, out
    assert snapshot(root) == before


def test_a_lesson_for_a_price_asked_must_quote_an_amount(tmp_path: Path) -> None:
    """多少钱 asks for an amount (D93): a quote that names the thing but states no price does not show
    the page answers, whoever teaches it; the sentence that states the price does."""
    root = write_vault(
        tmp_path / "vault",
        {
            "会员.md": "---\ntitle: 会员\n---\n# 会员\n\n年度会员可以看全部课程。\n\n年度会员每年 ¥168，自动续费。\n",
            "值班.md": "# 值班\n\n每人值班一周。\n",
        },
    )
    question = "包年的会员得掏多少钱？"
    with Router(root) as router:
        unpriced = teach.teach(router, question, "会员.md", "年度会员可以看全部课程。")
        priced = teach.teach(router, question, "会员.md", "年度会员每年 ¥168，自动续费。")
    assert not unpriced.taught and unpriced.reason.startswith("the question asks a price, and no sentence")
    assert "price" not in priced.reason and priced.status != unpriced.status, (priced.status, priced.reason)


def test_a_price_lesson_whose_amount_prices_another_thing_is_refused(tmp_path: Path) -> None:
    """A cold review's careless lesson: a quote running over two sentences, the thing asked about in one
    and another thing's price in the next, passed the amount check and, once taught, made the question
    cite a page that never prices it. The amount must sit in a sentence holding the question's words."""
    root = write_vault(
        tmp_path / "vault",
        {
            "Ruixin.md": "# 瑞芯\n\n瑞芯的灯板和驱动板都有现货。\n\n驱动板每片 ¥21.5，量大可议。\n",
            "值班.md": "# 值班\n\n每人值班一周。\n",
        },
    )
    with Router(root) as router:
        result = teach.teach(
            router, "瑞芯灯板多少钱", "Ruixin.md", "瑞芯的灯板和驱动板都有现货。 驱动板每片 ¥21.5，量大可议。"
        )
    assert not result.taught and result.reason.startswith("the question asks a price, and no sentence"), (
        result
    )


def test_a_path_longer_than_any_page_s_is_refused_and_neither_logged_nor_echoed_whole(vault: Path) -> None:
    """A cold review: krouter_teach's path had no bound, and every refused call wrote it, several times
    over, to the never-rotated learn log and echoed it back (5 calls of a 5 MB path: a 75 MB log)."""
    long_path = "Runbooks/" + "p" * 100_000 + ".md"
    with Router(vault) as router:
        result = teach.teach(router, MERGE_Q, long_path, GOOD_QUOTE)
    assert result.status == teach.NOT_TAUGHT
    assert result.reason == f"the path is {len(long_path)} characters long; at most 1024"
    assert len(json.dumps(result.to_dict())) < 2_000
    assert learn_journal.outcomes_path().stat().st_size < 4_000


def test_a_quote_shares_a_korean_or_katakana_word_it_holds_by_its_bigrams() -> None:
    """A Korean word of three syllables, and a katakana word, are one unit of the question, but a quote
    indexes them as bigrams: the check that the quote shares a content word never saw them."""
    from krouter.learner.shared_words import shared_words

    assert shared_words("결제 서버의 타임아웃은 30초입니다.", "결제 서버 타임아웃 몇 초?") == [
        "결제",
        "서버",
        "타임아웃",
    ]
    assert "サーバー" in shared_words("サーバーの再起動は毎週月曜日です。", "サーバーはいつ再起動しますか")
    assert shared_words("로그 서버의 포트는 5140입니다.", "타임아웃은?") == []
    # A compound the quote writes apart is shared, cut as the router cuts it (the late review).
    assert shared_words("인증 서버 재시작은 매주 화요일 새벽에 합니다.", "인증서버 재부팅 담당자는?") == [
        "인증서버"
    ]


def test_a_table_row_shares_a_word_the_question_writes_inside_a_longer_one(tmp_path: Path) -> None:
    """The agent-loop run (D8-10): jieba keeps 付款条件 whole, and the row "| 付款 | 月结 60 天 |" that
    answers "华南包材的付款条件是什么" was refused as sharing no content word with it."""
    page = "---\ntitle: 华南包材\n---\n# 华南包材\n\n| 项目 | 内容 |\n|---|---|\n| 付款 | 月结 60 天 |\n| 交期 | 下单后 7 天 |\n"
    root = write_vault(
        tmp_path / "vault", {"Suppliers/华南包材.md": page, "值班.md": "# 值班\n\n每人值班一周。\n"}
    )
    with Router(root) as router:
        result = teach.teach(
            router, "华南包材的付款条件是什么", "Suppliers/华南包材.md", "| 付款 | 月结 60 天 |"
        )
    assert "shares no content word" not in result.reason, result.reason
    assert result.status in {teach.PENDING, teach.TAUGHT}, (result.status, result.reason)


def test_an_english_price_lesson_may_quote_a_won_amount_or_a_fee_tables_row(tmp_path: Path) -> None:
    """An agent-loop run (D135): "How much do we pay Solapi per SMS and per LMS?" taught with the row
    "단가(VAT 별도): 알림톡 7.5원, SMS 13원, LMS 29원" was refused for stating no amount; so would a
    table's row under a "Fee (USD)" header be."""
    root = write_vault(
        tmp_path / "vault",
        {
            "공급업체/솔라피.md": "---\ntitle: 솔라피\naliases: [Solapi]\n---\n# 솔라피\n\n문자 발송 대행사.\n\n"
            "단가(VAT 별도): 알림톡 7.5원, SMS 13원, LMS 29원\n",
            "Certs.md": "# Certs\n\n| Item | Fee (USD) |\n|---|---|\n| Matter cert lab test | 9,500 |\n",
            "값.md": "# 당직\n\n당직은 일주일씩 돌아간다.\n",
        },
    )
    with Router(root) as router:
        won = teach.teach(
            router,
            "How much do we pay Solapi per SMS and per LMS?",
            "공급업체/솔라피.md",
            "단가(VAT 별도): 알림톡 7.5원, SMS 13원, LMS 29원",
        )
        row = teach.teach(
            router,
            "what's the fee for the Matter cert lab test?",
            "Certs.md",
            "| Matter cert lab test | 9,500 |",
        )
    assert "asks a price" not in won.reason, won.reason
    assert "asks a price" not in row.reason, row.reason


def test_a_taught_trigger_does_not_answer_a_sibling_question_naming_another_page(tmp_path: Path) -> None:
    """A cold review: an honest lesson ("who tunes the zinc gadget on Tuesdays" on the zinc page) made
    "who tunes the argon gadget on Tuesdays", refused before, cite the zinc page with 'argon' missing."""
    from krouter import config

    config.config_path().write_text('pending_triggers = "none"\n', encoding="utf-8")
    root = write_vault(
        tmp_path / "vault",
        {
            "Fmt/zinc.md": "# zinc\n\nThe zinc widget in the lab is calibrated every Tuesday by Omar.\n",
            "Fmt/argon.md": "# argon\n\nThe argon widget in the lab is calibrated every Tuesday by Omar.\n",
            "Lunch.md": "# Lunch\n\nPizza on Fridays.\n",
        },
    )
    sibling = "who tunes the argon gadget on Tuesdays"
    with Router(root) as router:
        assert router.decide(sibling).decision == "refuse"
        result = teach.teach(
            router,
            "who tunes the zinc gadget on Tuesdays",
            "Fmt/zinc.md",
            "The zinc widget in the lab is calibrated every Tuesday by Omar.",
        )
    assert result.taught, result.to_text()
    with Router(root) as router:
        taught = router.decide("who tunes the zinc gadget on Tuesdays")
        after = router.decide(sibling)
    assert taught.decision == "cite" and taught.top is not None and taught.top.path == "Fmt/zinc.md"
    assert after.decision == "refuse", after.to_text()


@pytest.mark.parametrize(
    ("quote", "on_page"),
    [
        ("The espresso machine in the kitchen is descaled every Friday by Priya.", True),
        ("See the manual for details.", True),  # a link by its label, as a reader sees it
        ("See [the manual](https://example.com/rancilio-manual-salary-bonus) for details.", True),
        ("Backups are covered by [[Runbooks/Database backups]].", True),  # copied from the source
        ("descaled every Friday by Priya. Use the blue descaler", True),
        ("主数据库使用 PostgreSQL 15", True),
        ("spresso machine in the kitchen is descaled", False),  # a word cut at the start
        ("machine in the kitchen is descaled every Fri", False),  # and at the end
        ("https://example.com/rancilio-manual-salary-bonus", False),  # a link's target
        ("<!-- The coffee grinder secret", False),  # a comment
        ("The coffee grinder secret is 1234", False),
        ("Espresso machine The espresso machine in the kitchen", False),  # a heading run into its text
    ],
)
def test_a_quote_is_words_a_reader_of_the_page_sees(quote: str, on_page: bool) -> None:
    """A cold review: any run of characters of the page's source passed as the quote: a cut word, a
    link's target, the start of an HTML comment, a heading joined to the paragraph under it."""
    from krouter.learner.quotes import quote_on_page

    body = (
        "# Espresso machine\n\n"
        "The espresso machine in the kitchen is descaled every Friday by Priya. Use the blue descaler.\n"
        "See [the manual](https://example.com/rancilio-manual-salary-bonus) for details.\n"
        "<!-- The coffee grinder secret is 1234 -->\n"
        "Backups are covered by [[Runbooks/Database backups]].\n"
        "主数据库使用 PostgreSQL 15，部署在华东 2 区。\n"
    )
    assert quote_on_page(quote, body) is on_page


@pytest.mark.parametrize(
    ("quote", "page", "on_page"),
    [
        # A bug hunt: a Chinese sentence copied with "." or "！" for its 。, or with spaces between its
        # words, is the page's sentence; other words are not.
        (
            "主数据库使用 PostgreSQL 15，部署在华东 2 区.",
            "主数据库使用 PostgreSQL 15，部署在华东 2 区。",
            True,
        ),
        (
            "主数据库 使用PostgreSQL 15， 部署在 华东2区。",
            "主数据库使用 PostgreSQL 15，部署在华东 2 区。",
            True,
        ),
        (
            "主数据库使用 PostgreSQL 15，部署在华东 2 区！",
            "主数据库使用 PostgreSQL 15，部署在华东 2 区。",
            True,
        ),
        (
            "主数据库使用 PostgreSQL 15，部署在华东 3 区。",
            "主数据库使用 PostgreSQL 15，部署在华东 2 区。",
            False,
        ),
        # A cold review of that: no decimal the page never wrote, no question turned into a statement,
        # no sentence ended where the page's runs on, no number cut in two.
        ("每人限购3.5月起改为4件", "每人限购3。5月起改为4件。", False),
        ("Deploys are frozen on Fridays.", "Deploys are frozen on Fridays?", False),
        ("Deploys are frozen on Fridays.", "Deploys are frozen on Fridays and weekends.", False),
        ("The limit is 30.", "The limit is 30,000 kg per parcel.", False),
        ("The limit is 30", "The limit is 30,000 kg per parcel.", False),
        ("5 kg per parcel.", "The limit is 3.5 kg per parcel.", False),
        ("The limit is 30,000 kg per parcel!", "The limit is 30,000 kg per parcel.", True),
        ("Wait for the next release...", "Wait for the next release... then ship.", True),
    ],
)
def test_a_quote_may_change_its_closing_mark_and_spacing_not_its_words(
    quote: str, page: str, on_page: bool
) -> None:
    from krouter.learner.quotes import quote_on_page

    assert quote_on_page(quote, f"# Page\n\n{page}\n") is on_page


def test_a_quote_with_another_closing_mark_has_its_heading_and_passage() -> None:
    """A cold review: the on-page check took "…上线！" for the page's "…上线。", but the heading and the
    passage checks did not, so the teach check then said the quote shared no word with the question."""
    from krouter.learner.quotes import same_passage, section_heading

    body = "## 发布窗口\n\n每周二、周四 14:00–17:00 可以上线。\n"
    assert section_heading("每周二、周四 14:00–17:00 可以上线！", body) == "发布窗口"
    assert same_passage("每周二、周四 14:00–17:00 可以上线。", "每周二、周四 14:00–17:00 可以上线！", body)


@pytest.mark.parametrize(
    ("quote", "on_page"),
    [
        ("Every pull request needs two approvals before it's merged.", True),  # the page writes it’s
        ("The author can’t approve their own pull request.", True),  # the page writes can't
        ('Reviews are "blocking" - nothing merges without one.', True),  # “blocking” and an em dash
        ("Hotfixes need one approval - from an on-call lead.", True),  # the page writes "--"
        ("Stale branches are deleted after 30 days.", True),  # __30 days__ and a footnote marker
        ("Release notes are written by the author.", True),  # ==highlighted==
        ("The merge queue is drained every night at 02:00 UTC.", True),  # a quote over two lines
        ("Deploys are frozen on Fridays.", True),  # a callout's line
        ("The max_retries setting is 3.", True),  # an underscore inside a name stays
        ("The maxretries setting is 3.", False),
        ("Every merge needs the CTO's sign-off.", False),  # struck out: no longer true
    ],
)
def test_a_quote_matches_through_typography_and_marks_a_reader_does_not_see(
    quote: str, on_page: bool
) -> None:
    """A cold review: true answers were refused for good over a curly apostrophe, an em dash, _emphasis_,
    ==highlight==, a footnote marker or a quote running over two lines; struck-out text was accepted."""
    from krouter.learner.quotes import quote_on_page

    body = (
        "# Code review\n\n"
        "Every pull request needs two approvals before it’s merged.\n"
        "The author can't approve their own pull request.\n"
        "Reviews are “blocking” — nothing merges without one.\n"
        "Hotfixes need one approval -- from an on-call lead.\n"
        "Stale branches are deleted after __30 days__.[^1]\n"
        "Release notes are written by ==the author==.\n\n"
        "> The merge queue is drained every night\n> at 02:00 UTC.\n\n"
        "> [!warning] Freeze\n> Deploys are frozen on Fridays.\n\n"
        "The max_retries setting is 3.\n"
        "~~Every merge needs the CTO's sign-off.~~\n\n"
        "[^1]: Counted from the last commit.\n"
    )
    assert quote_on_page(quote, body) is on_page


@pytest.mark.parametrize(
    ("quote", "why"),
    [
        ("~~Legal approves every vendor contract.~~ Legal now reviews NDAs only.", "shares no content word"),
        ("~~Legal approves every vendor contract.~~ Legal", "fragment"),
    ],
)
def test_struck_out_words_do_not_vouch_for_a_quote(tmp_path: Path, quote: str, why: str) -> None:
    """The diff review: the quote was found on the page as a reader sees it, but its sentence and shared
    words were counted on the source, struck-out text included: one visible word passed."""
    root = write_vault(
        tmp_path / "vault",
        {
            "Legal.md": "# Legal\n\n~~Legal approves every vendor contract.~~ Legal now reviews NDAs only.\n",
            "Procurement.md": "# Procurement\n\nProcurement approves vendor onboarding and contract templates.\n",
        },
    )
    with Router(root) as router:
        result = teach.teach(router, "Who approves vendor contracts?", "Legal.md", quote)
    assert not result.taught and why in result.reason, result.reason


def test_a_trigger_the_question_holds_whole_counts_beside_a_word_another_page_is_tagged(
    tmp_path: Path,
) -> None:
    """The session diff's review: 20c3bc4 stopped every trigger when another word of the question named
    another page, so "urgent: who looks after the kitchen coffee maker" lost its page's trigger to a
    page tagged urgent."""
    root = write_vault(
        tmp_path / "vault",
        {
            "office/coffee.md": "---\ntriggers:\n  - who looks after the kitchen coffee maker\n---\n"
            "# Coffee\n\nPriya descales the machine on Fridays.\n",
            "it/laptops.md": "---\ntags: [urgent]\n---\n# Laptops\n\nBroken laptops go to the IT desk.\n",
            "Lunch.md": "# Lunch\n\nPizza on Fridays.\n",
        },
    )
    with Router(root) as router:
        plain = router.decide("who looks after the kitchen coffee maker")
        urgent = router.decide("urgent: who looks after the kitchen coffee maker")
    assert plain.decision == "cite" and plain.top is not None and plain.top.path == "office/coffee.md"
    assert urgent.top is not None and urgent.top.path == "office/coffee.md"
    assert "urgent" in urgent.top.missing


def test_a_price_asked_in_chinese_meets_the_amount_through_the_agent_s_translation(tmp_path: Path) -> None:
    """The agent-loop run: 他们第一单最少要订多少钱 on English notes, taught with an English phrasing and the
    quote "first order at least £600", was refused as "no sentence of the quote states an amount beside
    its words": the price check read the question's own (Chinese) words only."""
    root = _pages(
        tmp_path / "v",
        {
            "Pricing/Stockists.md": "# UK stockists\n\nUK stockists place a first order of at least £600.\n",
            "Office.md": "# Office\n\nThe office opens at nine.\n",
        },
    )
    # Refused cold (零售商 is on no page); "英国零售商…" is cited cold since 英国 reaches "UK" (D159).
    question = "零售商第一单最少要订多少钱"
    _code, out = teach_cli(
        root,
        question,
        "Pricing/Stockists.md",
        "UK stockists place a first order of at least £600.",
        "how much is the minimum first order for UK stockists",
    )
    assert "asks a price" not in out, out
    # The pick passes every check (written, or held for a second source where pending triggers are on).
    assert out.startswith(("taught", "held")), out


BERLIN = (
    "---\ntitle: Berlin leave policy\n---\n# Berlin leave policy\n\n"
    "Unused annual leave carries over to the next year and must be taken by 31 March.\n"
)
SHENZHEN = "---\ntitle: 深圳年假制度\n---\n# 深圳年假制度\n\n年假当年有效，不能顺延。\n"


def test_a_lone_character_names_no_neighbour_on_a_page_that_writes_no_han(tmp_path: Path) -> None:
    """An agent-loop run (dev8): teach refused an honest pick for '年' (of 第二年) on an English page the
    agent's translation reached: a lone Han character has no translation of its own to be held by. A
    cold review: on a Chinese page with a Latin title the guard still holds (the text is read, not the
    title), and a clipping's title still marks a neighbour: it may be the only page naming a subject."""
    spec_cn = "---\ntitle: Spec CN\n---\n接口 USB-C，两个半小时充满。\n"
    root = _pages(
        tmp_path / "v",
        {
            "Policies/Berlin leave policy.md": BERLIN,
            "制度/深圳年假制度.md": SHENZHEN,
            "Spec CN.md": spec_cn,
            "Battery.md": "---\ntitle: Battery supplier\naliases: [电池供应商]\n---\nWe buy cells from Grepow.\n",
            "Payments/Adyen.md": "---\ntitle: Adyen\n---\nAdyen charges us 1.4% per card transaction, settled weekly.\n",
            "Clippings/Stripe pricing.md": "---\ntitle: Stripe pricing\n---\nStripe lists 2.9% plus 30 cents.\n",
        },
    )
    with Router(root) as router:
        year = teach.teach(
            router,
            "柏林同事没休完的年假，能留到第二年几号？",
            "Policies/Berlin leave policy.md",
            "Unused annual leave carries over to the next year and must be taken by 31 March.",
            ["Berlin unused annual leave carry over to next year, until what date?"],
        )
        charge = teach.teach(router, "充满电要多久", "Spec CN.md", "接口 USB-C，两个半小时充满。")
        stripe = teach.teach(
            router,
            "what percentage does Stripe charge per card transaction",
            "Payments/Adyen.md",
            "Adyen charges us 1.4% per card transaction, settled weekly.",
        )
    assert "'年'" not in year.reason and year.status in (teach.TAUGHT, teach.PENDING), year.reason
    # Both doubts wait for the owner (D130), as a lacking word of another page's name does.
    assert charge.for_owner and "'电', which is part of what another page is called" in charge.reason
    assert stripe.for_owner and "'stripe', which names another page" in stripe.reason


def test_a_quote_sharing_the_question_s_words_only_through_the_dictionary_links_them(tmp_path: Path) -> None:
    """An agent-loop run (dev4): "韩语翻译按词算多少钱?" refused, the agent read the English rate card,
    quoted "Translation is billed at USD 0.10 per source word." and was told the quote shares no content
    word with the question, though the lookup had matched 翻译→translate; it had to ask again with a
    phrasing and teach a second time. A word shared through the dictionary links them, for the price
    check too; a quote sharing no word either way still does not."""
    root = _pages(
        tmp_path / "v",
        {
            "Vendors/Hanbit Loc.md": "---\ntitle: Hanbit Loc\n---\n# Hanbit Loc\n\nKorean localisation vendor.\n\n"
            "Translation is billed at USD 0.10 per source word.\n\nDelivery takes three business days.\n",
            "Vendors/Kotoba Works.md": "---\ntitle: Kotoba Works\n---\n# Kotoba Works\n\nJapanese localisation "
            "vendor.\n\nProofreading is billed at USD 0.04 per source word.\n",
            "人员/朴敏.md": "---\ntitle: 朴敏\n---\n# 朴敏\n\n朴敏负责韩语版本的验收，每周三和供应商对一次稿。\n",
        },
    )
    question = "韩语翻译按词算多少钱?"
    assert decision(root, question)[0] == "refuse"
    with Router(root) as router:
        unlinked = teach.teach(
            router, question, "Vendors/Hanbit Loc.md", "Delivery takes three business days."
        )
        linked = teach.teach(
            router, question, "Vendors/Hanbit Loc.md", "Translation is billed at USD 0.10 per source word."
        )
    assert "shares no content word" not in linked.reason and "states an amount" not in linked.reason, (
        linked.reason
    )
    assert "shares no content word" in unlinked.reason, unlinked.reason


def test_a_doubt_over_a_word_only_replaced_pages_hold_says_so(tmp_path: Path) -> None:
    """The dev4 agent loop: the lookup said 'allowed' was held only by a replaced page, and the teach
    check said "it lacks 'allowed', which other pages hold: a neighbour page's mark". The doubt stays
    (measured: D144), and now says which pages hold the word."""
    root = _pages(
        tmp_path / "v",
        {
            "Decisions/Release cadence - biweekly.md": "---\ntitle: Release cadence - biweekly\nstatus: superseded\n"
            'superseded_by: "[[Decisions/Release cadence - weekly]]"\n---\n# Release cadence - biweekly\n\n'
            "Store releases are allowed every second Wednesday only.\n",
            "Decisions/Release cadence - weekly.md": "---\ntitle: Release cadence - weekly\n---\n# Release cadence - "
            "weekly\n\nStore builds go out every Thursday; the build agent writes the notes.\n",
            "People/AI agents.md": "---\ntitle: AI agents\naliases: [docs-agent]\n---\n# AI agents\n\n"
            "The docs agent may write to the Runbooks/ and Meetings/ folders only.\n",
            "Runbooks/Layout.md": "# Layout\n\nEvery folder of the notes has an owner; docs live in Runbooks/ and "
            "Meetings/ folders.\n",
        },
    )
    question = "Which folders of the notes is the docs agent allowed to write to?"
    assert decision(root, question)[0] == "refuse"
    with Router(root) as router:
        taught = teach.teach(
            router,
            question,
            "People/AI agents.md",
            "The docs agent may write to the Runbooks/ and Meetings/ folders only.",
        )
    assert "(only replaced ones: Decisions/Release cadence - biweekly.md)" in taught.reason, taught.reason


def test_a_quote_shares_the_words_of_its_section_s_heading(tmp_path: Path) -> None:
    """An agent-loop run (crosslang2): the release-window line that answers, "周二、周四 14:00–17:00", was
    refused twice as sharing no word with the question and the agent's Chinese phrasing; the word they
    share, 发布, is its section's heading. A quote under no heading that shares a word still does not."""
    root = _pages(
        tmp_path / "v",
        {
            "运维手册/生产环境部署.md": "---\ntitle: 生产环境部署\n---\n# 生产环境部署\n\n## 环境\n"
            "- K8s 集群：阿里云 ACK，杭州\n\n## 发布窗口\n- **周二、周四 14:00–17:00**，其他时间只允许 hotfix\n"
            "- 周五、节假日前一天不发布\n",
            "运维手册/测试环境部署.md": "---\ntitle: 测试环境部署\n---\n# 测试环境部署\n\n合入主干后自动发布到测试环境。\n",
        },
    )
    question, phrasing = "Which days of the week can we ship to prod?", "生产环境一周哪几天能发布？"
    assert decision(root, question)[0] == "refuse"
    quote = "周二、周四 14:00–17:00，其他时间只允许 hotfix"
    with Router(root) as router:
        bare = teach.teach(router, question, "运维手册/生产环境部署.md", "K8s 集群：阿里云 ACK，杭州")
        under = teach.teach(router, question, "运维手册/生产环境部署.md", quote, phrasings=[phrasing])
    assert "shares no content word" in bare.reason, bare.reason
    assert "shares no content word" not in under.reason, under.reason


def test_a_word_links_a_quote_only_through_the_senses_the_lookup_takes() -> None:
    """A cold review: any of a word's eight dictionary senses linked a quote (流程's fifth, stream, tied
    "入职流程是什么" to "Every stream is recorded"); the lookup takes the first three the vault holds."""
    from krouter.learner.shared_words import translated_shared

    quote, question = "Every stream is recorded for later.", "入职流程是什么?"

    def vault(*held: str):
        return lambda term: {1: (0, 0, 1)} if term in held else {}

    assert translated_shared(quote, question, vault("process", "workflow", "cours", "stream")) == []
    assert translated_shared(quote, question, vault("stream", "record")) == ["流程"]
    # A sense of two words counts only where one page holds both (the lookup's rule; a second review):
    # "sequence processes" split over two pages is no sense the lookup takes, and stream is third.
    pages = {
        "process": {2: (0, 0, 1)},
        "workflow": {4: (0, 0, 1)},
        "sequenc": {1: (0, 0, 1)},
        "stream": {3: (0, 0, 1)},
    }
    assert translated_shared(quote, question, lambda term: pages.get(term, {})) == ["流程"]
    pages["sequenc"] = {2: (0, 0, 1)}
    assert translated_shared(quote, question, lambda term: pages.get(term, {})) == []


SUPPLIER = "---\ntitle: 鑫达五金\n---\n# 鑫达五金\n\n| 项目 | 条款 |\n|---|---|\n| 付款 | 月结 60 天 |\n| 交期 | 30 天 |\n"


def test_a_whole_table_row_is_a_quote_however_short(tmp_path: Path) -> None:
    """An agent-loop run (dev8): the row "付款 | 月结 60 天" that answers was refused as a fragment, while a
    longer row passed. A whole row of two cells or more states a fact; a part of one, or the header
    row that names the columns, does not."""
    other = "---\ntitle: 宏达包装\n---\n# 宏达包装\n\n| 项目 | 条款 |\n|---|---|\n| 付款 | 月结 30 天 |\n"
    root = _pages(tmp_path / "v", {"Suppliers/鑫达五金.md": SUPPLIER, "Suppliers/宏达包装.md": other})
    question = "付款是月结多少天？"
    assert decision(root, question)[0] == "refuse"
    with Router(root) as router:
        part = teach.teach(router, question, "Suppliers/鑫达五金.md", "月结 60 天")
        header = teach.teach(router, question, "Suppliers/鑫达五金.md", "项目 | 条款")
        row = teach.teach(router, question, "Suppliers/鑫达五金.md", "付款 | 月结 60 天")
    assert "fragment" in part.reason and "fragment" in header.reason
    assert "fragment" not in row.reason and row.status in (teach.TAUGHT, teach.PENDING), row.reason
    # A row over a row of "-" cells is no header (the second review).
    assert is_table_row("付款 | 月结 60 天", "| 项目 | 条款 |\n|---|---|\n| 付款 | 月结 60 天 |\n| - | - |\n")
    # A table is a table as Markdown renders it (D139): lines holding pipes with no delimiter row under
    # a header, or a table inside a code fence (an example), hold no row; the price check reads them so.
    assert not is_table_row("付款 | 月结 60 天", "项目 | 条款\n付款 | 月结 60 天\n")
    assert not is_table_row(
        "付款 | 月结 60 天", "```\n| 项目 | 条款 |\n|---|---|\n| 付款 | 月结 60 天 |\n```\n"
    )


@pytest.mark.parametrize(
    ("quote", "sentence"),
    [
        # An agent-loop run's quote: four words in seven characters, closed as a sentence (D126).
        ("下撤不要等天亮。", True),
        ("每人每年十五天年假。", True),
        # The same words without the end mark, or a phrase too short, are fragments.
        ("下撤不要等天亮", False),
        ("天亮。", False),
        ("can be merged", False),
        ("No new payments from 1 April 2025.", True),
    ],
)
def test_a_short_chinese_sentence_closed_by_its_end_mark_is_a_sentence(quote: str, sentence: bool) -> None:
    from krouter.learner.quotes import is_sentence

    assert is_sentence(quote) is sentence


def test_control_characters_of_a_taught_question_never_reach_the_page(vault: Path) -> None:
    """A bug hunt: ESC and BEL in a question were written into the page's triggers as \\u001b[2J..."""
    code, out = teach_cli(
        vault, "How many \x1b[2J\x1b[31msign-offs\x07 does a merge need?", CODE_REVIEW, GOOD_QUOTE
    )
    assert code == 0, out
    text = (vault / CODE_REVIEW).read_text(encoding="utf-8")
    assert parse_page(CODE_REVIEW, text).triggers == ["How many sign-offs does a merge need?"]
    assert "\\u001b" not in text and "\x1b" not in text and "\x07" not in text and "\\a" not in text


def test_the_per_page_cap_counts_the_triggers_of_a_page_moved_since(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug hunt (the owner reorganising the vault while agents teach): a page moved or renamed after
    agents taught it no longer counted their triggers, which it still holds, so agents could teach it
    PAGE_CAP more."""
    stripe_quote = "The read timeout for Stripe calls is 10 seconds."
    monkeypatch.setattr(teach, "PAGE_CAP", 1)
    code, out = teach_cli(vault, "What is the Stripe deadline?", PAYMENTS, stripe_quote)
    assert code == 0, out
    (vault / "Payments").mkdir()
    (vault / PAYMENTS).rename(vault / "Payments" / "Stripe timeouts.md")
    before = snapshot(vault)
    code, out = teach_cli(
        vault, "How many seconds do we wait for Stripe?", "Payments/Stripe timeouts.md", stripe_quote
    )
    assert code == 3 and "per-page cap" in out, out
    assert snapshot(vault) == before


def test_the_per_page_cap_reads_the_journal_once_for_the_pages_gone_since(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold review of the check above: each agent trigger on a page deleted since read the whole journal
    to look for where it moved, on every teaching (300 such entries, 5.9 s a teaching, inside the teaching
    lock, blocking the MCP server's worker)."""
    import time

    from krouter.learner import moved

    for i in range(40):
        entry = {"run_id": f"r{i}", "entry": f"e{i}", "page": f"gone {i}.md", "vault": str(vault.resolve())}
        entry.update(lane="agent", trigger=f"question number {i}", time=time.time() - 5 * 86400)
        learn_journal.append_jsonl(learn_journal.journal_path(), entry)
    reads = []

    def counted() -> list[dict[str, object]]:
        reads.append(1)
        return learn_journal.journal_entries()

    monkeypatch.setattr(moved, "journal_entries", counted)
    code, out = teach_cli(
        vault, "What is the Stripe deadline?", PAYMENTS, "The read timeout for Stripe calls is 10 seconds."
    )
    assert code == 0, out
    assert len(reads) <= 1, len(reads)
