"""Common English abbreviations of a software team's notes: "db" reaches a page that says "database",
"PR" one that says "pull request", and a one-word long form its abbreviation ("database" → "db"); the
units of weight and distance too ("kilogram" → "kg").

A closed, general table (not words of any one vault), used like a dictionary translation: a route the
question word may match through, at the translation's half weight, shown in the receipt as db→database.
Keyed by the word as written, never by its stem: "organize" must not reach "org", nor "depart" "dept".
"""

from __future__ import annotations

from functools import lru_cache

from krouter.tokens.terms import english_terms

# (short, long). Only abbreviations whose expansion is the same in any team's notes and whose short
# form is not also a common word, a file extension or a domain ending; left out: ts, os, qa, pm, org,
# docs, dept, perf, prod ("production" and "product" share a stem), and long forms of everyday words
# that could sit apart on any page (ttl "time to live", ci, cdn, vm, sso).
_PAIRS = (
    ("db", "database"),
    ("dbs", "databases"),
    ("pr", "pull request"),
    ("prs", "pull requests"),
    ("repo", "repository"),
    ("repos", "repositories"),
    ("env", "environment"),
    ("config", "configuration"),
    ("k8s", "kubernetes"),
    ("infra", "infrastructure"),
    ("auth", "authentication"),
    ("admin", "administrator"),
    ("msg", "message"),
    ("js", "javascript"),
    ("pwd", "password"),
    ("acct", "account"),
    # Units said in words where notes write the symbol ("how many kilograms" of a page's "30 kg"). Not
    # "kilo", which names projects and call signs as often ("project kilo": a cold review).
    ("kg", "kilogram"),
    ("kg", "kilograms"),
    ("km", "kilometre"),
    ("km", "kilometres"),
    ("km", "kilometer"),
    ("km", "kilometers"),
)


# Everyday short forms ("is the max parcel still 20kg?" named 'max' a word "the vault never mentions"
# beside "the maximum is 30 kg": D216). One way only, and only as written in lower case: a page's
# "maximum" must not reach a person called Max, nor "information" a callout's [!info] or info@ (a cold
# review); "when does Max start" asks about Max.
_SHORT_ONLY = (
    ("max", "maximum"),
    ("avg", "average"),
    ("approx", "approximately"),
    ("info", "information"),
    ("spec", "specification"),
    ("specs", "specifications"),
    ("qty", "quantity"),
    ("addr", "address"),
    ("mgr", "manager"),
)


def _terms(words: str) -> tuple[str, ...]:
    return tuple(t for w in words.split() for t in english_terms(w)[:1])


@lru_cache(maxsize=1)
def _table() -> dict[str, tuple[tuple[str, tuple[str, ...]], ...]]:
    out: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for short, long in _PAIRS:
        _add(out, short, long)
        if " " not in long:
            # A long form of several words would have to be found as a phrase in the question; a single
            # word is looked up as written.
            _add(out, long, short)
    for short, long in _SHORT_ONLY:
        _add(out, short, long)
    return {k: tuple(v) for k, v in out.items()}


def _add(table: dict[str, list[tuple[str, tuple[str, ...]]]], word: str, other: str) -> None:
    """``other`` as a route of ``word``, unless a form with the same index terms is one already (kilogram
    and kilograms both stem to kilogram: one route)."""
    routes = table.setdefault(word, [])
    terms = _terms(other)
    if all(t != terms for _, t in routes):
        routes.append((other, terms))


def expansions(word: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(the other form as written, its index terms) for a question word as written (any case; an everyday
    short form in lower case only)."""
    found = _table().get(word.lower(), ())
    if word.islower() or not found:
        return found
    return tuple(route for route in found if (word.lower(), route[0]) not in _SHORT_ONLY)
