"""The lookup API: a `Router` over one vault's index answers questions with receipts, reads pages and
reports the vault's status; `route` is the one-shot form.

A lookup refreshes the index, loads the per-generation tables (`tables`), turns the question into
units (`question`), scores and ranks pages (`scoring`), decides cite or refuse (`decision`) and builds
the citations (`citation`); other wordings are combined by `phrasings`, and `ask` logs the lookup
(`querylog`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from pathlib import Path

from krouter import config
from krouter.errors import PageNotFound
from krouter.index.refresh import RefreshStats
from krouter.index.store import Index
from krouter.routing import phrasings, querylog
from krouter.routing.decision import DEFAULT_FLOOR, decide
from krouter.routing.elsewhere import held_words, trigger_blocker
from krouter.routing.receipt import Receipt, Redirect
from krouter.routing.tables import Tables, load_tables
from krouter.vault.files import contained_path, read_contained
from krouter.vault.page import REPLACED_STATUSES, Problem, decode


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
    ) -> None:
        root = config.named_vault(Path(vault)) if vault is not None else config.default_vault()
        self.index = Index(root, path=index_path)
        self.root = self.index.root
        self.floor = floor
        self.auto_refresh = auto_refresh
        self.input_folders = config.input_folders()
        self._tables: Tables | None = None
        self.last_refresh: RefreshStats | None = None

    def close(self) -> None:
        """Close the index."""
        self.index.close()

    def __enter__(self) -> Router:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def refresh(self) -> RefreshStats:
        """Re-index pages that changed since the last refresh."""
        self.last_refresh = self.index.refresh()
        return self.last_refresh

    def read(self, rel_path: str) -> str:
        """The text of a page, confined to the vault (``..``, absolute paths and outbound symlinks refused).

        A path as links write it also finds the page: without ``.md``, in another Unicode form (macOS
        stores names decomposed) or another letter case, when exactly one page matches."""
        return self.read_page(rel_path)[1]

    def read_page(self, rel_path: str) -> tuple[str, str]:
        """(the page's vault-relative path as indexed, its text); found and confined as ``read`` says."""
        try:
            path = contained_path(self.root, rel_path)
        except PageNotFound:
            try:
                path = contained_path(self.root, f"{rel_path}.md")
            except PageNotFound:
                path = self._page_spelled(rel_path)
        if not path.name.lower().endswith(".md"):
            # Pages are what KRouter cites; other files in the vault folder are not served.
            raise PageNotFound(f"{rel_path!r} is not a Markdown page of the vault")
        text = decode(rel_path, read_contained(self.root, path))
        if isinstance(text, Problem):
            raise PageNotFound(f"{rel_path!r} is not a page KRouter reads: {text.message}")
        page = path.relative_to(self.root.resolve()).as_posix()
        if page not in self._load_tables().by_path:
            # A case-insensitive file system opens "d/old.md" for "D/Old.md": name the page as indexed.
            same = self._spelled_as(page)
            page = same[0] if len(same) == 1 else page
        return page, text

    def _spelled_as(self, rel_path: str) -> list[str]:
        """Indexed pages whose path matches ``rel_path`` but for Unicode form, case and ``.md``."""
        want = _stem_key(rel_path)
        return sorted(p for p in self._load_tables().by_path if _stem_key(p) == want)

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
        """Pages, replaced pages, problems and broken replacement links, and where the index lives."""
        t = self._load_tables()
        meta = self.index.meta()
        broken = []
        for pid, red in t.redirect.items():
            page = t.pages[pid]
            # Retired, archived or rejected pages may rightly have no replacement (as krouter check
            # says); a superseded page, a cycle or a link naming no page is broken.
            ended = red.chain == [page.path] and page.status in REPLACED_STATUSES - {"superseded", "replaced"}
            if red.to_path is None and not ended:
                broken.append({"from": page.path, "problem": red.problem, "chain": red.chain})
        size = sum(
            Path(f"{self.index.path}{s}").stat().st_size
            for s in ("", "-wal")
            if Path(f"{self.index.path}{s}").exists()
        )
        return {
            "vault": str(self.root),
            "pages": t.n_pages,
            "replaced": sum(p.replaced for p in t.pages.values()),
            "problems": [
                {"path": p.path, "kind": p.kind, "message": p.message} for p in self.index.problems()
            ],
            "broken_links": broken,
            "index": str(self.index.path),
            "index_bytes": size,
            "refreshed_at": float(meta.get("refreshed_at", 0)),
            "changed_now": stats.tokenized if stats else 0,
            "unreadable_folders": stats.unreadable if stats else [],
        }

    def warm(self) -> None:
        """Load what every lookup needs about all pages (the current index generation's page table) now,
        rather than on the first question."""
        self._load_tables()

    def _load_tables(self) -> Tables:
        gen = self.index.generation()
        if self._tables and self._tables.generation == gen:
            return self._tables
        self._tables = load_tables(self.index, gen, self.input_folders)
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

    def decide(self, question: str, k: int = 5, also: Sequence[str] = ()) -> Receipt:
        """The lookup itself, without logging it (the learner and the bench use this)."""
        others = phrasings.check(also)
        if self.auto_refresh:
            self.refresh()
        # One read transaction: every statement of this lookup sees the same index, even if another
        # process commits a refresh halfway through.
        with self.index.snapshot():
            asked = self._decide(question, k)
            phrased = [(text, self._decide(text, k)) for text in others if text != question.strip()]
        return phrasings.combine(asked, phrased)

    def held_words(self, question: str, path: str) -> set[str]:
        """The question's words the page at ``path`` holds in its own fields or text, by any route
        (``elsewhere.held_words``)."""
        if self.auto_refresh:
            self.refresh()
        with self.index.snapshot():
            return held_words(question, path, self.index, self._load_tables())

    def trigger_blocker(self, question: str, path: str) -> tuple[str, str] | None:
        """The question word, and the other page it names, that would keep ``question`` from counting
        as a trigger of the page at ``path``; None when it would count (``decision.trigger_blocker``)."""
        if self.auto_refresh:
            self.refresh()
        with self.index.snapshot():
            return trigger_blocker(question, path, self.index, self._load_tables())

    def _decide(self, question: str, k: int) -> Receipt:
        return decide(question, k, self.index, self._load_tables(), self.floor, self.root, self._index_info())

    def _index_info(self) -> dict[str, object]:
        meta = self.index.meta()
        info: dict[str, object] = {"path": str(self.index.path), "pages": int(meta.get("n_pages", 0))}
        if self.last_refresh is not None:
            info["refreshed"] = self.last_refresh.tokenized
            info["stale"] = self.last_refresh.stale
        return info


def _stem_key(path: str) -> str:
    """A page path compared the way a person types it: any Unicode form, any case, ``.md`` optional."""
    key = unicodedata.normalize("NFC", path.replace("\\", "/").strip().lstrip("/")).casefold()
    return key.removesuffix(".md")


def route(question: str, vault: Path | str | None = None, k: int = 5, also: Sequence[str] = ()) -> Receipt:
    """One-shot lookup: open the vault's index, refresh it, answer, close."""
    with Router(vault) as router:
        return router.ask(question, k=k, also=also)
