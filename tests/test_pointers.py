"""A page that writes a question's word only to point at another page is not cited for it (D149)."""

from __future__ import annotations

from pathlib import Path

import pytest

from krouter import Router
from tests.fresh_lookup import fresh_lookup
from tests.vault_files import write

TORONTO = (
    "# Toronto key lockbox handling\n\n"
    "Customers leave a spare key in a lockbox by the front door; the code goes in the booking notes.\n"
    "- Cleaners photograph the lockbox after closing it.\n"
    "- A lost code: call the customer, never force the box.\n\n"
    "Manchester does it differently: [[Manchester key handover]].\n"
)
MANCHESTER = (
    "# Manchester key handover\n\n"
    "Customers hand a spare key to the office on Deansgate, tagged with a number, never their address.\n"
)


def key_pages(root: Path, toronto: str = TORONTO) -> Path:
    """The Toronto lockbox page (its text ``toronto``) beside the Manchester key handover page."""
    pages = {
        "Runbooks/Toronto key lockbox handling.md": toronto,
        "Runbooks/Manchester key handover.md": MANCHESTER,
    }
    return write(root, pages)


def test_a_word_written_only_to_point_at_another_page_is_that_page_s(tmp_path: Path) -> None:
    """The Toronto page matched every word of a Manchester question, "manchester" only on the line that
    points at the Manchester page: it was cited at 69% with nothing missing (the dev10 agent loop). The
    refusal says why and lists the page it points at."""
    vault = key_pages(tmp_path)
    with Router(vault) as router:
        receipt = router.decide("where do manchester customers leave a spare key for us?")
    assert receipt.decision == "refuse", receipt.reason
    assert "writes 'manchester' only where it points at Runbooks/Manchester key handover.md" in receipt.reason
    assert receipt.candidates[0].missing == ["manchester"], receipt.candidates[0]
    assert [c.path for c in receipt.candidates][:2] == [
        "Runbooks/Toronto key lockbox handling.md",
        "Runbooks/Manchester key handover.md",
    ]


def test_a_word_the_page_also_writes_elsewhere_or_links_to_no_page_found_stays(tmp_path: Path) -> None:
    """The rule reads only pointing lines: a page that writes the word on another line holds it, and a
    link to a page the question did not find (or none) points nowhere."""
    elsewhere = TORONTO + "\nManchester cleaners covering Toronto use the lockbox too.\n"
    vault = key_pages(tmp_path, elsewhere)
    with Router(vault) as router:
        receipt = router.decide("where do manchester customers leave a spare key for us?")
    assert "only where it points at" not in receipt.reason
    dangling = write(tmp_path / "dangling", {"Runbooks/Toronto key lockbox handling.md": TORONTO})
    with Router(dangling) as router:
        receipt = router.decide("where do manchester customers leave a spare key for us?")
    assert receipt.decision == "cite" and "only where it points at" not in receipt.reason, receipt.reason


def test_a_page_pointing_at_one_that_holds_fewer_of_the_question_s_words_is_still_cited(
    tmp_path: Path,
) -> None:
    """The booking tool's page points at the deposit policy for the word "deposit", but the policy page
    holds fewer of the question's words than the tool's page does without it: the tool's page answers
    (dev7 D7-08, phrased, right → missed under a first form that vetoed any page found nearly as well)."""
    vault = write(
        tmp_path,
        {
            "Decisions/Booking tool.md": (
                "# Booking tool\n\nGuests book online on our website through Tourwriter since we left Rezdy.\n"
                "- Card payment at booking through a Stripe link\n"
                "- Balance reminders at 90 days ([[Decisions/Deposit policy]])\n"
            ),
            "Decisions/Deposit policy.md": (
                "# Deposit policy\n\nA 20% deposit at booking; the balance is due 60 days before travel.\n"
            ),
        },
    )
    with Router(vault) as router:
        receipt = router.decide(
            "can guests still book online and make the deposit payment on our website like with Rezdy?"
        )
    assert receipt.decision == "cite" and receipt.top is not None, receipt.reason
    assert receipt.top.path == "Decisions/Booking tool.md"


def test_a_line_that_states_more_than_the_link_points_at_nothing(tmp_path: Path) -> None:
    """A line that writes another of the question's words outside its links says something of its own
    ("- Primary DB: [[Postgres]] 15", "In Manchester customers leave it at the office (see [[…]])"): its
    page is cited as before (a cold review). A link to a page in another folder, which the runner-up
    only shares a file name with, points at another page; and the decision does not depend on k."""
    vault = write(
        tmp_path,
        {
            "Infra/Production stack.md": "# Production stack\n\n- Primary DB: [[Postgres]] 15 on db-1\n",
            "Infra/Postgres.md": "# Postgres\n\nHow we upgrade Postgres versions: dump, restore, switch over.\n",
            "Runbooks/Key drop-off.md": (
                "# Key drop-off\n\nIn Manchester customers leave the spare key at the office before 6pm "
                "(see [[Manchester key handover]]).\n"
            ),
            "Runbooks/Manchester key handover.md": MANCHESTER,
        },
    )
    with Router(vault) as router:
        postgres = router.decide("what postgres version is the primary db on?")
        keys = router.decide("where do manchester customers leave a spare key?")
    assert postgres.top is not None and postgres.top.path == "Infra/Production stack.md", postgres.reason
    assert keys.top is not None and keys.top.path == "Runbooks/Key drop-off.md", keys.reason
    archived = TORONTO.replace("[[Manchester key handover]]", "[[Archive/Manchester key handover]]")
    other = key_pages(tmp_path / "other", archived)
    pointing = key_pages(tmp_path / "pointing")
    question = "where do manchester customers leave a spare key for us?"
    with Router(other) as router:
        assert "only where it points at" not in router.decide(question).reason
    with Router(pointing) as router:
        assert {router.decide(question, k=k).decision for k in (1, 2, 5)} == {"refuse"}


def test_reading_a_chinese_page_name_does_not_load_the_pages_segmenter(tmp_path: Path) -> None:
    """The runner-up's name is read as the receipt's line reads text: cut by the pages' segmenter, a
    Chinese name loaded jieba's whole dictionary into the lookup (a 0.35 s Chinese p99 in bench/perf)."""
    vault = write(
        tmp_path / "v",
        {
            "运维/钥匙交接.md": (
                "# 钥匙交接\n\n客户把备用钥匙放在门口的密码箱里。\n\n曼彻斯特另有流程：[[曼彻斯特钥匙交接]]。\n"
            ),
            "运维/曼彻斯特钥匙交接.md": "# 曼彻斯特钥匙交接\n\n客户把备用钥匙交给办公室。\n",
        },
    )
    got = fresh_lookup(vault, "曼彻斯特的客户把备用钥匙放在哪里？", tmp_path)
    assert got["decision"] == "refuse" and "only where it points at" in str(got["reason"]), got
    assert got["segmenter_loaded"] is False


def test_what_a_second_review_found(tmp_path: Path) -> None:
    """A link listed under a heading names what the page is about ("## Owned services" over "- [[Kafka]]");
    the runner-up is counted on its own title and text (not a page it replaced, nor its triggers); a
    line is read as the index reads it (full-width letters); the answer does not depend on where the
    pointing line stands; a rewording that drops the pointed word does not bring the page back, and at
    k = 1 the page pointed at is listed."""
    vault = write(
        tmp_path / "teams",
        {
            "Teams/Platform team.md": "# Platform team\n\nLead: Dana.\n\n## Owned services\n\n- [[Kafka]]\n- [[Zookeeper]]\n",
            "Services/Kafka.md": "---\ntriggers: [naming rules for topic prefixes per team]\n---\n# Kafka\n\nThree brokers.\n",
            "Archive/Kafka 2022.md": (
                "---\nstatus: superseded\nsuperseded_by: Services/Kafka\n---\n# Kafka 2022\n\nEach team had a topic prefix.\n"
            ),
            "Services/Zookeeper.md": "# Zookeeper\n\nThree nodes.\n",
        },
    )
    with Router(vault) as router:
        owns = router.decide("Which team owns Kafka?")
    assert owns.decision == "cite" and owns.top is not None and owns.top.path == "Teams/Platform team.md", (
        owns.reason
    )
    wide = write(
        tmp_path / "wide",
        {
            "入职/入职清单.md": "# 入职清单\n\n- ＶＰＮ账号：找 IT 在工单系统里申请\n- 客户端安装：[[VPN 配置]]\n",
            "IT/VPN 配置.md": "# VPN 配置\n\n客户端下载后导入配置文件。\n",
        },
    )
    with Router(wide) as router:
        vpn = router.decide("VPN账号怎么申请？")
    assert vpn.top is not None and vpn.top.path == "入职/入职清单.md", vpn.reason
    question = "where do manchester customers leave a spare key for us?"
    pointer = "Manchester keys go elsewhere: [[Manchester key handover]].\n"
    body = TORONTO.rsplit("\n\nManchester", 1)[0] + "\n"
    for name, text in (("after", body + "\n" + pointer), ("before", "# Toronto\n\n" + pointer + "\n" + body)):
        order = key_pages(tmp_path / name, text)
        with Router(order) as router:
            assert router.decide(question).decision == "refuse", name
    pointing = key_pages(tmp_path / "pointing")
    with Router(pointing) as router:
        reworded = router.decide(question, also=["where do customers leave a spare key"])
        alone = router.decide(question, k=1)
    assert reworded.decision == "refuse" and "only where it points at" in reworded.reason, reworded.reason
    assert [c.path for c in alone.candidates] == [
        "Runbooks/Toronto key lockbox handling.md",
        "Runbooks/Manchester key handover.md",
    ]


@pytest.mark.parametrize(
    "link",
    [
        "[see here](Manchester%20key%20handover.md)",
        "[the Manchester runbook](../Runbooks/Manchester key handover.md)",
    ],
)
def test_a_markdown_link_points_as_a_wikilink_does(tmp_path: Path, link: str) -> None:
    """Vaults kept outside Obsidian link with Markdown links: the pointing line reads them too, by their
    destination (a fragment, a relative folder and %20 read as a wikilink's page would be)."""
    toronto = TORONTO.replace("[[Manchester key handover]]", link)
    vault = key_pages(tmp_path, toronto)
    with Router(vault) as router:
        receipt = router.decide("where do manchester customers leave a spare key for us?")
    assert receipt.decision == "refuse" and "only where it points at" in receipt.reason, receipt.reason


def test_a_chinese_word_no_dictionary_translates_does_not_count_against_an_english_runner_up(
    tmp_path: Path,
) -> None:
    """The China returns page writes 欧盟 only on a line pointing at the English EU returns page, and was
    cited for an EU question (dev11 D11-33, the agent loop): it matched 七天, 寄回 and 无, words no route
    of ours can look for on an English page, so the EU page seemed to hold fewer of the question's
    words. Those words are no evidence either way; a question about China still finds the China page."""
    vault = write(
        tmp_path,
        {
            "决策/国内退货退款规则.md": (
                "# 国内退货退款规则\n\n"
                "天猫和小程序订单，客户签收后七天无理由退货。\n"
                "- 无理由退货的寄回运费买家承担。\n"
                "- 质量问题由我们承担运费，拍照即可退款。\n\n"
                "海外市场规则不同：欧盟见 [[Policies/Returns and refunds EU]]。\n"
            ),
            "Policies/Returns and refunds EU.md": (
                "# Returns and refunds EU\n\n"
                "Customers can withdraw within 14 days of delivery, no reason needed.\n"
                "- The customer sends the goods back and pays the shipping cost: we issue no return labels.\n- Return merchandise must be sealed.\n"
            ),
        },
    )
    with Router(vault) as router:
        eu = router.decide("欧盟客户七天无理由退货 寄回的运费谁出")
        china = router.decide("国内客户七天无理由退货 寄回的运费谁出")
    assert eu.decision == "refuse", eu.reason
    assert "writes '欧盟' only where it points at Policies/Returns and refunds EU.md" in eu.reason
    assert china.decision == "cite" and china.top is not None, china.reason
    assert china.top.path == "决策/国内退货退款规则.md"


def test_a_translated_word_the_english_page_pointed_at_lacks_still_counts(tmp_path: Path) -> None:
    """Only words no dictionary translates are left out of the count: the China returns page, which
    matches the question's 质量问题, 拍照 and 退款 (words an English page could hold, and this one does
    not), still answers a question that names 欧盟 only where the page points at the EU page."""
    vault = write(
        tmp_path,
        {
            "决策/国内退货退款规则.md": (
                "# 国内退货退款规则\n\n"
                "- 质量问题：客户拍照即可退款，运费我们承担。\n\n"
                "海外市场规则不同：欧盟见 [[Policies/Returns and refunds EU]]。\n"
            ),
            "Policies/Returns and refunds EU.md": (
                "# Returns and refunds EU\n\nCustomers can withdraw within 14 days of delivery.\n"
            ),
        },
    )
    with Router(vault) as router:
        receipt = router.decide("欧盟那边质量问题客户拍照能退款吗")
    assert receipt.decision == "cite" and "only where it points at" not in receipt.reason, receipt.reason


def test_a_page_ruled_out_for_pointing_hands_nothing_to_the_page_it_points_at(tmp_path: Path) -> None:
    """A cold review of D162 (reverted): handing the question to the page pointed at turned a D149
    refusal into a wrong citation. "when does the release train deploy?" cited the deploy runbook, which
    lacks "train" and says nothing of when, over the release train page that matched every word."""
    vault = write(
        tmp_path,
        {
            "Process/Release train.md": (
                "# Release train\n\nThe release train leaves every second Tuesday at 14:00; anything merged "
                "by Monday noon is on it.\n- Hotfixes skip the train.\n\n"
                "How to deploy it: [[Runbooks/Production deploy]].\n"
            ),
            "Runbooks/Production deploy.md": (
                "# Production deploy\n\nEvery release is deployed with `make ship` from the release branch; "
                "watch the dashboards for ten minutes.\n- Roll back with `make rollback` if error rates double.\n"
            ),
            "Runbooks/Staging.md": "# Staging\n\nStaging is rebuilt nightly from main.\n",
            "People/On-call.md": "# On-call\n\nThe on-call engineer carries the pager for a week, Monday to Monday.\n",
            "Policies/Hotfixes.md": "# Hotfixes\n\nA hotfix needs one reviewer and goes out the same day.\n",
        },
    )
    with Router(vault) as router:
        receipt = router.decide("when does the release train deploy?")
    assert receipt.top is None or receipt.top.path != "Runbooks/Production deploy.md", receipt.reason
