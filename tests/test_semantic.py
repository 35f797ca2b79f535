"""The semantic second opinion (krouter[semantic]): the real local model, through the Router, the CLI and
config.toml. Questions are chosen so that the lexical decision refuses each one at a near miss."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from typer.testing import CliRunner

from krouter import Router, config
from krouter.cli import app
from krouter.routing import semantic
from krouter.routing import vectors as page_vectors
from krouter.routing.receipt import against_floor
from tests.vault_files import write
from tests.waiting import wait_for

if TYPE_CHECKING:
    from krouter.agents.mcp.service import VaultService

PAGES = {
    "Runbooks/Release train.md": "---\ntitle: Release train\n---\n# Release train\n\n"
    "We release to production every Tuesday afternoon, after the full CI pipeline is green.\n"
    "A release needs one approval from the on-call engineer.\n",
    "Runbooks/Payments API timeout.md": "---\ntitle: Payments API timeout\n---\n# Payments API timeout\n\n"
    "Calls to the payments API time out after 30 seconds; the client retries twice with backoff.\n",
    "Decisions/Primary database.md": "---\ntitle: Primary database\n---\n# Primary database\n\n"
    "We run PostgreSQL 16 as the primary database, in eu-west-1, with a hot standby.\n",
    "Runbooks/Search service.md": "---\ntitle: Search service\n---\n# Search service\n\n"
    "The search service runs on OpenSearch 2 with three data nodes. Reindexing happens nightly.\n",
}
# Lexically a near miss (the page says "release" and "Tuesday", not "happen" or "day"); the model agrees.
PARAPHRASE = "when do releases happen, which day?"
# The search page holds no region: the words it lacks name what the question asks for.
UNHELD = "which region hosts the search service?"
# The database page leads on words, but the search page (which reindexes) is closer in meaning.
ELSEWHERE = "when is the database reindexed?"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write(tmp_path / "vault", PAGES)


@pytest.fixture
def on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KROUTER_SEMANTIC", "auto")


@pytest.fixture
def ready(vault: Path, on: None) -> None:
    """Every page embedded, as `krouter index` leaves them: a lookup's own 2 s of embedding may not
    cover even these few pages on a machine under load."""
    with Router(vault, embed_budget_s=0) as router:
        router.refresh()
        router.embed()


@pytest.mark.usefixtures("ready")
def test_a_near_miss_is_cited_when_the_model_agrees_on_the_same_page(vault: Path) -> None:
    with Router(vault) as router:
        receipt = router.ask(PARAPHRASE)
    assert receipt.decision == "cite"
    assert receipt.top is not None and receipt.top.path == "Runbooks/Release train.md"
    found = receipt.evidence.semantic
    assert found is not None and found["agrees"] is True
    # The receipt keeps the lexical numbers (below the floor) and says what let the page through.
    assert receipt.evidence.confidence < receipt.evidence.floor
    assert "semantic second opinion agrees" in receipt.reason
    # The reason's figures are printed as the receipt's line prints them: never "0.55 < floor 0.55".
    confidence, floor = against_floor(receipt.evidence.confidence, receipt.evidence.floor)
    assert f"(confidence {confidence} < floor {floor})" in receipt.reason
    assert json.loads(json.dumps(receipt.to_dict()))["evidence"]["semantic"]["cosine"] == found["cosine"]


def test_without_the_model_the_same_question_is_refused(vault: Path) -> None:
    with Router(vault) as router:
        receipt = router.ask(PARAPHRASE)
    assert receipt.decision == "refuse"
    assert receipt.evidence.semantic is None
    assert router.vectors is None


@pytest.mark.usefixtures("ready")
@pytest.mark.parametrize(
    ("question", "why"), [(UNHELD, "without the words it lacks"), (ELSEWHERE, "closer in meaning")]
)
def test_the_model_cannot_overrule_the_words(vault: Path, question: str, why: str) -> None:
    with Router(vault) as router:
        receipt = router.ask(question)
    assert receipt.decision == "refuse"
    found = receipt.evidence.semantic
    assert found is not None and found["agrees"] is False
    assert why in str(found["why"])
    assert why in receipt.to_text()
    assert receipt.to_text().count(f"{found['cosine']}") <= 1  # the cosine is said once, in the why


@pytest.mark.usefixtures("ready")
def test_a_confident_answer_or_a_far_miss_never_asks_the_model(vault: Path) -> None:
    with Router(vault) as router:
        cited = router.ask("what does the payments API do after a timeout?")
        far = router.ask("how long do search queries wait before timing out?")
    assert cited.decision == "cite" and cited.evidence.semantic is None
    assert far.decision == "refuse" and far.evidence.confidence < semantic.MIN_CONFIDENCE
    assert far.evidence.semantic is None


@pytest.mark.usefixtures("on")
def test_only_changed_pages_are_embedded_and_removed_ones_forgotten(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedded: list[str] = []
    real = page_vectors.MODEL.passages

    def counting(texts: list[str]) -> object:
        embedded.append(texts[0])
        return real(texts)

    monkeypatch.setattr(page_vectors.MODEL, "passages", counting)
    # No time budget: what is embedded must not depend on how loaded the machine is.
    with Router(vault, embed_budget_s=None) as router:
        router.refresh()
        assert sorted(embedded) == [
            "Payments API timeout",
            "Primary database",
            "Release train",
            "Search service",
        ]
        embedded.clear()
        router.refresh()
        assert embedded == []
        page = vault / "Runbooks/Release train.md"
        page.write_text(
            page.read_text(encoding="utf-8") + "Hotfixes may go out on any day.\n", encoding="utf-8"
        )
        (vault / "Runbooks/Search service.md").unlink()
        router.refresh()
        assert embedded == ["Release train"]
        assert router.vectors is not None
        assert router.vectors.embedded(router.index) == (3, 3)
        rows = router.vectors.conn.execute("SELECT COUNT(*) FROM page_vectors").fetchone()[0]
    assert rows == 3


@pytest.mark.usefixtures("on")
def test_replaced_pages_are_not_embedded(vault: Path) -> None:
    write(
        vault,
        {
            "Decisions/Old database.md": "---\ntitle: Old database\nstatus: superseded\n"
            "superseded_by: '[[Primary database]]'\n---\nWe ran MySQL 5.7.\n"
        },
    )
    with Router(vault, embed_budget_s=None) as router:
        router.refresh()
        assert router.vectors is not None
        assert router.vectors.embedded(router.index) == (4, 4)
        assert router.vectors.conn.execute("SELECT COUNT(*) FROM page_vectors").fetchone()[0] == 4


@pytest.mark.usefixtures("on")
def test_the_vectors_file_is_private_and_a_damaged_one_is_started_over(vault: Path) -> None:
    with Router(vault) as router:
        router.refresh()
        assert router.vectors is not None
        path = router.vectors.path
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.write_bytes(b"not a database" * 100)
    with Router(vault) as router:
        # Every page embedded again before asking: a lookup's own slice of embedding is bounded in time,
        # and on a loaded machine it did not reach the page the question needs.
        router.embed()
        assert router.ask(PARAPHRASE).decision == "cite"


@pytest.mark.usefixtures("on")
def test_index_embeds_and_status_reports_it(vault: Path) -> None:
    runner = CliRunner()
    done = runner.invoke(app, ["index", "--vault", str(vault), "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["embedded"] == 4
    shown = runner.invoke(app, ["status", "--vault", str(vault)])
    assert "semantic: on, 4 of 4 current pages embedded" in shown.output


@pytest.mark.usefixtures("on")
def test_status_counts_a_page_another_supersedes_as_replaced(vault: Path) -> None:
    """A first-hour trial: "pages: 12 (2 replaced)" above "11 of 11 current pages embedded": a page
    retired by another page's `supersedes` (not by its own status) was counted as current."""
    (vault / "Decisions" / "Database 2022.md").write_text(
        "---\ntitle: Database 2022\n---\nWe ran MySQL 5.7 then.\n", encoding="utf-8"
    )
    primary = vault / "Decisions" / "Primary database.md"
    primary.write_text(
        primary.read_text(encoding="utf-8").replace(
            "title: Primary database", "title: Primary database\nsupersedes: '[[Database 2022]]'"
        ),
        encoding="utf-8",
    )
    runner = CliRunner()
    assert runner.invoke(app, ["index", "--vault", str(vault)]).exit_code == 0
    shown = runner.invoke(app, ["status", "--vault", str(vault)])
    assert "pages:    5 (1 replaced)" in shown.output
    assert "of 4 current pages embedded" in shown.output


def test_status_says_why_the_second_opinion_is_off(vault: Path) -> None:
    shown = CliRunner().invoke(app, ["status", "--vault", str(vault)])
    assert "semantic: off ($KROUTER_SEMANTIC)" in shown.output


def test_config_sets_semantic_and_rejects_other_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KROUTER_SEMANTIC")
    runner = CliRunner()
    bad = runner.invoke(app, ["config", "set", "semantic", "maybe"])
    assert bad.exit_code == 2 and "semantic is one of: auto, on, off" in bad.output
    assert runner.invoke(app, ["config", "set", "semantic", "Yes"]).exit_code == 0
    assert config.load_config().semantic == "on"
    assert runner.invoke(app, ["config", "set", "semantic", "off"]).exit_code == 0
    assert config.load_config().semantic == "off" and config.semantic_mode() == "off"
    config.config_path().write_text('semantic = "sometimes"\n', encoding="utf-8")
    with pytest.raises(config.ConfigError, match="'semantic' must be one of"):
        config.load_config()
    # Nor does a lookup run on the defaults over it (tests/test_config_errors.py says why).
    with pytest.raises(config.ConfigError, match="'semantic' must be one of"):
        config.semantic_mode()


@pytest.mark.usefixtures("on")
def test_a_very_long_page_is_embedded_by_its_first_passages(vault: Path) -> None:
    items = "".join(f"- item {i}\n" for i in range(page_vectors.MAX_PAGE_PASSAGES + 40))
    write(vault, {"Inputs/Long list.md": f"---\ntitle: Long list\n---\n{items}"})
    with Router(vault, embed_budget_s=0) as router:
        router.refresh()
        router.embed()  # all of it, as krouter index does: a lookup's 2 s may not cover 256 passages
        assert router.vectors is not None
        digest, title = router.index.conn.execute(
            "SELECT hash, title FROM pages WHERE path='Inputs/Long list.md'"
        ).fetchone()
        vecs = router.vectors.of(page_vectors.vector_key(digest, title))
    assert vecs is not None and vecs.shape == (1 + page_vectors.MAX_PAGE_PASSAGES, page_vectors.DIM)


@pytest.mark.usefixtures("ready")
def test_with_one_candidate_asked_for_the_page_is_still_compared_with_the_others(vault: Path) -> None:
    with Router(vault) as router:
        elsewhere = router.ask(ELSEWHERE, k=1)
        paraphrase = router.ask(PARAPHRASE, k=1)
    assert elsewhere.decision == "refuse"
    assert elsewhere.evidence.semantic is not None and "closer in meaning" in str(
        elsewhere.evidence.semantic["why"]
    )
    assert paraphrase.decision == "cite" and len(paraphrase.candidates) == 1


@pytest.mark.usefixtures("on")
def test_no_opinion_while_a_close_page_has_no_vectors(vault: Path) -> None:
    # No embedding during the lookup: its time-bounded slice could embed the page again first, or not.
    with Router(vault, embed_budget_s=0) as router:
        router.refresh()
        assert router.vectors is not None
        digest, title = router.index.conn.execute(
            "SELECT hash, title FROM pages WHERE path='Runbooks/Search service.md'"
        ).fetchone()
        router.vectors.conn.execute(
            "DELETE FROM page_vectors WHERE key=?", (page_vectors.vector_key(digest, title),)
        )
        router.vectors._kept.clear()
        receipt = router.decide(ELSEWHERE)
    assert receipt.decision == "refuse"
    assert receipt.evidence.semantic is not None and "not embedded yet" in str(
        receipt.evidence.semantic["why"]
    )


@pytest.mark.usefixtures("ready")
def test_a_lacking_word_is_struck_out_only_where_it_stands_whole(vault: Path) -> None:
    # "data" and "nodes" are the search page's; striking "data" out of "database" once let the
    # database page through, as if the words it lacks fitted it.
    with Router(vault) as router:
        receipt = router.ask("how many data nodes does the primary database have?")
    assert receipt.decision == "refuse"
    assert semantic._without("the data nodes of the primary database", ["data", "nodes"]) == (
        "the of the primary database",
        [],
    )
    assert semantic._without("值班最少要几个人", ["最少"]) == ("值班 要几个人", [])
    # Full-width letters (a Chinese input method's) are the letters the index read.
    fullwidth = "how many ｄａｔａ ｎｏｄｅｓ does the primary database have?"
    assert semantic._without(fullwidth, ["data", "nodes"]) == ("how many does the primary database have?", [])
    with Router(vault) as router:
        assert router.ask(fullwidth).decision == "refuse"
        # A lacking word that cannot be found in the question as written is not taken as struck out.
        assert semantic._without("we ship from the US", ["usa"]) == ("we ship from the US", ["usa"])


@pytest.mark.usefixtures("on")
def test_a_renamed_untitled_page_is_embedded_again(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(vault, {"Notes/Release calendar.md": "Releases follow the calendar in the shared drive.\n"})
    embedded: list[str] = []
    real = page_vectors.MODEL.passages

    def counting(texts: list[str]) -> object:
        embedded.append(texts[0])
        return real(texts)

    with Router(vault) as router:
        router.refresh()
        # Every page embedded first, whatever the refresh's time budget let it do on a loaded machine
        # (the suite failed once with other pages still waiting, embedded by the second refresh).
        router.embed()
        monkeypatch.setattr(page_vectors.MODEL, "passages", counting)
        (vault / "Notes/Release calendar.md").rename(vault / "Notes/Billing calendar.md")
        router.refresh()
    assert embedded == ["Billing calendar"]


@pytest.mark.usefixtures("on")
def test_embedding_stops_within_a_long_page_when_its_time_is_up(vault: Path) -> None:
    items = "".join(f"- step {i} of the long procedure\n" for i in range(120))
    write(vault, {"Runbooks/Long procedure.md": f"---\ntitle: Long procedure\n---\n{items}"})
    with Router(vault, embed_budget_s=0) as router:
        router.refresh()
        assert router.vectors is not None
        assert router.vectors.embedded(router.index) == (0, 5)
        # Over budget after the first batch: the page is left whole for later, not stored in part.
        assert router.embed(budget_s=1e-6) == 0
        assert router.vectors.conn.execute("SELECT COUNT(*) FROM page_vectors").fetchone()[0] == 0
        assert router.embed() == 5


@pytest.mark.usefixtures("on")
def test_a_failing_second_opinion_leaves_the_lookups_working(vault: Path) -> None:
    with Router(vault) as router:
        assert router.vectors is not None
        path = router.vectors.path
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.mkdir()  # not a file SQLite can open
    with Router(vault) as router:
        assert router.vectors is None
        assert router.ask("what does the payments API do after a timeout?").decision == "cite"
        assert router.ask(PARAPHRASE).decision == "refuse"
        assert "failed, off for now" in str(router.status()["semantic"]["why"])


def test_an_unknown_environment_value_is_said_and_ignored(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("KROUTER_SEMANTIC", "sometimes")
    assert config.semantic_mode() == "auto"
    assert "$KROUTER_SEMANTIC='sometimes' is not one of auto, on, off: ignored" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("value", "mode"), [("false", "off"), ("0", "off"), ("no", "off"), ("yes", "on"), ("auto", "auto")]
)
def test_the_environment_switch_takes_the_usual_spellings(
    monkeypatch: pytest.MonkeyPatch, value: str, mode: str
) -> None:
    monkeypatch.setenv("KROUTER_SEMANTIC", value)
    assert config.semantic_mode() == mode


@pytest.mark.usefixtures("ready")
def test_the_learner_checks_what_the_words_decide(vault: Path) -> None:
    with Router(vault) as router:
        assert router.decide(PARAPHRASE).decision == "cite"
        assert router.decide(PARAPHRASE, lexical_only=True).decision == "refuse"


@pytest.mark.usefixtures("ready")
def test_the_agent_is_told_when_the_model_cited(vault: Path) -> None:
    from krouter.agents.mcp.replies import ask_result
    from krouter.agents.mcp.schemas import AskReply

    with Router(vault) as router:
        by_model = ask_result(router, PARAPHRASE, 5)
        by_words = ask_result(router, "what does the payments API do after a timeout?", 5)
    assert by_model["semantic_cited"] is True and by_model["decision"] == "cite"
    assert by_words["semantic_cited"] is False
    AskReply.model_validate(by_model)


@pytest.mark.usefixtures("on")
def test_a_vectors_file_of_another_layout_is_checked_page_by_page(vault: Path) -> None:
    with Router(vault) as router:
        router.refresh()
        assert router.vectors is not None
        # What the first layout left: its "all embedded" mark, and none of this layout's rows.
        router.vectors.conn.execute(
            "INSERT OR REPLACE INTO meta VALUES ('synced', ?)",
            (f"{router.index.generation()} {page_vectors.MODEL_ID}",),
        )
        router.vectors.conn.execute("DELETE FROM page_vectors")
        assert router.embed(budget_s=60) == 4


@pytest.mark.usefixtures("on")
def test_a_receipt_waiting_for_vectors_prints(vault: Path) -> None:
    with Router(vault, embed_budget_s=0) as router:
        receipt = router.ask(ELSEWHERE)
    assert receipt.evidence.semantic is not None and "not embedded yet" in str(
        receipt.evidence.semantic["why"]
    )
    assert "not embedded yet" in receipt.to_text()


@pytest.mark.usefixtures("on")
def test_a_big_page_is_left_to_krouter_index_not_to_every_lookup(vault: Path) -> None:
    items = "".join(f"- step {i}: check the release checklist item number {i}\n" for i in range(400))
    assert len(items) > page_vectors.BUDGETED_PAGE_BYTES
    write(vault, {"Runbooks/Big checklist.md": f"---\ntitle: Big checklist\n---\n{items}"})
    # A budget no loaded machine runs out of before the four small pages: what is measured is that the
    # big page is left whatever the budget (with the lookup's 2 s, a busy run embedded two).
    with Router(vault, embed_budget_s=60) as router:
        router.refresh()
        assert router.vectors is not None
        assert router.vectors.embedded(router.index) == (4, 5)
        assert router.embed(budget_s=60) == 0
        assert router.embed() == 1


@pytest.mark.usefixtures("ready")
def test_a_phrasing_citing_another_page_outweighs_the_model(vault: Path) -> None:
    with Router(vault) as router:
        alone = router.decide("how many data nodes does the search service have?")
        receipt = router.decide(PARAPHRASE, also=["how many data nodes does the search service have?"])
    assert (
        alone.decision == "cite" and alone.top is not None and alone.top.path == "Runbooks/Search service.md"
    )
    assert receipt.decision == "refuse"
    assert "do not agree on a page" in receipt.reason


@pytest.mark.usefixtures("ready")
def test_questions_the_model_cited_stay_weak_for_the_learner(vault: Path) -> None:
    from krouter.learner.weak_log import is_weak as _is_weak
    from krouter.routing import querylog

    with Router(vault) as router:
        by_model = querylog.entry(router.decide(PARAPHRASE), vault)
        by_words = querylog.entry(router.decide("what does the payments API do after a timeout?"), vault)
    assert by_model["semantic_cited"] is True and _is_weak(by_model)
    assert by_words["semantic_cited"] is False


@pytest.mark.usefixtures("ready")
def test_the_recall_hook_answers_from_the_words_alone(vault: Path) -> None:
    from krouter.agents.recall import recall

    with Router(vault) as router:
        router.refresh()
        assert router.decide(PARAPHRASE).decision == "cite"
    assert recall(PARAPHRASE, vault) == ""


@pytest.mark.usefixtures("ready")
def test_the_agents_status_says_how_many_pages_are_embedded(vault: Path) -> None:
    from krouter.agents.mcp.replies import status_result, status_summary
    from krouter.agents.mcp.schemas import StatusReply

    with Router(vault) as router:
        router.refresh()
        report = status_result(router)
    assert report["semantic"]["active"] is True
    assert "semantic second opinion: on, 4 of 4 current pages embedded" in status_summary(report)
    StatusReply.model_validate(report)


def one_page_per_slice(monkeypatch: pytest.MonkeyPatch) -> None:
    """A budgeted sync embeds one page and is then out of time, as on a slow machine with a big vault:
    what is left is for the next slice."""
    done = [0]
    real_sync, real_embed = page_vectors.Vectors.sync, page_vectors._embed

    def sync(self: page_vectors.Vectors, index: object, budget_s: float | None = None, **kw: bool) -> int:
        done[0] = 0
        return real_sync(self, index, budget_s, **kw)  # type: ignore[arg-type]

    def embed(texts: list[str], start: float, budget_s: float | None, model: object) -> object:
        out = real_embed(texts, start, None, model)  # type: ignore[arg-type]
        done[0] += 1
        return out

    monkeypatch.setattr(page_vectors.Vectors, "sync", sync)
    monkeypatch.setattr(page_vectors, "_embed", embed)
    monkeypatch.setattr(page_vectors, "_over", lambda start, budget_s: budget_s is not None and done[0] >= 1)


def serve(vault: Path, debounce: float = 0.05) -> VaultService:
    from krouter.agents.mcp.service import VaultService

    service = VaultService(vault, debounce=debounce, rescan=3600)
    service.start()
    return service


def embedded(service: VaultService) -> tuple[int, int]:
    """(pages with vectors, current pages), read on the server's worker as a call would."""
    import asyncio

    return asyncio.run(service.run(lambda r: r.vectors.embedded(r.index)))  # type: ignore[union-attr]


ROLLBACK = {"Runbooks/Rollback.md": "---\ntitle: Rollback\n---\nRoll back with the previous tag.\n"}


@pytest.mark.usefixtures("on")
def test_the_mcp_server_embeds_the_vault_while_it_idles(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one_page_per_slice(monkeypatch)
    service = serve(vault)
    try:
        assert service.watching
        # No `krouter index` and no question asked: the refresher embeds a slice at a time.
        wait_for(lambda: embedded(service) == (4, 4))
        # A page written while the server runs gets its vectors the same way.
        write(vault, ROLLBACK)
        wait_for(lambda: embedded(service) == (5, 5))
    finally:
        service.close()


@pytest.mark.usefixtures("on")
def test_the_mcp_server_embeds_a_page_another_process_indexed_first(vault: Path) -> None:
    service = serve(vault, debounce=1.0)
    try:
        wait_for(lambda: embedded(service) == (4, 4) and not service.embedding)
        # The learner, `learn --accept` and the recall hook index what they write at once, without
        # embedding: the server's own refresh then finds nothing changed.
        write(vault, ROLLBACK)
        # Saved a minute ago: no refresh reads it again as possibly still being written (racy).
        page = vault / "Runbooks/Rollback.md"
        os.utime(page, (page.stat().st_atime - 60, page.stat().st_mtime - 60))
        with Router(vault, embed_budget_s=0) as other:
            other.refresh()
        wait_for(lambda: embedded(service) == (5, 5))
    finally:
        service.close()


@pytest.mark.usefixtures("on")
def test_mcp_calls_do_not_embed_while_the_refresher_runs(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = serve(vault)
    calls: list[object] = []
    monkeypatch.setattr(service.router, "embed", lambda *a, **k: calls.append((a, k)) or 0)
    try:
        wait_for(lambda: embedded(service) == (4, 4))
        write(vault, ROLLBACK)
        # A call right after the edit indexes it (the watcher reported it) and answers; the refresher,
        # not the call, embeds the page.
        wait_for(lambda: embedded(service) == (5, 5))
        assert calls == []
    finally:
        service.close()


@pytest.mark.usefixtures("on")
def test_two_servers_on_one_vault_embed_each_page_once_and_either_carries_on(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    titles: list[str] = []
    real_embed = page_vectors._embed

    def embed(texts: list[str], start: float, budget_s: float | None, model: object) -> object:
        titles.append(texts[0])
        return real_embed(texts, start, budget_s, model)  # type: ignore[arg-type]

    monkeypatch.setattr(page_vectors, "_embed", embed)
    first, second = serve(vault), serve(vault)
    try:
        wait_for(lambda: embedded(second) == (4, 4) and not first.embedding and not second.embedding)
        # One embedder at a time (the embedding lock): no page embedded twice.
        assert sorted(titles) == sorted(set(titles)) and len(titles) == 4, titles
        first.close()
        # The one left embeds what comes next, whichever server held the watch lease.
        write(vault, ROLLBACK)
        wait_for(lambda: embedded(second) == (5, 5))
    finally:
        second.close()
        first.close()


@pytest.mark.usefixtures("on")
def test_an_embedder_waits_for_another_one(vault: Path) -> None:
    with Router(vault, embed_budget_s=0) as router:
        router.refresh()
        assert router.vectors is not None
        with router.vectors.embedding_lock(wait=False) as held:
            assert held
            # A server's slice does not embed what `krouter index` (or another server) is embedding.
            assert router.embed(budget_s=60, background=True) is None
            assert router.vectors.embedded(router.index) == (0, 4)
        assert router.embed(budget_s=60, background=True) == 4


@pytest.mark.usefixtures("on")
def test_a_page_of_many_title_led_passages_is_left_to_krouter_index(vault: Path) -> None:
    title = "Quarterly supplier review checklist for the packaging and shipping of every product line " * 2
    items = "".join(f"- item {i}\n" for i in range(200))
    write(vault, {"Runbooks/Checklist.md": f"---\ntitle: {title.strip()}\n---\n{items}"})
    with Router(vault, embed_budget_s=0) as router:
        router.refresh()
        assert (vault / "Runbooks/Checklist.md").stat().st_size < page_vectors.BUDGETED_PAGE_BYTES
        # Small on disk, but its 200 passages each led by the long title are a minute of embedding.
        assert router.embed(budget_s=60) == 4
        assert router.embed(budget_s=60, background=True) == 0
        assert router.embed() == 1


@pytest.mark.usefixtures("on")
def test_krouter_watch_embeds_the_vault_while_it_idles(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from krouter.index.store import Index
    from tests.waiting import start_watch_loop

    one_page_per_slice(monkeypatch)
    stop = threading.Event()
    # The index exists before two threads open it (two creating it at once: IndexBusy).
    with Router(vault, embed_budget_s=0) as router:
        router.refresh()
    thread, errors = start_watch_loop(vault, stop, debounce=0.05)
    index = Index(vault)
    vectors = page_vectors.Vectors(index.path)
    try:
        wait_for(lambda: bool(errors) or vectors.embedded(index) == (4, 4))
        assert not errors, errors
    finally:
        stop.set()
        thread.join(30)
        vectors.close()
        index.close()
    assert not thread.is_alive() and not errors, errors


@pytest.mark.usefixtures("on")
def test_a_background_slice_finishes_the_page_it_starts(vault: Path) -> None:
    with Router(vault, embed_budget_s=0) as router:
        router.refresh()
        router.embed()
    items = "".join(f"- step {i} of the long procedure\n" for i in range(120))
    write(vault, {"Runbooks/Long procedure.md": f"---\ntitle: Long procedure\n---\n{items}"})
    with Router(vault, embed_budget_s=0) as router:
        router.refresh()
        assert router.vectors is not None
        # Out of time before it starts, or after its first batch: a lookup's sync leaves the long page
        # for later, a background slice embeds it whole, so a slow machine still gets through it.
        assert router.embed(budget_s=1e-6) == 0
        assert router.embed(budget_s=1e-6, background=True) == 1
        assert router.vectors.embedded(router.index) == (5, 5)


@pytest.mark.usefixtures("on")
def test_background_embedding_leaves_the_lookups_model_free(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    used: list[str] = []
    for name in ("MODEL", "BACKGROUND"):
        instance = getattr(page_vectors, name)
        real = instance.passages

        def passages(texts: list[str], real: object = real, name: str = name) -> object:
            used.append(name)
            return real(texts)  # type: ignore[operator]

        monkeypatch.setattr(instance, "passages", passages)
    with Router(vault, embed_budget_s=0) as router:
        router.refresh()
        assert router.embed(background=True) == 4
    # A question's embedding never queues behind a batch of passages (seconds) on the same instance.
    assert used and set(used) == {"BACKGROUND"}


def test_turning_the_option_off_stops_a_servers_background_embedding(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # On through config.toml (its default), not the environment, which a running server would not see change.
    monkeypatch.delenv("KROUTER_SEMANTIC", raising=False)
    write(
        vault, {f"Notes/Note {i}.md": f"---\ntitle: Note {i}\n---\nThe note number {i}.\n" for i in range(12)}
    )
    one_page_per_slice(monkeypatch)
    with Router(vault, embed_budget_s=0) as router:
        router.refresh()  # indexed, nothing embedded
    service = serve(vault)
    try:
        # The server's start embeds one page, its background slices the next ones.
        wait_for(lambda: embedded(service)[0] >= 2)
        config.config_path().write_text('semantic = "off"\n', encoding="utf-8")
        wait_for(lambda: not service.embedding)
        assert embedded(service)[0] < 16
    finally:
        service.close()


@pytest.mark.usefixtures("on")
def test_a_page_indexed_while_a_slice_runs_is_embedded_next(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    in_slice, gate = threading.Event(), threading.Event()
    armed = [False]
    real_sync = page_vectors.Vectors.sync

    def sync(self: page_vectors.Vectors, index: object, budget_s: float | None = None, **kw: bool) -> object:
        done = real_sync(self, index, budget_s, **kw)  # type: ignore[arg-type]
        if kw.get("background") and armed[0]:
            # The slice read the pages before the refresh below; it ends only after it.
            armed[0] = False
            in_slice.set()
            gate.wait(30)
        return done

    monkeypatch.setattr(page_vectors.Vectors, "sync", sync)
    service = serve(vault, debounce=5.0)  # the call, not the refresher, takes each change
    try:
        wait_for(lambda: embedded(service) == (4, 4) and not service.embedding)
        armed[0] = True
        (vault / "Runbooks/Search service.md").unlink()
        wait_for(lambda: embedded(service) == (3, 3) and in_slice.is_set())
        # While that slice (which finds nothing to embed) is still running, a call indexes a new page.
        write(vault, ROLLBACK)
        wait_for(lambda: embedded(service)[1] == 4)
        gate.set()
        wait_for(lambda: embedded(service) == (4, 4))
    finally:
        gate.set()
        service.close()


@pytest.mark.usefixtures("on")
def test_background_embedding_recovers_from_a_failed_slice(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fails = [1]
    real = page_vectors.BACKGROUND.passages

    def passages(texts: list[str]) -> object:
        if fails[0]:
            fails[0] -= 1
            raise RuntimeError("the model stumbled")
        return real(texts)

    monkeypatch.setattr(page_vectors.BACKGROUND, "passages", passages)
    service = serve(vault)
    try:
        wait_for(lambda: not service.embedding)
        assert fails == [0] and embedded(service) == (0, 4)
        # The failure turned off the embedding Router only: lookups keep the option, and the next
        # refresh (an edit) has a new one embed everything.
        assert service.router.vectors is not None
        write(vault, ROLLBACK)
        wait_for(lambda: embedded(service) == (5, 5))
    finally:
        service.close()


def option_checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every check of whether the option is on (each background slice makes one), with the error it
    raised ("" for none); a slice held back by a broken config.toml tries again at once, not every 2 s."""
    from krouter.ops import background_embedding

    monkeypatch.setattr(background_embedding, "EMBED_BUSY_RETRY_S", 0.01)
    seen: list[str] = []
    real = semantic.wanted

    def wanted() -> bool:
        try:
            on = real()
        except config.ConfigError as exc:
            seen.append(str(exc))
            raise
        seen.append("")
        return on

    monkeypatch.setattr(semantic, "wanted", wanted)
    return seen


def twelve_notes(vault: Path) -> None:
    """Twelve more pages, indexed and not embedded: a server embeds them a slice at a time."""
    write(
        vault, {f"Notes/Note {i}.md": f"---\ntitle: Note {i}\n---\nThe note number {i}.\n" for i in range(12)}
    )
    with Router(vault, embed_budget_s=0) as router:
        router.refresh()


def test_a_broken_config_pauses_the_mcp_servers_embedding_until_it_is_fixed(
    vault: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # On through config.toml, which a slice reads: the environment would answer without it.
    monkeypatch.delenv("KROUTER_SEMANTIC", raising=False)
    caplog.set_level("INFO", logger="krouter.embedding")
    twelve_notes(vault)
    one_page_per_slice(monkeypatch)
    checks = option_checks(monkeypatch)
    service = serve(vault)
    try:
        wait_for(lambda: embedded(service)[0] >= 2)
        config.config_path().write_text('semantic = "of"\n', encoding="utf-8")
        wait_for(lambda: sum(bool(c) for c in checks) >= 5)
        # The refresher thread lives on (it died of the ConfigError), and said what is wrong once.
        assert service.watching
        said = [r.getMessage() for r in caplog.records if "not embedding pages" in r.getMessage()]
        assert len(said) == 1 and "'semantic'" in said[0], said
        config.config_path().write_text('semantic = "auto"\n', encoding="utf-8")
        wait_for(lambda: embedded(service) == (16, 16))
        assert service.watching
    finally:
        service.close()


def test_a_broken_config_pauses_krouter_watchs_embedding_until_it_is_fixed(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from krouter.index.store import Index
    from tests.waiting import start_watch_loop

    monkeypatch.delenv("KROUTER_SEMANTIC", raising=False)
    twelve_notes(vault)
    one_page_per_slice(monkeypatch)
    checks = option_checks(monkeypatch)
    stop = threading.Event()
    thread, errors = start_watch_loop(vault, stop, debounce=0.05)
    index = Index(vault)
    vectors = page_vectors.Vectors(index.path)
    try:
        wait_for(lambda: bool(errors) or vectors.embedded(index)[0] >= 2)
        config.config_path().write_text('semantic = "of"\n', encoding="utf-8")
        wait_for(lambda: bool(errors) or sum(bool(c) for c in checks) >= 5)
        # The watcher goes on (it exited with the ConfigError).
        assert thread.is_alive() and not errors, errors
        config.config_path().unlink()
        wait_for(lambda: bool(errors) or vectors.embedded(index) == (16, 16))
        assert thread.is_alive() and not errors, errors
    finally:
        stop.set()
        thread.join(30)
        vectors.close()
        index.close()
    assert not errors, errors
