"""Whether a question is in a language KRouter cannot read (French, German or Russian of English or
Chinese notes): then no route of ours reaches a page from its words, and the agent's translation is the
only bridge there is (D89, D91, D115)."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from krouter.index.store import Index
from krouter.lazy_pattern import lazy_pattern
from krouter.routing.notes_languages import NOTES_LANGUAGE_SHARE, english_framed
from krouter.routing.question import Unit, question_units
from krouter.routing.tables import Tables
from krouter.tokens import bilingual
from krouter.tokens.languages import (
    english_function_words,
    in_another_script,
    lone_foreign_letters,
    marks_a_language,
)
from krouter.tokens.scripts import is_cjk, writing
from krouter.tokens.stems import WRITTEN, written_term
from krouter.tokens.stopwords import FOREIGN

_SPANISH_MARKS = lazy_pattern("[¿¡]")
_WORD = lazy_pattern(r"[^\W\d_]+")


def unread_words(units: list[Unit], index: Index) -> list[str]:
    """The question's words (as units show them) that no page holds by any route and the dictionary
    does not know; a word written with an accent, as written: équipe reaches pages saying "equipment"
    once its accent is dropped (``stems.written_term``), but no page writes it, and it is French."""
    out = []
    for u in units:
        written = written_term(u.text)
        if written is None:
            if not u.postings and not _known(u.key):
                out.append(u.text)
        elif not index.has_term(WRITTEN + written) and not _known(written):
            out.append(u.text)
    return out


# The wordings a generation's tables keep the answer for: a refusal asks it of each wording again.
_KEPT_WORDINGS = 256


def unreadable(question: str, units: list[Unit], t: Tables, index: Index) -> bool:
    """True when ``question`` (looked up as ``units``) is asked in a language the notes are not written
    in and KRouter cannot read: a question in Korean, Japanese or Chinese (``scripts.writing``) when
    the notes have no such pages (``Tables.writings``; a Korean question of Korean notes is read), one
    in another script altogether (Russian), or one in Latin letters that its unread words mark as
    French, German or Spanish (``in_unread_language``'s marks). An English question holding a name in
    another script ("When do we pay ООО Ромашка invoices?") is English (a cold review). ``units`` are
    ``question_units(question, index, t)``: the answer is kept per generation (``Tables.unreadable_of``),
    since a refusal asks it again of the question the lookup just cut up (a fifth of an MCP call)."""
    return _kept(question, t, lambda: _unreadable(question, lambda: units, t, index))


def _kept(question: str, t: Tables, work: Callable[[], bool]) -> bool:
    found = t.unreadable_of.get(question)
    if found is None:
        found = work()
        if len(t.unreadable_of) >= _KEPT_WORDINGS:
            t.unreadable_of.clear()
        t.unreadable_of[question] = found
    return found


def _unreadable(question: str, units: Callable[[], list[Unit]], t: Tables, index: Index) -> bool:
    script = writing(question)
    if script in ("Chinese", "Japanese", "Korean"):
        # English with a name in CJK ("What is 张三's phone number?") is English (a third review), as the
        # refusal's hint reads its wordings.
        # A Chinese question is read where pages are titled in Han characters, whatever their text: a
        # Chinese learner's notes with Japanese examples (a cold review) are read in Chinese.
        shares = t.writings() if script == "Chinese" else t.writings(index)
        return not english_framed(question) and shares.get(script, 0.0) < NOTES_LANGUAGE_SHARE
    if script is None:
        return any(ch.isalpha() for ch in question)
    # Cut up only when it holds enough words that could mark a language: most questions do not.
    return _may_be_marked(question) and _marked(question, unread_words(units(), index))


def unreadable_question(question: str, index: Index, t: Tables) -> bool:
    """``unreadable`` for a question not looked up yet (or looked up: then not cut up again): a refusal
    asks it of every wording, and cutting the question up again was a fifth of an MCP call."""
    return _kept(
        question, t, lambda: _unreadable(question, lambda: question_units(question, index, t), t, index)
    )


def in_unread_language(question: str, unread: list[str]) -> bool:
    """True when ``question`` (its ``unread_words``: ``unread``) is in a language KRouter cannot read: it
    holds a script other than Latin and Han (kana, Cyrillic), or marks of one (``_marked``). Not only words the
    vault lacks ("kafka debezium", "Klarna Sofort refunds?": English about things no page names);
    however many of its words the index happens to read ("Combien de jours de vacances avons-nous par
    an ?": de, par and the stems vacanc, avon are English ones)."""
    return in_another_script(question) or _marked(question, unread)


def _may_be_marked(question: str) -> bool:
    """Whether ``_marked`` could hold for ``question``: its count with every word that could mark a
    language counted (a listed function word, a word with a letter outside English's alphabet), before
    knowing which of them no page holds."""
    words = {
        w
        for w in _WORD.findall(unicodedata.normalize("NFKC", question).lower())
        if w in FOREIGN or not w.isascii()
    }
    count = len(words) + len(lone_foreign_letters(question)) + bool(_SPANISH_MARKS.search(question))
    return count >= 2 and count > english_function_words(question)


def _marked(question: str, unread: list[str]) -> bool:
    """True when the question's unread words (``unread``) mark a language (``languages.marks_a_language``: läuft,
    cómo, wie), with Spanish ¿ and ¡ and the one-letter "is" of Portuguese and Italian (é, è:
    ``languages.lone_foreign_letters``), twice at least and more often than English function words occur
    (English borrows crème brûlée and por favor). One mark is not enough, however terse the question:
    every word tried as one alone (articles, question words, wer, qual, wie) opens an English name or
    search too (el paso wifi, wer librispeech, michelle wie lessons: three cold reviews, D119–D127)."""
    marks = {word for word in unread if marks_a_language(word, question)}
    count = len(marks) + len(lone_foreign_letters(question)) + bool(_SPANISH_MARKS.search(question))
    return count >= 2 and count > english_function_words(question)


def _known(term: str) -> bool:
    """True when the dictionary knows ``term`` (a stemmed English word, a Chinese word)."""
    return bool(bilingual.to_english(term) if is_cjk(term) else bilingual.to_chinese(term))
