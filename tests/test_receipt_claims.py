"""What a receipt says about the vault is true of its files: a matched word is on the page or on a page the
receipt names, a word "the vault never contains" is on no page (an audit of every dev set's receipts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from krouter import Receipt, Router
from krouter.agents.mcp.replies import ask_result, ask_summary
from krouter.vault.page import parse_page
from tests.vault_files import write

FILLER = {
    "Notes/Gardening.md": "# Gardening\n\nTomatoes need sun and water every morning.\n",
    "Notes/Cooking.md": "# Cooking\n\nBake bread at high heat with steam for a crisp crust.\n",
}


def make_vault(root: Path, pages: dict[str, str]) -> Path:
    return write(root, {**FILLER, **pages})


def ask(vault: Path, question: str) -> Receipt:
    with Router(vault) as router:
        return router.ask(question)


def test_a_word_only_a_replaced_page_holds_is_named_with_it_when_the_page_outscores_it(
    tmp_path: Path,
) -> None:
    """The audit: "matched: klaviyo, month" on the Klaviyo page, which never says month: only the
    Mailchimp page it replaced does, and that page scored below it, so the receipt named no page for the
    word (no ``via``) and the reason credited the cited page with it."""
    vault = make_vault(
        tmp_path,
        {
            "Old mail.md": "---\nstatus: superseded\nsuperseded_by: '[[Mail]]'\n---\n# Old mail\n\n"
            "One newsletter a month, sent on Tuesdays.\n",
            "Mail.md": "# Mail\n\nWe send the newsletter from Klaviyo, every other Thursday.\n",
        },
    )
    receipt = ask(vault, "klaviyo newsletter thursday month")
    top = receipt.top
    assert top is not None and top.path == "Mail.md" and top.via is None
    assert "month" in top.matched
    assert top.via_elsewhere == ["month (Old mail.md)"]
    text = receipt.to_text()
    assert "  only on replaced pages that lead to it: month (Old mail.md)" in text
    assert receipt.reason.startswith("Mail.md, with words only replaced pages leading to it hold, holds")
    with Router(vault) as router:
        out = ask_result(router, "klaviyo newsletter thursday month", k=5)
    assert out["cited"][0]["via_elsewhere"] == ["month (Old mail.md)"]
    assert "only on replaced pages that lead to it: month (Old mail.md)" in ask_summary(out)


def test_a_runner_up_matched_through_a_replaced_page_names_no_missing_via(tmp_path: Path) -> None:
    """The runner-up line said "(through the replaced page None)" for a page with no ``via``."""
    vault = make_vault(
        tmp_path,
        {
            "Old mail.md": "---\nstatus: superseded\nsuperseded_by: '[[Mail]]'\n---\n# Old mail\n\n"
            "One newsletter a month.\n",
            "Mail.md": "# Mail\n\nWe send the newsletter from Klaviyo.\n",
            "Klaviyo account.md": "# Klaviyo account\n\nThe Klaviyo account, its newsletter lists and their "
            "owners, month by month; Klaviyo billing.\n",
        },
    )
    receipt = ask(vault, "klaviyo newsletter month")
    runner = next(c for c in receipt.candidates if c.path == "Mail.md")
    assert runner.via is None and runner.via_elsewhere == ["month (Old mail.md)"]
    assert receipt.decision == "cite" and receipt.top is not None and receipt.top.path == "Klaviyo account.md"
    line = next(line for line in receipt.to_text().splitlines() if line.startswith("  runner-up: Mail.md"))
    assert line.endswith("(with words only replaced pages leading to it hold)")


@pytest.mark.parametrize(
    "status",
    [
        "superseded by [[Broker]]",
        "'superseded by [ADR-0005](Broker.md)'",
        "Replaced by [[Broker]]",
        # A cold review: a status that promises a replacement, phrased otherwise, had none (and the
        # passive Chinese phrase was no replaced status at all: the page was cited as current).
        "superseded, see [[Broker]]",
        "superseded → [[Broker]]",
        "已被 [[Broker]] 取代",
        "已被取代，见 [[Broker]]",
    ],
)
def test_a_status_that_names_its_replacement_leads_there(tmp_path: Path, status: str) -> None:
    """The audit: MADR 3 writes ``status: superseded by [ADR-0005](0005-….md)`` in the frontmatter; the
    receipt said "skipped: Old.md was replaced (replaced, with no replacement page)" and a hit on the
    page led nowhere, where the same line in an ADR's body leads to the replacement."""
    vault = make_vault(
        tmp_path,
        {
            "Old.md": f"---\nstatus: {status}\n---\n# Old broker\n\nThe message broker is RabbitMQ.\n",
            "Broker.md": "# Broker\n\nWe moved to Kafka, three brokers.\n",
        },
    )
    receipt = ask(vault, "which message broker RabbitMQ")
    assert receipt.top is not None and receipt.top.path == "Broker.md"
    assert receipt.top.via == "Old.md"
    assert [(r.from_path, r.to_path) for r in receipt.redirects] == [("Old.md", "Broker.md")]
    assert "no replacement page" not in receipt.to_text()
    with Router(vault) as router:
        assert router.resolve("Old.md").to_path == "Broker.md"


@pytest.mark.parametrize("status", ["rejected by [[Alice Chen]]", "Deprecated by [[Alice Chen]]"])
def test_who_rejected_a_record_is_not_its_replacement(tmp_path: Path, status: str) -> None:
    """A cold review: "rejected by [[Alice Chen]]" names who decided, not a replacement; read as one, a
    question on the rejected proposal cited Alice's contact page at 100%."""
    for where in ("frontmatter", "body"):
        pages = {
            "People/Alice Chen.md": "# Alice Chen\n\nCFO. Phone 555-0100, email alice@example.com.\n",
        }
        if where == "frontmatter":
            pages["Proposal.md"] = f"---\nstatus: {status}\n---\n# Four day week\n\nFridays off for all.\n"
        else:
            pages["Proposal.md"] = f"# Four day week\n\n## Status\n\n{status}\n\nFridays off for all.\n"
        vault = make_vault(tmp_path / where, pages)
        receipt = ask(vault, "four day week proposal fridays off")
        assert receipt.decision == "refuse", (where, receipt.to_text())
        assert all(r.to_path is None for r in receipt.redirects), (where, receipt.to_text())


def test_a_replaced_status_with_no_link_still_names_no_replacement(tmp_path: Path) -> None:
    """A status phrase that names no page by a link ("superseded by the new process") adds no link: the
    page stays replaced, with no replacement page, as before."""
    vault = make_vault(
        tmp_path,
        {
            "Old.md": "---\nstatus: superseded by legal\n---\n# Old broker\n\nThe message broker is RabbitMQ.\n"
        },
    )
    with Router(vault) as router:
        found = router.resolve("Old.md")
    assert found.to_path is None and found.problem == "replaced, with no replacement page"


def test_a_word_only_a_folder_is_named_by_is_not_one_the_vault_never_mentions(tmp_path: Path) -> None:
    """The audit: "the vault never mentions 'zendesk' — Vendors/Zendesk/Support tool.md holds 40% of the
    question's content": pages are read by their file's name, not their folders', and the receipt
    contradicted itself. It names the folder now; what it decides is unchanged."""
    vault = make_vault(
        tmp_path,
        {
            "Vendors/Zendesk/Support tool.md": "# Support tool\n\nWe answer tickets in the helpdesk; the "
            "support fee is $50 a month.\n",
            "客户/明远证券/会议.md": "# 会议\n\n每周二开会。\n",
        },
    )
    receipt = ask(vault, "What is the Zendesk support fee?")
    assert receipt.decision == "refuse" and receipt.closest is not None
    assert receipt.evidence.corpus_missing == ["zendesk"]
    assert receipt.evidence.in_folders == {"zendesk": "Vendors/Zendesk"}
    assert "never" not in receipt.reason
    assert receipt.reason.startswith("no page mentions 'zendesk', only a folder's name (Vendors/Zendesk/)")
    text = receipt.to_text()
    assert "words the vault never contains" not in text
    assert "  words no page contains, only a folder's name: zendesk (Vendors/Zendesk/)" in text
    alone = ask(vault, "zendesk mongodb")
    assert alone.reason == (
        "no page matches: the vault never mentions 'mongodb'; no page mentions 'zendesk', only a folder's "
        "name (Vendors/Zendesk/)"
    )
    han = ask(vault, "明远证券").evidence.in_folders  # however jieba cuts the question
    assert "".join(han) == "明远证券" and set(han.values()) == {"客户/明远证券"}


def test_a_name_only_a_folder_holds_is_said_so_when_it_refuses_the_page(tmp_path: Path) -> None:
    """The unknown-name refusal said the closest page "is about something else" of a page filed in the
    very folder the question names (a decision left as it is: folders' names are not read)."""
    vault = make_vault(
        tmp_path,
        {
            "Vendors/Zendesk/Pricing.md": "# Pricing\n\nThe helpdesk seat price is $55 per agent per month, "
            "billed yearly, with three agents on the plan.\n",
        },
    )
    receipt = ask(vault, "How much is a Zendesk seat per agent per month?")
    assert receipt.decision == "refuse"
    assert "is about something else" not in receipt.reason
    assert receipt.reason.startswith(
        "the question names 'zendesk', which no page of the vault mentions, only a folder's name "
        "(Vendors/Zendesk/), and folders' names are not read: the closest page, Vendors/Zendesk/Pricing.md, "
        "never does"
    )


@pytest.mark.parametrize(
    ("status", "cited"),
    [("已被 [[新方案]] 取代", "新方案.md"), ("**已废弃**", None), ("已接受", "旧方案.md")],
)
def test_a_chinese_adrs_status_section_is_read(tmp_path: Path, status: str, cited: str | None) -> None:
    """A Chinese ADR states its status under "## 状态" as an English one does under "## Status": the
    section was not read, and a record replaced so was cited as current."""
    vault = make_vault(
        tmp_path,
        {
            "旧方案.md": f"# 旧方案\n\n## 状态\n\n{status}\n\n## 决定\n\n消息队列用 RabbitMQ，单节点。\n",
            "新方案.md": "# 新方案\n\n消息队列改用 Kafka，三个节点。\n",
        },
    )
    receipt = ask(vault, "消息队列用的 RabbitMQ 吗")
    # Each replacement link once (the section's line was read again as a status, and its link came twice).
    named = parse_page("旧方案.md", (vault / "旧方案.md").read_text(encoding="utf-8")).superseded_by
    assert len(named) == len(set(named)), named
    if cited is None:
        assert receipt.decision == "refuse" or (receipt.top and receipt.top.path != "旧方案.md"), (
            receipt.to_text()
        )
    else:
        assert receipt.top is not None and receipt.top.path == cited, receipt.to_text()
        assert receipt.decision == "cite", receipt.to_text()
