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


def _ask(root: Path, question: str, pages: dict[str, str] | None = None) -> Receipt:
    with Router(write(root, {**PAGES, **(pages or {})})) as router:
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
    assert "lacking words read as wording, counted at a quarter: late" in r.to_text()


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


def test_a_word_written_as_a_name_is_never_wording(tmp_path: Path) -> None:
    """Leeds, which a note mentions in passing, is as common as late is rare: written as a name
    mid-sentence it may be the subject asked about (another office, a city; a second cold review), and
    keeps its weight. Written in lower case it is read as the rest of the wording."""
    trip = {
        "Notes/Trip.md": "# Site visit\n\nThe Leeds office ordered new mops, and the printer there is running again.\n"
    }
    asked = "the dog was loose and barking when our cleaner arrived late, do we still bill the visit at the {} office?"
    named = _ask(tmp_path / "named", asked.format("Leeds"), trip)
    assert named.closest is not None and "leeds" in named.closest.missing
    assert named.evidence.wording == ["late", "office"]
    plain = _ask(tmp_path / "plain", asked.format("leeds"), trip)
    assert plain.evidence.wording == ["late", "leeds", "office"]


def test_a_day_of_the_week_written_with_its_capital_is_not_a_name(tmp_path: Path) -> None:
    """English capitalises Thursday wherever it stands, so its capital says nothing of a name: a day a
    note mentions, lacking from the page past its two rarest words, is wording like any other (dev10's
    "fixed by dispatch Thursday evening" on the payouts page). Leeds, written the same way, stays a name."""
    note = {"Notes/Trip.md": "# Site visit\n\nOn Thursday the Leeds office ordered new mops.\n"}
    asked = (
        "the dog was loose and barking in the home when our cleaner arrived {}, do we still bill the visit?"
    )
    for written in ("Thursday", "Thursdays"):
        day = _ask(tmp_path / written, asked.format(f"on {written}"), note)
        assert day.decision == "cite" and day.cited[0].path == "Policies/Pets.md"
        assert day.evidence.wording == [written.lower()], day.to_text()
    city = _ask(tmp_path / "city", asked.format("in Leeds"), note)
    assert city.cited[0].missing == ["barking", "leeds", "bill"] and city.evidence.wording == []
    assert city.evidence.confidence < day.evidence.confidence


def test_a_word_a_replaced_page_is_named_by_is_never_wording(tmp_path: Path) -> None:
    """A replaced page's title still says the vault has had that subject: "late" in the title of an old
    policy keeps its weight (a second cold review: a city named only by a replaced plan was quartered)."""
    old = {
        "Policies/Late arrivals 2023.md": (
            "---\ntitle: Late arrivals 2023\nstatus: superseded\nsuperseded_by: Runbooks/Dispatch\n---\n"
            "# Late arrivals 2023\n\nA cleaner more than an hour behind calls the customer.\n"
        )
    }
    r = _ask(tmp_path, LOOSE_DOG, old)
    assert r.closest is not None and "late" in r.closest.missing
    assert "late" not in r.evidence.wording


ZH = {
    "产品/标准版价格.md": (
        "---\ntitle: 标准版价格\nstatus: current\n---\n# 标准版价格\n\n标准版每个账号每月 99 元，按年付费打八折。"
        "发票由财务在每月月底开具。\n"
    ),
    "决策/短信服务商.md": (
        "---\ntitle: 短信服务商选型\nstatus: current\n---\n# 短信服务商选型\n\n所有验证码和订单通知短信都走阿里云短信，"
        "按条计费，每月结算一次。营销短信需要提前报备模板，审核一般一个工作日。\n"
    ),
    "人事/年假.md": "# 年假政策\n\n正式员工每年有十天带薪年假，入职满一年后开始计算。年假需要提前一周在系统里申请。\n",
    "人事/报销.md": "# 差旅报销\n\n出差的机票、酒店和交通费用可以报销，需要在出差结束后两周内提交发票。\n",
    "运维/备份.md": "# 数据库备份\n\n生产数据库每天凌晨三点全量备份，保留三十天。备份失败时值班同事会收到告警。\n",
    "日常/周报.md": "# 周报模板\n\n每周五下午提交周报，写清楚本周完成的工作、遇到的问题和下周计划。\n",
}


def test_a_han_character_cut_from_a_lacking_word_is_never_wording(tmp_path: Path) -> None:
    """公众号 is cut into 公众 + 号, and 号 is a word of its own on the price page (账号): less rare than
    the pieces no page holds, it was read as wording and the SMS provider's page was cited for a WeChat
    official account's messages (0.51 → 0.56; a second cold review). A lone character written next to
    another word the page lacks is a piece of that word, and keeps its weight."""
    with Router(write(tmp_path, ZH)) as router:
        r = router.ask("公众号模板消息走哪家服务商，按条计费吗？")
    assert r.decision == "refuse"
    assert r.closest is not None and r.closest.path == "决策/短信服务商.md"
    assert "号" in r.closest.missing
    assert "号" not in r.evidence.wording


def test_a_han_character_no_page_holds_keeps_its_half(tmp_path: Path) -> None:
    """喵, a character no page holds, weighs half already (D41): past the two rarest it is not quartered
    again to an eighth while the receipt says a quarter (a last review)."""
    with Router(write(tmp_path, ZH)) as router:
        r = router.ask("周末加班时值班同事会收到告警吗，喵")
    assert r.closest is not None and r.closest.missing == ["周末", "加班", "喵"]
    assert r.evidence.wording == []


def test_an_untranslated_word_keeps_its_half_and_is_listed_once(tmp_path: Path) -> None:
    """拜托 and 回来, asked of the English pets page, no dictionary translates: they weigh half
    (``untranslated``), and stay out of the wording, which listed them a second time at a quarter."""
    note = {"日志/周记.md": "# 周记\n\n团队这周很忙，拜托大家早点回来开会。\n"}
    r = _ask(tmp_path, "客户的狗 loose 的时候 cleaner 到了，还收费吗？拜托回来告诉我", note)
    assert r.closest is not None and r.closest.path == "Policies/Pets.md"
    assert r.evidence.untranslated == ["拜托", "回来"]
    assert r.evidence.wording == []


def test_the_json_receipt_lists_the_wording(tmp_path: Path) -> None:
    """``krouter ask --json`` carries the words counted at a quarter in its evidence."""
    root = write(tmp_path / "vault", PAGES)
    result = CliRunner().invoke(app, ["ask", LOOSE_DOG, "--vault", str(root), "--json"])
    assert result.exit_code == 0, result.output
    receipt = json.loads(result.output)
    assert receipt["decision"] == "cite"
    assert receipt["evidence"]["wording"] == ["late"]
