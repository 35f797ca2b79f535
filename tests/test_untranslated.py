"""A Chinese question word no dictionary translates weighs half against a page written in English (D71)."""

from __future__ import annotations

from pathlib import Path

from krouter import Router
from krouter.routing.receipt import Receipt
from tests.vault_files import write

WARRANTY = {
    "Decisions/Warranty.md": (
        "---\ntitle: Two-year warranty\nstatus: current\n---\n# Two-year warranty\n\n"
        "Every lamp bought direct is guaranteed for two years. Customers send the broken part back with a\n"
        "prepaid label, and we replace it within five working days.\n"
    ),
    "Decisions/Returns.md": (
        "---\ntitle: Returns window\nstatus: current\n---\n# Returns window\n\n"
        "Customers may return an unused order within 45 days; the refund goes out when the parcel is scanned.\n"
    ),
    "Runbooks/Packing.md": (
        "# Packing station\n\nEach lamp is packed in a pulp insert and a printed box; the courier collects at four.\n"
    ),
}


def _ask(root: Path, question: str, pages: dict[str, str] | None = None) -> Receipt:
    with Router(write(root, {**WARRANTY, **(pages or {})})) as router:
        return router.ask(question)


def test_an_untranslatable_word_counts_half_against_a_page_in_the_other_language(tmp_path: Path) -> None:
    """回来 has no dictionary translation: the English page, reached through 客户 → customer and 零件 →
    part, may say it in words we cannot look for ("send ... back"). At full weight it refused the page
    (0.48 against the floor); the receipt names what was counted at half. 寄, a character no page holds,
    weighs half already (D41) and is not halved again."""
    r = _ask(tmp_path, "客户要把零件寄回来吗")
    assert r.decision == "cite"
    assert r.cited[0].path == "Decisions/Warranty.md"
    assert r.evidence.untranslated == ["回来"]
    assert "no translation known, counted at half: 回来" in r.to_text()


def test_a_word_the_dictionary_translates_still_counts_in_full(tmp_path: Path) -> None:
    """保修期 translates ("warranty period"): it was looked for in English and is not on the page."""
    r = _ask(tmp_path, "保修期是几年？客户要把零件寄回来吗")
    assert r.decision == "refuse"
    assert r.evidence.untranslated == ["回来"]


def test_a_page_in_the_question_language_weighs_every_missing_word_in_full(tmp_path: Path) -> None:
    """A Chinese page that holds the question's Chinese words as written lacks 寄 as a Chinese page does:
    nothing is halved, whatever the dictionary knows."""
    r = _ask(
        tmp_path,
        "客户要把零件寄回来吗",
        {"决策/零件.md": "# 零件更换\n\n客户的零件坏了，我们免费更换新的零件。\n"},
    )
    assert r.closest is not None and r.closest.path == "决策/零件.md"
    assert r.evidence.untranslated == []


GATEWAY_PROSE = "# 支付网关\n\n如果 payment API 出现 timeout，值班同学先看监控，再在群里说明情况。\n"
SHELL_BLOCK = (
    "\n```bash\nkubectl -n production logs deploy/payment-gateway --since=15m | grep -i timeout\n"
    "kubectl -n production rollout restart deployment/payment-gateway\n"
    "curl -s https://status.example.com/api/v2/components.json | jq '.components[]'\n```\n"
) * 2
ESCALATION = {"运维/升级.md": "# 升级\n\n线上故障一律交给平台组，由组长决定下一步。\n"}


def test_a_chinese_page_with_english_terms_and_code_is_not_an_english_page(tmp_path: Path) -> None:
    """The second cold review's case: a Chinese runbook whose shell block has far more Latin letters than
    its prose has Han characters, reached through 付款 → payment and 超时 → timeout, lacks 交给 (no
    dictionary entry) as a Chinese page does: it weighs in full and the page is refused. Counting the
    code made the page "English" and cited it at 0.61, where the escalation page answers."""
    for text in (GATEWAY_PROSE, GATEWAY_PROSE + SHELL_BLOCK):
        r = _ask(
            tmp_path / str(len(text)), "付款超时以后交给哪个组来收", {**ESCALATION, "运维/支付网关.md": text}
        )
        assert r.closest is not None and r.closest.path == "运维/支付网关.md"
        assert r.evidence.untranslated == [] and r.decision == "refuse"


def test_an_english_word_a_chinese_page_lacks_weighs_in_full(tmp_path: Path) -> None:
    """Chinese notes write names and terms in Latin letters (Kubernetes, Jira): an English question's word
    that a Chinese page reached through translations lacks is not discounted (the cold review's case)."""
    r = _ask(
        tmp_path,
        "who rolls back a failed Kubernetes migration",
        {
            "运维/数据库迁移回滚.md": "# 数据库迁移回滚\n\n迁移失败时，值班工程师执行回滚脚本，并在群里通知。\n",
            "Runbooks/Cluster.md": "# Cluster notes\n\nOur Kubernetes cluster runs in Frankfurt.\n",
        },
    )
    assert r.closest is not None and r.closest.path == "运维/数据库迁移回滚.md"
    assert r.evidence.untranslated == []


def test_an_english_note_that_names_chinese_colleagues_is_an_english_page(tmp_path: Path) -> None:
    """A meeting note written in English that lists its Chinese attendees and quotes two Chinese lines (a
    Han character for every seven or so Latin letters) is an English page: 国家 (no dictionary entry translates
    it) weighs half against it. At a tenth, the first form's bound, it was a Chinese page."""
    note = (
        "# Publisher sync\n\n**Attendees**: Megan Walsh, 陈昊, 李婧, 周小川\n\n"
        "## Arena soft launch\n- Agreed: soft launch in Canada, Australia and New Zealand only, starting "
        "2025-03-13, for three weeks.\n- Success bar: arena participation at least 25 percent on day one.\n"
        "- 陈昊: 先看留存再说。\n- 李婧: 加拿大和澳洲先上，新西兰看数据。\n"
        "- Megan to confirm the store listing dates with the marketing team by Friday.\n"
    )
    r = _ask(tmp_path, "竞技场软发布选了哪几个国家", {"Meetings/Publisher sync.md": note})
    assert r.closest is not None and r.closest.path == "Meetings/Publisher sync.md"
    assert "国家" in r.evidence.untranslated


def test_an_english_page_with_a_chinese_alias_is_still_an_english_page(tmp_path: Path) -> None:
    """A bilingual vault gives English pages Chinese aliases (鹿特丹仓 beside "Rotterdam warehouse"). The
    alias holds 零件 as written, but the page's prose is English: 回来, which no dictionary translates,
    weighs half against it as it does against the page without the alias. Before, the alias made the
    page hold a question word as written and 回来 weighed in full (refused at 0.48)."""
    aliased = WARRANTY["Decisions/Warranty.md"].replace(
        "status: current\n", "status: current\naliases: [零件]\n"
    )
    r = _ask(tmp_path, "客户要把零件寄回来吗", {"Decisions/Warranty.md": aliased})
    assert r.decision == "cite" and r.cited[0].path == "Decisions/Warranty.md"
    assert r.evidence.untranslated == ["回来"]


def test_a_chinese_word_the_body_writes_makes_no_english_page_of_it(tmp_path: Path) -> None:
    """Only a name field is discounted: an English page whose text writes the question's Chinese word
    (零件) holds it as written there, and 回来 weighs in full as before, with the alias or without it (a
    cold review: with both, the alias alone was read and the page cited at 56%)."""
    page = WARRANTY["Decisions/Warranty.md"].replace("the broken part", "the broken part (零件)")
    both = page.replace("status: current\n", "status: current\naliases: [零件]\n")
    for n, text in enumerate((page, both)):
        r = _ask(tmp_path / str(n), "客户要把零件寄回来吗", {"Decisions/Warranty.md": text})
        assert r.closest is not None and r.closest.path == "Decisions/Warranty.md"
        assert r.evidence.untranslated == [] and r.decision == "refuse", r.reason


def test_a_word_the_english_pages_hold_in_translation_is_not_cut_into_chinese_pieces(tmp_path: Path) -> None:
    """A bug hunt: 数据库, which the Chinese pages never write, was cut to 数据 + 库 against them, and the
    cache page's 数据 (data) was cited at 58%; the English page on the primary database was never tried."""
    vault = write(
        tmp_path,
        {
            "项目/缓存方案.md": "# 缓存方案\n\n缓存过期时间默认 10 分钟，热点数据 1 小时。\n",
            "Decisions/Primary database.md": "# Primary database\n\nThe primary database is PostgreSQL 16 on RDS.\n",
            "Runbooks/Deploy.md": "# Deploy\n\nDeploys go out from main after CI is green.\n",
        },
    )
    with Router(vault) as router:
        receipt = router.decide("我们用什么数据库")
    assert receipt.decision == "cite" and receipt.top is not None
    assert receipt.top.path == "Decisions/Primary database.md"
    assert receipt.evidence.query_terms == ["数据库"]


def test_a_piece_the_recut_makes_is_the_vaults_only_as_written(tmp_path: Path) -> None:
    """收 + 条 of 能收几条 is no 收条 ("a receipt") because an English page writes "receipt": only the
    segmenter's own words are kept whole for a translation (a first version lost colloquial K03)."""
    vault = write(
        tmp_path,
        {
            "运维/短信.md": "# 短信\n\n同一个手机号一天最多收 10 条验证码。\n",
            "Finance/Expenses.md": "# Expenses\n\nKeep the receipt for anything over 50 pounds.\n",
        },
    )
    with Router(vault) as router:
        receipt = router.decide("一个手机号一天最多能收几条验证码？")
    assert "收条" not in receipt.evidence.query_terms
    assert receipt.top is not None and receipt.top.path == "运维/短信.md"
