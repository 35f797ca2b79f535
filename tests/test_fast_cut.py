"""Index terms cut Han text exactly as jieba's own cut does, and follow a dictionary that changes."""

from __future__ import annotations

import random

import jieba
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from krouter.tokens import chinese
from krouter.tokens.chinese import jieba_words
from krouter.tokens.stopwords import CHINESE

# Common characters, characters jieba's HMM alone knows, and Han characters outside jieba's own range
# (extension A, compatibility, extension B), which jieba cuts one by one.
ALPHABET = "的是我们数据库迁移方案上线支付网关值班交接手册王小明负责发布流水线饕餮琉璃龘㐀䶵鿰豈𠀀"


def jieba_cut(run: str) -> list[str]:
    return [w for w in chinese._load_jieba().cut(run, HMM=True) if w.strip() and w not in CHINESE]


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=ALPHABET, min_size=1, max_size=40))
def test_a_han_run_is_cut_as_jieba_cuts_it(run: str) -> None:
    assert jieba_words(run) == jieba_cut(run)


def test_long_runs_and_repeated_stretches_are_cut_as_jieba_cuts_them() -> None:
    rng = random.Random(16)
    runs = ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 300))) for _ in range(300)]
    for run in runs + runs:  # the second time, stretches remembered from the first
        assert jieba_words(run) == jieba_cut(run), run


def test_a_word_added_to_the_dictionary_is_cut_as_jieba_cuts_it(monkeypatch: pytest.MonkeyPatch) -> None:
    run = "王小明负责琉璃饕餮流水线"
    before = jieba_words(run)
    assert "琉璃饕餮" not in before
    loaded = chinese._load_jieba()
    freq = dict(loaded.dt.FREQ)
    monkeypatch.setattr(loaded.dt, "FREQ", freq)
    monkeypatch.setattr(loaded.dt, "total", loaded.dt.total)
    jieba.add_word("琉璃饕餮", freq=10**7)  # writes into the patched dictionary and its total
    after = jieba_words(run)
    assert "琉璃饕餮" in after and after == jieba_cut(run)
    monkeypatch.undo()
    assert jieba_words(run) == before == jieba_cut(run)
