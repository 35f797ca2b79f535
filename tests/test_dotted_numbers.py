"""A number written with dots (a version, an address: 5.7, v8.0.36, 10.0.0.1) is one word of a question:
"Redis 7.0" is not answered by the page about Redis 6.0 because both hold a 0."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from krouter import Router
from krouter.tokens.terms import index_terms, length_of, query_terms
from tests.vault_files import write

PAGES = {
    "发布/Redis 6.0 升级.md": "---\ntitle: Redis 6.0 升级\n---\n# Redis 6.0 升级\n\n"
    "Redis 6.0 已经在 3 月 12 日上线，所有服务都切过去了。\n",
    "Decisions/Primary database.md": "---\ntitle: Primary database\n---\n# Primary database\n\n"
    "Production runs MySQL 8.0.36 on RDS since March; the old MySQL 5.7 cluster was shut down.\n",
    "Daily/2024-11-08.md": "---\ntitle: 2024-11-08\n---\n# 2024-11-08\n\nThe payments incident review moved to Friday.\n",
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write(tmp_path / "vault", PAGES)


def test_a_version_the_vault_never_writes_is_missing_not_matched_by_its_digits(vault: Path) -> None:
    with Router(vault) as router:
        receipt = router.decide("Redis 7.0 什么时候上线")
    assert receipt.decision == "refuse", receipt.reason
    assert receipt.evidence.corpus_missing == ["7.0"]


@pytest.mark.parametrize(
    ("question", "page"),
    [
        ("Redis 6.0 啥时候上线的", "发布/Redis 6.0 升级.md"),
        ("are we on MySQL 8.0 now", "Decisions/Primary database.md"),  # the page writes 8.0.36
        ("is the MySQL 5.7 cluster still up", "Decisions/Primary database.md"),
        ("are we on v8.0.36", "Decisions/Primary database.md"),
        # Notes write dates with hyphens: a dotted date falls back to its parts.
        ("what moved on 2024.11.08, the incident review?", "Daily/2024-11-08.md"),
    ],
)
def test_a_dotted_number_the_page_writes_is_found(vault: Path, question: str, page: str) -> None:
    with Router(vault) as router:
        receipt = router.decide(question)
    assert receipt.decision == "cite" and receipt.top is not None and receipt.top.path == page, receipt.reason


def test_dotted_numbers_as_terms() -> None:
    assert [t.term for t in query_terms("MySQL 5.7 or v8.0? 7.0啥时候上线")] == [
        "mysql",
        "5.7",
        "8.0",
        "7.0",
        "上线",
    ]
    assert index_terms("8.0.36") == ["8", "0", "36", "8.0", "8.0.36"]
    # Times and a full stop after a number are as before.
    assert [t.term for t in query_terms("at 10:30, in 2024.")] == ["10", "30", "2024"]
    # A unit against the number or apart from it is the same words.
    assert [t.term for t in query_terms("2.5mm")] == [t.term for t in query_terms("2.5 mm")] == ["2.5", "mm"]
    # An amount is rounded by who asks ("about 2.6%" for 2.59%): its parts match, as before.
    assert [t.term for t in query_terms("about 2.6% plus $0.49")] == ["2", "6", "plus", "0", "49"]
    # The dotted terms do not make a page longer: its parts count, as before.
    assert length_of(Counter(index_terms("MySQL 8.0.36"))) == 4
