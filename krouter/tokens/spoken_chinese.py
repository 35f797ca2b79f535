"""Spoken Chinese and the written words of notes: a question says 礼拜 or 俩, a note says 周 or 两个.

Chinese questions typed in a chat use the spoken register; team notes use the written one. This is a
closed, general table of the same meaning in both registers, written by someone who had seen no vault
and no question the router is measured on (docs/decisions.md D36). It is used like the dictionary and
the abbreviation table: a route the question word may match through, at the translation's half weight,
shown in the receipt as 礼拜→周. A spoken form is looked for in the whole (normalised) question, since
segmentation may cut it apart (挂了 → 挂), and routes only the question words inside it.
"""

from __future__ import annotations

from functools import lru_cache

from krouter.tokens.terms import normalize

# (spoken, written, meaning). Grammar words (啥, 咋, 吗) are not here: they are question frames; nor are
# the days counted from the asker's now (今儿, 明儿), which questions drop (docs/decisions.md D66).
PAIRS: tuple[tuple[str, str, str], ...] = (
    # Weeks and days of the week: 礼拜 (spoken) vs 周/星期 (written)
    ("礼拜", "周", "week"),
    ("礼拜", "星期", "week"),
    ("上礼拜", "上周", "last week"),
    ("这礼拜", "本周", "this week"),
    ("下礼拜", "下周", "next week"),
    ("礼拜一", "周一", "Monday"),
    ("礼拜二", "周二", "Tuesday"),
    ("礼拜三", "周三", "Wednesday"),
    ("礼拜四", "周四", "Thursday"),
    ("礼拜五", "周五", "Friday"),
    ("礼拜六", "周六", "Saturday"),
    ("礼拜天", "周日", "Sunday"),
    ("礼拜天", "星期日", "Sunday"),
    ("星期天", "周日", "Sunday"),
    # Time of day and durations
    ("早上", "上午", "morning; 早上 can be earlier than 上午"),
    ("早上", "早晨", "morning"),
    ("一大早", "清晨", "early morning"),
    ("晚上", "晚间", "evening"),
    ("晚上", "夜间", "night"),
    ("半夜", "凌晨", "middle of the night"),
    ("白天", "日间", "daytime"),
    ("钟头", "小时", "hour"),
    # Relative days, months and timing words
    ("天天", "每天", "every day"),
    ("这个月", "本月", "this month"),
    ("上个月", "上月", "last month"),
    ("下个月", "下月", "next month"),
    ("月底", "月末", "end of month"),
    ("年底", "年末", "end of year"),
    ("几号", "日期", "which date; question form asking for a date"),
    ("待会儿", "稍后", "in a moment"),
    ("回头", "稍后", "later; literal 'turn head' rare in work chat"),
    ("立马", "立即", "immediately"),
    ("赶紧", "尽快", "as soon as possible"),
    ("还没", "尚未", "not yet"),
    # Holidays
    ("过年", "春节", "Chinese New Year holiday"),
    ("五一", "劳动节", "May Day holiday"),
    # Quantities and amounts
    ("俩", "两个", "two (of them)"),
    ("仨", "三个", "three (of them)"),
    ("好几个", "多个", "several"),
    ("块钱", "元", "yuan (currency unit)"),
    # Faults and incidents
    ("挂了", "宕机", "service is down"),
    ("挂了", "故障", "broken, failed"),
    ("崩了", "崩溃", "crashed"),
    ("闪退", "崩溃", "app crashes right after opening"),
    ("卡了", "卡顿", "lagging, stuck"),
    ("没反应", "无响应", "not responding"),
    ("坏了", "故障", "broken (system or device)"),
    ("坏了", "损坏", "broken (physical item)"),
    ("毛病", "问题", "fault; sense 'bad habit' rare in work notes"),
    ("报错", "错误", "error reported"),
    ("打不开", "无法访问", "cannot open (page, site, system)"),
    ("连不上", "无法连接", "cannot connect"),
    ("登不上", "登录失败", "cannot log in"),
    ("起不来", "启动失败", "will not start (service, machine)"),
    ("断网", "网络中断", "network outage"),
    # Releases, environments and system access
    ("上线", "发布", "release; work sense dominates, also 'come online'"),
    ("上线", "部署", "deploy to production; same doubt as above"),
    ("发版", "发布", "release a version"),
    ("主库", "主数据库", "primary database"),
    ("从库", "从数据库", "replica database"),
    ("测试服", "测试环境", "test environment"),
    ("正式服", "生产环境", "production environment"),
    ("正式环境", "生产环境", "production environment"),
    ("线上环境", "生产环境", "production environment"),
    ("后台", "管理后台", "admin console; also 'background process' in tech"),
    ("开权限", "授权", "grant access"),
    # Common work actions
    ("搞定", "完成", "get something done"),
    ("搞定", "解决", "sort out a problem"),
    ("瞅", "查看", "look at, check"),
    ("找着", "找到", "found"),
    ("改", "修改", "change, modify"),
    ("删", "删除", "delete"),
    ("交班", "交接", "shift handover"),
    ("倒班", "轮班", "rotating shifts"),
    ("顶班", "代班", "cover someone's shift"),
    ("搭把手", "协助", "give a hand"),
    ("盯着", "跟进", "keep an eye on, follow up"),
    ("盯着", "监控", "monitor"),
    ("开会", "会议", "meeting"),
    ("没法", "无法", "cannot"),
    ("不让", "禁止", "not allowed"),
    # People and roles
    ("老板", "负责人", "boss; may mean company owner, doubt"),
    ("头儿", "负责人", "head of the team"),
    ("谁管", "负责人", "who is in charge; owner lookup"),
    ("咱们", "我们", "we (inclusive)"),
    ("新人", "新员工", "new hire"),
    ("甲方", "客户", "client (contract party A)"),
    ("乙方", "供应商", "vendor (contract party B)"),
    ("客人", "客户", "customer"),
    # Money, pay and expenses
    ("打钱", "付款", "pay money"),
    ("打钱", "转账", "transfer money"),
    ("收钱", "收款", "collect payment"),
    ("退钱", "退款", "refund"),
    ("报账", "报销", "claim expenses"),
    ("工钱", "工资", "wages, salary"),
    ("涨工资", "调薪", "pay raise"),
    ("价钱", "价格", "price"),
    ("本钱", "成本", "cost, capital outlay"),
    ("开销", "费用", "expenses"),
    ("提成", "佣金", "sales commission"),
    ("车费", "交通费", "transport cost"),
    ("饭钱", "餐费", "meal cost"),
    ("房租", "租金", "rent"),
    # Goods, orders and logistics
    ("东西", "物品", "thing, item; vague word"),
    ("货", "货物", "goods"),
    ("单子", "订单", "order"),
    ("单子", "单据", "form, slip, voucher"),
    ("发快递", "发货", "ship a parcel"),
    ("送货", "配送", "deliver goods"),
    ("快递费", "运费", "shipping fee"),
    ("包邮", "免运费", "free shipping"),
    ("打折", "折扣", "discount"),
    ("断货", "缺货", "out of stock"),
    ("压货", "积压", "overstock"),
    ("库房", "仓库", "warehouse"),
    # HR and admin
    ("打卡", "考勤", "clock in, attendance"),
    ("跳槽", "离职", "leave for another job"),
    ("手机号", "手机号码", "mobile number"),
)


@lru_cache(maxsize=1)
def _table() -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for spoken, written, _meaning in PAIRS:
        out.setdefault(spoken, []).append(written)
    return {k: tuple(v) for k, v in out.items()}


def written_forms(word: str, question: str) -> tuple[str, ...]:
    """The written words a note would use for the spoken forms of ``question`` that ``word`` (a question
    word as segmentation left it: 挂 of 挂了) lies within, where it lies within them: the 钱 of 多少钱 is
    not the 钱 of 打钱 in the same question. None for most words."""
    forms = [(spoken, written) for spoken, written in _table().items() if word in spoken]
    if not forms:
        return ()
    text = normalize(question)
    out: list[str] = []
    for spoken, written in forms:
        if any(_within(text, word, start, spoken) for start in _starts(text, spoken)):
            out.extend(w for w in written if w not in out)
    return tuple(out)


def _starts(text: str, part: str) -> list[int]:
    starts, at = [], text.find(part)
    while at != -1:
        starts.append(at)
        at = text.find(part, at + 1)
    return starts


def _within(text: str, word: str, start: int, spoken: str) -> bool:
    """Whether an occurrence of ``word`` in ``text`` lies inside the occurrence of ``spoken`` at ``start``."""
    end = start + len(spoken)
    return any(start <= at and at + len(word) <= end for at in _starts(text, word))
