"""Phrasings: one question asked in several wordings (library API)."""

from __future__ import annotations

from pathlib import Path

import pytest

from krouter import Router
from krouter.phrasings import MAX_PHRASING_CHARS, MAX_PHRASINGS, BadPhrasings


def _vault(tmp_path: Path) -> Path:
    (tmp_path / "决策").mkdir()
    (tmp_path / "Runbooks").mkdir()
    (tmp_path / "决策" / "主数据库选型.md").write_text(
        "---\ntitle: 主数据库选型\n---\n主数据库使用 PostgreSQL 15，部署在华东 2 区，规格 8 核 32G。\n",
        encoding="utf-8",
    )
    (tmp_path / "决策" / "消息队列.md").write_text(
        "---\ntitle: 消息队列\n---\n消息队列使用 Kafka，三个 broker。\n", encoding="utf-8"
    )
    (tmp_path / "Runbooks" / "Payments API timeouts.md").write_text(
        "# Payments API timeouts\n\nThe payments API timeout is 30 seconds; retries back off twice.\n",
        encoding="utf-8",
    )
    return tmp_path


def test_a_translation_lets_an_english_question_cite_a_chinese_page(tmp_path: Path) -> None:
    with Router(_vault(tmp_path)) as router:
        plain = router.ask("which primary database do we run?")
        receipt = router.ask("which primary database do we run?", also=["我们的主数据库用的是什么"])
    assert plain.decision == "refuse"
    assert receipt.decision == "cite"
    assert receipt.top is not None and receipt.top.path == "决策/主数据库选型.md"
    assert receipt.query == "which primary database do we run?"
    assert receipt.phrasing == "我们的主数据库用的是什么"
    assert [r.text for r in receipt.routes] == [
        "which primary database do we run?",
        "我们的主数据库用的是什么",
    ]
    assert receipt.to_dict()["phrasing"] == "我们的主数据库用的是什么"
    assert "decided by the phrasing" in receipt.to_text()


def test_phrasings_that_lead_to_different_pages_refuse(tmp_path: Path) -> None:
    with Router(_vault(tmp_path)) as router:
        receipt = router.ask("数据相关的配置", also=["主数据库用的是什么", "消息队列用的是什么"])
    assert receipt.decision == "refuse"
    assert "different pages" in receipt.reason


def test_a_citing_question_is_not_overruled_by_its_phrasings(tmp_path: Path) -> None:
    with Router(_vault(tmp_path)) as router:
        receipt = router.ask("what is the payments API timeout", also=["消息队列用的是什么"])
    assert receipt.decision == "cite"
    assert receipt.top is not None and receipt.top.path == "Runbooks/Payments API timeouts.md"
    assert receipt.phrasing is None
    assert len(receipt.routes) == 2


def test_phrasings_are_bounded(tmp_path: Path) -> None:
    with Router(_vault(tmp_path)) as router:
        with pytest.raises(BadPhrasings, match="at most"):
            router.ask("q", also=[f"phrasing {i}" for i in range(MAX_PHRASINGS + 1)])
        with pytest.raises(BadPhrasings, match="characters"):
            router.ask("q", also=["x" * (MAX_PHRASING_CHARS + 1)])
        with pytest.raises(BadPhrasings, match="list"):
            router.ask("q", also="one string")  # type: ignore[arg-type]
