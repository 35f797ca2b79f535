"""What ``krouter check`` reports: findings, their kinds and order, and which of them fail the check."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field

# Reported but not a failure: a chain A -> B -> C still redirects correctly (the router follows it);
# collapsing it is tidying, not repair.
# An unresolved [[wikilink]] is how Obsidian notes a page not written yet: reported, not a failure.
NOTICE_KINDS = frozenset(
    {
        "chain_not_collapsed",
        "several_replacements",
        "symlink",
        "loose_link",
        "hardlink",
        "leftover_tmp",
        "unresolved_wikilink",
        "template",
    }
)


KIND_ORDER = (
    "ignore_file",
    "name",
    "too_large",
    "encoding",
    "unreadable",
    "yaml",
    "status_spellings",
    "dangling_link",
    "untrusted_supersedes",
    "replaced_but_current",
    "cycle",
    "no_replacement",
    "chain_not_collapsed",
    "loose_link",
    "broken_link",
    "unresolved_wikilink",
    "several_replacements",
    "symlink",
    "hardlink",
    "leftover_tmp",
    "template",
    "trigger_on_replaced",
    "duplicate_title",
    "near_duplicate",
)


@dataclass
class Finding:
    """One thing wrong with the vault, reported against a vault-relative path."""

    kind: str
    path: str
    message: str
    related: list[str] = field(default_factory=list)

    @property
    def severity(self) -> str:
        """'error' fails the check; 'notice' is reported only."""
        return "notice" if self.kind in NOTICE_KINDS else "error"


@dataclass
class CheckReport:
    """All findings for one vault."""

    vault: str
    pages: int
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing but notices was found."""
        return all(f.severity == "notice" for f in self.findings)

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {
            "vault": self.vault,
            "pages": self.pages,
            "ok": self.ok,
            "counts": dict(Counter(f.kind for f in self.findings)),
            "findings": [{**asdict(f), "severity": f.severity} for f in self.findings],
        }
