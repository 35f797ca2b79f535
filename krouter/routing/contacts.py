"""A question that asks for an email address or a phone number is answered where the page states one.

"Railgate 汉堡那个对接人，邮箱是多少" or "what's Tanaka-san's mobile number" ask for a value of a form every
page writes alike (jan@example.com, +49 40 1234 5678, 138-0013-8000). A page that names the person and
mentions email or the phone ("weekly status email", "有急事直接电话") without any address or number has
not answered: an agent-loop run's agent read such a page, cited at 68%, to find no address on it
(D113). As for a price (``prices``), the question's words alone cannot tell; the form of the answer can.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

# Asking for the value, not mentioning the thing: "X 的邮箱是多少", "邮箱地址", "手机号多少", "电话是啥";
# "email address", "what's Jan's email?", "phone number", "mobile number". Not "一个手机号一天最多能收几条"
# (a count per number), "手机多少钱" (a price), "电话是什么时候打的" (when), "which vendor sends our
# email", "Maya's email style", "phone him after 20:00", "how many phone numbers".
_ZH_ASKED = re.compile(
    r"(?:邮箱|电邮|电子邮件|邮件地址)(?:地址)?\s*(?:是|是不是)?\s*(?:多少|啥|什么(?!时候|时间|样|意思))"
    r"|(?:邮箱|邮件)地址"
    r"|(?:手机|电话|座机)(?:号码?)?\s*(?:是|是不是)?\s*多少(?![钱块元个条次台部分秒天])"
    r"|(?:手机号码?|电话号码?|座机号码?)\s*(?:是|是不是)?\s*(?:啥|什么(?!时候|时间|样|意思))"
)
_EN_ASKED = re.compile(
    r"\be-?mail address(?:es)?\b|\b(?:phone|mobile|cell|telephone|fax) (?:number|no\.)(?!s)"
    r"|['’]s e-?mail\s*(?:[?.!]|$|\b(?:and|or)\b)|\bwhat(?:['’]s| is) (?:the|his|her|their) e-?mail\s*(?:[?.!]|$)",
    re.IGNORECASE,
)
_EN_COUNTED = re.compile(r"\bhow many (?:\w+ )?(?:phone|mobile|cell|contact|fax) numbers\b", re.IGNORECASE)

EMAIL = "an email address"
PHONE = "a phone number"

# An address as notes write one, written out to keep it from scrapers too (jan [at] example.com, ＠).
_AN_EMAIL = re.compile(r"[\w.+-]+\s*(?:@|＠|\[at\]|\(at\))\s*[\w-]+(?:\s*(?:\.|\[dot\]|\(dot\))\s*[\w-]+)+")
# Seven digits or more, grouped as phone numbers are written (+49 40 1234 5678, (020) 7946 0958,
# 138-0013-8000, 13800138000), some of them masked as notes keep them (138****8000); not a date
# (2024-11-06) nor a number grouped in thousands (1 200 000).
_A_PHONE = re.compile(
    r"(?<![\w.-])(?:\+\d{1,3}[\s-]?)?(?:\(\d{2,5}\)\s?)?\d[\d*xX]{1,4}(?:[\s-][\d*xX]{2,5}){1,4}(?![\w.-])"
    r"|(?<!\d)1[3-9]\d[\d*]{4}\d{4}(?!\d)"
)
# A number the page itself calls a phone's, however short: an extension (分机 8021, ext. 8021), a
# service line (客服电话 95017, 热线 12345), an emergency number (call 112).
_LABELLED = re.compile(
    r"(?:分机|转|电话|手机|热线|座机|\bext\.?|\bextension|\btel\b\.?|\bphone|\bmobile|\bcall|\bhotline|\bfax)"
    r"\s*(?:号码?)?\s*[:：]?\s*(?:是|为|at|on)?\s*\+?\d{2,}",
    re.IGNORECASE,
)
_DATE = re.compile(r"\d{4}[-/]\d{1,2}[-/]\d{1,2}")
_THOUSANDS = re.compile(r"\d{1,3}(?:[\s-]\d{3})+")


def asks_contact(question: str) -> str | None:
    """What a question asks for, when it is an email address or a phone number (``EMAIL``, ``PHONE``);
    None for any other question."""
    if _EN_COUNTED.search(question):
        return None
    zh = _ZH_ASKED.search(question)
    en = _EN_ASKED.search(question)
    found = zh.group(0) if zh else en.group(0) if en else None
    if found is None:
        return None
    return EMAIL if re.search(r"mail|邮", found, re.IGNORECASE) else PHONE


def states_contact(kind: str, text: str) -> bool:
    """True when ``text`` (a page) states a value of the ``kind`` ``asks_contact`` found."""
    if kind == EMAIL:
        return _AN_EMAIL.search(text) is not None
    if _LABELLED.search(text):
        return True
    return any(
        sum(c.isdigit() for c in found) >= 7
        and not _DATE.fullmatch(found)
        and not _THOUSANDS.fullmatch(found)
        for found in (m.group(0) for m in _A_PHONE.finditer(text))
    )


def lacks_contact(wordings: Sequence[str], path: str, read: Callable[[str], str]) -> str | None:
    """Why the page at ``path`` (its text ``read``) cannot answer a question whose wordings (the question
    first) ask for an email address or a phone number it states none of; None when it can or none asks.
    For a phrasing's citation: a terse rewording ("Railgate Hamburg contact email") drops the asking."""
    kind = next((k for k in map(asks_contact, wordings) if k), None)
    if kind is None or states_contact(kind, read(path)):
        return None
    return f"the question asks for {kind}, and {path} states none"
