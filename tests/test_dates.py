"""A date is one term (``tokens/dates``): a question's day finds the page that writes it, however each
writes it (2025-03-04, 3月4号, March 4th), and a day no page writes is said to be missing as asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from krouter.routing.router import Router
from krouter.tokens.dates import date_terms
from krouter.tokens.normal_form import normalize
from krouter.tokens.terms import RUN, query_terms
from tests.vault_files import write


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("日志 2025-03-04", ["§03-04"]),
        ("2025/3/4 和 2025年3月5日", ["§03-04", "§03-05"]),
        ("3 月 5 日上线，3月6号回滚", ["§03-05", "§03-06"]),
        ("March 5th, 2025; Mar. 6; 12 August; the 1st of December", ["§03-05", "§03-06", "§08-12", "§12-01"]),
        # A version, a time, a count before "may", a day out of range: no date.
        ("Unity 2022.3.12f1 at 10:00; the top 5 may change; 13月40号; 2025-13-01", []),
        # The cold review's: a full stop or a hyphen after an ISO date; May after its day with a year;
        # a day and month either way round; two-digit dotted parts; Korean; February 30, a range, a
        # "3rd-party" after "may" are none; "10:30 March 5" is March 5, not the 30th.
        ("We shipped on 2025-03-04. Standup: 2025-03-05-standup", ["§03-04", "§03-05"]),
        ("The offsite is on 5 May 2025 in Lisbon.", ["§05-05"]),
        ("04/03/2025 and 13/03/2025", ["§03-04", "§04-03", "§03-13"]),
        ("2025.03.04; 3월 4일", ["§03-04", "§03-04"]),
        ("February 30, Sept 31, 2-5 March, apps may 3rd-party", []),
        ("10:30 March 5", ["§03-05"]),
        # A second review's: the day before a month's name first, a short name's with a year after, no
        # date inside a word.
        ("On 4 March 5 people joined; Sat, 6 Mar 2025; v2025.03.07", ["§03-04", "§03-06"]),
        # In Han numerals, as people say a day: 三月四号, 十二月二十五日, 二〇二五年十月一日. No month
        # inside a longer number (二十三月), no such numbers (二一, 十十, 1十), no day a month lacks.
        ("三月四号开会；十二月二十五日放假；二〇二五年十月一日上线", ["§03-04", "§12-25", "§10-01"]),
        ("二十三月四号；二月二一日；三月十十日；二月三十日；1十月4号", []),
        # A cold review: a weekday's numeral before a date is no longer number (周三3月4号, 星期三三月四号).
        (
            "周三3月4号；星期二3月5日；上周五2025-03-07；星期三三月四号",
            ["§03-04", "§03-05", "§03-07", "§03-04"],
        ),
    ],
)
def test_a_date_is_its_month_and_day_however_written(text: str, terms: list[str]) -> None:
    norm = normalize(text)
    assert sorted(date_terms(norm, RUN.findall(norm))) == sorted(terms)


def test_a_question_s_date_is_one_unit_and_the_rest_is_cut_as_before() -> None:
    """Read as words, 3月4号 was 3, 月, 4 and 号, and jieba glued 号 to the next word (号安卓夜)."""
    asked = [(q.text, q.term) for q in query_terms("3月4号安卓夜包卡住是咋回事?")]
    assert asked[0] == ("3月4号", "§03-04") and all("号" not in text for text, _ in asked[1:]), asked
    english = [(q.text, q.term) for q in query_terms("What went wrong with the Korean strings on March 5th?")]
    assert ("march 5th", "§03-05") in english and not any(t in ("march", "5") for _, t in english), english


@pytest.mark.parametrize(
    "text",
    [
        "10:30 March 5",
        "version 2.3 march 3",
        "2-5 March",
        "March 5–7",
        "may 3rd-party",
        "on 2025-03-04.",
        "3월 4일",
        # A second review: a day before the month's name first ("4 March 5 people" is 4 March), a short
        # name's with a year after, no date inside a word (v2025.03.04).
        "On 4 March 5 people joined",
        "Sat, 5 Mar 2025",
        "v2025.03.04",
        "三月四号",
        "十二月二十五日那天",
    ],
)
def test_a_question_reads_a_date_as_a_page_does(text: str) -> None:
    """A cold review: the question's reader took the leftmost match ("30 march" of "10:30 March 5") and
    another look-behind than the page's, so the two sides read some dates apart."""
    norm = normalize(text)
    asked = [term for q in query_terms(text) if (term := q.term).startswith("§")]
    assert asked == date_terms(norm, RUN.findall(norm)), asked


def test_a_question_keeps_the_year_of_its_date() -> None:
    """A cold review: "What did we do on 2024-03-04?" lost its 2024 and cited the 2025 log at 100%."""
    assert [(q.text, q.term) for q in query_terms("What did we do on 2024-03-04?")] == [
        ("2024-03-04", "§03-04"),
        ("2024", "2024"),
    ]


def _vault(root: Path) -> Path:
    pages = {
        "日志/2025-03-04.md": "# 日志 2025-03-04\n\n- 09:40 王磊：安卓夜包卡在 shader 编译，已 7 小时\n"
        "- 11:00 清掉 shader 缓存后重打，40 分钟出包\n",
        "日志/2025-03-05.md": "# 2025-03-05\n\n- Korean strings overflowed the shop buttons; fixed by shrinking the font\n",
        "Runbooks/Android build.md": "# Android build\n\nNightly builds start at 02:00 on the GitLab runner.\n"
        "Shader variants are cached between builds.\n",
        "Decisions/Release cadence.md": "# Release cadence\n\nWe ship weekly, on Thursdays, from 2025-03-01.\n",
        "日志/2024-03-04.md": "# 2024-03-04\n\n- 服务器例行维护，无故障\n",
    }
    for rel, text in pages.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def test_a_day_asked_finds_its_log_page_and_a_day_no_page_writes_is_missing(tmp_path: Path) -> None:
    """The dev4 agent loop: "3月4号安卓夜包卡住…" ranked a versioning page first, the day's log second
    with 月, 4 and 号 missing; "on March 5th" did not bring the 2025-03-05 log into the first three."""
    with Router(_vault(tmp_path)) as router:
        zh = router.decide("3月4号安卓夜包卡在哪一步了？")
        spoken = router.decide("三月四号安卓夜包卡在哪一步了？")
        weekday = router.decide("周二3月4号安卓夜包卡在哪一步了？")
        en = router.decide("What broke with the Korean strings on March 5th?")
        none = router.decide("3月6号安卓夜包卡在哪一步了？")
        last_year = router.decide("2024-03-04 那天出了啥事？")
        this_year = router.decide("2025-03-04 那天出了啥事？")
    assert zh.decision == "cite" and zh.top is not None and zh.top.path == "日志/2025-03-04.md", zh.reason
    # The day in Han numerals, as it is said, finds the same log.
    assert spoken.decision == "cite" and spoken.top is not None, spoken.reason
    assert spoken.top.path == "日志/2025-03-04.md", spoken.reason
    # A weekday before the day (a word the log lacks) no longer hides the date.
    assert weekday.candidates[0].path == "日志/2025-03-04.md", weekday.reason
    assert "3月4号" not in weekday.reason and "'月'" not in weekday.reason, weekday.reason
    assert en.decision == "cite" and en.top is not None and en.top.path == "日志/2025-03-05.md", en.reason
    assert none.decision == "refuse" and "'3月6号'" in none.reason, none.reason
    # The year tells two years' logs of one day apart (a cold review).
    assert last_year.candidates[0].path == "日志/2024-03-04.md", last_year.reason
    assert this_year.candidates[0].path == "日志/2025-03-04.md", this_year.reason


def test_a_logseq_journal_s_file_name_is_its_date(tmp_path: Path) -> None:
    """A bug hunt on a Logseq graph: "who did I meet on 2025-03-14" said "the vault never mentions
    '2025-03-14'" beside journals/2025_03_14.md, whose name Logseq writes with underscores."""
    vault = write(
        tmp_path / "graph",
        {
            "journals/2025_03_14.md": "- Meeting with [[Acme Corp]] about the renewal\n",
            "journals/2025_03_15.md": "- Quiet day, wrote the report\n",
            "pages/Acme Corp.md": "- Customer since 2021\n",
        },
    )
    with Router(vault) as router:
        receipt = router.decide("who did I meet on 2025-03-14")
    assert receipt.candidates[0].path == "journals/2025_03_14.md", receipt.to_text()
    assert not receipt.evidence.corpus_missing, receipt.to_text()
