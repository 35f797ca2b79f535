"""Which of a question's words a quote holds: the teach check's link between what was asked and the
sentence that answers (a quote sharing no word with any wording is not taken as its answer)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from krouter.routing.question import HELD_TRANSLATIONS
from krouter.tokens import bilingual
from krouter.tokens.chinese import fallback_bigrams, holds_word
from krouter.tokens.japanese_korean import korean_words
from krouter.tokens.scripts import HAS_HANGUL, char_bigrams, is_cjk
from krouter.tokens.terms import index_terms, query_terms


def shared_words(quote: str, question: str) -> list[str]:
    """The question's content words (as the router looks them up) that the quote also holds."""
    quote_terms = set(index_terms(quote))
    # The question's Han words are cut as the quote writes them, as the router cuts them by what the
    # vault holds: jieba keeps 付款条件 whole, and the agent-loop run's quote "| 付款 | 月结 60 天 |"
    # shared no word with it.
    asked = query_terms(question, known=quote_terms.__contains__)
    return [qt.text for qt in asked if _text_holds(quote_terms, qt.term)]


def _text_holds(terms: set[str], term: str) -> bool:
    # A CJK word the text does not hold as a word may hold it by its bigrams, as the router finds it
    # (a Korean or katakana word is always looked up so: pages index those scripts as bigrams).
    if holds_word(terms, term):
        return True
    # A Korean compound the text writes apart (인증서버: "인증 서버"), cut as the router cuts it.
    return (
        is_cjk(term)
        and bool(fallback_bigrams(term))
        and HAS_HANGUL.search(term) is not None
        and bool(korean_words(term, lambda piece: all(g in terms for g in char_bigrams(piece))))
    )


def linking_words(quote: str, question: str, holding: Callable[[str], Mapping[int, object]]) -> list[str]:
    """The question's words the quote holds as written, or else through the dictionary (a question asked
    in the other language of the notes: the lookup matched its words so, and the teacher's quote answers
    in the page's language). ``holding``: the vault's pages holding a term (``Index.holding``)."""
    return shared_words(quote, question) or translated_shared(quote, question, holding)


def translated_shared(quote: str, question: str, holding: Callable[[str], Mapping[int, object]]) -> list[str]:
    """The question's content words whose dictionary translation the quote holds (翻译 of "Translation |
    USD 0.10 / source word", email of "不再发邮件"), through the senses the lookup takes: the first
    ``HELD_TRANSLATIONS`` that one page of the vault holds whole (a cold review: 流程's fifth sense,
    stream, linked "入职流程是什么" to "Every stream is recorded"). A Chinese word by every term of one of
    its English senses, an English word by one of its Chinese words (or all its bigrams)."""
    quote_terms = set(index_terms(quote))
    out = []
    for qt in query_terms(question, known=quote_terms.__contains__):
        if is_cjk(qt.term):
            senses = [
                terms for terms, _shown in bilingual.to_english(qt.term) if _on_one_page(holding, terms)
            ]
            held = any(all(t in quote_terms for t in terms) for terms in senses[:HELD_TRANSLATIONS])
        else:
            words = [
                zh
                for zh in bilingual.to_chinese(qt.term, written=qt.text)
                if _on_one_page(holding, (zh,)) or _on_one_page(holding, tuple(fallback_bigrams(zh)))
            ]
            held = any(holds_word(quote_terms, zh) for zh in words[:HELD_TRANSLATIONS])
        if held:
            out.append(qt.text)
    return out


def _on_one_page(holding: Callable[[str], Mapping[int, object]], terms: tuple[str, ...]) -> bool:
    """Whether one page of the vault holds every one of ``terms`` (the lookup's ``_holding``)."""
    if not terms:
        return False
    pages = set(holding(terms[0]))
    for term in terms[1:]:
        if not pages:
            break
        pages &= holding(term).keys()
    return bool(pages)
