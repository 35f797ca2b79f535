"""Of two pages whose words tie, the one the question names goes first; a page is named by its aliases
too (D182)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from krouter import Router
from krouter.cli import app
from krouter.learner import teach
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


# Unrelated notes, so that words weigh as in a real vault (in a vault of two pages, every word is rare).
_WORDS = (
    "garden budget holiday recipe invoice laptop printer dentist birthday football piano insurance mortgage "
    "passport hotel flight train museum library coffee bakery bicycle helmet camera lens battery charger "
    "keyboard monitor desk chair lamp plant tomato basil garlic onion pepper salt sugar flour butter cheese "
    "milk bread jam honey"
).split()


def _filler(n: int = 40) -> dict[str, str]:
    pages = {}
    for i in range(n):
        words = [_WORDS[(i * 7 + j * 3) % len(_WORDS)] for j in range(16)]
        pages[f"Misc/Note {i:03d}.md"] = (
            f"# Note {i:03d} {words[0]}\n\n{' '.join(words[:8])}.\n{' '.join(words[8:])}.\n"
        )
    return pages


KVIST = (
    "---\ntitle: 科维斯特\naliases: [Zorvane Kvist]\n---\n# 科维斯特\n\n- Self-hosted enterprise edition.\n"
    "- Licence: 6 storage nodes.\n- Contract until 2028-01-14.\n"
)
CALL = (
    "# 2025-05-12 renewal call\n\n- With Zorvane Kvist's infrastructure team.\n"
    "- After the renewal the licence grows to 10 storage nodes; the new contract price is ¥240,000 a year.\n"
    "- Renewal signed off by procurement on 2025-05-30.\n"
)


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
        alone = router.decide(ASKED, k=1)
    assert receipt.decision == "cite" and receipt.top is not None, receipt.reason
    assert receipt.top.path == "客户/科维斯特.md"
    assert [c.path for c in receipt.candidates][:2] == ["客户/科维斯特.md", "Customers/Brightline Health.md"]
    assert receipt.evidence.margin < 0
    assert "% below Customers/Brightline Health.md" in receipt.reason
    assert "the question names it ('Zorvane Kvist') and not that page" in receipt.reason
    assert "by -" not in receipt.reason
    assert -0.25 < receipt.evidence.margin < 0
    # The reason names the page that scores higher: it is listed at k = 1 too.
    assert [c.path for c in alone.candidates] == ["客户/科维斯特.md", "Customers/Brightline Health.md"]


def test_the_cli_and_its_json_say_the_same(tmp_path: Path) -> None:
    """The CLI's receipt, as an agent reads it, cites the named page with the reason."""
    vault = _customers(tmp_path)
    result = CliRunner().invoke(app, ["ask", ASKED, "--vault", str(vault), "--json"])
    assert result.exit_code == 0, result.output
    receipt = json.loads(result.output)
    assert receipt["decision"] == "cite"
    assert receipt["candidates"][0]["path"] == "客户/科维斯特.md"
    assert "names it ('Zorvane Kvist')" in receipt["reason"]


def test_a_named_page_far_behind_does_not_go_first(tmp_path: Path) -> None:
    """Only a tie is decided by the name: a named page more than CLEAR_MARGIN / 2 behind stays behind."""
    vault = write(
        tmp_path,
        {
            **_filler(),
            **{
                f"Daily/2025-03-{i + 1:02d}.md": f"# 2025-03-{i + 1:02d}\n\n- Lunch with Zorvane Kvist people, item {i}.\n"
                for i in range(20)
            },
            "客户/科维斯特.md": "---\ntitle: 科维斯特\naliases: [Zorvane Kvist]\n---\n# 科维斯特\n\n- Licence: 6 storage nodes.\n- 合同至 2028-01-14。\n",
            "Customers/Storage licences.md": (
                "---\ntitle: Storage nodes, licence and contract end\n---\n# Storage nodes per licence\n\n"
                "How many storage nodes each licence covers, and when each contract ends:\n"
                "- Storage nodes: counted per licence; a contract ends on its end date.\n"
                "- Licence storage nodes contract end: see each customer.\n"
            ),
        },
    )
    with Router(vault) as router:
        receipt = router.decide(
            "Zorvane Kvist: how many storage nodes on the licence, and when does the contract end?"
        )
    assert receipt.candidates[0].path == "Customers/Storage licences.md", receipt.reason
    assert receipt.evidence.margin >= 0.25
    assert "names it" not in receipt.reason


def test_a_named_page_that_lacks_most_of_the_question_does_not_go_first(tmp_path: Path) -> None:
    """A name weighs heavily: at a tie, a page the question names but which holds a third of its other
    words (licence, not storage nodes) is not put first on its name."""
    vault = write(
        tmp_path,
        {
            **_filler(),
            "客户/科维斯特.md": "---\ntitle: 科维斯特\naliases: [Zorvane Kvist]\n---\n# 科维斯特\n\n- 自托管企业版。\n- licence 续签中。\n",
            "Meetings/2025-05-12 renewal call.md": (
                "---\ntitle: Storage node counts\n---\n# 2025-05-12 renewal call\n\n"
                "- With the Porto customer's infrastructure team.\n- After the renewal the licence grows to 10 storage nodes.\n"
            ),
        },
    )
    with Router(vault) as router:
        receipt = router.decide("Zorvane Kvist: how many storage nodes on the licence?")
    assert receipt.candidates[0].path == "Meetings/2025-05-12 renewal call.md", receipt.reason
    assert 0 < receipt.evidence.margin < 0.25
    assert "names it" not in receipt.reason


def test_a_name_other_pages_share_or_written_beside_the_top_page_s_tells_no_page(tmp_path: Path) -> None:
    """The name must tell the page: a question that also writes the top page's name ("Brightline Health")
    does not say which of the two it asks about, and an alias another page carries too (an old contacts
    page aliased Zorvane Kvist) names neither. Both at the test vault's tie."""
    vault = _customers(tmp_path / "both")
    with Router(vault) as router:
        both = router.decide(ASKED.replace("Zorvane Kvist", "Zorvane Kvist and Brightline Health"))
    assert both.candidates[0].path == "Customers/Brightline Health.md", both.reason
    assert "names it" not in both.reason

    vault = write(
        tmp_path / "shared",
        {
            **_filler(),
            "Customers/Brightline Health.md": ENGLISH_CUSTOMER,
            "客户/科维斯特.md": CHINESE_CUSTOMER,
            "Archive/Old contacts.md": "---\naliases: [Zorvane Kvist]\n---\n# Old contacts\n\nPhone list, 2019.\n",
        },
    )
    with Router(vault) as router:
        shared = router.decide(ASKED)
    assert shared.candidates[0].path == "Customers/Brightline Health.md", shared.reason
    assert 0 < shared.evidence.margin < 0.25
    assert "names it" not in shared.reason


def test_a_question_that_writes_the_other_page_s_title_too_tells_neither(tmp_path: Path) -> None:
    """A question that writes the top page's title as well ("Storage nodes on the licence", words of the
    language rather than a name) names both pages: the tie stands, as D178's does."""
    vault = write(
        tmp_path,
        {
            **_filler(),
            **{
                f"Daily/2025-03-{i + 1:02d}.md": f"# 2025-03-{i + 1:02d}\n\n- Lunch with Zorvane Kvist people, item {i}.\n"
                for i in range(10)
            },
            "客户/科维斯特.md": (
                "---\ntitle: 科维斯特\naliases: [Zorvane Kvist]\n---\n# 科维斯特\n\n- Licence: 6 storage nodes.\n"
                "- 合同至 2028-01-14。\n"
            ),
            "Customers/Storage nodes on the licence.md": (
                "# Storage nodes on the licence\n\n- Every customer's licence counts its storage nodes; nodes past"
                " the licence are billed monthly.\n- Brightline 8, Norrland 4.\n- Storage nodes on the licence are"
                " counted monthly; the licence lists the storage nodes.\n"
            ),
        },
    )
    with Router(vault) as router:
        receipt = router.decide("Zorvane Kvist: storage nodes on the licence?")
    assert receipt.candidates[0].path == "Customers/Storage nodes on the licence.md", receipt.reason
    assert 0 < receipt.evidence.margin < 0.25
    assert "names it" not in receipt.reason


def test_a_page_that_writes_the_name_is_about_it_too(tmp_path: Path) -> None:
    """A cold review: the renewal call with "Zorvane Kvist's infrastructure team" holds the new count (10
    nodes); the customer page aliased Zorvane Kvist the old one. The meeting note writes the name, so it
    is about that customer as well, and the name does not tell the two apart."""
    vault = write(
        tmp_path, {**_filler(), "Customers/科维斯特.md": KVIST, "Meetings/2025-05-12 renewal call.md": CALL}
    )
    with Router(vault) as router:
        new = router.decide("Zorvane Kvist renewal: storage nodes on the new licence?")
        after = router.decide("Zorvane Kvist: how many storage nodes after the renewal?")
    assert new.decision == "cite" and new.top is not None, new.reason
    assert new.top.path == "Meetings/2025-05-12 renewal call.md"
    assert after.top is None or after.top.path != "Customers/科维斯特.md", after.reason
    assert "names it" not in new.reason + after.reason


def test_words_only_a_replaced_page_holds_do_not_put_its_replacement_first(tmp_path: Path) -> None:
    """A cold review: the current page, which states only "自托管企业版", held the question's words through
    the page it replaced (4 storage nodes) and went first at 80% with nothing missing. The named page's
    own words decide."""
    old = (
        '---\nstatus: superseded\nsuperseded_by: "[[Customers/科维斯特]]"\n---\n# 科维斯特 (2023)\n\n'
        "- Licence: 4 storage nodes.\n- Contract until 2025-01-14.\n"
    )
    new = "---\naliases: [Zorvane Kvist]\n---\n# 科维斯特\n\n- 自托管企业版。\n"
    vault = write(
        tmp_path,
        {
            "Customers/科维斯特 (2023).md": old,
            "Customers/科维斯特.md": new,
            "Meetings/2025-05-12 renewal call.md": CALL,
        },
    )
    with Router(vault) as router:
        receipt = router.decide("Zorvane Kvist: how many storage nodes on the licence?")
    assert receipt.candidates[0].path == "Meetings/2025-05-12 renewal call.md", receipt.reason
    assert "names it" not in receipt.reason


def test_a_name_is_the_same_with_a_hyphen_and_no_part_of_a_longer_one(tmp_path: Path) -> None:
    """A cold review: a page titled "Zorvane-Kvist" writes the name "Zorvane Kvist" too, so an alias
    "Zorvane Kvist" elsewhere tells no page; and "Zorvane" is not written in "Zorvane-Kvist" or "Zorvane
    Kvist Logistics", another company, whose name the page aliased Zorvane lacks."""
    hyphen = write(
        tmp_path / "hyphen",
        {
            "Customers/Zorvane-Kvist.md": (
                "# Zorvane-Kvist\n\nAccount notes, updated June 2025.\n\n- Licence: 10 storage nodes since the June"
                " 2025 renewal.\n- Contract until 2028-01-14.\n- Storage nodes are in their own rack.\n"
            ),
            "客户/科维斯特.md": (
                "---\ntitle: 科维斯特\naliases: [Zorvane Kvist]\n---\n# 科维斯特\n\n- Licence: 6 storage nodes (2024).\n"
                "- 合同至 2028-01-14。\n"
            ),
        },
    )
    with Router(hyphen) as router:
        receipt = router.decide("how many storage nodes does Zorvane Kvist have?")
    assert receipt.candidates[0].path == "Customers/Zorvane-Kvist.md", receipt.reason
    assert "names it" not in receipt.reason

    longer = write(
        tmp_path / "longer",
        {
            **_filler(),
            "客户/左凡.md": "---\ntitle: 左凡\naliases: [Zorvane]\n---\n# 左凡\n\n- Licence: 6 storage nodes.\n- Contract until 2026-03-31.\n",
            "Meetings/2025-05 accounts review.md": (
                "# 2025-05 accounts review\n\n- Zorvane-Kvist (the Swedish logistics group): their licence covers 12"
                " storage nodes; contract until 2029.\n- Storage nodes are billed yearly.\n"
            ),
        },
    )
    with Router(longer) as router:
        for question in (
            "Zorvane Kvist Logistics: how many storage nodes on their licence?",
            "Zorvane-Kvist: how many storage nodes on the licence?",
        ):
            receipt = router.decide(question)
            assert receipt.top is None or receipt.top.path != "客户/左凡.md", (question, receipt.reason)
            assert "names it" not in receipt.reason, (question, receipt.reason)


def test_a_chinese_alias_inside_a_longer_name_names_no_page(tmp_path: Path) -> None:
    """科维 is not written in 科维斯特: the page aliased 科维 lacks 维斯特, which the question writes as a
    name, and another company's contract date is not cited."""
    vault = write(
        tmp_path,
        {
            **_filler(),
            "客户/科维科技.md": (
                "---\ntitle: 科维科技\naliases: [科维]\n---\n# 科维科技\n\n- 类型：SaaS 客户，标准版\n"
                "- 合同：2024-03-01 起一年，到期日 2025-02-28\n- 对接：王芳\n"
            ),
            "会议/2025-04-周会.md": "# 2025-04 周会\n\n- 科维斯特（上海）的合同续签：新合同到期日 2028-01-14，存储节点扩到 10 个。\n- 对接人改为陈立。\n",
        },
    )
    with Router(vault) as router:
        receipt = router.decide("科维斯特的合同到期日是哪天？")
    assert receipt.decision == "refuse", receipt.reason
    assert "names it" not in receipt.reason


def test_a_topic_as_an_alias_names_no_page_another_writes(tmp_path: Path) -> None:
    """A cold review: the alias "release process" put the mobile release page ("a hotfix skips the full QA
    pass") over the backend deploy page, which writes "release process" three times, holds "staging"
    as the question does, and answers the opposite."""
    vault = write(
        tmp_path,
        {
            **_filler(),
            "Eng/Mobile app release.md": (
                "---\ntitle: Mobile app release\naliases: [release process]\n---\n# Mobile app release\n\n"
                "- Cut the release branch on Monday and run QA on the build.\n- Submit to the App Store; review"
                " takes two days.\n- A hotfix skips the full QA pass.\n"
            ),
            "Eng/Backend deploy.md": (
                "# Backend deploy\n\nOur release process for the API:\n\n- Merge to main; the pipeline deploys to"
                " staging and runs QA.\n- Promote to production from the pipeline.\n- A hotfix never skips QA: in the"
                " release process it goes through staging like any release, just faster.\n- Release process owner:"
                " the on-call backend engineer.\n"
            ),
        },
    )
    with Router(vault) as router:
        receipt = router.decide("release process: does a hotfix skip QA on staging?")
    assert receipt.candidates[0].path == "Eng/Backend deploy.md", receipt.reason
    assert "names it" not in receipt.reason


def test_a_question_naming_two_of_the_tied_pages_names_neither_alone(tmp_path: Path) -> None:
    """A cold review: "Zorvane Kvist and Norrland Freight" put the first customer's page first as named
    alone, with Norrland Freight listed third. Every page in the tie is looked at."""
    vault = write(
        tmp_path,
        {
            **_filler(),
            "Customers/科维斯特.md": KVIST,
            "Customers/Storage licences.md": (
                "# Storage licences\n\nEvery customer's licence counts storage nodes. Storage nodes on the licence:"
                " Brightline 8, Zorvane 6, Norrland 4.\nThe licence for storage nodes is renewed yearly; storage"
                " nodes beyond the licence are billed monthly.\n"
            ),
            "Customers/Norrland Freight.md": "# Norrland Freight\n\n- Cloud edition.\n- Contact: Per Holm.\n",
        },
    )
    with Router(vault) as router:
        receipt = router.decide(
            "Zorvane Kvist and Norrland Freight: how many storage nodes on the licence?", k=3
        )
    assert receipt.candidates[0].path != "Customers/科维斯特.md", receipt.reason
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


def test_an_agent_teaching_the_page_it_ties_with_is_a_dispute_for_the_owner(tmp_path: Path) -> None:
    """A cold review: the named page's citation has a margin below zero, which the teach check took for a
    weak one, so an agent teaching the English customer's page for the question about Zorvane Kvist was
    not held as a dispute. A citation of the page the question names is as firm as any."""
    vault = _customers(tmp_path)
    with Router(vault) as router:
        held = teach.teach(
            router,
            ASKED,
            "Customers/Brightline Health.md",
            "The contract runs out on 2026-09-30; renewal talks start in June.",
        )
    assert held.for_owner, held.to_text()
    assert held.reason.startswith("KRouter cites 客户/科维斯特.md"), held.reason
