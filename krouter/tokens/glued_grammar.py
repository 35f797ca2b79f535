"""A question's grammar word that the segmenter glued to a content word, cut back out whole.

jieba reads 自己交还是我们交 as 自己 / 交还 / 是 (交还, "to hand back", is commoner than 还是, "or") and
哪天收啊 as one guessed word 哪天收. The vault never holds 交还 or 天收, so the receipt reported a word the
question never asked about ("the vault never mentions '交还'") and the right page lost it as a missing
word. A grammar word of two or more characters (``stopwords.CHINESE``: 还是, 哪天, 多少, 什么时候) that
the segmenter cut across, or swallowed into a guess, is made a word again when every content word it
touched is one the vault lacks; what is left of those words (交, 收) is read as any other piece of the
question is.
"""

from __future__ import annotations

from collections.abc import Callable, Container
from itertools import accumulate, pairwise

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
    at = 0
    while at < len(text):
        size = next(
            (
                n
                for n in range(min(_LONGEST, len(text) - at), 1, -1)
                if text[at : at + n] in CHINESE and _glued(spans, at, at + n, known, dictionary)
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


def _glued(
    spans: list[tuple[int, int, str]],
    start: int,
    end: int,
    known: Callable[[str], bool],
    dictionary: Container[str],
) -> bool:
    """Whether the grammar word at [start, end) is glued: not a word of the cut, no grammar word of the cut
    beginning where it begins (什么 | 样子 is read right: 什么样 | 子 would take a character of 样子), and
    every content word overlapping it one the vault lacks, crossing its edge or a guess holding it whole."""
    touched = [(a, b, w) for a, b, w in spans if a < end and b > start]
    if any(a == start and w in CHINESE for a, _, w in touched):
        return False
    content = [(a, b, w) for a, b, w in touched if w not in CHINESE]
    return bool(content) and all(
        len(w) > 1 and not known(w) and (a > start or b < end or w not in dictionary) for a, b, w in content
    )
