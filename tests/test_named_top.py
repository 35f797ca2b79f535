"""A question that writes the top page's name and not the runner-up's says which page it asks about (D178)."""

from __future__ import annotations

from pathlib import Path

from krouter import Router
from tests.vault_files import write

YELLOW = (
    "# 黄蝉\n\n黄蝉，别称黄兰蝉、硬枝黄蝉，夹竹桃科黄蝉属的植物。\n"
    "灌木，高可达 2 米；叶子 3 到 5 枚轮生，椭圆形。花冠黄色，漏斗状，花期 5 到 8 月。\n"
    "全株有毒，误食会腹痛、腹泻。枝条比软枝黄蝉的硬。\n"
)
SOFT = (
    "# 软枝黄蝉\n\n软枝黄蝉，又名黄莺、软枝花，夹竹桃科黄蝉属的藤状灌木。\n"
    "枝条柔软，叶子 3 到 4 枚轮生，倒卵形。花冠黄色，漏斗状，比黄蝉的大。\n"
    "花期 4 到 9 月。原产巴西，常作庭园观赏植物。\n"
)


def test_the_page_a_question_names_is_not_tied_with_one_it_does_not(tmp_path: Path) -> None:
    """Two plant pages hold the same words (黄蝉 and 软枝黄蝉 scored 12.8 and 12.6 in CMRC TRIAL_352,
    refused as a tie at 26%). A question that writes one page's name, which no other page's name holds,
    and not the other's, says which it asks about: its lead counts in full, and the reason says why;
    黄蝉 written inside 软枝黄蝉 does not name the first page. 黄蝉 itself is part of 软枝黄蝉's name, so a
    question writing only 黄蝉 does not tell the two apart (a second cold review: "deploy guide" beside
    "Kubernetes deploy guide"), nor does one writing both names."""
    frangipani = (
        "# 鸡蛋花\n\n鸡蛋花，夹竹桃科鸡蛋花属的落叶小乔木。\n"
        "叶子 3 到 5 枚轮生，椭圆形。花冠黄色，漏斗状，花期 5 到 8 月。全株有毒，误食会腹痛。\n"
    )
    like = "花形常被比作鸡蛋花，花期也和鸡蛋花相近。\n"
    pages = {"植物/黄蝉.md": YELLOW + like, "植物/软枝黄蝉.md": SOFT + like, "植物/鸡蛋花.md": frangipani}
    vault = write(tmp_path, pages)
    with Router(vault) as router:
        named = router.decide("鸡蛋花的花期是几月？")
        soft = router.decide("软枝黄蝉的花期是几月？")
        part = router.decide("黄蝉的花期是几月？")
        both = router.decide("黄蝉和软枝黄蝉的花期是几月？")
    assert named.decision == "cite" and named.top is not None, named.reason
    assert named.top.path == "植物/鸡蛋花.md"
    assert "the question names it ('鸡蛋花') and not that page" in named.reason
    assert named.evidence.margin < 0.25 and named.evidence.confidence == named.evidence.coverage
    assert soft.decision == "cite" and soft.top is not None and soft.top.path == "植物/软枝黄蝉.md", (
        soft.reason
    )
    assert "the question names it ('软枝黄蝉')" in soft.reason
    assert "names it" not in part.reason and "names it" not in both.reason, (part.reason, both.reason)


def test_a_name_must_tell_a_page(tmp_path: Path) -> None:
    """A title of one everyday word (Travel) names no page: a question writing "travel" is not about
    the Travel page for it. A closing qualifier in brackets is not part of the name: "firmware release
    window" names "Firmware release window (2025)"."""
    vault = write(
        tmp_path,
        {
            "Notes/Travel.md": "# Travel\n\nBook trains for trips under four hours; flights otherwise.\n",
            "Notes/Conference trips.md": "# Conference trips\n\nBook trains for conference trips under four hours.\n",
            "Decisions/Firmware release window (2025).md": (
                "# Firmware release window (2025)\n\nFirmware updates go out on Thursday mornings, China time.\n"
            ),
            "Runbooks/Light firmware OTA.md": (
                "# Light firmware OTA\n\nFirmware release steps: updates go out to lights on Thursday mornings; "
                "check the OTA queue.\n"
            ),
        },
    )
    with Router(vault) as router:
        travel = router.decide("do we book trains for travel under four hours?")
        window = router.decide("firmware release window: do updates go out on Thursday mornings?")
    assert "names it" not in travel.reason, travel.reason
    assert "the question names it ('Firmware release window')" in window.reason, window.reason


def test_a_page_reached_only_through_the_page_it_replaced(tmp_path: Path) -> None:
    """The top page's words may all be its replaced page's (the current page matched none of them): the
    check of its name reads the current page's title, not a contributor's (a KeyError on the bench's
    first run of this rule)."""
    vault = write(
        tmp_path,
        {
            "Decisions/Courier (2023).md": (
                "---\nstatus: superseded\nsuperseded_by: '[[Decisions/Courier]]'\n---\n"
                "# Courier (2023)\n\nParcels to Germany go with DHL; pickup at 3pm.\n"
            ),
            "Decisions/Courier.md": "# Courier\n\nWe moved to a new carrier in 2025 (see the contract).\n",
            "Notes/Warehouse.md": "# Warehouse\n\nParcels to Germany are packed by 2pm.\n",
        },
    )
    with Router(vault) as router:
        receipt = router.decide("when is the pickup for parcels to Germany?")
    assert receipt.top is not None and receipt.top.path == "Decisions/Courier.md", receipt.reason
    assert receipt.top.via == "Decisions/Courier (2023).md"


def test_pages_that_share_a_name_stay_tied(tmp_path: Path) -> None:
    """A cold review: two pages that share a name (yearly pages with a closing qualifier, two meetings
    headed "Weekly sync") were told apart by the path order at 100%, the stale one as often as not. The
    question writes both pages' name, so it does not say which: the lead counts as it did. So does a
    question writing the runner-up's longer name ("Zorvane contacts") or an alias of it."""
    budget = "# Household budget ({year})\n\nGroceries: £{n} a month.\nEating out: £120 a month.\n"
    vault = write(
        tmp_path,
        {
            "Home/Household budget (2024).md": budget.format(year=2024, n=450),
            "Home/Household budget (2025).md": budget.format(year=2025, n=480),
            "家/家庭预算（2024）.md": "# 家庭预算（2024）\n\n买菜：每月 3000 元。\n",
            "家/家庭预算（2025）.md": "# 家庭预算（2025）\n\n买菜：每月 3500 元。\n",
            "Customers/Zorvane.md": (
                "# Zorvane\n\nSelf-hosted enterprise customer in Porto, 300 seats.\n\n"
                "- Admin: Rui Costa (IT lead) handles upgrades\n- Billing contact: finance@zorvane.example\n"
                "- Full list: [[Customers/Zorvane contacts]]\n"
            ),
            "Customers/Zorvane contacts.md": (
                "---\naliases: [Zorvane people]\n---\n# Zorvane contacts\n\nUpdated May 2025 after their reorg.\n\n"
                "- Admin: Marta Silva (replaced Rui Costa)\n- Billing contact: ap@zorvane.example\n"
                + "".join(f"- Site engineer {i}: Porto plant, extension {4000 + i}\n" for i in range(6))
            ),
        },
    )
    with Router(vault) as router:
        for question in (
            "how much is the household budget for groceries per month?",
            "家庭预算里买菜每月多少钱",
            "Zorvane contacts: who is the admin?",
            "Zorvane people: who is the admin?",
        ):
            receipt = router.decide(question)
            assert "names it" not in receipt.reason, (question, receipt.reason)
            assert receipt.evidence.confidence < receipt.evidence.coverage, (question, receipt.reason)


def test_a_name_another_page_s_name_holds_tells_no_page(tmp_path: Path) -> None:
    """A second cold review: "deploy guide: how do I roll back the API?" cited the old "Deploy guide" (a
    VM fleet) at 100% beside the current "Kubernetes deploy guide", and "Household budget" beside
    "Household budget 2025"; a page sharing the name ranked third was not looked at. A name another
    current page's name holds does not say which page the question means."""
    extra = "".join(f"- Line {n}: {10 * n}\n" for n in range(20))
    vault = write(
        tmp_path,
        {
            "Eng/Deploy guide.md": (
                "# Deploy guide\n\nDeploying the API to the old VM fleet.\n\n- SSH to deploy-01 and run "
                "`./deploy.sh api`.\n- To roll back, run `./deploy.sh api --previous`.\n- Logs in /var/log/api.\n"
            ),
            "Eng/Kubernetes deploy guide.md": (
                "# Kubernetes deploy guide\n\nSince May 2025 the API runs on Kubernetes.\n\n- Deploy: merge to "
                "main; Argo CD syncs.\n- To roll back: `argocd app rollback api`.\n- Logs: `kubectl logs`.\n"
            ),
            "Home/Household budget (2024).md": "# Household budget (2024)\n\n- Groceries: 450 a month\n",
            "Home/Household budget (2025).md": (
                "# Household budget (2025)\n\nAgreed in January.\n\n- Groceries: 520 a month\n" + extra
            ),
            "Home/Meal planning.md": (
                "# Meal planning\n\nGroceries: one big shop a month. Household budget note: groceries money "
                "comes out of the joint account each month; groceries per month are the biggest household "
                "budget line. Household budget check each month: groceries receipts in the envelope.\n"
            ),
        },
    )
    with Router(vault) as router:
        for question in ("deploy guide: how do I roll back the API?", "household budget: groceries a month?"):
            receipt = router.decide(question)
            assert "names it" not in receipt.reason, (question, receipt.reason)


def test_a_name_an_alias_or_a_replaced_page_holds_tells_no_page(tmp_path: Path) -> None:
    """A third cold review: the old "Deploy guide" was cited at 100% when the current runbook held the
    name only as an alias, or through the page it replaced ("Kubernetes deploy guide"). Other pages'
    aliases and replaced pages' names count: the question does not say which page it means."""
    old = (
        "# Deploy guide\n\nHow we deploy the API on the VM fleet.\n\n- Deploy: `./deploy.sh api`\n"
        "- Roll back: `./deploy.sh api --previous`\n- Hosts: api-01..api-06\n"
    )
    new = (
        "Since May 2025 the API runs on Kubernetes.\n\n- Deploy: `argocd app sync api`\n"
        "- Roll back: `argocd app rollback api`\n- Cluster: prod-eu-1\n"
    )
    filler = {
        "Eng/Onboarding.md": "# Onboarding\n\nLaptop, accounts, first week.\n",
        "Eng/On-call.md": "# On-call\n\nPager rotation weekly. Escalate to the platform lead.\n",
    }
    vaults = {
        "alias": {
            "Eng/Deploy guide.md": old,
            "Eng/Platform runbook.md": "---\naliases: [Deploy guide]\n---\n# Platform runbook\n\n" + new,
        },
        "replaced": {
            "Eng/Deploy guide.md": old,
            "Eng/Kubernetes deploy guide.md": (
                "---\nstatus: superseded\nsuperseded_by: '[[Platform runbook]]'\n---\n"
                "# Kubernetes deploy guide\n\n" + new
            ),
            "Eng/Platform runbook.md": "# Platform runbook\n\n" + new,
        },
    }
    for name, pages in vaults.items():
        with Router(write(tmp_path / name, {**filler, **pages})) as router:
            for question in (
                "how do I roll back a deploy? check the deploy guide",
                "deploy guide: roll back the API?",
            ):
                receipt = router.decide(question)
                assert "names it" not in receipt.reason, (name, question, receipt.reason)
