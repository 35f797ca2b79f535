"""Of two pages whose words tie, the one the question names goes first; a page is named by its aliases
too (D182)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from krouter import Router
from krouter.cli import app
from tests.vault_files import write

ENGLISH_CUSTOMER = (
    "---\ntitle: Brightline Health\ntags: [customer, enterprise]\n---\n# Brightline Health\n\n"
    "- Self-hosted enterprise edition, 8 storage nodes on the licence.\n"
    "- The contract runs out on 2026-09-30; renewal talks start in June.\n"
    "- Contact: Maria Lopez (infrastructure lead).\n"
)
CHINESE_CUSTOMER = (
    "---\ntitle: 科维斯特\ntags: [客户, 企业版]\naliases: [Zorvane Kvist, 科维斯特]\n---\n# 科维斯特（上海）\n\n"
    "- 类型：自托管企业版，客户自有机房\n"
    "- license：6 个存储节点，每年 ¥180,000\n"
    "- 合同期限：2025-01-15 起 3 年，至 2028-01-14\n"
    "- 对接：陈立\n"
)
ASKED = "Check the notes on Zorvane Kvist: how many storage nodes is their licence for, and when does the contract run out?"


def _customers(tmp_path: Path, chinese: str = CHINESE_CUSTOMER) -> Path:
    return write(tmp_path, {"Customers/Brightline Health.md": ENGLISH_CUSTOMER, "客户/科维斯特.md": chinese})


def test_the_page_a_question_names_goes_before_the_one_its_words_tie_with(tmp_path: Path) -> None:
    """dev13 D13-28: "Mingyuan Securities", the alias of a Chinese customer page, lost by 1% to an
    English customer page holding the question's English words, and the tie refused both. The question
    names the Chinese page and not the English one, and that page holds most of the rest: it goes
    first, and its name lets its lead count in full, as D178's does. The receipt says it scores below
    the page it ties, rather than "leads by -6%"."""
    vault = _customers(tmp_path)
    with Router(vault) as router:
        receipt = router.decide(ASKED)
    assert receipt.decision == "cite" and receipt.top is not None, receipt.reason
    assert receipt.top.path == "客户/科维斯特.md"
    assert [c.path for c in receipt.candidates][:2] == ["客户/科维斯特.md", "Customers/Brightline Health.md"]
    assert receipt.evidence.margin < 0
    assert "% below Customers/Brightline Health.md" in receipt.reason
    assert "the question names it ('Zorvane Kvist') and not that page" in receipt.reason
    assert "by -" not in receipt.reason


def test_the_cli_and_its_json_say_the_same(tmp_path: Path) -> None:
    """The CLI's receipt, as an agent reads it, cites the named page with the reason."""
    vault = _customers(tmp_path)
    result = CliRunner().invoke(app, ["ask", ASKED, "--vault", str(vault), "--json"])
    assert result.exit_code == 0, result.output
    receipt = json.loads(result.output)
    assert receipt["decision"] == "cite"
    assert receipt["candidates"][0]["path"] == "客户/科维斯特.md"
    assert "names it ('Zorvane Kvist')" in receipt["reason"]


def test_a_named_page_that_lacks_most_of_the_question_does_not_go_first(tmp_path: Path) -> None:
    """A name weighs heavily: a question that names a page and asks for what that page lacks (the renewal
    talks, the contact) is not answered by the name alone. The ranking stays as the words made it."""
    vault = _customers(tmp_path)
    with Router(vault) as router:
        receipt = router.decide(
            "Zorvane Kvist: when do the contract renewal talks start, and who is the contact?"
        )
    assert receipt.candidates[0].path == "Customers/Brightline Health.md", receipt.reason
    assert "names it" not in receipt.reason


def test_a_name_other_pages_share_or_that_the_question_writes_beside_the_top_page_s_does_not_count(
    tmp_path: Path,
) -> None:
    """The name must tell the page: a question that also writes the top page's name ("Brightline") does
    not say which of the two it asks about, and an alias another page carries too ("Kvist Holdings" on
    both) names neither."""
    vault = _customers(tmp_path)
    with Router(vault) as router:
        both = router.decide(ASKED.replace("Zorvane Kvist", "Zorvane Kvist and Brightline Health"))
    assert both.candidates[0].path == "Customers/Brightline Health.md", both.reason
    assert "names it" not in both.reason

    shared = CHINESE_CUSTOMER.replace("Zorvane Kvist", "Kvist Holdings")
    english = ENGLISH_CUSTOMER.replace("tags:", "aliases: [Kvist Holdings]\ntags:")
    vault = write(
        tmp_path / "shared", {"Customers/Brightline Health.md": english, "客户/科维斯特.md": shared}
    )
    with Router(vault) as router:
        receipt = router.decide(ASKED.replace("Zorvane Kvist", "Kvist Holdings"))
    assert "names it" not in receipt.reason


def test_an_alias_alone_does_not_count_the_top_page_s_lead_in_full(tmp_path: Path) -> None:
    """An alias is a name where it puts a page first; a page already first by its words is not lifted to
    100% by an alias the question writes (a first name, a short form: agents' keyword phrasings of
    neighbour questions, "Marta 亚马逊 广告预算 2023", were cited so on the person's page). Its title
    still counts (D178)."""
    shop = (
        "# {title}\n\nZorvane Print prints our conference banners: €40 per square metre, five working days.\n"
    )
    note = (
        "# Events sync\n\n- Banners for the conference: Zorvane Print quoted €40 per square metre, five"
        " working days.\n- Zorvane Print also charges per square metre for the roll-up banners.\n"
    )
    aliased = "---\ntitle: Lisbon print shop\naliases: [Zorvane Print]\n---\n" + shop.format(
        title="Lisbon print shop"
    )
    asked = "What does Zorvane Print charge per square metre for banners?"
    vault = write(
        tmp_path / "alias", {"Vendors/Lisbon print shop.md": aliased, "Meetings/Events sync.md": note}
    )
    with Router(vault) as router:
        receipt = router.decide(asked)
    assert receipt.candidates[0].path == "Vendors/Lisbon print shop.md", receipt.reason
    assert 0 < receipt.evidence.margin < 0.25
    assert "names it" not in receipt.reason
    assert receipt.evidence.confidence < receipt.evidence.coverage

    titled = "---\ntitle: Zorvane Print\n---\n" + shop.format(title="Zorvane Print")
    vault = write(tmp_path / "title", {"Vendors/Zorvane Print.md": titled, "Meetings/Events sync.md": note})
    with Router(vault) as router:
        receipt = router.decide(asked)
    assert receipt.decision == "cite" and receipt.top is not None, receipt.reason
    assert receipt.top.path == "Vendors/Zorvane Print.md"
    assert "the question names it ('Zorvane Print') and not that page" in receipt.reason
