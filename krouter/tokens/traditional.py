"""Questions written in Traditional characters, on notes written in Simplified ones.

Someone in Taiwan or Hong Kong asks 數據庫備份幾點做; the notes write 数据库备份. jieba's dictionary, the
stop words and the index's words of such a vault are in Simplified characters, so no word of the
question was found. CC-CEDICT writes every entry in both scripts: a character its entries write in
Traditional form more often than they use it as a Simplified character (發, 於, 乾 of 乾淨) stands for the
Simplified one, the commonest in jieba's counts where two are given (諮 → 咨, not 谘).

Word by word, not the question at once: the question is cut in Simplified characters (jieba cuts
Traditional text badly: 辦 / 公室), and a word takes its Simplified form when a page holds it so written
(or, in a bilingual vault, its English translation: 數據庫 → database) and none as asked, or when that
form is a stop word (什麼 is 什么); any other keeps the characters it was asked in, so a word a Traditional page holds (乾隆, 香港辦公室) is asked as written. A vault written in
Traditional characters, or in both, is asked what it holds as written: its pages were cut by the same
jieba, and a mixed vault's 香港辦公室 question does not turn into 上海办公室's. A question with kana
(Japanese) or Hangul (Korean, with Hanja) is left as asked, and so is a run of Han characters none of
whose words changes (a Japanese question in kanji alone); one whose characters GB2312 all encodes
(Simplified) needs no dictionary.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable

from krouter.lazy_pattern import lazy_pattern
from krouter.tokens.chinese import question_jieba
from krouter.tokens.scripts import HAN, HAS_HANGUL, HAS_KANA
from krouter.tokens.stopwords import CHINESE

_ENTRY = lazy_pattern(r"^(\S+) (\S+) \[")
_HAN_CHAR = lazy_pattern(rf"[{HAN}]")
_HAN_RUN = lazy_pattern(rf"[{HAN}]+")


def folds(lines: Iterable[str], counts: dict[str, int]) -> dict[str, str]:
    """Traditional character → Simplified character, from CC-CEDICT's lines ("數據庫 数据库 [...] /.../"),
    for the characters more entries write in Traditional form than use as Simplified; ``counts`` are
    jieba's word counts, which pick between two Simplified characters."""
    pairs: dict[str, Counter[str]] = defaultdict(Counter)
    as_simplified: Counter[str] = Counter()
    for line in lines:
        m = _ENTRY.match(line)
        if not m:
            continue
        trad, simp = m.groups()
        as_simplified.update(set(simp))
        if len(trad) == len(simp):
            for t, s in zip(trad, simp, strict=True):
                if t != s:
                    pairs[t][s] += 1
    return {
        t: max(seen, key=lambda s: (counts.get(s, 0), seen[s], s))
        for t, seen in pairs.items()
        if seen.total() > as_simplified[t]
    }


def _simplified_only(text: str) -> bool:
    """True when every Han character of the text is one GB2312 (the Simplified character set) encodes:
    nothing to fold, and no need to open the dictionary."""
    try:
        "".join(_HAN_CHAR.findall(text)).encode("gb2312")
    except UnicodeEncodeError:
        return False
    return True


def in_simplified(text: str) -> str:
    """``text`` with each Traditional character written as its Simplified one (the others as they are),
    character for character; unchanged when the dictionary is not installed."""
    from krouter.tokens import bilingual

    chars = sorted(set(_HAN_CHAR.findall(text)))
    if not chars or _simplified_only(text):
        return text
    found = bilingual.column(
        f"SELECT zh || simplified FROM fold WHERE zh IN ({','.join('?' * len(chars))})", *chars
    )
    return text.translate({ord(pair[0]): pair[1] for pair in found}) if found else text


def as_the_vault_writes(question: str, known: Callable[[str], bool]) -> str:
    """The question with each Han word the vault does not hold as asked (``known``: whether a page holds
    a term) in Simplified characters; the question itself when nothing is to fold."""
    if HAS_KANA.search(question) or HAS_HANGUL.search(question):
        return question
    folded = in_simplified(question)
    if folded == question:
        return question
    # The fold is character for character, so a word of the folded text sits at the same place in the
    # question. Words are set apart by spaces: the question is cut again, word by word, and a word the
    # vault holds in either script must come back whole.
    # A run none of whose words takes its Simplified form is left as asked, uncut (a Japanese question
    # in kanji alone: 領収書 is not 领 / 収 / 书).
    out: list[str] = []
    last = 0
    for m in _HAN_RUN.finditer(folded):
        out.append(question[last : m.start()])
        at = m.start()
        # (text, taken in Simplified) for each word of the run.
        words: list[tuple[str, bool]] = []
        for word in question_jieba().lcut(m.group(), HMM=True):
            asked = question[at : at + len(word)]
            # A function word is one in either script, whatever the vault holds: 我們 on notes written in
            # Traditional characters was a content word a Simplified question's 我们 is not.
            folds_to_held = asked != word and (
                word in CHINESE or (not known(asked) and _reaches(word, known))
            )
            if not folds_to_held and asked != word and not known(asked):
                # Not reached whole (資料庫 where the notes write 数据库): each part the vault holds in
                # Simplified is taken so (库), or the receipt said the vault never mentions 庫 (a review).
                parts = _held_parts(word, asked, known)
                if parts:
                    words.extend((part, True) for part in parts)
                    at += len(word)
                    continue
            words.append((word if folds_to_held else asked, folds_to_held))
            at += len(word)
        out.append(_apart(words) if any(taken for _, taken in words) else question[m.start() : m.end()])
        last = m.end()
    out.append(question[last:])
    return "".join(out)


def _apart(words: list[tuple[str, bool]]) -> str:
    """A run's words, each taken in Simplified set apart by spaces (it must come back whole), the words
    between them left together as asked: cut apart, a segmenter's slip could not be mended (快取用什麼
    was cut 快 / 取用 / 什么, and 快 and 取用 left apart never met again as the notes' 快取)."""
    out: list[str] = []
    for i, (text, taken) in enumerate(words):
        if out and (taken or words[i - 1][1]):
            out.append(" ")
        out.append(text)
    return "".join(out)


def _held_parts(word: str, asked: str, known: Callable[[str], bool]) -> list[str] | None:
    """A Simplified word the vault does not hold whole, as the longest parts from the left that it holds,
    as asked or else in Simplified (库 of 资料库), the stretches between them as asked (資料); None when no
    part is held in Simplified only (凉茶舖 on a page writing 凉茶舖 stays as asked)."""
    out: list[str] = []
    i, folded, loose = 0, False, ""
    while i < len(word):
        for j in range(len(word), i, -1):
            if known(asked[i:j]) or known(word[i:j]):
                out += [loose] if loose else []
                part = asked[i:j] if known(asked[i:j]) else word[i:j]
                out.append(part)
                folded |= part != asked[i:j]
                i, loose = j, ""
                break
        else:
            loose += asked[i]
            i += 1
    return [*out, *([loose] if loose else [])] if folded else None


def _reaches(word: str, known: Callable[[str], bool]) -> bool:
    """True when the Simplified word finds something the vault holds: the word itself, or a translation
    whose every word the vault holds (數據庫 on English notes: database), or it is a stop word."""
    from krouter.tokens import bilingual

    if known(word) or word in CHINESE:
        return True
    return any(all(map(known, terms)) for terms, _shown in bilingual.to_english(word))


# The vault lookups one word's Traditional spellings may cost (发 is 發 or 髮, 后 後 or 后; 面 stays 面).
_MAX_LOOKUPS = 64


def held_in_traditional(word: str, known: Callable[[str], bool]) -> str | None:
    """The Traditional spelling of a Simplified word that the vault holds when it does not hold the word
    as asked (备份 on notes that write 備份: most agents write Simplified, and a Taiwan or Hong Kong vault
    is written in Traditional), or None. Each character may stand for several Traditional ones, or for
    itself (面 of 面向對象): the spelling is built character by character, each next one only where the
    vault holds the pair it makes with the one before (``known``: whether the index holds a term), so
    the search follows the vault's own text, at most ``_MAX_LOOKUPS`` lookups; the spelling found is
    held whole, or by its every bigram."""
    from krouter.tokens import bilingual

    chars = sorted(set(_HAN_CHAR.findall(word)))
    if not chars or len(word) > 8:
        return None
    rows = bilingual.column(
        f"SELECT simplified || zh FROM fold WHERE simplified IN ({','.join('?' * len(chars))})", *chars
    )
    if not rows:
        return None
    options: dict[str, list[str]] = defaultdict(list)
    for pair in rows:
        options[pair[0]].append(pair[1])
    choices = [[*sorted(options.get(c, ())), c] for c in word]
    budget = [_MAX_LOOKUPS]

    def holds(text: str) -> bool:
        budget[0] -= 1
        return budget[0] >= 0 and known(text)

    def extend(prefix: str) -> str | None:
        if len(prefix) == len(word):
            # Every pair of it was found on the way (a one-character word, the character itself).
            return prefix if prefix != word else None
        for option in choices[len(prefix)]:
            if budget[0] <= 0:
                return None
            step = prefix[-1] + option if prefix else option
            if (len(word) == 1 or prefix) and not holds(step):
                continue
            if found := extend(prefix + option):
                return found
        return None

    return extend("")
