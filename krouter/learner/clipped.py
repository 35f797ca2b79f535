"""Clipped material, which the learner's checks leave out: pages in the inputs and clippings folders,
or tagged as clippings."""

from __future__ import annotations

from krouter import config
from krouter.routing.router import Router


def clipped_ids(router: Router, folders: tuple[str, ...]) -> set[int]:
    """The ids of the pages in ``folders`` or tagged as clippings (the page table's ``clipped``):
    reading material, not memory, left out of the neighbour check (``verify._specific_units``)."""
    return {row[0] for row in router.index.page_table() if row[7] or config.in_folders(row[1], folders)}
