"""Replaced pages: a hit on one leads to its current replacement, and a replaced page is never cited."""

from __future__ import annotations

import threading
import unicodedata
from pathlib import Path

import pytest

from krouter import Receipt, Router
from krouter.vault.page import parse_page

FILLER = {
    "Notes/Gardening.md": "# Gardening\n\nTomatoes need sun and water every morning.\n",
    "Notes/Cooking.md": "# Cooking\n\nBake bread at high heat with steam for a crisp crust.\n",
    "Notes/Cycling.md": "# Cycling\n\nPump the tyres before a long ride on gravel roads.\n",
}
OLD_BODY = "# Queue - RabbitMQ\n\nThe message broker is RabbitMQ on a single node.\n"
NEW_BODY = "# Message broker\n\nThe message broker is Kafka, three brokers.\n"


def make_vault(root: Path, pages: dict[str, str]) -> Path:
    for rel, text in {**FILLER, **pages}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def ask(vault: Path, question: str) -> Receipt:
    with Router(vault) as router:
        return router.ask(question)


def cited_paths(receipt: Receipt) -> list[str]:
    return [c.path for c in receipt.cited]


@pytest.mark.parametrize(
    "link",
    [
        "Decisions/Message broker",
        "Decisions/Message broker.md",
        '"[[Decisions/Message broker]]"',
        '"[[Decisions/Message broker|the new broker]]"',
        '"[[Message broker]]"',
    ],
)
def test_superseded_by_forms(tmp_path: Path, link: str) -> None:
    vault = make_vault(
        tmp_path,
        {
            "Decisions/Queue - RabbitMQ.md": f"---\nstatus: superseded\nsuperseded_by: {link}\n---\n{OLD_BODY}",
            "Decisions/Message broker.md": NEW_BODY,
        },
    )
    receipt = ask(vault, "rabbitmq message broker")
    assert receipt.decision == "cite"
    assert receipt.top.path == "Decisions/Message broker.md"
    assert receipt.top.via == "Decisions/Queue - RabbitMQ.md"
    assert "Decisions/Queue - RabbitMQ.md" not in cited_paths(receipt)
    redirect = next(r for r in receipt.redirects if r.from_path == "Decisions/Queue - RabbitMQ.md")
    assert redirect.to_path == "Decisions/Message broker.md"


@pytest.mark.parametrize(
    "field",
    [
        "supersedes: Decisions/Queue - RabbitMQ",
        "supersedes: '[[Queue - RabbitMQ]]'",
        "Replaces: Decisions/Queue - RabbitMQ",
    ],
)
def test_supersedes_on_new_page(tmp_path: Path, field: str) -> None:
    vault = make_vault(
        tmp_path,
        {
            "Decisions/Queue - RabbitMQ.md": OLD_BODY,  # no status: the new page alone says it is replaced
            "Decisions/Message broker.md": f"---\n{field}\n---\n{NEW_BODY}",
        },
    )
    receipt = ask(vault, "rabbitmq message broker")
    assert receipt.decision == "cite" and receipt.top.path == "Decisions/Message broker.md"
    assert "Decisions/Queue - RabbitMQ.md" not in cited_paths(receipt)


def test_chain_of_three(tmp_path: Path) -> None:
    vault = make_vault(
        tmp_path,
        {
            "A.md": "---\nstatus: superseded\nsuperseded_by: B\n---\nDeploys go to Heroku dynos.\n",
            "B.md": "---\nstatus: superseded\nsuperseded_by: C\n---\nDeploys go to Fly machines.\n",
            "C.md": "---\nstatus: current\n---\nDeploys go to the Kubernetes cluster.\n",
        },
    )
    receipt = ask(vault, "heroku dynos")
    assert receipt.decision == "cite" and receipt.top.path == "C.md"
    (redirect,) = [r for r in receipt.redirects if r.from_path == "A.md"]
    assert redirect.chain == ["A.md", "B.md", "C.md"]
    assert not {"A.md", "B.md"} & set(cited_paths(receipt))


def test_cycle_reported_never_cited_no_hang(tmp_path: Path) -> None:
    vault = make_vault(
        tmp_path,
        {
            "A.md": "---\nstatus: superseded\nsuperseded_by: B\n---\nThe ocelot budget is ten.\n",
            "B.md": "---\nsuperseded_by: C\n---\nThe ocelot budget is twenty.\n",
            "C.md": "---\nsuperseded_by: '[[A]]'\n---\nThe ocelot budget is thirty.\n",
        },
    )
    result: dict[str, object] = {}

    def run() -> None:
        with Router(vault) as router:
            result["receipt"] = router.ask("ocelot budget")
            result["status"] = router.status()

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout=20)
    assert not worker.is_alive(), "lookup hung on a replacement cycle"
    receipt = result["receipt"]
    assert isinstance(receipt, Receipt)
    assert receipt.decision == "refuse" and receipt.cited == []
    assert set(receipt.skipped) == {"A.md", "B.md", "C.md"}
    assert all(r.problem == "replacement cycle" for r in receipt.redirects)
    broken = result["status"]["broken_links"]  # type: ignore[index]
    assert {b["from"] for b in broken} == {"A.md", "B.md", "C.md"}


def test_missing_replacement_skipped_and_reported(tmp_path: Path) -> None:
    vault = make_vault(
        tmp_path,
        {
            "Old.md": "---\nstatus: superseded\nsuperseded_by: Decisions/Nowhere\n---\nThe tapir quota is four.\n"
        },
    )
    with Router(vault) as router:
        receipt = router.ask("tapir quota")
        status = router.status()
    assert receipt.decision == "refuse" and receipt.cited == []
    assert receipt.skipped == ["Old.md"]
    (redirect,) = receipt.redirects
    assert redirect.to_path is None and "Decisions/Nowhere" in (redirect.problem or "")
    assert [b["from"] for b in status["broken_links"]] == ["Old.md"]


def test_a_link_naming_no_page_on_a_page_without_a_status_is_broken(tmp_path: Path) -> None:
    """The diff's cold review: only a status that promises a replacement was checked, so a page with a
    superseded_by and no status dropped out of status's broken links (and is never cited)."""
    vault = make_vault(
        tmp_path,
        {"Deploy.md": "---\nsuperseded_by: '[[Deploy process v2]]'\n---\nOld deploy steps.\n"},
    )
    with Router(vault) as router:
        router.refresh()
        status = router.status()
    assert [b["from"] for b in status["broken_links"]] == ["Deploy.md"]


def test_a_supersedes_link_naming_no_page_is_broken_in_status(tmp_path: Path) -> None:
    """A first-hour trial: `supersedes: "[[CI system - Jenkins]]"` (a title, not the file's name) retired
    nothing, so the old page stayed citable; `krouter check` said so and `krouter status` listed no
    broken link. A clipping's `supersedes` is ignored whatever it names, so it is not listed."""
    vault = make_vault(
        tmp_path,
        {
            "CI - Jenkins.md": "---\ntitle: CI system - Jenkins\n---\nWe run CI on Jenkins.\n",
            "CI - GitHub Actions.md": "---\nsupersedes: '[[CI system - Jenkins]]'\n---\nCI runs on Actions.\n",
            "Inputs/Article.md": "---\nsupersedes: '[[Nowhere]]'\n---\nA clipped article.\n",
        },
    )
    with Router(vault) as router:
        router.refresh()
        status = router.status()
    assert status["broken_links"] == [
        {
            "from": "CI - GitHub Actions.md",
            "problem": "supersedes '[[CI system - Jenkins]]', which does not name exactly one page: the page it means is "
            "not retired (krouter check says why)",
            "chain": ["CI - GitHub Actions.md"],
        }
    ]


@pytest.mark.parametrize("status", ["superseded", "retired", "deprecated", "archived", "rejected", "Retired"])
def test_replaced_statuses_never_cited(tmp_path: Path, status: str) -> None:
    vault = make_vault(tmp_path, {"Old.md": f"---\nstatus: {status}\n---\nThe narwhal tank holds water.\n"})
    receipt = ask(vault, "narwhal tank")
    assert receipt.decision == "refuse" and receipt.cited == []
    assert "Old.md" in receipt.skipped


def test_current_status_is_cited(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, {"Now.md": "---\nstatus: current\n---\nThe narwhal tank holds water.\n"})
    assert ask(vault, "narwhal tank").top.path == "Now.md"


def test_branching_replacement_follows_the_branch_that_leads_somewhere(tmp_path: Path) -> None:
    vault = make_vault(
        tmp_path,
        {
            "A.md": "---\nstatus: superseded\nsuperseded_by: [B, C]\n---\nThe heroku pipeline bills monthly.\n",
            "B.md": "---\nstatus: retired\n---\nAn abandoned plan.\n",
            "C.md": "# Billing\n\nThe platform bills weekly.\n",
        },
    )
    receipt = ask(vault, "heroku pipeline billing")
    assert receipt.decision == "cite" and receipt.top is not None and receipt.top.path == "C.md"
    assert receipt.top.via == "A.md"


def test_a_decision_split_into_two_pages_sends_its_hits_to_neither(tmp_path: Path) -> None:
    """A cold review: hits on an old page that two new pages each supersede all went to the first by
    name, cited at full confidence for questions only the other answers."""
    vault = make_vault(
        tmp_path,
        {
            "Platform 2020.md": "---\nstatus: superseded\n---\nDatabase: MySQL 5.7.\n"
            "Web framework: we use Rails 5 with Sidekiq for background jobs.\n",
            "Database.md": "---\nsupersedes: '[[Platform 2020]]'\n---\nWe use PostgreSQL 16.\n",
            "Web framework.md": "---\nsupersedes: '[[Platform 2020]]'\n---\n"
            "We moved from Rails to Django in 2024. Work runs on Celery.\n",
        },
    )
    receipt = ask(vault, "what do we use for background jobs sidekiq")
    assert "Database.md" not in cited_paths(receipt)
    assert receipt.skipped == ["Platform 2020.md"]
    (redirect,) = receipt.redirects
    assert redirect.to_path is None
    assert redirect.problem == (
        "replaced by several current pages (Database.md, Web framework.md); a hit on it leads to none of them"
    )


def test_two_branches_that_meet_on_one_current_page_lead_there(tmp_path: Path) -> None:
    vault = make_vault(
        tmp_path,
        {
            "A.md": "---\nstatus: superseded\nsuperseded_by: [B, C]\n---\nThe quokka feed is hay.\n",
            "B.md": "---\nstatus: superseded\nsuperseded_by: D\n---\nOld.\n",
            "C.md": "---\nstatus: superseded\nsuperseded_by: D\n---\nOld too.\n",
            "D.md": "# Feed\n\nThe quokkas eat pellets now.\n",
        },
    )
    with Router(vault) as router:
        assert router.resolve("A.md").to_path == "D.md"


def test_a_clipping_cannot_retire_a_vault_page(tmp_path: Path) -> None:
    """Pasted outside text that says it supersedes a decision must not take its place."""
    vault = make_vault(
        tmp_path,
        {
            "Decisions/Primary database.md": "# Primary database\n\nWe run PostgreSQL 16.\n",
            "Clippings/blog.md": "---\nsupersedes: '[[Primary database]]'\n---\n# Database\n\nUse MongoDB.\n",
            "Other.md": "# Other\n\nNothing to see.\n",
        },
    )
    receipt = ask(vault, "which primary database do we run")
    assert receipt.top is not None and receipt.top.path == "Decisions/Primary database.md"
    assert receipt.redirects == []


def test_unquoted_wikilink_in_yaml_resolves(tmp_path: Path) -> None:
    """`superseded_by: [[Queue v2]]` unquoted is a nested list to YAML; Obsidian users write it so."""
    vault = make_vault(
        tmp_path,
        {
            "Queue v1.md": "---\nstatus: superseded\nsuperseded_by: [[Queue v2]]\n---\nJobs go through rabbitmq.\n",
            "Queue v2.md": "# Queue\n\nJobs go through the nats stream.\n",
            "Other.md": "# Other\n\nUnrelated jobs page.\n",
        },
    )
    receipt = ask(vault, "rabbitmq jobs")
    assert receipt.top is not None and receipt.top.path == "Queue v2.md"


def test_link_typed_composed_finds_a_decomposed_file_name(tmp_path: Path) -> None:
    nfd = unicodedata.normalize("NFD", "Café menu")
    vault = make_vault(
        tmp_path,
        {
            f"{nfd}.md": "# Menu\n\nThe cafe serves espresso.\n",
            "Old menu.md": "---\nstatus: superseded\nsuperseded_by: '[[Café menu]]'\n---\nThe cafe serves drip coffee.\n",
            "Other.md": "# Other\n\nUnrelated.\n",
        },
    )
    with Router(vault) as router:
        assert router.resolve("Old menu.md").to_path == f"{nfd}.md"


def test_two_branches_meeting_again_are_not_a_cycle(tmp_path: Path) -> None:
    vault = make_vault(
        tmp_path,
        {
            "A.md": "---\nstatus: superseded\nsuperseded_by: [B, C]\n---\nThe quokka feed is hay.\n",
            "B.md": "---\nstatus: superseded\nsuperseded_by: D\n---\nquokka\n",
            "C.md": "---\nstatus: superseded\nsuperseded_by: D\n---\nquokka\n",
            "D.md": "---\nstatus: superseded\n---\nquokka\n",
        },
    )
    with Router(vault) as router:
        redirect = router.resolve("A.md")
    assert redirect.to_path is None and redirect.problem == "replaced, with no replacement page"


@pytest.mark.parametrize(
    "fields",
    [
        "status: superseded\nsuperseded_by: Decisions/Message broker",
        "status: superseded  # replaced by Kafka\nsuperseded_by: Decisions/Message broker # moved",
        "status: 'superseded' # x\nsuperseded_by: '[[Message broker]]'",
        "status:\n  - superseded\nsuperseded_by:\n  - Decisions/Message broker",
        "superseded_by:\n- '[[Message broker]]'",  # the list style PyYAML itself writes
        "status:\n- superseded\nsuperseded_by: >-\n  Decisions/Message broker",
        '"status": superseded\n"superseded_by": Decisions/Message broker',
    ],
)
def test_broken_yaml_still_marks_a_page_replaced(tmp_path: Path, fields: str) -> None:
    # A colon in a title breaks the YAML; the status line must still keep the old page from being cited.
    vault = make_vault(
        tmp_path,
        {
            "Decisions/Queue - RabbitMQ.md": f"---\ntitle: Queue: RabbitMQ\n{fields}\n---\n" + OLD_BODY,
            "Decisions/Message broker.md": NEW_BODY,
        },
    )
    receipt = ask(vault, "rabbitmq single node message broker")
    assert receipt.top.path == "Decisions/Message broker.md"
    assert "Decisions/Queue - RabbitMQ.md" not in cited_paths(receipt)
    with Router(vault) as router:
        assert any(p["path"] == "Decisions/Queue - RabbitMQ.md" for p in router.status()["problems"])


@pytest.mark.parametrize(
    "frontmatter",
    [
        "Status: superseded\nSuperseded_by: Decisions/Message broker",
        "STATUS: Superseded\nsuperseded-by: Decisions/Message broker",
        'status: "#superseded"\nsuperseded_by: Decisions/Message broker',
        "status: superseded\nsuperseded_by: '[Message broker](Decisions/Message%20broker.md)'",
        "status: superseded\nsuperseded_by: Decisions/Message broker#Decision",
        "status: replaced\nreplaced_by: Decisions/Message broker",
        "status: outdated\nReplaced-By: '[[Message broker]]'",
    ],
)
def test_field_spellings_and_link_forms_people_write(tmp_path: Path, frontmatter: str) -> None:
    vault = make_vault(
        tmp_path,
        {
            "Decisions/Queue - RabbitMQ.md": f"---\n{frontmatter}\n---\n{OLD_BODY}",
            "Decisions/Message broker.md": NEW_BODY,
        },
    )
    receipt = ask(vault, "rabbitmq single node message broker")
    assert receipt.top.path == "Decisions/Message broker.md"
    assert receipt.top.via == "Decisions/Queue - RabbitMQ.md"


LINK = "superseded_by: Decisions/Message broker"


@pytest.mark.parametrize(
    "head",
    [
        # A field written twice, a template's "current" left below: YAML keeps the last one.
        f"---\nstatus: superseded\n{LINK}\nstatus: current\nsuperseded_by:\n---\n",
        # The misspelling as often written as the word, and camelCase keys.
        "---\nstatus: superceded\nsuperceded_by: Decisions/Message broker\n---\n",
        "---\nstatus: superseded\nsupersededBy: Decisions/Message broker\n---\n",
        # Typed with a Chinese input method on, or pasted: a second byte-order mark, a full-width fence.
        f"\ufeff\ufeff---\nstatus: superseded\n{LINK}\n---\n",
        f"－－－\nstatus: superseded\n{LINK}\n－－－\n",
    ],
)
def test_replaced_as_people_actually_type_it(tmp_path: Path, head: str) -> None:
    """Cold reviews: each of these left a replaced page current, cited, with `krouter check` silent."""
    vault = make_vault(
        tmp_path,
        {"Decisions/Queue - RabbitMQ.md": head + OLD_BODY, "Decisions/Message broker.md": NEW_BODY},
    )
    receipt = ask(vault, "rabbitmq single node message broker")
    assert "Decisions/Queue - RabbitMQ.md" not in cited_paths(receipt)
    assert receipt.top is not None and receipt.top.path == "Decisions/Message broker.md"
    assert receipt.top.via == "Decisions/Queue - RabbitMQ.md"


@pytest.mark.parametrize(
    "status",
    [
        "status：superseded",  # a full-width colon
        "status:\u00a0superseded",  # a no-break space after the colon
        "status: ｓｕｐｅｒｓｅｄｅｄ",  # full-width letters
        "status: superceded",
        "status: 已废弃",
        "status: 已被取代（见新页）",
        "status: 過時",
        "status: 废弃的方案",
    ],
)
def test_a_status_alone_says_replaced_as_people_type_it(tmp_path: Path, status: str) -> None:
    vault = make_vault(tmp_path, {"Decisions/Queue - RabbitMQ.md": f"---\n{status}\n---\n{OLD_BODY}"})
    receipt = ask(vault, "rabbitmq single node message broker")
    assert receipt.decision == "refuse" and receipt.skipped == ["Decisions/Queue - RabbitMQ.md"]


def test_japanese_and_korean_statuses_retire_a_page(tmp_path: Path) -> None:
    """A bug hunt on a Japanese and Korean vault: pages marked 廃止 (abolished) or 폐기 (discarded) were
    cited as current at full confidence, and `krouter check`, given a replacement link, called them
    current. As frontmatter and as a status line at the page's top, leading to the replacement."""
    vault = make_vault(
        tmp_path,
        {
            "仕事/旧/交通費ルール.md": "---\nstatus: 廃止\nsuperseded_by: '[[交通費ルール2025]]'\n---\n"
            "# 交通費ルール\n\n交通費は定期代で支給されます。\n",
            "仕事/交通費ルール2025.md": "# 交通費ルール2025\n\n交通費は実費で精算されます。\n",
            "팀/구_출장비.md": "---\nstatus: 폐기됨\n---\n# 출장비\n\n출장 일비는 하루 3만원입니다.\n",
            "팀/옛 회의실 규칙.md": "# 회의실 규칙\n\n상태: 대체됨 [[회의실 규칙 2025]]\n\n회의실 예약은 엑셀로 합니다.\n",
            "팀/회의실 규칙 2025.md": "# 회의실 규칙 2025\n\n회의실 예약은 캘린더로 합니다.\n",
            "家/旧ごみ.md": "# ごみ出し\n\n状態：置き換え済み（[[ごみ出し2025]]）\n\n燃えるごみは月曜日です。\n",
            "家/ごみ出し2025.md": "# ごみ出し2025\n\n燃えるごみは火曜日と金曜日です。\n",
            "家/ノート.md": "# ノート\n\n状態：廃止になった機能の一覧をここに書く。\n\n通知機能は廃止です。\n",
        },
    )
    for rel in ("仕事/旧/交通費ルール.md", "팀/구_출장비.md", "팀/옛 회의실 규칙.md", "家/旧ごみ.md"):
        assert parse_page(rel, (vault / rel).read_text(encoding="utf-8")).replaced, rel
    assert not parse_page("家/ノート.md", (vault / "家/ノート.md").read_text(encoding="utf-8")).replaced
    receipt = ask(vault, "交通費は定期代で支給されますか？")
    assert "仕事/旧/交通費ルール.md" not in cited_paths(receipt), receipt.to_text()
    assert ask(vault, "출장 일비 하루 얼마야?").decision == "refuse"
    assert cited_paths(ask(vault, "회의실 예약은 어떻게 해요?")) == ["팀/회의실 규칙 2025.md"]
    with Router(vault) as router:
        router.refresh()
        status = router.status()
    assert not status["broken_links"], status["broken_links"]


def test_a_replacement_written_as_a_notion_field_or_in_a_callout_title_retires_the_page(
    tmp_path: Path,
) -> None:
    """A bug hunt on exported vaults: a Notion page's "Status: Deprecated" with "Replaced by: [Page](…)" on
    the next line, and an Obsidian callout titled "> [!warning] Superseded by [[New plan]]", were cited
    as current at 100%, and `krouter check` called the vault clean."""
    notion_id = "9b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e"
    vault = make_vault(
        tmp_path,
        {
            f"Deploy runbook {notion_id}.md": "# Deploy runbook\n\nOwner: Marcus\n\nDeploys go through Argo Rollouts.\n",
            "Old deploy process aa11bb22cc33dd44ee55ff6677889900.md": "# Old deploy process\n\nStatus: Deprecated\n"
            f"Replaced by: [Deploy runbook](Deploy%20runbook%20{notion_id}.md)\nOwner: Marcus\n\n"
            "We deployed with Jenkins by running the ship-it job manually.\n",
            "Old A.md": "# Old A\n\n> [!warning] Status: superseded by [[New plan]]\n\nJenkins alpha builds.\n",
            "Old D.md": "# Old D\n\n> [!warning] Superseded by [[New plan]]\n\nJenkins delta builds.\n",
            "New plan.md": "# New plan\n\nBuilds run on GitHub Actions.\n",
            "Kept.md": "# Kept\n\nStatus: Active\nReplaced by: [[New plan]]\n\nJenkins gamma builds.\n",
        },
    )
    receipt = ask(vault, "how do we deploy with the jenkins ship-it job")
    assert cited_paths(receipt) == [f"Deploy runbook {notion_id}.md"] or receipt.decision == "refuse"
    assert receipt.redirects and receipt.redirects[0].to_path == f"Deploy runbook {notion_id}.md"
    for rel in ("Old A.md", "Old D.md"):
        assert parse_page(rel, (vault / rel).read_text(encoding="utf-8")).superseded_by == ["[[New plan]]"], (
            rel
        )
    # A current status beside a replacement field wins; a sentence about a person is no status.
    assert not parse_page("Kept.md", (vault / "Kept.md").read_text(encoding="utf-8")).replaced
    alice = "# Alice\n\nReplaced by [[Bob]] as team lead in March.\n\nAlice runs the data team now.\n"
    assert not parse_page("People/Alice.md", alice).replaced


def test_replacement_links_as_exporters_write_them_lead_to_the_page(tmp_path: Path) -> None:
    """A bug hunt on exported vaults: each replacement below named an existing page and led nowhere
    (`krouter check`: dangling): a macOS file name percent-encoded decomposed (Cafe%CC%81), Logseq's
    percent-encoded file name ([[Q1: Planning]] is Q1%3A Planning.md), and Roam's two-word attribute
    (Superseded by:: [[X]]), read as no field at all."""
    vault = make_vault(
        tmp_path,
        {
            "Café menu aa11.md": "# Café menu\n\nThe flat white costs 3.80 EUR.\n",
            "Old menu.md": '---\nstatus: superseded\nsuperseded_by: "[Café menu](Cafe%CC%81%20menu%20aa11.md)"\n---\n'
            "# Old menu\n\nThe flat white cost 3.20 EUR at the kiosk.\n",
            "pages/Q1%3A Planning.md": "- Q1 planning happens in the first week of January.\n",
            "pages/Old planning.md": "status:: superseded\nsuperseded-by:: [[Q1: Planning]]\n\n- Planning was in February.\n",
            "Hiring process 2025.md": "- Take-home exercise is 90 minutes.\n",
            "Hiring process 2023.md": "- Status:: #superseded\n- Superseded by:: [[Hiring process 2025]]\n"
            "- Take-home exercise is 4 hours.\n",
        },
    )
    with Router(vault) as router:
        router.refresh()
        assert not router.status()["broken_links"], router.status()["broken_links"]
    receipt = ask(vault, "how much does the flat white cost at the kiosk")
    assert receipt.redirects and receipt.redirects[0].to_path == "Café menu aa11.md", receipt.to_text()
    receipt = ask(vault, "when does planning happen, february?")
    assert any(r.to_path == "pages/Q1%3A Planning.md" for r in receipt.redirects), receipt.to_text()
    receipt = ask(vault, "how long is the take-home exercise, 4 hours?")
    assert any(r.to_path == "Hiring process 2025.md" for r in receipt.redirects), receipt.to_text()


def test_a_field_written_twice_is_reported(tmp_path: Path) -> None:
    vault = make_vault(
        tmp_path,
        {
            "Decisions/Queue - RabbitMQ.md": f"---\nstatus: superseded\n{LINK}\nstatus: current\n---\n{OLD_BODY}",
            "Decisions/Message broker.md": NEW_BODY,
        },
    )
    with Router(vault) as router:
        router.refresh()
        problems = [p for p in router.status()["problems"] if p["path"] == "Decisions/Queue - RabbitMQ.md"]
    assert [p["message"] for p in problems] == ["status written more than once; every value is read"]


def test_a_field_under_two_spellings_is_not_reported_as_written_twice() -> None:
    """Two spellings (Status, status) are two keys to YAML, both read: not "written more than once", no
    YAML error. Two that disagree are still a page its owner may misread, and are said to be so."""
    from krouter.vault.page import parse_page

    page = parse_page("Old.md", "---\nStatus: superseded\nstatus: current\n---\nbody\n")
    assert page.status == "superseded" and page.yaml_error is None
    assert page.status_disagreement is not None and "disagree" in page.status_disagreement
    same = parse_page("Old.md", "---\nStatus: superseded\nstatus: superseded\n---\nbody\n")
    assert same.status == "superseded" and same.yaml_error is None and same.status_disagreement is None


def test_names_differing_only_in_case_resolve_to_the_exact_one(tmp_path: Path) -> None:
    vault = make_vault(
        tmp_path,
        {
            "D/Auth.md": "# Auth current\n\nStaff login uses Okta single sign-on.\n",
            "D/auth.md": "# auth notes\n\nRandom notes about OAuth scopes for the mobile app.\n",
            "D/AuthV1.md": "---\nstatus: superseded\nsuperseded_by: D/Auth\n---\nStaff login uses LDAP via OpenLDAP.\n",
        },
    )
    if not (tmp_path / "D/auth.md").exists() or (tmp_path / "D/Auth.md").samefile(tmp_path / "D/auth.md"):
        pytest.skip("case-insensitive file system")
    receipt = ask(vault, "does staff login use LDAP via OpenLDAP")
    assert receipt.top.path == "D/Auth.md"
    assert receipt.top.via == "D/AuthV1.md"


@pytest.mark.parametrize(
    ("link", "expected"),
    [
        ("../Runbooks/Message broker.md", "Runbooks/Message broker.md"),  # relative to the linking page
        ("./Message broker", None),  # Decisions/Message broker.md does not exist
        ("../../outside/Message broker.md", None),  # outside the vault
        ("Team/Message broker", None),  # a folder that holds no such page: no guess by name
        ('"[[]]"', "Decisions/Queue - RabbitMQ.md"),  # an empty placeholder is no link at all
    ],
)
def test_links_land_only_where_they_point(tmp_path: Path, link: str, expected: str | None) -> None:
    status = "current" if link == '"[[]]"' else "superseded"
    vault = make_vault(
        tmp_path,
        {
            "Decisions/Queue - RabbitMQ.md": f"---\nstatus: {status}\nsuperseded_by: {link}\n---\n{OLD_BODY}",
            "Runbooks/Message broker.md": NEW_BODY,
        },
    )
    receipt = ask(vault, "rabbitmq single node message broker")
    if expected is None:
        assert "Decisions/Queue - RabbitMQ.md" not in cited_paths(receipt)
        assert all(
            r.to_path is None for r in receipt.redirects if r.from_path == "Decisions/Queue - RabbitMQ.md"
        )
    else:
        assert receipt.top.path == expected


@pytest.mark.parametrize(
    "link",
    ['"[[Message broker]], [[Kafka cluster]]"', '"[[Message broker"', '"[[Kafka cluster"'],
)
def test_a_malformed_replacement_link_still_marks_the_page_replaced(tmp_path: Path, link: str) -> None:
    vault = make_vault(
        tmp_path,
        {
            "Decisions/Queue - RabbitMQ.md": f"---\nsuperseded_by: {link}\n---\n{OLD_BODY}",
            "Decisions/Message broker.md": NEW_BODY,
        },
    )
    receipt = ask(vault, "rabbitmq single node message broker")
    assert "Decisions/Queue - RabbitMQ.md" not in cited_paths(receipt)


@pytest.mark.parametrize(
    "frontmatter",
    [
        "status: superseded by [[Message broker]]\nsuperseded_by: Decisions/Message broker",
        "status: '❌ superseded'\nsuperseded_by: Decisions/Message broker",
        "status: [active, superseded]\nsuperseded_by: Decisions/Message broker",
        "Status: superseded\nstatus: current\nsuperseded_by: Decisions/Message broker",
        "superseded_by: ''\nSuperseded-By: '[[Message broker]]'",
    ],
)
def test_any_spelling_that_says_replaced_wins(tmp_path: Path, frontmatter: str) -> None:
    vault = make_vault(
        tmp_path,
        {
            "Decisions/Queue - RabbitMQ.md": f"---\n{frontmatter}\n---\n{OLD_BODY}",
            "Decisions/Message broker.md": NEW_BODY,
        },
    )
    receipt = ask(vault, "rabbitmq single node message broker")
    assert receipt.top.path == "Decisions/Message broker.md"
    assert "Decisions/Queue - RabbitMQ.md" not in cited_paths(receipt)


def test_supersedes_and_replaces_on_one_page_both_count(tmp_path: Path) -> None:
    vault = make_vault(
        tmp_path,
        {
            "A.md": "# A\n\nalphaqueue wombat\n",
            "B.md": "# B\n\nbetaqueue quokka\n",
            "New.md": "---\nsupersedes: '[[A]]'\nreplaces: '[[B]]'\n---\n# Platform\n\nOne queue for everything.\n",
        },
    )
    for question in ("alphaqueue wombat", "betaqueue quokka"):
        receipt = ask(vault, question)
        assert receipt.top.path == "New.md", question


def test_supersedes_to_a_deleted_page_does_not_retire_a_namesake(tmp_path: Path) -> None:
    vault = make_vault(
        tmp_path,
        {
            "Decisions/Postgres.md": "---\nsupersedes: '[[Archive/2021/Index]]'\n---\n# Postgres\n\nWe use Postgres.\n",
            "Projects/Index.md": "# Index\n\nOnboarding checklist for new hires.\n",
        },
    )
    receipt = ask(vault, "onboarding checklist for new hires")
    assert receipt.top.path == "Projects/Index.md" and receipt.top.via is None


def test_words_held_only_by_another_replaced_page_are_named_with_it(tmp_path: Path) -> None:
    """A cold review: "only on the replaced page A.md: pelican, flamingo" named A.md for a word only
    B.md (also replaced by the cited page) holds."""
    vault = make_vault(
        tmp_path,
        {
            "A.md": "---\nstatus: superseded\nsuperseded_by: C\n---\nThe pelican config lives here.\n",
            "B.md": "---\nstatus: superseded\nsuperseded_by: C\n---\nThe flamingo config lives here.\n",
            "C.md": "# Current\n\nThe toucan config lives here.\n",
        },
    )
    receipt = ask(vault, "pelican flamingo toucan")
    top = receipt.top
    assert top is not None and top.path == "C.md"
    elsewhere = dict(reversed(w[:-1].split(" (")) for w in top.via_elsewhere)
    assert {top.via: top.via_words, **{page: [word] for page, word in elsewhere.items()}} == {
        "A.md": ["pelican"],
        "B.md": ["flamingo"],
    }
    assert "and others" in receipt.reason
    text = receipt.to_text()
    assert f"only on the replaced page {top.via}: {top.via_words[0]}" in text
    assert "only on other replaced pages that lead to it: " in text


def test_an_adr_status_section_replaces_the_record_as_frontmatter_would(tmp_path: Path) -> None:
    """A cold review: an adr-tools record "Superseded by [3. …](0003-….md)" was cited as current, and
    `krouter status` counted no page replaced."""
    vault = make_vault(
        tmp_path,
        {
            "adr/0001-use-rabbitmq.md": "# 1. Use RabbitMQ\n\nDate: 2023-02-01\n\n## Status\n\n"
            "Superseded by [3. Use Kafka](0003-use-kafka.md)\n\n## Decision\n\n"
            "The message broker is RabbitMQ on a single node.\n",
            "adr/0003-use-kafka.md": "# 3. Use Kafka\n\nDate: 2024-05-01\n\n## Status\n\nAccepted\n\n"
            "Supersedes [1. Use RabbitMQ](0001-use-rabbitmq.md)\n\n## Decision\n\n"
            "The message broker is Kafka, three brokers.\n",
            # A status section that only starts with a status word is prose, not a status.
            "Projects/API.md": "# API\n\n## Status\n\nDeprecated endpoints are removed in May; the rest stay.\n",
            "Projects/Old API.md": "# Old API\n\n## Status\n\n**Deprecated**\n\nThe v1 gateway port is 8081.\n",
        },
    )
    receipt = ask(vault, "which message broker runs on a single node")
    assert cited_paths(receipt) == ["adr/0003-use-kafka.md"]
    assert receipt.redirects and receipt.redirects[0].from_path == "adr/0001-use-rabbitmq.md"
    assert cited_paths(ask(vault, "when are deprecated endpoints removed")) == ["Projects/API.md"]
    assert ask(vault, "what is the v1 gateway port").decision == "refuse"


def test_logseq_page_properties_replace_and_alias_a_page(tmp_path: Path) -> None:
    """A cold review: `status:: superseded` and `superseded_by:: [[Budget 2024]]` at the top of a
    Logseq page were not read, so the old budget was cited; `alias::` was not an alias."""
    vault = make_vault(
        tmp_path,
        {
            "pages/Old budget.md": "status:: superseded\nsuperseded_by:: [[Budget 2024]]\n\n"
            "- groceries budget is 3000 CNY a month\n",
            "pages/Budget 2024.md": "- groceries budget is 3500 CNY a month\n",
            "pages/Doctor.md": "alias:: GP, 家庭医生\n\n- Phone 021-6123-4567, room 301\n",
        },
    )
    receipt = ask(vault, "is the groceries budget 3000 CNY a month")
    assert cited_paths(receipt) == ["pages/Budget 2024.md"]
    doctor = parse_page("pages/Doctor.md", (vault / "pages" / "Doctor.md").read_text(encoding="utf-8"))
    assert doctor.aliases == ["GP", "家庭医生"] and not doctor.replaced


def test_a_status_section_that_is_no_adr_status_line_replaces_nothing(tmp_path: Path) -> None:
    """The session diff's review: a weekly note's `## Status` list ("- Superseded by [[Billing v2]]: the
    old invoice export script") replaced the note itself and sent its questions to Billing v2; a
    "Replaces [[Laptop policy]] for contractors only" line retired the laptop policy; prose starting
    "Rejected by finance" left a page uncitable; an ADR shown inside a code block replaced its how-to."""
    vault = make_vault(
        tmp_path,
        {
            "weekly.md": "# Weekly 2024-05-06\n\n## Status\n\n- Superseded by [[Billing v2]]: the old invoice "
            "export script\n- Replaces [[Laptop policy]] for contractors only\n\n## Notes\n\n"
            "The partner portal SSO uses Okta with SCIM provisioning.\n",
            "Billing v2.md": "# Billing v2\n\nBilling v2 exports invoices nightly to the warehouse.\n",
            "Laptop policy.md": "# Laptop policy\n\nEmployee MacBooks are refreshed every three years.\n",
            "Contractors.md": "# Contractor laptops\n\n## Status\n\nReplaces [[Laptop policy]] for contractors "
            "only; employees are unchanged.\n\nContractors get a loaner for the project's length.\n",
            "App.md": "# Mobile app\n\n## Status\n\nRejected by finance in March at first; approved again in "
            "April.\n\nThe app is written in Flutter 3.22.\n",
            "How to write ADRs.md": "# How to write ADRs\n\nAn example record:\n\n```markdown\n## Status\n\n"
            "Superseded by [2. Use Kafka](0002-use-kafka.md)\n```\n\nKeep records short and dated.\n",
        },
    )
    for rel, text in {
        "weekly.md": "partner portal SSO Okta provisioning",
        "Laptop policy.md": "how often are employee MacBooks refreshed",
        "App.md": "which framework is the mobile app written in, Flutter?",
        "How to write ADRs.md": "how should ADR records be written, short and dated?",
    }.items():
        assert cited_paths(ask(vault, text)) == [rel], text
        page = parse_page(rel, (vault / rel).read_text(encoding="utf-8"))
        assert not page.replaced and not page.superseded_by and not page.supersedes, rel


def test_logseq_list_properties_split_at_commas_outside_wikilinks() -> None:
    page = parse_page("p.md", "alias:: GP, [[Dr. Wu, Jr.]], 家庭医生\ntags:: a,b\n\n- text\n")
    assert page.aliases == ["GP", "[[Dr. Wu, Jr.]]", "家庭医生"] and page.tags == ["a", "b"]
    # A property line longer than a person writes is not read (the review's 400 KB `tags::` line took
    # 36 s to split); the page is still read.
    long = parse_page("q.md", "tags:: " + "x," * 200_000 + "\n\nBody text.\n")
    assert long.tags == [] and "Body text." in long.body


def test_a_madr_2_record_s_status_item_replaces_it(tmp_path: Path) -> None:
    """MADR 2 writes the status as a list item under the title: `* Status: superseded by [ADR-0007](…)`."""
    vault = make_vault(
        tmp_path,
        {
            "adr/0005-use-rabbitmq.md": "# Use RabbitMQ\n\n* Status: superseded by [ADR-0007](0007-use-kafka.md)\n"
            "* Deciders: Ana\n\n## Decision Outcome\n\nThe message broker is RabbitMQ on a single node.\n",
            "adr/0007-use-kafka.md": "# Use Kafka\n\n* Status: accepted\n\n## Decision Outcome\n\n"
            "The message broker is Kafka, three brokers.\n",
            "weekly.md": "# Weekly\n\n## Notes\n\n- Status: superseded by [[adr/0007-use-kafka]]\n"
            "- The on-call handbook moved to the wiki.\n",
        },
    )
    assert cited_paths(ask(vault, "which message broker runs on a single node")) == ["adr/0007-use-kafka.md"]
    # A status item below a section heading is a note's list, not a record's status.
    assert not parse_page("weekly.md", (vault / "weekly.md").read_text(encoding="utf-8")).replaced


def test_a_status_line_under_the_title_replaces_the_page(tmp_path: Path) -> None:
    """Session 51's leftovers: "Status: superseded by [[New]]" written by hand under a title, in bold,
    as a bold MADR item or in Chinese, left the old page current and cited; only MADR 2's plain item
    and an ADR's Status section were read. A status nested under an item, under a later section, a
    sentence, or in a code block stays no status of the page."""
    vault = make_vault(
        tmp_path,
        {
            "Old queue.md": "# Old queue\n\nStatus: superseded by [[New queue]]\n\nJobs go through RabbitMQ.\n",
            "New queue.md": "# New queue\n\nStatus: accepted\n\nJobs go through NATS JetStream.\n",
            "Old CDN.md": "# Old CDN\n\n**Status:** Outdated\n\nAssets are served by Fastly.\n",
            "Old mail.md": "# Old mail\n\n- **Status**: Superseded by [[New mail]]\n- **Date**: 2023-04-01\n\n"
            "Invoice emails go out through Postfix.\n",
            "New mail.md": "# New mail\n\nInvoice emails go out through Amazon SES.\n",
            "旧报销.md": "# 旧报销流程\n\n状态：已被 [[新报销]] 取代\n\n报销单交给财务部的王姐。\n",
            "新报销.md": "# 新报销流程\n\n报销单在飞书上提交，李会计审批。\n",
            "Old runbook.md": "# Old runbook\n\nStatus: **Superseded** (see [[New runbook]])\n\nRestart with systemctl.\n",
            "New runbook.md": "# New runbook\n\nRestart the worker with `krouter-ctl restart`.\n",
            "Billing.md": "# Billing\n\n> Status: superseded by [[Billing v2]]\n\n## Status\n\nMigration 80% done.\n",
            "Billing v2.md": "# Billing v2\n\nInvoices are exported nightly.\n",
            "journal.md": "- Vendor quote for printers\n  - Status: rejected\n- The VPN certificate expires in June\n",
            "options.md": "# Queue options\n\nWe compared two.\n\n## Kafka\n\nStatus: rejected\n\nToo heavy for us.\n",
            "sync.md": "# Sync\n\nStatus: we are still evaluating options for the storage tier\n",
            "howto.md": "# How to write a record\n\n```\nStatus: superseded by [[X]]\n```\n",
            # What a page's top status line says of its subject, not of the note (a cold review found each
            # page retired): an application rejected, vendors weighed, a server retired, a repair, a
            # sentence in Chinese.
            "job.md": "# Acme Corp — Backend Engineer\nApplied: 2024-03-01\nStatus: Rejected\n## Interview\n"
            "The onsite asked me to design Kafka partition rebalancing.\n",
            "vendors.md": "# Monitoring vendors\n\nDatadog\nStatus: rejected\n\nGrafana Cloud\nStatus: accepted\n",
            "db-old.md": "# db-old-01\n\nStatus: retired (2023)\n\nIt ran at 10.0.0.5.\n",
            "incident.md": "# Incident 42\n\nStatus: Replaced the disk\n\nThe RAID rebuilt overnight.\n",
            "支付.md": "# 新支付方案\n\n状态：废弃的旧接口已下线\n\n新接口走微信支付。\n",
            # The second review: alone, deprecated and replaced describe the subject as often (an
            # endpoint, an asset); a MADR item further down than the list under the title is a note's;
            # a status line under frontmatter too broken to read is still the page's.
            "endpoint.md": "# GET /v1/users\n\nStatus: Deprecated\n\nThe v1 users endpoint sunsets on 2025-06-01.\n",
            "laptop.md": "# Laptop 42\n\nStatus: Replaced\n\nIts serial is C02XK1.\n",
            "acme.md": "# Acme application\nApplied 2024-01-10 through Dana.\n\n- Status: Rejected\n- Recruiter: Jane\n",
            "Old deploy.md": "# Old deploy\n\nStatus: Deprecated, see [[New deploy]]\n\nDeploy billing with fabric.\n",
            "New deploy.md": "# New deploy\n\nDeploy billing with the release pipeline.\n",
            "Plan.md": "---\ntitle: Plan: v1\n---\n# Plan\n\nStatus: Superseded by [[Plan v2]]\n\nShip in May.\n",
            "Plan v2.md": "# Plan v2\n\nShip in June.\n",
            "旧报销流程.md": "# 旧报销流程\n\n状态：已被 [[新报销流程]] 取代（2024年3月1日）\n\n报销单交给财务部的王姐。\n",
            # The third review: a link that is the status, or names who decided or when, is no replacement.
            "Vendor API.md": "# Vendor API v1\n\nStatus: [[Deprecated]]\n\nThe v1 rate limit is 600 a minute.\n",
            "Deprecated.md": "# Deprecated\n\nA status for pages no longer recommended.\n",
            "Legacy export.md": "# Legacy export\n\nStatus: Deprecated by [[Platform team]]\n\nIt runs at 02:00.\n",
            "Platform team.md": "# Platform team\n\nAnn and Raj.\n",
            "Old plan B.md": "# Old plan B\n\nStatus: Superseded by [[Plan v2]], approved by [[Platform team]]\n",
            # The fourth review: replacements dropped (由 … 替代, a date before "by", a title starting with a
            # status word, in frontmatter too) and a date taken for one after a comma.
            "报销接口.md": "# 报销接口\n\n状态：已废弃，由 [[报销服务v2]] 替代\n\n报销单走 /api/expense。\n",
            "报销服务v2.md": "# 报销服务v2\n\n报销单走飞书。\n",
            "Old queue 2.md": "# Old queue 2\n\nStatus: Superseded on 2024-03-01 by [[Kafka queue]], [[2024-03-01]]\n",
            "Kafka queue.md": "# Kafka queue\n\nJobs go through Kafka.\n",
            "2024-03-01.md": "# 2024-03-01\n\nStandup.\n",
            "Webhooks.md": '---\nstatus: "superseded, see [[Deprecated APIs guide]]"\n---\n# Webhooks\n\nRetries hourly.\n',
            "Deprecated APIs guide.md": "# Deprecated APIs guide\n\nRetries every 10 minutes.\n",
            "新报销流程.md": "# 新报销流程\n\n报销单在飞书上提交，李会计审批。\n",
        },
    )
    receipt = ask(vault, "which queue do jobs go through, RabbitMQ?")
    assert cited_paths(receipt) == ["New queue.md"]
    assert receipt.redirects and receipt.redirects[0].from_path == "Old queue.md"
    assert cited_paths(ask(vault, "how do invoice emails go out")) == ["New mail.md"]
    assert cited_paths(ask(vault, "报销单交给谁")) == ["新报销.md"]
    assert ask(vault, "which CDN serves assets, Fastly?").decision == "refuse"
    for rel in ("Old queue.md", "Old CDN.md", "Old mail.md", "旧报销.md"):
        assert parse_page(rel, (vault / rel).read_text(encoding="utf-8")).replaced, rel
    assert cited_paths(ask(vault, "how do I restart the worker")) == ["New runbook.md"]
    assert cited_paths(ask(vault, "when are invoices exported")) == ["Billing v2.md"]
    for rel in ("New queue.md", "journal.md", "options.md", "sync.md", "howto.md"):
        assert not parse_page(rel, (vault / rel).read_text(encoding="utf-8")).replaced, rel
    for rel in (
        "job.md",
        "vendors.md",
        "db-old.md",
        "incident.md",
        "支付.md",
        "endpoint.md",
        "laptop.md",
        "acme.md",
    ):
        assert not parse_page(rel, (vault / rel).read_text(encoding="utf-8")).replaced, rel
    assert cited_paths(ask(vault, "what is the v1 vendor API rate limit")) == ["Vendor API.md"]
    assert cited_paths(ask(vault, "when does the legacy export run")) == ["Legacy export.md"]
    for rel, new in {
        "Old deploy.md": "[[New deploy]]",
        "Plan.md": "[[Plan v2]]",
        "旧报销流程.md": "[[新报销流程]]",
        "Old plan B.md": "[[Plan v2]]",
        "报销接口.md": "[[报销服务v2]]",
        "Old queue 2.md": "[[Kafka queue]]",
        "Webhooks.md": "[[Deprecated APIs guide]]",
    }.items():
        page = parse_page(rel, (vault / rel).read_text(encoding="utf-8"))
        assert page.replaced and page.superseded_by == [new], rel
    onsite = ask(vault, "what did the Acme onsite ask about Kafka partition rebalancing")
    assert cited_paths(onsite) == ["job.md"]


def test_adr_status_forms_adr_tools_and_nygard_write(tmp_path: Path) -> None:
    """The late commits' review: after an amend and a supersede, adr-tools' Status section reads
    "Amended by [2. …]" then "Superceded by [4. …]", and only the first line was read (the amendment taken
    for the successor); "Superseded by ADR-0005" with no link left the record current; a rejected vendor
    quote nested in a Logseq journal marked the whole journal replaced."""
    vault = make_vault(
        tmp_path,
        {
            "adr/0001-use-postfix.md": "# 1. Use Postfix\n\n## Status\n\nAmended by [2. Retry bounces](0002-retry.md)"
            "\n\nSuperceded by [4. Use SES](0004-ses.md)\n\n## Decision\n\nInvoice emails go out through Postfix.\n",
            "adr/0002-retry.md": "# 2. Retry bounces\n\n## Status\n\nAccepted\n\n## Decision\n\nBounced mail is "
            "retried twice.\n",
            "adr/0004-ses.md": "# 4. Use SES\n\n## Status\n\nAccepted\n\n## Decision\n\nInvoice emails go out "
            "through Amazon SES.\n",
            "adr/0003-use-mysql.md": "# 3. Use MySQL\n\n## Status\n\nSuperseded by ADR-0005\n\n## Decision\n\n"
            "Billing uses MySQL for invoices.\n",
            "journals/2024_05_02.md": "- Standup: the staging database moves on Friday\n- Vendor quote for printers"
            "\n  - Status: rejected\n- The VPN certificate expires on 30 June; Priya renews it\n",
        },
    )
    receipt = ask(vault, "how do invoice emails go out")
    assert cited_paths(receipt) == ["adr/0004-ses.md"]
    assert receipt.redirects and receipt.redirects[0].to_path == "adr/0004-ses.md"
    assert "adr/0003-use-mysql.md" not in cited_paths(
        ask(vault, "which database does billing use for invoices")
    )
    assert parse_page("adr/0003-use-mysql.md", (vault / "adr/0003-use-mysql.md").read_text()).replaced
    assert cited_paths(ask(vault, "who renews the VPN certificate")) == ["journals/2024_05_02.md"]


def test_a_long_logseq_property_does_not_end_the_properties_after_it() -> None:
    page = parse_page("p.md", "summary:: " + "x" * 3000 + "\nstatus:: superseded\n\n- body text\n")
    assert page.replaced
