"""The nightly learner keeps a trigger only when its question, asked again, cites the page (as teach does).

A pick can pass every check before writing and still not make its question cite the page: here a
plausible-but-wrong pick (the deploys page, which mentions signed release tags) of a question the
release-tags page answers. Written, the trigger only brings the deploys page closer: the question still
cites the release-tags page. The learner takes that one trigger back, byte for byte, and says so;
the run's other triggers stay, and ``krouter learn --undo`` and ``--list`` stay right for both.

The model is called through the real anthropic client on a mocked transport, as in ``test_learn``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from learn_vault import CODE_REVIEW, GOOD_QUOTE, MERGE_Q, PAGES, log_weak, message, snapshot, write_vault
from typer.testing import CliRunner

from krouter.cli import app
from krouter.learner import journal as learn_journal
from krouter.learner import nightly, trigger_writes
from krouter.learner import undo as learn_undo
from krouter.learner.lanes import ApiLane
from krouter.learner.report import LEARNED, REJECTED, LearnReport
from krouter.routing.router import Router
from krouter.vault.page import parse_page

pytestmark = pytest.mark.usefixtures("teaching_writes_at_once")

try:
    import httpx2 as httpx
except ImportError:  # anthropic < 2 runs on httpx
    import httpx  # type: ignore[no-redef]

TAGS = "Release tags.md"
DEPLOYS = "Deploys.md"
DEPLOYS_QUOTE = "A deploy goes out only after the release tag is signed and the build is green."
TAG_Q = "who signs a release tag"
DEPLOY_Q = "when does a deploy go out"
CONFIRM_PAGES = {
    TAGS: "---\ntitle: Release tags\n---\n# Release tags\n\nEvery release tag is signed by the on-call engineer.\n",
    DEPLOYS: f"---\ntitle: Deploys\n---\n# Deploys\n\n{DEPLOYS_QUOTE}\n",
}


@pytest.fixture(autouse=True)
def query_log_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KROUTER_NO_QUERY_LOG", raising=False)
    monkeypatch.delenv("KROUTER_ALLOW_UNCONFINED", raising=False)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_vault(tmp_path / "vault", {**PAGES, **CONFIRM_PAGES})


def picking(picks: dict[str, tuple[str, str]]) -> ApiLane:
    """A mocked model that answers each question it is sent with ``picks[question]`` (page, quote)."""

    def handler(request: httpx.Request) -> httpx.Response:
        prompt = json.loads(request.content)["messages"][0]["content"]
        qs = json.loads(prompt.split("QUESTIONS (JSON):\n", 1)[1].split("\n\nPAGES:", 1)[0])
        out = [
            {"q": item["q"], "page": picks[item["question"]][0], "quote": picks[item["question"]][1]}
            for item in qs
        ]
        return httpx.Response(200, json=message(json.dumps({"answers": out})))

    client = httpx.Client(transport=httpx.MockTransport(handler))
    return ApiLane("claude-test", api_key="test-key", http_client=client, max_retries=0, timeout=5)


def learn(vault: Path, picks: dict[str, tuple[str, str]]) -> LearnReport:
    return nightly.learn(vault, picking(picks))


def cites(vault: Path, question: str) -> str | None:
    with Router(vault) as router:
        r = router.decide(question)
    return r.top.path if r.decision == "cite" and r.top is not None else None


def listed(vault: Path) -> list[tuple[str, str, bool, bool]]:
    res = CliRunner().invoke(app, ["learn", "--list", "--json", "--vault", str(vault)])
    assert res.exit_code == 0, res.output
    return [(r["page"], r["trigger"], r["undone"], r["taken_back"]) for r in json.loads(res.output)]


def test_a_pick_that_would_not_make_its_question_cite_is_written_and_taken_back(vault: Path) -> None:
    assert cites(vault, TAG_Q) == TAGS
    log_weak(vault, TAG_Q)
    before = snapshot(vault)
    report = learn(vault, {TAG_Q: (DEPLOYS, DEPLOYS_QUOTE)})
    [outcome] = report.outcomes
    assert outcome.status == REJECTED and outcome.page == DEPLOYS, report.to_text()
    assert outcome.reason.startswith(f"written and taken back: KRouter would still not cite {DEPLOYS}")
    # The decision's own reason is named: the release-tags page still wins.
    assert f"({TAGS} holds" in outcome.reason, outcome.reason
    assert snapshot(vault) == before
    assert cites(vault, TAG_Q) == TAGS
    # Journaled: written, then taken back; listed as such, and nothing left for --undo to do.
    [entry] = learn_journal.journal_entries(report.run_id)
    assert entry["page"] == DEPLOYS and entry["taken_back"] is True
    assert listed(vault) == [(DEPLOYS, TAG_Q, True, True)]
    res = CliRunner().invoke(app, ["learn", "--list", "--vault", str(vault)])
    assert res.output.rstrip().endswith("(taken back)"), res.output
    res = CliRunner().invoke(app, ["learn", "--undo", report.run_id])
    assert res.exit_code == 0, res.output
    assert res.output.startswith(f"undo of run {report.run_id}: 0 triggers removed, 1 left as it is")
    assert "taken back when it was written" in res.output
    assert snapshot(vault) == before


def test_a_run_with_a_kept_and_a_taken_back_trigger_undoes_cleanly(vault: Path) -> None:
    log_weak(vault, MERGE_Q, TAG_Q)
    before = snapshot(vault)
    report = learn(vault, {MERGE_Q: (CODE_REVIEW, GOOD_QUOTE), TAG_Q: (DEPLOYS, DEPLOYS_QUOTE)})
    assert [(o.question, o.status) for o in report.outcomes] == [(MERGE_Q, LEARNED), (TAG_Q, REJECTED)], (
        report.to_text()
    )
    after = snapshot(vault)
    assert [k for k in after if after[k] != before[k]] == [CODE_REVIEW]
    assert cites(vault, MERGE_Q) == CODE_REVIEW
    assert listed(vault) == [(CODE_REVIEW, MERGE_Q, False, False), (DEPLOYS, TAG_Q, True, True)]
    res = CliRunner().invoke(app, ["learn", "--undo", report.run_id])
    assert res.exit_code == 0, res.output
    assert res.output.startswith(
        f"undo of run {report.run_id}: 1 trigger removed (page restored byte for byte)"
    )
    assert snapshot(vault) == before
    assert listed(vault) == [(CODE_REVIEW, MERGE_Q, True, False), (DEPLOYS, TAG_Q, True, True)]


def test_taking_back_one_trigger_keeps_the_one_the_run_wrote_before_it_on_the_same_page(vault: Path) -> None:
    """The take-back is of that one trigger, not the run's page bytes: the page keeps the trigger kept
    earlier in the run, and the rest of the run sees the index as it is after each write."""
    log_weak(vault, DEPLOY_Q, TAG_Q)
    before = snapshot(vault)
    report = learn(vault, {DEPLOY_Q: (DEPLOYS, DEPLOYS_QUOTE), TAG_Q: (DEPLOYS, DEPLOYS_QUOTE)})
    assert [o.status for o in report.outcomes] == [LEARNED, REJECTED], report.to_text()
    text = (vault / DEPLOYS).read_text(encoding="utf-8")
    assert parse_page(DEPLOYS, text).triggers == [DEPLOY_Q]
    assert cites(vault, TAG_Q) == TAGS and cites(vault, DEPLOY_Q) == DEPLOYS
    assert learn_undo.undo(report.run_id).count("restored") == 1
    assert snapshot(vault) == before


def test_a_trigger_that_cannot_be_taken_back_cleanly_stays_and_the_outcome_says_so(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The owner wrote a note on the trigger's line between the write and the take-back: it is no
    longer the item the learner's edit can take out, so it stays, and is said."""
    log_weak(vault, TAG_Q)
    write = trigger_writes.write_trigger
    page = vault / DEPLOYS

    def write_then_edit(*args: object, **kwargs: object) -> tuple[str, str]:
        out = write(*args, **kwargs)  # type: ignore[arg-type]
        text = page.read_text(encoding="utf-8")
        block = f"triggers:\n  - {json.dumps(TAG_Q)}\n"
        assert block in text
        mine = f"triggers:\n  - {json.dumps(TAG_Q)}  # mine now\n"
        page.write_text(text.replace(block, mine) + "Saved.\n", encoding="utf-8")
        return out

    monkeypatch.setattr(trigger_writes, "write_trigger", write_then_edit)
    report = learn(vault, {TAG_Q: (DEPLOYS, DEPLOYS_QUOTE)})
    [outcome] = report.outcomes
    assert outcome.status == LEARNED, report.to_text()
    assert f"would still not cite {DEPLOYS}" in outcome.reason
    assert (
        f"the page changed meanwhile, so the trigger stays: krouter learn --undo {report.run_id}"
        in outcome.reason
    )
    assert TAG_Q in parse_page(DEPLOYS, page.read_text(encoding="utf-8")).triggers
    assert listed(vault) == [(DEPLOYS, TAG_Q, False, False)]


def test_a_dry_run_proposes_without_writing_or_asking_again(vault: Path) -> None:
    log_weak(vault, TAG_Q)
    before = snapshot(vault)
    report = nightly.learn(vault, picking({TAG_Q: (DEPLOYS, DEPLOYS_QUOTE)}), dry_run=True)
    assert [o.status for o in report.outcomes] == ["proposed"], report.to_text()
    assert snapshot(vault) == before
    assert learn_journal.journal_entries() == []


def test_a_trigger_that_could_not_be_asked_again_is_taken_back(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index busy with another writer when the question is asked again: the run stops with the error,
    and the trigger nobody checked is not left on the page (a later run would skip it as taught)."""
    from krouter.errors import IndexBusy

    log_weak(vault, MERGE_Q)
    before = snapshot(vault)
    real_write, real_refresh = trigger_writes.write_trigger, Router.refresh
    written: list[bool] = []

    def write_and_note(*args: object, **kwargs: object) -> tuple[str, str]:
        written.append(True)
        return real_write(*args, **kwargs)  # type: ignore[arg-type]

    def busy_once_written(self: Router, *args: object, **kwargs: object) -> object:
        if written:
            raise IndexBusy("another process is writing the index")
        return real_refresh(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(trigger_writes, "write_trigger", write_and_note)
    monkeypatch.setattr(Router, "refresh", busy_once_written)
    with pytest.raises(IndexBusy):
        learn(vault, {MERGE_Q: (CODE_REVIEW, GOOD_QUOTE)})
    monkeypatch.setattr(Router, "refresh", real_refresh)
    assert snapshot(vault) == before
    [(page, _trigger, _undone, taken_back)] = listed(vault)
    assert (page, taken_back) == (CODE_REVIEW, True)


def test_a_take_back_journaled_before_its_page_was_restored_is_finished_by_undo(vault: Path) -> None:
    """A crash between the take-back's journal record and the page's restore leaves the trigger on the
    page while the journal says it was taken back: --undo takes it off rather than trusting the record."""
    import base64

    log_weak(vault, TAG_Q)
    before = snapshot(vault)
    report = learn(vault, {TAG_Q: (DEPLOYS, DEPLOYS_QUOTE)})
    [entry] = learn_journal.journal_entries(report.run_id)
    assert entry["taken_back"] is True
    page = vault / DEPLOYS
    data, off = page.read_bytes(), int(entry["offset"])
    old, new = base64.b64decode(entry["old"]), base64.b64decode(entry["new"])
    page.write_bytes(data[:off] + new + data[off + len(old) :])
    assert TAG_Q in parse_page(DEPLOYS, page.read_text(encoding="utf-8")).triggers
    res = CliRunner().invoke(app, ["learn", "--undo", report.run_id])
    assert res.exit_code == 0, res.output
    assert snapshot(vault) == before


def test_undo_of_a_run_whose_page_was_deleted_says_it_is_gone(vault: Path) -> None:
    log_weak(vault, MERGE_Q)
    report = learn(vault, {MERGE_Q: (CODE_REVIEW, GOOD_QUOTE)})
    assert report.outcomes[0].status == LEARNED, report.to_text()
    (vault / CODE_REVIEW).unlink()
    res = CliRunner().invoke(app, ["learn", "--undo", report.run_id])
    assert res.exit_code == 0, res.output
    assert "the page no longer exists" in res.output
