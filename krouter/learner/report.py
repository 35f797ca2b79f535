"""What happened to each question in a learner run (or an undo): the statuses, one outcome, a run's report."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from krouter.safe_text import visible

LEARNED = "learned"
PROPOSED = "proposed"  # would be learned; dry run
REJECTED = "rejected"
NO_PAGE = "no-page"
UNCERTAIN = "uncertain"
SKIPPED = "skipped"
# Verified, not written: held until a second source agrees (``krouter.learner.pending``).
PENDING = "pending"
WOULD_SEND = "would-send"  # a dry run with no model: listed, not sent
# The lane of a dry run with no model configured.
NO_LANE = "none"
# Why the questions a run did not reach before a Ctrl-C are uncertain.
INTERRUPTED = "interrupted (Ctrl-C) before the model answered it: asked again next run"


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
    # Weak questions over the run's --max, left in the log for a later run.
    deferred: int = 0
    cursor_advanced: bool = False
    # Stopped by Ctrl-C: what was settled before it is recorded, the rest asked again next run.
    interrupted: bool = False

    def count(self, status: str) -> int:
        """How many questions ended with ``status``."""
        return sum(o.status == status for o in self.outcomes)

    def to_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return asdict(self)

    def to_text(self) -> str:
        """A short human summary, one line per question."""
        weak = f"{self.weak} weak question{'' if self.weak == 1 else 's'} from {self.log_entries} log entries"
        if self.lane == NO_LANE:
            # Nothing was asked: counts of model outcomes would all be zero, and say nothing.
            head = (
                f"run {self.run_id} (dry run, no model): {weak}; {self.count(WOULD_SEND)} would be sent "
                f"to the model, {self.count(SKIPPED)} skipped"
            )
        else:
            head = (
                f"run {self.run_id}{' (dry run)' if self.dry_run else ''}: {weak}; learned {self.count(LEARNED)}, "
                f"proposed {self.count(PROPOSED)}, pending {self.count(PENDING)}, rejected {self.count(REJECTED)}, no page {self.count(NO_PAGE)}, "
                f"uncertain {self.count(UNCERTAIN)}, skipped {self.count(SKIPPED)}"
            )
        if self.deferred:
            head += f"; {self.deferred} left for a later run (--max)"
        if self.interrupted:
            head += f"; interrupted: {INTERRUPTED}"
        lines = [head]
        for o in self.outcomes:
            where = f" -> {o.page}" if o.page else ""
            why = f" ({o.reason})" if o.reason else ""
            lines.append(f"  {o.status:9} {o.question!r}{where}{why}")
        # The page string comes from the model and the questions from the log: shown, never obeyed.
        return "\n".join(visible(line) for line in lines)
