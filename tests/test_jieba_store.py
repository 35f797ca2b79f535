"""Questions are segmented from the on-disk jieba dictionary store exactly as by the loaded jieba."""

from __future__ import annotations

import random

from krouter.tokens import chinese

SAMPLES = [
    "我们的数据库迁移方案是什么",
    "一上午自建的支付网关什么时候上线",
    "北京和上海的办公室租约多少钱",
    "值班交接手册放在哪里",
    "饕餮琉璃",
    "王小明负责的发布流水线",
]


def test_stored_dictionary_cuts_like_jieba() -> None:
    jieba = chinese._load_jieba()
    # The first full load in a process writes the store; jieba may have been loaded by an earlier test
    # with another cache dir, so write it into this test's own.
    chinese._write_freq_store(jieba)
    assert chinese._freq_store_path(jieba).exists()
    stored = chinese._stored_segmenter(jieba)
    assert stored is not None
    rng = random.Random(8)
    text = "".join(SAMPLES)
    runs = [*SAMPLES, *(text[i : i + rng.randint(1, 12)] for i in rng.sample(range(len(text)), 40))]
    for run in runs:
        assert stored.lcut(run, HMM=True) == jieba.dt.lcut(run, HMM=True), run


def test_no_store_means_no_stored_segmenter(tmp_path, monkeypatch) -> None:
    import jieba

    monkeypatch.setenv("KROUTER_CACHE_DIR", str(tmp_path / "empty"))
    assert chinese._stored_segmenter(jieba) is None


def test_one_dictionary_copy_in_the_cache(tmp_path, monkeypatch) -> None:
    """Issue #14 item 14: no jieba.cache beside the store, one store per jieba version, old ones go."""
    import jieba

    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("KROUTER_CACHE_DIR", str(cache))
    # What older KRouter versions left: jieba's own 9 MB cache and a store keyed on another install.
    (cache / "jieba.cache").write_bytes(b"old")
    (cache / "jieba-freq-000000000000.sqlite3").write_bytes(b"old")
    monkeypatch.setattr(chinese, "_jieba", None)
    monkeypatch.setattr(jieba.dt, "initialized", False)
    loaded = chinese._load_jieba()
    assert sorted(p.name for p in cache.iterdir()) == [chinese._freq_store_path(loaded).name]
    # A second process (here: a second load) reads the store, writes nothing, and cuts the same.
    expected = [loaded.lcut(s, HMM=True) for s in SAMPLES]
    monkeypatch.setattr(chinese, "_jieba", None)
    monkeypatch.setattr(jieba.dt, "initialized", False)
    monkeypatch.setattr(jieba.dt, "FREQ", {})
    again = chinese._load_jieba()
    assert [again.lcut(s, HMM=True) for s in SAMPLES] == expected
    assert len(list(cache.iterdir())) == 1
