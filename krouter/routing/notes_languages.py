"""Which languages the notes are written in that none of a question's wordings is: what a refusal tells
the asker to translate into (an agent cannot see the vault; "if the notes are in another language" left
it guessing, and was said of single-language vaults too)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from krouter.lazy_pattern import lazy_pattern
from krouter.routing.receipt import READ_CLOSEST, Receipt
from krouter.tokens.scripts import HAS_HANGUL, HAS_KANA, writing
from krouter.tokens.stopwords import ENGLISH

TYPE_CHECKING = False  # not typing's: the command line's start-up reads this module
if TYPE_CHECKING:
    from krouter.routing.router import Router

# A language of the vault's pages worth a translation: at least this share of them.
NOTES_LANGUAGE_SHARE = 0.1


def unasked(
    writings: dict[str, float],
    wordings: Sequence[str],
    unreadable: Callable[[str], bool] = lambda w: False,
    closest: Sequence[str | None] = (),
) -> list[tuple[str, float]]:
    """(language, share of pages) for each language of at least NOTES_LANGUAGE_SHARE of the pages
    (``Tables.writings``) that no wording is written in, largest share first; and, whatever its share,
    a language of ``closest`` (the refusal's closest pages', ``closest_languages``): an agent-loop run's
    English question about a Japanese partner, whose few pages are under a tenth of the vault, was told
    to translate into Chinese alone. A wording KRouter cannot read (``unreadable``: French or German of
    English notes) is in none of them: an agent-loop run's German question on English notes was told
    only that the vault never mentions 'wie', 'lange', …"""
    asked = {lang for w in wordings if not unreadable(w) for lang in _written_in(w)}
    near = set(closest)
    return [
        (lang, share)
        for lang, share in writings.items()
        if (share >= NOTES_LANGUAGE_SHARE or lang in near) and lang not in asked
    ]


# English function words that make a wording English whatever else it holds.
_ENGLISH_FRAME = 2
_LATIN_WORD = lazy_pattern(r"[A-Za-z]+")
# Chinese grammar that frames a wording as Chinese whatever names it holds ("Redis Sentinel 的配置在哪").
_CHINESE_FRAME = lazy_pattern(r"[的吗呢吧了么是哪谁啥咋几在？，。]|什么|怎么|多少")


def _written_in(wording: str) -> set[str]:
    """The languages a wording is in: its script's (``scripts.writing``), and English too when it is
    framed by English function words ("what is 张三's phone number", which the script alone reads as
    Chinese: the hint told the agent to translate an English question into English, a review found), or
    when it is English words around a Han name and no Chinese grammar (nor kana or Hangul, Japanese's
    and Korean's): a keyword rewording that keeps a name as written ("Rotterdam 鹿特丹 warehouse pallet
    fee", the dev11 agent-loop run, D156). "Kafka 的超时是多少" holds an English word but no frame:
    Chinese only."""
    langs = {writing(wording)}
    named_only = _CHINESE_FRAME.search(wording) is None and not (
        HAS_KANA.search(wording) or HAS_HANGUL.search(wording)
    )
    if english_framed(wording) or (len(_LATIN_WORD.findall(wording)) >= 2 and named_only):
        langs.add("Latin")
    return langs


def english_framed(wording: str) -> bool:
    """True when English function words frame ``wording``, whatever else it holds ("what is 张三's phone
    number"): it is English."""
    return sum(w.lower() in ENGLISH for w in _LATIN_WORD.findall(wording)) >= _ENGLISH_FRAME


def language_name(lang: str) -> str:
    """A language of ``unasked`` as the asker is told it: Latin letters alone do not say which language."""
    return "English or another Latin-script language" if lang == "Latin" else lang


def as_json(missing: Sequence[tuple[str, float]]) -> list[dict[str, object]]:
    """``unasked``'s languages as ``krouter ask --json`` lists them (``translate_into``)."""
    return [{"language": language_name(lang), "share": round(share, 3)} for lang, share in missing]


def shares_text(missing: Sequence[tuple[str, float]]) -> str:
    """ "about 25% are in Chinese and about 10% in Korean": the languages as a sentence's predicate."""
    return " and ".join(
        f"about {share:.0%} {'are ' if i == 0 else ''}in {language_name(lang)}"
        for i, (lang, share) in enumerate(missing)
    )


def closest_languages(router: Router, receipt: Receipt) -> list[str | None]:
    """The languages of a refusal's first pages (``READ_CLOSEST``), as the vault's shares count a page:
    its title's script, and a title in Han characters alone read as Japanese when the page writes
    Japanese (販売代理店, 代理店契約: a cold review), read from its indexed terms, not its file."""
    out: list[str | None] = []
    for c in receipt.candidates[:READ_CLOSEST]:
        lang = writing(c.title)
        out.append("Japanese" if lang == "Chinese" and router.writes_japanese(c.path) else lang)
    return out
