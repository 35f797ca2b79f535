"""The nightly learner run: turn weak questions from the private query log into verified recall triggers.

One run: read the log since the cursor, keep this vault's weak questions (refused, or cited with little
margin), deduplicate them, build each one's candidate pages (``verify.candidates``, through
``Router.decide`` so the learner's own lookups are not logged), ask a model in batches to pick a page
and copy the sentence that answers, check every pick (``verify.verify_pick``), and add the question to
the picked page's ``triggers`` (``trigger_writes.write_trigger``, which journals every change so
``undo.undo(run_id)`` can restore the exact bytes). "Learned" means what it means for an agent's
teaching: asked again, the question now cites the page; a trigger that does not make it cite is taken
back at once (that trigger only, not the run) and the outcome says so (``trigger_writes.write_confirmed``).
The model never writes anything: it proposes, the learner verifies and writes.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable
from dataclasses import asdict, replace
from pathlib import Path

from krouter import config
from krouter.errors import KRouterError
from krouter.file_lock import Taken, state_lock
from krouter.learner import page_edit, pending, weak_log
from krouter.learner.clipped import clipped_ids
from krouter.learner.journal import append_jsonl, new_run_id, outcomes_path
from krouter.learner.lanes import Lane, LaneError, LaneTimeout, LaneUnavailable
from krouter.learner.prompt import SYSTEM, BatchQuestion, MalformedReply, Proposal, parse, render
from krouter.learner.report import (
    INTERRUPTED,
    LEARNED,
    NO_LANE,
    NO_PAGE,
    PENDING,
    REJECTED,
    SKIPPED,
    UNCERTAIN,
    WOULD_SEND,
    LearnReport,
    Outcome,
)
from krouter.learner.trigger_writes import TAKEN_BACK, read_for_edit, write_confirmed
from krouter.learner.verify import candidates, verify_pick
from krouter.learner.weak_log import MAX_ATTEMPTS, WEAK_MARGIN, question_key
from krouter.routing import querylog
from krouter.routing.receipt import Citation
from krouter.routing.router import Router
from krouter.vault.files import contained_path, read_contained
from krouter.vault.page import parse_page
from krouter.vault.suggestions import page_key

BATCH_SIZE = 5
DEFAULT_MAX = 50
# A whole run's model time. A hung endpoint costs each call its timeout times its retries (~6 minutes
# with the API lane's defaults); past this, the questions left are "uncertain" and asked next run.
RUN_BUDGET_S = 20 * 60.0


_OUT_OF_TIME = "the run's time budget (%.0f s) ran out before the model was asked; asked again next run"


# ----- the run -----------------------------------------------------------------------------------------


def _batches(items: list, size: int) -> Iterable[list]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _only_run(stack: contextlib.ExitStack, vid: str) -> None:
    """One run with a model per vault at a time, held until ``stack`` closes: two at once (a timer and
    a manual run) asked the model the same questions twice and wrote in turns."""
    try:
        stack.enter_context(state_lock(f"learn-run-{vid}.lock", wait=False))
    except Taken:
        raise KRouterError(
            "another krouter learn run on this vault is in progress; nothing was asked"
        ) from None


def _page_start(root: Path, rel: str) -> str:
    text = read_contained(root, contained_path(root, rel)).decode("utf-8", errors="replace")
    return parse_page(rel, text).body.strip()


def learn(
    vault: Path | str,
    lane: Lane | None,
    *,
    max_questions: int = DEFAULT_MAX,
    dry_run: bool = False,
    exclude_folders: Iterable[str] | None = None,
    batch_size: int = BATCH_SIZE,
    run_id: str | None = None,
    time_budget: float = RUN_BUDGET_S,
) -> LearnReport:
    """One learner run over ``vault``. Returns what happened to every weak question.

    Writes pages only for verified picks (never in a dry run). The log cursor advances (never in a dry
    run) only up to the first question whose outcome is uncertain (the model could not be asked, did
    not answer it, or sent something that is not the JSON asked for), so that one and every later one
    is asked again next time; one the model failed on asked alone in ``MAX_ATTEMPTS`` runs is given up
    (``weak_log``). ``time_budget`` bounds the run's model calls, in seconds. One run with a lane per
    vault at a time: a second raises KRouterError and asks nothing.

    ``lane`` None (a dry run with no model configured) asks nothing: each question a run would send is
    listed as ``would-send``, and one the router now cites with a clear margin (the vault changed since
    it was logged) is listed as skipped, as ``krouter teach`` would refuse it: it needs no attention.
    """
    if lane is None and not dry_run:
        raise ValueError("a run without a model lane must be a dry run")
    deadline = time.monotonic() + max(time_budget, 0.0)
    if lane is not None:
        # Every call's timeout is capped by what is left (lanes that do not know the attribute ignore it).
        lane.deadline = deadline
    cfg = config.load_config()
    folders = config.folder_names(exclude_folders if exclude_folders is not None else cfg.exclude_folders)
    run_id = run_id or new_run_id()
    # Checks are lexical_only: no embedding.
    with Router(vault, embed_budget_s=0) as router, contextlib.ExitStack() as stack:
        root = router.root
        vid = querylog.vault_id(root)
        if lane is not None:
            _only_run(stack, vid)
        since = weak_log.read_cursor(vid)
        entries = (item for path in weak_log.log_files() for _offset, item in querylog.read(path))
        weak, times = weak_log.weak_questions(entries, vid, since)
        # Read in a dry run too (with a lane or without), so it skips what a run would skip; written only
        # by a run.
        failed = weak_log.failed_runs(vid)
        lane_name, model = (lane.name, lane.model) if lane is not None else (NO_LANE, "-")
        report = LearnReport(run_id, str(root), lane_name, model, dry_run, log_entries=len(times))
        todo = weak[: max(max_questions, 0)]
        rest = weak[len(todo) :]
        report.weak, report.deferred = len(weak), len(rest)

        router.refresh()
        # Inputs and clippings pages, left out of the neighbour check (see verify._specific_units).
        ignore = clipped_ids(router, folders)
        prepared: list[tuple[str, list[Citation]]] = []
        for w in todo:
            problem = page_edit.trigger_problem(page_edit.clean_trigger(w.question))
            if problem:
                # Refused before the model sees it: it could never be written as a trigger.
                report.outcomes.append(Outcome(w.question, SKIPPED, reason=problem))
                continue
            if (tries := failed.get(question_key(w.question), 0)) >= MAX_ATTEMPTS:
                # Settled, so the cursor can pass it: asked again it would hold every later question.
                reason = f"the model gave no usable answer for it in {tries} runs: given up"
                report.outcomes.append(Outcome(w.question, SKIPPED, reason=reason))
                continue
            now = router.decide(w.question, lexical_only=True) if lane is None else None
            if now is not None and now.top is not None and now.evidence.margin >= WEAK_MARGIN:
                reason = f"KRouter now cites {now.top.path} for it: nothing to learn"
                report.outcomes.append(Outcome(w.question, SKIPPED, reason=reason))
                continue
            cands = candidates(router, w.question, folders)
            if not cands:
                report.outcomes.append(Outcome(w.question, SKIPPED, reason="no candidate page"))
                continue
            prepared.append((w.question, cands))

        held = pending.is_held(cfg, pending.NIGHTLY)
        # A question the model failed on before is asked alone, after the others.
        fresh = [p for p in prepared if question_key(p[0]) not in failed]
        again = [[p] for p in prepared if question_key(p[0]) in failed]
        alone: set[str] = set()
        batched: set[str] = set()
        replied = False
        batches = [*_batches(fresh, max(batch_size, 1)), *again]
        for n, batch in enumerate(batches):
            if lane is None:
                report.outcomes.extend(
                    Outcome(q, WOULD_SEND, candidates=[c.path for c in cands]) for q, cands in batch
                )
                continue
            if time.monotonic() >= deadline:
                report.outcomes.extend(
                    Outcome(
                        q, UNCERTAIN, reason=_OUT_OF_TIME % time_budget, candidates=[c.path for c in cands]
                    )
                    for q, cands in batch
                )
                continue
            try:
                outcomes, answered = _run_batch(
                    router, lane, batch, ignore, run_id, dry_run, held, cfg.agent_teaching
                )
            except KeyboardInterrupt as exc:
                # Ctrl-C: what was settled is recorded and passed by the cursor; the rest is asked again.
                report.interrupted = True
                settled: list[Outcome] = getattr(exc, "settled", [])
                report.outcomes.extend(settled)
                done = {o.question for o in settled}
                report.outcomes.extend(
                    Outcome(q, UNCERTAIN, reason=INTERRUPTED)
                    for b in batches[n:]
                    for q, _ in b
                    if q not in done
                )
                break
            report.outcomes.extend(outcomes)
            if answered is not None:
                (alone if len(batch) == 1 else batched).update(q for q, _ in batch)
                replied = replied or answered

        if lane is not None and not dry_run:
            weak_log.count_failures(vid, weak, report.outcomes, failed, alone, batched, replied)

        for o in report.outcomes:
            append_jsonl(
                outcomes_path(), {"run_id": run_id, "time": time.time(), "vault": str(root), **asdict(o)}
            )

        if not dry_run and times:
            # Stop just before the first question this run did not settle: one it did not reach (a
            # bounded run), or one whose outcome is uncertain.
            first_seen = {w.question: w.first_time for w in weak}
            unsettled = [first_seen[o.question] for o in report.outcomes if o.status == UNCERTAIN]
            unsettled += [rest[0].first_time] if rest else []
            cutoff = min(unsettled, default=None)
            done = [t for t in times if cutoff is None or t < cutoff]
            if done:
                weak_log.write_cursor(vid, done[-1])
                report.cursor_advanced = True
    return report


def _run_batch(
    router: Router,
    lane: Lane,
    batch: list[tuple[str, list[Citation]]],
    ignore: set[int],
    run_id: str,
    dry_run: bool,
    held: bool,
    agents: bool,
) -> tuple[list[Outcome], bool | None]:
    """Ask the model about one batch (twice, in two orders) and apply its picks; and whether the model
    replied at all (text came back, usable or not), None when it ran out of time (nothing to count)."""
    root = router.root
    qs = [BatchQuestion(i + 1, q, tuple(c.path for c in cands)) for i, (q, cands) in enumerate(batch)]
    pages: dict[str, str] = {}
    for b in qs:
        for p in b.candidates:
            if p not in pages:
                try:
                    pages[p] = _page_start(root, p)
                except (KRouterError, OSError):
                    pages[p] = ""

    def all_as(status: str, reason: str) -> list[Outcome]:
        return [
            Outcome(q, status, reason=reason, candidates=list(b.candidates))
            for (q, _), b in zip(batch, qs, strict=True)
        ]

    # The same questions twice, the second time with each question's candidates and the page texts in
    # reverse order: a pick that depends on where a page was listed or shown (a model leaning on the
    # first one, or on the router's order) is not a judgement that the page answers the question.
    replies: list[dict[int, Proposal]] = []
    problems: list[str] = []
    reordered = [BatchQuestion(b.q, b.question, b.candidates[::-1]) for b in qs]
    for order, shown in ((qs, pages), (reordered, dict(reversed(list(pages.items()))))):
        try:
            reply = lane.complete(SYSTEM, render(order, shown))
        except (LaneTimeout, LaneUnavailable) as exc:
            # The run's budget ran out, or the service could not take the call (rate limits, overload):
            # no fault of the questions, and nothing is counted against them.
            return all_as(UNCERTAIN, str(exc)), None
        except LaneError as exc:
            return all_as(UNCERTAIN, str(exc)), bool(replies)
        try:
            proposals, found = parse(reply)
        except MalformedReply as exc:
            # Not the JSON asked for (cut off, an error page, prose): the model did not answer.
            return all_as(UNCERTAIN, f"model reply unusable: {exc}"), True
        problems.extend(found)
        by_q: dict[int, Proposal] = {}
        for p in proposals:
            # One answer per question: a second answer for the same number is ignored, not merged.
            by_q.setdefault(p.q, p)
        replies.append(by_q)
    out: list[Outcome] = []
    try:
        for (question, cands), b in zip(batch, qs, strict=True):
            cand_paths = list(b.candidates)
            first, second = (_as_candidate(r.get(b.q), cand_paths) for r in replies)
            if first is None or second is None:
                # No usable answer for this question is a failed call for it, not a judgement: ask again.
                reason = "; ".join(dict.fromkeys(problems)) if problems else "the model gave no answer for it"
                out.append(Outcome(question, UNCERTAIN, reason=reason, candidates=cand_paths))
                continue
            if first.page != second.page:
                out.append(
                    Outcome(
                        question,
                        REJECTED,
                        page=first.page,
                        reason=f"the model's pick changed with the order of the candidates "
                        f"({first.page or 'none'} vs {second.page or 'none'})",
                        candidates=cand_paths,
                    )
                )
                continue
            if first.page is None:
                reason = "the model says no candidate answers"
                out.append(Outcome(question, NO_PAGE, reason=reason, candidates=cand_paths))
                continue
            out.append(_apply(router, question, ignore, cands, first, run_id, lane, dry_run, held, agents))
    except KeyboardInterrupt as exc:
        # What the batch settled before a Ctrl-C (a trigger written, a pick rejected) is the run's to record.
        exc.settled = out  # type: ignore[attr-defined]
        raise
    return out, True


def _as_candidate(prop: Proposal | None, cand_paths: list[str]) -> Proposal | None:
    """A pick named as links write pages (no ".md", another case or Unicode form) is the candidate it
    names, as `krouter teach` reads it: rejected, the question was settled for good (a cold review);
    compared as written, the two orders' picks differed (the diff review)."""
    named = [c for c in cand_paths if prop is not None and page_key(c) == page_key(prop.page or "")]
    return replace(prop, page=named[0]) if prop is not None and len(named) == 1 else prop


def _apply(
    router: Router,
    question: str,
    ignore: set[int],
    cands: list[Citation],
    prop: Proposal,
    run_id: str,
    lane: Lane,
    dry_run: bool,
    held: bool,
    agents: bool,
) -> Outcome:
    """Check one pick, then write it, or hold it (``held``) unless an agent's hold is its second source
    (while ``agents``: agent teaching is on)."""
    root = router.root
    cand_paths = [c.path for c in cands]
    outcome = Outcome(question, REJECTED, page=prop.page, quote=prop.quote, candidates=cand_paths)
    if prop.page not in cand_paths:
        outcome.reason = "the page is not one of this question's candidates"
        return outcome
    try:
        page = read_for_edit(root, prop.page)
    except (KRouterError, OSError, UnicodeDecodeError) as exc:
        outcome.reason = f"page cannot be read: {exc}"
        return outcome
    reason = verify_pick(router, question, ignore, cands, prop.page, prop.quote, page.text)
    if reason or (reason := pending.owner_refusal(root, question, prop.page)):
        outcome.reason = reason
        return outcome
    record: dict[str, object] = {"quote": prop.quote, "lane": lane.name, "model": lane.model}
    # An agent's held pick of this page for this question, quoting the same passage, is a second source.
    # With agent teaching turned off, an agent's hold made before is no second source (a cold review:
    # the next nightly run wrote it, against SECURITY.md's "calls then write nothing").
    agent, apart = (
        pending.second_source(root, question, prop.page, pending.AGENT, prop.quote or "", page.text)
        if agents
        else (None, "")
    )
    if agent is not None:
        record["pending_id"] = agent["pending"]
    elif held:
        outcome.status = PENDING
        if dry_run:
            outcome.reason = "would be held until a second source agrees (dry run: nothing held)"
            return outcome
        mine = pending.find(root, question, prop.page, pending.NIGHTLY) or pending.hold(
            root,
            prop.page,
            question,
            prop.quote or "",
            source=pending.NIGHTLY,
            lane=lane.name,
            model=lane.model,
        )
        outcome.reason = (
            f"held until a second source agrees (pending {mine['pending']}: an agent teaching the same page from "
            f"the same passage, or krouter learn --accept {mine['pending']})"
            + (f"; {apart}" if apart else "")
        )
        return outcome
    # Written, then asked again: kept only when the question now cites the page, as with an agent's
    # teaching. The router is refreshed either way, so the run's later questions see the vault as it is.
    status, reason = write_confirmed(router, page, question, run_id, dry_run=dry_run, record=record)
    if status == TAKEN_BACK:
        outcome.reason = f"written and taken back: {reason}"
        return outcome
    if status == LEARNED:
        # The agent's hold it confirms, and any hold of this pick left open (its own, held before
        # ``pending_triggers`` changed), end here: the trigger is on the page.
        pending.settle(root, question, prop.page, f"nightly run {run_id}", run_id)
        if "pending_id" in record:
            reason = reason or f"confirms an agent's pending {record['pending_id']}"
    outcome.status, outcome.reason = status, reason
    return outcome
