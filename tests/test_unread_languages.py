"""Questions in a language KRouter cannot read (French, German, Spanish of English notes), as an agent-loop
run on otherlang met them (D115): the refusal says which language to ask in, a right citation through the
agent's translation lists no foreign word as missing, and a place name the translation writes its own way
is no unknown name."""

from __future__ import annotations

import json
from pathlib import Path

from learn_vault import write_vault
from typer.testing import CliRunner

from krouter import Router
from krouter.cli import app

REGION = "Decisions/Hosting region.md"
LIMITS = "Runbooks/API rate limits.md"


def _vault(root: Path) -> Path:
    pages = {
        REGION: (
            "---\ntitle: Hosting region\n---\n# Hosting region\n\n"
            "Production runs in AWS eu-central-1 in Frankfurt since March 2024.\n"
        ),
        LIMITS: (
            "---\ntitle: API rate limits\n---\n# API rate limits\n\n"
            "Customers on the Business plan get 600 requests per minute on the public API.\n"
        ),
        "Decisions/Log retention.md": (
            "---\ntitle: Log retention\n---\n# Log retention\n\nApplication logs are kept 30 days in Loki.\n"
        ),
    }
    return write_vault(root, pages)


def _ask(vault: Path, *args: str) -> dict[str, object]:
    result = CliRunner().invoke(app, ["ask", *args, "--vault", str(vault), "--json"])
    return json.loads(result.stdout)


def _told_to_translate_into_english(vault: Path, question: str) -> bool:
    """True when a refusal of ``question`` tells the agent to ask again in English (or another Latin-script
    language)."""
    hints = _ask(vault, question).get("translate_into", [])
    return "English or another Latin-script language" in [h["language"] for h in hints]  # type: ignore[index,union-attr]


def test_a_refusal_of_a_question_krouter_cannot_read_names_the_notes_language(tmp_path: Path) -> None:
    """The German question was told only that the vault never mentions 'wie', 'lange', …, with an empty
    `translate_into`: its Latin letters read as the notes' own language."""
    vault = _vault(tmp_path)
    german = _ask(vault, "Wie lange bleiben die App-Logs liegen? Das waren doch nur vierzehn Tage, oder?")
    assert german["decision"] == "refuse"
    assert german["translate_into"] == [
        {"language": "English or another Latin-script language", "share": 1.0}
    ], german
    # An English question about things no page names is in the notes' language: no hint.
    english = _ask(vault, "how long do we keep the kafka debezium offsets")
    assert english["decision"] == "refuse" and english["translate_into"] == []
    # Nor once the agent gave a translation.
    translated = _ask(
        vault, "Wie lange bleiben die App-Logs liegen?", "--also", "How long are app logs kept?"
    )
    assert translated["translate_into"] == [] or translated["decision"] == "cite"


def test_a_citation_through_the_translation_lists_no_foreign_word_as_missing(tmp_path: Path) -> None:
    with Router(_vault(tmp_path)) as router:
        receipt = router.ask(
            "¿Cuántas peticiones por minuto le dejamos hacer en la API pública a un cliente con el plan Business?",
            also=["How many requests per minute does a Business plan customer get on the public API?"],
        )
    assert receipt.decision == "cite" and receipt.top is not None and receipt.top.path == LIMITS
    assert "peticiones" not in receipt.top.missing and "cuántas" not in receipt.top.missing


def test_a_place_name_the_translation_writes_its_own_way_is_no_unknown_name(tmp_path: Path) -> None:
    """ "…la région AWS de Francfort" was refused as naming 'francfort', which no page mentions, though
    the translation's Frankfurt is on the page; a name the page lacks in the translation still vetoes."""
    with Router(_vault(tmp_path)) as router:
        french = router.ask(
            "Nos serveurs de prod tournent toujours dans la région AWS de Francfort, non ?",
            also=["Do our production servers still run in the AWS Frankfurt region?"],
        )
        elsewhere = router.ask(
            "Nos serveurs de prod tournent toujours dans la région AWS de Dublin, non ?",
            also=["Do our production servers still run in the AWS Dublin region?"],
        )
    assert french.decision == "cite" and french.top is not None and french.top.path == REGION
    assert elsewhere.decision == "refuse" and "dublin" in elsewhere.reason.lower()


def test_the_second_review_s_cases(tmp_path: Path) -> None:
    """A second cold review: any capitalised word the page holds excused an unknown name ("Platform" for
    Datadog); a Korean question of Korean notes, or English with a Cyrillic name, was read as a language
    KRouter cannot read, and told to translate."""
    vault = write_vault(
        tmp_path / "v",
        {
            "Runbooks/Key rotation.md": "---\ntitle: Key rotation\n---\nThe Platform team rotates the Stripe "
            "and AWS access keys every 90 days.\n",
            "메모/서울 사무실.md": "---\ntitle: 서울 사무실\n---\n서울 사무실 와이파이 비밀번호는 매달 바뀝니다.\n",
            "메모/부산 사무실.md": "---\ntitle: 부산 사무실\n---\n부산 사무실은 3층에 있습니다.\n",
            "Finance/Invoices.md": "---\ntitle: Invoices\n---\nSupplier invoices are paid by SEPA on the 15th.\n",
        },
    )
    with Router(vault) as router:
        datadog = router.ask(
            "¿Cada cuánto rota el equipo de plataforma las claves de Datadog en AWS?",
            also=["How often does the Platform team rotate the AWS access keys?"],
        )
    assert datadog.decision == "refuse" and "datadog" in datadog.reason
    assert _ask(vault, "대구 사무실 와이파이 비밀번호는?").get("translate_into", []) == []
    assert not _told_to_translate_into_english(vault, "When do we pay ООО Ромашка invoices?")


def test_the_third_review_s_cases(tmp_path: Path) -> None:
    """A month the translation writes is no rendering of a place ("March" for Marseille); English with a
    name in Chinese characters is English."""
    vault = write_vault(
        tmp_path / "v",
        {
            "Sales/Lyon.md": "---\ntitle: Lyon sales\n---\nThe Lyon team's Q1 target is 1.2M EUR, reviewed in "
            "March from the Salesforce pipeline reports.\n",
            "Notes.md": "---\ntitle: Notes\n---\nNothing about invoices here.\n",
        },
    )
    with Router(vault) as router:
        marseille = router.ask(
            "Quel est l'objectif Salesforce de l'équipe de Marseille pour mars ?",
            also=["Salesforce target in March"],
        )
    assert marseille.decision == "refuse" and "marseille" in marseille.reason
    assert not _told_to_translate_into_english(vault, "What did 王总 say about the invoice?")


def test_a_terse_question_in_another_language_is_read_as_one(tmp_path: Path) -> None:
    """A short question holds few function words: "Qual é o banco de dados?" with the agent's translation
    was refused as found by the phrasing alone (one mark, 'qual': é, Portuguese "is", too short to be a
    unit, was none), and "Où est le bureau de Hambourg ?" was told to translate into nothing but the
    notes' other language ('le' its one mark: 'où' was not listed). Terse English about things no page
    names, in words the dictionary knows, or naming a place whose name opens with a Portuguese word
    (São, "are") is still English."""
    vault = write_vault(
        tmp_path / "v",
        {
            "Decisions/Primary database.md": "---\ntitle: Primary database\n---\nWe use PostgreSQL 16 for "
            "all application data.\n",
            "Offices/Hamburg.md": "---\ntitle: Hamburg office\n---\nThe Hamburg office is on the third floor "
            "at Speicherstadt 5.\n",
        },
    )
    with Router(vault) as router:
        cited = router.ask("qual é o banco de dados?", also=["which database do we use"])
    assert cited.decision == "cite" and cited.top is not None, cited.reason
    assert cited.top.path == "Decisions/Primary database.md"
    assert _told_to_translate_into_english(vault, "Où est le bureau de Hambourg ?")
    english_questions = ("kafka debezium", "Klarna Sofort refunds?", "hat supplier", "São Paulo distributor?")
    for english in english_questions:
        assert not _told_to_translate_into_english(vault, english), english
