"""Seeded synthetic vaults for the performance bench: English, Chinese and mixed pages, never committed.

The same ``(pages, seed)`` always gives the same files and the same question mix, so two runs (or two
machines) measure the same work. What makes the vaults realistic enough to time:

- page lengths drawn from a log-normal (median ~150 words, a long tail of clippings to ~6k words),
  since real notes are mostly short with a few long ones;
- a vocabulary that grows with the vault (Zipf-weighted core words plus names, identifiers and numbers),
  so postings lists and the term dictionary grow the way Heaps' law says they do;
- frontmatter on most pages (title, tags, aliases, dates, sometimes triggers), replaced decisions with
  ``status: superseded`` + ``superseded_by`` (and ``supersedes`` on the new page), daily logs made of
  bullet items, clippings under ``Inputs/``, and pages without frontmatter;
- 60 % English, 25 % Chinese, 15 % mixed pages, in nested folders (no folder holds 100k files).
"""

from __future__ import annotations

import bisect
import datetime as dt
import itertools
import json
import os
import random
from dataclasses import asdict, dataclass
from pathlib import Path

EN_CORE = """
database migration schema index query cache latency timeout retry deploy release rollback service
cluster node replica shard backup restore snapshot storage bucket region network proxy gateway router
token secret credential certificate rotation policy budget invoice payment billing customer account
tenant project roadmap milestone deadline estimate review approval merge branch commit pipeline build
test coverage flaky benchmark profile memory leak thread queue worker scheduler cron job batch stream
event topic consumer producer schema contract api endpoint client server request response header
payload format json yaml config flag feature experiment metric dashboard alert incident outage pager
oncall rotation handover runbook playbook postmortem root cause fix patch upgrade version dependency
library framework language compiler linter formatter editor terminal laptop monitor keyboard meeting
agenda minutes decision option tradeoff risk owner stakeholder team hiring interview offer salary
vacation travel flight hotel visa passport doctor dentist appointment insurance tax receipt refund
recipe grocery garden bike running marathon training sleep coffee tea book chapter paper draft
outline slide talk conference workshop mentor student course lesson exam grade language spanish
french piano guitar family birthday gift wedding anniversary apartment lease rent mortgage repair
plumber electrician car engine tire charger battery solar panel heating boiler window door lock
search ranking recall precision embedding vector model prompt agent memory note vault page link tag
postgres mysql sqlite redis kafka nginx docker kubernetes terraform ansible grafana prometheus sentry
python rust golang typescript react django flask fastapi celery pytest github gitlab jira notion slack
weekly monthly quarterly annual daily morning evening weekend holiday summer winter spring autumn
""".split()

EN_FILLER = """
the a an of to in for on with at by from is are was were be been has have had it this that these
we our they their you your i my he she not and or but so if then because when which what who how
""".split()

ZH_CORE = """
数据库 迁移 索引 查询 缓存 延迟 超时 重试 部署 发布 回滚 服务 集群 节点 副本 分片 备份 恢复 快照
存储 网络 代理 网关 路由 令牌 密钥 证书 轮换 策略 预算 发票 支付 账单 客户 账户 租户 项目 路线图
里程碑 截止日期 评审 审批 合并 分支 提交 流水线 构建 测试 覆盖率 基准 内存 泄漏 线程 队列 调度
任务 批处理 事件 主题 消费者 生产者 接口 客户端 服务器 请求 响应 格式 配置 开关 实验 指标 仪表盘
告警 故障 值班 交接 手册 复盘 根因 修复 补丁 升级 版本 依赖 框架 语言 编译器 会议 议程 纪要 决定
方案 权衡 风险 负责人 团队 招聘 面试 薪资 假期 旅行 航班 酒店 签证 护照 医生 牙医 预约 保险 税务
退款 菜谱 花园 跑步 马拉松 训练 睡眠 咖啡 茶叶 书籍 章节 论文 草稿 大纲 演讲 研讨会 导师 学生
课程 考试 成绩 钢琴 吉他 家庭 生日 礼物 婚礼 纪念日 公寓 租约 房租 房贷 维修 水管工 电工 汽车
发动机 轮胎 充电器 电池 太阳能 暖气 窗户 门锁 搜索 排序 召回 向量 模型 提示词 智能体 记忆 笔记
周报 月报 季度 年度 早上 晚上 周末 节日 夏天 冬天 春天 秋天 北京 上海 深圳 杭州 成都 广州
""".split()

ZH_FILLER = "的 了 是 在 我们 他们 这个 那个 已经 因为 所以 但是 如果 然后 需要 可以 应该 没有 一个 和 与 把 被".split()

ZH_CHARS = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"

SYLLABLES = "ka ri to mo na le sa vi ro du pe lin tor gan mel vas quo zen bri dal fen hos jun kel mar nor pil rus sel tam ulm ver wyn xan yor zul".split()

EN_QUESTION_FRAMES = [
    "what did we decide about {a} {b}",
    "which {a} do we use for {b}",
    "what is the {a} {b} {c}",
    "when is the {a} {b}",
    "who owns the {a} {b} {c}",
    "how do we handle {a} {b}",
]
ZH_QUESTION_FRAMES = ["{a}{b}是什么", "我们的{a}用的是哪个{b}", "{a}的{b}{c}怎么处理", "{a}和{b}的{c}是多少"]


@dataclass
class Question:
    """One question of the fixed mix: its text, language, and the page it was drawn from (if any)."""

    text: str
    lang: str
    source: str | None


class _Zipf:
    """Draws words with Zipf-like weights (rank r has weight 1 / (r + 2.7)): a few very common words,
    a long tail of rare ones, as in real text."""

    def __init__(self, words: list[str], rng: random.Random) -> None:
        self.words = words
        self.rng = rng
        self.cum = list(itertools.accumulate(1.0 / (r + 2.7) for r in range(len(words))))

    def draw(self, k: int) -> list[str]:
        return self.rng.choices(self.words, cum_weights=self.cum, k=k)

    def one(self) -> str:
        return self.words[bisect.bisect(self.cum, self.rng.random() * self.cum[-1])]


class _Writer:
    """Builds the pages of one vault; all randomness comes from one seeded generator."""

    def __init__(self, n_pages: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.n = n_pages
        rng = self.rng
        # The vocabulary grows with the vault: ~8 new pseudo-words and ~2 new names per page.
        n_pseudo = max(500, 8 * n_pages)
        pseudo = sorted(
            {"".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))) for _ in range(n_pseudo)}
        )
        rng.shuffle(pseudo)
        core = EN_CORE[:]
        rng.shuffle(core)
        # Core words rank first (common); pseudo-words (project names, jargon) form the tail.
        self.en = _Zipf(core + pseudo, rng)
        # Running text: function words take the top ranks, as they do in any language.
        self.en_text = _Zipf(EN_FILLER + core + pseudo, rng)
        zh_names = sorted(
            {
                "".join(rng.choice(ZH_CHARS) for _ in range(rng.randint(2, 3)))
                for _ in range(max(300, n_pages))
            }
        )
        rng.shuffle(zh_names)
        zh_core = ZH_CORE[:]
        rng.shuffle(zh_core)
        self.zh = _Zipf(zh_core + zh_names, rng)
        self.zh_text = _Zipf(ZH_FILLER + zh_core + zh_names, rng)
        self.pages: list[tuple[str, str, str]] = []  # (path, lang, title)
        self.decisions: list[str] = []
        self.replaced: list[tuple[str, str]] = []  # (old decision, the decision that replaced it)

    # -- text -----------------------------------------------------------------------------------
    def _en_sentence(self) -> str:
        words = self.en_text.draw(self.rng.randint(6, 18))
        if self.rng.random() < 0.15:
            words.append(f"{self.rng.randint(1, 9999)}")
        if self.rng.random() < 0.08:
            words.append(f"TCK-{self.rng.randint(100, 99999)}")
        return " ".join(words).capitalize() + "."

    def _zh_sentence(self) -> str:
        out = self.zh_text.draw(self.rng.randint(5, 14))
        if self.rng.random() < 0.15:
            out.append(str(self.rng.randint(1, 999)))
        return "".join(out) + "。"

    def _sentence(self, lang: str) -> str:
        if lang == "mixed":
            return self._en_sentence() if self.rng.random() < 0.5 else self._zh_sentence()
        return self._en_sentence() if lang == "en" else self._zh_sentence()

    def _n_words(self, kind: str) -> int:
        # Log-normal lengths: median ~150 words for notes, shorter logs, much longer clippings.
        mu = {"note": 5.0, "daily": 4.4, "decision": 4.8, "input": 6.3, "person": 4.0}[kind]
        return int(min(6000, max(8, self.rng.lognormvariate(mu, 0.85))))

    def _body(self, lang: str, kind: str) -> str:
        target = self._n_words(kind)
        words = 0
        parts: list[str] = []
        while words < target:
            r = self.rng.random()
            if kind == "daily" or r < 0.25:
                item = self._sentence(lang)
                parts.append(f"- {item}")
                words += len(item) // (3 if lang == "zh" else 6)
                continue
            if r < 0.32:
                title = " ".join(self.en.draw(2)) if lang != "zh" else "".join(self.zh.draw(2))
                parts.append(f"\n## {title.title() if lang != 'zh' else title}\n")
                continue
            if r < 0.36:
                a, b = (self.en.one(), self.en.one()) if lang != "zh" else (self.zh.one(), self.zh.one())
                parts.append(f"**{a}**: {b} {self.rng.randint(1, 500)}")
                words += 3
                continue
            para = " ".join(self._sentence(lang) for _ in range(self.rng.randint(1, 5)))
            parts.append(f"\n{para}\n")
            words += len(para) // (3 if lang == "zh" else 6)
        return "\n".join(parts).strip() + "\n"

    def _title(self, lang: str) -> str:
        if lang == "zh":
            return "".join(self.zh.draw(self.rng.randint(2, 3)))
        words = self.en.draw(self.rng.randint(2, 4))
        if lang == "mixed":
            words.append(self.zh.one())
        return " ".join(words).title()

    # -- pages ----------------------------------------------------------------------------------
    def page(self, i: int) -> tuple[str, str]:
        rng = self.rng
        lang = rng.choices(["en", "zh", "mixed"], weights=[60, 25, 15])[0]
        kind = rng.choices(["note", "daily", "decision", "input", "person"], weights=[50, 25, 12, 8, 5])[0]
        day = dt.date(2019, 1, 1) + dt.timedelta(days=rng.randint(0, 2600))
        if kind == "daily":
            title = f"{day.isoformat()} #{i}"
            path = f"Daily/{day.year}/{day.month:02d}/{day.isoformat()}-{i}.md"
        else:
            title = self._title(lang)
            folder = {"note": "Notes", "decision": "Decisions", "input": "Inputs", "person": "People"}[kind]
            safe = "".join(c for c in title if c.isalnum() or c in " -")[:60].strip() or "page"
            path = f"{folder}/{i % 97:02d}/{safe} {i}.md"
        fm: dict[str, object] = {}
        if rng.random() < 0.85:
            fm["title"] = title
            fm["date"] = day.isoformat()
            fm["tags"] = [kind, *(self.en.draw(rng.randint(0, 2)) if lang != "zh" else self.zh.draw(1))]
            if rng.random() < 0.2:
                fm["aliases"] = [self._title(lang)]
            if rng.random() < 0.05:
                fm["triggers"] = [self._sentence(lang)[:60]]
        if kind == "decision":
            # A fifth of decisions were later replaced by a newer decision page.
            if self.decisions and rng.random() < 0.2:
                old = rng.choice(self.decisions)
                fm["supersedes"] = f"[[{old.removesuffix('.md')}]]"
                self.replaced.append((old, path))
            fm["status"] = fm.get("status", "accepted")
            self.decisions.append(path)
        body = self._body(lang, kind)
        if kind != "daily" and rng.random() < 0.6:
            body = f"# {title}\n\n{body}"
        head = ""
        if fm:
            head = "---\n" + "".join(f"{k}: {json.dumps(v, ensure_ascii=False)}\n" for k, v in fm.items())
            head += "---\n"
        self.pages.append((path, lang, title))
        return path, head + body


def generate(root: Path, n_pages: int, seed: int = 8, n_questions: int = 200) -> dict[str, object]:
    """Write a vault of ``n_pages`` pages under ``root`` and return its manifest (sizes, questions).

    The manifest's questions are the fixed seeded mix: 60 % English, 40 % Chinese, drawn from page
    titles and bodies, plus a few with words the vault never contains (refusals cost time too).
    """
    w = _Writer(n_pages, seed)
    total = 0
    texts: dict[str, str] = {}
    for i in range(n_pages):
        path, text = w.page(i)
        texts[path] = text
    # Mark replaced decisions on the old page too, as people do (status + superseded_by).
    for old, new in w.replaced:
        text = texts[old]
        link = f'superseded_by: "[[{new.removesuffix(".md")}]]"\nstatus: superseded\n'
        if text.startswith("---\n"):
            text = "---\n" + link + text[4:].replace('status: "accepted"\n', "", 1)
        else:
            text = "---\n" + link + "---\n" + text
        texts[old] = text
    for path, text in texts.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8")
        target.write_bytes(data)
        total += len(data)
    questions = _questions(w, texts, n_questions)
    return {
        "pages": n_pages,
        "seed": seed,
        "bytes": total,
        "replaced": len(w.replaced),
        "langs": {lang: sum(1 for p in w.pages if p[1] == lang) for lang in ("en", "zh", "mixed")},
        "questions": [asdict(q) for q in questions],
    }


def made(work: Path, n_pages: int) -> tuple[Path, dict[str, object]]:
    """The vault of ``n_pages`` pages (seed 8) in ``work`` and its manifest, generated on the first call
    and read back on the next ones (``vault-N`` and ``manifest-N.json``)."""
    vault = work / f"vault-{n_pages}"
    manifest_file = work / f"manifest-{n_pages}.json"
    if not manifest_file.exists():
        vault.mkdir(parents=True, exist_ok=True)
        manifest_file.write_text(json.dumps(generate(vault, n_pages)), encoding="utf-8")
    return vault, json.loads(manifest_file.read_text(encoding="utf-8"))


def _questions(w: _Writer, texts: dict[str, str], n: int) -> list[Question]:
    rng = random.Random(w.rng.random())
    out: list[Question] = []
    en_pages = [p for p in w.pages if p[1] in ("en", "mixed")]
    zh_pages = [p for p in w.pages if p[1] in ("zh", "mixed")]
    n_zh = round(n * 0.4)
    for j in range(n - n_zh):
        path, _, title = rng.choice(en_pages)
        words = [x.lower() for x in title.split() if x.isascii() and x.isalpha()] or w.en.draw(2)
        body_words = [
            x.strip(".,*:").lower() for x in texts[path].split() if x.isascii() and x.isalpha() and len(x) > 3
        ]
        pick = [*rng.sample(words, min(2, len(words))), *rng.sample(body_words, min(2, len(body_words)))]
        if j % 10 == 9:
            pick[-1] = "zyxwarbleflonk"  # a word no page holds: a refusal
        a, b, c = [*pick, "notes", "plan"][:3]
        out.append(Question(rng.choice(EN_QUESTION_FRAMES).format(a=a, b=b, c=c), "en", path))
    for j in range(n_zh):
        path, _, title = rng.choice(zh_pages)
        han = [x for x in w.zh.words[:400] if x in texts[path]] or w.zh.draw(3)
        pick = rng.sample(han, min(3, len(han)))
        if j % 10 == 9:
            pick[-1] = "饕餮琉璃"
        a, b, c = [*pick, "安排", "计划"][:3]
        out.append(Question(rng.choice(ZH_QUESTION_FRAMES).format(a=a, b=b, c=c), "zh", path))
    rng.shuffle(out)
    return out


def edit_pages(root: Path, paths: list[str], tag: str) -> None:
    """Append a line to each page and push its mtime forward, as an editor saving it would."""
    for rel in paths:
        p = root / rel
        with p.open("a", encoding="utf-8") as fh:
            fh.write(f"\n- edited {tag}: follow up on the migration checklist\n")
        st = p.stat()
        # Coarse-mtime filesystems could leave mtime unchanged within one tick; force it forward.
        os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def all_pages(root: Path) -> list[str]:
    """Every page path of a generated vault, sorted (for seeded edit picks)."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md"))


def describe(manifest: dict[str, object]) -> str:
    """One line about a generated vault."""
    mb = int(manifest["bytes"]) / 1e6  # type: ignore[call-overload]
    return (
        f"{manifest['pages']} pages, {mb:.1f} MB, {manifest['replaced']} replaced, langs {manifest['langs']}"
    )


if __name__ == "__main__":  # pragma: no cover - handy for looking at a vault by hand
    import sys
    import tempfile

    out = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(tempfile.mkdtemp(prefix="krvault-"))
    m = generate(out, int(sys.argv[1]) if len(sys.argv) > 1 else 100)
    print(out, describe(m))
