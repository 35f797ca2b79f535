"""Phrasings in: `krouter ask Q --also ...` and krouter_ask's `phrasings`, through the CLI (CliRunner) and
the real MCP server over stdio (official client). A question asked in one language about a page written
in the other cites it when a translation is given; a neighbour question is still refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult
from mcp_stdio import server_params, text_of
from typer.testing import CliRunner

from krouter.cli import app
from krouter.routing.phrasings import MAX_PHRASING_CHARS, MAX_PHRASINGS

ZH_DB = "决策/主数据库.md"
DEPLOY = "Runbooks/Deploy.md"
PAGES = {
    ZH_DB: "---\ntitle: 主数据库\n---\n# 主数据库\n\n我们在二〇二四年四月把主数据库迁移到了 PostgreSQL 16，所有服务都使用同一个集群。\n",
    "运维/数据库备份.md": "---\ntitle: 数据库备份\n---\n# 数据库备份\n\nPostgreSQL 每天凌晨两点全量备份，备份保留三十天。\n",
    DEPLOY: "---\ntitle: Deploy runbook\n---\n# Deploy\n\nDeploys go out with fly deploy from the main branch after CI passes.\n",
    "Runbooks/Code review.md": "---\ntitle: Code review\n---\n# Code review\n\n"
    "Every pull request needs two approvals before it can be merged.\n",
}
# (question, phrasing, the page it must cite, or None: refused)
CASES = [
    ("What is our primary database?", "我们的主数据库是什么？", ZH_DB),
    ("我们怎么上线部署代码？", "How do we deploy?", DEPLOY),
    ("How often is Redis backed up?", "Redis 多久备份一次？", None),
    ("How do we ship the mobile app to the App Store?", "我们怎么把手机应用发布到应用商店？", None),
]


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for rel, text in PAGES.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return root


def ask(vault: Path, question: str, *also: str) -> tuple[int, dict[str, Any] | str]:
    args = ["ask", question, "--vault", str(vault), "--json", *[a for p in also for a in ("--also", p)]]
    res = CliRunner().invoke(app, args)
    try:
        return res.exit_code, json.loads(res.output)
    except json.JSONDecodeError:
        return res.exit_code, res.output


@pytest.mark.parametrize(
    ("question", "phrasing", "page"), CASES, ids=["en-to-zh", "zh-to-en", "neighbour", "absent"]
)
def test_cli_phrasing(vault: Path, question: str, phrasing: str, page: str | None) -> None:
    code, alone = ask(vault, question)
    assert code == 3 and isinstance(alone, dict) and alone["decision"] == "refuse"
    code, out = ask(vault, question, phrasing)
    assert isinstance(out, dict)
    if page is None:
        assert code == 3 and out["decision"] == "refuse", out["reason"]
        return
    assert code == 0 and out["decision"] == "cite", out["reason"]
    assert out["cited"][0]["path"] == page
    assert out["query"] == question and out["phrasing"] == phrasing
    assert [r["text"] for r in out["routes"]] == [question, phrasing]
    # Each wording is reported against the floor it was held to here, the phrasing's bar above the
    # question's: an agent read a phrasing listed "cite" beside a refusal as a contradiction.
    asked_route, phrased_route = out["routes"]
    assert asked_route["floor"] == out["evidence"]["floor"] or phrased_route["floor"] > asked_route["floor"]
    assert phrased_route["decision"] == "cite" and phrased_route["confidence"] >= phrased_route["floor"]


def test_cli_text_receipt_names_the_phrasing(vault: Path) -> None:
    res = CliRunner().invoke(app, ["ask", CASES[0][0], "--vault", str(vault), "--also", CASES[0][1]])
    assert res.exit_code == 0 and f"CITE  {ZH_DB}" in res.output
    assert f"phrasing: {CASES[0][1]}" in res.output
    # The share the reason gives is of the phrasing's words, which decided; the question's found nothing.
    assert "of the phrasing's content" in res.output and "of the question's content" not in res.output


def test_cli_phrasings_over_the_bounds_are_a_usage_error(vault: Path) -> None:
    code, out = ask(
        vault, "What is our primary database?", *[f"wording {n}" for n in range(MAX_PHRASINGS + 1)]
    )
    assert code == 2 and f"at most {MAX_PHRASINGS}" in str(out)
    code, out = ask(vault, "What is our primary database?", "x" * (MAX_PHRASING_CHARS + 1))
    assert code == 2 and f"at most {MAX_PHRASING_CHARS}" in str(out)


def structured(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, text_of(result)
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(text_of(result))


def test_mcp_phrasings_over_stdio(vault: Path) -> None:
    params = server_params(vault)

    async def session() -> None:
        with anyio.fail_after(60):
            async with Client(params, read_timeout_seconds=30) as client:
                tools = {t.name: t for t in (await client.list_tools()).tools}
                assert "phrasings" in tools["krouter_ask"].input_schema["properties"]
                for question, phrasing, page in CASES:
                    alone = structured(await client.call_tool("krouter_ask", {"question": question}))
                    assert alone["decision"] == "refuse"
                    out = structured(
                        await client.call_tool("krouter_ask", {"question": question, "phrasings": [phrasing]})
                    )
                    if page is None:
                        assert out["decision"] == "refuse", out["reason"]
                        continue
                    assert out["decision"] == "cite", out["reason"]
                    assert out["cited"][0]["path"] == page and out["phrasing"] == phrasing
                over = await client.call_tool(
                    "krouter_ask",
                    {"question": CASES[0][0], "phrasings": [f"w{n}" for n in range(MAX_PHRASINGS + 1)]},
                )
                assert over.is_error and f"at most {MAX_PHRASINGS}" in text_of(over)
                long = await client.call_tool(
                    "krouter_ask", {"question": CASES[0][0], "phrasings": ["x" * (MAX_PHRASING_CHARS + 1)]}
                )
                assert long.is_error and f"at most {MAX_PHRASING_CHARS}" in text_of(long)

    anyio.run(session)


BACKUPS = {
    "Runbooks/Database backups.md": "---\ntitle: Database backups\n---\n# Database backups\n\n"
    "The database backup runs nightly at 03:00 UTC.\n",
    "People/Sarah Chen.md": "---\ntitle: Sarah Chen\n---\n# Sarah Chen\n\nSarah's birthday is on June 3.\n",
    **{
        f"Note {i}.md": f"---\ntitle: Note {i}\n---\n# Note {i}\n\nThe plants are watered on day {i}.\n"
        for i in range(6)
    },
}


def test_a_phrasing_that_drops_the_name_the_question_asks_about_does_not_cite(tmp_path: Path) -> None:
    # A walkthrough's agent dropped the subject from its rewording, and the rewording's page was cited.
    root = tmp_path / "backups"
    for rel, text in BACKUPS.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")

    def ask(*args: str) -> dict[str, Any]:
        res = CliRunner().invoke(app, ["ask", *args, "--vault", str(root), "--json"])
        return json.loads(res.stdout)

    question, phrasing = "when does the MongoDB backup run", "when does the database backup run"
    assert ask(question)["decision"] == "refuse" and ask(phrasing)["decision"] == "cite"
    out = ask(question, "--also", phrasing)
    assert out["decision"] == "refuse" and out["cited"] == [] and out["evidence"]["confidence"] == 0.0
    assert out["reason"] == (
        f"the phrasing {phrasing!r} reaches Runbooks/Database backups.md, but the question names 'mongodb', "
        "which no page of the vault mentions (the phrasing's confidence 100%)"
    )


def test_a_phrasing_cannot_cite_a_page_holding_none_of_the_questions_words(vault: Path) -> None:
    # A walkthrough: `ask "Kafka retention" --also "vacation days"` cited the vacation page, "decided by
    # the phrasing", though neither word of the question is anywhere in the vault. A phrasing rewords
    # the question; a page that holds none of its words, in either language, was vouched for by the
    # phrasing alone.
    (vault / "Team").mkdir()
    (vault / "Team" / "Vacation.md").write_text(
        "---\ntitle: Vacation policy\n---\nEveryone gets 28 vacation days a year.\n", encoding="utf-8"
    )
    _code, out = ask(vault, "Kafka retention", "vacation days")
    assert isinstance(out, dict) and out["decision"] == "refuse" and out["cited"] == [], out
    assert "none of the question's own words" in out["reason"]
    # A page that holds one of them through the dictionary is still found by a translation (en-to-zh).
    _code, out = ask(vault, *CASES[0][:2])
    assert isinstance(out, dict) and out["cited"][0]["path"] == ZH_DB


def test_a_translation_of_a_question_in_a_language_krouter_cannot_read_still_cites(vault: Path) -> None:
    # A cold review: the guard above refused every French, Japanese or Korean question an agent had
    # translated into the notes' English, though no route of ours could reach the page from their
    # words. There the translation is the only bridge; the guard stays for a question KRouter reads.
    (vault / "Team").mkdir()
    (vault / "Team" / "Vacation.md").write_text(
        "---\ntitle: Vacation policy\n---\nEveryone gets 28 vacation days a year.\n", encoding="utf-8"
    )
    for question in ("combien de jours de congés par an", "有給休暇は何日ですか", "연차 휴가는 며칠"):
        _code, out = ask(vault, question, "how many vacation days a year")
        assert isinstance(out, dict) and out["cited"], (question, out)
        assert out["cited"][0]["path"] == "Team/Vacation.md", (question, out)
    # An English rewording of words KRouter reads is still the phrasing alone: refused.
    _code, out = ask(vault, "annual leave allowance", "vacation days")
    assert isinstance(out, dict) and out["decision"] == "refuse", out
    assert "none of the question's own words" in out["reason"]


def test_a_capitalised_word_the_translation_renders_is_not_a_name(vault: Path) -> None:
    # The otherlang dev set: German writes every noun with a capital, and Spanish opens a question with
    # ¿, so "Vollsicherung" and "¿Cuántas" were read as names no page mentions and vetoed the agent's
    # correct translation. A translation renders a word and keeps a name: a name it keeps still vetoes.
    (vault / "Runbooks" / "Backups.md").write_text(
        "---\ntitle: Database backups\n---\nThe full database backup runs nightly at 02:00.\n",
        encoding="utf-8",
    )
    (vault / "Runbooks" / "Rate limits.md").write_text(
        "---\ntitle: API rate limits\n---\nA customer may send 600 requests per minute to the public API.\n",
        encoding="utf-8",
    )
    cases = [
        ("Wann läuft eigentlich die Vollsicherung der Datenbank?", "When does the full database backup run?"),
        (
            "¿Cuántas peticiones por minuto deja la API pública?",
            "How many requests per minute does the public API allow?",
        ),
    ]
    for question, translation in cases:
        _code, out = ask(vault, question, translation)
        assert isinstance(out, dict) and out["decision"] == "cite", (question, out)
    backup = "Runbooks/Backups.md"
    assert out["cited"][0]["path"] == "Runbooks/Rate limits.md"
    # Datadog, which the translation keeps, and MongoDB, a name in any language, are names no page
    # mentions: the rewording that drops them does not answer for the question.
    rewording = "how often is the full database backup run"
    for question, also in [
        (
            "Wie oft sichert Datadog die Datenbank?",
            ["How often does Datadog back up the database?", rewording],
        ),
        ("Wann läuft die Sicherung der MongoDB-Datenbank?", [rewording]),
    ]:
        _code, out = ask(vault, question, *also)
        assert isinstance(out, dict) and out["decision"] == "refuse", (question, out)
        assert "which no page of the vault mentions" in out["reason"] and backup in out["reason"], out


def test_names_a_translation_writes_still_veto_a_rewording(vault: Path) -> None:
    # A cold review of the test above's first form: each of these cited the refunds or the Amsterdam
    # page through the rewording. A name after ¿ or in «quotes», one the translation renders (München →
    # Munich), a Latin name in a Japanese question, and an English question made of names are names.
    (vault / "Payments").mkdir()
    (vault / "Payments" / "Refunds.md").write_text(
        "---\ntitle: Adyen refunds\n---\nAdyen charges a 0.20 EUR fee per refund; refunds settle in 3 days.\n",
        encoding="utf-8",
    )
    (vault / "Offices").mkdir()
    (vault / "Offices" / "Amsterdam.md").write_text(
        "---\ntitle: Amsterdam office\n---\nA lost access badge costs 25 EUR at the Amsterdam office.\n",
        encoding="utf-8",
    )
    refunds, badge = "Payments/Refunds.md", "Offices/Amsterdam.md"
    for question, also, page in [
        (
            "¿Klarna cobra algo por los reembolsos?",
            ["Does Klarna charge anything for refunds?", "refund fee"],
            refunds,
        ),
        (
            "Quels frais «Klarna» facture-t-il pour un remboursement ?",
            ["What fees does Klarna charge for a refund?", "refund fee"],
            refunds,
        ),
        (
            "Was kostet ein verlorener Ausweis im Büro in München?",
            ["What does a lost badge cost at the Munich office?", "lost badge cost"],
            badge,
        ),
        (
            "Wie hoch sind Klarnas Gebühren für Rückerstattungen?",
            ["What are Klarna's refund fees?", "refund fee"],
            refunds,
        ),
        ("決済代行のKlarnaで返金すると手数料はかかりますか？", ["refund fee"], refunds),
        ("Klarna Sofort refunds?", ["refund fee"], refunds),
    ]:
        _code, out = ask(vault, question, *also)
        assert isinstance(out, dict) and out["decision"] == "refuse", (question, out)
        assert "mentions" in out["reason"] and page in out["reason"], (question, out)
    # Without a veto, the rewording answers for such a question; a phrasing that repeats the question
    # does not make every word of it a name.
    question = "Wie viel kostet eine Rückerstattung?"
    for also in (["How much does a refund cost?", "refund fee"], [question, "refund fee"]):
        _code, out = ask(vault, question, *also)
        assert isinstance(out, dict) and out["decision"] == "cite", (also, out)
        assert out["cited"][0]["path"] == refunds


def test_only_a_question_in_a_language_has_its_translation_as_the_only_bridge(vault: Path) -> None:
    # Words no page holds are not yet a language: "kafka debezium" is English about things the vault
    # never names, and its phrasing alone must not find a page (D88), as "Kafka retention" must not.
    # A letter English does not write, a function word of a nearby language or another script is one.
    (vault / "Team").mkdir()
    (vault / "Team" / "Vacation.md").write_text(
        "---\ntitle: Vacation policy\n---\nEveryone gets 28 vacation days a year.\n", encoding="utf-8"
    )
    # Nor is one word English also writes: "est" (a time zone), "sans", "resumé", "µs" (NFKC's Greek mu).
    for question in (
        "kafka debezium",
        "kafka debezium est",
        "debezium sans-serif",
        "flink resumé",
        "debezium p99 in µs",
        # English borrowing words of other languages is English (a final cold review's).
        "Is the crème brûlée at the canteen vegan?",
        "Is sous vide cooking allowed in the kitchen chez us?",
        "Is the rosé from the summer party still in the fridge, por favor?",
        # Terse English whose one foreign word opens a name, or a letter alone (a cold review of D119).
        "el paso wifi",
        "chez panisse booking",
        "à la carte menu",
        "ß",
        # Nor a short word English writes as an acronym, a name or pinyin (a second review).
        "wer librispeech",
        "wat arun tickets",
        "ou yang address",
        # Nor any one word alone (a third review): one mark never makes a language (D127).
        "michelle wie lessons",
        "qual cert renewal",
        "quanto desk creds",
        # Nor French English borrows whole (a fifth review: D119's 'je' made "je ne" two marks).
        "je ne sais quoi perfume",
    ):
        _code, out = ask(vault, question, "vacation days")
        assert isinstance(out, dict) and out["decision"] == "refuse", (question, out)
        assert "none of the question's own words" in out["reason"], (question, out)
    for question in (
        "ile dni urlopu przysługuje w roku? dziękuję",
        "wie viele urlaubstage gibt es",
        "сколько дней отпуска в году",
    ):
        _code, out = ask(vault, question, "how many vacation days a year")
        assert isinstance(out, dict) and out["cited"], (question, out)
        assert out["cited"][0]["path"] == "Team/Vacation.md", (question, out)


def _pages(root: Path, pages: dict[str, str]) -> Path:
    for rel, body in pages.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"---\ntitle: {Path(rel).stem}\n---\n{body}\n", encoding="utf-8")
    return root


VACATION = "Every employee gets 28 vacation days per year."
TRANSLATED = "How many vacation days does an employee get per year?"


def test_names_in_a_question_krouter_cannot_read_are_names_as_its_language_writes_them(
    tmp_path: Path,
) -> None:
    # Two cold reviews: each of these cited the Berlin office (or the PostgreSQL page) in a form of D91.
    root = _pages(
        tmp_path / "vault",
        {
            "Offices/Berlin office.md": "There are 8 parking spaces in the courtyard of the Berlin office. "
            "The Backup of the office NAS runs at 01:00.",
            "HR/Travel.md": "Trips to Munich and Vienna are booked through the travel desk.",
            "HR/Vacation.md": VACATION,
            "Runbooks/Copias PostgreSQL.md": "La copia de seguridad completa de PostgreSQL se hace cada noche.",
        },
    )
    parking = "office parking spaces"
    for question, also, name in [
        # A translation that renders the name (München → Munich) names what the Berlin page lacks, though
        # the page holds a German noun of the question (Backup): a noun is no name.
        (
            "Wie viele Parkplätze hat das Büro in München?",
            ["How many parking spaces does the Munich office have?", parking],
            "munich",
        ),
        (
            "Wann läuft das Backup im Büro in München?",
            ["When does the backup run at the Munich office?", "office NAS backup time"],
            "munich",
        ),
        # Russian and Dutch capitalise names only: the question's own name vetoes, as in English.
        ("Сколько парковочных мест в офисе в Мюнхене?", [parking], "мюнхене"),
        ("Hoeveel parkeerplaatsen heeft het kantoor in Dresden?", [parking], "dresden"),
        # A name after ¿ is still a name, with no phrasing at all.
        ("¿Redis tiene copia de seguridad completa cada noche?", [], "redis"),
    ]:
        _code, out = ask(root, question, *also)
        assert isinstance(out, dict) and out["decision"] == "refuse", (question, out)
        assert f"names {name!r}" in out["reason"], (question, out)


def test_a_question_krouter_cannot_read_cites_through_its_translation(tmp_path: Path) -> None:
    root = _pages(
        tmp_path / "vault",
        {
            "Offices/Lisboa office.md": "The Lisboa office has 5 parking spaces in the garage.",
            "HR/Vacation.md": VACATION,
        },
    )
    lisboa = "Offices/Lisboa office.md"
    # The agent's translation, and a rewording in the notes' terms (their Lisboa).
    LISBON = ["How many parking spaces does the Lisbon office have?", "Lisboa office parking spaces"]
    for question, also, page in [
        # The page holds the name as the question writes it; the translation's Lisbon does not matter.
        (
            "Wie viele Parkplätze hat das Büro in Lisboa?",
            LISBON,
            lisboa,
        ),
        (
            "Quantas vagas de estacionamento tem o escritório de Lisboa?",
            LISBON,
            lisboa,
        ),
        # German capitalises every noun: Urlaubstage is no name.
        ("Wie viele Urlaubstage bekommt jeder Mitarbeiter pro Jahr?", [TRANSLATED], "HR/Vacation.md"),
        # French whose words the index happens to read (de, par, the stems vacanc and avon) is French.
        ("Combien de jours de vacances avons-nous par an ?", [TRANSLATED], "HR/Vacation.md"),
        # ¿ marks Spanish as much as a word does: one function word with it is enough.
        ("¿Cuántas vacaciones tengo?", ["How many vacation days do I get?"], "HR/Vacation.md"),
        # A verb after ¿ that the translation renders is no name.
        (
            "¿Puedo saber cuántos días de vacaciones tengo al año?",
            ["Can I know how many vacation days I get per year?"],
            "HR/Vacation.md",
        ),
        # Scripts without lower case are languages too: the translation is the bridge.
        ("كم عدد أيام الإجازة السنوية التي يحصل عليها الموظف؟", [TRANSLATED], "HR/Vacation.md"),
        ("हर कर्मचारी को साल में कितने छुट्टी के दिन मिलते हैं?", [TRANSLATED], "HR/Vacation.md"),
    ]:
        _code, out = ask(root, question, *also)
        assert isinstance(out, dict) and out["decision"] == "cite", (question, out)
        assert out["cited"][0]["path"] == page, (question, out)


def test_a_phrasing_receipt_names_the_floor_it_was_held_to(tmp_path: Path) -> None:
    """A cold review: a refusal printed "confidence 0.68 vs floor 0.55" (it read as a contradiction) while
    the phrasing had been held to 0.78, and a citation's reason named the plain floor."""
    from krouter import Router

    pages = {
        "Vacation.md": "---\ntitle: Vacation policy\n---\nEmployees get 25 vacation days per year. "
        "Unused days carry over until March.\n",
        "Expenses.md": "---\ntitle: Expense policy\n---\nMeals are reimbursed up to 40 euros per day.\n",
        "Lunch.md": "# Lunch\n\nPizza.\n",
    }
    for rel, text in pages.items():
        (tmp_path / rel).write_text(text, encoding="utf-8")
    code, out = ask(tmp_path, "wie viele Urlaubstage", "employees vacation days year unused allowance")
    assert code == 3 and isinstance(out, dict), out
    assert out["evidence"]["floor"] == pytest.approx(0.775)
    assert out["evidence"]["confidence"] < out["evidence"]["floor"]
    with Router(tmp_path, floor=0.3) as router:
        cited = router.ask("wie viele Urlaubstage", also=["employees vacation days year unused"])
    assert cited.decision == "cite" and cited.evidence.floor == pytest.approx(0.65)
    assert "a phrasing's floor 65%" in cited.reason and "of the phrasing's content" in cited.reason


def test_a_phrasing_below_its_bar_is_listed_as_refused(tmp_path: Path) -> None:
    """The agent-loop run: "the phrasing … reaches 77% (a phrasing needs 78%)" came with that phrasing
    listed in `routes` as "cite", its own lookup's decision at the plain floor."""
    from krouter import Router

    vault = tmp_path / "v"
    (vault / "Runbooks").mkdir(parents=True)
    pages = {
        "Runbooks/Payments.md": "# Payments API timeout\n\nThe payments API times out after 30 seconds.\n",
        "Runbooks/Search.md": "# Search API timeout\n\nThe search API times out after 5 seconds.\n",
        "Office.md": "# Office\n\nThe office opens at nine. Card readers at the door.\n",
    }
    for rel, text in pages.items():
        (vault / rel).write_text(text, encoding="utf-8")
    with Router(vault) as router:
        receipt = router.ask("how long before the card charge gives up", also=["API timeout payments card"])
    asked, phrased = receipt.routes
    assert asked.floor == receipt.evidence.floor or asked.floor == 0.55
    assert phrased.top == "Runbooks/Payments.md" and phrased.floor > asked.floor
    assert asked.floor <= phrased.confidence < phrased.floor
    assert phrased.decision == "refuse"
    # Why a phrasing is held to more is said (agent-loop runs, D113), and which of its two bars (a later
    # run read 66% on one question and 78% on the next as a bar moving at random).
    assert receipt.reason.startswith("the question itself reaches "), receipt.reason
    assert ", under its floor 55%; the phrasing 'API timeout payments card' reaches " in receipt.reason
    assert "(more than a question: each wording is one more chance for a neighbour page)" in receipt.reason
    from krouter.routing.phrasings import agreeing_floor, phrasing_floor

    bar, agreeing = phrasing_floor(0.55), agreeing_floor(0.55)
    assert phrased.floor == bar
    assert (
        f"a phrasing needs {bar:.0%} (or {agreeing:.0%} where another wording's closest page is the same)"
        in receipt.reason
    ), receipt.reason


def test_the_runner_up_a_refusal_names_is_among_its_candidates() -> None:
    """An agent-loop run through the MCP server (D126): the reason said "… leads 决策/退款规则（2025）.md by
    7%", the page that answered, while the candidates, every wording's closest page first and cut at k,
    left it out; an agent reads the list. A dev7 question with the bench's phrasings, on vault5."""
    import re

    from krouter import Router

    vault = Path(__file__).resolve().parents[1] / "bench" / "memory_honesty" / "vault5"
    with Router(vault) as router:
        receipt = router.ask(
            "客人出发前不到一个月说不去了，是不是钱一分都不退？",
            k=3,
            also=[
                "If a guest cancels less than a month before departure, do they get no refund at all?",
                "出发前一个月内 客人取消 退款",
            ],
        )
    named = re.search(r"leads (.+?) by \d+%", receipt.reason)
    assert receipt.decision == "refuse" and named is not None, receipt.reason
    assert named.group(1) in [c.path for c in receipt.candidates]
    assert len(receipt.candidates) <= 4


API_PAGES = {
    "Runbooks/Payments API.md": "# Payments API\n\nThe payments API times out after 10 seconds and retries twice.\n",
    "Runbooks/Search API.md": "# Search API\n\nThe search API times out after 3 seconds and never retries.\n",
    "Lunch.md": "# Lunch\n\nPizza on Fridays.\n",
}


@pytest.mark.parametrize(
    ("question", "also"),
    [
        # The question alone: a tie, "… leads Runbooks/Payments API.md by 3%".
        ("how long before the API times out", []),
        # Two wordings citing two pages: "the wordings lead to different pages (…, …)".
        (
            "when does the API give up",
            ["how long before the payments API times out", "how long before the search API times out"],
        ),
    ],
    ids=["runner-up", "different-pages"],
)
def test_every_page_a_refusal_names_is_listed_at_k_1(tmp_path: Path, question: str, also: list[str]) -> None:
    """D128 left it partial: at k = 1 the candidates were cut to the closest page, so a refusal's reason
    named a page ("leads X by 3%", "the wordings lead to different pages (X, Y)") that no list held."""
    from krouter import Router

    vault = tmp_path / "v"
    for rel, text in API_PAGES.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    with Router(vault) as router:
        receipt = router.ask(question, k=1, also=also)
        cited = router.ask("how long before the payments API times out", k=1)
    assert receipt.decision == "refuse", receipt.reason
    listed = [c.path for c in receipt.candidates]
    assert sorted(listed) == ["Runbooks/Payments API.md", "Runbooks/Search API.md"], receipt.reason
    assert all(path in receipt.reason for path in listed)
    # A citation at k = 1 lists its page alone.
    assert cited.decision == "cite" and [c.path for c in cited.candidates] == ["Runbooks/Payments API.md"]
