"""Systems the bench can run in-process: KRouter, plain BM25, and BM25 with KRouter's two rules.

Every adapter turns (vault, questions) into one Answer per question. Adapters report their candidates and
score even
when they refuse, so a coverage curve or a coverage-matched comparison can re-decide refusals afterwards.
"""

from __future__ import annotations

import os
import re
import sqlite3
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from stats import RIGHT, Answer, BenchError, Question, verdict

ADAPTERS: tuple[str, ...] = (
    "krouter",
    "krouter-phrased",
    "bm25",
    "bm25-floor",
    "bm25-phrased",
    "bm25-floor-phrased",
)

# Frontmatter statuses that mean "this page was replaced": bm25-floor leaves such pages out of its index,
# which is
# the first of KRouter's two rules given to the baseline.
REPLACED_STATUSES = frozenset({"superseded", "retired", "deprecated", "archived", "rejected"})

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN_RE = re.compile(rf"([{_CJK}]+)|([^\W_{_CJK}]+)")
_FRONTMATTER_RE = re.compile(r"\A---\s*\n.*?\n---\s*(\n|\Z)", re.S)

Progress = Callable[[str], None]


class Adapter(Protocol):
    """A system under test."""

    name: str

    def answer(self, vault: Path, questions: Sequence[Question]) -> list[Answer]:
        """Answer every question against one vault, in question order."""
        ...


def tokenize(text: str) -> list[str]:
    """Lowercase words, with CJK runs split into overlapping character bigrams.

    Without the bigram split a Chinese sentence would be one FTS token and could never match, which would make
    plain
    BM25 "refuse" every Chinese question and flatter it on neighbour questions.
    """
    out: list[str] = []
    for cjk, word in _TOKEN_RE.findall(text.lower()):
        if word:
            out.append(word)
        elif len(cjk) == 1:
            out.append(cjk)
        else:
            out.extend(cjk[i : i + 2] for i in range(len(cjk) - 1))
    return out


def fts_query(text: str) -> str:
    """An FTS5 MATCH expression ORing every distinct token, each quoted so user text is never syntax."""
    seen: dict[str, None] = {}
    for tok in tokenize(text):
        seen.setdefault(tok, None)
    return " OR ".join('"' + tok.replace('"', '""') + '"' for tok in seen)


@dataclass(frozen=True)
class Page:
    """One Markdown page: vault-relative path, title, body without frontmatter, and its frontmatter."""

    path: str
    title: str
    body: str
    meta: dict[str, Any]

    @property
    def replaced(self) -> bool:
        """True when the frontmatter status marks the page as replaced or withdrawn."""
        status = self.meta.get("status")
        return isinstance(status, str) and status.strip().lower() in REPLACED_STATUSES


def read_page(vault: Path, file: Path) -> Page:
    """Parse one page with python-frontmatter; a page with broken YAML is indexed bare."""
    import frontmatter  # third-party; imported here so the grading code does not need it

    text = file.read_text(encoding="utf-8", errors="replace")
    meta: dict[str, Any] = {}
    try:
        post = frontmatter.loads(text)
        meta, body = dict(post.metadata), post.content
    except Exception:  # any YAML error: vaults hold hand-edited pages, so fall back to raw text
        body = _FRONTMATTER_RE.sub("", text, count=1)
    title = meta.get("title")
    return Page(
        path=file.relative_to(vault).as_posix(),
        title=str(title) if title else file.stem,
        body=body,
        meta=meta,
    )


def iter_pages(vault: Path) -> list[Page]:
    """All Markdown pages of a vault, skipping hidden folders such as .obsidian, in a stable order."""
    if not vault.is_dir():
        raise BenchError(f"vault folder not found: {vault}")
    pages = []
    for file in sorted(vault.rglob("*.md")):
        rel = file.relative_to(vault)
        if any(part.startswith(".") for part in rel.parts):
            continue
        pages.append(read_page(vault, file))
    return pages


class Bm25Index:
    """SQLite FTS5 over pre-tokenised page text; the score is -bm25() so that higher means a better match."""

    def __init__(self, pages: Sequence[Page]) -> None:
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE VIRTUAL TABLE pages USING fts5(path UNINDEXED, text, tokenize='unicode61')")
        self.db.executemany(
            "INSERT INTO pages(path, text) VALUES (?, ?)",
            [(p.path, " ".join(tokenize(p.title + "\n" + p.body))) for p in pages],
        )
        self.db.commit()

    def search(self, query: str, k: int = 5) -> list[tuple[str, float]]:
        """Top-k (path, score) for a query; empty when the query has no tokens or nothing matches."""
        expr = fts_query(query)
        if not expr:
            return []
        rows = self.db.execute(
            "SELECT path, -bm25(pages) AS s FROM pages WHERE pages MATCH ? ORDER BY s DESC, path LIMIT ?",
            (expr, k),
        ).fetchall()
        return [(path, float(score)) for path, score in rows]


def _vault_label(vault: Path) -> str:
    # materialised sets keep each vault in a folder called "vault"; its parent names the conversation or set
    return f"{vault.parent.name}/{vault.name}" if vault.name == "vault" else vault.name


def _progress_every(progress: Progress | None, label: str, i: int, n: int) -> None:
    if progress and n >= 100 and (i % 100 == 0 or i == n):
        progress(f"{label}: {i}/{n}")


class Bm25Adapter:
    """Plain full-text search: always answers its top hit (it refuses only when nothing matches at all)."""

    name = "bm25"
    skip_replaced = False

    def __init__(self, k: int = 5, progress: Progress | None = None, phrased: bool = False) -> None:
        self.k = k
        self.progress = progress
        # The phrased baselines search each question with the same phrasings krouter-phrased gets, as one
        # query: compared against a BM25 that never saw them, KRouter's lead on phrased sets was overstated
        # (a cold review of the bench: on dev, BM25 given them cited 51 wrong pages where it cited 84).
        self.phrased = phrased
        if phrased:
            self.name = f"{self.name}-phrased"
        self._indexes: dict[Path, Bm25Index] = {}

    def index(self, vault: Path) -> Bm25Index:
        """The (cached) index of a vault."""
        key = vault.resolve()
        if key not in self._indexes:
            pages = [p for p in iter_pages(vault) if not (self.skip_replaced and p.replaced)]
            self._indexes[key] = Bm25Index(pages)
        return self._indexes[key]

    def raw(self, vault: Path, questions: Sequence[Question]) -> list[Answer]:
        """Candidates and scores for every question, before any floor."""
        idx = self.index(vault)
        out = []
        for q in questions:
            text = " ".join([q.q, *q.extra.get("phrasings", [])]) if self.phrased else q.q
            hits = idx.search(text, self.k)
            out.append(
                Answer(q.id, tuple(p for p, _ in hits), refused=not hits, score=hits[0][1] if hits else None)
            )
        return out

    def answer(self, vault: Path, questions: Sequence[Question]) -> list[Answer]:
        """Answer every question with the top hit."""
        return self.raw(vault, questions)


def pick_floor(questions: Sequence[Question], answers: Sequence[Answer]) -> tuple[float, dict[str, int]]:
    """Pick a score floor on dev questions by one fixed rule, written down before any use.

    Rule: a question is answered when its top score is >= the floor. Candidate floors are every top score seen
    on
    the dev questions, plus +inf (answer nothing). Choose the floor that maximises (right answers - wrong
    citations) on the dev set, where a right answer is an answerable question whose first citation is gold and
    a
    wrong citation is any answered question whose first citation is not gold (every answered refuse question
    included). Ties go to the lower floor. Returns the floor and the dev counts at that floor.
    """
    by_id = {a.id: a for a in answers}
    # An answer with a citation and a score is given once the floor is at or below its score, adding +1 (first
    # citation gold) or -1 (anything else) to the objective; so walking the candidate floors from the top
    # score
    # down, the objective is a running sum.
    at: dict[float, list[int]] = {}  # score -> [right, wrong]
    for q in questions:
        a = by_id.get(q.id)
        if a is None or not a.cited or a.score is None:
            continue
        slot = at.setdefault(a.score, [0, 0])
        slot[0 if verdict(q, Answer(a.id, a.cited, refused=False, score=a.score)) == RIGHT else 1] += 1
    best_floor, best_obj = float("inf"), 0
    best_counts = {"right": 0, "wrong": 0, "answered": 0}
    right = wrong = 0
    for score in sorted(at, reverse=True):
        right += at[score][0]
        wrong += at[score][1]
        # '>=' while walking downwards is what sends ties to the lower floor
        if right - wrong >= best_obj:
            best_floor, best_obj = score, right - wrong
            best_counts = {"right": right, "wrong": wrong, "answered": right + wrong}
    return best_floor, best_counts


def apply_floor(answer: Answer, floor: float) -> Answer:
    """Refuse when the score is below the floor, keeping the candidates for curves and matched comparisons."""
    ok = bool(answer.cited) and answer.score is not None and answer.score >= floor
    return Answer(answer.id, answer.cited, refused=not ok, score=answer.score)


class Bm25FloorAdapter(Bm25Adapter):
    """BM25 given KRouter's two rules: replaced pages left out, a floor picked on dev questions."""

    name = "bm25-floor"
    skip_replaced = True

    def __init__(self, k: int = 5, progress: Progress | None = None, phrased: bool = False) -> None:
        super().__init__(k, progress, phrased)
        self.floor: float | None = None
        self.floor_note = ""
        self.floor_counts: dict[str, int] = {}

    def fit(self, parts: Sequence[tuple[Path, Sequence[Question]]], note: str) -> float:
        """Pick the floor on dev questions (pooled over their vaults) with pick_floor's rule."""
        # Ids made unique per part: pooled dev sets reuse them (dev's C01 is dev2's too), and keyed by id
        # one part's questions were graded against the other's answers.
        questions = [replace(q, id=f"{i}/{q.id}") for i, (_, qs) in enumerate(parts) for q in qs]
        answers = [
            replace(a, id=f"{i}/{a.id}") for i, (vault, qs) in enumerate(parts) for a in self.raw(vault, qs)
        ]
        self.floor, self.floor_counts = pick_floor(questions, answers)
        self.floor_note = note
        return self.floor

    def answer(self, vault: Path, questions: Sequence[Question]) -> list[Answer]:
        """Answer the top hit when it clears the floor, else refuse (keeping the candidates)."""
        if self.floor is None:
            raise BenchError("bm25-floor: no floor picked (fit on dev questions first)")
        return [apply_floor(a, self.floor) for a in self.raw(vault, questions)]


class KRouterAdapter:
    """KRouter in-process, through its public Router API only."""

    name = "krouter"

    def __init__(self, k: int = 5, progress: Progress | None = None, phrased: bool = False) -> None:
        # Bench questions must never land in the user's private query log, and the bench must not write into
        # the
        # user's index cache unless they asked for it.
        os.environ.setdefault("KROUTER_NO_QUERY_LOG", "1")
        if not os.environ.get("KROUTER_CACHE_DIR"):
            self._tmp = tempfile.TemporaryDirectory(prefix="krouter-bench-cache-")
            os.environ["KROUTER_CACHE_DIR"] = self._tmp.name
        # Settings and state of a plain install, whatever the runner's own config.toml says (an
        # `ignore` there left pages out for KRouter only; BM25 read them all).
        self._settings = tempfile.TemporaryDirectory(prefix="krouter-bench-settings-")
        os.environ["KROUTER_CONFIG_DIR"] = os.path.join(self._settings.name, "config")
        os.environ["KROUTER_STATE_DIR"] = os.path.join(self._settings.name, "state")
        try:
            from krouter import Router
        except ImportError as exc:
            raise BenchError(f"cannot import krouter ({exc}); run from the project or install it") from None
        self._router_cls = Router
        self.k = k
        self.progress = progress
        # krouter-phrased: each question is asked with the phrasings an agent would add (a translation, a
        # rewording), written by a helper who saw only the questions (phrasings/<set>.jsonl).
        self.phrased = phrased
        self._routers: dict[Path, Any] = {}

    def answer(self, vault: Path, questions: Sequence[Question]) -> list[Answer]:
        """Ask the router each question; on a refusal its best candidates and confidence are kept."""
        key = vault.resolve()
        if key not in self._routers:
            self._routers[key] = self._router_cls(key)
            # Every page embedded before the first question (when the semantic second opinion is on), as
            # `krouter index` does: otherwise the first questions would meet a vault only partly embedded.
            self._routers[key].refresh()
            self._routers[key].embed()
        router = self._routers[key]
        out = []
        for i, q in enumerate(questions, 1):
            rec = router.ask(q.q, k=self.k, also=q.extra.get("phrasings", []) if self.phrased else [])
            out.append(
                Answer(
                    id=q.id,
                    cited=tuple(c.path for c in rec.candidates),
                    refused=rec.decision == "refuse",
                    score=float(rec.evidence.confidence),
                )
            )
            _progress_every(self.progress, f"krouter {_vault_label(vault)}", i, len(questions))
        return out


def make_adapter(name: str, k: int = 5, progress: Progress | None = None) -> Adapter:
    """Build an adapter by name."""
    if name == "krouter":
        return KRouterAdapter(k, progress)
    if name == "krouter-phrased":
        return KRouterAdapter(k, progress, phrased=True)
    if name in ("bm25", "bm25-phrased"):
        return Bm25Adapter(k, progress, phrased=name.endswith("-phrased"))
    if name in ("bm25-floor", "bm25-floor-phrased"):
        return Bm25FloorAdapter(k, progress, phrased=name.endswith("-phrased"))
    raise BenchError(f"unknown adapter {name!r} (choose from {', '.join(ADAPTERS)})")


def stderr_progress(msg: str) -> None:
    """Progress line on stderr, so --json stdout stays one object."""
    print(msg, file=sys.stderr, flush=True)
