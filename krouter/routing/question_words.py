"""A question's words as the vault holds them, before they are looked up: its Han text cut against the
vault's vocabulary (a word reached through a translation stays whole), and a Korean compound cut into the
words pages write apart, or a word stripped of the particle the asker typed."""

from __future__ import annotations

from collections.abc import Callable

from krouter.index.store import Index
from krouter.lazy_pattern import lazy_pattern
from krouter.routing.tables import Tables
from krouter.tokens import bilingual
from krouter.tokens.japanese_korean import korean_words
from krouter.tokens.scripts import HANGUL, HAS_HANGUL, char_bigrams, is_cjk
from krouter.tokens.terms import QueryTerm, query_terms


def asked_words(question: str, index: Index, t: Tables) -> list[QueryTerm]:
    """The content terms of ``question`` as the vault's pages hold them."""
    return _korean_compounds(_korean_particles(cut_question(question, index, t), index), index)


def cut_question(question: str, index: Index, t: Tables) -> list[QueryTerm]:
    """The content terms of ``question``, its Han text cut against the vault (a word reached through a
    translation kept whole), before a Korean word is cut or stripped of a particle."""
    return query_terms(question, known=index.has_term, reached=translated(index, t))


def translated(index: Index, t: Tables) -> Callable[[str], bool] | None:
    """Whether the vault reaches a question's Chinese word through a translation every word of which
    some page holds, in a vault with English pages (None in another): such a word of the segmenter's is
    kept whole when the question is cut against the vault. 数据库 ("database"), which the Chinese pages
    never write, was cut to 数据 + 库 and cited a cache page's 数据 (data) at 58%, while the English page
    on the primary database was never tried (a bug hunt). Only the segmenter's own words: a piece the
    re-cut makes is the vault's only as written (收 + 条 of 能收几条 is no 收条, "a receipt")."""
    if not t.has_latin:
        return None

    def reached(word: str) -> bool:
        return (
            len(word) > 1
            and is_cjk(word)
            and any(all(map(index.has_term, terms)) for terms, _ in bilingual.to_english(word))
        )

    return reached


def holding(index: Index, terms: tuple[str, ...]) -> dict[int, tuple[int, int, int]]:
    """(title/alias tf, trigger tf, body tf) per page holding every one of the terms; the caller must not
    change it (it may be the index's kept list)."""
    if len(terms) == 1:
        return index.holding(terms[0], copy=False)
    per = [index.holding(g, copy=False) for g in terms]
    common = set.intersection(*(set(p) for p in per)) if per else set()
    return {pid: tuple(min(p[pid][f] for p in per) for f in range(3)) for pid in common}  # type: ignore[misc]


# The longest Hangul word cut into words, each of at most ``korean_words``' MAX_WORD syllables: the cut
# looks up stretches of it (a run of 900 syllables, "서버" again and again, took minutes: the session
# diff's review); a longer run is text whose spaces were lost, not a compound. Names of laws and
# procedures are written unspaced up to about twenty (개인정보보호정책위반신고절차: 14).
_MAX_COMPOUND = 40


def _korean_compounds(asked: list[QueryTerm], index: Index) -> list[QueryTerm]:
    """The question's terms, a Hangul compound no page holds whole (인증서버) cut into the words pages
    write apart (인증 서버): as one unit it would be missing from the page that writes both."""
    out: list[QueryTerm] = []
    for qt in asked:
        words = None
        if (
            2 < len(qt.term) <= _MAX_COMPOUND
            # Anywhere in the word: Hanja may lead it (會議室예약).
            and HAS_HANGUL.search(qt.term)
            and not holding(index, tuple(char_bigrams(qt.term)))
        ):
            words = korean_words(qt.term, lambda piece: bool(holding(index, tuple(char_bigrams(piece)))))
        if words:
            out.extend(QueryTerm(word, word) for word in words)
        else:
            out.append(qt)
    return out


# The one-syllable particles a Korean noun is written with (topic, subject, object, of, to, by, and, also,
# only). A question's word keeps one of them when the vault holds the pair it makes with the word's last
# syllable anywhere (``terms.query_terms`` asks of bigrams, not pages): 게이트웨이 must stay whole.
_KO_PARTICLES = frozenset("은 는 이 가 을 를 의 에 로 와 과 도 만".split())
_HANGUL_WORD = lazy_pattern(rf"[{HANGUL}]+")


def _korean_particles(asked: list[QueryTerm], index: Index) -> list[QueryTerm]:
    """The question's terms, a Hangul word that kept a one-syllable particle (타임아웃이) cut to the word
    when a page writes the word with another particle and not with this one (타임아웃은): the particle
    is then grammar the asker typed, not a part of the word. Kept whole, the page that happened to write
    타임아웃이 answered "타임아웃이 얼마예요?" alone, and the log server's page (타임아웃은) was said to lack
    the word (a cold review). A word no page writes so (처리결과 beside 처리결정) is left whole."""
    out: list[QueryTerm] = []
    for qt in asked:
        term = qt.term
        if len(term) >= 4 and term[-1] in _KO_PARTICLES and _HANGUL_WORD.fullmatch(term):
            stem = term[:-1]
            grams = tuple(char_bigrams(stem))
            with_it = set(holding(index, (*grams, term[-2:])))
            others = (stem[-1] + p for p in _KO_PARTICLES if p != term[-1])
            if any(set(holding(index, (*grams, pair))) - with_it for pair in others if index.has_term(pair)):
                qt = QueryTerm(stem, stem)
        out.append(qt)
    return out
