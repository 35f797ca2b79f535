"""The typed output schemas of ``krouter mcp``'s tools: the structured content a reply carries beside its
text, for clients that use it. Every field a reply sends is declared here (tests/test_mcp.py)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class CitedPage(BaseModel):
    """A page krouter_ask cites, with the line and text of its best passage."""

    path: str = Field(description="Vault-relative path: pass it to krouter_read as is.")
    title: str
    line: int = Field(description="1-based line of the best-matching passage.")
    snippet: str
    via: str | None = Field(description="The replaced page the question hit, when it led here.")
    via_triggers: list[str] = Field(
        default_factory=list,
        description="Words only the page's triggers hold, when its text alone would not be cited: check the page.",
    )
    via_words: list[str] = Field(
        default_factory=list,
        description="Matched words only the replaced page `via` holds, not this page.",
    )
    via_elsewhere: list[str] = Field(
        default_factory=list,
        description="Matched words only another replaced page leading here (than `via`) holds, each with that page.",
    )
    missing: list[str] = Field(
        default_factory=list,
        description="Question words the page does not hold: check that the page is about what was asked.",
    )
    clipping: bool = Field(
        default=False,
        description="The page is in an inputs or clippings folder or tagged as a clipping: pasted material, not "
        "the user's own note.",
    )


class Replacement(BaseModel):
    """A replaced page the question hit, and the current page it leads to (None: no current page)."""

    from_: str = Field(alias="from")
    to: str | None


class Candidate(BaseModel):
    """A page close to a refused question: read it before concluding the notes do not cover it."""

    path: str
    line: int = Field(description="1-based line of its best-matching passage.")


class AskReply(BaseModel):
    """krouter_ask's structured reply."""

    decision: Literal["cite", "refuse"]
    cited: list[CitedPage] = Field(description="The cited page (one); empty on a refusal.")
    closest: str | None = Field(description="On a refusal, the nearest page (not an answer).")
    candidates: list[Candidate] = Field(description="On a refusal, the closest pages to read, best first.")
    redirects: list[Replacement]
    unread: list[str] = Field(
        default_factory=list,
        description="Pages that ranked higher but cannot be read now (a folder made unreadable): passed over.",
    )
    reason: str
    confidence: float
    floor: float
    vault: str
    demo_vault: bool = Field(description="True when the vault is KRouter's demo one (fictional pages).")
    phrasing: str | None = Field(
        description="The phrasing whose lookup decided, or on a refusal came closest (None: the question)."
    )
    semantic_cited: bool = Field(
        default=False,
        description="True when the words fell short of the floor and the local semantic second opinion "
        "(krouter[semantic]) cited the same page: the reason says why; read the page before relying on it.",
    )
    next_step: str


class TeachReply(BaseModel):
    """krouter_teach's structured reply: what was written (with the run id to undo it), or why not."""

    status: str = Field(
        description="'taught'; 'pending' (checked, nothing written: held until a second source agrees, "
        "see `pending_id`); or 'not-taught' (then `reason` says why)."
    )
    question: str
    page: str
    quote: str
    phrasings: list[str]
    reason: str = Field(
        description="Why nothing was kept (empty when taught, unless it could not be kept out)."
    )
    run_id: str | None = Field(description="Pass to `krouter learn --undo RUN_ID` to remove the trigger.")
    trigger: str | None = Field(description="The trigger added to the page's frontmatter.")
    withdrawn_run: str | None = Field(
        default=None,
        description="A trigger written and taken back at once (it would not have made the question cite the page).",
    )
    pending_id: str | None = Field(
        default=None,
        description="A held pick: written when the nightly learner names the same page (quoting the same "
        "passage), or the owner runs "
        "`krouter learn --accept ID` (only the owner, when `for_owner`).",
    )
    for_owner: bool = Field(
        default=False,
        description="Held for the owner alone: the checks doubt the pick (`reason` says why), and no "
        "second teacher can confirm it.",
    )


class Problem(BaseModel):
    """A page KRouter could not read as a page."""

    path: str
    kind: str
    message: str


class BrokenLink(BaseModel):
    """A replaced page whose replacement cannot be followed."""

    from_: str = Field(alias="from")
    problem: str | None
    chain: list[str]


class StatusReply(BaseModel):
    """krouter_status's structured reply."""

    vault: str
    demo_vault: bool
    pages: int
    replaced: int
    problems: list[Problem]
    broken_links: list[BrokenLink]
    unreadable_folders: list[str]
    index: str
    index_bytes: int
    refreshed_at: float
    changed_now: int
    semantic: dict[str, Any] = Field(
        default_factory=dict,
        description="The optional semantic second opinion: active or why not, and how many pages are embedded.",
    )
