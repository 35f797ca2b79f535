"""Which script a run of text is in (Han, kana, Hangul, Latin), the language that tells, and character
bigrams."""

from __future__ import annotations

from krouter.lazy_pattern import lazy_pattern

HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f"
KANA = "\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f"
HANGUL = "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f"
CJK = HAN + KANA + HANGUL
HAS_HAN = lazy_pattern(rf"[{HAN}]")
ONLY_HAN = lazy_pattern(rf"^[{HAN}]+$")
IS_CJK = lazy_pattern(rf"^[{CJK}]")
HAS_HANGUL = lazy_pattern(rf"[{HANGUL}]")
HAS_CJK = lazy_pattern(rf"[{CJK}]")
# Kana letters, which mark a text as Japanese (the katakana middle dot ・ left out: Chinese writes
# foreign names with it too).
HAS_KANA = lazy_pattern("[\u3040-\u309f\u30a0-\u30fa\u30fc-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HAS_LATIN = lazy_pattern(r"[A-Za-z\u00c0-\u024f]")


def writing(text: str) -> str | None:
    """The language a text's script tells: "Japanese" (any kana), "Korean" (Hangul), "Chinese" (Han
    without kana), "Latin" (Latin letters only: English or another Latin-script language); None for a
    text of none of them (digits, symbols, another script)."""
    if text.isascii():  # most titles of most vaults: no class to search
        return "Latin" if _HAS_LATIN.search(text) else None
    if HAS_KANA.search(text):
        return "Japanese"
    if HAS_HANGUL.search(text):
        return "Korean"
    if HAS_HAN.search(text):
        return "Chinese"
    return "Latin" if _HAS_LATIN.search(text) else None


def has_han(text: str) -> bool:
    """True when ``text`` writes a Han character."""
    return HAS_HAN.search(text) is not None


def is_cjk(term: str) -> bool:
    """True when a term is CJK (segmented), not a Latin-script word."""
    return IS_CJK.match(term) is not None


def char_bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]
