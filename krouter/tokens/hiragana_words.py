"""A word a Japanese question writes in hiragana (ごみ, おむつ, ふとん, the name やまだ).

Hiragana mostly carries a question's grammar (は, の, ですか, ました), and was read as grammar alone:
"すずきさんの電話番号は？" (no Suzuki in the vault) was cited on the landlord's number at 100%, and
"ごみの日はいつ？" had no content words (a bug hunt). A stretch of hiragana is a word where a word
stands: at the start of a run ("ごみの日"), or after the particle that joins two nouns (保育園のおむつ,
佐藤さんのでんわ), with its particle, honorific and ending cut off; a stretch after a verb's or an
adjective's kanji (燃える, 持っていく) is its inflection, and stays out. Without a morphological
dictionary this reads the word's edges only: a word cut short (こども → こど) is still found by its
bigrams, which are among the whole word's.
"""

from __future__ import annotations

import unicodedata

from krouter.lazy_pattern import lazy_pattern

# What ends a noun in a question, cut off in this order, each at most once: an ending (です, ですか,
# だっけ), a question word after a particle (ふとんはいつ), a particle, an honorific. Only endings of
# two characters or more, and particles after at least two characters: だ, か, な end words (やまだ,
# すいか, さかな), and a word of two (かに, もも) keeps its last character.
_ENDINGS = tuple(
    sorted(
        """ですか ですよね ですね でしょうか でしょう でした ました ません ますか ますね ます です なの
        なんですか んですか だっけ っけ だよね だよ かな かしら って します しました しますか してください
        ください したい している してる""".split(),
        key=len,
        reverse=True,
    )
)
_ASKING = ("いつ", "どこ", "だれ", "なに", "なん", "いくら", "いくつ", "どれ", "どう")
_PARTICLES = tuple(
    sorted(
        "には では とは での への との から まで より など の は が を に で と も へ や".split(),
        key=len,
        reverse=True,
    )
)
_HONORIFICS = ("ちゃん", "さん", "くん", "さま", "たち")
# What may open a stretch after a noun and join it to the noun after it: 保育園のおむつ, 佐藤さんのでんわ,
# ごみとふとん. Not は, が, を, に, で: a predicate follows them (車検はいつ, 東京にいる).
_JOINING = tuple(sorted([*(h + "の" for h in _HONORIFICS), "の", "と", "や"], key=len, reverse=True))
# What opens a stretch as a word of its own and names nothing (あのごみ, うちのおむつ): demonstratives,
# "our", fillers.
_OPENING = tuple(
    sorted("あの この その どの うちの わたしの ぼくの ねえ えっと ちょっと".split(), key=len, reverse=True)
)
# Hiragana words that ask, point, carry grammar or say when (きょう, あした: notes write 今日, 明日 or the
# date) rather than name anything.
_NOT_WORDS = frozenset(
    """いつ どこ だれ なに なん どう どうして なぜ どれ どの どっち どちら いくら いくつ どのくらい どれくらい
    これ それ あれ この その あの ここ そこ あそこ うち わたし ぼく おれ みんな ぜんぶ いま いつも もう まだ
    また ちょっと すこし とても よく たぶん ほんとう じゃあ でも だから それで あと ところで そういえば
    ちなみに とりあえず やっぱり なんか ある いる する なる できる いい よい ない ほしい おしえて ください
    おねがい すみません すいません ありがとう だいじょうぶ すぐ もっと だいたい きょう あした あす きのう
    あさって おととい こんど まいにち まいしゅう らいしゅう せんしゅう こんしゅう らいげつ せんげつ ことし
    きょねん らいねん さっき あとで""".split()
)


def hiragana_words(stretch: str, leading: bool) -> list[str]:
    """The words a stretch of hiragana writes (none, mostly): ``leading`` when the stretch opens its run,
    else only after a joining particle (``_JOINING``). Two nouns joined by の are two words (あしたのごみ),
    where each side is two characters or more (きのこ, やきのり are one)."""
    if not leading:
        joined = next((j for j in _JOINING if stretch.startswith(j)), None)
        if joined is None:
            return []
        stretch = stretch[len(joined) :]
    stretch = next(
        (stretch[len(o) :] for o in _OPENING if stretch.startswith(o) and len(stretch) > len(o)), stretch
    )
    # お and ご before the next kanji are its polite prefix (きょうのお迎え), not the end of a word.
    word = stretch[:-1] if len(stretch) > 2 and stretch.endswith(("お", "ご")) else stretch
    word = _cut(_cut(word, _ENDINGS, 1), _ENDINGS, 1)  # したいです: two endings
    asked = _cut(word, _ASKING, 1)
    if asked != word and asked.endswith(_PARTICLES):
        word = asked
    found = []
    for part in _JOINED_BY_NO.split(_cut(word, _PARTICLES, 2)):
        part = _cut(_cut(part, _PARTICLES, 2), _HONORIFICS, 2)
        if len(part) > 1 and part not in _NOT_WORDS:
            found.append(part)
    return found


# の between two words of two characters or more.
_JOINED_BY_NO = lazy_pattern(r"(?<=[\u3041-\u3096]{2})の(?=[\u3041-\u3096]{2})")


# A person named in a Japanese or Korean question: すずきさん, 鈴木様, 박지은 님, 지은 씨.
_HONOURED = lazy_pattern(r"[ \t]?(?:さん|ちゃん|くん|さま|様|氏|先生|님|씨)")


# Titles and roles take the same honorifics (社長さん, お客様, 고객님, 팀장님): they name no one.
_TITLES = frozenset(
    """社長 部長 課長 係長 店長 先生 大家 客 お客 医者 担当 担当者 고객 손님 사장 대표 팀장 부장 과장 차장 대리 실장
    원장 선생 교수 회장 이사 매니저 기사 담당자 담당""".split()
)


def honoured(word: str, question: str) -> bool:
    """True when ``question`` writes ``word`` right before an honorific: it names a person (not a title)."""
    if word in _TITLES:
        return False
    text = unicodedata.normalize("NFKC", question)
    found = text.find(word)
    return found >= 0 and _HONOURED.match(text, found + len(word)) is not None


def _cut(word: str, ends: tuple[str, ...], keep: int) -> str:
    """``word`` without the first of ``ends`` it ends with, when at least ``keep`` characters remain."""
    return next((word[: -len(e)] for e in ends if word.endswith(e) and len(word) - len(e) >= keep), word)


_HIRAGANA_WORD = lazy_pattern(r"[\u3041-\u3096]{2,}")
_KATAKANA_WORD = lazy_pattern(r"[\u30a1-\u30f6]{2,}")


def other_kana(word: str) -> str | None:
    """A word written in hiragana in katakana, and back (ごみ and ゴミ, おむつ and オムツ): Japanese writes
    many everyday words either way, and "ごみ袋はいくら" missed the page titled ゴミ袋 (a check of the bug
    hunt's vault). None for any other word."""
    if _HIRAGANA_WORD.fullmatch(word):
        return "".join(chr(ord(c) + 0x60) for c in word)
    if _KATAKANA_WORD.fullmatch(word):
        return "".join(chr(ord(c) - 0x60) for c in word)
    return None
