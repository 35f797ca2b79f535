"""A question asking for an email address or a phone number is answered only where the page states one
(D113): an agent-loop run's agent found no address on a page KRouter cited at 68% for "邮箱是多少"."""

from __future__ import annotations

from pathlib import Path

import pytest
from learn_vault import write_vault

from krouter import Router
from krouter.routing.contacts import EMAIL, PHONE, asks_contact, states_contact

RAILGATE = "Suppliers/Railgate Logistics.md"
BOXWISE = "Suppliers/Boxwise.md"


def _vault(root: Path) -> Path:
    pages = {
        RAILGATE: (
            "---\ntitle: Railgate Logistics\n---\n# Railgate Logistics\n\n"
            "Rail freight from Chongqing to Hamburg. Our contact in Hamburg is Jan Petersen; he sends a weekly "
            "status email every Monday and answers the phone on weekdays.\n"
        ),
        BOXWISE: (
            "---\ntitle: Boxwise\n---\n# Boxwise\n\n"
            "Rotterdam warehouse. Our contact is Eva de Vries, eva@boxwise.example, phone +31 10 123 4567.\n"
        ),
    }
    return write_vault(root, pages)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Railgate 汉堡那个对接人，邮箱是多少来着？", EMAIL),
        ("王磊手机号多少来着？", PHONE),
        ("昆明那边包车找哪家？调度电话多少", PHONE),
        ("周莉的邮箱地址", EMAIL),
        ("What's Tanaka-san's mobile number?", PHONE),
        ("What is Jan Petersen's email?", EMAIL),
        ("what is the email address for invoices", EMAIL),
        # Mentioning email or a phone is not asking for one.
        ("一个手机号一天最多能收几条验证码？", None),
        ("Which vendor sends our transactional email?", None),
        ("Is the weekly status update still an email that's due Thursday afternoon?", None),
        ("how many phone numbers can one account verify?", None),
        ("Who do I phone after 20:00?", None),
        ("我们的消息队列集群地址是多少？", None),
        ("Jan Petersen 的 email 是多少", EMAIL),
        ("Jan's email?", EMAIL),
        ("梁经理的手机号？", PHONE),
        ("What is the phone number for the Berlin office?", PHONE),
        # A cold review's: mentioning, changing, validating or counting is not asking for one.
        ("How does the signup form validate email addresses?", None),
        ("How do I change my email address in Settings?", None),
        ("Which library checks the phone number on the signup form?", None),
        ("Who answers the CEO's email?", None),
        ("Did we reply to Jan's email?", None),
        ("How long does porting a phone number to the new carrier take?", None),
        ("账号设置里邮箱地址怎么改？", None),
        ("注册的手机号是多少位", None),
        ("手机号是多少开头的", None),
        ("邮箱是什么格式", None),
        ("What email provider do we use?", None),
        ("电话是什么时候打的", None),
        # The second review's: the noun must end its phrase, and a bare question names whose.
        ("What's the email retention period?", None),
        ("What is the phone number porting process?", None),
        ("Password reset email?", None),
        ("周末谁接电话", None),
        ("怎么换绑手机号？", None),
        ("公司手机是什么牌子", None),
        # A third review's: a message or a call is not its address or number.
        ("What was the email on Friday about?", None),
        ("Which email did Maria send about the reorg?", None),
        ("What is the email for?", None),
        ("What's Maria's email style?", None),
        ("那个电话是什么事", None),
        ("电话是什么人打的", None),
        ("what is Jan Petersen's email address at Railgate in Hamburg", EMAIL),
        ("手机多少钱", None),
        ("Maya's email style for customers", None),
        ("How often does the email for new subscribers go out?", None),
    ],
)
def test_what_a_question_asks_for(question: str, kind: str | None) -> None:
    assert asks_contact(question) == kind


@pytest.mark.parametrize(
    ("text", "email", "phone"),
    [
        ("jan@railgate.example", True, False),
        ("+49 40 1234 5678", False, True),
        ("电话 138-0013-8000", False, True),
        ("手机 13800138000", False, True),
        ("手机 138****8000", False, True),
        ("(020) 7946 0958", False, True),
        ("jan [at] railgate [dot] example", True, False),
        ("分机 8021", False, True),
        ("客服电话 95017", False, True),
        # A cold review's: forms read too narrowly refused right answers.
        ("His phone number (direct line): +49 40 12345678.", False, True),
        ("His phone number is 415.555.0132.", False, True),
        ("mobile number for emergencies 0049 40 123456.", False, True),
        ("手机号（工作日）：１３８００１３８０００。", False, True),
        ("Mobil: 0171 1234567", False, True),
        ("reach him at 040/1234567", False, True),
        ("Telefon: 040 123 456", False, True),
        ("jan＠example．com", True, False),
        ("jan.petersen AT railgate DOT de", True, False),
        ("from 2024-2025 onwards, the hotline 24/7", False, False),
        ("jan at railgate dot example", True, False),
        ("Her direct phone line is 912 345 678", False, True),
        ("meet at noon. Then we eat", False, False),
        ("急救：120，报警：110", False, True),
        ("In an emergency dial 112.", False, True),
        ("IT hotline is 4444", False, True),
        ("called 3 times in 2024", False, False),
        ("released 2024-11-06", False, False),
        ("budget 1,200,000", False, False),
        ("v1.2.3 on 10.0.0.1, port 24224", False, False),
    ],
)
def test_what_a_page_states(text: str, email: bool, phone: bool) -> None:
    assert states_contact(EMAIL, text) is email
    assert states_contact(PHONE, text) is phone


def test_a_page_without_the_address_asked_for_is_refused(tmp_path: Path) -> None:
    with Router(_vault(tmp_path)) as router:
        lacking = router.ask("what is Jan Petersen's email address at Railgate in Hamburg")
        stated = router.ask("what is Eva de Vries's email address at Boxwise in Rotterdam")
        # A terse phrasing drops the asking; the question's own still counts.
        phrased = router.ask(
            "Railgate 汉堡那个对接人 Jan Petersen，邮箱是多少来着？",
            also=["Railgate Hamburg contact Jan Petersen email"],
        )
    assert lacking.decision == "refuse"
    assert f"asks for an email address, and {RAILGATE} states none" in lacking.reason
    assert stated.decision == "cite" and stated.top is not None and stated.top.path == BOXWISE
    assert phrased.decision == "refuse" and f"{RAILGATE} states none" in phrased.reason


def test_an_agent_s_keyword_phrasing_naming_email_asks_for_no_address(tmp_path: Path) -> None:
    """A terse phrasing names what the question is about ("Railgate weekly status email"): only the
    question's own asking, or a phrasing that asks as a question does, calls for an address."""
    with Router(_vault(tmp_path)) as router:
        receipt = router.ask(
            "does Jan Petersen at Railgate still send his weekly status email every Monday?",
            also=["Railgate Jan Petersen weekly status email"],
        )
    assert "states none" not in receipt.reason, receipt.reason
