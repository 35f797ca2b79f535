"""Common English abbreviations of a software team's notes, both ways: "db" reaches a page that says
"database", "pull request" a page that says "PR".

A closed, general table (not words of any one vault), used like a dictionary translation: a route the
question word may match through, at the translation's half weight, shown in the receipt as db→database.
"""

from __future__ import annotations

from functools import lru_cache

from krouter.tokens.terms import english_terms

# (short, long): each is looked up as the other. Only abbreviations whose expansion is the same in any
# team's notes; ambiguous ones (ts, os, qa, pm) are left out, and so is
# prod: "production" and "product" share a stem.
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
    ("docs", "documentation"),
    ("auth", "authentication"),
    ("admin", "administrator"),
    ("msg", "message"),
    ("mq", "message queue"),
    ("ttl", "time to live"),
    ("sso", "single sign-on"),
    ("cdn", "content delivery network"),
    ("ci", "continuous integration"),
    ("vm", "virtual machine"),
    ("js", "javascript"),
    ("pwd", "password"),
    ("acct", "account"),
    ("dept", "department"),
    ("org", "organization"),
    ("perf", "performance"),
)


def _terms(words: str) -> tuple[str, ...]:
    return tuple(t for w in words.split() for t in english_terms(w)[:1])


@lru_cache(maxsize=1)
def _table() -> dict[str, tuple[tuple[str, tuple[str, ...]], ...]]:
    out: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for short, long in _PAIRS:
        s, lg = _terms(short), _terms(long)
        if len(s) == 1 and lg:
            out.setdefault(s[0], []).append((long, lg))
        if len(lg) == 1 and s:
            out.setdefault(lg[0], []).append((short, s))
    return {k: tuple(v) for k, v in out.items()}


def expansions(term: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(the other form as written, its index terms) for a stemmed English question term."""
    return _table().get(term, ())
