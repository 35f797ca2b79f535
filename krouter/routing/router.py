"""The lookup API: a `Router` over one vault's index answers questions with receipts, reads pages and
reports the vault's status; `route` is the one-shot form.

A lookup refreshes the index, loads the per-generation tables (`tables`), turns the question into
units (`question`), scores and ranks pages (`scoring`), decides cite or refuse (`decision`) and builds
the citations (`citation`); other wordings are combined by `phrasings`, and `ask` logs the lookup
(`querylog`).
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from krouter import config
from krouter.errors import KRouterError, PageNotFound, VaultNotFound
from krouter.file_stamp import file_stamp
from krouter.index.refresh import RefreshStats
from krouter.index.store import Index
from krouter.routing import phrasings, querylog, semantic, sessions, vectors
from krouter.routing.citation import PageGone, as_they_are
from krouter.routing.contacts import lacks_contact
from krouter.routing.decision import DEFAULT_FLOOR, decide
from krouter.routing.elsewhere import held_words, holds_none, lacking_words, names_against, trigger_blocker
from krouter.routing.question_words import cut_question
from krouter.routing.receipt import Receipt, Redirect
from krouter.routing.tables import Tables, load_tables
from krouter.routing.unread_language import unreadable_question
from krouter.routing.vault_status import vault_status
from krouter.tokens import bilingual, traditional
from krouter.tokens.terms import QueryTerm
from krouter.vault.files import contained_path, read_contained
from krouter.vault.ignore import excluded
from krouter.vault.page import Problem, decode
from krouter.vault.suggestions import page_key

log = logging.getLogger("krouter")


# How many pages found gone during one lookup are refreshed one by one before the vault is walked.
_GONE_RETRIES = 3


class Router:
    """Answers questions about one vault. Keeps the index open between questions.

    ``vault`` is a folder, or ``"demo"`` for the bundled demo vault (as ``--vault demo`` on the command
    line; a folder called ``demo`` in the current directory wins). ``auto_refresh`` re-checks the files
    before every question (the default); a caller that keeps the index fresh by other means (a file
    watcher) can turn it off.
    """

    def __init__(
        self,
        vault: Path | str | None = None,
        *,
        floor: float = DEFAULT_FLOOR,
        auto_refresh: bool = True,
        index_path: Path | None = None,
        embed_budget_s: float | None = vectors.LOOKUP_BUDGET_S,
    ) -> None:
        if isinstance(vault, str) and not vault.strip():
            # Path("") is the current folder: route(q, "") indexed wherever the caller stood, where the
            # CLI refuses an empty --vault (a bug hunt).
            raise VaultNotFound("an empty vault path names no folder (is a variable unset?)")
        root = config.named_vault(Path(vault)) if vault is not None else config.default_vault()
        self.index = Index(root, path=index_path)
        self.root = self.index.root
        self.floor = floor
        self.auto_refresh = auto_refresh
        self._settings = file_stamp(config.config_path())
        self.input_folders = config.input_folders()
        self.embed_budget_s = embed_budget_s
        # Why the second opinion stopped working in this process, when it did (krouter status shows it).
        self.semantic_error: str | None = None
        self.vectors: vectors.Vectors | None = None
        self.vectors = self._open_vectors()
        self._tables: Tables | None = None
        self.last_refresh: RefreshStats | None = None

    def close(self) -> None:
        """Close the index."""
        self.index.close()
        if self.vectors is not None:
            self.vectors.close()

    def __enter__(self) -> Router:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def refresh(self) -> RefreshStats:
        """Re-index pages changed since the last refresh (and embed them for ``embed_budget_s``)."""
        self.last_refresh = self.index.refresh()
        if self.embed_budget_s != 0:
            self.embed(budget_s=self.embed_budget_s)
        return self.last_refresh

    def embed(self, budget_s: float | None = None, *, background: bool = False) -> int | None:
        """Embed the current pages that have no vectors yet, for the semantic second opinion (nothing
        when it is off); with ``budget_s``, stop after about that long and leave the rest for later.
        ``background``: a server embedding between lookups (``Vectors.sync``), on the model's other
        instance, so that a lookup never waits for its batch. Returns how many pages were embedded;
        with ``background``, None when another process holds this vault's embedding lock."""
        if self.vectors is None:
            return 0
        try:
            return self.vectors.sync(self.index, budget_s=budget_s, background=background)
        except semantic.FAILURES as exc:
            self._semantic_off(exc)
            return 0

    def _open_vectors(self) -> vectors.Vectors | None:
        if not semantic.wanted():
            return None
        try:
            return vectors.Vectors(self.index.path)
        except semantic.FAILURES as exc:
            self._semantic_off(exc)
            return None

    def _semantic_off(self, exc: Exception) -> None:
        """The optional second opinion failed (its file unwritable, the model not loading): this process
        goes on answering without it, as a plain install would, and says why once."""
        self.semantic_error = f"{type(exc).__name__}: {exc}"
        log.warning("semantic second opinion off for this process: %s", self.semantic_error)
        if self.vectors is not None:
            with contextlib.suppress(sqlite3.Error):
                self.vectors.close()
        self.vectors = None

    def read(self, rel_path: str) -> str:
        """The text of a page, confined to the vault (``..``, absolute paths and outbound symlinks refused).
        A path as links write it also finds the page: without ``.md``, in another Unicode form (macOS
        stores names decomposed) or another letter case, when exactly one page matches."""
        return self.read_page(rel_path)[1]

    def read_page(self, rel_path: str) -> tuple[str, str]:
        """(the page's vault-relative path as indexed, its text); found and confined as ``read`` says."""
        path = self._located(rel_path)
        if not path.name.lower().endswith(".md"):
            # Pages are what KRouter cites; other files in the vault folder are not served.
            raise PageNotFound(f"{rel_path!r} is not a Markdown page of the vault")
        page = path.relative_to(self.root.resolve()).as_posix()
        if excluded(self.root, page):
            # Never indexed nor cited: an agent that knows the path is not served it either.
            raise PageNotFound(f"{rel_path!r} is left out by the vault's ignore rules; not served")
        text = decode(rel_path, read_contained(self.root, path))
        if isinstance(text, Problem):
            raise PageNotFound(f"{rel_path!r} is not a page KRouter reads: {text.message}")
        if page not in self._load_tables().by_path:
            # A case-insensitive file system opens "d/old.md" for "D/Old.md": name the page as indexed.
            same = self._spelled_as(page)
            page = same[0] if len(same) == 1 else page
        return page, text

    def _located(self, rel_path: str) -> Path:
        """The page's file: as written, with ``.md`` added, or spelled another way (``_page_spelled``)."""
        try:
            return contained_path(self.root, rel_path)
        except PageNotFound as first:
            with contextlib.suppress(PageNotFound):
                return contained_path(self.root, f"{rel_path}.md")
            try:
                return self._page_spelled(rel_path)
            except PageNotFound:
                cause = first.__cause__
                if isinstance(cause, OSError) and not isinstance(cause, FileNotFoundError):
                    # The page is there but cannot be read (no permission): that is what to say.
                    raise first from cause
                raise

    def _spelled_as(self, rel_path: str) -> list[str]:
        """Indexed pages whose path matches ``rel_path`` but for Unicode form, case and ``.md``."""
        want = page_key(rel_path)
        return sorted(p for p in self._load_tables().by_path if page_key(p) == want)

    def _page_spelled(self, rel_path: str) -> Path:
        """The one page whose path matches ``rel_path`` but for Unicode form, case and ``.md``."""
        if self.auto_refresh:
            self.refresh()
        found = self._spelled_as(rel_path)
        if len(found) > 1:
            raise PageNotFound(f"{rel_path!r} could be {', '.join(map(repr, found))}: give the exact path")
        if not found:
            raise PageNotFound(f"no page at {rel_path!r} in {self.root}")
        return contained_path(self.root, found[0])

    def status(self, stats: RefreshStats | None = None) -> dict[str, object]:
        """Pages, replaced pages, problems and broken replacement links, and where the index lives
        (``vault_status``)."""
        return vault_status(
            self.root, self.index, self._load_tables(), self.vectors, self.semantic_error, stats
        )

    def question_words(self, question: str) -> list[QueryTerm]:
        """The question's content words, its Han text cut as a lookup cuts it against this vault
        (``question_words.cut_question``): the learner's checks read a question as the lookup did."""
        return cut_question(question, self.index, self._load_tables())

    def warm(self, *, wait: bool = False) -> None:
        """Load the current index generation's page table now, rather than on the first question, and open
        the English–Chinese dictionary (compiled once per install: ~5 s a first question waited), in the
        background unless ``wait``: a server's start-up is not held for it."""
        self._load_tables()
        if wait:
            bilingual.ready()
        else:
            bilingual.open_in_background()

    def writings(self) -> dict[str, float]:
        """The share of the vault's current pages written in each language, largest first
        (``Tables.writings``, one snapshot): what a refusal tells an agent to translate into."""
        with self.index.snapshot():
            return self._load_tables().writings(self.index)

    def is_clipping(self, path: str) -> bool:
        """True for clipped material (``Tables.is_input``): in an input folder, or tagged as a clipping."""
        with self.index.snapshot():
            return self._load_tables().is_input(path, self.input_folders)

    def writes_japanese(self, path: str) -> bool:
        """True when the page ``path`` writes Japanese (``Tables.writes_japanese``), in one snapshot."""
        with self.index.snapshot():
            return self._load_tables().writes_japanese(self.index, path)

    def unreadable(self, wording: str) -> bool:
        """True when ``wording`` is in a language KRouter cannot read and the notes are not written in
        (``unread_language.unreadable``: French of English notes, Korean of Chinese ones)."""
        with self.index.snapshot():
            return unreadable_question(self.as_written(wording), self.index, self._load_tables())

    def _load_tables(self) -> Tables:
        settings = file_stamp(config.config_path())
        if settings != self._settings:
            # A long-lived Router (the MCP server's, a library user's) follows config.toml: a folder
            # named an input folder since, or no longer, changes what is clipped and who may retire pages.
            folders = config.input_folders()
            self._settings = settings
            if folders != self.input_folders:
                self.input_folders, self._tables = folders, None
        # One snapshot: the generation compared and the rows read are of one state of the index.
        with self.index.snapshot():
            if self._tables and self._tables.generation == self.index.generation():
                return self._tables
            self._tables = load_tables(self.index, self.input_folders, self._tables)
        return self._tables

    def resolve(self, path: str) -> Redirect:
        """Follow replacements from a page to the current one; cycles and dead ends are reported."""
        if self.auto_refresh:
            self.refresh()
        return self._load_tables().graph.resolve(path)

    def ask(self, question: str, k: int = 5, also: Sequence[str] = ()) -> Receipt:
        """Answer a question: cite the page that holds the answer, or refuse, with the evidence.

        ``also`` are other wordings of the same question (a translation into the notes' language, a
        rewording), at most ``phrasings.MAX_PHRASINGS``; see ``krouter.routing.phrasings`` for how they combine.
        Every lookup is appended to the private query log (see ``krouter.routing.querylog``) unless it is off.
        Raises ``phrasings.BadQuestion`` for a question over ``phrasings.MAX_QUESTION_CHARS`` and
        ``phrasings.BadPhrasings`` for phrasings over their bounds; a question with no content words
        gets a refusal that says so.
        """
        phrasings.check_length(question)
        receipt = self.decide(question, k=k, also=also)
        querylog.record(receipt, self.root)
        return receipt

    def decide(
        self, question: str, k: int = 5, also: Sequence[str] = (), *, lexical_only: bool = False
    ) -> Receipt:
        """The lookup itself, without logging it (the learner and the bench use this). ``lexical_only``
        leaves out the semantic second opinion: what the words alone decide (the learner's checks)."""
        others = phrasings.check(also)
        # The bound is on the question, not its padding: megabytes of spaces around it were read,
        # cost seconds, and were logged whole (the receipt's query), pushing real questions out of the
        # learner's log.
        question = question.strip()
        if self.auto_refresh:
            self.refresh()
        # The index may hold a page the vault no longer does, or not as it is now: a watcher's lease said
        # every change was indexed while a move or a save was on its way, and the lookup cited the gone
        # page or failed (bug hunts). That page is refreshed (no walk of the vault) and the question
        # asked again; past a few, the vault is walked, and a page saved since is read as it is.
        for _ in range(_GONE_RETRIES):
            try:
                return self._looked_up(question, k, others, lexical_only)
            except PageGone as gone:
                if self.index.refresh(paths=[gone.path]).stale:
                    if gone.changed:  # the index's writer busy: the page as it is, as before
                        break
                    # Asking again would wait as long each time and find the same page (a cold review).
                    raise KRouterError(
                        f"{gone}, and another process is writing the index: ask again in a moment"
                    ) from gone
        else:
            self.index.refresh(force=True)
        with as_they_are():
            return self._looked_up(question, k, others, lexical_only)

    def _looked_up(self, question: str, k: int, others: list[str], lexical_only: bool) -> Receipt:
        # One read transaction: every statement of this lookup sees the same index, even if another
        # process commits a refresh halfway through.
        with self.index.snapshot():
            # Read once as the notes write it (D63): the lookup, the second opinion and the name check.
            written = self.as_written(question)
            asked = self._decide(question, k, written)
            if not lexical_only and self.vectors is not None:
                asked = self._second_opinion(question, written, k, asked)
            phrased = [(text, self._decide(text, k)) for text in others if text != question]
            chosen = phrasings.combine(asked, phrased)
            if chosen.phrasing is not None and chosen.decision == "cite" and chosen.top is not None:
                tables = self._load_tables()
                against = (
                    names_against(written, chosen.top.path, self.index, tables, self.root, others)
                    or holds_none(written, chosen.top.path, self.index, tables)
                    or lacks_contact([written, *others], chosen.top.path, self.read)
                )
                if against:
                    chosen = phrasings.vetoed(chosen, against)
                else:
                    path = chosen.top.path
                    chosen = phrasings.with_question_lacking(
                        chosen, lambda: lacking_words(written, path, self.index, tables)
                    )
            chosen = sessions.not_only_asked([written, *others], chosen, self._load_tables(), self.read)
            if phrased:
                chosen = phrasings.with_every_closest(chosen, [asked, *(r for _, r in phrased)], k)
        return chosen

    def _second_opinion(self, question: str, written: str, k: int, asked: Receipt) -> Receipt:
        if asked.decision != "refuse" or asked.evidence.confidence < semantic.MIN_CONFIDENCE:
            return asked
        # The pages the top one must be closest of in meaning: the same few whatever k the caller asked
        # for (with k=1 there would be nothing to be closer than). The decision does not depend on k.
        pooled = asked if k >= semantic.POOL else self._decide(question, semantic.POOL, written)
        pool = [c.path for c in pooled.candidates[: semantic.POOL]]
        # The words the page lacks are struck out of the question as looked up (D63's Simplified words).
        looked_up = replace(asked, query=written)
        try:
            opinion = semantic.second_opinion(looked_up, pool, self.index, self.vectors)  # type: ignore[arg-type]
            if opinion is looked_up:
                return asked
            # A citation lists k pages; a runner-up past k was listed for the refusal's reason (D131).
            shown = opinion.candidates[: max(k, 1)] if opinion.decision == "cite" else opinion.candidates
            return replace(opinion, query=asked.query, candidates=shown)
        except semantic.FAILURES as exc:
            self._semantic_off(exc)
            return asked

    def held_words(self, question: str, path: str) -> set[str]:
        """The question's words the page at ``path`` holds in its own fields or text, by any route
        (``elsewhere.held_words``)."""
        if self.auto_refresh:
            self.refresh()
        with self.index.snapshot():
            return held_words(self.as_written(question), path, self.index, self._load_tables())

    def trigger_blocker(self, question: str, path: str) -> tuple[str, str] | None:
        """The question word, and the other page it names, that the page at ``path`` lacks: a trigger
        holding it counts only for a question that holds it whole (``elsewhere.trigger_blocker``)."""
        if self.auto_refresh:
            self.refresh()
        with self.index.snapshot():
            return trigger_blocker(self.as_written(question), path, self.index, self._load_tables())

    def _decide(self, question: str, k: int, written: str | None = None) -> Receipt:
        """The words' decision on ``question``, looked up as ``written`` (``as_written``'s reading, when
        the caller has it already), the receipt keeping the question as asked."""
        written = self.as_written(question) if written is None else written
        receipt = decide(
            written, k, self.index, self._load_tables(), self.floor, self.root, self._index_info()
        )
        return receipt if written == question else replace(receipt, query=question)

    def as_written(self, question: str) -> str:
        """The question with its words in Traditional characters that the notes hold in Simplified ones
        so written (``tokens.traditional``): every check on a question reads it as a lookup does; a
        receipt keeps the question as asked."""
        return traditional.as_the_vault_writes(question, self.index.has_term)

    def _index_info(self) -> dict[str, object]:
        meta = self.index.meta()
        info: dict[str, object] = {"path": str(self.index.path), "pages": int(meta.get("n_pages", 0))}
        if self.last_refresh is not None:
            info["refreshed"] = self.last_refresh.tokenized
            info["stale"] = self.last_refresh.stale
        return info


def route(question: str, vault: Path | str | None = None, k: int = 5, also: Sequence[str] = ()) -> Receipt:
    """One-shot lookup: open the vault's index, refresh it, answer, close."""
    with Router(vault) as router:
        return router.ask(question, k=k, also=also)
