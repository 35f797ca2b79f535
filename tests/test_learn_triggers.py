"""What a learned trigger may and may not do to the router's decision.

Learned triggers should help ranking, but a trigger alone must not turn a refusal into an answer when
the page itself does not match the question (docs/GUIDE: "Learned triggers should not, by themselves,
turn a refusal into an answer without the quote check behind them").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_learn import CODE_REVIEW, GOOD_QUOTE, MERGE_Q, PAGES, Model, answers, log_weak

from krouter.learner import nightly
from krouter.learner.report import LEARNED
from krouter.routing.router import Router

pytestmark = pytest.mark.usefixtures("teaching_writes_at_once")


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("KROUTER_NO_QUERY_LOG", raising=False)
    root = tmp_path / "vault"
    for rel, text in PAGES.items():
        if rel.startswith(("Inputs/", "Decisions/")):
            continue
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return root


def _learn_merge_trigger(vault: Path) -> None:
    log_weak(vault, MERGE_Q)
    model = Model(answers({"q": 1, "page": CODE_REVIEW, "quote": GOOD_QUOTE}))
    report = nightly.learn(vault, model.lane())
    assert report.count(LEARNED) == 1, json.dumps(report.to_dict())


def test_learned_trigger_brings_back_the_question_it_was_learned_from(vault: Path) -> None:
    with Router(vault) as router:
        assert router.decide(MERGE_Q).decision == "refuse"
    _learn_merge_trigger(vault)
    with Router(vault) as router:
        after = router.decide(MERGE_Q)
    assert after.decision == "cite" and after.top is not None and after.top.path == CODE_REVIEW


def test_learned_trigger_alone_does_not_flip_a_refusal(vault: Path) -> None:
    # Only the learned trigger holds 'sign-offs'; nothing on the page matches "who signs off". The
    # trigger's word alone must not make the page answer a question the page itself does not match.
    question = "Who signs off?"
    with Router(vault) as router:
        before = router.decide(question)
    assert before.decision == "refuse"
    _learn_merge_trigger(vault)
    with Router(vault) as router:
        after = router.decide(question)
    assert after.decision == "refuse", after.reason
    assert after.closest is not None and "sign" in after.closest.matched[0]
