"""Whether any route of ours links a question's language to a page's: the CC-CEDICT dictionary and the
work glossary link English and Chinese, shared Han characters Chinese and Japanese; nothing links English
to Japanese, nor Korean to any other. Where nothing does, an agent's translation is the only bridge
(``elsewhere.holds_none``), as for a language KRouter cannot read: a wrong translation is then believed
(SECURITY.md says so)."""

from __future__ import annotations

from collections import Counter

from krouter.index.store import Index
from krouter.routing.tables import Tables
from krouter.tokens.scripts import writing

# The languages our routes link (the CC-CEDICT dictionary, abbreviations), and the two that share Han
# characters: a Chinese question's words reach a Japanese page's kanji ("Kafka的保留期" with the phrasing
# "有給休暇は何日？" was cited on the vacation page at 100% when they were taken as unlinked: a cold review).
_ROUTED = frozenset({"Latin", "Chinese"})
_SHARING_HAN = frozenset({"Chinese", "Japanese"})


def bridged(question: str, path: str, index: Index, t: Tables) -> bool:
    """Whether a route of ours could link the question's words to the page at ``path``: the page is
    written mostly in the question's language, or the two are English and Chinese, or Chinese and
    Japanese (a Japanese page's kanji count as Japanese; a few English names on it link no English word
    to its text)."""
    asked = writing(question)
    pid = t.by_path.get(path)
    if asked is None or pid is None:
        return True
    counts = Counter(lang for term in index.page_terms(pid) if (lang := writing(term)))
    if counts["Japanese"] or t.writes_japanese(index, path):
        counts["Japanese"] += counts.pop("Chinese", 0)
    if not counts:
        return True
    main = counts.most_common(1)[0][0]
    return main == asked or {main, asked} <= _ROUTED or {main, asked} == _SHARING_HAN
