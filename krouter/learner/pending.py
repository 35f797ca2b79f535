"""Picks held until a second, independent source agrees: pending triggers (docs/decisions.md D50).

No check on one teacher's pick tells an honest rewording from a neighbour's question (D18, D24, D50):
a teacher that is consistently wrong (a careless agent, a steered one, a plausible-but-wrong model)
passes every check on its own, and its trigger makes the neighbour question citeable. So a verified pick
from one source is not written: it is held here (``pending.jsonl`` in the state dir, private) and
written only when a second source names the same page for the same question and quotes the same
passage of it (``second_source``), through the one write path (``trigger_writes.write_confirmed``:
journaled, asked again, undoable). The sources:

- an agent (``krouter_teach``, ``krouter teach``), held unless ``pending_triggers = "none"``;
- the nightly model, held by default (``pending_triggers = "all"``); with ``"agents"`` its picks are
  written at once, as before, and one that names an agent's held page confirms it;
- the owner: ``krouter learn --accept ID`` writes a held pick (after the same checks), ``--reject ID``
  drops it. A pick only the last check doubts (``doubt`` on its hold) waits for the owner alone.

A second agent does not count: an agent names itself, so a steered agent could confirm its own pick
from a new session. A line here is a hold (``{"pending": id, ...}``) or its end (``{"resolved": id,
"how": "written"|"rejected"|"superseded", ...}``); a held pick is open until it has an end.
"""

from __future__ import annotations

import secrets
import shlex
import time
from pathlib import Path

from krouter import config
from krouter.errors import KRouterError
from krouter.learner import page_edit
from krouter.learner.clipped import clipped_ids
from krouter.learner.journal import append_jsonl, journal_entries, new_run_id, undone_runs
from krouter.learner.quotes import quote_on_page, same_passage
from krouter.learner.report import LEARNED, SKIPPED
from krouter.learner.stand_in import gone, stood_in
from krouter.learner.trigger_writes import TAKEN_BACK, read_for_edit, write_confirmed
from krouter.learner.verify import candidates, same_doubt, verify_pick
from krouter.routing import querylog
from krouter.routing.router import Router
from krouter.vault.page import parse_page

PENDING_NAME = "pending.jsonl"
AGENT = "agent"
NIGHTLY = "nightly"
OWNER = "owner"
WRITTEN = "written"
REJECTED = "rejected"
# A hold for the owner alone that a later pick of the same page passing every check took over, or one
# quoting what its page no longer says that any later pick of it took over (held for the owner too, when
# that pick has a doubt of its own): its end's "by" names that pick's hold.
SUPERSEDED = "superseded"
# What a hold line must hold, each as text, to be read as one.
_HOLD_FIELDS = ("pending", "vault", "page", "trigger")


def pending_path() -> Path:
    """Where held picks and their ends are recorded (``pending.jsonl`` in the state dir)."""
    return config.state_dir() / PENDING_NAME


def is_held(cfg: config.Config, source: str) -> bool:
    """Whether a verified pick from ``source`` (AGENT or NIGHTLY) waits for a second source."""
    mode = cfg.pending_triggers
    return mode == "all" or (mode == "agents" and source == AGENT)


def all_holds(vault: Path | None = None) -> list[dict[str, object]]:
    """Every hold (open or ended), oldest first, each with ``end`` set to its end line or None;
    ``vault`` keeps the holds recorded in that vault, never those of a vault it may stand in for (moved
    there, ``krouter.learner.stand_in``): teaching and the nightly learner read holds through here, and a
    gone vault's hold must not confirm, cap or bar a pick in a folder nobody named for it.
    Corrupt lines, and holds lacking a field as text (a hand edit), are skipped: the file is never
    rewritten."""
    holds: dict[str, dict[str, object]] = {}
    for _offset, item in querylog.read(pending_path()):
        if all(isinstance(item.get(k), str) for k in _HOLD_FIELDS):
            holds[str(item["pending"])] = {**item, "end": None}
        elif "resolved" in item and str(item["resolved"]) in holds:
            holds[str(item["resolved"])]["end"] = item
    if vault is None:
        return list(holds.values())
    root = str(vault.resolve())
    return [h for h in holds.values() if h.get("vault") == root]


def open_holds(vault: Path | None = None) -> list[dict[str, object]]:
    """The holds still waiting for a second source, oldest first."""
    return [h for h in all_holds(vault) if h["end"] is None]


def waiting(vault: Path) -> dict[str, object]:
    """How many of ``vault``'s holds wait (``pending``), and how many of them only the owner can settle
    (``for_owner``: a doubt no second teacher confirms); ``error`` says why, when the record of holds
    cannot be read (``krouter status`` reports it and goes on)."""
    try:
        holds = open_holds(vault)
    except (KRouterError, OSError) as exc:
        return {"pending": 0, "for_owner": 0, "error": str(exc)}
    return {"pending": len(holds), "for_owner": sum(1 for h in holds if h.get("doubt"))}


def status_line(held: dict[str, object], vault: Path) -> str | None:
    """What ``krouter status`` says of the holds ``waiting`` counted in ``vault``, or None when none wait.
    The command names the vault: ``learn --list`` lists the default vault's, which need not be this one."""
    if held.get("error"):
        return f"pending:  the record of held teachings cannot be read: {held['error']}"
    if not held["pending"]:
        return None
    listing = f"krouter learn --list --vault {shlex.quote(str(vault))}"
    return f"pending:  {held['pending']} taught, not written ({held['for_owner']} for you alone): {listing}"


def find(root: Path, question: str, page: str | None = None, source: str | None = None) -> dict | None:
    """The open hold of ``question`` in the vault at ``root`` (on ``page``, from ``source``), or None."""
    want = page_edit.trigger_key(question)
    for h in open_holds(root):
        if page_edit.trigger_key(str(h["trigger"])) != want:
            continue
        if (page is None or h["page"] == page) and (source is None or h["source"] == source):
            return h
    return None


def second_source(
    root: Path, question: str, page: str, source: str, quote: str, text: str
) -> tuple[dict | None, str]:
    """The open hold from ``source`` of this pick that a pick quoting ``quote`` confirms, or None and,
    when such a hold quotes another passage of the page (``text``), why it does not count.

    Two teachers agree when they name the same page and quote the same passage of it: one that quotes
    the page's first line while the other quotes the line that answers has not found the answer twice.
    On the learner bench a careless agent (the closest page, its first sentence) and a plausible-but-wrong
    model (the best word overlap) agreed on the page for three neighbour questions; on the passage, for
    one (docs/decisions.md D78). A hold for the owner alone (``doubt``) is never confirmed."""
    h = find(root, question, page, source)
    if h is None or h.get("doubt"):
        return None, ""
    held, body = str(h.get("quote") or ""), parse_page(page, text).body
    if same_passage(held, quote, body):
        return h, ""
    who = "an agent" if source == AGENT else "the nightly model"
    if not quote_on_page(held, body):
        return None, f"{who}'s pending {h['pending']} names this page, but its quote is no longer on it"
    return None, f"{who}'s pending {h['pending']} names this page but quotes another passage of it"


def quote_gone(h: dict[str, object], rel: str, text: str) -> bool:
    """Whether hold ``h``'s quote is no longer on its page ``rel``, whose text is now ``text``."""
    return not quote_on_page(str(h.get("quote") or ""), parse_page(rel, text).body)


def owner_refusal(root: Path, question: str, page: str) -> str | None:
    """Why the owner has already said no to ``question`` as a trigger of ``page``, or None: they rejected
    a hold of it, or undid a run that wrote it. Neither an agent nor the nightly model may hold or write
    it again (it came back held, then written by the nightly model's agreement)."""
    want = page_edit.trigger_key(question)
    for h in all_holds(root):
        end = h["end"]
        rejected = isinstance(end, dict) and end.get("how") == REJECTED
        if rejected and h["page"] == page and page_edit.trigger_key(str(h["trigger"])) == want:
            return f"the owner rejected this pick before (pending {h['pending']}): it is not taught again"
    undone = undone_runs()
    for e in journal_entries():
        mine = e.get("vault") == str(root) and e.get("page") == page and not e.get("taken_back")
        if mine and e.get("run_id") in undone and page_edit.trigger_key(str(e.get("trigger", ""))) == want:
            return f"the owner undid this trigger before (run {e['run_id']}): it is not taught again"
    return None


def hold(
    root: Path,
    page: str,
    question: str,
    quote: str,
    *,
    source: str,
    lane: str,
    model: str,
    phrasings: list[str] | None = None,
    doubt: str | None = None,
) -> dict[str, object]:
    """Record a verified pick as held; returns the hold (its id under ``pending``). A pick held with a
    ``doubt`` (what the checks found against it) waits for the owner alone: no second source confirms it."""
    entry: dict[str, object] = {
        "pending": "p" + secrets.token_hex(4),
        "time": time.time(),
        "vault": str(root),
        "page": page,
        "trigger": page_edit.clean_trigger(question),
        "quote": quote,
        "phrasings": list(phrasings or []),
        "source": source,
        "lane": lane,
        "model": model,
    }
    if doubt:
        entry["doubt"] = doubt
    append_jsonl(pending_path(), entry)
    return entry


def resolve(root: Path, pending_id: str, how: str, by: str, run_id: str | None = None) -> None:
    """End a hold: WRITTEN (by a second source or the owner, with the run id), REJECTED or SUPERSEDED."""
    append_jsonl(
        pending_path(),
        {
            "resolved": pending_id,
            "time": time.time(),
            "vault": str(root),
            "how": how,
            "by": by,
            "run_id": run_id,
        },
    )


def settle(
    root: Path, question: str, page: str, by: str, run_id: str | None, *, stand_in: str | None = None
) -> None:
    """End, as WRITTEN, every open hold of ``question`` on ``page``: the trigger is on the page now
    (written by a second source, the owner, or an agent while holding was off), and a twin hold (two
    teachers at once) must not wait for an accept that could only find it there already.

    ``stand_in``: the gone vault ``root`` stands in for in the owner's accept, the one the accepted hold
    recorded: its twins end too, or a twin held before the vault moved stayed listed as pending there,
    and its own accept said it was closed and left it open. Not any gone vault whose hold's page ``root``
    holds with the trigger (it does now, having just written it): a copy of the vault on a drive not
    plugged in (its folder gone) had its twin hold ended as written, its page never given the trigger,
    and its own accept refused ("was written already"; a review). Teaching and the nightly learner end
    the vault's own holds only (``krouter.learner.stand_in``)."""
    want = page_edit.trigger_key(question)
    vaults = {str(root.resolve()), *((stand_in,) if stand_in else ())}
    for h in open_holds():
        if h["vault"] in vaults and h["page"] == page and page_edit.trigger_key(str(h["trigger"])) == want:
            resolve(root, str(h["pending"]), WRITTEN, by, run_id)


def _open_hold(root: Path, pending_id: str) -> dict[str, object]:
    found = [h for h in all_holds() if h["pending"] == pending_id]
    if not found:
        raise KRouterError(f"no pending trigger {pending_id!r} in {pending_path()}")
    h = found[-1]
    if h["vault"] != str(root) and h["vault"] not in stood_in(root, found):
        away = (
            f" (not there now, and {root} lacks its page as held)"
            if gone(str(h["vault"]))
            else " (there, so nothing stands in for it; if it is empty, is its drive not mounted?)"
        )
        raise KRouterError(
            f"pending trigger {pending_id!r} belongs to the vault {h['vault']}{away}, not {root}"
        )
    end = h["end"]
    if isinstance(end, dict):
        raise KRouterError(f"pending trigger {pending_id!r} was {end.get('how')} already")
    return h


def accept(router: Router, pending_id: str) -> tuple[str, str, str | None]:
    """The owner writes a held pick: (status, reason, run id). LEARNED when the trigger is on the page
    and its question cites it; otherwise the reason says why nothing was kept, and the hold stays open.

    The pick passes the checks again (the page may have changed since it was held) and goes through
    ``write_confirmed``, journaled under a new run id that ``krouter learn --undo`` reverses.
    """
    root = router.root
    h = _open_hold(root, pending_id)
    rel, question, quote = str(h["page"]), str(h["trigger"]), str(h.get("quote") or "")
    # The gone vault this folder stands in for in this accept (``_open_hold`` let it), if any.
    away = str(h["vault"]) if h["vault"] != str(root) else None
    phrasings = [str(p) for p in h.get("phrasings") or [] if isinstance(p, str)]  # type: ignore[union-attr]
    cfg = config.load_config()
    folders = config.folder_names(cfg.exclude_folders)
    try:
        page = read_for_edit(root, rel)
    except (KRouterError, OSError, UnicodeDecodeError) as exc:
        return "rejected", f"page cannot be read: {exc}", None
    if page_edit.holds_trigger(rel, page.text, question):
        # Written meanwhile (by hand, or by a twin hold's accept): nothing to write, nothing to wait for.
        settle(root, question, rel, OWNER, None, stand_in=away)
        return SKIPPED, "already a trigger of the page; the hold is closed", None
    router.refresh()
    ignore = clipped_ids(router, folders)
    cands = candidates(router, question, folders)
    also = [(p, candidates(router, p, folders)) for p in phrasings]
    # The owner vouches for the doubt the hold was listed with, not for another that arose since (a page
    # added, the page edited): that one is shown, and the hold stays.
    problem = verify_pick(router, question, ignore, cands, rel, quote, page.text, also)
    if problem and not same_doubt(problem, h.get("doubt")):
        return "rejected", f"it no longer passes the checks: {problem}", None
    run_id = new_run_id()
    status, reason = write_confirmed(
        router,
        page,
        question,
        run_id,
        dry_run=False,
        record={"quote": quote, "lane": OWNER, "model": f"accepted {h['lane']}", "pending_id": pending_id},
    )
    if status == LEARNED:
        resolve(root, pending_id, WRITTEN, OWNER, run_id)
        settle(root, question, rel, OWNER, run_id, stand_in=away)
        return status, reason, run_id
    if status == TAKEN_BACK:
        return status, f"{reason}; the trigger was written and taken back (run {run_id})", None
    return status, reason, None


def reject(root: Path, pending_id: str) -> dict[str, object]:
    """The owner drops a held pick: nothing is written, and ``krouter learn --list`` shows it rejected."""
    h = _open_hold(root, pending_id)
    resolve(root, pending_id, REJECTED, OWNER)
    return h
