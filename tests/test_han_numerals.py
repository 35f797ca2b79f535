"""A number a question says in Han numerals (两千, 一百五, 九点) is looked up as the digits notes write, where
it can be nothing else and the vault does not write it as asked (krouter/tokens/han_numerals.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from krouter import Router
from krouter.tokens.han_numerals import in_digits, value
from tests.vault_files import write

PAGES = {
    "行政/采购审批.md": "---\ntitle: 采购审批\n---\n# 采购审批\n\n深圳办公室采购单笔上限 2000 元，超过找陈总签字。\n",
    "行政/作息.md": "---\ntitle: 作息\n---\n# 作息\n\n深圳办公室 9:00 上班，午休 1.5 小时。\n",
    "财务/报税收费.md": "---\ntitle: 报税收费\n---\n# 报税收费\n\n个人报税基本款 150 元，每套出租房另加 120 元。\n",
    # A vault that writes a numeral as Han keeps finding it so.
    "值班/周会.md": "---\ntitle: 周会\n---\n# 周会\n\n周会每周三下午三点开，在小会议室。\n",
    "旅行/九寨沟.md": "---\ntitle: 九寨沟\n---\n# 九寨沟\n\n九寨沟住的酒店有电梯，老人可以住低楼层。\n",
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write(tmp_path / "vault", PAGES)


@pytest.mark.parametrize(
    ("question", "page", "shown"),
    [
        ("深圳办公室采购还是两千块封顶吗", "行政/采购审批.md", "两千"),
        ("深圳那边还是九点上班吧", "行政/作息.md", "九"),
        ("个人报税基本款还是一百五吧", "财务/报税收费.md", "一百五"),
    ],
)
def test_a_numeral_the_notes_write_in_digits_is_found(
    vault: Path, question: str, page: str, shown: str
) -> None:
    """Each was refused before: the numeral was a Han word no page holds, said to be missing."""
    with Router(vault) as router:
        receipt = router.decide(question)
    assert receipt.decision == "cite", receipt.reason
    assert receipt.top is not None and receipt.top.path == page
    assert shown in receipt.top.matched, receipt.top
    assert shown not in receipt.evidence.corpus_missing


def test_a_numeral_the_vault_writes_as_asked_is_looked_up_as_written(vault: Path) -> None:
    with Router(vault) as router:
        receipt = router.decide("周会是不是周三下午三点开")
        lake = router.decide("九寨沟的酒店有电梯吗")
    assert receipt.top is not None and receipt.top.path == "值班/周会.md"
    assert "三点" in receipt.top.matched, receipt.top
    assert lake.top is not None and lake.top.path == "旅行/九寨沟.md" and "九寨沟" in lake.top.matched


# What a cold review of the first form found, each a small vault of its own: a wrong page cited, or a right
# answer lost with the numeral said to be missing from a vault that writes it.
HOLIDAY = {
    "值班/国庆.md": "# 国庆\n\n国庆假期 10月1日到7日，仓库停发，客服值班小王。\n",
    "仓库/盘点.md": "# 盘点\n\n每月 11 号盘点，仓库停发一天。\n",
}
RENTS = {
    "房源/阳光小区301.md": "# 阳光小区301\n\n月租 2000 元，两室一厅，朝南，现在空着。\n",
    "房源/阳光小区502.md": "# 阳光小区502\n\n月租 2100 元，两室一厅，朝北，现在空着。\n",
}
CHAIRS = {"行政/办公椅.md": "# 办公椅\n\n办公椅采购每把一千五百块以内，超出找行政主管。\n"}
SHIPPING = {"店/運費.md": "# 運費\n\n訂單滿兩千元免運費，偏遠地區另計。\n"}


@pytest.mark.parametrize(
    ("pages", "question", "page"),
    [
        (HOLIDAY, "十一仓库停发吗", None),  # the October holiday, not the 11th of the month
        (RENTS, "两千一个月的那套还空着吗", "房源/阳光小区301.md"),  # 2000 a month, not 2100
        (CHAIRS, "办公椅一千五百块以内吗", "行政/办公椅.md"),  # the vault writes 一千五百
        (SHIPPING, "两千以上免运费吗", "店/運費.md"),  # and 兩千, in Traditional characters
    ],
)
def test_what_the_review_found(
    tmp_path: Path, pages: dict[str, str], question: str, page: str | None
) -> None:
    with Router(write(tmp_path / "vault", pages)) as router:
        receipt = router.decide(question)
    if page is None:
        assert receipt.decision == "refuse", (receipt.top, receipt.reason)
    else:
        assert receipt.decision == "cite", receipt.reason
        assert receipt.top is not None and receipt.top.path == page, receipt.top


@pytest.mark.parametrize(
    ("run", "number"),
    [
        ("十二", 12),
        ("三十", 30),
        ("两千", 2000),
        ("一百零五", 105),
        ("两千零五十", 2050),
        ("一百五", 150),
        ("两千五", 2500),
        ("三万二", 32000),
        ("十五万", 150000),
        ("三亿五千万", 350000000),
        ("二〇二五", None),  # digits in a row: a year, read by the date rules
        ("五一", None),  # the May Day holiday
        ("百", None),  # 百度, 百货: no digit before it
        ("千万", None),  # 千万别: "by no means"
        ("万一", None),
        ("三万五万", None),
        ("十十", None),
    ],
)
def test_the_value_of_a_run_of_numerals(run: str, number: int | None) -> None:
    assert value(run) == number


@pytest.mark.parametrize(
    ("question", "read"),
    [
        ("值班最少要三个人", "值班最少要3个人"),
        ("打个九折", "打个9折"),
        ("十分钟就好", "10分钟就好"),
        ("周三下午两点", "周三下午2点"),  # the weekday stays, the hour is read
        ("十五万左右", "150000左右"),
        ("两万一平的是哪个区", "20000一平的是哪个区"),  # 20000 a square metre
        ("三十天", "30天"),
        ("七月份走之前", "7月份走之前"),  # counting on: 七月份, 九点半
        ("还是两百那个吧", "还是200那个吧"),  # a large number needs no measure word
        # Left as written: a weekday, an ordinal, a festival, a name, "very", "a", a stop word, a date.
        ("礼拜四晚上", "礼拜四晚上"),
        ("第二封催款邮件", "第二封催款邮件"),
        ("双十一临时工", "双十一临时工"),
        ("老三来了吗", "老三来了吗"),
        ("这事十分重要", "这事十分重要"),
        ("一个人值班", "一个人值班"),
        ("两个工作日内", "两个工作日内"),
        ("三星手机", "三星手机"),
        ("三月四号几点开会", "三月四号几点开会"),
        ("十三行", "十三行"),  # no measure word, no 百, 千, 万
        ("零五年那次", "零五年那次"),
        ("几十万的单子", "几十万的单子"),
        ("十万火急", "十万火急"),  # longer dictionary words
        ("五台山", "五台山"),
        ("八成是忘了", "八成是忘了"),
        ("十一期间", "十一期间"),
        ("九月初三是谁的生日", "九月初三是谁的生日"),  # a lunar date, not 9 月 3 日
        ("五月天演唱会谁去", "五月天演唱会谁去"),  # a band
    ],
)
def test_which_numerals_are_read(question: str, read: str) -> None:
    assert in_digits(question, lambda term: False)[0] == read


def test_nothing_is_read_without_an_index_or_where_the_vault_writes_it() -> None:
    assert in_digits("还是两千块封顶吗", None) == ("还是两千块封顶吗", {})
    assert in_digits("还是两千块封顶吗", {"两千"}.__contains__)[0] == "还是两千块封顶吗"
    assert in_digits("下午三点开", {"三点"}.__contains__)[0] == "下午三点开"
