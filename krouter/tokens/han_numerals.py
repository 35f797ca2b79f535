"""Numbers a question says in Han numerals (两千, 一百五, 十五万, 三点, 九折), looked up as the digits notes write.

Spoken Chinese counts in numerals where notes, Chinese ones too, mostly write digits: "还是两千块封顶吗"
asks of a page saying "上限 2000 元", "九点上班吧" of one saying "9:00 上班". Read as Han words, 两千 and
九点 were words the vault never holds, and the right page was refused for them. A numeral is read as its
number only where it can be nothing else and only when the vault does not write it as asked:

- a well-formed number: with 百, 千, 万 or 亿 (两千, 一百零五, 十五万), the spoken short forms included
  (一百五 is 150, 两千五 2500, 三万二 32000, but 两千一个月 is 2000 a month); without them (十二, 三十) only
  before a measure word (三十天, 十五号: 十一 is the October holiday, 十三行 a place); not bare digits in a
  row (二〇二五, 五一), one starting with 零 (零五年), nor 百, 千 or 万 with no digit before it (百度, 千万别);
- a single digit only before a measure word (三点, 两只, 九折, 七月), never 一 (一个 is "a"), nor a stop
  word's (两个);
- not a weekday's, an ordinal's, a date's, an approximation's or a name's (周三, 礼拜四, 第二, 初三,
  九月初三, 几十万, 双十一, 老三), nor the start of a longer dictionary word (五月天, 五台山, 十万火急), but
  for one that only goes on counting (九点半, 七月份);
- never when a page writes it so, in Simplified or Traditional characters (its word or every bigram of it
  is in the index: a vault that writes 三点 or 兩千 keeps finding it), and without an index (``known``
  None) nothing is read.

Names that start with a number and no dictionary holds (三元桥, a shop called 三顿半) are still read as the
number when the vault never writes them (docs/decisions.md D224).
"""

from __future__ import annotations

from collections.abc import Callable

from krouter.lazy_pattern import lazy_pattern
from krouter.tokens import traditional
from krouter.tokens.chinese import question_jieba
from krouter.tokens.stopwords import CHINESE

_DIGITS = dict(zip("零〇一二两三四五六七八九", (0, 0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9), strict=True))
_PLACES = {"十": 10, "百": 100, "千": 1000}
_MYRIADS = {"万": 10**4, "亿": 10**8}
_NUMERAL = lazy_pattern("[零〇一二两三四五六七八九十百千万亿]+")
_LARGE = frozenset("百千万亿")
# What a numeral right after these is part of: a weekday (周三, 星期五, 礼拜四), an ordinal (第二), a day of
# the lunar month (初三), a festival (双十一), a sibling's nickname (老三), an approximation (几十万, 数十).
_NOT_AFTER = ("周", "星期", "礼拜", "第", "初", "双", "老", "几", "数")
# A month with its day (三月四号, 九月初三) is read whole by the date rules, or not at all.
_DATE_AFTER = lazy_pattern(r"月\s*[初零〇一二两三四五六七八九十\d]")
# Measure words and units a number is counted with (三点, 两只猫, 九折, 七月, 五公里). Not 成: 八成 is
# "probably", and 三成 a share notes write as 30%; nor 期 and 节, which start the words after a holiday's
# name (十一期间, 十一节假日) as often as they count.
_COUNTED = lazy_pattern(
    "(?:点|个|天|号|日|度|块|元|月|年|人|次|台|岁|分钟|秒|小时|钟头|周|倍|只|张|份|套|间|层|楼|箱|件|条"
    "|平米|平方|平|米|公里|斤|公斤|克|升|折|位|名|家|辆|遍|顿|趟|晚|夜|单|瓶|包|盒|袋|项|页|本)"
)
# What a dictionary word may add to a number and its measure word and still be a count (九点半, 七月份).
_COUNTING_ON = frozenset("半份多整")


def value(run: str) -> int | None:
    """The number a run of Han numerals writes, or None when the run is not one well-formed number."""
    if run[0] in "零〇":
        return None
    total = section = 0
    digit: int | None = None
    place = 0  # the last place (十, 百, 千) of this section, or the myriad just closed
    myriad = 10**12  # each myriad smaller than the one before (三亿五千万), never repeated (三万五万)
    zero = False  # a 零 was written: a trailing digit counts units (一百零五), not the place below
    for i, ch in enumerate(run):
        if ch in _DIGITS:
            if digit is not None:
                return None
            if _DIGITS[ch] == 0:
                zero = True
                continue
            digit = _DIGITS[ch]
        elif ch in _PLACES:
            step = _PLACES[ch]
            if digit is None:
                # 十 alone counts one ten (十二, 十五万); 百 and 千 need a digit (百度, 千万别).
                if ch != "十" or section or (i and run[i - 1] not in _MYRIADS):
                    return None
                digit = 1
            if place and place <= step and place < 10**4:
                return None
            section, digit, place, zero = section + digit * step, None, step, False
        else:
            section += digit or 0
            if not section or _MYRIADS[ch] >= myriad:
                return None
            myriad = place = _MYRIADS[ch]
            total, section, digit, zero = total + section * myriad, 0, None, False
    if digit is not None:
        # Spoken short forms: 一百五 is 150 and 三万二 32000 (the digit counts the place below the last).
        section += digit * (place // 10 if place and not zero else 1)
    return total + section or None


def in_digits(norm: str, known: Callable[[str], bool] | None) -> tuple[str, dict[str, str]]:
    """A normalised question with its Han numerals written in digits where the module's rules read them,
    and each number's digits mapped to the numeral the question wrote (2000: 两千) for the receipt."""
    if known is None or not _NUMERAL.search(norm):
        return norm, {}
    spoken: dict[str, str] = {}
    out, end = [], 0
    for m in _NUMERAL.finditer(norm):
        run = m.group(0)
        # 两千一个月, 两万一平: the 一 before a measure word is "a", not the short form's hundreds.
        if len(run) > 2 and run[-1] == "一" and run[-2] in _LARGE and _COUNTED.match(norm, m.end()):
            run = run[:-1]
        number = _read(run, norm[: m.start()], norm[m.start() + len(run) :], known)
        if number is None:
            continue
        out.append(norm[end : m.start()] + number)
        spoken.setdefault(number, run)
        end = m.start() + len(run)
    return "".join(out) + norm[end:], spoken


def _read(run: str, before: str, after: str, known: Callable[[str], bool]) -> str | None:
    """The digits ``run`` is read as, between ``before`` and ``after``, or None to leave it as written."""
    if before.endswith(_NOT_AFTER) or before.endswith(("月", "年")) or _DATE_AFTER.match(after):
        return None
    number = value(run)
    if number is None:
        return None
    counted = _COUNTED.match(after)
    measure = counted.group(0) if counted else ""
    if run + measure in CHINESE or (len(run) > 1 and run in CHINESE):
        return None
    # 一 is "a" (一个, 一次); a number with no measure word and no 百, 千, 万 or 亿 is a word's (九寨沟,
    # 三星, 十分 "very", 十一 the holiday).
    if run == "一" or not (measure or _LARGE.intersection(run)):
        return None
    if _starts_a_word(run + measure, after[len(measure) :]) or _written(
        run if len(run) > 1 else run + after[:1], known
    ):
        return None
    return str(number)


def _starts_a_word(counted: str, rest: str) -> bool:
    """Whether the number and its measure word begin a longer word of the segmenter's dictionary (五月天, a
    band; 五台山; 十万火急), other than one that only goes on counting (九点半, 七月份)."""
    freq = question_jieba().FREQ
    for size in range(1, min(len(rest), 3) + 1):
        if not _COUNTING_ON.issuperset(rest[:size]) and freq.get(counted + rest[:size]):
            return True
    return False


def _written(text: str, known: Callable[[str], bool]) -> bool:
    """Whether the vault writes ``text`` as asked: the word, every bigram of it, or its Traditional
    spelling (兩千 of 两千) is in the index."""
    if known(text) or (len(text) > 2 and all(known(text[i : i + 2]) for i in range(len(text) - 1))):
        return True
    return traditional.held_in_traditional(text, known) is not None
