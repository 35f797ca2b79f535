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


def test_a_grammar_word_takes_no_character_of_another(tmp_path: Path) -> None:
    # 可以 | 上网, 所以 | 后来, 任何 | 时候: the segmenter read a grammar word there already. Cut 可 | 以上 | 网,
    # 所 | 以后 | 来 and 任 | 何时 | 候, the receipt said the vault never mentions '来', '任' or '候', and 网
    # alone matched any page holding 网络.
    vault = write(tmp_path, PAGES)
    with Router(vault) as router:
        words = {q: [w.term for w in router.question_words(q)] for q in ("可以上网吗", "所以后来呢")}
        receipt = router.decide("任何时候都可以退押金吗")
    assert "上网" in words["可以上网吗"] and "网" not in words["可以上网吗"]
    assert "后来" in words["所以后来呢"] and "来" not in words["所以后来呢"]
    assert not {"任", "候"} & set(_missing(receipt)), _missing(receipt)


def test_a_grammar_word_ending_the_question_is_no_glue(tmp_path: Path) -> None:
    # 合同归还是什么时候 asks when the contract is returned (归还 | 是), not "the contract, or when": cut
    # 归 | 还是, 归 matched 归档 and the page saying where the contract is filed was cited at 1.0.
    filed = "---\ntitle: 合同\n---\n# 合同\n\n租房合同的原件归档在书房的文件柜，复印件在网盘。\n"
    vault = write(tmp_path, {**PAGES, "家/合同.md": filed})
    with Router(vault) as router:
        receipts = [router.decide(q) for q in ("合同归还是什么时候", "合同原件归还是几号")]
        # 还有 | 没有 leaves 还, a grammar word: 还 | 有没有 is the reading.
        words = [w.term for w in router.question_words("早上那顿还有没有")]
    assert [r.decision for r in receipts] == ["refuse", "refuse"]
    assert all("归还" in r.evidence.corpus_missing for r in receipts)
    assert "还有" not in words
