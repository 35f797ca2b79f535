"""Two pages whose words tie, one of them named by the question through an alias: the name does not put
that page first (D182 and D184 did, and were reverted after two cold reviews: D186). Each case below
cited a wrong page confidently under one of those forms."""

from __future__ import annotations

from pathlib import Path

from krouter import Router
from tests.vault_files import filler, write


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
            **filler(40),
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
            **filler(40),
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
        {**filler(40), "Customers/科维斯特.md": stale, "Meetings/2025-05-12 renewal call.md": call},
    )
    assert _top(vault, "Zorvane Kvist renewal: storage nodes on the new licence?") != "Customers/科维斯特.md"
    current = (
        "# Zorvane & Kvist\n\nAccount notes, updated June 2025.\n\n- Licence: 10 storage nodes since the June"
        " 2025 renewal.\n- Contract until 2028-01-14.\n- Storage nodes are in their own rack.\n"
    )
    vault = write(tmp_path / "amp", {"Customers/Zorvane & Kvist.md": current, "客户/科维斯特.md": stale})
    assert _top(vault, "how many storage nodes does Zorvane Kvist have?") != "客户/科维斯特.md"
