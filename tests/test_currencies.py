"""An amount's currency is one term however it is written: a sign, a code, or a word in either language."""

from __future__ import annotations

from pathlib import Path

import pytest

from krouter import Router
from krouter.tokens.terms import index_terms, query_terms
from tests.vault_files import write

SHIPPING = {
    "Decisions/UK shipping.md": (
        "---\ntitle: UK shipping\nstatus: current\n---\n# UK shipping\n\n"
        "Orders to the UK go by DPD. The customer pays £4.95 shipping; delivery is free over £50.\n"
    ),
    "Decisions/EU shipping.md": (
        "---\ntitle: EU shipping\nstatus: current\n---\n# EU shipping\n\n"
        "Orders to EU countries go by DHL. The customer pays €6.90 shipping; delivery is free over €60.\n"
    ),
    "Runbooks/Packing.md": "# Packing\n\nEach tin is packed in a printed box; the courier collects at four.\n",
}


@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("运费还是4.95镑吗", "¤£"),
        ("is shipping still 4.95 GBP", "¤£"),
        ("do guides still get 100 yuan a day", "¤¥"),
        ("退货50美元以下", "¤$"),
        ("free over 50 bucks?", "¤$"),
        ("is it USD 79", "¤$"),
        ("一盒20欧吗", "¤€"),
        ("free shipping at $79?", "¤$"),
    ],
)
def test_a_question_s_currency_beside_an_amount_is_its_term_not_a_word(question: str, term: str) -> None:
    """The currency word after a number (镑, GBP, yuan, 美元, bucks) or a code before it is read as the
    currency's term alone: a page writing the sign (£4.95) must not lack "镑" as a word too."""
    terms = [t.term for t in query_terms(question)]
    assert terms.count(term) == 1, terms
    assert not {"镑", "gbp", "yuan", "美元", "buck", "usd", "欧"} & set(terms), terms


@pytest.mark.parametrize(
    "text", ["a 3欧姆 resistor", "5 pounds of tea", "8块硬盘", "欧洲 50 stores", "5 days"]
)
def test_what_is_no_currency_gives_none(text: str) -> None:
    """Only sure readings: an ohm (欧姆), a weight in pounds, 块 as a measure word, Europe, a count."""
    assert not [t for t in index_terms(text) if t.startswith("¤") and not t[1:2].isdigit()]
    assert not [t.term for t in query_terms(text) if t.term.startswith("¤")]


def test_a_price_asked_in_one_currency_word_meets_the_sign_on_the_page(tmp_path: Path) -> None:
    """ "4.95镑" found the English page's 4.95 but not its £: 镑 was a word the page lacked. Now the pound
    is matched on the page that writes £, and the euro on the page that writes €, not on the other."""
    with Router(write(tmp_path, SHIPPING)) as router:
        uk = router.ask("客户运费还是4.95镑吗")
        eu = router.ask("客户运费还是6.90欧元吗")
    assert uk.closest is not None and uk.closest.path == "Decisions/UK shipping.md"
    assert "镑" in uk.closest.matched and "镑" not in uk.closest.missing, uk.closest
    assert eu.closest is not None and eu.closest.path == "Decisions/EU shipping.md"
    assert "欧元" in eu.closest.matched, eu.closest
    uk_page = next(c for c in eu.candidates if c.path == "Decisions/UK shipping.md")
    assert "欧元" in uk_page.missing, uk_page
