"""A question's grammar word that the segmenter glued to a content word, cut back out whole.

jieba reads 自己交还是我们交 as 自己 / 交还 / 是 (交还, "to hand back", is commoner than 还是, "or") and
哪天收啊 as one guessed word 哪天收. The vault never holds 交还 or 天收, so the receipt reported a word the
question never asked about ("the vault never mentions '交还'") and the right page lost it as a missing
word. A grammar word of two or more characters (``stopwords.CHINESE``: 还是, 哪天, 多少, 什么时候) that
the segmenter cut across, or swallowed into a guess, is made a word again when every content word it
touched is one the vault lacks; what is left of those words (交, 收) is read as any other piece of the
question is. Not a character of another grammar word (可以 | 上网 stays), and not the end of a content
word when no content word follows (合同归还是什么时候: 归还 | 是 stays; 还有 | 没有 is 还 | 有没有).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Container
from itertools import accumulate, pairwise
from typing import NamedTuple

from krouter.tokens.stopwords import CHINESE

_LONGEST = max(map(len, CHINESE))


def grammar_words_whole(
    words: list[str], known: Callable[[str], bool], dictionary: Container[str]
) -> list[str]:
    """``words`` with every grammar word of two or more characters that a segmenter word crosses (交还 |
    是) or swallows as a guess no ``dictionary`` lists (哪天收) cut out whole, when each content word it
    touches is one the vault lacks (``known``). A word the vault holds keeps its cut: 还是 inside it is
    the vault's reading, not a glue."""
    text = "".join(words)
    starts = [0, *accumulate(map(len, words))]
    cuts = set(starts)
    spans = list(zip(starts, starts[1:], words, strict=False))
    # Whether a content word starts at or after each word of the cut (a number asked for is none: 几号 of
    # 归还是几号 is no second thing 还是 would join to the first).
    asked_from = [False] * (len(words) + 1)
    for i in range(len(words) - 1, -1, -1):
        asked_from[i] = asked_from[i + 1] or (words[i] not in CHINESE and not _asks_a_number(words[i]))
    cut = _Cut(spans, starts, asked_from)
    at = 0
    while at < len(text):
        size = next(
            (
                n
                for n in range(min(_LONGEST, len(text) - at), 1, -1)
                if text[at : at + n] in CHINESE and _glued(cut, at, at + n, known, dictionary)
            ),
            0,
        )
        if size:
            cuts -= set(range(at + 1, at + size))
            cuts |= {at, at + size}
            at += size
        else:
            at += 1
    if cuts == set(starts):
        return words
    ordered = sorted(cuts)
    return [text[a:b] for a, b in pairwise(ordered)]


class _Cut(NamedTuple):
    spans: list[tuple[int, int, str]]  # (start, end, word) of each word of the segmenter's cut
    starts: list[int]  # where each word starts, then the text's end
    asked_from: list[bool]  # whether a content word starts at or after each word (False at the end)


def _glued(
    cut: _Cut,
    start: int,
    end: int,
    known: Callable[[str], bool],
    dictionary: Container[str],
) -> bool:
    """Whether the grammar word at [start, end) is glued: not a word of the cut, no grammar word of the cut
    beginning where it begins (什么 | 样子 is read right: 什么样 | 子 would take a character of 样子) or
    reaching out of it (可以 | 上网 is no 可 | 以上 | 网, nor 任何 | 时候 任 | 何时 | 候: the segmenter read
    a grammar word there already), and every content word overlapping it one the vault lacks, crossing its
    edge or a guess holding it whole. What a content word ending in it keeps (交 of 交还 | 是) is a word of
    the question only when a content word follows, or when it is a grammar word itself (还 of 还有 | 没有):
    还是 joins two things, and at a question's end it was the content word's (合同归还是什么时候 asks when
    the contract is returned; 归 alone matched the page where it is filed, 归档)."""
    # The words overlapping it, found by bisection: a run of a thousand characters is cut in ms.
    first, after = bisect_right(cut.starts, start) - 1, bisect_left(cut.starts, end)
    touched = cut.spans[first:after]
    if any(w in CHINESE and (a == start or (len(w) > 1 and (a < start or b > end))) for a, b, w in touched):
        return False
    content = [(a, b, w) for a, b, w in touched if w not in CHINESE]
    if not cut.asked_from[after] and any(a < start and w[: start - a] not in CHINESE for a, _, w in content):
        return False
    return bool(content) and all(
        len(w) > 1 and not known(w) and (a > start or b < end or w not in dictionary) for a, b, w in content
    )


def _asks_a_number(word: str) -> bool:
    """几 and a measure (几号, 几楼): a number asked for."""
    return len(word) == 2 and word[0] == "几"
