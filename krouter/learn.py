"""The nightly learner: turn weak questions from the private query log into verified recall triggers.

One run: read the log since the cursor, keep this vault's weak questions (refused, or cited with little
margin), deduplicate them, build each one's candidate pages with ``Router.decide`` (so the learner's own
lookups are not logged), ask a model in batches to pick a page and copy the sentence that answers, check
every pick (see ``_verify``), and add the question to the picked page's ``triggers``. Every change is
journaled in ``learned.jsonl`` before the page is renamed into place, so ``undo(run_id)`` can restore
the exact bytes. The model never writes anything: it proposes, this module verifies and writes.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from krouter import config, page_edit, querylog
from krouter.atomic import atomic_write
from krouter.errors import KRouterError
from krouter.lanes import Lane, LaneError
from krouter.learn_prompt import SYSTEM, BatchQuestion, MalformedReply, Proposal, parse, render
from krouter.quote_check import is_sentence, quote_on_page, shared_words
from krouter.receipt import Citation
from krouter.router import Router
from krouter.safe_text import visible
from krouter.tokenizer import fallback_bigrams, is_cjk, normalize, query_terms
from krouter.vault import contained_path, parse_page, read_contained

JOURNAL_NAME = "learned.jsonl"
OUTCOMES_NAME = "learn_log.jsonl"
CURSOR_NAME = "learn_cursor.json"
WEAK_MARGIN = 0.15
BATCH_SIZE = 5
CANDIDATE_POOL = 12
MAX_CANDIDATES = 5
DEFAULT_MAX = 50
# A whole run's model time. A hung endpoint costs each call its timeout times its retries (~6 minutes
# with the API lane's defaults); past this, the questions left are "uncertain" and asked next run.
RUN_BUDGET_S = 20 * 60.0

LEARNED = "learned"
PROPOSED = "proposed"  # would be learned; dry run
REJECTED = "rejected"
NO_PAGE = "no-page"
UNCERTAIN = "uncertain"
SKIPPED = "skipped"


@dataclass
class Outcome:
    """What happened to one weak question in a run."""

    question: str
    status: str
    page: str | None = None
    quote: str | None = None
    reason: str = ""
    candidates: list[str] = field(default_factory=list)


@dataclass
class LearnReport:
    """The result of one run (or one undo)."""

    run_id: str
    vault: str
    lane: str
    model: str
    dry_run: bool
    outcomes: list[Outcome] = field(default_factory=list)
    log_entries: int = 0
    weak: int = 0
    cursor_advanced: bool = False

    def count(self, status: str) -> int:
        """How many questions ended with ``status``."""
        return sum(o.status == status for o in self.outcomes)

    def to_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return asdict(self)

    def to_text(self) -> str:
        """A short human summary, one line per question."""
        head = (
            f"run {self.run_id}{' (dry run)' if self.dry_run else ''}: {self.weak} weak question{'' if self.weak == 1 else 's'} from "
            f"{self.log_entries} log entries; learned {self.count(LEARNED)}, proposed {self.count(PROPOSED)}, "
            f"rejected {self.count(REJECTED)}, no page {self.count(NO_PAGE)}, "
            f"uncertain {self.count(UNCERTAIN)}, skipped {self.count(SKIPPED)}"
        )
        lines = [head]
        for o in self.outcomes:
            where = f" -> {o.page}" if o.page else ""
            why = f" ({o.reason})" if o.reason else ""
            lines.append(f"  {o.status:9} {o.question!r}{where}{why}")
        # The page string comes from the model and the questions from the log: shown, never obeyed.
        return "\n".join(visible(line) for line in lines)


@dataclass
class _Weak:
    question: str
    first_time: float


# ----- the query log and the cursor ---------------------------------------------------------------


def _log_files() -> list[Path]:
    path = querylog.log_path()
    rotated = [path.with_name(f"{path.name}.{n}") for n in range(querylog.KEEP_ROTATED, 0, -1)]
    return [p for p in (*rotated, path) if p.exists()]


def _cursor_path() -> Path:
    return config.state_dir() / CURSOR_NAME


def _read_cursor(vid: str) -> float:
    try:
        data = json.loads(_cursor_path().read_text(encoding="utf-8"))
        return float(data.get(vid, 0.0))
    except (OSError, ValueError, TypeError, AttributeError):
        return 0.0


def _write_cursor(vid: str, value: float) -> None:
    path = _cursor_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            data = {}
    except (OSError, ValueError):
        data = {}
    data[vid] = value
    _write_private(path, json.dumps(data, indent=1).encode("utf-8"), append=False)


def _is_weak(item: dict[str, object]) -> bool:
    if item.get("decision") == "refuse":
        return True
    margin = item.get("margin")
    return isinstance(margin, (int, float)) and margin < WEAK_MARGIN


def _question_key(question: str) -> str:
    return " ".join(normalize(question).split()).rstrip("?？!！.。 ")


def weak_questions(
    entries: Iterable[dict[str, object]], vid: str, since: float
) -> tuple[list[_Weak], list[float]]:
    """This vault's weak questions logged after ``since``, deduplicated, oldest first; and all entry times.

    Ordered by when each question was first asked, so a bounded run (``--max``) handles the oldest first.
    """
    seen: dict[str, _Weak] = {}
    times: list[float] = []
    for item in entries:
        t = item.get("time")
        q = item.get("question")
        if item.get("vault_id") != vid or not isinstance(t, (int, float)) or t <= since:
            continue
        times.append(float(t))
        if not isinstance(q, str) or not q.strip() or not _is_weak(item):
            continue
        key = _question_key(q)
        if key and key not in seen:
            seen[key] = _Weak(" ".join(q.split()), float(t))
    return sorted(seen.values(), key=lambda w: w.first_time), sorted(times)


def _log_entries() -> Iterable[dict[str, object]]:
    for path in _log_files():
        for _offset, item in querylog.read(path):
            yield item


# ----- candidates -----------------------------------------------------------------------------------


def candidates(router: Router, question: str, exclude: Iterable[str]) -> list[Citation]:
    """The live pages the router would consider for a question, minus inputs/clippings folders.

    Replaced pages never appear: the router ranks them under their replacement, or skips them.
    """
    receipt = router.decide(question, k=CANDIDATE_POOL)
    folders = config.folder_names(exclude)
    keep = [c for c in receipt.candidates if not config.in_folders(c.path, folders)]
    return keep[:MAX_CANDIDATES]


# ----- verification ----------------------------------------------------------------------------------


def _df(router: Router, term: str, ignore: set[int]) -> int:
    return sum(1 for row in router.index.postings(term) if row[0] not in ignore)


def _specific_units(router: Router, question: str, ignore: set[int]) -> list[str]:
    """The question's rarest words that the vault's memory pages hold (lowest document frequency).

    Pages in ``ignore`` (inputs and clippings) do not count: they are reading material, not memory,
    and their broad vocabulary would make every real answer look like a neighbour.
    """
    best: list[str] = []
    best_df: int | None = None
    # The same vocabulary-aware cut as the router's, so these units are the ones a citation matched.
    for qt in query_terms(question, known=router.index.has_term):
        df = _df(router, qt.term, ignore)
        if df == 0 and is_cjk(qt.term) and fallback_bigrams(qt.term):
            df = min(_df(router, g, ignore) for g in fallback_bigrams(qt.term))
        if df == 0:
            continue
        if best_df is None or df < best_df:
            best, best_df = [qt.text], df
        elif df == best_df:
            best.append(qt.text)
    return best


def _holds(router: Router, page: str, question: str, units: list[str]) -> set[str]:
    """Which of the question's ``units`` (display texts) the page holds, looked up in the index."""
    pid = next((row[0] for row in router.index.page_table() if row[1] == page), None)
    if pid is None:
        return set()
    held: set[str] = set()
    for qt in query_terms(question, known=router.index.has_term):
        if qt.text not in units:
            continue
        terms = [qt.term]
        if not router.index.postings(qt.term) and is_cjk(qt.term) and fallback_bigrams(qt.term):
            terms = list(fallback_bigrams(qt.term))
        if all(any(row[0] == pid for row in router.index.postings(term)) for term in terms):
            held.add(qt.text)
    return held


def _named_elsewhere(router: Router, question: str, page: str) -> tuple[str, str] | None:
    """A question word this page's own text lacks while another current page's title, aliases, tags or
    path hold it, with that page; or None.

    Such a word names another subject ("frontend" when a "Frontend team" page exists): written onto
    this page it would make a trigger that the router does not count (``Router._fired_triggers``), and
    it is the mark of a neighbour, not of a rewording.
    """
    rows = router.index.page_table()
    pid = next((r[0] for r in rows if r[1] == page), None)
    live = {r[0]: r[1] for r in rows if not r[4]}
    for qt in query_terms(question, known=router.index.has_term):
        postings = {r[0]: r[1:] for r in router.index.postings(qt.term)}
        own = postings.get(pid) if pid is not None else None
        if own and (own[0] or own[2]):
            continue
        other = sorted(live[p] for p, tf in postings.items() if tf[0] and p != pid and p in live)
        if other:
            return qt.text, other[0]
    return None


def verify_pick(
    router: Router,
    question: str,
    ignore: set[int],
    cands: list[Citation],
    page: str,
    quote: str | None,
    text: str,
    also: Sequence[tuple[str, list[Citation]]] = (),
) -> str | None:
    """Why a pick of ``page`` for ``question`` must be rejected, or None when it passes every check.

    The one verification path for every teacher: the nightly model and an agent (``krouter.teach``).
    ``cands`` are the question's candidates, ``also`` the agent's phrasings with theirs (the nightly
    learner has none). ``text`` is the picked page's current text. The page must be a candidate of the
    question or of a phrasing; the quote must be on the page's body (frontmatter, where earlier triggers
    live, cannot vouch for itself), be a sentence, and share a content word with the question or a
    phrasing. Every wording that shares a word with the quote (the question itself whenever it does)
    must find on the page its most specific word that the vault knows: a page lacking it while other
    pages hold it is a neighbour, not the answer. A phrasing therefore cannot vouch for a question
    that the quote's own words tie to a neighbour. Nor may the question hold a word that names another
    page (its title, aliases, tags or path) while this page's text lacks it: the router would not
    count such a trigger, and that word is what makes the question a neighbour's.
    """
    askings = [(question, cands), *also]
    if not any(page in {c.path for c in cs} for _, cs in askings):
        return "the page is not one of this question's candidates"
    if not quote or not quote.strip():
        return "no quote"
    parsed = parse_page(page, text)
    if parsed.yaml_error:
        # Broken or oversized frontmatter (an alias bomb among them) is not loaded again to be edited.
        return f"the page's frontmatter has a problem ({parsed.yaml_error}); fix it first"
    if parsed.replaced:
        return "the page is marked replaced"
    if not quote_on_page(quote, parsed.body):
        return "the quote is not on the page"
    if not is_sentence(quote):
        return "the quote is a fragment, not a sentence"
    linked = [(q, cs) for q, cs in askings if shared_words(quote, q)]
    if not linked:
        what = "the question or its phrasings" if also else "the question"
        return f"the quote shares no content word with {what}"
    named = _named_elsewhere(router, question, page)
    if named:
        return f"neighbour page: it lacks {named[0]!r}, which names another page ({named[1]})"
    for wording, cs in linked:
        specific = _specific_units(router, wording, ignore)
        if not specific:
            continue
        by_path = {c.path: c for c in cs}
        matched = set(by_path[page].matched) if page in by_path else _holds(router, page, wording, specific)
        if not matched & set(specific):
            words = ", ".join(repr(w) for w in specific)
            return f"neighbour page: it lacks {words}, which other pages hold"
    return None


# ----- journal ----------------------------------------------------------------------------------------


def journal_path() -> Path:
    """Where every change the learner made is recorded (``learned.jsonl`` in the state dir)."""
    return config.state_dir() / JOURNAL_NAME


def outcomes_path() -> Path:
    """Where every run's outcomes, rejections with their reasons included, are recorded."""
    return config.state_dir() / OUTCOMES_NAME


def _write_private(path: Path, data: bytes, append: bool) -> None:
    """Append to, or atomically replace, a private state file (0600, in a 0700 folder)."""
    config.private_dir(path.parent)
    if append:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        return
    atomic_write(path, data, mode=0o600)


def _append_jsonl(path: Path, obj: dict[str, object]) -> None:
    _write_private(path, (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8"), append=True)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def new_run_id() -> str:
    """A sortable, unique run id: UTC time plus a random suffix."""
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + secrets.token_hex(3)


_OUT_OF_TIME = "the run's time budget (%.0f s) ran out before the model was asked; asked again next run"


# ----- the run -----------------------------------------------------------------------------------------


def _batches(items: list, size: int) -> Iterable[list]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _page_start(root: Path, rel: str) -> str:
    text = read_contained(root, contained_path(root, rel)).decode("utf-8", errors="replace")
    return parse_page(rel, text).body.strip()


def learn(
    vault: Path | str,
    lane: Lane,
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
    is asked again next time. ``time_budget`` bounds the run's model calls, in seconds.
    """
    deadline = time.monotonic() + max(time_budget, 0.0)
    # Every call's timeout is capped by what is left (lanes that do not know the attribute ignore it).
    lane.deadline = deadline
    cfg = config.load_config()
    folders = config.folder_names(exclude_folders if exclude_folders is not None else cfg.exclude_folders)
    run_id = run_id or new_run_id()
    with Router(vault) as router:
        root = router.root
        vid = querylog.vault_id(root)
        since = _read_cursor(vid)
        weak, times = weak_questions(_log_entries(), vid, since)
        report = LearnReport(run_id, str(root), lane.name, lane.model, dry_run, log_entries=len(times))
        report.weak = len(weak)
        todo = weak[: max(max_questions, 0)]
        rest = weak[len(todo) :]

        router.refresh()
        # Inputs and clippings pages, left out of the neighbour check (see _specific_units).
        ignore = {row[0] for row in router.index.page_table() if config.in_folders(row[1], folders)}
        prepared: list[tuple[str, list[Citation]]] = []
        for w in todo:
            problem = page_edit.trigger_problem(page_edit.clean_trigger(w.question))
            if problem:
                # Refused before the model sees it: it could never be written as a trigger.
                report.outcomes.append(Outcome(w.question, SKIPPED, reason=problem))
                continue
            cands = candidates(router, w.question, folders)
            if not cands:
                report.outcomes.append(Outcome(w.question, SKIPPED, reason="no candidate page"))
                continue
            prepared.append((w.question, cands))

        for batch in _batches(prepared, max(batch_size, 1)):
            if time.monotonic() >= deadline:
                report.outcomes.extend(
                    Outcome(
                        q, UNCERTAIN, reason=_OUT_OF_TIME % time_budget, candidates=[c.path for c in cands]
                    )
                    for q, cands in batch
                )
                continue
            report.outcomes.extend(_run_batch(router, lane, batch, ignore, run_id, dry_run))

        for o in report.outcomes:
            _append_jsonl(
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
                _write_cursor(vid, done[-1])
                report.cursor_advanced = True
    return report


def _run_batch(
    router: Router,
    lane: Lane,
    batch: list[tuple[str, list[Citation]]],
    ignore: set[int],
    run_id: str,
    dry_run: bool,
) -> list[Outcome]:
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
        except LaneError as exc:
            return all_as(UNCERTAIN, str(exc))
        try:
            proposals, found = parse(reply)
        except MalformedReply as exc:
            # Not the JSON asked for (cut off, an error page, prose): the model did not answer.
            return all_as(UNCERTAIN, f"model reply unusable: {exc}")
        problems.extend(found)
        by_q: dict[int, Proposal] = {}
        for p in proposals:
            # One answer per question: a second answer for the same number is ignored, not merged.
            by_q.setdefault(p.q, p)
        replies.append(by_q)
    out: list[Outcome] = []
    for (question, cands), b in zip(batch, qs, strict=True):
        first, second = (r.get(b.q) for r in replies)
        cand_paths = list(b.candidates)
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
            out.append(
                Outcome(
                    question, NO_PAGE, reason="the model says no candidate answers", candidates=cand_paths
                )
            )
            continue
        out.append(_apply(router, question, ignore, cands, first, run_id, lane, dry_run))
    return out


def _apply(
    router: Router,
    question: str,
    ignore: set[int],
    cands: list[Citation],
    prop: Proposal,
    run_id: str,
    lane: Lane,
    dry_run: bool,
) -> Outcome:
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
    if reason:
        outcome.reason = reason
        return outcome
    outcome.status, outcome.reason = write_trigger(
        root,
        page,
        question,
        run_id,
        dry_run=dry_run,
        record={"quote": prop.quote, "lane": lane.name, "model": lane.model},
    )
    return outcome


@dataclass(frozen=True)
class PageBytes:
    """A page as read for an edit: its path, exact bytes, and text (BOM kept, as the bytes hold it)."""

    rel: str
    path: Path
    data: bytes
    text: str


def read_for_edit(root: Path, rel: str) -> PageBytes:
    """Read a page for an edit, confined to the vault; raises KRouterError, OSError or UnicodeDecodeError."""
    path = contained_path(root, rel)
    data = read_contained(root, path)
    return PageBytes(rel, path, data, data.decode("utf-8-sig"))


def write_trigger(
    root: Path,
    page: PageBytes,
    question: str,
    run_id: str,
    *,
    dry_run: bool,
    record: dict[str, object],
) -> tuple[str, str]:
    """Add ``question`` to a verified page's ``triggers`` and journal it: (status, reason).

    The one page-edit path for every teacher. LEARNED when written, PROPOSED in a dry run, SKIPPED
    (with the reason) when the page already has the trigger, cannot be edited safely, or changed since
    it was read. ``record`` adds who taught it (lane, model, quote, ...) to the journal entry.
    """
    trigger = page_edit.clean_trigger(question)
    existing = {normalize(t) for t in parse_page(page.rel, page.text).triggers}
    if normalize(trigger) in existing:
        return SKIPPED, "already a trigger of the page"
    try:
        new = page_edit.with_trigger(page.data, trigger)
    except page_edit.PageEditError as exc:
        return SKIPPED, str(exc)
    if dry_run:
        return PROPOSED, ""
    sp = page_edit.splice(page.data, new)
    entry = {
        "run_id": run_id,
        "time": time.time(),
        "vault": str(root),
        "page": page.rel,
        "trigger": trigger,
        **record,
        "offset": sp.offset,
        "old": _b64(sp.old),
        "new": _b64(sp.new),
        "before_sha256": _digest(page.data),
        "after_sha256": _digest(new),
    }
    try:
        page_edit.atomic_replace(
            page.path, new, page.data, before_rename=lambda: _append_jsonl(journal_path(), entry)
        )
    except page_edit.PageChanged as exc:
        return SKIPPED, str(exc)
    return LEARNED, ""


# ----- undo ----------------------------------------------------------------------------------------------


def journal_entries(run_id: str | None = None) -> list[dict[str, object]]:
    """Journal entries, all or one run's, in the order they were written; corrupt lines skipped."""
    out = []
    for _offset, item in querylog.read(journal_path()):
        if "page" in item and (run_id is None or item.get("run_id") == run_id):
            out.append(item)
    return out


def undo(run_id: str) -> LearnReport:
    """Reverse one run's changes, newest first, restoring each page's exact bytes.

    A page that changed since the run (it no longer holds the bytes the run wrote) is left alone and
    reported; a change that never reached the page (a crash before the rename) needs nothing.
    """
    entries = journal_entries(run_id)
    if not entries:
        raise KRouterError(f"no learner run {run_id!r} in {journal_path()}")
    report = LearnReport(run_id, str(entries[0].get("vault", "")), "undo", "", dry_run=False)
    for e in reversed(entries):
        trigger = str(e.get("trigger", ""))
        page = str(e["page"])
        o = Outcome(trigger, SKIPPED, page=page)
        report.outcomes.append(o)
        try:
            path = contained_path(Path(str(e["vault"])), page)
            current = read_contained(Path(str(e["vault"])), path)
        except (KRouterError, OSError) as exc:
            o.reason = f"page cannot be read: {exc}"
            continue
        if _digest(current) == e["before_sha256"]:
            o.status, o.reason = (
                "unchanged",
                "the page already holds its bytes from before the run (undone already?)",
            )
            continue
        if _digest(current) != e["after_sha256"]:
            o.reason = "the page changed since the run; left alone"
            continue
        off = int(e["offset"])  # type: ignore[arg-type]
        old, new = base64.b64decode(str(e["old"])), base64.b64decode(str(e["new"]))
        restored = current[:off] + old + current[off + len(new) :]
        if _digest(restored) != e["before_sha256"]:
            o.reason = "journal entry does not match the page; left alone"
            continue
        try:
            page_edit.atomic_replace(path, restored, current)
        except page_edit.PageChanged as exc:
            o.reason = str(exc)
            continue
        o.status, o.reason = "restored", ""
    _append_jsonl(
        outcomes_path(), {"undo": run_id, "time": time.time(), "restored": report.count("restored")}
    )
    return report
