"""What a lookup reads once and keeps: the index generation within one read snapshot, and which
folders hold clipped material within one generation's tables. Kept too long, either would answer
from an index or a page table that is no longer the one on disk."""

from __future__ import annotations

from pathlib import Path

from krouter import Router


def write(root: Path, pages: dict[str, str]) -> Path:
    for rel, text in pages.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_a_reader_sees_another_processs_refresh_on_its_next_lookup(tmp_path: Path) -> None:
    """The generation read inside one lookup's snapshot must not outlive it: a reader that does not
    refresh itself (as behind a watcher) must see what another process committed since."""
    vault = write(
        tmp_path / "v",
        {
            "Ops/Pager.md": "# Pager\n\nThe pager rotation changes every Monday.\n",
            "Ops/Backup.md": "# Backups\n\nBackups run nightly to cold storage.\n",
        },
    )
    with Router(vault) as writer, Router(vault, auto_refresh=False) as reader:
        writer.refresh()
        first = reader.decide("kestrel gateway certificate")
        assert first.decision == "refuse" and first.evidence.corpus_missing
        write(
            vault, {"Ops/Kestrel.md": "# Kestrel gateway\n\nThe kestrel gateway certificate renews in May.\n"}
        )
        writer.refresh()
        again = reader.decide("kestrel gateway certificate")
    assert again.decision == "cite" and again.top is not None
    assert again.top.path == "Ops/Kestrel.md"


def test_clipped_pages_are_found_in_any_folder_of_their_path_and_not_by_their_own_name(
    tmp_path: Path,
) -> None:
    """A page under an input folder at any depth ranks below the vault's own page with the same words;
    a top-level page named like the folder is the vault's own page."""
    text = "# Cache warmup\n\nThe cache warmup job runs before the morning traffic peak.\n"
    vault = write(
        tmp_path / "v",
        {
            "Projects/Inputs/Cache warmup.md": text,
            "Inputs.md": text,
            "Other.md": "# Other\n\nUnrelated notes about the garden.\n",
        },
    )
    with Router(vault) as router:
        receipt = router.decide("cache warmup job", k=2)
    assert [c.path for c in receipt.candidates] == ["Inputs.md", "Projects/Inputs/Cache warmup.md"]
    # Halved: the clipped page's score is half what its words alone would give it.
    assert receipt.candidates[1].score < 0.6 * receipt.candidates[0].score
