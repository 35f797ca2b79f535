"""Workplace words that CC-CEDICT lacks, or gives only in another sense (消息 → message, 作业 → job).

CC-CEDICT translates 消息 as "news; information", 作业 as "homework", 后台 as "backstage" and 灰度 as
"grayscale": team notes mean a message, a (Flink, cron) job, an admin console, a canary release. The
glossary (``work_glossary.tsv`` beside this module) holds such words as working teams write them, in
software, operations, data, product, payments, support, commerce, logistics, manufacturing, finance,
HR and office work. It was written for KRouter as a general resource, by a writer who saw none of the
bench's vaults or questions (docs/decisions.md D70).

One entry per line: the Chinese word (2–4 Han characters), a tab, then its English renderings separated
by "; ", each one or two words; lines starting with "#" are comments. Its rows are tables of their own
in the dictionary store (``krouter.tokens.bilingual``), read ahead of CC-CEDICT's senses and never in
their place, both ways: a Chinese word reaches a page holding every word of a rendering; an English
word reaches the Chinese words whose one-word rendering it is.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

from krouter.lazy_pattern import lazy_pattern
from krouter.tokens.terms import english_terms

_PATH = Path(__file__).with_name("work_glossary.tsv")
_ZH = lazy_pattern(r"^[\u3400-\u4dbf\u4e00-\u9fff]{2,4}$")
_EN_WORD = lazy_pattern(r"^[a-z][a-z0-9-]*$")


def _lines() -> list[str]:
    try:
        return _PATH.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        # CC-CEDICT's store is built all the same, without the glossary.
        return []


def digest() -> str:
    """What the dictionary store's key sees of the glossary: a digest of the file and of this module, whose
    rules read it (a change to either builds a new store; the stemmer's are in the store's key already).
    Not of the parsed entries: parsing them took 13 ms of every process that opens the dictionary."""
    key = hashlib.sha1(Path(__file__).read_bytes())
    try:
        key.update(_PATH.read_bytes())
    except OSError:
        key.update(b"none")
    return key.hexdigest()


def entries(lines: list[str] | None = None) -> list[tuple[str, list[list[tuple[str, str]]]]]:
    """Each Chinese word with its renderings, each as (stemmed term, word as written) per English word.

    A rendering is kept only when each of its words (each part of a hyphenated one) is a content word:
    stop-word removal would otherwise turn "scale up" into "scale" and "log in" into "log". A line that breaks
    the format is skipped (the tests check that the shipped file has none)."""
    out = []
    for line in _lines() if lines is None else lines:
        if not line.strip() or line.startswith("#"):
            continue
        zh, _, english = line.partition("\t")
        if not _ZH.match(zh.strip()):
            continue
        renderings = []
        for rendering in english.split(";"):
            words = rendering.split()
            if not (0 < len(words) <= 2) or not all(_EN_WORD.match(w) for w in words):
                continue
            # A hyphenated word counts as its parts ("self-test" is two words, as the index holds it).
            parts = [(term, w) for w in words for term in english_terms(w)]
            if len(parts) == sum(len(w.split("-")) for w in words) <= 2 and not any(
                t.isdigit() for t, _ in parts
            ):
                renderings.append(parts)
        if renderings:
            out.append((zh.strip(), renderings))
    return out


def write_tables(conn: sqlite3.Connection, counts: dict[str, int]) -> None:
    """The glossary's tables in a dictionary store being built: ``work_zh2en`` (Chinese word, its
    rendering's stemmed terms, the rendering as written, its place on the line) and ``work_en2zh`` (a
    one-word rendering's term, the Chinese word, jieba's count of it, which orders them)."""
    zh2en: dict[tuple[str, str], tuple[str, int]] = {}
    en2zh: set[tuple[str, str]] = set()
    for zh, renderings in entries():
        for pos, words in enumerate(renderings):
            # A hyphenated word is one written word of several terms: shown once ("self-test").
            shown = " ".join(dict.fromkeys(w for _, w in words))
            zh2en.setdefault((zh, " ".join(t for t, _ in words)), (shown, pos))
            if len(words) == 1:
                en2zh.add((words[0][0], zh))
    conn.execute(
        "CREATE TABLE work_zh2en (zh TEXT NOT NULL, en TEXT NOT NULL, shown TEXT NOT NULL, "
        "pos INTEGER NOT NULL, PRIMARY KEY (zh, en))"
    )
    conn.execute(
        "CREATE TABLE work_en2zh (en TEXT NOT NULL, zh TEXT NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (en, zh))"
    )
    conn.executemany(
        "INSERT INTO work_zh2en VALUES (?, ?, ?, ?)", sorted((z, e, w, p) for (z, e), (w, p) in zh2en.items())
    )
    conn.executemany(
        "INSERT INTO work_en2zh VALUES (?, ?, ?)", sorted((e, z, counts.get(z, 0)) for e, z in en2zh)
    )
