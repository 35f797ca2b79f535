"""The small vault the learner's and the teaching tests share: a page that answers, its neighbours (two
other API timeouts, a search page), a replaced decision and its replacement, and a clipped article."""

from __future__ import annotations

import json
import time
from pathlib import Path

from krouter.routing import querylog

CODE_REVIEW = "Runbooks/Code review.md"
PAYMENTS = "Runbooks/Payments API timeouts.md"
PRIMARY = "Decisions/Primary database.md"
OLD = "Decisions/Old database.md"
ARTICLE = "Inputs/Article on approvals.md"
GOOD_QUOTE = "Every pull request needs two approvals before it can be merged."
MERGE_Q = "How many sign-offs does a merge need?"
SEARCH_Q = "What's the timeout for calls to the search API?"

PAGES = {
    CODE_REVIEW: "---\ntitle: Code review\ntags: [process]\n---\n# Code review\n\n"
    "Every pull request needs **two approvals** before it can be merged.\n"
    "The author cannot approve their own pull request.\n",
    PAYMENTS: "---\ntitle: Payments API timeouts\n---\n# Payments API timeouts\n\n"
    "The read timeout for Stripe calls is 10 seconds.\nRetries happen twice, with backoff.\n",
    "Runbooks/Email API timeouts.md": "# Email API timeouts\r\n\r\nThe Postmark API timeout is 5 seconds "
    "for all calls.\r\n",
    "Search/Search service.md": "# Search service\n\nThe search service indexes invoices every night.\n",
    PRIMARY: "---\ntitle: Primary database\nsupersedes: Decisions/Old database\n---\n"
    "We migrated the main store to PostgreSQL 16 in April 2024.\n",
    OLD: "---\ntitle: Old database\nstatus: superseded\nsuperseded_by: Decisions/Primary database\n---\n"
    "The main store is MySQL 5.7 for every service, and merges need one approval.\n",
    ARTICLE: "Approvals slow teams down: a merge should need at most one sign-off, says this article.\n",
}


def write_vault(root: Path, pages: dict[str, str]) -> Path:
    """Write ``pages`` (vault-relative path -> text) under ``root``, byte for byte."""
    for rel, text in pages.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text.encode("utf-8"))
    return root


def log_weak(vault: Path, *questions: str) -> None:
    """Put questions in the query log as weak (refused) lookups of this vault."""
    path = querylog.log_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        for q in questions:
            entry = {
                "time": time.time(),
                "vault_id": querylog.vault_id(vault.resolve()),
                "vault": str(vault.resolve()),
                "question": q,
                "decision": "refuse",
                "confidence": 0.3,
                "margin": 0.5,
                "candidates": [],
                "reason": "test",
            }
            fh.write(json.dumps(entry) + "\n")


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes: what a test compares before and after."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def message(text: str) -> dict[str, object]:
    """A Messages API reply whose one text block is ``text``, as the mocked transport returns it."""
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 10},
    }
