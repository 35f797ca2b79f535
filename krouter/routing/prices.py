"""A question that asks a price is answered where the page states one.

多少钱 and 几块钱 ask "how much money", and the question keeps no word for it (``question_frames.priced``
drops the 钱): the answer is an amount. A page that holds the thing asked about but no amount next to
it (a supplier's page listing the LED boards it makes, and prices for other parts) has not answered
(docs/decisions.md D93).
"""

from __future__ import annotations

import re

from krouter.routing.question import Unit
from krouter.tokens.terms import index_terms

_ASKS_PRICE = re.compile("(?:多少|几)块?钱")
# An amount of money as notes write one: a currency sign or code before the number, a sign, code or word
# after it (¥168, USD 20, 20€, 30 元, 12 dollars, 1.2 万), a number in Han numerals and 元 or 块 — or no
# charge at all, which answers a price too (免费, "free of charge").
_AMOUNT = re.compile(
    r"(?:[$€£¥￥]|\b(?:usd|eur|gbp|cny|rmb|hkd|jpy)\s?)\s?\d"
    r"|\d(?:[\d,.]*\d)?\s*[kK万千]?\s*(?:[$€£¥￥]|元|块|万|美元|美金|欧元|英镑|日元|港币|港元|人民币"
    r"|dollars?\b|euros?\b|pounds?\b|yuan\b|rmb\b|usd\b|eur\b|gbp\b|cny\b|hkd\b|jpy\b)"
    r"|[一二两三四五六七八九十百千万]+\s*(?:元|块钱)"
    r"|免费|不收费|不要钱|\bfree\b|\bno charge\b",
    re.IGNORECASE,
)


def asks_price(question: str) -> bool:
    """True for a question asking how much money something costs (多少钱, 几块钱, 多少块钱)."""
    return bool(_ASKS_PRICE.search(question))


def states_price(text: str, units: list[Unit], matched: set[int]) -> bool:
    """True when a line of the page ``text`` states an amount of money beside one of the question's
    words the page matched (by any of its routes)."""
    for line in text.splitlines():
        if _AMOUNT.search(line):
            terms = set(index_terms(line))
            if any(units[i].in_terms(terms) for i in matched):
                return True
    return False
