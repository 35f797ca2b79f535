"""Japanese and Korean questions: the content bigrams of a run, particles, endings and question words
cut off (pages index kana and Hangul runs as bigrams, which jieba does not know).
"""

from __future__ import annotations

from collections.abc import Callable

from krouter.lazy_pattern import lazy_pattern
from krouter.tokens.hiragana_words import hiragana_words
from krouter.tokens.scripts import HAN, HAS_HANGUL, char_bigrams

# In a Japanese question, hiragana stretches are mostly particles, endings and auxiliaries (は, の,
# ですか, ました): grammar, not subject, but for a word written in hiragana (``hiragana_words``). Kanji
# and katakana stretches carry the content; 何 and 誰 (what, who) ask rather than name.
_JA_STRETCH = lazy_pattern(rf"[{HAN}]+|[\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f]+|[\u3041-\u309f]+")
_HIRAGANA = lazy_pattern(r"[\u3041-\u309f]")
_JA_ASKING = lazy_pattern(r"[何誰]")
_KATAKANA_WORD = lazy_pattern(r"[\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f]{3,}")


# Korean attaches particles and endings to the word before them (회의실은, 어디예요): they are cut off a
# question word, longest first, so the word's own bigrams remain; question words ask rather than name.
_KO_ENDINGS = tuple(
    sorted(
        """은 는 이 가 을 를 에 에서 에게 께 한테 의 로 으로 와 과 도 만 까지 부터 보다 처럼 이랑 랑 요 예요 이에요
        인가요 나요 까요 니까 습니까 입니까 ㅂ니까 는지 은지 인지 이나 나 죠 지요 야 이야 입니다 습니다
        에서는 에서도 에게는 으로는 까지는""".split(),
        key=len,
        reverse=True,
    )
)
# Question words, and the asker's now: 아직, 계속 and 여전히 ("still") as English drops "still" (an agent-loop
# run had "이니시스 계속 쓰는 거 맞나요?" held for the owner as lacking '계속', D136).
_KO_ASKING = frozenset(
    "어디 어디서 언제 무엇 뭐 뭘 뭔가 누구 누가 몇 며칠 어떻게 왜 어느 어떤 무슨 얼마 얼마나 "
    "우리 저희 제 내 혹시 아직 지금 현재 요즘 좀 계속 여전히".split()
)
# Question words that still ask with a particle or ending on them (언제까지, 얼마까지, 뭘로, 어디에서):
# the vault writes 까지 and 에서 after its own words (말일까지), so the ending was not cut and the
# question word was a word "the vault never mentions". Not 제 and 내 (my), which make nouns with one
# (제도 a system, 제로 zero).
_KO_ASKING_STEMS = _KO_ASKING - {"제", "내"}
# Verbs that carry the grammar of a question rather than its subject, in the forms questions write
# them: the counterparts of the English list's "do", "is", "have", "need", "sure", "thing", "before" (하다
# do, 되다 become / be allowed, 맞다 be right, 있다 / 없다 there is / is not, 주다 give as an auxiliary,
# 알다 know; 못 cannot; 거 / 것 thing; 전에 / 후에 before, after). Korean conjugates them into forms that
# share no bigram with the page's (돼요 and 된다), so each was a word "the vault never mentions" the right
# page lacked. Only forms no noun spells: 하지 (the summer solstice; the legs), 해 (a year, the sun), 건
# (a case), 게 (a crab), 동안 (a young face), 해도 (a chart) are left to the vault (a diff review had
# "하지 날짜" cited on the winter solstice's page); 안에 and 뒤에 as English keeps "inside" and "behind".
_KO_GRAMMAR = frozenset(
    """해요 했 했어 했어요 했나요 했죠 합니다 합니까 하나요 하죠 하는 하면 해야 하고 하세요 하는지 했는지
    할까요 해야죠 돼 돼요 됐 됐어요 됐나요 됩니다 됩니까 되나요 되죠 되는 되면 돼야 되고 되지 돼도 되는지
    될까요 맞죠 맞나요 맞아요 맞아 맞는 맞지 맞습니다 맞습니까 맞는지 맞을까요 있어 있어요 있나요 있죠 있는
    있을 있으면 있습니다 있습니까 있는지 있었 있었나요 없어 없어요 없나요 없죠 없는 없을 없으면 없습니다
    없는지 줘 줘요 줘야 주나요 주는 주면 주세요 주죠 알아요 아나요 알려 알려줘 알려주세요 못 거 것 전에
    후에""".split()
)
# What a question word may be and still name nothing the question is about.
_KO_NOT_CONTENT = _KO_ASKING | _KO_GRAMMAR
# Endings no noun ends in: cut even from a longer word the vault writes with them.
_KO_NEVER_A_WORD_END = frozenset(e for e in _KO_ENDINGS if len(e) > 1) | {"은", "는", "을", "를"}
# What turns a noun into a verb (사용 + 하 + 나요, 실행 + 되 + 나요): cut too, so the noun is what is looked for.
_KO_VERBAL = ("하", "되", "해", "했", "됐", "합", "됩", "할", "될")


# The one-syllable counters a Korean question asks for after 몇 ("how many"): 몇 시 ("what time"), 몇 명,
# 몇 개, 몇 번. As 几 and its measure word are in Chinese (几点, 几个), the counter is what is asked, not a
# word of the subject, and a page writing "21시" or "3명" indexes no such syllable (a Hangul run is
# indexed by its bigrams): '시' was a word every page lacked (an agent-loop run had "몇 시 넘으면 배포 못
# 해요?" held for the owner over it, D136). A counter of two syllables (시간, 개월) is indexed where a page
# writes "4시간", and stays.
_KO_COUNTERS = frozenset("시 분 초 명 개 번 일 주 달 년 살 층 대 건 회 원 장 배".split())


# Hangul letters standing alone (ㅋㅋ, ㅎㅎ, ㅠㅠ: laughter and tears in chat; NFKC makes them conjoining
# jamo, and composes a decomposed syllable first).
_JAMO = lazy_pattern(r"[\u1100-\u11ff\u3130-\u318f]+")


def without_jamo(norm: str) -> str:
    """A normalised question without its lone Hangul letters: no word of it ("관리비 얼마야 ㅎㅎ" was
    refused as naming 'ᄒᄒ', and 회의실ㅠㅠ hid 회의실: a bug hunt)."""
    return _JAMO.sub(" ", norm)


# A counter right after a number (10명이, 1층에서, 3만원): the page writing 지하 1층에서 holds 층에 and 에서,
# not 층, and "1층에서 해?" lacked '층' on the very line it cited (a bug hunt).
_COUNTED = lazy_pattern(rf"(?<=\d)[ \t]?([{''.join(sorted(_KO_COUNTERS))}])(?=[\uac00-\ud7af])")


def korean_counters(norm: str) -> list[str]:
    """The counters a normalised text writes right after a number with more after them (10명이, 1층에서),
    each as an index term of its own (one standing alone, 10명, is its own run's term already)."""
    return _COUNTED.findall(norm) if HAS_HANGUL.search(norm) else []


def counted_after_asking(run: str) -> bool:
    """True for the counter a question asks for after 몇, with its particle or ending (시부터, 개까지요)."""
    return _with_endings(run, _KO_COUNTERS)


def korean_pieces(run: str, known: Callable[[str], bool] | None, after_number: bool = False) -> list[str]:
    """The content of a Hangul word in a question: the word, its particle or ending cut off, then a
    verb-forming 하/되; question and filler words dropped. A word whose bigrams the vault holds as
    written is kept whole. The word is one unit, which the lookup finds by its bigrams on one page:
    as bigrams, 타임아웃 weighed three words against the one word 로그 the page lacked, and "the log
    server's timeout" was cited on the payment server's page (a cold review). Right after a number, a
    counter with its particle (10명이, 1층에서) is the counter, where the vault holds it alone (it is a
    measure, not a subject: dropped where it does not)."""
    holds = known or _holds_nothing
    if after_number and run[0] in _KO_COUNTERS and (len(run) == 1 or run[1:] in _KO_ENDINGS):
        return [run[0]] if holds(run[0]) else []
    if run in _KO_NOT_CONTENT or run in _KO_ENDINGS:
        return []  # a question word, or a particle alone (API의, after a Latin word)
    if _asks_with_endings(run):
        return []  # a question word with its particle (언제까지, 얼마까지예요)
    whole = all(holds(g) for g in char_bigrams(run))
    stem = run
    # A word whose last two syllables the vault holds as a word (응답속도: 속도) has no ending to cut.
    for ending in () if holds(run[-2:]) and not whole else _KO_ENDINGS:
        # A one-syllable particle must leave two syllables (휴가 and 회의 end like particles too); a longer
        # ending may leave one (하나요 → 하, then dropped as a lone syllable the vault does not hold).
        if stem.endswith(ending) and len(stem) >= len(ending) + (1 if len(ending) > 1 else 2):
            # Only where the ending can follow the syllable before it (이나 and 은 follow a final
            # consonant): 차이나 is China, not 차 or (cut, a question about the China branch was cited on
            # the Japan branch's page at 100%: a cold review), and 박지은 a name, not 박지 and its topic
            # particle (cut, "박지은 전화번호" was cited on 박지훈's page at 100%: a bug hunt).
            if not _can_follow(ending, stem[-len(ending) - 1]):
                break
            stem = stem[: -len(ending)]
            break
    # A word the vault holds as written is kept whole (게이트웨이, 처리결과, 해상도, 민주주의 end like
    # particles), but for a noun of two syllables and its particle, and for an ending no noun ends in
    # (타임아웃은, 데이터를): a page writing 서버의 holds 버의, which is grammar, not content, and let a
    # neighbour question match on it. (Bigrams cannot tell them apart: a stem's are always among its
    # word's; most Korean nouns are two syllables.)
    if whole and (stem == run or (len(stem) != 2 and run[len(stem) :] not in _KO_NEVER_A_WORD_END)):
        return [run]
    if stem in _KO_NOT_CONTENT:
        return []
    if len(stem) > 2 and stem.endswith(_KO_VERBAL) and not holds(stem[-2:]):
        stem = stem[:-1]
    return [stem] if len(stem) > 1 else _content_grams(stem, holds)


# Endings written only after a syllable that ends in a consonant, and only after one that does not (the
# particles' two forms: 이나 / 나, 은 / 는, 이랑 / 랑).
_AFTER_CONSONANT = frozenset("은 이 을 과 으로 으로는 이랑 이야 이에요 이나 은지 습니다 습니까".split())
_AFTER_VOWEL = frozenset("는 가 를 와 랑 야 예요 나 ㅂ니까".split())


def _can_follow(ending: str, syllable: str) -> bool:
    """False when ``ending`` has a form for the other kind of syllable than ``syllable`` (a Hangul
    syllable with or without a final consonant)."""
    code = ord(syllable) - 0xAC00
    if not 0 <= code < 11172:
        return True
    final = code % 28 != 0
    return not ((ending in _AFTER_CONSONANT and not final) or (ending in _AFTER_VOWEL and final))


def _asks_with_endings(run: str) -> bool:
    """True when ``run`` is a question word followed by at most two particles or endings (얼마까지예요:
    얼마 + 까지 + 예요)."""
    return _with_endings(run, _KO_ASKING_STEMS)


def _with_endings(run: str, stems: frozenset[str], endings: int = 2) -> bool:
    """True when ``run`` is one of ``stems`` followed by at most ``endings`` particles or endings."""
    return run in stems or (
        endings > 0
        and any(run.endswith(e) and _with_endings(run[: -len(e)], stems, endings - 1) for e in _KO_ENDINGS)
    )


# The longest word a compound is cut into: a Korean noun is a few syllables (개인정보, 데이터베이스).
MAX_WORD = 8


def korean_words(word: str, held: Callable[[str], bool]) -> list[str] | None:
    """A Hangul compound no page holds whole, as the fewest words of two or more syllables that pages
    hold (인증서버: 인증 + 서버, where pages write 인증 서버); None when it cannot be cut so. ``held``
    tells whether some page holds a piece (all its bigrams on one page)."""
    best: dict[int, list[str] | None] = {len(word): []}
    for start in range(len(word) - 2, -1, -1):
        options = [
            [word[start:end], *rest]
            for end in range(min(len(word), start + MAX_WORD), start + 1, -1)
            if (rest := best.get(end)) is not None and held(word[start:end])
        ]
        best[start] = min(options, key=len) if options else None
    cut = best.get(0)
    return cut if cut and len(cut) > 1 else None


def japanese_pieces(run: str, known: Callable[[str], bool] | None) -> list[str]:
    """The content bigrams of a kana-and-kanji run: hiragana grammar and question kanji dropped. A lone
    kanji left between them is kept only when the vault holds it alone (pages index runs as bigrams). A
    katakana word of three or more characters (a loanword: ミーティング) is kept whole: the lookup finds
    it by its bigrams on one page, and a page without it lacks one word, not five bigrams; so is a word
    written in hiragana (``hiragana_words``)."""
    holds = known or _holds_nothing
    pieces: list[str] = []
    for m in _JA_STRETCH.finditer(run):
        stretch = m.group()
        if _HIRAGANA.match(stretch):
            pieces.extend(hiragana_words(stretch, leading=m.start() == 0))
            continue
        for part in _JA_ASKING.split(stretch):
            pieces.extend([part] if _KATAKANA_WORD.fullmatch(part) else _content_grams(part, holds))
    return pieces


def _holds_nothing(term: str) -> bool:
    """The vault test when no vault is given: a lone character is then never kept."""
    return False


def _content_grams(piece: str, holds: Callable[[str], bool]) -> list[str]:
    """A piece's bigrams; a single character only when the vault holds it alone."""
    if len(piece) > 1:
        return char_bigrams(piece)
    return [piece] if piece and holds(piece) else []
