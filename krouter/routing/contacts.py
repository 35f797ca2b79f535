"""A question that asks for an email address or a phone number is answered where the page states one.

"Railgate 汉堡那个对接人，邮箱是多少" or "what's Tanaka-san's mobile number" ask for a value of a form every
page writes alike (jan@example.com, +49 40 1234 5678, 138-0013-8000). A page that names the person and
mentions email or the phone ("weekly status email", "有急事直接电话") without any address or number has
not answered: an agent-loop run's agent read such a page, cited at 68%, to find no address on it
(D114). As for a price (``prices``), the question's words alone cannot tell; the form of the answer can.
Only the plainest ways of asking count, and any form of an address or a number on the page answers:
a question refused for a form read too narrowly is a right answer lost (a cold review).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence

from krouter.lazy_pattern import lazy_pattern

EMAIL = "an email address"
PHONE = "a phone number"

# Asking for the value, not mentioning the thing: "X 的邮箱是多少", "Jan 的 email 是多少", "手机号多少",
# "电话是啥"; not "邮箱地址怎么改", "手机号是多少位", "手机号是多少开头的", "手机多少钱", "电话是什么时候打的".
_NOT_THE_VALUE_ZH = (
    r"(?!时候|时间|样|意思|格式|类型|后缀|域名|开头|服务商|牌子|品牌|型号|套餐|运营商|系统|事|情况|问题|原因|内容"
    r"|人|位|钱|块|元|个|条|次|台|部|分|秒|天)"
)
_ZH_EMAIL = lazy_pattern(
    rf"(?:邮箱|电邮|电子邮件|邮件地址|e-?mail)\s*(?:地址|address)?\s*(?:是|是不是)?\s*(?:多少|啥|什么){_NOT_THE_VALUE_ZH}",
    re.IGNORECASE,
)
_ZH_PHONE = lazy_pattern(
    rf"(?:手机|电话|座机|phone)(?:号码?)?\s*(?:是|是不是)?\s*(?:多少|啥|什么){_NOT_THE_VALUE_ZH}",
    re.IGNORECASE,
)
# The bare "周莉的邮箱地址？", "梁经理的手机号？": the whole question is whose address or number; not "周末谁接
# 电话", "怎么换绑手机号？", "忘了登录邮箱？" (a cold review).
_ZH_TERSE = lazy_pattern(
    r"^[^，,。？?\s谁怎什为能要哪吗么]{1,10}的(?:(邮箱|邮件地址|邮箱地址)|手机号码?|电话号码?|联系电话)\s*[？?]?\s*$"
)
# "what's Jan's email?", "what is the phone number for the Berlin office", "which email address do invoices
# go to"; not "how do I change my email address", "which library checks the phone number", "what email
# provider do we use", "what's the email retention period?".
_EN_NOUN = r"(?:e-?mail(?:\s+address)?|(?:phone|mobile|cell|telephone|fax|contact)\s+number)"
_ADJECTIVE = r"(?:(?:direct|work|personal|contact|support|main|office|billing|sales)\s+)?"
_EN_ASKED = lazy_pattern(
    r"\b(?:what|which)(?:['’]s|\s+is|\s+are)?\s+(?:(?:the|his|her|their|our|its|your)\s+)?"
    # The noun ends its phrase: "the email retention period", "the phone number porting process" ask
    # about something else (reviews); "what was the email on Friday about?" asks about a message, "what
    # is the email for?" its use.
    rf"{_ADJECTIVE}{_EN_NOUN}\s*(?:[?.!,;:]|$|\b(?:for|of)\s+\w|\b(?:do|does|should)\b)"
    # Whose ("what is Jan Petersen's email address at Railgate?"): the owner says it is the value asked.
    rf"|\b(?:what|which)(?:['’]s|\s+is|\s+are)?\s+(?:[\w-]+\s+){{0,3}}[\w-]+['’]s\s+{_ADJECTIVE}{_EN_NOUN}\b"
    r"(?!\s+(?:\w+\s+)?(?:about|policy|policies|style|format|signature|template|settings|etiquette))",
    re.IGNORECASE,
)
# The bare "Jan's email?", "Jan Petersen's phone number?": whose address or number, and nothing else.
_EN_TERSE = lazy_pattern(
    r"^\s*(?!(?:who|whom|how|when|why|where|what|which|did|do|does|is|are|was|can|could|should|will)\b)"
    rf"(?:[\w.-]+\s+){{0,3}}[\w.-]+['’]s\s+{_EN_NOUN}\s*\??\s*$",
    re.IGNORECASE,
)

# An address as notes write one, written out against scrapers too (jan [at] example [dot] com, jan AT
# example DOT com, jan at example dot com); full-width forms are read as ASCII first. Looked for around
# each "at" only: one pattern over the text backtracked for minutes on a long token (a cold review).
_AT = lazy_pattern(r"@|\[at\]|\(at\)|\{at\}|\s(?:AT|at)\s")
_LOCAL = lazy_pattern(r"[\w.+-]+\s*$")
_DOMAIN = lazy_pattern(
    r"\s*[\w-]+(?:(?:\.|\s?\[dot\]\s?|\s?\(dot\)\s?|\s?\{dot\}\s?|\s(?:DOT|dot)\s)[\w-]+)+"
)
# A run of digits and the separators phone numbers are written with (+49 40 12345678, 415.555.0132,
# (020) 7946 0958, 040/1234567, 138-0013-8000, 138****8000), seven digits or more; not a date, a year
# range, an address of four small numbers, nor a number grouped in thousands by commas or dots.
_A_RUN = lazy_pattern(r"(?<!\w)\+?\(?\d[\d*xX\s().\-/]{4,}[\d*xX](?!\w)")
_NOT_A_PHONE = lazy_pattern(
    r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{4}|\d{4}\s*[-–]\s*\d{4}"
    r"|\d{1,3}(?:\.\d{1,3}){3}|\d{1,3}(?:[,.]\d{3})+"
)
# A number the page itself calls a phone's, however short: an extension (分机 8021, ext. 8021), a service
# line (客服电话 95017, 热线 12345), "Telefon: 040 123 456".
_LABELLED = lazy_pattern(
    r"(?:分机|电话|手机|热线|座机|急救|报警|客服|内线|\btel\b\.?|\bphone|\bmobile?|\btelefon|\bnotruf|\bhotline"
    r"|\bfax|\bext\.?|\bextension|\bwhatsapp|\bdial)\s*(?:号码?|number|no\.?|nr\.?)?\s*[:：]?\s*"
    r"(?:是|为|is)?\s*\+?\d{3,}",
    re.IGNORECASE,
)


def asks_contact(question: str, terse: bool = True) -> str | None:
    """What a question asks for, when it is an email address or a phone number (``EMAIL``, ``PHONE``);
    None for any other question. ``terse``: a bare "Jan's email?" asks too (not in an agent's keyword
    phrasing, "weekly status email", which names a thing it asks about)."""
    if _ZH_EMAIL.search(question):
        return EMAIL
    if _ZH_PHONE.search(question):
        return PHONE
    if terse and (bare := _ZH_TERSE.search(question.strip())):
        return EMAIL if bare.group(1) else PHONE
    found = _EN_ASKED.search(question) or (_EN_TERSE.search(question) if terse else None)
    if found is None:
        return None
    return EMAIL if re.search(r"mail", found.group(0), re.IGNORECASE) else PHONE


def states_contact(kind: str, text: str) -> bool:
    """True when ``text`` (a page) states a value of the ``kind`` ``asks_contact`` found."""
    text = unicodedata.normalize("NFKC", text)
    if kind == EMAIL:
        return any(
            _LOCAL.search(text, max(0, m.start() - 64), m.start())
            and _DOMAIN.match(text, m.end(), m.end() + 255)
            for m in _AT.finditer(text)
        )
    if _LABELLED.search(text):
        return True
    for m in _A_RUN.finditer(text):
        found = m.group(0).strip()
        if sum(c.isdigit() or c in "*xX" for c in found) >= 7 and not _NOT_A_PHONE.fullmatch(found):
            return True
    return False


def lacks_contact(wordings: Sequence[str], path: str, read: Callable[[str], str]) -> str | None:
    """Why the page at ``path`` (its text ``read``) cannot answer a question whose wordings (the question
    first) ask for an email address or a phone number it states none of; None when it can or none asks.
    For a phrasing's citation: a terse rewording ("Railgate Hamburg contact email") drops the asking,
    and a translation asks what a question KRouter cannot read asks."""
    asked = [asks_contact(wordings[0]), *(asks_contact(w, terse=False) for w in wordings[1:])]
    kind = next((k for k in asked if k), None)
    if kind is None or states_contact(kind, read(path)):
        return None
    return f"the question asks for {kind}, and {path} states none"
