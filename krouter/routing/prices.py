"""A question that asks a price is answered where the page states one.

多少钱 and 几块钱 ask "how much money", and the question keeps no word for it (``question_frames``
reads them as 多少): the answer is an amount. A page that holds the thing asked about but no amount
next to it (a supplier's page listing the LED boards it makes, and prices for other parts) has not
answered (docs/decisions.md D93).
"""

from __future__ import annotations

import re

from krouter.lazy_pattern import lazy_pattern
from krouter.routing.answering_line import route_terms, terms_in
from krouter.routing.question import Unit
from krouter.tokens.names import written_as_name
from krouter.tokens.question_frames import asks_price
from krouter.tokens.terms import english_terms, query_terms, word_text
from krouter.vault.md_tables import cells, headers
from krouter.vault.page import parse_page

# An amount of money as notes write one: a currency sign or code before the number, a sign, code or word
# after it (¥168, USD 20, 20€, 30 元, 12 dollars, 30 bucks, 1.5 万元), a price's label before it (价格
# 1299, 报价 30-50, 月费 2k, 押金 2000, 原价约 1000, "costs 168 a year", "the fee is 20 per seat", "rent
# 1500/month"), Han numerals and 元, 块 or 毛钱 (一百二十元, 两块五, 五毛钱) — or no charge at all (免费,
# "free of charge", "free shipping"). Not a count or another word: 块 only before 钱, a numeral, a per or
# the tenths of a spoken price (30 块钱, 30 块/月, 16块5; not 8 块硬盘, 一块一块拆, 4块4T 硬盘; where a
# clause ends only on a line naming what is paid: ``_SPOKEN_YUAN``), 万 only with 元 (not 3 万行代码), no
# 元 of 元旦,
# 元组, 元素, 元数据, 元宵, 一元二次, 二元分类, no 一毛钱关系 (an idiom), no "feel free" or "lock-free", no
# 免费试用 (a trial). After a Chinese label, a number is no amount when a date, time, count, share, size or
# rating follows it (价格 2024 年起上调, 报价 2025-03-01 / 2025.3.1 / 3/1, 押金 3 个工作日内退还, 24h, 30 min,
# 10:30, 10 点, 报价 3 家, 8 折, 3 档, 2 kg, 10%), but 个人版, 次日 and 人均 are no count; after an English
# one, only when nothing follows the number (or its range) but punctuation, a per ("a", "per", "each",
# "for", "plus", "monthly"), or money's own words ("bucks", "pounds"): "costs 3 months of work", "costs
# 1.5 days", "costs 2-3 weeks", "the fee is 2.9%" and "costs 2 GB" are not prices.
_NUMERALS = "一二两三四五六七八九十"
_YUAN = f"(?:元(?![旦组素数宵]|二次|分类)|块(?=[钱/每{_NUMERALS}]|\\d(?![\\d.]*[A-Za-z]))(?![{_NUMERALS}]块)|[毛角]钱(?!关系))"
_DATE = r"[-/.]\d{1,2}[-/.]\d"
_ZH_LABEL = (
    r"(?:价格|售价|单价|报价|原价|现价|优惠价|会员价|折后价|月费|年费|费用|运费|邮费|押金|定金|订金|租金|学费"
    r"|服务费|手续费|佣金|预算)\s*[:：]?\s*(?:约|大概|大约|是|为|在)?\s*[$€£¥￥]?\d"
    r"(?![\d,.]*\s*(?:[年月日号天周件位台倍折成档种项期份轮版家星斤克点%％]|个(?!人)|次(?!日)|人(?!均)"
    rf"|小时|分钟|工作日|kg|g\b|h(?![a-z])|(?:min|hour|day|week|month|year|sec)s?\b|[:：/]\d|{_DATE}))"
)
_NUMBER = r"\d++(?:[.,]\d++)*+"
_EN_LABEL = (
    r"\b(?:prices?|costs?|fees?|rates?|quote|deposit|rent|retainer|salary|budget|charges?|charged|bills?|billed"
    r"|pays?|paid)(?:\s+per\s+[a-z]+)?(?:\s+(?:is|are|us|them|her|him|you|me|at))?(?:\s+(?:about|around))?"
    r"\s*[:：]?\s*[$€£¥￥]?"
    rf"(?![\d,.]*{_DATE}){_NUMBER}(?:\s*[-–~～]\s*{_NUMBER})?+k?(?!\s*[%％]|/\d|:\d)"
    r"(?=\s*(?:$|[^\w\s]|(?:a|an|per|each|every|for|plus|ex|excl|incl|monthly|yearly|annually|weekly"
    r"|bucks|pounds|quid|dollars?|euros?)\b))"
)
# Other currencies as notes write them (₹5,000, CHF 120, 120 SEK); not the codes that are also words or
# languages (php, try, sar).
_SIGNS = "$€£¥￥＄₹₩₽₺₫฿₱₪₴₦"
_CODES = (
    r"usd|eur|gbp|cny|rmb|hkd|jpy|chf|sek|nok|dkk|pln|czk|huf|aud|cad|nzd|sgd|inr|krw|twd|thb|myr|brl|mxn|zar"
    r"|aed"
)
_EN_NUMBER_WORD = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty"
    r"|sixty|seventy|eighty|ninety|a hundred|hundred|a thousand|thousand)"
)
_AMOUNT = lazy_pattern(
    rf"(?:[{_SIGNS}]|人民币)\s?\d|(?<![a-z])(?:{_CODES}|rs\.?)\s?\d(?![\d,.]*[ac-jln-z])"
    rf"|{_ZH_LABEL}|{_EN_LABEL}"
    rf"|\d(?:[\d,. ]*\d)?\s*[kK千]?\s*(?:[{_SIGNS}¢]|万元|{_YUAN}|美元|美金|欧元|英镑|日元(?!旦)|港币|港元|人民币"
    # Korean won and Japanese yen after the number (SMS 13원, 월 3만원, 500円); not 원칙 (a principle) nor
    # another word 원 begins.
    r"|만?\s*원(?![칙화형소자리래본인격주천예장료문])|円"
    rf"|(?:dollars?|euros?|bucks|yuan|cents?|pence|kr|zł|{_CODES})(?![a-z]))"
    # Twelve dollars (not "two cents", an opinion).
    rf"|\b{_EN_NUMBER_WORD}(?:[\s-][a-z]+)?\s+(?:dollars?|euros?|bucks|yuan)\b(?!-)"
    rf"|[{_NUMERALS}百千万]+\s*{_YUAN}"
    r"|免费(?!试|体验)|不收费|不要钱|\bfree (?:of charge|shipping|plan|tier)\b|\bfor free\b|\b(?:is|are)\s+free\b"
    r"|:\s*free\b"
    r"|\bno (?:charge|cost|fee)\b",
    re.IGNORECASE,
)
# Words that name a price rather than the thing priced: on the price's own line they say nothing about
# which thing's price it is ("价格：驱动板 ¥21.5" is no price of the LED board).
_PRICE_NAMES = frozenset(
    "价格 价钱 报价 单价 售价 原价 现价 优惠价 折后价 费用 收费 月费 年费 运费 邮费 押金 定金 订金 租金 学费 服务费 "
    "手续费 佣金 预算 price prices pricing cost costs fee fees rate rates deposit deposits".split()
)


# 块 where a clause ends is money on a line that names what is paid (补贴 50 块, 押金 500 块。), or right
# after the time it is paid for (PG 主库一个月 1280 块, 每晚 300 块); on any other line it counts things as
# often (显示器 2 块, 硬盘一共 8 块。, 硬盘每个月坏 2 块。, 电池一年换 3 块。: two cold reviews).
_CLAUSE_END = r"(?:左右|上下)?[ \t]*(?:$|[，。,;；、)）!！?？])"
_SPOKEN_YUAN = lazy_pattern(rf"\d\s*块{_CLAUSE_END}")
_PAID_WORDS = lazy_pattern(
    r"补贴|津贴|补助|费|价|租|工资|薪|奖金|押金|定金|报销|预算|成本|收入|花了|付了|一人"
)
# Not the 一 of a date or an ordinal (十一月, 同一天, 第一年: a cold review).
_PER_TIME = lazy_pattern(
    r"(?:(?:(?<![第同十\d一二三四五六七八九〇零两])一|每一?)个?(?:月|年|季度?|晚|天|周|星期|礼拜)|包月|包年)"
    rf"\s*[:：]?\s*\d[\d.,]*\s*块{_CLAUSE_END}",
    re.M,
)


def states_amount(text: str) -> bool:
    """True when ``text`` states an amount of money (or no charge)."""
    return (
        bool(_AMOUNT.search(text))
        or bool(_SPOKEN_YUAN.search(text) and _PAID_WORDS.search(text))
        or bool(_PER_TIME.search(text))
    )


def states_price(path: str, text: str, units: list[Unit], matched: set[int], question: str = "") -> bool:
    """True when a line of the page ``text`` states an amount of money beside one of the question's
    words the page matched (by any of its routes): on that line, on the line above it unless that one
    ends a sentence (the item a nested bullet prices, a supplier card's "- 产品：LED 灯板" over "- 报价：12.5
    元/片", a sentence wrapped over two lines), or in its table's header. A word that names a price (价格,
    price) is not one, unless it is all the page matched; nor one the page's title or aliases hold,
    unless the page writes no other and its title says it lists prices ("UK delivery charges"), or the
    line's label is the page's whole name ("顺丰：首重 12 元" on the page 顺丰). A name the ``question`` writes (GLS) that the page holds but is not named by must stand beside
    the amount. Or when a trigger of the page asks this very price: the price of every word the
    question matched, in no other words than the question's (a lesson the learner writes only on a
    sentence stating the amount beside the question's words, or the owner's own): the page may state
    it in other words ("LED light board: ¥12.5" under the trigger 瑞芯灯板多少钱)."""
    specific = {i for i in matched if units[i].text.lower() not in _PRICE_NAMES}
    things = specific or matched
    page = parse_page(path, text)
    if specific:
        asked = {u.key for u in units}
        for trigger in page.triggers:
            words = {q.term for q in query_terms(trigger)}
            this_price = asks_price(trigger) and bool(words) and words <= asked
            if this_price and all(units[i].in_terms(words) for i in specific):
                return True
    # A word the page's title or aliases hold is what the whole page is about, not what an amount on one
    # line prices: "What does Sierra charge us per order for pick and pack in Reno?" cited the Reno move's
    # trucking bill "… → Reno for $1,140" (D135). The amount stands beside another word the page writes,
    # when it writes any (words matched through a replaced page that leads to it are not on it).
    # Read as the receipt's line reads text, for the question's own terms: cut by the pages' segmenter, a
    # Chinese page loaded jieba's whole dictionary into a fresh process (~370 ms; a second review).
    held = route_terms(units)
    names = terms_in(held, "\n".join([page.title, *page.aliases]))
    written = terms_in(held, text)
    here = {i for i in things if units[i].in_terms(written)}
    # Only the page's name matched: its amounts price its subject when the page is a price list ("UK
    # delivery charges"), not when it is about something else ("Reno warehouse move": "- Reno trucking:
    # $1,140" is no price of the warehouse; a second review).
    beside = {i for i in here if not units[i].in_terms(names)} or (
        here if _PRICE_LIST.search(page.title) else set()
    )
    # "How much did GLS charge per parcel?" is not answered by the DPD page's parcel price because the
    # page says it replaced GLS (a second review).
    named = {
        i for i in beside if not units[i].in_terms(names) and written_as_name(units[i].text, question, set())
    }
    lines = text.splitlines()
    for n, (line, header) in enumerate(zip(lines, headers(lines), strict=True)):
        if not (states_amount(line) or (header is not None and priced_row(header, line))):
            continue
        terms = terms_in(held, "\n".join(filter(None, (header, _above(lines, n), line))))
        near = {i for i in beside if units[i].in_terms(terms)}
        if (near and named <= near) or (not named and _labelled(page.title, line)):
            return True
    return False


# A header cell naming a column of money ("Fee (USD)", "Unit price", "单价", "金额（元）"); not "Rate limit",
# 元器件 (components), nor a bare "Amount" (of laptops as often as of money).
_MONEY_COLUMN = lazy_pattern(
    r"^\W*(?:unit |list |monthly |annual |yearly )?(?:prices?|pricing|fees?|costs?|day rate|hourly rate"
    r"|retainer)\b(?!\s*limit)"
    rf"|\((?:[{_SIGNS}]|{_CODES})\)|^\W*[{_SIGNS}]\W*$|价格|价钱|费用|金额|单价|报价|收费|[（(]元[）)]",
    re.IGNORECASE,
)


def priced_row(header: str, row: str) -> bool:
    """True when a table row states an amount in a column its header names as money: a number, or no
    charge, in that cell ("| Matter cert | 9,500 |" under "| Item | Fee (USD) |"; not "待报价", "ask
    finance", nor a number in another column, a model's or a count's)."""
    heads, values = cells(header), cells(row)
    return any(
        i < len(values) and (_DIGIT.search(values[i]) or states_amount(values[i]))
        for i, head in enumerate(heads)
        if _MONEY_COLUMN.search(head)
    )


_DIGIT = lazy_pattern(r"\d")
# A title that says the page lists prices.
_PRICE_LIST = lazy_pattern(
    r"\b(?:prices?|pricing|charges|fees|rates|costs|tariffs?|rate card)\b|价格|价目|收费|报价|费用|运费|定价",
    re.IGNORECASE,
)
# A line's label: what a bullet or a line names before its colon ("- Courier: ₹450 per parcel", "顺丰：首重
# 12 元"), or a table row's first cell.
_LABEL = lazy_pattern(r"^\s*(?:[-*+]|\d+[.)])?\s*(?:\|\s*)?([^:：|]{1,40}?)\s*[:：|]")


def _labelled(title: str, line: str) -> bool:
    """True when ``line``'s label holds every word of the page's ``title`` ("顺丰：首重 12 元" on the page
    顺丰): English words by their terms, other scripts as written."""
    m = _LABEL.match(line)
    name, label = word_text(title), word_text(m.group(1)) if m else ""
    if not name.strip() or not label:
        return False
    runs = [run for run in _NOT_LATIN.split(_LATIN_WORD.sub(" ", name)) if run]
    return set(english_terms(name)) <= set(english_terms(label)) and all(run in label for run in runs)


_LATIN_WORD = lazy_pattern(r"[a-z0-9]+(?:['’][a-z]+)?")
# What is left of a name once its Latin words are out: runs of other letters, split at anything else.
_NOT_LATIN = lazy_pattern(r"[\W_]+")


def _above(lines: list[str], n: int) -> str:
    """The line right above line ``n``, which may say what it prices, unless that one ends a sentence:
    "- Parcels are collected at 16:00." over "- Pallets: €45 each" is about another thing (a review)."""
    above = lines[n - 1] if n else ""
    return "" if above.rstrip().endswith(_SENTENCE_END) else above


_SENTENCE_END = tuple("。.!?！？")
