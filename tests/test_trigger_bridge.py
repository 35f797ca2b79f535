"""A trigger vouches for the words that bridge its question to the page: a later wording that shares
some of them, and a word of the page itself, counts them even when it holds fewer than two thirds of
the trigger's words. A wording that shares one word, or only the trigger's bridge words without any
word of the page, gets nothing from the trigger."""

from __future__ import annotations

from pathlib import Path

import pytest

from krouter.learner import teach
from krouter.learner import undo as learn_undo
from krouter.routing.router import Router

pytestmark = pytest.mark.usefixtures("teaching_writes_at_once")

BACKEND = "Runbooks/Backend on-call rotation.md"
TRIGGER = "Who carries the pager during the backend rotation, and when is the swap between engineers?"
PAGES = {
    BACKEND: f'---\ntitle: Backend on-call rotation\ntriggers:\n  - "{TRIGGER}"\n---\n'
    "# Backend on-call rotation\n\n"
    "The backend on-call rotation changes every Monday at 10:00; the handoff happens in the ops channel.\n",
    "Teams/Frontend team.md": "# Frontend team\n\nThe frontend team owns the web app and the design system.\n",
    "Runbooks/Deploy.md": "# Deploy\n\nDeploys go out from the main branch after CI passes.\n",
}
FILLER = [
    "Invoices are exported to the accounting system on the first day of each month.",
    "The search service indexes documents every night at two.",
    "Customer emails go through Postmark with a five second timeout.",
    "Backups of the main database are kept for thirty days.",
    "Pull requests need two approvals before they can be merged.",
    "The staging environment is reset every Sunday evening.",
    "Design reviews happen on Thursdays with the product lead.",
    "Secrets live in the vault service and are rotated quarterly.",
]


def write_vault(root: Path, pages: dict[str, str]) -> Path:
    for rel, text in pages.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    for n, line in enumerate(FILLER):
        (root / f"Notes/Note {n}.md").parent.mkdir(parents=True, exist_ok=True)
        (root / f"Notes/Note {n}.md").write_text(f"# Note {n}\n\n{line}\n", encoding="utf-8")
    return root


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_vault(tmp_path / "vault", PAGES)


def test_a_later_wording_sharing_the_bridge_and_a_page_word_is_answered(vault: Path) -> None:
    with Router(vault) as router:
        r = router.decide("when is the pager swap on the rotation?")
    assert r.decision == "cite" and r.top is not None and r.top.path == BACKEND, r.reason


def test_one_shared_word_gets_nothing_from_the_trigger(vault: Path) -> None:
    with Router(vault) as router:
        r = router.decide("who has the pager?")
    assert r.decision == "refuse", r.reason


def test_bridge_words_without_a_word_of_the_page_get_nothing(vault: Path) -> None:
    with Router(vault) as router:
        r = router.decide("pager swap for engineers")
    assert r.decision == "refuse", r.reason


def test_a_neighbour_wording_that_shares_the_bridge_stays_refused(vault: Path) -> None:
    # The bridge counts 'pager' and 'carries', but 'frontend' is the frontend team page's word.
    with Router(vault) as router:
        r = router.decide("Who carries the pager in the frontend rotation?")
    assert r.decision == "refuse", r.reason
    assert "frontend" in r.evidence.elsewhere_missing


def test_a_trigger_an_agent_taught_answers_a_later_partial_wording_until_undone(tmp_path: Path) -> None:
    untaught = {**PAGES, BACKEND: PAGES[BACKEND].split("---\n", 2)[2]}
    root = write_vault(tmp_path / "vault", untaught)
    later = "when is the pager swap on the rotation?"
    quote = (
        "The backend on-call rotation changes every Monday at 10:00; the handoff happens in the ops channel."
    )
    with Router(root) as router:
        assert router.decide(TRIGGER).decision == "refuse"
        assert router.decide(later).decision == "refuse"
        result = teach.teach(router, TRIGGER, BACKEND, quote)
        assert result.taught, result.reason
        r = router.decide(later)
        assert r.decision == "cite" and r.top is not None and r.top.path == BACKEND, r.reason
    assert result.run_id is not None
    learn_undo.undo(result.run_id)
    with Router(root) as router:
        assert router.decide(later).decision == "refuse"
