"""A question that names something no page mentions (MongoDB, 北京) is not answered by a page about
something else, however well its other words match (docs/decisions.md D59); a number, a time or a
date the vault does not write is not a name, nor is a Chinese word jieba merely cut."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from krouter import Router
from krouter.cli import app
from krouter.tokens.names import names_a_subject, written_as_name
from tests.vault_files import write

PAGES = {
    "Runbooks/Database backups.md": """---
title: Database backups
---
# Database backups

Backup schedule: the PostgreSQL database is backed up every night at 03:00 UTC; backups are kept
for 14 days.
""",
    "办公/上海办公室.md": """---
title: 上海办公室
---
# 上海办公室

上海办公室地址：徐汇区漕溪北路 88 号 12 楼。办公室早上 9 点开门。
""",
    "Decisions/Release train.md": """---
title: Release train
---
# Release train

The release train leaves every Tuesday at 10:00; the code cutoff is Monday 18:00.
""",
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write(tmp_path / "vault", PAGES)


@pytest.mark.parametrize(
    ("question", "name", "closest"),
    [
        ("MongoDB database backup schedule", "mongodb", "Runbooks/Database backups.md"),
        ("北京办公室早上几点开门", "北京", "办公/上海办公室.md"),
    ],
)
def test_a_name_no_page_mentions_refuses_the_page_its_other_words_found(
    vault: Path, question: str, name: str, closest: str
) -> None:
    with Router(vault) as router:
        receipt = router.decide(question)
    assert receipt.decision == "refuse" and receipt.top is None
    assert receipt.closest is not None and receipt.closest.path == closest
    assert name in receipt.evidence.corpus_missing and receipt.evidence.confidence == 0.0
    assert receipt.reason.startswith(f"the question names {name!r}, which no page of the vault mentions")
    assert "the words' confidence" in receipt.reason


@pytest.mark.parametrize(
    ("question", "page"),
    [
        ("PostgreSQL database backup schedule", "Runbooks/Database backups.md"),
        ("上海办公室早上几点开门", "办公/上海办公室.md"),
        # "10AM" is not written so on the page, and it is a time, not a name (its capitals aside).
        ("does the release train still leave on Tuesday at 10AM", "Decisions/Release train.md"),
    ],
)
def test_names_the_vault_holds_and_times_and_days_are_still_answered(
    vault: Path, question: str, page: str
) -> None:
    with Router(vault) as router:
        receipt = router.decide(question)
    assert receipt.decision == "cite" and receipt.top is not None and receipt.top.path == page


def test_the_cli_says_which_name_the_vault_never_mentions(vault: Path) -> None:
    res = CliRunner().invoke(
        app, ["ask", "MongoDB database backup schedule", "--vault", str(vault), "--json"]
    )
    assert res.exit_code == 3, res.output  # a refusal
    assert "the question names 'mongodb', which no page of the vault mentions" in res.output


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("cloudflare", True),
        ("SQS", True),
        ("北京", True),
        ("10am", False),
        ("Aug", False),
        ("database", False),
        ("仓发", False),  # a cut of a run-on question, not a word of either dictionary
        ("阳光", False),  # jieba tags it as a person's name; it is sunlight
        ("东西", False),  # jieba tags it as a place; it is "things"
        ("城市", False),
        ("银联", True),  # CC-CEDICT gives it only as a name (UnionPay)
        # CC-CEDICT describes it after a comma (/Berlin, capital of Germany/) where jieba tags a person's
        # name or an adverb: a place all the same (a review had "Berlin office leave policy" cited on the
        # London office's page); English words translating into one are too.
        ("柏林", True),
        ("首尔", True),
        ("Berlin", True),
        ("Toronto", True),
        ("星期五", False),  # /Friday/: capitalised, not described
        ("英语", False),  # /English (language)/
        # Described after a comma in one entry, a common noun in another (/pizza/, /peso/, /age/): a
        # Chinese question ordering pizza was refused as naming Pisa.
        ("比萨", False),
        ("比索", False),
        ("时代", False),
        ("Friday", False),
        ("asap", False),  # an everyday abbreviation, a time zone, a currency
        # A team's generic terms written as acronyms name a subject too: "Which CRM shows the board
        # dashboards?" is not answered by the BI tool's page (a cold review's repro).
        ("CRM", True),
        ("PR", True),
        ("cet", False),
        ("eur", False),
        ("29", False),
    ],
)
def test_what_counts_as_naming_a_subject(word: str, expected: bool) -> None:
    assert names_a_subject(word) is expected


@pytest.mark.parametrize(
    ("word", "question", "held", "expected"),
    [
        ("mongodb", "MongoDB backup schedule", set(), True),
        ("cloudflare", "how do I purge the Cloudflare cache", set(), True),
        ("sd", "那个线性SD频道是什么", set(), True),  # a Latin word right next to Han characters
        # The dictionary knows too few English words: written in lower case, or first in a sentence,
        # a word it lacks is not taken for a name.
        ("webhook", "which webhook fires when a payment fails", set(), False),
        ("webhook", "Webhook retries: how many?", set(), False),
        # Part of a name whose other word the vault holds: the notes may call him Kevin.
        ("liu", "does Kevin Liu still book our freight", {"kevin"}, False),
        ("liu", "does Kevin Liu still book our freight", set(), True),
        ("sqs", "the SQSX queue", set(), False),  # not the whole word
        # A question in capitals or in title case: a capital marks no name (a cold review's repros).
        ("toggle", "HOW TO TOGGLE THE DASHBOARD TO DARK MODE", set(), False),
        ("toggle", "How To Toggle The Dashboard To Dark Mode", set(), False),
        ("maxconnections", "how do I raise maxConnections in the pool", set(), False),  # an identifier
        # Spanish opens a question with ¿ and an exclamation with ¡: after them, a function word opens
        # the sentence; a name is still a name.
        ("cuántas", "¿Cuántas peticiones por minuto?", set(), False),
        ("cada", "Una pregunta. ¿Cada cuánto se hace?", set(), False),
        ("redis", "¿Redis tiene copia de seguridad cada noche?", set(), True),  # a name opens it as often
        ("redis", "When does the «Redis» backup run?", set(), True),  # quotes wrap a name
        ("stripe", "¿Cuánto cobra Stripe?", set(), True),
    ],
)
def test_a_latin_word_is_taken_for_a_name_only_where_written_as_one(
    word: str, question: str, held: set[str], expected: bool
) -> None:
    assert written_as_name(word, question, held) is expected


def test_an_acronym_no_page_writes_refuses_the_page_about_something_else(tmp_path: Path) -> None:
    # A cold review's repro of a wider list of generic acronyms: CRM is not the BI tool.
    pages = {
        "Projects/Data warehouse.md": "---\ntitle: Data warehouse\n---\n# Data warehouse\n\n"
        "Metabase is the tool that shows the board dashboards; they read from the marts schema.\n",
        **PAGES,
    }
    vault = write(tmp_path / "vault", pages)
    with Router(vault) as router:
        receipt = router.decide("Which CRM shows the board dashboards?")
    assert receipt.decision == "refuse"
    assert receipt.reason.startswith("the question names 'crm', which no page of the vault mentions")


def test_a_lower_case_word_the_dictionary_lacks_does_not_refuse_the_page(tmp_path: Path) -> None:
    pages = {
        "Runbooks/Billing notifications.md": "---\ntitle: Billing notifications\n---\n# Billing notifications\n\n"
        "The billing service drops repeated failure notifications for the same payment within ten minutes.\n",
        **PAGES,
    }
    vault = write(tmp_path / "vault", pages)
    with Router(vault) as router:
        receipt = router.decide("do we dedupe repeated failure notifications for the same payment")
    assert receipt.evidence.corpus_missing == ["dedupe"]
    assert receipt.decision == "cite" and receipt.top is not None
    assert receipt.top.path == "Runbooks/Billing notifications.md"


def test_the_name_rule_leaves_everyday_chinese_and_capitals_alone(vault: Path) -> None:
    with Router(vault) as router:
        things = router.decide("上海办公室的东西早上几点开门")
        shouting = router.decide("MONGODB DATABASE BACKUP SCHEDULE")
    assert things.decision == "cite", things.reason  # 东西 ("things") is no place the vault lacks
    assert "names" not in shouting.reason  # in capitals, every word has one


def test_a_name_refusal_says_which_pages_could_not_be_read(vault: Path) -> None:
    (vault / "Decisions" / "Mail.md").write_bytes(b"# Mail\n\nWe send with Mailgun \xff.\n")
    with Router(vault) as router:
        receipt = router.decide("MongoDB database backup schedule")
    assert receipt.reason.startswith(
        "the question names 'mongodb', which no page of the vault mentions (in the pages it could read: "
        "Decisions/Mail.md could not be read"
    ), receipt.reason


def test_a_japanese_questions_kanji_bigrams_are_not_taken_for_names(tmp_path: Path) -> None:
    # A cold review: 東京都 is looked up as bigrams, and 京都 (Kyoto) refused the Tokyo office's page.
    vault = write(
        tmp_path / "v",
        {
            "東京オフィス.md": "# 東京オフィス\n\n東京オフィスの営業時間は9時から18時です。\n",
            **{f"Note {i}.md": f"# Note {i}\n\nThe plants are watered on day {i}.\n" for i in range(5)},
        },
    )
    with Router(vault) as router:
        receipt = router.decide("東京都のオフィスの営業時間は")
    assert "names" not in receipt.reason, receipt.reason


def test_an_office_the_vault_never_mentions_is_not_answered_by_another_office_s_page(tmp_path: Path) -> None:
    """The mixed-language review: "what is the Toronto office leave policy" was cited on the London
    office's page at 0.63, the receipt listing toronto among the words the vault never contains (jieba
    tags 多伦多 otherwise than a place, so the English word was no name to D59; CC-CEDICT describes it
    as a capital). At a sentence's start a capital says nothing ("Berlin office leave policy" is left
    to the words' confidence)."""
    vault = write(
        tmp_path / "offices",
        {
            "hr/leave-london.md": "---\ntitle: London office leave policy\n---\n# London office leave policy\n\n"
            "London staff get 25 days of annual leave plus bank holidays.\n",
            "hr/上海办公室年假.md": "# 上海办公室年假制度\n\n上海办公室员工入职满一年享有 10 天年假。\n",
            "hr/expenses.md": "# Expenses\n\nSubmit receipts in Expensify by the 5th of next month.\n",
        },
    )
    with Router(vault) as router:
        assert router.ask("London office leave policy").decision == "cite"
        for question in ("what is the Toronto office leave policy", "how much leave do Berlin staff get"):
            receipt = router.ask(question)
            assert receipt.decision == "refuse", (question, receipt.reason)


def test_a_word_cc_cedict_also_gives_as_a_common_noun_is_no_name(tmp_path: Path) -> None:
    """A review of the described names: 比萨 (/Pisa, town in Toscana, Italy/, and /pizza/ in another
    entry) was taken for a place no page mentions, and the lunch page that answers was refused."""
    vault = write(
        tmp_path / "lunch",
        {
            "午餐.md": "# 团建午餐\n\n周五团建午餐在楼下的意大利餐厅订，用公司卡付款。\n",
            "绿植.md": "# 办公室绿植\n\n办公室的绿植每周一浇水，榕树放在前台。\n",
            "发布.md": "# 发布流程\n\n每个工作日中午从主分支发布。\n",
        },
    )
    with Router(vault) as router:
        receipt = router.ask("周五团建午餐的比萨在哪里订")
    assert "names" not in receipt.reason, receipt.reason
    assert receipt.decision == "cite" and receipt.top is not None and receipt.top.path == "午餐.md"
