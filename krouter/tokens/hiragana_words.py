"""A word a Japanese question writes in hiragana (ごみ, おむつ, ふとん, the name やまだ).

Hiragana mostly carries a question's grammar (は, の, ですか, ました), and was read as grammar alone:
"すずきさんの電話番号は？" (no Suzuki in the vault) was cited on the landlord's number at 100%, and
"ごみの日はいつ？" had no content words (a bug hunt). A stretch of hiragana is a word where a word
stands: at the start of a run ("ごみの日"), or after the particle that joins two nouns (保育園のおむつ,
佐藤さんのでんわ), with its particle, honorific and ending cut off; a stretch after a verb's or an
adjective's kanji (燃える, 持っていく) is its inflection, and stays out. Without a morphological
dictionary this reads the word's edges only: a word cut short (こども → こど) is still found by its
bigrams, which are among the whole word's. Also here: a name written before an honorific (``honoured``:
すずきさん, 박지은 님) and a word's other kana (``other_kana``: ごみ and ゴミ).
"""

from __future__ import annotations

import unicodedata

from krouter.lazy_pattern import lazy_pattern
from krouter.tokens.scripts import HAS_HAN

# What ends a noun in a question, cut from its end (``_cut_grammar``): endings (です, ですか, だっけ), verbs of
# doing and being (する, できる), question words (いつ, どこ), honorifics (さん), and the particles between
# them (は, で, まで). A particle is cut once at the stretch's end, and once right before each other cut:
# "よやくはどこでする" is よやく, but しごと keeps its と and かに its に (a word of two keeps both
# characters, and だ, か, な end words: やまだ, すいか, さかな).
_ENDINGS = frozenset(
    """ですか ですよね ですね でしょうか でしょう でした ました ません ますか ますね ます です なの
    なんですか んですか だっけ っけ だよね だよ かな かしら って します しました しますか してください
    ください したい している してる""".split()
)
_VERBS = frozenset("する した して できる できます できますか なる なった ある いる ない なってる".split())
_ASKING = frozenset("いつ どこ だれ なに なん いくら いくつ どれ どう どの どちら".split())
_HONORIFICS = frozenset({"ちゃん", "さん", "くん", "さま", "たち"})
# Not とは or との: a word ending in と (しごと, おとうと) would lose it.
_PARTICLES = frozenset("には では での への から まで より など の は が を に で と も へ や".split())
_NOT_PARTICLES = tuple(sorted(_ENDINGS | _VERBS | _ASKING | _HONORIFICS, key=len, reverse=True))
_PARTICLE_ENDS = tuple(sorted(_PARTICLES, key=len, reverse=True))
# What may open a stretch after a noun and join it to the noun after it: 保育園のおむつ, 佐藤さんのでんわ,
# ごみとふとん. Not は, が, を, に, で: a predicate follows them (車検はいつ, 東京にいる).
_JOINING = tuple(sorted([*(h + "の" for h in _HONORIFICS), "の", "と", "や"], key=len, reverse=True))
# What opens a stretch as a word of its own and names nothing (あのごみ, うちのおむつ): demonstratives,
# "our", fillers.
_OPENING = tuple(
    sorted("あの この その どの うちの わたしの ぼくの ねえ えっと ちょっと".split(), key=len, reverse=True)
)
# Hiragana words that ask, point, carry grammar, fill or say when (きょう, あした: notes write 今日, 明日 or
# the date) rather than name anything; read whole before anything is cut (えっと is no えっ and と).
_NOT_WORDS = frozenset(
    """いつ どこ だれ なに なん どう どうして なぜ どれ どの どっち どちら いくら いくつ どのくらい どれくらい
    いつまで どうしたら どうすれば どうやって これ それ あれ この その あの ここ そこ あそこ うち わたし ぼく
    おれ みんな みな みなさん ぜんぶ いま いつも もう まだ また ちょっと すこし とても よく たぶん ほんとう
    じゃあ でも だから それで あと ところ ところで そういえば ちなみに とりあえず やっぱり なんか ある いる
    する なる できる いい よい ない ほしい おしえて ください おねがい すみません すいません ありがとう
    だいじょうぶ すぐ もっと だいたい きょう あした あす きのう あさって おととい こんど まいにち まいしゅう
    らいしゅう せんしゅう こんしゅう らいげつ せんげつ ことし きょねん らいねん さっき あとで ため こと もの
    とき ほう よう ちゃんと もしもし えっと あのう なるほど はじめまして して として とか など みたい ぐらい
    くらい ほど ばかり だけ しか""".split()
)


def hiragana_words(stretch: str, leading: bool) -> list[str]:
    """The words a stretch of hiragana writes (none, mostly): ``leading`` when the stretch opens its run,
    else only after a joining particle (``_JOINING``). Two nouns joined by の are two words (あしたのごみ),
    where each side is two characters or more (きのこ, やきのり are one)."""
    if stretch in _NOT_WORDS:
        return []
    if not leading:
        joined = next((j for j in _JOINING if stretch.startswith(j)), None)
        if joined is None:
            return []
        stretch = stretch[len(joined) :]
    stretch = next((stretch[len(o) :] for o in _OPENING if stretch.startswith(o)), stretch)
    # お and ご before the next kanji are its polite prefix (きょうのお迎え), not the end of a word.
    word = _cut_grammar(stretch[:-1] if len(stretch) > 2 and stretch.endswith(("お", "ご")) else stretch)
    *before, last = _JOINED_BY_NO.split(word)
    # A noun before の ends in nothing to cut but an honorific (たなかさんのいえ; しごとのあと keeps its と).
    parts = [
        next((p[: -len(h)] for h in _HONORIFICS if p.endswith(h) and len(p) - len(h) >= 2), p) for p in before
    ]
    return [part for part in (*parts, last) if len(part) > 1 and part not in _NOT_WORDS]


def _cut_grammar(word: str) -> str:
    """``word`` without the grammar at its end (``_ENDINGS`` … ``_PARTICLES``), keeping two characters."""
    particles = 1
    while word not in _NOT_WORDS:
        cut = next((e for e in _NOT_PARTICLES if word.endswith(e) and len(word) - len(e) >= 2), None)
        if cut is not None:
            word, particles = word[: -len(cut)], 1
            continue
        cut = next((p for p in _PARTICLE_ENDS if word.endswith(p) and len(word) - len(p) >= 2), None)
        if cut is None or not particles:
            break
        word, particles = word[: -len(cut)], particles - 1
    return word


# の between two words of two characters or more.
_JOINED_BY_NO = lazy_pattern(r"(?<=[\u3041-\u3096]{2})の(?=[\u3041-\u3096]{2})")


# A person named in a Japanese or Korean question: すずきさん, 박지은 님, 지은 씨. Not 様 or 氏, which end
# words as often (仕様, 同様, 氏名: "新仕様の締め切り" was refused as naming 新仕, a cold review).
_HONOURED = lazy_pattern(r"[ \t]?(?:さん|ちゃん|くん|さま|님|씨)")


# Titles and roles take the same honorifics (社長さん, 管理人さん, 고객님, 팀장님): they name no one.
_TITLES = frozenset(
    """社長 部長 課長 係長 店長 先生 大家 客 お客 医者 担当 担当者 管理人 美容師 運転手 先輩 後輩 店員 奥 お隣
    고객 손님 사장 대표 팀장 부장 과장 차장 대리 실장 원장 선생 교수 회장 이사 매니저 기사 담당자 담당 기사님""".split()
)


def honoured(word: str, question: str) -> bool:
    """True when ``question`` writes ``word`` whole right before an honorific: it names a person (not a
    title, and not the end of a longer kanji word a question's bigram was cut from: 管理人さん is no 理人)."""
    if word in _TITLES:
        return False
    text = unicodedata.normalize("NFKC", question)
    found = text.find(word)
    if found < 0 or (found > 0 and HAS_HAN.match(text, found - 1) and HAS_HAN.match(text, found)):
        return False
    return _HONOURED.match(text, found + len(word)) is not None


_HIRAGANA_ONLY = lazy_pattern(r"[\u3041-\u3096]{2,}")
_KATAKANA_ONLY = lazy_pattern(r"[\u30a1-\u30f6]{2,}")


def other_kana(word: str) -> str | None:
    """A word written in hiragana in katakana, and back (ごみ and ゴミ, おむつ and オムツ): Japanese writes
    many everyday words either way, and "ごみ袋はいくら" missed the page titled ゴミ袋 (a check of the bug
    hunt's vault). None for any other word."""
    if _HIRAGANA_ONLY.fullmatch(word):
        return "".join(chr(ord(c) + 0x60) for c in word)
    if _KATAKANA_ONLY.fullmatch(word):
        return "".join(chr(ord(c) - 0x60) for c in word)
    return None
