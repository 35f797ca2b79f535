"""Embedding a vault's pages in the background, for the optional semantic second opinion: what a
long-running server (`krouter mcp`'s refresher, `krouter watch`'s loop) does between file events."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from krouter.routing.router import Router

# Between two slices (``vectors.BACKGROUND_SLICE_S``) file events are waited for this long.
EMBED_POLL_S = 0.05
# ... and while another process embeds the vault (it holds the embedding lock), this long.
EMBED_BUSY_RETRY_S = 2.0


class BackgroundEmbedding:
    """The pages a long-running server (`krouter mcp`, `krouter watch`) still has to embed for the
    semantic second opinion, embedded a slice (``vectors.BACKGROUND_SLICE_S``) at a time while the
    vault is quiet, until a slice finds nothing left, the option is turned off (`krouter config set
    semantic off`: the cores are the user's), or, while another process embeds the vault (it holds the
    embedding lock), every EMBED_BUSY_RETRY_S. ``refreshed`` sets it going again after every refresh:
    another process may have indexed the pages this one was told of."""

    def __init__(self, on: bool) -> None:
        self.unembedded = on
        self.slicing = False
        self._after = 0.0  # while another process embeds: no slice before then (time.monotonic())

    @property
    def pending(self) -> bool:
        """Pages may be left to embed (a slice under way counts)."""
        return self.unembedded or self.slicing

    def ready(self) -> bool:
        """Whether a slice should run now."""
        return self.unembedded and time.monotonic() >= self._after

    def refreshed(self, on: bool) -> None:
        """The index was refreshed (``on``: the second opinion is still on for the embedding Router)."""
        self.unembedded = on

    def slice(self, router: Router) -> None:
        """Embed pages for a slice with ``router`` (on the model's background instance). The flag is
        cleared first: a refresh on another thread while the slice runs (a call indexing a new page)
        sets it again, and only what the slice embedded, or a busy lock, keeps it set."""
        from krouter.routing.semantic import wanted
        from krouter.routing.vectors import BACKGROUND_SLICE_S

        if not wanted():
            self.unembedded = False
            return
        self.slicing, self.unembedded = True, False
        try:
            done = router.embed(budget_s=BACKGROUND_SLICE_S, background=True)
        finally:
            self.slicing = False
        if done is None:
            self._after = time.monotonic() + EMBED_BUSY_RETRY_S
        if done is None or done:
            self.unembedded = True
