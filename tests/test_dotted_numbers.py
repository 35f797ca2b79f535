"""A number written with dots (a version, an address: 5.7, v8.0.36, 10.0.0.1) is one word of a question:
"Redis 7.0" is not answered by the page about Redis 6.0 because both hold a 0."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from krouter import Router
from krouter.tokens.terms import index_terms, length_of, query_terms
from tests.vault_files import write

PAGES = {
    "发布/Redis 6.0 升级.md": "---\ntitle: Redis 6.0 升级\n---\n# Redis 6.0 升级\n\n"
    "Redis 6.0 已经在 3 月 12 日上线，所有服务都切过去了。\n",
    "Decisions/Primary database.md": "---\ntitle: Primary database\n---\n# Primary database\n\n"
    "Production runs MySQL 8.0.36 on RDS since March; the old MySQL 5.7 cluster was shut down.\n",
    "Daily/2024-11-08.md": "---\ntitle: 2024-11-08\n---\n# 2024-11-08\n\nThe payments incident review moved to Friday.\n",
    # A rate written with more decimals than the version: 7.05 must not give 7.0 (a cold review's repro).
    "财务/贷款利率.md": "---\ntitle: 贷款利率\n---\n# 贷款利率\n\n贷款利率下调到 7.05%，从下月起执行。\n",
    "Product/Public API.md": "---\ntitle: Public API\n---\n# Public API\n\n"
    "The public API v2.1 went live in May; the standup is at 9:30 and the plan costs $1.99 a seat.\n",
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write(tmp_path / "vault", PAGES)


def test_a_version_the_vault_never_writes_is_missing_not_matched_by_its_digits(vault: Path) -> None:
    with Router(vault) as router:
        receipt = router.decide("Redis 7.0 什么时候上线")
    assert receipt.decision == "refuse", receipt.reason
    assert receipt.evidence.corpus_missing == ["7.0"]


@pytest.mark.parametrize(
    ("question", "page"),
    [
        ("Redis 6.0 啥时候上线的", "发布/Redis 6.0 升级.md"),
        ("are we on MySQL 8.0 now", "Decisions/Primary database.md"),  # the page writes 8.0.36
        ("is the MySQL 5.7 cluster still up", "Decisions/Primary database.md"),
        ("are we on v8.0.36", "Decisions/Primary database.md"),
        # Notes write dates with hyphens: a dotted date falls back to its parts.
        ("what moved on 2024.11.08, the incident review?", "Daily/2024-11-08.md"),
        ("is API v2 live?", "Product/Public API.md"),  # v2.1 is also v2, as before
        ("does a seat cost 1.99 dollars?", "Product/Public API.md"),  # $1.99
        # A bare number no page writes bare meets the page's amount (a second review's repro).
        ("is a seat 1.99?", "Product/Public API.md"),
    ],
)
def test_a_dotted_number_the_page_writes_is_found(vault: Path, question: str, page: str) -> None:
    with Router(vault) as router:
        receipt = router.decide(question)
    assert receipt.decision == "cite" and receipt.top is not None and receipt.top.path == page, receipt.reason


def test_a_version_after_a_comma_is_still_one_word(tmp_path: Path) -> None:
    # A second review's repros: a comma (a Chinese one after NFKC) before the number cut it into digits.
    pages = {
        **PAGES,
        "Runbooks/Supported versions.md": "---\ntitle: Supported versions\n---\n# Supported versions\n\n"
        "Supported MySQL versions: 5.7,8.0,8.4.\n",
    }
    vault = write(tmp_path / "vault", pages)
    with Router(vault) as router:
        redis = router.decide("Redis 什么时候上线，7.0 呢")
        supported = router.decide("Is MySQL 8.4 supported?")
    assert redis.decision == "refuse" and "7.0" in redis.evidence.corpus_missing, redis.reason
    assert supported.decision == "cite" and supported.top is not None
    assert supported.top.path == "Runbooks/Supported versions.md"


def test_a_two_digit_minor_version_is_not_read_as_a_time(tmp_path: Path) -> None:
    # 6.12 is no 6:12: the digits of another version must not answer it (a second review's repro).
    pages = {"发布/Redis 6.2.md": "---\ntitle: Redis 6.2\n---\n# Redis 6.2\n\nRedis 6.2 已经在 12 月上线。\n"}
    vault = write(tmp_path / "vault", pages)
    with Router(vault) as router:
        receipt = router.decide("Redis 6.12 什么时候上线")
    assert receipt.decision == "refuse", receipt.reason


@pytest.mark.parametrize(
    "question",
    [
        "Redis 7.0 cache user sessions",  # every other word on the 6.0 page: 4 of 5 matched
        "Redis7.0 cache user sessions",  # glued to its name
        "Redis7.0缓存用户会话",
    ],
)
def test_a_version_no_page_holds_is_not_answered_by_another_versions_page(
    tmp_path: Path, question: str
) -> None:
    """A cold review: with enough other words the 6.0 page was cited for 7.0, and a version glued to its
    name (Redis7.0) hid the name ("redis7") and matched on "0"."""
    pages = {
        "Cache.md": "# Cache\n\nWe cache user sessions in Redis 6.0 on two nodes. 我们用Redis6.0缓存用户会话。\n",
        "Parking.md": "# Parking\n\nParking is free on Tuesdays.\n",
    }
    vault = write(tmp_path / "vault", pages)
    with Router(vault) as router:
        receipt = router.decide(question)
        glued = router.decide(question.replace("7.0", "6.0"))
    assert receipt.decision == "refuse" and receipt.evidence.corpus_missing == ["7.0"], receipt.reason
    assert glued.decision == "cite" and glued.top is not None and glued.top.path == "Cache.md", glued.reason


def test_a_name_glued_to_its_version_is_the_name_and_the_version() -> None:
    assert index_terms("MySQL5.7 and Python3.12") == ["mysql", "5", "7", "5.7", "python", "3", "12", "3.12"]
    # One letter before it is the version's own "v", and a bare word and number are left alone.
    assert index_terms("v8.0.36 redis7") == ["v8", "0", "36", "8.0", "8.0.36", "redis7"]


def test_dotted_numbers_as_terms() -> None:
    assert [t.term for t in query_terms("MySQL 5.7 or v8.0? 7.0啥时候上线")] == [
        "mysql",
        "5.7",
        "8.0",
        "7.0",
        "上线",
    ]
    assert index_terms("8.0.36") == ["8", "0", "36", "8.0", "8.0.36"]
    # Times and a full stop after a number are as before.
    assert [t.term for t in query_terms("at 10:30, in 2024.")] == ["10", "30", "2024"]
    # Whole or not at all: 7.05 is not 7.0, and no number starts after a dot or a thousands comma.
    assert index_terms("7.05%") == ["7", "05", "¤7.05"]
    # (A number grouped in thousands is also indexed whole, marked as an amount, with and without its
    # decimals: D140.)
    assert index_terms("x.1.2 and €1,234.50") == ["1", "2", "1", "234", "50", "¤1234.50", "¤1234"]
    assert index_terms("v2.1") == ["v2", "1", "2.1"]
    # A unit against the number or apart from it is the same words.
    assert [t.term for t in query_terms("2.5mm")] == [t.term for t in query_terms("2.5 mm")] == ["2.5", "mm"]
    # An amount is rounded by who asks ("about 2.6%" for 2.59%) and written with a sign or a word:
    # on a page and in a question alike, its parts match, as before.
    assert [t.term for t in query_terms("about 2.6% plus $0.49")] == ["2", "6", "plus", "0", "49"]
    assert (
        index_terms("1.99 dollars, 12.5元")
        == index_terms("$1.99 dollars, 12.5 元")
        == ["1", "99", "dollar", "12", "5", "元", "¤1.99", "¤12.5"]
    )
    # The dotted terms do not make a page longer: its parts count, as before.
    assert length_of(Counter(index_terms("MySQL 8.0.36"))) == 4
    # A page's amount is also indexed whole, marked as one, outside the length.
    assert index_terms("$1.99 a seat") == ["1", "99", "seat", "¤1.99"]
    assert length_of(Counter(index_terms("$1.99 a seat"))) == 3


def test_a_number_whose_thousands_are_grouped_is_the_number_written_without_commas(tmp_path: Path) -> None:
    """An agent-loop run: "每 1000 台抽几台来检？" was refused with "the vault never mentions '1000'" while
    the inspection page writes "1,000 台抽 80 台". A page keeps the parts of a grouped number (80,443 lists
    two ports as often as it writes one number) and is indexed with the whole, marked as an amount
    outside its length; a question's bare number finds it. A cold review's cases: a comma right before the
    number, decimals after it, a leading zero (a decimal comma), short lists; and a second review's: a
    dotted number is no spelling of an amount (2.1 of "churn was 2.1%")."""
    assert index_terms("1,000 台抽 80 台") == ["1", "000", "台", "抽", "台抽", "80", "台", "¤1000"]
    assert length_of(Counter(index_terms("1,000 台抽 80 台"))) == length_of(
        Counter(index_terms("1 000 台抽 80 台"))
    )
    assert "¤1000" in index_terms("抽检比例,1,000 台抽 80 台")
    assert index_terms("Inbound allowed: 80,443") == ["inbound", "allow", "80", "443", "¤80443"]
    assert index_terms("total: $12,480.00")[-2:] == ["¤12480.00", "¤12480"]
    assert index_terms("steps 1,2,3; AQL 1,5; 0,500") == ["step", "1", "2", "3", "aql", "1", "5", "0", "500"]
    # A question's grouped number is one number, shown as asked; its parts stay a route ("ports 80,443" of
    # a page writing "80 and 443": a second review, below).
    asked = query_terms("are ports 80,443 open")
    assert [(t.text, t.term) for t in asked] == [("ports", "port"), ("80,443", "80443"), ("open", "open")]
    vault = write(
        tmp_path / "vault",
        {
            "质检/出货检验.md": "# 出货检验\n\n- 抽样:每批 1,000 台抽 80 台,允收 2 台\n",
            "Ops/Firewall.md": "# Firewall\n\n- Inbound allowed: 80,443 from the load balancer\n",
            "Finance/Invoices.md": "# Invoices\n\n- ACME invoice total: $12,480.00, paid in May\n",
            "Releases/2.1.md": "# Importer release\n\nVersion 2.1 shipped the new importer.\n",
            "Metrics/Churn.md": "# Churn\n\nChurn was 2.1% in March after the pricing change.\n",
            "Team.md": "# Team\n\nHannah runs operations.\n",
        },
    )
    with Router(vault) as router:
        batch = router.decide("每 1000 台抽几台来检？")
        port = router.decide("which inbound port 443 is allowed on the firewall?")
        invoice = router.decide("which ACME invoice was 12,480 dollars?")
        version = router.decide("what changed in 2.1?")
    assert batch.decision == "cite" and batch.top is not None, batch.reason
    assert "1000" in batch.top.matched and batch.top.line == 3, batch.top
    assert port.decision == "cite" and port.top is not None and port.top.path == "Ops/Firewall.md", (
        port.reason
    )
    assert invoice.decision == "cite" and invoice.top is not None, invoice.reason
    assert invoice.top.path == "Finance/Invoices.md", invoice.top
    assert version.decision == "refuse" or version.top.path != "Metrics/Churn.md", version.reason


def test_a_number_counted_in_wan_is_the_number_a_page_writes_in_digits(tmp_path: Path) -> None:
    """The dev13 set: "单次查询 series 上限还是5万吧" counted 万 as a word the query API page lacks, a page
    writing "Max series touched per query: 200,000 (was 50,000)". Chinese counts in 万 (and 千, 亿) where
    notes write 50,000: a question's 5万 is 50000, and a page's 5 万 is indexed as the amount too. Not 万一
    ("in case"), and only a whole number (0.00005万 is left as written)."""
    assert [(t.text, t.term) for t in query_terms("上限还是5万吧")] == [("上限", "上限"), ("5万", "50000")]
    assert [t.term for t in query_terms("年费 1.5 万 预算 3千块")] == ["年费", "15000", "预算", "3000"]
    assert "万一" in [t.term for t in query_terms("万一挂了咋办")]
    # A cold review: only the first counter was read (3千万 as 3000 and 万, 1万2千 as 10000 and 2000), and
    # "哪个套餐每月写入上限是3千万" cited the plan capped at 3,000. Counters read together, or left as written.
    assert [t.term for t in query_terms("上限是3千万")] == ["上限", "30000000"]
    assert "10000" not in [t.term for t in query_terms("cap 是1万2千")]
    assert "¤30000000" in index_terms("预算 3千万") and "¤3000" not in index_terms("预算 3千万")
    # A second review: a number after a verb's 到 or 至 is read (only a range's end is not), 千 of a unit is
    # no thousand (5千瓦 cited the rack whose rent is 5000 元), and 2千多万 is not 2000.
    assert "50000" in [t.term for t in query_terms("上限提到5万了吗")]
    assert [t.term for t in query_terms("3万-5万")] == ["30000", "50000"]
    assert "5000" not in [t.term for t in query_terms("5千瓦的机柜月租多少")]
    assert "¤5000" not in index_terms("功率 5 千瓦")
    assert "5000" in [t.term for t in query_terms("5千字的文档")] and "¤10000" not in index_terms(
        "10 千伏线路"
    )
    assert "20000" not in [t.term for t in query_terms("20千牛的拉力")]
    assert "2000" not in [t.term for t in query_terms("2千多万")]
    assert "2000" not in [t.term for t in query_terms("cap 是1万2千")]
    assert "¤100000" in index_terms("10 万 series 以下的小租户")
    assert length_of(Counter(index_terms("10 万 series"))) == length_of(Counter(["10", "万", "seri"]))
    vault = write(
        tmp_path / "vault",
        {
            "Decisions/Query limits.md": "# Query limits\n\n- Max series touched per query: 200,000 (was 50,000).\n",
            "制度/小租户.md": "# 小租户\n\n- 10 万 series 以下的小租户按 Team 价收费。\n",
            "Team.md": "# Team\n\nHannah runs operations.\n",
        },
    )
    with Router(vault) as router:
        wan = router.decide("单次查询 series 上限还是5万吧")
        digits = router.decide("which tenants are under 100000 series?")
    assert wan.closest is not None and wan.closest.path == "Decisions/Query limits.md", wan.reason
    assert "5万" in wan.closest.matched and "万" not in wan.closest.missing, wan.closest
    assert digits.closest is not None and digits.closest.path == "制度/小租户.md", digits.reason
    assert "100000" in digits.closest.matched, digits.closest


def test_the_line_shown_for_a_number_counted_in_wan_is_the_one_that_writes_it(tmp_path: Path) -> None:
    """A cold review of D171: "10万 series 按什么价收费" was looked up as 100000, and the line shown was the
    50 万 one: a line is read with its counted numbers in digits beside them (10 万 100000)."""
    vault = write(
        tmp_path / "vault",
        {
            "定价规则.md": "# 定价规则\n\n按 series 数量分档收费：\n超过 50 万 series 按 Enterprise 合同价收费；\n"
            "10 万 series 按 Team 价收费。\n",
            "值班.md": "# 值班\n\n杭州团队每周轮换一次值班。\n",
        },
    )
    with Router(vault) as router:
        receipt = router.decide("10万 series 按什么价收费")
    assert receipt.top is not None and receipt.top.line == 5, receipt.top


def test_a_question_s_grouped_number_meets_the_number_however_a_page_writes_it(tmp_path: Path) -> None:
    """A bug hunt: "is the travel budget cap 230,000?" named '230' and '000' words the vault never
    mentions on the page writing 230000, and so did "报销上限是50,000元吗" on 5万元 and "관리비 230,000원"
    on 23만원: the question's number was looked up as its parts only."""
    vault = write(
        tmp_path / "vault",
        {
            "Budget.md": "# Budget\n\nThe travel budget cap is 230000 per year.\n",
            "报销.md": "# 报销\n\n差旅报销上限5万元。\n",
            "관리비.md": "# 관리비\n\n관리비는 매달 23만원입니다.\n",
            "Ops/Firewall.md": "# Firewall\n\nOpen ports 80 and 443 only.\n",
            "Team.md": "# Team\n\nHannah runs operations.\n",
        },
    )
    with Router(vault) as router:
        for question, page in (
            ("is the travel budget cap 230,000?", "Budget.md"),
            ("报销上限是50,000元吗", "报销.md"),
            ("관리비 230,000원 맞아?", "관리비.md"),
            ("are ports 80,443 open", "Ops/Firewall.md"),
        ):
            receipt = router.decide(question)
            assert receipt.top is not None and receipt.top.path == page, receipt.to_text()
            assert not receipt.evidence.corpus_missing, receipt.to_text()
