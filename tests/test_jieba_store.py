"""Questions are segmented from the on-disk jieba dictionary store exactly as by the loaded jieba."""

from __future__ import annotations

import random

from krouter import tokenizer

SAMPLES = [
    "我们的数据库迁移方案是什么",
    "一上午自建的支付网关什么时候上线",
    "北京和上海的办公室租约多少钱",
    "值班交接手册放在哪里",
    "饕餮琉璃",
    "王小明负责的发布流水线",
]


def test_stored_dictionary_cuts_like_jieba() -> None:
    jieba = tokenizer._load_jieba()
    # The first full load in a process writes the store; jieba may have been loaded by an earlier test
    # with another cache dir, so write it into this test's own.
    tokenizer._write_freq_store(jieba)
    assert tokenizer._freq_store_path(jieba).exists()
    stored = tokenizer._stored_segmenter(jieba)
    assert stored is not None
    rng = random.Random(8)
    text = "".join(SAMPLES)
    runs = [*SAMPLES, *(text[i : i + rng.randint(1, 12)] for i in rng.sample(range(len(text)), 40))]
    for run in runs:
        assert stored.lcut(run, HMM=True) == jieba.dt.lcut(run, HMM=True), run


def test_no_store_means_no_stored_segmenter(tmp_path, monkeypatch) -> None:
    import jieba

    monkeypatch.setenv("KROUTER_CACHE_DIR", str(tmp_path / "empty"))
    assert tokenizer._stored_segmenter(jieba) is None
