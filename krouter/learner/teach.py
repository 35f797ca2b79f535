"""Agents teach triggers: ``krouter_teach`` (MCP) and ``krouter teach`` (CLI).

An agent that KRouter refused may read the closest page and report that it answers the question, with
the sentence that does. The agent proposes; KRouter decides, with the nightly learner's own checks
(``verify.verify_pick``) and its own byte-preserving edit (``trigger_writes.write_trigger``), journaled under a run
id that ``krouter learn --undo RUN_ID`` reverses exactly. The agent never writes a page and never names
what is written: the only thing added is the question itself, as one trigger of one memory page.

Held by default (``pending_triggers``, ``krouter.learner.pending``): a pick that passes every
check is recorded as pending, nothing written, until a second source agrees (the nightly model naming
the same page with a quote from the same passage, or the owner's ``krouter learn --accept ID``); an
agent's pick that agrees so with one the nightly model holds is written at once (D78). No check tells one
teacher's honest pick from a plausible wrong one (docs/decisions.md D50).

"Taught" means that the question now cites the page. A pick whose question holds a word naming another
page that this page lacks (through the dictionary too), or that lacks the question's most specific word,
is held for the owner alone: no word rule tells those doubts from honest lessons (D73, D130). A trigger
that still would not make the question cite the page (another page ties with this one) is taken back at
once, and the reply says why; that write counts towards the day's cap, not the page's.

Bounded per vault: at most ``teach_daily_cap`` (config.toml, 20 by default) triggers taught or held by
agents in any 24 hours, at most PAGE_CAP of them on one page, a question taught to one page only, and
only questions KRouter refuses (or barely answers). ``agent_teaching = false`` in ``config.toml`` turns
it off.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from krouter import config
from krouter.errors import KRouterError
from krouter.file_lock import Taken, state_lock
from krouter.learner import page_edit, pending, write_lock
from krouter.learner.clipped import clipped_ids
from krouter.learner.journal import append_jsonl, journal_entries, new_run_id, outcomes_path
from krouter.learner.moved import still_on, still_on_page
from krouter.learner.quotes import MAX_QUOTE_CHARS
from krouter.learner.report import LEARNED
from krouter.learner.trigger_writes import TAKEN_BACK, read_for_edit, write_confirmed
from krouter.learner.verify import NOT_A_CANDIDATE, candidates, same_doubt, verify_pick
from krouter.learner.weak_log import WEAK_MARGIN
from krouter.learner.write_lock import TEACH_LOCK_NAME
from krouter.routing.phrasings import check as check_phrasings
from krouter.routing.phrasings import check_question
from krouter.routing.router import Router
from krouter.vault.files import MAX_PATH_CHARS

AGENT_LANE = "agent"
PAGE_CAP = 3
DAY_SECONDS = 24 * 60 * 60
# How much of an over-long quote a reply shows.
QUOTE_SHOWN = 200

TAUGHT = "taught"
NOT_TAUGHT = "not-taught"
# Every check passed, nothing written: held until a second source agrees (``krouter.learner.pending``).
PENDING = "pending"


# How a dispute of a confident citation begins its doubt (``_teach``).
DISPUTED = "KRouter cites"


@dataclass
class TeachResult:
    """What a teach call did: the trigger written and its run id, or why nothing was written."""

    status: str
    question: str
    page: str
    quote: str
    phrasings: list[str] = field(default_factory=list)
    reason: str = ""
    run_id: str | None = None
    trigger: str | None = None
    # The run of a trigger written and taken back at once (it would not have made the question cite the
    # page): journaled and listed as undone, nothing kept.
    withdrawn_run: str | None = None
    # The hold of a pick that waits for a second source: ``krouter learn --accept`` takes it.
    pending_id: str | None = None
    # Held for the owner alone: the checks doubt it (``reason`` says why), and no second teacher confirms it.
    for_owner: bool = False

    @property
    def taught(self) -> bool:
        """True when a trigger was written."""
        return self.status == TAUGHT

    def to_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return asdict(self)

    def to_text(self) -> str:
        """One line saying exactly what was written, or why nothing was."""
        if self.taught:
            return (
                f"taught: added the trigger {self.trigger!r} to {self.page} "
                f"(run {self.run_id}; undo with: krouter learn --undo {self.run_id})"
                + (f"; but {self.reason}" if self.reason else "")
            )
        if self.status == PENDING and self.for_owner:
            # Agent-loop runs could not tell this from plain "pending", nor whether to teach again.
            return (
                f"pending, nothing written: {self.page} is held for the owner alone (pending {self.pending_id}): "
                f"the checks doubt it ({self.reason}); unlike a plain pending pick, no second teacher can "
                f"confirm it, and teaching it again does not: the owner reads the page and runs krouter learn "
                f"--accept {self.pending_id}, or --reject {self.pending_id}"
            )
        if self.status == PENDING:
            return (
                f"pending, nothing written: {self.page} is held as this question's answer (pending "
                f"{self.pending_id}) until a second source agrees: the nightly learner's model naming the "
                f"same page with a quote from the same passage, or the owner running: krouter learn "
                f"--accept {self.pending_id}" + (f"; {self.reason}" if self.reason else "")
            )
        if self.withdrawn_run:
            return f"not taught, nothing kept: {self.reason}"
        return f"not taught, nothing written: {self.reason}"


def shown_quote(quote: str) -> str:
    """A quote as a reply or a list shows it: its first QUOTE_SHOWN characters."""
    return quote if len(quote) <= QUOTE_SHOWN else quote[:QUOTE_SHOWN] + "…"


def _limits_problem(root: Path, rel: str, question: str, now: float, daily_cap: int) -> str | None:
    """Why the caps (``daily_cap`` a day in the vault, PAGE_CAP a page) or an earlier teaching forbid
    this one, or None."""
    mine = [e for e in journal_entries() if e.get("vault") == str(root)]
    # Every write counts towards the day's cap, one taken back at once too: that bounds how often an agent
    # can make KRouter rewrite and restore a page. So does every hold (a pick waiting for a second
    # source), so that an agent cannot flood the owner's list. The page's own cap counts triggers still
    # on it and holds still open.
    agents = [e for e in mine if e.get("lane") == AGENT_LANE]
    holds = [h for h in pending.all_holds(root) if h.get("source") == pending.AGENT]
    want = page_edit.trigger_key(question)
    for h in holds:
        if h["end"] is None and h.get("page") != rel and page_edit.trigger_key(str(h["trigger"])) == want:
            return (
                f"this question is already held as pending for {h['page']} (pending {h['pending']}); "
                f"a question is taught to one page only (the owner can reject it: krouter learn --reject "
                f"{h['pending']})"
            )
    for e in mine:
        if (
            e.get("page") != rel
            and page_edit.trigger_key(str(e.get("trigger", ""))) == want
            and still_on(root, e)
        ):
            return (
                f"this question is already a trigger of {e['page']} (run {e['run_id']}); "
                f"a question is taught to one page only (undo that run first)"
            )
    times = [e.get("time") for e in [*agents, *holds]]
    today = sorted(t for t in times if isinstance(t, (int, float)) and now - t < DAY_SECONDS)
    if len(today) >= daily_cap:
        # When the next one fits: an agent-loop run stopped teaching, not knowing whether it ever could.
        # Rounded up to the minute: a time cut down to it came before the cap freed (a cold review).
        frees_at = -(-(today[len(today) - daily_cap] + DAY_SECONDS) // 60) * 60
        frees = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(frees_at))
        # How long from now too: an agent whose own idea of today is a year off read the date as a year away.
        wait = max(0, int(frees_at - now) // 60)
        return (
            f"the daily cap is reached: agents taught or held {len(today)} triggers in this vault in the last 24 "
            f"hours (at most {daily_cap}, a limit the vault's owner sets); the next can be taught from {frees}, "
            f"in {wait // 60} h {wait % 60} min"
        )
    # An agent's pick the nightly model confirmed is journaled under the nightly lane: still the agent's.
    confirmed = {h["pending"] for h in holds}
    taught = [
        e
        for e in mine
        if e.get("lane") == AGENT_LANE
        or (e.get("pending_id") in confirmed and e.get("lane") != pending.OWNER)
    ]
    on_page = still_on_page(root, taught, rel)
    held = [h for h in holds if h["end"] is None and h.get("page") == rel]
    if len(on_page) + len(held) >= PAGE_CAP:
        return (
            f"the per-page cap is reached: {rel} already holds {len(on_page)} triggers taught by agents "
            f"and {len(held)} pending (at most {PAGE_CAP} together)"
        )
    return None


def teach(
    router: Router,
    question: str,
    page: str,
    quote: str,
    phrasings: Sequence[str] = (),
    *,
    client: str = "agent",
) -> TeachResult:
    """Add ``question`` as a trigger of ``page`` if every check passes; say what was written or why not.

    ``quote`` is the page's sentence that answers the question; ``phrasings`` are the agent's other
    wordings of it (a translation into the notes' language, a rewording), used only to check the pick.
    ``client`` names the teacher in the journal. Raises BadQuestion for a question with nothing to look
    up (as ``krouter ask`` does) and BadPhrasings for phrasings over the bounds; every other problem is
    a result with ``reason`` and nothing kept.
    """
    check_question(question)
    cleaned = check_phrasings(phrasings)
    result = TeachResult(NOT_TAUGHT, page_edit.clean_trigger(question), page, quote, cleaned)
    if len(page) > MAX_PATH_CHARS:
        # Refused calls are logged and answered too: a path of megabytes would be echoed into both.
        result.page = shown_quote(page)
        result.reason = f"the path is {len(page)} characters long; at most {MAX_PATH_CHARS}"
    elif config.is_demo(router.root):
        # Its pages live inside the installed package: `krouter teach` refused it, `krouter_teach` wrote
        # there, or held a pick no command could accept or reject (a documentation audit).
        result.reason = (
            "the bundled demo vault is read-only: teach your own vault (krouter init DIR makes one)"
        )
    elif len(quote) > MAX_QUOTE_CHARS:
        # Neither the reply nor the log echoes a pasted page back (a 126 KB quote made a 126 KB reply).
        result.quote = shown_quote(quote)
        result.reason = f"the quote is {len(quote)} characters long; at most {MAX_QUOTE_CHARS}: quote the sentence that answers"
    else:
        if router.auto_refresh:
            # An index built or caught up before the turn is taken: a cold build (the first teaching after
            # an upgrade to a new index version; minutes at 45k pages) held the lock past another
            # teacher's bounded wait, refused as "held … for 30 s" (a cold review).
            router.refresh()
        try:
            with state_lock(TEACH_LOCK_NAME, timeout=write_lock.LOCK_WAIT_S):
                result.reason = _teach(router, result, client, new_run_id())
        except Taken:  # only the turn's wait raises it (a learner write's own wait is its reason)
            result.reason = write_lock.busy("the teaching lock")
    append_jsonl(
        outcomes_path(),
        {
            "time": time.time(),
            "vault": str(router.root),
            "lane": AGENT_LANE,
            "client": client,
            **result.to_dict(),
        },
    )
    return result


def _teach(router: Router, result: TeachResult, client: str, run_id: str) -> str:
    """Fill in ``result``; returns the reason nothing was written ("" when taught)."""
    cfg = config.load_config()
    if not cfg.agent_teaching:
        return "agent teaching is turned off (agent_teaching = false in config.toml)"
    question = result.question
    problem = page_edit.trigger_problem(question)
    if problem:
        return problem
    try:
        rel, _ = router.read_page(result.page)
    except KRouterError as exc:
        return str(exc)
    result.page = rel
    folders = config.folder_names(cfg.exclude_folders)
    if config.in_folders(rel, folders):
        return f"{rel} is in an inputs or clippings folder: reading material, not the vault's own memory"
    # After resolve, which refreshes the index: a tag just added or taken off counts (a second review).
    note = router.resolve(rel).replaced_note()
    if router.is_clipping(rel):
        return f"{rel} is tagged as a clipping: reading material, not the vault's own memory"
    if note:
        return f"{note}: teach the current page"
    receipt = router.decide(question, lexical_only=True)
    # A page the index leaves out (a template) would hold a trigger that never recalls it.
    left_out = next((p for p in router.index.problems() if p.path == rel), None)
    if left_out is not None:
        return f"{rel}: {left_out.message}"
    top = receipt.top
    if top is not None and top.path == rel:
        return f"KRouter already cites {rel} for this question: nothing to teach"
    # An agent that read the cited page and found the answer on another may be right (an agent-loop
    # run: a Busan office question cited on the Seoul office's page), or may be a careless or hijacked
    # teacher overruling a right answer: the owner decides, and nothing is written before.
    disputed = (
        f"{DISPUTED} {top.path} for this question; only the owner can make it cite {rel}"
        if top is not None and receipt.evidence.margin >= WEAK_MARGIN
        else None
    )
    same = pending.find(router.root, question, rel, pending.AGENT)
    if not pending.is_held(cfg, pending.AGENT) and not (same and same.get("doubt")):
        same = None
    # A pick held already is within the caps (it was counted when it was held).
    problem = None if same else _limits_problem(router.root, rel, question, time.time(), cfg.teach_daily_cap)
    if problem:
        return problem
    try:
        page_bytes = read_for_edit(router.root, rel)
    except (KRouterError, OSError, UnicodeDecodeError) as exc:
        return f"page cannot be read: {exc}"
    # Every call's pick is checked, one held already too: "pending" must never answer a quote that is
    # not on the page.
    ignore = clipped_ids(router, folders)
    cands = candidates(router, question, folders)
    also = [(p, candidates(router, p, folders)) for p in result.phrasings]
    checked = (router, question, ignore, cands, rel, result.quote, page_bytes.text)
    problem = verify_pick(*checked, also)
    # A pick only a doubt stops (the page lacks a word naming another page, or a wording's most specific
    # word) is as often an honest lesson as a neighbour's: it waits for the owner, whom no second teacher
    # stands in for.
    doubt = problem if problem and not verify_pick(*checked, also, doubts=False) else None
    if disputed and (doubt or not problem):
        doubt = f"{disputed}; {doubt}" if doubt else disputed
        problem = problem or doubt
    if problem == NOT_A_CANDIDATE and not result.phrasings:
        # The agent-loop runs: an agent that reached the answering page through a link from the closest
        # one had no way on; a rewording in the page's own words makes it a candidate, and the checks
        # then hold a pick the question's own words do not reach for the owner.
        return (
            f"{problem}: if a phrasing of the question found it, give that phrasing too; if you reached it "
            "another way (a link), give a rewording of the question in the page's own words"
        )
    if (problem and not doubt) or (problem := pending.owner_refusal(router.root, question, rel)):
        return problem
    # Taught again so that every check passes (by any agent, without the phrasing that raised the doubt):
    # the pick goes the way of any other, and the owner's hold closes once that is done.
    doubted = same if same and same.get("doubt") and not doubt else None
    # A hold of this pick quoting what the page no longer says (the page rewritten, or a new vault made at
    # the held one's path) could never be accepted: this pick replaces it (held for the owner, if it has a
    # doubt of its own).
    stale = same if same and not doubted and pending.quote_gone(same, rel, page_bytes.text) else None
    if doubted or stale:
        same = None
    # The nightly model's held pick of this page for this question, quoting the same passage, is the
    # second source (confirmed by this teaching even when this agent's own pick was held already).
    other, apart = pending.second_source(
        router.root, question, rel, pending.NIGHTLY, result.quote, page_bytes.text
    )
    if same and (other is None or doubt):
        # Taught again, by this agent or another: still one source (an agent names itself).
        result.status, result.pending_id = PENDING, str(same["pending"])
        if same.get("doubt"):
            result.for_owner = True
            held = str(same["doubt"])
            return held if same_doubt(doubt or "", held) else f"{held}; this teaching's own doubt: {doubt}"
        again = "it was held already; teaching it again, by this agent or another, does not confirm it"
        return f"{again}; {apart}" if apart else again
    record: dict[str, object] = {
        "quote": result.quote,
        "lane": AGENT_LANE,
        "model": client,
        "phrasings": result.phrasings,
    }
    if doubt:
        took = _replace(router, stale, _hold(router, result, client, doubt))
        result.for_owner = True
        return f"{doubt}; {took}" if took else doubt
    if other is not None:
        record["pending_id"] = other["pending"]
    elif pending.is_held(cfg, pending.AGENT):
        return _replace(router, doubted or stale, _hold(router, result, client)) or apart
    status, reason = write_confirmed(router, page_bytes, question, run_id, dry_run=False, record=record)
    if status == TAKEN_BACK:
        # "Taught" must mean that the question now cites the page: a trigger that does not make it cite
        # was taken back at once, and the reply says why.
        result.withdrawn_run = run_id
        return f"{reason}; the trigger was written and taken back (run {run_id})"
    if status != LEARNED:
        return reason
    # A reason here says the trigger stays although the question would still not cite the page.
    result.status, result.run_id, result.trigger = TAUGHT, run_id, question
    # The nightly hold it confirms, and any hold of this pick left open (held before holding was turned
    # off, or a twin of two teachers at once), end here: the trigger is on the page.
    pending.settle(router.root, question, rel, f"agent {client}", run_id)
    return reason


def _replace(router: Router, old: dict[str, object] | None, entry: dict[str, object]) -> str:
    """End ``old``, the hold the new hold ``entry`` takes the place of, and say so ("" without one)."""
    if old is None:
        return ""
    pending.resolve(router.root, str(old["pending"]), pending.SUPERSEDED, f"pending {entry['pending']}")
    why = "held for the owner until now" if old.get("doubt") else "whose quote is no longer on the page"
    return f"it takes the place of pending {old['pending']}, {why}"


def _hold(router: Router, result: TeachResult, client: str, doubt: str | None = None) -> dict[str, object]:
    """Hold the pick in ``result`` (for the owner alone with a ``doubt``) and say so in ``result``."""
    entry = pending.hold(
        router.root,
        result.page,
        result.question,
        result.quote,
        source=pending.AGENT,
        lane=AGENT_LANE,
        model=client,
        phrasings=result.phrasings,
        doubt=doubt,
    )
    result.status, result.pending_id = PENDING, str(entry["pending"])
    return entry
