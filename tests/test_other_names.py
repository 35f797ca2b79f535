"""A question that names a page is answered by a page that mentions it by another of its names (an
alias that is a name), and still refused on one that never mentions it (D43, D113)."""

from __future__ import annotations

from pathlib import Path

from learn_vault import write_vault

from krouter import Router


def _vault(root: Path) -> Path:
    pages = {
        "공급업체/솔라피.md": "---\ntitle: 솔라피\naliases: [Solapi, 문자 발송 업체]\n---\n# 솔라피\n\n문자 발송 업체입니다. 단가: SMS 13원.\n",
        "Runbooks/Notification server.md": (
            "---\ntitle: Notification server\n---\n# Notification server\n\n"
            "Outbound calls to Solapi use a connect timeout of 5 s and 2 retries on network errors.\n"
        ),
        "Runbooks/Payments worker.md": (
            "---\ntitle: Payments worker\n---\n# Payments worker\n\n"
            "Calls to the card processor use a connect timeout of 3 s and 4 retries.\n"
        ),
    }
    return write_vault(root, pages)


def test_a_page_that_writes_another_name_of_the_named_page_answers(tmp_path: Path) -> None:
    """An agent-loop run: "알림 서버에서 솔라피 호출할 때 타임아웃" was refused on the runbook that writes
    "Solapi", the alias of the page 솔라피, as a page that "never mentions" 솔라피."""
    with Router(_vault(tmp_path)) as router:
        asked = router.ask("what timeout does the notification server use for 솔라피 calls")
        phrased = router.ask(
            "알림 서버에서 솔라피 호출할 때 타임아웃이 몇 초예요?",
            also=["Solapi notification server connect timeout"],
        )
    assert asked.decision == "cite" and asked.top is not None
    assert asked.top.path == "Runbooks/Notification server.md"
    assert phrased.decision == "cite" and phrased.top is not None
    assert phrased.top.path == "Runbooks/Notification server.md"


def test_a_page_that_never_mentions_the_named_page_is_still_refused(tmp_path: Path) -> None:
    """The payments worker holds the question's other words but no name of 솔라피's page; an alias that is
    no name ("문자 발송 업체", dictionary words) does not count as one."""
    with Router(_vault(tmp_path)) as router:
        receipt = router.ask("what connect timeout and retries for 솔라피 card processor calls")
    assert receipt.decision == "refuse"
    assert (
        "names '솔라피'" in receipt.reason and "Runbooks/Payments worker.md never mentions" in receipt.reason
    )


def test_a_short_alias_or_words_apart_are_no_mention(tmp_path: Path) -> None:
    """A cold review: Deutsche Bahn, aliased DB, was "mentioned" by a runbook about a database, and its
    question cited there. An alias too short to tell (DB, HR, Jan, 王) is no name to mention a page by,
    and a name counts only written whole, its words in a row."""
    pages = {
        "Partners/Deutsche Bahn.md": "---\ntitle: Deutsche Bahn\naliases: [DB, DB Cargo Rail]\n---\n"
        "We ship spare parts by rail with Deutsche Bahn cargo.\n",
        "Runbooks/Orders service.md": "---\ntitle: Orders service\n---\nThe orders API client talks to the DB "
        "with a connect timeout of 5 s and 3 retries on network errors. Cargo and rail are not involved.\n",
        "Notes.md": "---\ntitle: Notes\n---\nNothing here.\n",
    }
    with Router(write_vault(tmp_path, pages)) as router:
        receipt = router.ask("Deutsche Bahn API client connect timeout and retries on network errors")
    assert receipt.decision == "refuse"
    assert "names 'Deutsche Bahn', the page Partners/Deutsche Bahn.md" in receipt.reason


def test_a_page_that_writes_the_named_pages_identifier_mentions_it(tmp_path: Path) -> None:
    """An agent-loop run (D136): "결제 서버 PR은 승인 몇 명 받아야 머지돼요?" was refused on the code review
    page, which writes `pay-api`, the alias of the page 결제 서버, as a page that "never mentions" 결제 서버:
    an identifier's parts are dictionary words, yet it is one name."""
    pages = {
        "런북/결제 서버.md": "---\ntitle: 결제 서버\naliases: [pay-api, 결제서버]\n---\n# 결제 서버 (pay-api)\n\n"
        "결제 서버는 Kotlin으로 작성되어 있습니다.\n",
        "Decisions/Code review rules.md": "---\ntitle: Code review rules\n---\n# Code review rules\n\n"
        "- `pay-api` PRs need 2 approvals before merging; hotfixes may be self-merged, reviewed within a day.\n",
        "Runbooks/Search worker.md": "---\ntitle: Search worker\n---\n# Search worker\n\nReindexing runs nightly.\n",
    }
    with Router(write_vault(tmp_path, pages)) as router:
        receipt = router.ask(
            "결제 서버 PR은 승인 몇 명 받아야 머지돼요?",
            also=["How many approvals does a pay-api PR need before merging?"],
        )
    assert receipt.decision == "cite", receipt.reason
    assert receipt.top is not None and receipt.top.path == "Decisions/Code review rules.md"
