"""Phrasings: one question asked in several wordings (library API)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from krouter import Router, route
from krouter.errors import VaultNotFound
from krouter.routing import querylog
from krouter.routing.phrasings import (
    MAX_PHRASING_CHARS,
    MAX_PHRASINGS,
    BadPhrasings,
    agreeing_floor,
    combine,
    phrasing_floor,
)
from krouter.routing.receipt import Citation, Evidence, Receipt


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
    # A translation's missing words are its own: the question's words the dictionary does not carry
    # across ("run") are no sign of a neighbour (the session diff's review).
    assert "run" not in receipt.top.missing


def test_a_phrasing_s_citation_lists_the_question_s_own_words_the_page_lacks(tmp_path: Path) -> None:
    """A cold review: a rewording that dropped what was asked about was cited with "missing: -" (the
    phrasing's words only), hiding the line an agent reads to tell a neighbour page."""
    with Router(_vault(tmp_path)) as router:
        receipt = router.ask(
            "what retry budget does the payments API have for webhooks",
            also=["payments API timeout retries"],
        )
    assert receipt.decision == "cite" and receipt.phrasing == "payments API timeout retries"
    assert receipt.top is not None and receipt.top.path == "Runbooks/Payments API timeouts.md"
    assert "webhooks" in receipt.top.missing and "budget" in receipt.top.missing
    assert "payments" not in receipt.top.missing
    assert "webhooks" in receipt.to_text().split("missing:", 1)[1].splitlines()[0]


def test_a_refusal_lists_every_wording_s_closest_page(tmp_path: Path) -> None:
    """A refusal decided by a phrasing listed only that phrasing's pages: the page the question's own
    words found first was in ``routes`` alone, and agents missed it or dug for it (agent-loop runs)."""
    with Router(_vault(tmp_path)) as router:
        receipt = router.ask("消息队列的保留期限是多久", also=["how long do we keep payments retries"])
    assert receipt.decision == "refuse" and receipt.phrasing == "how long do we keep payments retries"
    assert [c.path for c in receipt.candidates][:2] == [
        "Runbooks/Payments API timeouts.md",
        "决策/消息队列.md",
    ]
    assert "also close: 决策/消息队列.md" in receipt.to_text()
    # The diff review: ``k`` still bounds the pages listed, and a phrasing refused for what the question
    # says (a page holding none of its words) lists the question's own closest page too.
    with Router(tmp_path) as router:
        one = router.ask("消息队列的保留期限是多久", also=["how long do we keep payments retries"], k=1)
        vetoed = router.ask("消息队列 retention", also=["payments API timeout"])
    assert [c.path for c in one.candidates] == ["Runbooks/Payments API timeouts.md"]
    assert vetoed.decision == "refuse" and vetoed.phrasing == "payments API timeout"
    assert "决策/消息队列.md" in [c.path for c in vetoed.candidates]


def test_each_listed_page_says_which_wording_found_it(tmp_path: Path) -> None:
    """Agent-loop runs: a refusal's candidates from different wordings' lookups read as the question's
    own (a Chinese question's candidate "matched: login, environment", scores out of order). Each says
    which wording listed it, with that wording's words, in the JSON and in the text."""
    with Router(_vault(tmp_path)) as router:
        receipt = router.ask("消息队列的保留期限是多久", also=["how long do we keep payments retries"])
    found = {c["path"]: c["found_by"] for c in receipt.to_dict()["candidates"]}  # type: ignore[union-attr]
    assert found["Runbooks/Payments API timeouts.md"] == "how long do we keep payments retries"
    assert found["决策/消息队列.md"] is None
    queue = next(c for c in receipt.candidates if c.path == "决策/消息队列.md")
    assert "队列" in queue.matched and "payments" not in queue.matched
    assert "also close: 决策/消息队列.md, line" in receipt.to_text()
    assert "(found by the question as asked)" in receipt.to_text()
    with Router(tmp_path) as router:
        own = router.ask("消息队列的保留期限是多久", also=["payments webhook"])
        plain = router.ask("消息队列的保留期限是多久")
    assert own.phrasing is None and own.candidates[0].found_by is None
    shown = [c for c in own.candidates if c.found_by == "payments webhook"]
    assert shown and "(found by the phrasing: payments webhook)" in own.to_text()
    assert all(c.found_by is None for c in plain.candidates)


def test_phrasings_that_lead_to_different_pages_refuse(tmp_path: Path) -> None:
    with Router(_vault(tmp_path)) as router:
        receipt = router.ask("数据相关的配置", also=["主数据库用的是什么", "消息队列用的是什么"])
    assert receipt.decision == "refuse"
    assert "different pages" in receipt.reason
    # Not "confidence 1.00 vs floor 0.55" beside REFUSE: the words' best is in the reason.
    assert receipt.evidence.confidence == 0.0
    assert "confidence 0.00 vs floor" in receipt.to_text()
    assert "the most confident wording's" in receipt.reason


def test_a_citing_question_keeps_its_citation_when_its_phrasings_agree(tmp_path: Path) -> None:
    with Router(_vault(tmp_path)) as router:
        receipt = router.ask("what is the payments API timeout", also=["payments API timeout retries"])
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
        # A bug hunt: None in the list was an AttributeError, not the library's own error.
        with pytest.raises(BadPhrasings, match="phrasings must be strings; one is NoneType"):
            router.ask("q", also=[None])  # type: ignore[list-item]


def test_an_empty_vault_path_names_no_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug hunt: route(q, "") indexed the current folder, where the CLI refuses an empty --vault."""
    monkeypatch.chdir(_vault(tmp_path))
    for empty in ("", "  "):
        with pytest.raises(VaultNotFound, match="an empty vault path names no folder"):
            route("payments API timeout", empty)


def _receipt(query: str, decision: str, path: str, confidence: float, margin: float = 0.5) -> Receipt:
    cand = Citation(path=path, title=path, score=1.0, line=1, snippet="", matched=[], missing=[])
    return Receipt(
        query=query,
        vault="v",
        decision=decision,  # type: ignore[arg-type]
        candidates=[cand],
        redirects=[],
        skipped=[],
        evidence=Evidence(confidence=confidence, floor=0.55, margin=margin),
        reason="",
    )


def test_a_phrasing_must_clear_a_stricter_bar_than_the_question() -> None:
    """A phrasing is one more chance for a neighbour to clear the floor: it needs (1 + floor) / 2."""
    assert phrasing_floor(0.55) == pytest.approx(0.775)
    asked = _receipt("q", "refuse", "B.md", 0.3)
    weak = combine(asked, [("p", _receipt("p", "cite", "A.md", 0.7))])
    assert weak.decision == "refuse"
    assert "needs 78%" in weak.reason
    strong = combine(asked, [("p", _receipt("p", "cite", "A.md", 0.8))])
    assert strong.decision == "cite" and strong.phrasing == "p"


def test_a_phrasing_that_finds_the_question_s_own_closest_page_needs_less() -> None:
    """The question's words found A first; a translation reaching A at 70% is a second wording agreeing
    on it (D45), not a new chance for another page: it needs halfway from the floor to 77.5%."""
    assert agreeing_floor(0.55) == pytest.approx(0.6625)
    asked = _receipt("How quickly must a P0 page be acknowledged?", "refuse", "运维手册/告警分级.md", 0.26)
    agreeing = combine(asked, [("P0 告警多久要响应", _receipt("p", "cite", "运维手册/告警分级.md", 0.7))])
    assert agreeing.decision == "cite" and agreeing.phrasing == "P0 告警多久要响应"
    weak = combine(asked, [("p", _receipt("p", "cite", "运维手册/告警分级.md", 0.6))])
    assert weak.decision == "refuse" and "needs 66%" in weak.reason
    elsewhere = combine(asked, [("p", _receipt("p", "cite", "运维手册/值班.md", 0.7))])
    assert elsewhere.decision == "refuse" and "needs 78%" in elsewhere.reason


def test_a_phrasing_whose_page_another_phrasing_also_ranks_first_needs_less() -> None:
    """The question's words found another page first (a weak match); its translation cites A at 70% and
    its keyword rewording ranks A first too, below the floor: two wordings agree on A (D75), as when the
    question's own words do. One phrasing alone on A still needs the full bar."""
    asked = _receipt(
        "which coach firm in Chengdu, still Shuyun?", "refuse", "Suppliers/London coaches.md", 0.28
    )
    translation = ("成都现在用哪家大巴公司？还是蜀运吗？", _receipt("t", "cite", "决策/成都包车.md", 0.7))
    rewording = ("Chengdu coach company Shuyun", _receipt("r", "refuse", "决策/成都包车.md", 0.41))
    seconded = combine(asked, [translation, rewording])
    assert seconded.decision == "cite" and seconded.phrasing == translation[0]
    alone = combine(asked, [translation])
    assert alone.decision == "refuse" and "needs 78%" in alone.reason
    elsewhere = combine(
        asked, [translation, ("r", _receipt("r", "refuse", "Suppliers/Xian coaches.md", 0.41))]
    )
    assert elsewhere.decision == "refuse" and "needs 78%" in elsewhere.reason


def test_a_question_whose_closest_pages_tie_has_no_page_of_its_own() -> None:
    """On a tie the first of the question's closest pages is the first by path, not by its words: a
    phrasing on it needs the full bar, as on the other."""
    asked = _receipt("what is the deploy window", "refuse", "Billing deploys.md", 0.3, margin=0.0)
    tied = combine(asked, [("p", _receipt("p", "cite", "Billing deploys.md", 0.7))])
    assert tied.decision == "refuse" and "needs 78%" in tied.reason


def test_a_confident_phrasing_that_names_another_page_turns_a_citation_into_a_refusal() -> None:
    """The question cites A, a wording of it clears the phrasing bar on B: one of them is a neighbour."""
    asked = _receipt("我们用什么消息队列", "cite", "People/Wang Lei.md", 0.69)
    disagree = combine(
        asked, [("which message queue do we use", _receipt("p", "cite", "Decisions/NATS.md", 1.0))]
    )
    assert disagree.decision == "refuse"
    assert "do not agree" in disagree.reason and "Decisions/NATS.md" in disagree.reason
    weak = combine(asked, [("p", _receipt("p", "cite", "Decisions/NATS.md", 0.6))])
    assert weak.decision == "cite" and weak.top is not None and weak.top.path == "People/Wang Lei.md"
    same = combine(asked, [("p", _receipt("p", "cite", "People/Wang Lei.md", 0.9))])
    assert same.decision == "cite" and same.phrasing is None


def test_only_the_replacements_of_the_named_page_are_shown() -> None:
    """A replaced page leading to a candidate further down must not read as "the answer was replaced"."""
    from krouter.routing.receipt import Redirect

    receipt = _receipt("q", "cite", "Decisions/Backups.md", 0.9)
    receipt.redirects = [
        Redirect(
            "Decisions/RabbitMQ.md", "Decisions/NATS.md", ["Decisions/RabbitMQ.md", "Decisions/NATS.md"]
        ),
        Redirect(
            "Decisions/Old backups.md",
            "Decisions/Backups.md",
            ["Decisions/Old backups.md", "Decisions/Backups.md"],
        ),
        Redirect("Decisions/Gone.md", None, ["Decisions/Gone.md"], "no page at 'X'"),
    ]
    text = receipt.to_text()
    assert "Old backups.md was replaced" in text and "Gone.md was replaced" in text
    assert "RabbitMQ" not in text
    assert [r.from_path for r in receipt.shown_redirects] == ["Decisions/Old backups.md", "Decisions/Gone.md"]


def test_a_korean_question_s_english_translation_lists_no_korean_words_as_missing(tmp_path: Path) -> None:
    """The late commits' review: only Chinese was read as a translation's other language, so a Korean
    question cited through its English translation listed its Korean words as missing."""
    (tmp_path / "VPN.md").write_text(
        "# VPN access\n\nNew staff request VPN access through the IT portal form.\n", encoding="utf-8"
    )
    (tmp_path / "Lunch.md").write_text("# Lunch\n\nPizza on Fridays.\n", encoding="utf-8")
    with Router(tmp_path) as router:
        receipt = router.ask(
            "신입 직원은 VPN 접속을 어떻게 신청하나요?", also=["how do new staff request VPN access?"]
        )
    assert receipt.decision == "cite" and receipt.top is not None and receipt.top.path == "VPN.md"
    assert not any("\uac00" <= ch <= "\ud7a3" for word in receipt.top.missing for ch in word)


def test_a_question_s_padding_is_neither_read_nor_logged(tmp_path: Path) -> None:
    """A bug hunt: the length bound left out the spaces around a question, which were read whole (five
    seconds a megabyte) and logged whole, pushing real questions out of the learner's log."""
    with Router(_vault(tmp_path)) as router:
        receipt = router.ask(" " * 200_000 + "payments API timeout" + "\n" * 200_000)
    assert receipt.query == "payments API timeout"
    logged = [json.loads(line) for line in querylog.log_path().read_text(encoding="utf-8").splitlines()]
    assert [e["question"] for e in logged] == ["payments API timeout"]
