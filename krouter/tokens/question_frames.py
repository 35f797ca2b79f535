"""What a question says that names no subject: asking frames, the A-not-A form, pointing words, days.

A question carries words that ask rather than name: "how long", "is there any way to", "what type of",
"today"; 来不来, 那家, 昨晚. Counted as content, each is a word the page "lacks", and a plain question
looks unanswerable. These apply to questions only; pages keep every word. The stop lists
(`tokens/stopwords.py`) hold the single closed-class words both sides drop.
"""

from __future__ import annotations

import re

from krouter.lazy_pattern import lazy_pattern
from krouter.tokens.stopwords import CHINESE

# The auxiliary verb that follows the noun a "what/which" question asks for ("what activity did she ...").
_AUXILIARY = r"\s+(?:did|does|do|has|have|had|is|are|was|were|will|would|can|could)\b"

# Question frames whose words ask *about* a quantity rather than name a subject: "how long", "what
# time", "these days". Left in, "long" or "time" count as content the page must contain. "How many
# times" is "how often": the times are counted, not named.
_EN_FRAMES = lazy_pattern(
    r"\bhow many times\b"
    r"|\bhow (?:long|many|much|often|far|soon|frequently|quickly|fast|big|large|old)\b|\bwhat time\b"
    r"|\bthese days\b|\bnowadays\b|\bright now\b|\bat the moment\b|\bat present\b"
    # Asking an assistant: "remind me ...", "I was wondering ...", "just curious".
    r"|\bremind me\b|\bwondering\b|\bi wonder\b|\bjust curious\b"
    # What the asker believes or recalls ("i thought it was 6pm", "I remember 30", "IIRC"): the asker's
    # own words about the answer, which no page holds. Only where a sentence starts: "how do I recall an
    # email" asks about recalling (a cold review).
    r"|(?:^|(?<=[.?!;:,—–]))\s*(?:(?:but|and|though|because)\s+)?i (?:thought|think|believe|remember|recall"
    r"|guess|assumed?|heard)\b|\bif i (?:recall|remember)(?: (?:correctly|right|rightly))?\b|\biirc\b"
    # An agent asking the notes themselves: "Look up our leave policy", "Find what we decided about X",
    # "Search the notes for Y", at the start of a sentence and before what it asks for; "what do the
    # notes say about Z", "do the notes have anything on Z". The instruction names no subject ("look"
    # and "find" were words every page lacked); "how do I look up a booking" keeps its verb. Only the
    # notes: "does our wiki have SSO" asks about the wiki (a cold review).
    r"|(?:^|(?<=[.?!;:—–]))\s*(?:(?:please|pls)\s+)?(?:(?:can|could|would) you\s+)?(?:please\s+)?"
    r"(?:find|look up|look for|search(?: for)?|pull up|dig up|tell me|show me|get me|check(?!\s+out\b)(?!\s+in\b(?!\s+(?:the|our|my|your)\b)))"
    r"(?:\s+(?:in\s+|through\s+)?(?:the|our|my|your)\s+(?:teams?(?:'s)?\s+)?notes?\b(?:\s+(?:for|on|about|regarding)\b)?"
    r"|\b(?=\s+(?:our|the|my|what|how|where|when|who|whom|whose|which|why|whether|if|any|out)\b))"
    r"|\b(?:what|anything) (?:do|does|did) (?:the|our|my) notes (?:say|have|mention)(?: about| on| regarding)?\b"
    r"|\b(?:do|does) (?:the|our|my) notes (?:say|have|mention|cover)(?: anything)?(?: about| on| regarding)?\b"
    # Where the asker read it: "I have €11.90 in my notes", "according to our notes". Not "in the notes":
    # a ticket's or an order's notes are a subject ("is what agents write in the notes emailed?", a cold
    # review), as "the release notes" are.
    r"|\b(?:in|from|per) (?:our|my) notes\b|\baccording to (?:the|our|my) notes\b"
    # Who asks, before what they ask: "Beatriz is asking what an EU on-call week pays", "my manager wants
    # to know who approves", "Tiago asked me whether …". The one asking may be named; the asking is not.
    r"|\b(?:is|was|are|were|keeps|kept)\s+asking(?:\s+(?:me|us))?(?=\s+(?:what|whether|if|how|when|where|who"
    r"|which|why)\b)|\basked (?:me|us)(?=\s+(?:what|whether|if|how|when|where|who|which|why)\b)"
    r"|\b(?:wants?|wanted|would like|needs?) to know\b"
    # Asking what someone said, and on what grounds: "what did Tim mention …", "as mentioned on May 3",
    # "what was discussed", "according to Tom", "based on what". The words of speech and source name no
    # subject; what was said about does. Not the nouns: "are @mentions emailed?", "the talk about Kafka"
    # (a cold review); "mention" only after the asking verb. Not "describe": "how did John describe the
    # camping trip" is left with a name and a subject every session about the trip holds (LoCoMo dev:
    # six wrong citations for one right answer).
    r"|\b(?:mentioned|mentioning|discussed|discussing|talked about|talking about)\b"
    r"|\baccording to\b|\bbased on\b"
    # A guess asked for: "what would she likely do", "most likely".
    r"|\b(?:most )?likely\b"
    # Asking for a decision: "what did we decide about X", "find what we decided about X", "which X did
    # we pick". The verb is the question's frame; as content it matched whichever page happens to say
    # "decided" or "picked" (a replaced page's "we picked it because" cited its replacement for "which
    # CI did we pick").
    r"|\bwhat (?:(?:did|have) )?we (?:decided?|agreed?|settled?|chosen|chose|choose|picked|pick)"
    r"(?: on| about| for)?\b|\bwhat was (?:decided|agreed|chosen)(?: on| about| for)?\b"
    r"|\b(?:did|have) we (?:picked|pick|chosen|chose|choose|gone with|go with|went with|settled on|settle on)\b"
    # Asking for confirmation or for a means: "..., right?" (a tag follows a comma: "left or right?" is
    # content), "is there any way to ...", "what's the right way to ...". A tag or a "way to" names no
    # subject; the words after it do.
    r"|,\s*(?:right|yeah|yes|correct|no|ok|okay)\s*\?"
    r"|\b(?:is there )?(?:any|a|an|the) (?:(?:best|easiest|quickest|easy|quick|good|simple|right|proper|correct"
    r"|recommended|preferred|usual|standard|normal) )?way (?:to|of)\b"
    # Vague amounts and times past ("a couple of weeks ago"): the unit after them is content, they are not.
    r"|\ba (?:couple|bunch|lot|few) of\b|\blots of\b|\bplenty of\b|\bseveral\b|\bago\b"
    # Prepositions written in several words ("get a build in front of Megan", "on top of the release"),
    # and "stuff", the everyday "things": grammar and a placeholder, like "about" and "thing". Not "in
    # terms of" (terms of service) nor "ahead of" (ahead-of-time compilation): those name subjects too.
    r"|\bin front of\b|\bon top of\b|\binstead of\b|\bstuff\b"
    # "Recently", "lately": the asker's now, which no page holds (the days themselves, which names can
    # hold, are _DAYS below).
    r"|\b(?:recently|lately)\b"
    # Adverbs of habit, as "often", "always" and "still" are stop words: how things usually go is asked,
    # not named. Not "generally" or "normally" (generally available, normally closed).
    r"|\b(?:usually|typically|anymore)\b"
    # What kind of answer is asked for: "what type of" is "what kind of" ("kind" is a stop word); "what
    # activity did she take up" names the answer's kind, the page names the activity (LoCoMo dev: +3 right,
    # 2 fewer wrong citations; no other dev set moved). Only before the verb: in "which activity log
    # stores logins" the activity log is the subject.
    rf"|(?:(?<=\bwhat )|(?<=\bwhich ))(?:types? of\b|activit(?:y|ies)(?={_AUXILIARY}))"
)

# Days counted from the asker's now, in lower case as written: "USA Today" and "Yesterday" (a song) are
# names, and a question's casing is the only sign of it (frames are read after case folding).
_DAYS = lazy_pattern(r"\b(?:today|yesterday|tomorrow|tonight)\b")


# The A-not-A question (来不来, 收不收钱, 算不算, 要不要): the verb asked about once, the rest is grammar.
# Two-character verbs repeat whole (同意不同意) or by their first character (同不同意).
_A_NOT_A = lazy_pattern(r"([\u4e00-\u9fff]{1,2})[不没]\1|([\u4e00-\u9fff])[不没](?=\2)")


def _asked_once(m: re.Match[str]) -> str:
    """The verb of an A-not-A question; one that is a stop word already (是不是, 有没有) is left as it
    is, since rewriting it changes how the segmenter cuts the words around it (是调过, not 是不是 调 过)."""
    return m.group(0) if m.group(0) in CHINESE else (m.group(1) or "")


# Days and moments counted from the asker's now (今天, 昨晚, 刚才), as "today" is in English. Not weeks,
# months or years (本周, 下周, 去年): "下周计划" and "去年营收" are what pages are called.
_ASKERS_NOW = frozenset("今天 昨天 明天 前天 后天 今晚 昨晚 今早 刚才 刚刚 马上 今儿 明儿 昨儿".split())


# 这 or 那 and a measure word (那家, 这次, 那位, 那段, 那套): pointing at something the question names
# elsewhere or the asker has in mind, as 这个 and 那个 (stop words) do. "找言叶那家做" asks about 言叶, not
# about 那家; "西安那段用车" about 西安, "自己搭的那套 Kafka" about Kafka (the dev7 and colloquial agent
# loops). Not 张, a surname before anything else (那张总的电话: a cold review).
_POINTING_MEASURES = "家位次天回种款台批件块段套条份组场轮趟"
_POINTING = lazy_pattern(rf"[这那][{_POINTING_MEASURES}]$")


# "How much money" (多少钱, 几块钱, 多少錢): the question asks for a price, as "how much" does in English (an
# English frame above), and a page states one (¥198, 30 元) without the word 钱: the phrase is read as
# 多少 (a stop word), before the segmenter sees it, so its 钱 is no word at all (D93). Not 没多少钱 ("not
# much money"), nor 钱包 (a wallet); elsewhere 钱 names money (报销的钱) and stays a word.
# The unit a price is asked per, beside the frame ("多少钱一套", "几块钱一片", "一个月多少钱", "每箱多少钱"):
# the page writes it after the amount (¥4.4/套, ¥18 / 月), not as 一套 or 每箱, which counted as words the
# page lacks (一套 translated as "collection"). Read as the unit alone. Not the 一 of 唯一, 统一, 第一, nor of
# a number or a day (十一天, 二十一个月, 周一晚, 星期一, 初一: two cold reviews), and after the frame only
# where the question ends there (多少钱一次性买断 keeps 一次性; 多少钱一天内能到 keeps 一天内). The verb of
# paying it is asked with goes too, once the segmenter has cut it out as a word (``paid``).
_PRICE_UNIT = (
    r"(?:个月|個月|小时|小時|公斤|千克|平米"
    r"|[个個件套台臺只隻张張块塊斤克吨噸条條份箱盒包瓶支片双雙对對本次天晚夜周週月年位人间間辆輛趟单單])"
)
_PRICE_ASKED = lazy_pattern(
    rf"(?:(?<![第唯统統同万萬十百千零〇两兩二三四五六七八九\d周週期拜初])[一每]\s*(?P<before>{_PRICE_UNIT})\s*"
    # ... with the verb it is paid with between (每个月花多少钱, 一年交多少钱).
    r"(?:要|得|是|卖|賣|收|花|交|付|掏|支付)?\s*)?"
    rf"(?<![没沒])(?:多少|[几幾][百千]?)\s*[块塊]?\s*[钱錢](?!包)"
    rf"(?:\s*[一每]\s*(?P<after>{_PRICE_UNIT})(?=\s*[吗嗎呢吧啊呀]?\s*(?:[？?，,。.!！;；…~～]|$)))?"
)


def _price_read(m: re.Match[str]) -> str:
    units = " ".join(unit for unit in (m.group("before"), m.group("after")) if unit)
    return f" {units} 多少 " if units else "多少"


# An English question asking for money in so many words (D135; D132's wider reading was reverted): "how
# much money", "how many dollars"; "how much" then an auxiliary and a verb of paying ("how much are we
# paying", "how much is Kai paid", "how much does DPD charge us"); "what does X charge / cost" with whom
# or per what after it, and "what are we planning to charge"; "what's the fee" and "what's her hourly
# rate" (her day rate) where the fee or the rate ends its phrase. Not "how much paid leave", "how much
# can paid users upload", "how much does the pay review take", "what is Kai in charge of", "what is the
# max charge", "what can I charge to the budget", "what does a cache miss cost?" (no one is charged),
# "what does it cost us in latency", "the cost of", "the late fee policy", "the daily rate limit", "the
# annual rate of churn", nor "how much do we spend on" (time is as often what it costs).
_EN_AUX = r"(?:do|does|did|will|would|should|must|can|could|are|is|was|were|have|has|had)"
_EN_PAY = (
    r"(?:pay|pays|paying)\b(?!\s+(?:attention|a visit|off|back|down|review|reviews|rise|rises|raise|raises|cycle"
    r"|day|slip|slips|grade|band|scale|period|run|roll|check|gap|cut|freeze|structure|policy|increase)\b)"
    r"|paid(?=\s*(?:[?？,]|$|(?:for|to|per|by|in|on|each|a|an|monthly|weekly|hourly|yearly|annually)\b))"
)
_EN_CHARGED = (
    r"(?<!in )(?<!in the )(?:charge|charges|charging|charged)\b"
    r"(?=\s*(?:[?？]|$|(?:us|me|them|you|him|her|customers|clients|users|buyers|per|for|a|an|each|every|in)\b))"
)
# "Cost us in latency", "in downtime": a cost measured in something else than money.
_EN_COSTS = (
    r"(?:cost|costs|costing)\b(?=\s+(?:us|me|them|you|him|her|per|a|an|each|every)\b)"
    r"(?!\s+\w+\s+in\b(?!\s+(?:fees|total|licen[cs]es|cash|euros|dollars)\b))"
)
_EN_VERB_AUX = r"(?:do|does|did|will|would|should|can|could)"
_EN_PRICE_ASKED = lazy_pattern(
    r"\bhow much money\b|\bhow many (?:dollars|euros|pounds|bucks|quid|yuan|rmb)\b"
    rf"|\bhow much\s+{_EN_AUX}\b[^.?!;]{{0,80}}?\b(?:{_EN_PAY}|{_EN_CHARGED}|{_EN_COSTS})"
    rf"|\bwhat\s+{_EN_VERB_AUX}\b[^.?!;]{{0,80}}?\b(?:{_EN_CHARGED}|{_EN_COSTS})"
    rf"|\bwhat\s+(?:is|are|was|were)\b[^.?!;]{{0,60}}?\bto (?:{_EN_CHARGED})"
    r"|\bwhat(?:'s|’s|\s+is|\s+are|\s+was|\s+were)\s+(?:[\w’'-]+\s+){0,3}?(?:price|prices|fee|fees"
    r"|(?:hourly|day) rates?)\b(?=\s*(?:[?？,.;]|$|(?:for|of|on|per|to|and|in|at|with|when|if)\b))",
    re.IGNORECASE,
)


# The verb of paying that frame asks with, blanked as 多少钱's 钱 is (D93): the page answers with an amount
# ("Courier: ₹450 per parcel"), not with the word "charge", and D93's check asks for that amount; so is
# the rate of an hourly rate. A fee or a price is the thing whose amount is asked, and stays a word.
_MONEY_WORD = lazy_pattern(
    r"\b(?:pay|pays|paying|paid|charge|charges|charging|charged|cost|costs|costing|money|dollars|euros"
    r"|pounds|bucks|quid|yuan|rmb|rates?)\b",
    re.IGNORECASE,
)


def _money_blanked(m: re.Match[str]) -> str:
    # Only the frame's own last word, its verb (or "money", "rate"): "how much does the rate limiter cost
    # us" keeps the rate of the rate limiter (a second review).
    span = m.group(0)
    words = list(_MONEY_WORD.finditer(span))
    if not words:
        return span
    return span[: words[-1].start()] + " " + span[words[-1].end() :]


def asks_price(question: str) -> bool:
    """True for a question asking how much money something costs (多少钱, 几块钱, 多少錢; "how much do we
    pay", "what does DPD charge per parcel", "what's the fee")."""
    return bool(_PRICE_ASKED.search(question) or _EN_PRICE_ASKED.search(question))


def without_days(question: str) -> str:
    """A question as written, its days counted from the asker's now in lower case (today) blanked out."""
    return _DAYS.sub(" ", question)


# 来着 closing a spoken question ("备份留几天来着？", "邮箱是多少来着"): "…was it again?", the asker
# recalling, not a word of the subject. The segmenter cuts it into 来 + 着 or glues 来 to the word before
# (钱来, 台来), and the lone 来 was content every page lacks. Only where a clause ends, or a final
# particle follows: 本来着手 ("set about") is no question's end. Nor after a verb 来 completes (过来,
# 回来, 起来: "周五谁过来着？" asks who came over; a cold review): there only 着 is grammar, a stop word
# already. After 上, 下 or 后 it is blanked: they end places and times (线上, 楼上, 三天后) more often than
# they make 上来 or 后来 (a second review).
_RECALLING = lazy_pattern(r"(?<![过回出进起带])来着(?=\s*[吗呢吧啊呀]?\s*(?:[？?，,。.!！;；…~～]|$))")


# "Under what circumstances" (什么情况下, 哪些情况下, 啥情况): asks for a condition, as 什么时候 asks for a
# time, and names nothing. Left in, 情况 counted as content no note writes, and the segmenter glued the
# frame's 下 to the verb after it ("什么情况下切到备用通道": 下切, a word no page holds), both said to be
# words "the vault never mentions" (the dev2 agent loop).
# 在 before it is a stop word already (and may end 现在); 下 is the frame's but in 下载, 下架 and 下单
# (什么情况下载不了, 啥情况下架的, 哪种情况下单会失败): before any other character it is read as the
# frame's, which 线上, 降级 and 班次 need ("什么情况下线上会报警" is no 下线; a cold review).
_CONDITION_ASKED = lazy_pattern(r"(?:什么|啥|哪些|哪种|何种)\s*(?:样的?\s*)?情况(?:下(?![载架单]))?")


# 像 before "…那样/一样" is the comparison's "like" ("还像 2023 年那样吗", "像上次一样"), as "like" is an
# English stop word; elsewhere it may be a noun a page holds (工牌像, 证件像: a photo).
_LIKE = lazy_pattern(r"像(?=[^，。？?！!,.;；]{0,12}?(?:那样|一样|这样|似的))")


# 块 after a number: spoken Chinese for 元 ("开线那300块", "38块5" for 38.5) or a measure word ("8块硬盘"),
# never a word of the subject: notes write ¥300 or 300 元, and the lone 块 weighed as content every page
# lacks (D134). Not 一块 ("together", "a piece of"), a word of its own.
_KUAI_DECIMAL = lazy_pattern(r"(?<=\d)块(?=\d)")
_KUAI_AFTER_NUMBER = lazy_pattern(r"(?<=[\d两三四五六七八九十百千万])\s*块")


# "What passion does Tim mention …": the verb after the asking one (``_EN_FRAMES`` takes its other forms).
_MENTION_ASKED = lazy_pattern(r"\b(do|does|did)\b((?: [\w']+){1,3}?) mention\b")


# Asking the notes in Chinese, as the English frames above do: "帮我查一下…", "麻烦看下…", "查下笔记…", and the
# notes as the place ("笔记里有没有写…", "我们的记录里…"). Only a verb with 一下/下 or doubled (查查), so 查询
# (query), 看板 (a board), 找到 and 找回 stay words; only where a sentence or a clause starts.
# The marks that end a clause in a Chinese question.
_ZH_MARKS = "，,。.!！?？;；:：、"
_ZH_CLAUSE = rf"(?:^|(?<=[\s{_ZH_MARKS}]))"
# Where a word ends: a space, a mark, Latin letters or digits, or the question's end.
_ZH_END = rf"(?=[\s{_ZH_MARKS}A-Za-z0-9]|$)"
# A bare 下 after the verb only where a word does not begin with it (查下笔记, 看下 Console; not 查下线时间,
# 看下午: 下线, 下午 are words).
_ZH_LOOK = (
    r"(?:查查|找找|翻翻|搜搜|看看|[查找翻搜看](?:一下|一查|一找|一看"
    rf"|下(?:{_ZH_END}|(?=笔记|记录|我们的|咱们的|我的))))"
)
# The notes after the request, only as a word of their own (not 笔记本, a laptop, 记录上限, 笔记App, nor
# 笔记 App or 记录 API, a name after a space), and 里 or 中 after them (not 里程, 记录中心).
_ZH_NOTES_WORD = (
    rf"(?:(?:我们|咱们|我)的)?(?:笔记|记录)(?:里面|里(?!程)|中(?=[的有查找看写记提\s{_ZH_MARKS}]|$)"
    rf"|(?=[{_ZH_MARKS}]|\s+(?![A-Za-z0-9])|$))"
)
_ZH_REQUEST = lazy_pattern(
    rf"{_ZH_CLAUSE}(?:麻烦你?|请你?)?(?:(?:帮|替)(?:我们|我|忙)(?:{_ZH_LOOK})?|{_ZH_LOOK})(?:{_ZH_NOTES_WORD})?"
    rf"|{_ZH_CLAUSE}(?:在|从)?(?:(?:我们|咱们|我)的)?(?:笔记|记录)(?:里面|里(?!程)|中(?=[的有查找看写记提\s]))(?:有没有|有无)?(?:写|记)?(?:过|的|了|着)?"
)

_ZH_ASKING = lazy_pattern("[查找翻搜看笔记]")


def without_frames(text: str) -> str:
    """A normalised question with its English asking frames, a spoken Chinese question's closing 来着,
    "under what circumstances" (什么情况下) and a comparison's 像 blanked out (each becomes a space), a
    price asked read as 多少 and the unit it is asked per (一套: 套; in English, its word of money
    blanked), "mention" after "does/did …" blanked, and 块 after a number dropped (38块5 read as 38.5)."""
    text = _EN_PRICE_ASKED.sub(_money_blanked, text)
    text = _MENTION_ASKED.sub(r"\1\2 ", text) if "mention" in text else text
    text = _PRICE_ASKED.sub(_price_read, _RECALLING.sub(" ", _EN_FRAMES.sub(" ", text)))
    text = _CONDITION_ASKED.sub(" ", text) if "情况" in text else text
    text = _ZH_REQUEST.sub(" ", text) if _ZH_ASKING.search(text) else text
    text = _LIKE.sub(" ", text) if "像" in text else text
    return _KUAI_AFTER_NUMBER.sub(" ", _KUAI_DECIMAL.sub(".", text))


def verb_asked_once(run: str) -> str:
    """A Han run with its A-not-A questions (来不来, 收不收钱) read as the verb asked about once."""
    return _A_NOT_A.sub(_asked_once, run)


# The verbs of paying a price question asks with (每个月花多少钱, 房租交多少钱, 支付多少钱, 付了几块钱): the page
# states the amount, not the verb ("花" was "a word the vault never contains"), as English's "pay" is
# blanked. Only as the segmenter's own word right before the frame's 多少: the end of a noun (鲜花, 公交,
# 成交, 交付) stays whole (a cold review of a pattern over the text, which cut them).
_PAYING = frozenset(("花", "交", "付", "掏", "支付", "花掉", "交了", "付了", "花了"))


def segmented(words: list[str]) -> list[str]:
    """The segmenter's words of a question without its pointing words (``pointed``) and the verb of
    paying a price is asked with (``paid``)."""
    return paid(pointed(words))


def paid(words: list[str]) -> list[str]:
    """The segmenter's words without a verb of paying that asks a price (房租/交/多少: 交)."""
    out: list[str] = []
    for i, word in enumerate(words):
        after = words[i + 1 : i + 3]
        if after[:1] == ["了"]:
            after = after[1:]
        if word in _PAYING and after[:1] == ["多少"]:
            continue
        out.append(word)
    return out


def pointed(words: list[str]) -> list[str]:
    """The segmenter's words without its pointing words: 这 or 那 and a measure word, whole ("工资那块咋算":
    那块) or cut apart (那 + 块 of "登录那块 SDK", 那 + 批 of "那批，"). Taken out before the words are cut
    again against the vault, which parts a pointing word no page holds (那套: 套 alone)."""
    out: list[str] = []
    for word in words:
        if out and out[-1] in ("这", "那") and len(word) == 1 and word in _POINTING_MEASURES:
            out.pop()
        elif not _POINTING.match(word):
            out.append(word)
    return out


# "The number of", cut off the noun it counts (分区数, 节点个数: how many partitions, how many nodes): the
# question asks for a count, as "how many" does, and a page states one ("12 个分区") without the word. A
# page that writes the word whole (连接数) is a word of its own the segmenter keeps (``repair``).
_COUNT_OF = frozenset(("数", "个数"))


def asks_only(word: str) -> bool:
    """True for a Chinese question word that asks rather than names: a day counted from the asker's now
    (今天, 昨晚), or "the number of" cut off the noun it counts (数 of 分区数); pointing words are out
    before (``pointed``)."""
    return word in _ASKERS_NOW or word in _COUNT_OF
