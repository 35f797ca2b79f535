"""A page named by the question through an alias. Where two pages' words tie, the name does not put that
page first (D182 and D184 did, and were reverted after two cold reviews: D186; each case below cited a
wrong page confidently under one of those forms). A page that never mentions the page the question
names by its alias is not cited for it (D187), as for a title or file name (D43)."""

from __future__ import annotations

from pathlib import Path

from krouter import Router
from tests.vault_files import write

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


def _top(vault: Path, question: str) -> str | None:
    with Router(vault) as router:
        receipt = router.decide(question)
    return receipt.top.path if receipt.top is not None else None


def test_a_first_name_alias_does_not_cite_the_person_for_a_figure_another_page_holds(tmp_path: Path) -> None:
    """The person page aliased Marta owns the ads budget but states no 2023 figure; the budget page does,
    and never writes Marta. D184 cited the person page at 78%."""
    vault = write(
        tmp_path,
        {
            **_filler(),
            "People/Marta Ruiz.md": (
                "---\ntitle: Marta Ruiz\naliases: [Marta]\n---\n# Marta Ruiz\n\n- Head of marketplace marketing;"
                " owns the Amazon ads budget and the ad agency contract.\n- Reviews the ads budget every quarter"
                " with finance.\n- Phone: +34 600 123 456\n"
            ),
            "Marketing/Amazon ads 2023.md": (
                "# Amazon ads 2023\n\n- Ads budget for 2023: EUR 48,000, split evenly across quarters.\n"
                "- Sponsored products took 70% of the budget.\n"
            ),
        },
    )
    assert _top(vault, "What was Marta's Amazon ads budget for 2023?") != "People/Marta Ruiz.md"


def test_a_topic_alias_does_not_cite_the_opposite_answer(tmp_path: Path) -> None:
    """The alias "release process" on the mobile page ("a hotfix skips the full QA pass"), the backend page
    writing "release process" and answering the opposite: D184 cited the mobile page at 100%."""
    vault = write(
        tmp_path,
        {
            **_filler(),
            "Eng/Mobile app release.md": (
                "---\ntitle: Mobile app release\naliases: [release process]\n---\n# Mobile app release\n\n"
                "- Cut the release branch on Monday and run QA on the build.\n- A hotfix skips the full QA pass"
                " and goes straight to the store.\n"
            ),
            "Eng/Backend deploy.md": (
                "# Backend deploy\n\nOur release process for the API:\n\n- Merge to main; the pipeline builds and"
                " runs QA.\n- Hotfix: a hotfix never skips QA. In the release process a hotfix goes through the"
                " full QA pass like any release; QA signs off every hotfix.\n- Hotfix QA: no hotfix skips QA, not"
                " even at night. A skipped QA pass blocks the hotfix.\n"
            ),
        },
    )
    assert _top(vault, "release process: does a hotfix skip QA?") != "Eng/Mobile app release.md"


def test_the_stale_aliased_page_is_not_cited_over_the_current_one(tmp_path: Path) -> None:
    """The customer page aliased Zorvane Kvist holds the old count (6 nodes); the renewal call with
    "Zorvane Kvist's infrastructure team", or a current page titled "Zorvane & Kvist", the new one (10).
    D182 cited the stale page, at 68% and at 100%."""
    stale = (
        "---\ntitle: 科维斯特\naliases: [Zorvane Kvist]\n---\n# 科维斯特\n\n- Self-hosted enterprise edition.\n"
        "- Licence: 6 storage nodes.\n- Contract until 2028-01-14.\n"
    )
    call = (
        "# 2025-05-12 renewal call\n\n- With Zorvane Kvist's infrastructure team.\n- After the renewal the"
        " licence grows to 10 storage nodes; the new contract price is ¥240,000 a year.\n- Renewal signed off"
        " by procurement on 2025-05-30.\n"
    )
    vault = write(
        tmp_path / "call",
        {**_filler(), "Customers/科维斯特.md": stale, "Meetings/2025-05-12 renewal call.md": call},
    )
    assert _top(vault, "Zorvane Kvist renewal: storage nodes on the new licence?") != "Customers/科维斯特.md"
    current = (
        "# Zorvane & Kvist\n\nAccount notes, updated June 2025.\n\n- Licence: 10 storage nodes since the June"
        " 2025 renewal.\n- Contract until 2028-01-14.\n- Storage nodes are in their own rack.\n"
    )
    vault = write(tmp_path / "amp", {"Customers/Zorvane & Kvist.md": current, "客户/科维斯特.md": stale})
    assert _top(vault, "how many storage nodes does Zorvane Kvist have?") != "客户/科维斯特.md"


BRIGHTLINE = (
    "---\ntitle: Brightline Health\ntags: [customer, enterprise]\n---\n# Brightline Health\n\n"
    "- Self-hosted enterprise edition, 8 storage nodes on the licence.\n"
    "- The contract runs out on 2026-09-30; renewal talks start in June.\n"
    "- Contact: Maria Lopez (infrastructure lead).\n"
)
KVIST_CN = (
    "---\ntitle: 科维斯特\ntags: [客户, 企业版]\naliases: [Zorvane Kvist, 科维斯特]\n---\n# 科维斯特（上海）\n\n"
    "- 类型：自托管企业版，客户自有机房\n- license：6 个存储节点，每年 ¥180,000\n"
    "- 合同期限：2025-01-15 起 3 年，至 2028-01-14\n- 对接：陈立\n"
)


def test_a_page_that_never_mentions_the_page_a_question_names_by_its_alias_is_not_cited(
    tmp_path: Path,
) -> None:
    """A cold review: "Zorvane Kvist: when do the contract renewal talks start…" cited the other
    customer's page at 60% (its renewal talks, its contact). The question names 科维斯特 by its alias, and
    Brightline Health never mentions it: it asks about another subject, as with a title (D43, D187)."""
    vault = write(tmp_path, {"Customers/Brightline Health.md": BRIGHTLINE, "客户/科维斯特.md": KVIST_CN})
    with Router(vault) as router:
        receipt = router.decide(
            "Zorvane Kvist: when do the contract renewal talks start, and who is the contact?"
        )
    assert receipt.decision == "refuse", receipt.reason
    assert "the question names 'Zorvane Kvist', the page 客户/科维斯特.md" in receipt.reason


def test_a_page_that_mentions_the_named_page_by_another_name_is_not_vetoed(tmp_path: Path) -> None:
    """The veto holds only for a page that never mentions the named page by any of its names: an account
    review writing 科维斯特 is about it, though the question wrote its English alias."""
    review = (
        "# 2025 account review\n\n- 科维斯特: the contract runs out on 2028-01-14; renewal talks start in"
        " October. Contact: Chen Li.\n"
    )
    vault = write(tmp_path, {"Meetings/2025 account review.md": review, "客户/科维斯特.md": KVIST_CN})
    with Router(vault) as router:
        receipt = router.decide("Zorvane Kvist: when do the renewal talks start?")
    assert "the question names 'Zorvane Kvist'" not in receipt.reason, receipt.reason
