"""A question written in Traditional characters finds notes written in Simplified ones (數據庫 asks
about 数据库); a vault written in Traditional characters, and a Japanese question, are left as written."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from krouter import Router
from krouter.cli import app
from krouter.tokens.traditional import folds
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


def test_a_word_the_notes_write_otherwise_is_still_missing(tmp_path: Path) -> None:
    # 資料庫 is Taiwan's word for a database: in Simplified characters it is 资料库, which these notes
    # never write. The receipt names it, in the characters the notes would use.
    vault = write(tmp_path / "vault", SIMPLIFIED)
    res = CliRunner().invoke(app, ["ask", "資料庫備份幾點", "--vault", str(vault), "--json"])
    assert res.exit_code == 3, res.output
    assert "资料库" in res.output


def test_a_traditional_vault_is_asked_as_written(tmp_path: Path) -> None:
    vault = write(tmp_path / "vault", TRADITIONAL)
    with Router(vault) as router:
        receipt = router.decide("資料庫備份保留幾天")
    assert receipt.decision == "cite" and receipt.top is not None and receipt.top.path == "維運/資料庫備份.md"
    assert "几天" not in receipt.evidence.corpus_missing  # looked up as written: 幾天, if anything


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


def test_only_characters_no_entry_writes_as_simplified_are_folded() -> None:
    lines = [
        "數據庫 数据库 [shu4 ju4 ku4] /database/",
        "乾 干 [gan1] /dry/",
        "乾 乾 [qian2] /one of the Eight Trigrams/",  # 乾 is a Simplified character too: never folded
        "頭髮 头发 [tou2 fa5] /hair/",
        "發 发 [fa1] /to send out/",
    ]
    assert folds(lines) == {"數": "数", "據": "据", "庫": "库", "頭": "头", "髮": "发", "發": "发"}
