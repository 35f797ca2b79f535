"""The work glossary: workplace senses CC-CEDICT lacks (消息 → message, 作业 → job), both ways."""

from __future__ import annotations

from pathlib import Path

import pytest

from krouter import Router
from krouter.routing.receipt import Receipt
from krouter.tokens import bilingual, work_glossary
from tests.vault_files import write

# The page in the other language beside each one asked about: a question must find its page, not this.
PAYMENTS = {"Runbooks/Payments.md": "# Payments\n\nThe payments API timeout is 30 seconds.\n"}


def _ask(root: Path, rel: str, text: str, question: str) -> Receipt:
    """Ask ``question`` of a vault holding the page ``rel`` and the payments page."""
    with Router(write(root, {rel: text, **PAYMENTS})) as router:
        return router.ask(question)


def test_every_line_of_the_shipped_glossary_is_an_entry() -> None:
    """A line the parser skips would be a translation nobody gets, silently."""
    lines = [line for line in work_glossary._lines() if line.strip() and not line.startswith("#")]
    entries = work_glossary.entries()
    assert len(lines) > 500
    assert [zh for zh, _ in entries] == [line.split("\t")[0] for line in lines]
    assert len({zh for zh, _ in entries}) == len(entries), "one line per Chinese word"
    # Every rendering is read, and none repeats another of its line once stemmed.
    written = {line.split("\t")[0]: line.split("\t")[1].split("; ") for line in lines}
    for zh, renderings in entries:
        assert len(renderings) == len(written[zh]), zh
        assert len({tuple(t for t, _ in words) for words in renderings}) == len(renderings), zh


def test_a_rendering_that_stop_words_would_change_is_not_kept() -> None:
    entries = dict(
        work_glossary.entries(
            [
                "扩容\tscale up; scale out; capacity expansion",
                "值班\ton duty; on-call",
                "自测\tself-test",
                "年终奖\tyear-end bonus",
                "单\tsingle",
                "回滚\trollback",
            ]
        )
    )
    assert entries["扩容"] == [[("capac", "capacity"), ("expans", "expansion")]]
    assert "值班" not in entries  # "on duty" is "duty", "on-call" is "call"
    assert entries["自测"] == [[("self", "self-test"), ("test", "self-test")]]
    assert "年终奖" not in entries  # three words
    assert "单" not in entries  # a single character is no entry
    assert entries["回滚"] == [[("rollback", "rollback")]]


def test_the_glossary_sense_comes_before_the_dictionary_s() -> None:
    assert bilingual.to_english("消息")[0] == (("messag",), "message")
    assert bilingual.to_english("作业")[0] == (("job",), "job")
    assert bilingual.to_chinese("canari")[0] == "灰度"


def test_a_changed_glossary_compiles_a_new_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = bilingual._source()
    assert source is not None
    today = bilingual._store_path(source)
    other = tmp_path / "work_glossary.tsv"
    other.write_text("消息\tmessage\n", encoding="utf-8")
    monkeypatch.setattr(work_glossary, "_PATH", other)
    assert bilingual._store_path(source) != today


def test_a_chinese_question_reaches_an_english_page_through_the_glossary(tmp_path: Path) -> None:
    receipt = _ask(
        tmp_path,
        "Runbooks/Flink job restart.md",
        "# Flink job restart\n\nA failed job is restarted from its latest savepoint by the on-call engineer.\n",
        "Flink 作业怎么重启",
    )
    assert receipt.closest is not None and receipt.closest.path == "Runbooks/Flink job restart.md"
    assert "作业→job" in receipt.closest.matched


def test_an_english_question_reaches_a_chinese_page_through_the_glossary(tmp_path: Path) -> None:
    receipt = _ask(
        tmp_path,
        "运维/灰度发布.md",
        "# 灰度发布\n\n新版本先灰度 5% 的用户，观察两小时没有告警再全量。\n",
        "what share of users gets the canary first",
    )
    assert receipt.closest is not None and receipt.closest.path == "运维/灰度发布.md"
    assert "canary→灰度" in receipt.closest.matched


def test_the_glossary_pushes_no_dictionary_word_out(tmp_path: Path) -> None:
    """A cold review: "crash" reached 死机 through CC-CEDICT until the glossary's 崩溃, 挂掉 and 闪退 took
    the places CC-CEDICT's words had; the glossary's words now come on top of them."""
    receipt = _ask(
        tmp_path,
        "运维/服务器死机处理.md",
        "# 服务器死机处理\n\n物理机死机后先在云管平台确认机器状态，尝试软重启；不行就找机房值班做硬重启。\n",
        "what to do when a server crashes",
    )
    assert receipt.decision == "cite"
    assert receipt.top is not None and receipt.top.path == "运维/服务器死机处理.md"
    assert "crashes→死机" in receipt.top.matched


def test_a_translation_no_page_holds_takes_no_place_of_one_a_page_holds(tmp_path: Path) -> None:
    """Only the first few translations a page holds count; 负责人 and 责任人 (owner), which this vault never
    writes, took the places of 所有者, which it does."""
    receipt = _ask(
        tmp_path,
        "数据/数据所有者.md",
        "# 数据所有者\n\n每张核心数据表都要登记数据所有者。所有者负责确认取数申请，一般是业务方的组长。\n",
        "who is the owner of the core data tables",
    )
    assert receipt.top is not None and receipt.top.path == "数据/数据所有者.md"
    assert "owner→所有者" in receipt.top.matched


def test_a_rendering_is_shown_as_written_in_the_file_s_order() -> None:
    """A hyphenated word was shown once per part ("self-test self-test"), and a line's renderings came in
    the order of their stems, not the file's."""
    assert bilingual.to_english("自测")[0] == (("self", "test"), "self-test")
    assert bilingual.to_english("报销")[0] == (("reimburs",), "reimbursement")
    # The glossary's wording, not CC-CEDICT's of the same stems ("real time").
    assert (("real", "time"), "real-time") in bilingual.to_english("实时")


def test_an_abbreviation_the_glossary_knows_still_names_a_subject(tmp_path: Path) -> None:
    """A cold review: the glossary's abbreviations (SLA, GMV) stopped counting as names, and a question
    naming one the vault never mentions was cited from a page about something else (D59)."""
    vault = write(
        tmp_path,
        {
            "Payments.md": "# Payments\n\nThe payments API timeout is 30 seconds. Retries happen twice.\n",
            "Onboarding.md": "# Onboarding\n\nNew hires get a laptop on day one.\n",
        },
    )
    with Router(vault) as router:
        receipt = router.ask("What is the SLA for the payments API timeout retries?")
    assert receipt.decision == "refuse"
    assert "'sla'" in receipt.reason


def test_an_unreadable_glossary_leaves_the_dictionary_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = tmp_path / "work_glossary.tsv"
    bad.write_bytes(b"\xff\xfe not utf-8\n")
    monkeypatch.setattr(work_glossary, "_PATH", bad)
    monkeypatch.setenv("KROUTER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(bilingual, "_conn", None)
    monkeypatch.setattr(bilingual, "_unavailable", False)
    bilingual.to_english.cache_clear()
    try:
        assert (("databas",), "database") in bilingual.to_english("数据库")
        assert bilingual.to_english("作业")[0] != (("job",), "job")
    finally:
        bilingual.to_english.cache_clear()


def test_a_place_reaches_the_name_notes_write_for_it(tmp_path: Path) -> None:
    """CC-CEDICT gives 英国 no English (its senses carry a Chinese cross-reference or are "abbr. for"), so
    a Chinese question about UK shipping never reached the English page that says "UK" (dev11); the
    glossary's places give it, and the abbreviations notes write (uk, uae) beside the names."""
    assert ("uk",) in {terms for terms, _ in bilingual.to_english("英国")}
    assert ("uae",) in {terms for terms, _ in bilingual.to_english("阿联酋")}
    receipt = _ask(
        tmp_path,
        "Decisions/UK shipping.md",
        "# UK shipping\n\nOrders to the UK go by DPD, delivered in two working days.\n",
        "英国的订单走哪家快递",
    )
    assert receipt.closest is not None and receipt.closest.path == "Decisions/UK shipping.md"
    assert "英国→uk" in receipt.closest.matched


def test_a_place_reaches_no_place_whose_name_holds_it(tmp_path: Path) -> None:
    """A cold review: "korea" for 韩国 cited a North Korea export-controls page for a South Korean
    distributor's question, "america" for 美国 a US dealer page for a Latin America question, and "hk"
    for 香港 a hotel's housekeeping (HK) rota. The places' rows give none of those."""
    pages = {
        "Compliance/North Korea export controls.md": (
            "# North Korea export controls\n\nWe never ship controllers or firmware to North Korea. Any "
            "distributor order is screened against the sanctions list before the warehouse releases it.\n"
        ),
        "决策/美国经销商.md": "# 美国经销商\n\n美国经销商的订单从洛杉矶仓库发货，经销商折扣百分之二十。\n",
        "Ops/HK schedule.md": "# HK schedule\n\nHK staff clean guest rooms from 10:00 to 14:00.\n",
    }
    with Router(write(tmp_path, pages)) as router:
        korea = router.ask("韩国经销商的订单发货前要筛查吗")
        latin = router.ask("What discount do Latin America distributors get?")
        hong_kong = router.ask("香港员工的排班")
    assert korea.decision == "refuse", korea.reason
    assert latin.decision == "refuse", latin.reason
    assert hong_kong.decision == "refuse", hong_kong.reason
    for zh, word in (("韩国", "korea"), ("美国", "america"), ("香港", "hk")):
        assert (word,) not in {terms for terms, _ in bilingual.to_english(zh)}, zh
