"""A page rewritten after the index last read it, before the lookup that cites it: the lookup reads the
page as it is now, and must not answer from, or crash on, what the index still says of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from krouter import Router

WALRUS = "Zoo/Walrus.md"
LONG = (
    "# Walrus budget\n\nThe walrus budget is 5 euros a month.\nIt is paid by the zoo.\nAsk Anna about it.\n"
    "\n## Other\n\nNothing else.\n"
)


def make_vault(root: Path) -> Path:
    (root / "Zoo").mkdir(parents=True)
    (root / WALRUS).write_text(LONG, encoding="utf-8")
    (root / "Zoo" / "Penguins.md").write_text("# Penguins\n\nThe penguins eat herring.\n", encoding="utf-8")
    return root


def test_a_page_cut_short_before_the_index_knows_does_not_crash_the_lookup(tmp_path: Path) -> None:
    """A bug hunt (three MCP servers, the owner saving pages): a page saved shorter in the moment
    before a lookup that trusts a watcher cited it made ``krouter_ask`` fail with an IndexError (the
    stored passages ran past the text's end). The page is indexed again and the question asked again."""
    vault = make_vault(tmp_path / "vault")
    with Router(vault, auto_refresh=False) as router:
        router.refresh()
        assert router.decide("what is the walrus budget").top.path == WALRUS
        (vault / WALRUS).write_text("# Walrus budget\n\nThe", encoding="utf-8")
        receipt = router.decide("what is the walrus budget")
        for c in [*receipt.cited, *receipt.candidates]:
            lines = (vault / c.path).read_text(encoding="utf-8").splitlines()
            assert c.line <= len(lines), c


def test_a_page_rewritten_before_the_index_knows_is_not_cited_for_what_it_said(tmp_path: Path) -> None:
    """The owner rewrote the page in place; the lookup came before the watcher reported it: the page was
    cited for words it no longer holds, with a line of its new text."""
    vault = make_vault(tmp_path / "vault")
    with Router(vault, auto_refresh=False) as router:
        router.refresh()
        assert router.decide("what is the walrus budget").top.path == WALRUS
        (vault / WALRUS).write_text(
            "# Walrus\n\nMoved to the other zoo.\n\nNo money any more.\n\n## Keepers\n\nAnna.\n",
            encoding="utf-8",
        )
        receipt = router.decide("what is the walrus budget")
    assert receipt.decision == "refuse" or "budget" in receipt.top.snippet.lower(), receipt.top


def test_a_page_written_faster_than_a_lookup_runs_is_read_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold review of the check above: a log appended to every few milliseconds was found changed on
    every try, and the lookup failed ("log.md changed since it was indexed") where it had answered. Once
    the lookup has indexed what it could, the page is read as it is."""
    from krouter.routing import citation

    vault = make_vault(tmp_path / "vault")
    reads = []

    def appended(root: Path, rel: str, *args: object) -> bytes:
        reads.append(rel)
        return (root / rel).read_bytes() + f"\nline {len(reads)}\n".encode()

    with Router(vault) as router:
        router.refresh()
        monkeypatch.setattr(citation, "read_page_bytes", appended)
        receipt = router.decide("what is the walrus budget")
    assert receipt.decision == "cite" and receipt.top.path == WALRUS, receipt.reason
