"""Which script a run of text is in (Han, kana, Hangul, Latin), and character bigrams."""

from __future__ import annotations

import re

HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f"
KANA = "\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f"
HANGUL = "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f"
CJK = HAN + KANA + HANGUL
HAS_HAN = re.compile(rf"[{HAN}]")
ONLY_HAN = re.compile(rf"^[{HAN}]+$")
IS_CJK = re.compile(rf"^[{CJK}]")
HAS_HANGUL = re.compile(rf"[{HANGUL}]")
HAS_CJK = re.compile(rf"[{CJK}]")


def is_cjk(term: str) -> bool:
    """True when a term is CJK (segmented), not a Latin-script word."""
    return IS_CJK.match(term) is not None


def char_bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]
