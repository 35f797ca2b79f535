"""The receipt every lookup returns: what was cited and why, what was skipped, and the evidence."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

from krouter.safe_text import visible

Decision = Literal["cite", "refuse"]


def against_floor(confidence: float, floor: float, *, percent: bool = False) -> tuple[str, str]:
    """A confidence and the floor as a receipt prints them, with as many digits as it takes for them to
    differ when they do: a refusal at 0.5497 must not read "confidence 0.55 vs floor 0.55"."""
    shown = ("", "")
    for extra in range(4):
        spec = f".{extra}%" if percent else f".{extra + 2}f"
        shown = (format(confidence, spec), format(floor, spec))
        if shown[0] != shown[1] or confidence == floor:
            break
    return shown


class _Passage:
    """A citation's ``line`` or ``snippet``: given, or worked out on first read with its twin.

    A receipt lists up to k pages, but what reads it mostly reads one: the cited page's passage (the
    MCP reply, the text receipt), or on a refusal the closest pages' lines. Reading and weighing the
    runner-ups' passages was about a fifth of an English lookup's time at 10k pages, so theirs are
    weighed when something reads them (``--json``, ``asdict``, pickling). Each page's text and
    its passages' terms are read with the lookup (on the thread that owns the index, as the page was
    then), so what is left for later is computation only: a receipt may be read on any thread, after
    its router closed or the page changed, and gives what it would have given at once."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._slot = "_" + name

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        if obj is None:
            # No default: the field stays required (dataclasses read a default off the class).
            raise AttributeError(self._slot[1:])
        held = obj.__dict__
        found = held.get(self._slot, _LATER)
        if found is _LATER:
            # Two threads reading at once may both work it out (the same values); neither fails, and
            # both values are written in one step, so no reader sees one without the other.
            later = held.get("_later")
            if later is not None:
                line, snippet = later()
                held.update({k: v for k, v in (("_line", line), ("_snippet", snippet)) if k not in held})
                held.pop("_later", None)
            found = held[self._slot]
        return found

    def __set__(self, obj: object, value: object) -> None:
        if value is not _LATER:
            obj.__dict__[self._slot] = value


_LATER = object()


@dataclass
class Citation:
    """One cited page. ``line`` and ``snippet`` point at the passage that matched best (a receipt's
    runner-ups' are worked out when first read: ``later``).

    ``via`` is the replaced page the match was made on, when the page is cited as its replacement, and
    ``via_words`` the matched question words that only that replaced page holds (the cited page itself
    does not: "the JLCPCB account manager's phone" reaches the page that replaced JLCPCB), and
    ``via_elsewhere`` those only another replaced page leading to it holds, each with that page (with
    no ``via``, the page outscoring them all: any replaced page leading to it);
    ``via_triggers`` the question words the page's ``triggers:`` (written by a person, or taught by the
    learner or an agent) hold and its text does not, when the page's text alone would not have been
    cited: the citation rests on them. ``found_by`` is the agent's phrasing whose lookup listed the page
    (None: the question as asked): its ``score``, ``matched`` and ``missing`` are that phrasing's."""

    path: str
    title: str
    score: float
    line: int = _Passage()  # type: ignore[assignment]
    snippet: str = _Passage()  # type: ignore[assignment]
    matched: list[str]
    missing: list[str]
    via: str | None = None
    via_triggers: list[str] = field(default_factory=list)
    via_words: list[str] = field(default_factory=list)
    via_elsewhere: list[str] = field(default_factory=list)
    found_by: str | None = None

    def found_through(self, wording: str | None) -> Citation:
        """This citation as listed by the lookup of ``wording`` (``found_by``), its passage still worked
        out only when read: ``dataclasses.replace`` would read it now."""
        made = object.__new__(Citation)
        made.__dict__.update(self.__dict__)
        made.__dict__["found_by"] = wording
        return made

    def __getstate__(self) -> dict[str, Any]:
        """What pickling and ``copy`` keep: the worked-out line and snippet, not the work. Both are read
        first, then the state is copied in one step (another thread may still be dropping the work)."""
        _ = self.line, self.snippet
        state = dict(self.__dict__)
        state.pop("_later", None)
        return state

    @classmethod
    def later(cls, passage: Callable[[], tuple[int, str]], **fields: Any) -> Citation:
        """A citation whose ``line`` and ``snippet`` are ``passage()``, called when either is first read
        (by each of two threads reading at once, at worst; it reads nothing: see ``_Passage``)."""
        made = cls(line=_LATER, snippet=_LATER, **fields)  # type: ignore[arg-type]
        made.__dict__["_later"] = passage
        return made


@dataclass
class Redirect:
    """A replaced page that the question hit, and the current page it leads to (``chain`` in order)."""

    from_path: str
    to_path: str | None
    chain: list[str]
    problem: str | None = None

    def to_dict(self) -> dict[str, object]:
        """JSON form, with ``from``/``to`` keys."""
        return {"from": self.from_path, "to": self.to_path, "chain": self.chain, "problem": self.problem}

    def replaced_note(self) -> str | None:
        """What a reader of ``from_path`` must be told (None when the page is current)."""
        if self.to_path == self.from_path:
            return None
        now = (
            f"the current page is {self.to_path}"
            if self.to_path
            else f"it has no current page ({self.problem})"
        )
        return f"{self.from_path} was replaced; {now}"


# How many of a refusal's closest pages an agent is asked to read (and whose languages it is told).
READ_CLOSEST = 3


@dataclass
class Evidence:
    """The numbers behind the decision.

    ``confidence`` is compared with ``floor``: ``coverage`` (the IDF-weighted share of the question's
    content the top page covers, averaged between the whole page and its best passage) times a clarity
    factor from ``margin`` (how far the top page's score stands above the next one's, relative to its
    own). Both are ratios, so they mean the same on any vault. ``corpus_missing`` are question words no
    page contains;
    ``elsewhere_missing`` are words other pages hold but the top page does not (the neighbour signal);
    ``untranslated`` are Chinese question words that the top page, written in English, lacks and no
    dictionary translates: each weighs half (``krouter.routing.untranslated``). ``wording`` are the words
    the top page lacks past its two rarest, none of them naming a subject nor weighing half already:
    each weighs a quarter (``krouter.routing.wording``).
    ``semantic`` is what the semantic second opinion found, when it was asked (``krouter.routing.semantic``).
    ``in_folders`` are the words of ``corpus_missing`` that a folder's own name holds, each with that
    folder: pages are read, not folders' names, but the vault does write them.
    ``unread`` are the pages that ranked above the one decided on but whose file cannot be read now (a
    folder made unreadable), each with why: passed over, as a deleted page is.
    """

    confidence: float = 0.0
    floor: float = 0.0
    coverage: float = 0.0
    page_coverage: float = 0.0
    passage_coverage: float = 0.0
    margin: float = 0.0
    query_terms: list[str] = field(default_factory=list)
    corpus_missing: list[str] = field(default_factory=list)
    elsewhere_missing: list[str] = field(default_factory=list)
    untranslated: list[str] = field(default_factory=list)
    wording: list[str] = field(default_factory=list)
    semantic: dict[str, object] | None = None
    in_folders: dict[str, str] = field(default_factory=dict)
    unread: dict[str, str] = field(default_factory=dict)


@dataclass
class Route:
    """How one wording of the question fared: the question itself or a phrasing the caller supplied."""

    text: str
    decision: Decision
    top: str | None
    confidence: float
    # The confidence this wording had to reach: the floor for the question itself, a phrasing's bar
    # (``phrasings.phrasing_floor`` or ``agreeing_floor``) for a phrasing; ``decision`` is against it.
    floor: float = 0.0


@dataclass
class Receipt:
    """Everything a lookup decided, in a form a person or an agent can check.

    ``phrasing`` names the wording whose lookup decided, or on a refusal came closest (None: the question
    as asked); ``routes`` lists how every wording fared when the caller gave alternative phrasings
    (empty otherwise).
    """

    query: str
    vault: str
    decision: Decision
    candidates: list[Citation]
    redirects: list[Redirect]
    skipped: list[str]
    evidence: Evidence
    reason: str
    index: dict[str, object] = field(default_factory=dict)
    phrasing: str | None = None
    routes: list[Route] = field(default_factory=list)

    def refused(self, reason: str) -> Receipt:
        """This receipt with its citation refused for ``reason``. Like a veto's, the refusal's confidence is
        none ("confidence 1.00" beside REFUSE would read as a contradiction); the reason says the words'."""
        return replace(
            self, decision="refuse", evidence=replace(self.evidence, confidence=0.0), reason=reason
        )

    @property
    def cited(self) -> list[Citation]:
        """The cited page (a list of one) when the decision is to cite, else nothing.

        A list for the JSON schema's sake; the runner-ups stay in ``candidates``: a page that merely ranked
        second was not cited, and a reader of ``cited`` must not take it for an answer."""
        return self.candidates[:1] if self.decision == "cite" else []

    @property
    def semantic_cited(self) -> bool:
        """True when the page is cited on the semantic second opinion, its words having fallen short."""
        return self.decision == "cite" and bool((self.evidence.semantic or {}).get("agrees"))

    @property
    def top(self) -> Citation | None:
        """The cited page, or None on a refusal."""
        return self.cited[0] if self.cited else None

    @property
    def shown_redirects(self) -> list[Redirect]:
        """The replacements a reader of this answer needs: those leading to the page it names (cited, or
        closest on a refusal) and dead ends. One leading to a page further down the list would read as
        "the answer was replaced" about a page the answer is not about."""
        page = self.top or self.closest
        return [
            r for r in self.redirects if r.to_path is None or (page is not None and r.to_path == page.path)
        ]

    @property
    def closest(self) -> Citation | None:
        """The best candidate, cited or not (on a refusal: the page that was not good enough)."""
        return self.candidates[0] if self.candidates else None

    def to_dict(self) -> dict[str, object]:
        """JSON-able form (the schema ``krouter ask --json`` prints)."""
        return {
            "query": self.query,
            "vault": self.vault,
            "decision": self.decision,
            "cited": [asdict(c) for c in self.cited],
            "candidates": [asdict(c) for c in self.candidates],
            "redirects": [r.to_dict() for r in self.redirects],
            "skipped": self.skipped,
            "evidence": asdict(self.evidence),
            "reason": self.reason,
            "phrasing": self.phrasing,
            "routes": [asdict(r) for r in self.routes],
            "index": self.index,
        }

    def to_text(self) -> str:
        """Human-readable rendering for the terminal."""
        ev = self.evidence
        lines: list[str] = []
        if self.decision == "cite" and self.top:
            top = self.top
            lines.append(f"CITE  {top.path}  ({top.title})")
            lines.append(f"  line {top.line}: {top.snippet}")
            lines.append(
                f"  matched: {', '.join(top.matched) or '-'}   missing: {', '.join(top.missing) or '-'}"
            )
            lines.extend(_via_lines(top))
            if top.via_triggers:
                lines.append(
                    f"  through triggers only: {', '.join(top.via_triggers)} (the pages' text lacks them)"
                    if top.via
                    else f"  through its triggers only: {', '.join(top.via_triggers)} (the page's text lacks them)"
                )
            for c in self.candidates[1:]:
                through = f" ({_through_replaced(c)})" if c.via_words or c.via_elsewhere else ""
                lines.append(
                    f"  runner-up: {c.path}  score {c.score:.2f}  matched: {', '.join(c.matched) or '-'}{through}"
                )
        else:
            # Not "the vault holds no page that answers": the closest pages below may (a first-hour trial).
            lines.append("REFUSE  no page answers this clearly enough to cite")
            if self.closest:
                top = self.closest
                lines.append(f"  closest: {top.path}  ({top.title}), line {top.line}")
                lines.append(
                    f"  matched: {', '.join(top.matched) or '-'}   missing: {', '.join(top.missing) or '-'}"
                )
                lines.extend(_via_lines(top))
                # The next pages to read too: a refused agent (or person) checks these before giving up.
                for c in self.candidates[1:]:
                    lines.append(f"  also close: {c.path}, line {c.line}{_found_note(c, self.phrasing)}")
        for r in self.shown_redirects:
            if r.to_path:
                lines.append(f"  redirect: {r.from_path} was replaced -> {' -> '.join(r.chain[1:])}")
            else:
                lines.append(f"  skipped: {r.from_path} was replaced ({r.problem})")
        lines.extend(f"  passed over: {path} cannot be read now ({why})" for path, why in ev.unread.items())
        if self.phrasing is not None:
            lines.append(f"  {phrasing_line(self.decision, self.phrasing)}")
        if never := [w for w in ev.corpus_missing if w not in ev.in_folders]:
            lines.append(f"  words the vault never contains: {', '.join(never)}")
        if ev.in_folders:
            named = ", ".join(f"{w} ({folder}/)" for w, folder in ev.in_folders.items())
            lines.append(f"  words no page contains, only a folder's name: {named}")
        if ev.untranslated:
            lines.append(f"  no translation known, counted at half: {', '.join(ev.untranslated)}")
        if ev.wording:
            lines.append(f"  lacking words read as wording, counted at a quarter: {', '.join(ev.wording)}")
        confidence, floor = against_floor(ev.confidence, ev.floor)
        lines.append(f"  confidence {confidence} vs floor {floor}")
        if ev.semantic is not None:
            # A disagreement's "why" holds its numbers; an agreement's says it in words.
            cosine = ev.semantic.get("cosine")
            shown = f" (cosine {cosine})" if cosine is not None and ev.semantic.get("agrees") else ""
            lines.append(f"  semantic second opinion: {ev.semantic.get('why')}{shown}")
        lines.append(f"  reason: {self.reason}")
        # Titles, paths and snippets come from files anyone may have written: each line is shown with
        # its control characters escaped, so a title cannot erase or forge the line above it.
        return "\n".join(visible(line) for line in lines)


def _found_note(c: Citation, phrasing: str | None) -> str:
    """What a refusal's text adds to a page that another wording than the closest page's listed."""
    if c.found_by == phrasing:
        return ""
    return f" (found by the phrasing: {c.found_by})" if c.found_by else " (found by the question as asked)"


def phrasing_line(decision: str, phrasing: str) -> str:
    """How a receipt names the phrasing it reports: the one that decided a citation, or, a refusal being
    decided by no wording, the one that came closest."""
    how = "decided by" if decision == "cite" else "closest through"
    return f"{how} the phrasing: {phrasing}"


def _via_lines(c: Citation) -> list[str]:
    """The receipt's lines for the words a cited page holds only through replaced pages."""
    lines = [f"  only on the replaced page {c.via}: {', '.join(c.via_words)}"] if c.via_words else []
    if c.via_elsewhere:
        lines.append(f"  {elsewhere_label(c.via)}: {', '.join(c.via_elsewhere)}")
    return lines


def elsewhere_label(via: str | None) -> str:
    """What a receipt (and the MCP reply) calls the pages of ``via_elsewhere``: "other" than ``via`` only
    when there is one (a page that outscores the pages it replaced has none, and still matches their
    words)."""
    return f"only on {'other ' if via else ''}replaced pages that lead to it"


def _through_replaced(c: Citation) -> str:
    """How a runner-up line says the page matched words only replaced pages leading to it hold."""
    return (
        f"through the replaced page {c.via}" if c.via else "with words only replaced pages leading to it hold"
    )
