"""A question's grammar word the segmenter glued to a content word is cut back out (``glued_grammar``)."""

from __future__ import annotations

from pathlib import Path

from krouter import Router
from tests.vault_files import write

PAGES = {
    "Finance/电费.md": "---\ntitle: 电费\n---\n# 电费\n\nFraser House 的电费由租客自己交，BC Hydro 账户在租客名下。\n",
    "流程/回收.md": "---\ntitle: 回收和绿色垃圾\n---\n# 回收\n\nKingsway 的回收每周五收，绿色垃圾每周三收。\n",
    # Holds the bigram 天收, which the question's 哪天收 was once cut into.
    "流程/快递.md": "---\ntitle: 快递\n---\n# 快递\n\n前台的快递每天收两次。\n",
}
RETURNS = "---\ntitle: 退租\n---\n# 退租\n\n退租那天把钥匙交还前台，押金 15 天内退。\n"


def _missing(receipt) -> list[str]:
    return [*(receipt.top.missing if receipt.top else []), *receipt.evidence.corpus_missing]


def test_a_grammar_word_cut_across_is_no_missing_word(tmp_path: Path) -> None:
    # jieba cuts 自己交还是我们交 as 自己 / 交还 / 是: "the vault never mentions '交还'" (to hand back) about a
    # question asking "do they pay, or do we" (还是: or).
    vault = write(tmp_path, PAGES)
    with Router(vault) as router:
        receipt = router.decide("Fraser House 的电费是租客自己交还是我们交？")
    assert "交还" not in _missing(receipt)
    assert receipt.decision == "cite" and receipt.top is not None and receipt.top.path == "Finance/电费.md"


def test_a_grammar_word_swallowed_by_a_guess_is_no_missing_word(tmp_path: Path) -> None:
    # 哪天收 is one word jieba's HMM guessed; cut as 哪 + 天收 against the vault's bigrams, it left 天收
    # missing on the page that says when pickup is.
    vault = write(tmp_path, PAGES)
    with Router(vault) as router:
        receipt = router.decide("Kingsway 回收哪天收啊？")
    assert "天收" not in _missing(receipt)
    assert receipt.decision == "cite" and receipt.top is not None and receipt.top.path == "流程/回收.md"


def test_a_word_the_vault_holds_keeps_its_cut(tmp_path: Path) -> None:
    # The vault writes 交还, so 交还 | 是 is its reading here, not a glue.
    vault = write(tmp_path, {**PAGES, "流程/退租.md": RETURNS})
    with Router(vault) as router:
        receipt = router.decide("钥匙交还是在退租那天吗")
    assert receipt.top is not None and receipt.top.path == "流程/退租.md"
    assert "交还" in receipt.top.matched
