"""A question written in Traditional characters finds notes written in Simplified ones (數據庫 asks
about 数据库); a vault written in Traditional characters, and a Japanese question, are left as written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from krouter import Router
from krouter.cli import app
from krouter.tokens import bilingual
from krouter.tokens.traditional import as_the_vault_writes, folds
from tests.vault_files import write

SIMPLIFIED = {
    "运维/数据库备份.md": "---\ntitle: 数据库备份\n---\n# 数据库备份\n\n数据库每天凌晨 3 点做全量备份，备份保留 14 天。\n",
    "运维/发布流程.md": "---\ntitle: 发布流程\n---\n# 发布流程\n\n每周二上午 10 点发布，周一晚上 6 点代码冻结。\n",
}
TRADITIONAL = {
    "維運/資料庫備份.md": "---\ntitle: 資料庫備份\n---\n# 資料庫備份\n\n資料庫每天凌晨 3 點做全量備份，備份保留 14 天。\n",
    "維運/發佈流程.md": "---\ntitle: 發佈流程\n---\n# 發佈流程\n\n每週二上午 10 點發佈，週一晚上 6 點程式碼凍結。\n",
}


def test_a_traditional_question_finds_the_simplified_page(tmp_path: Path) -> None:
    vault = write(tmp_path / "vault", SIMPLIFIED)
    with Router(vault) as router:
        backup = router.decide("數據庫備份幾點做")
        release = router.decide("發佈是每週幾")
    assert backup.decision == "cite" and backup.top is not None and backup.top.path == "运维/数据库备份.md"
    assert backup.query == "數據庫備份幾點做"  # the receipt keeps the question as asked
    assert release.decision == "cite" and release.top is not None and release.top.path == "运维/发布流程.md"


def test_words_between_folded_ones_are_cut_as_one_stretch(tmp_path: Path) -> None:
    """A bug hunt: 快取用什麼 was cut 快 / 取用 / 什么 and set apart word by word, so the notes' 快取 was
    never met again ("the vault never mentions 取用"); and 我們, a function word in Simplified (我们), was
    a content word on notes written in Traditional characters."""
    vault = write(
        tmp_path / "vault",
        {
            "tw.md": "---\ntitle: 快取\n---\n我們使用 Redis 作為快取。\n",
            "zh.md": "---\ntitle: 缓存\n---\n我们使用 Memcached 作为缓存。\n",
        },
    )
    with Router(vault) as router:
        for question in ("快取用什麼", "我們用什麼快取"):
            receipt = router.decide(question)
            assert receipt.decision == "cite" and receipt.top is not None, question
            assert receipt.top.path == "tw.md" and receipt.evidence.query_terms == ["快取"], question


def test_a_word_the_notes_write_otherwise_is_still_missing(tmp_path: Path) -> None:
    # 資料庫 is Taiwan's word for a database: in Simplified characters it is 资料库, which these notes
    # never write. The receipt names what they lack as asked (資料; their 库 is held).
    vault = write(tmp_path / "vault", SIMPLIFIED)
    res = CliRunner().invoke(app, ["ask", "資料庫備份幾點", "--vault", str(vault), "--json"])
    assert res.exit_code == 3, res.output
    assert "資料" in json.loads(res.stdout)["evidence"]["corpus_missing"]


def test_a_traditional_vault_is_asked_as_written(tmp_path: Path) -> None:
    vault = write(tmp_path / "vault", TRADITIONAL)
    with Router(vault) as router:
        receipt = router.decide("資料庫備份保留幾天")
    assert receipt.decision == "cite" and receipt.top is not None and receipt.top.path == "維運/資料庫備份.md"
    assert "几天" not in receipt.evidence.corpus_missing  # looked up as written: 幾天, if anything


@pytest.mark.parametrize(
    ("question", "page"),
    [
        ("资料库备份保留几天", "維運/資料庫備份.md"),
        ("备份几点做", "維運/資料庫備份.md"),
        ("周二几点发布", "維運/發佈流程.md"),
    ],
)
def test_a_simplified_question_finds_the_traditional_page(tmp_path: Path, question: str, page: str) -> None:
    """A cold review: agents write Simplified, and a Taiwan or Hong Kong vault's 備份 was reported as a
    word "the vault never mentions" for 备份."""
    vault = write(tmp_path / "vault", TRADITIONAL)
    with Router(vault) as router:
        receipt = router.decide(question)
    assert receipt.decision == "cite" and receipt.top is not None and receipt.top.path == page, receipt.reason
    assert receipt.evidence.corpus_missing == []


def test_a_long_word_is_tried_in_traditional_first() -> None:
    """The diff's cold review: the all-Traditional spelling came last of the bounded tries, so a word of
    five or more convertible characters was never found."""
    from krouter.tokens.traditional import held_in_traditional

    pairs = {
        "國際",
        "際標",
        "標準",
        "準化",
        "化組",
        "組織",
        "面向",
        "向對",
        "對象",
        "向量",
        "量數",
        "數據",
        "據庫",
    }

    known = pairs.__contains__  # what the index holds of a page's text: its bigrams

    assert held_in_traditional("国际标准化组织", known) == "國際標準化組織"
    # A character that is its own Traditional form (面, 向) is kept where the vault keeps it (the late
    # commits' review: putting it last pushed 面向對象 past the bound).
    assert held_in_traditional("面向对象", known) == "面向對象"
    assert held_in_traditional("向量数据库", known) == "向量數據庫"


def test_a_simplified_word_neither_script_holds_is_still_missing(tmp_path: Path) -> None:
    vault = write(tmp_path / "vault", TRADITIONAL)
    with Router(vault) as router:
        receipt = router.decide("监控告警发给谁")
    assert receipt.decision == "refuse" and "监控" in receipt.evidence.corpus_missing


def test_a_japanese_question_is_not_folded(tmp_path: Path) -> None:
    pages = {
        "設定/スキャナー設定.md": "---\ntitle: スキャナー設定\n---\n# スキャナー設定\n\n"
        "スキャナーの設定方法：管理画面で IP アドレスを登録する。\n",
    }
    vault = write(tmp_path / "vault", pages)
    with Router(vault) as router:
        receipt = router.decide("スキャナーの設定方法は？")
    assert receipt.decision == "cite" and receipt.top is not None
    assert receipt.evidence.corpus_missing == []


def test_only_characters_written_mostly_in_traditional_form_are_folded() -> None:
    lines = [
        "數據庫 数据库 [shu4 ju4 ku4] /database/",
        "乾 干 [gan1] /dry/",
        "乾隆 乾隆 [Qian2 long2] /Qianlong Emperor/",  # 乾 used as Simplified as often as folded: kept
        "頭髮 头发 [tou2 fa5] /hair/",
        "發 发 [fa1] /to send out/",
        "諮詢 谘询 [zi1 xun2] /to consult/",
        "諮 谘 [zi1] /to consult/",
        "諮 咨 [zi1] /to consult/",
    ]
    # Between two Simplified characters, the commoner in jieba's counts (咨 of 咨询).
    assert folds(lines, {"咨": 161, "谘": 71}) == {
        "數": "数",
        "據": "据",
        "庫": "库",
        "頭": "头",
        "髮": "发",
        "發": "发",
        "諮": "咨",
        "詢": "询",
    }


def test_a_vault_in_both_scripts_is_asked_what_it_holds_as_written(tmp_path: Path) -> None:
    # A cold review's repro: folded whole, this Hong Kong question cited the Shanghai office's page.
    pages = {
        "辦公室/香港辦公室.md": "---\ntitle: 香港辦公室\n---\n# 香港辦公室\n\n香港辦公室的網路密碼是 hk-2024。\n",
        "办公室/上海办公室网络.md": "---\ntitle: 上海办公室网络\n---\n# 上海办公室网络\n\n上海办公室的网络密码是 sh-2024。\n",
    }
    vault = write(tmp_path / "vault", pages)
    with Router(vault) as router:
        hong_kong = router.decide("香港辦公室的網路密碼是什麼")
        other_word = router.decide("香港辦公室的網絡密碼是什麼")  # 網絡: the Shanghai page's word
    assert hong_kong.decision == "cite" and hong_kong.top is not None
    assert hong_kong.top.path == "辦公室/香港辦公室.md"
    assert other_word.decision == "refuse", other_word.reason


def test_words_both_scripts_share_do_not_keep_a_question_from_being_folded(tmp_path: Path) -> None:
    # A cold review's repro: 假要 (a bigram both scripts write) tied the two forms, and a tie kept the
    # question as asked.
    pages = {
        "人事/请假流程.md": "---\ntitle: 请假流程\n---\n# 请假流程\n\n请假要在飞书提交，由直属经理批准。\n"
    }
    vault = write(tmp_path / "vault", pages)
    with Router(vault) as router:
        receipt = router.decide("請假要誰批准")
    assert receipt.decision == "cite" and receipt.top is not None and receipt.top.path == "人事/请假流程.md"


def test_kana_hangul_and_simplified_questions_are_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    def held(term: str) -> bool:
        return term in {"设定", "方法"}

    assert as_the_vault_writes("設定方法", held) == "设定 方法"
    assert as_the_vault_writes("スキャナーの設定方法", held) == "スキャナーの設定方法"  # Japanese
    assert as_the_vault_writes("설정 방법 設定方法", held) == "설정 방법 設定方法"  # Korean with Hanja
    # A run none of whose words changes is not cut apart (a Japanese question in kanji alone).
    assert as_the_vault_writes("領収書原本必要", lambda term: False) == "領収書原本必要"

    def no_dictionary(*_args: object) -> tuple[str, ...]:
        raise AssertionError("a Simplified question opened the dictionary")

    monkeypatch.setattr(bilingual, "column", no_dictionary)
    assert as_the_vault_writes("数据库备份几点做", held) == "数据库备份几点做"


def test_the_teach_check_reads_a_traditional_question_as_a_lookup_does(tmp_path: Path) -> None:
    # A second review's repro: the quote shares 备份 with the question only in Simplified characters.
    vault = write(tmp_path / "vault", SIMPLIFIED)
    with Router(vault) as router:
        assert "备份" in router.held_words("數據庫備份幾點做", "运维/数据库备份.md")
    res = CliRunner().invoke(
        app,
        [
            "teach",
            "資料庫幾點備份",  # refused: 資料庫 is not the notes' word
            "--page",
            "运维/数据库备份.md",
            "--quote",
            "数据库每天凌晨 3 点做全量备份，备份保留 14 天。",
            "--vault",
            str(vault),
            "--json",
        ],
    )
    assert '"status": "pending"' in res.output, res.output  # the checks passed; held for a second source


def test_a_traditional_question_reaches_english_notes_through_the_dictionary(tmp_path: Path) -> None:
    # CC-CEDICT's translations are keyed by the Simplified word: 數據庫 as asked had none.
    pages = {
        "Decisions/Primary database.md": "---\ntitle: Primary database\n---\n# Primary database\n\n"
        "The primary database is PostgreSQL 16 on RDS.\n",
    }
    vault = write(tmp_path / "vault", pages)
    with Router(vault) as router:
        receipt = router.decide("主數據庫是什麼")
    assert receipt.candidates and receipt.candidates[0].path == "Decisions/Primary database.md"
    assert any("→database" in word for word in receipt.candidates[0].matched), receipt.candidates[0].matched


def test_a_word_not_reached_whole_is_folded_where_its_parts_are_held(tmp_path: Path) -> None:
    """A review: 資料庫 (Taiwan's "database") folds to 资料库, which these notes never write, so it was
    left as asked and cut 資料 + 庫, and the receipt said the vault never mentions 庫 beside its 数据库."""
    vault = write(tmp_path / "vault", SIMPLIFIED)
    with Router(vault) as router:
        receipt = router.decide("資料庫備份保留幾天")
    assert receipt.closest is not None and receipt.closest.path == "运维/数据库备份.md"
    assert "库" in receipt.closest.matched
    assert "庫" not in receipt.closest.missing and "庫" not in receipt.evidence.corpus_missing


def test_a_part_the_vault_holds_as_asked_is_not_folded(tmp_path: Path) -> None:
    """CMRC's 凉茶舖又叫什么 on the page 凉茶舖 (a variant the page itself writes): the first cut of the
    fold above took 凉茶 + 铺 in Simplified, which the page does not hold, and refused it."""
    vault = write(
        tmp_path / "vault",
        {
            "凉茶舖.md": "# 凉茶舖\n\n凉茶舖，又名凉茶店，是售卖凉茶的商店。\n",
            "店铺.md": "# 店铺\n\n店铺每天九点开门。\n",
        },
    )
    with Router(vault) as router:
        receipt = router.decide("凉茶舖又叫什么？")
    assert receipt.top is not None and receipt.top.path == "凉茶舖.md"
    assert "舖" in receipt.top.matched
