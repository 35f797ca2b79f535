"""The checks a model's quote must pass before the learner believes its pick.

They are lexical and cheap on purpose: the model proposes, and these decide. A quote must be on the
page (after Unicode and whitespace normalisation), be a sentence rather than a fragment, and share a
content word with the question.
"""

from __future__ import annotations

import re
import unicodedata

from krouter.tokenizer import index_terms, query_terms

MIN_WORDS = 4
MIN_CJK = 8
MAX_QUOTE_CHARS = 600

_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_WORD = re.compile(r"[^\W_\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")
# Emphasis and code marks a model drops when it copies a sentence, and table cell bars it turns into
# spaces; treated the same on both sides, so this cannot make a quote match words that are not there.
_MARKUP = str.maketrans({"*": None, "`": None, "|": " "})


def normalize_text(text: str) -> str:
    """NFKC, case-folded, Markdown emphasis marks dropped, whitespace runs collapsed to one space."""
    text = unicodedata.normalize("NFKC", text).casefold().translate(_MARKUP)
    return " ".join(text.split())


def quote_on_page(quote: str, page_text: str) -> bool:
    """True when the normalised quote occurs in the normalised page text."""
    q = normalize_text(quote)
    return bool(q) and q in normalize_text(page_text)


def is_sentence(quote: str) -> bool:
    """At least four words, or eight CJK characters (mixed text: a CJK character counts half a word)."""
    if len(quote) > MAX_QUOTE_CHARS:
        return False
    text = unicodedata.normalize("NFKC", quote)
    cjk = len(_CJK_CHAR.findall(text))
    words = len(_WORD.findall(text))
    return words >= MIN_WORDS or cjk >= MIN_CJK or words + cjk / 2 >= MIN_WORDS


def shared_words(quote: str, question: str) -> list[str]:
    """The question's content words (as the router looks them up) that the quote also holds."""
    quote_terms = set(index_terms(quote))
    return [qt.text for qt in query_terms(question) if qt.term in quote_terms]
