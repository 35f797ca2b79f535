"""Embedding a vault's pages in the background, for the optional semantic second opinion: what a
long-running server (`krouter mcp`'s refresher, `krouter watch`'s loop) does between file events."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from krouter.errors import KRouterError

if TYPE_CHECKING:
    from krouter.routing.router import Router

# Between two slices (``vectors.BACKGROUND_SLICE_S``) file events are waited for this long.
EMBED_POLL_S = 0.05
# ... and while another process embeds the vault (it holds the embedding lock), or while config.toml
# cannot be read, this long.
EMBED_BUSY_RETRY_S = 2.0

log = logging.getLogger("krouter.embedding")


class BackgroundEmbedding:
    """The pages a long-running server (`krouter mcp`, `krouter watch`) still has to embed for the
    semantic second opinion, embedded a slice (``vectors.BACKGROUND_SLICE_S``) at a time while the
    vault is quiet, until a slice finds nothing left, the option is turned off (`krouter config set
    semantic off`: the cores are the user's), or, while another process embeds the vault (it holds the
    embedding lock) or config.toml cannot be read (``settings_broken``), every EMBED_BUSY_RETRY_S.
    ``refreshed`` sets it going again after every refresh: another process may have indexed the pages
    this one was told of."""

    def __init__(self, on: bool) -> None:
        self.unembedded = on
        self.slicing = False
        self._after = 0.0  # while another process embeds: no slice before then (time.monotonic())
        self._broken: str | None = None  # what is wrong with config.toml, as logged

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

        try:
            on = wanted()
        except KRouterError as exc:
            self.settings_broken(exc)
            return
        if self._broken is not None:
            log.info("config.toml can be read again: embedding pages resumes")
            self._broken = None
        if not on:
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

    def settings_broken(self, exc: KRouterError) -> None:
        """config.toml cannot be read (``exc``), so whether the user wants the option is not known:
        nothing is embedded, and a slice tries again every EMBED_BUSY_RETRY_S until the file is fixed,
        the server going on meanwhile (its lookups say what is wrong). Logged once, not on every try."""
        self._after = time.monotonic() + EMBED_BUSY_RETRY_S
        if str(exc) != self._broken:
            self._broken = str(exc)
            log.warning("not embedding pages until the settings are fixed: %s", exc)
