"""Rank a vault's pages for a question, follow replacements, and decide: cite or refuse.

Ranking is BM25F over two fields (title/aliases/path/tags and triggers weighted above the body).
The decision does not look at raw BM25 magnitudes, which mean different things on different vaults:
it compares the IDF-weighted share of the question's content that the top page covers (on the whole
page and in its best passage) with one floor. A question word the vault never contains, or one that
other pages hold but the top page lacks, lowers that share by its IDF weight.
"""

from __future__ import annotations

import heapq
import itertools
import math
import unicodedata
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from krouter import bilingual, config, phrasings, querylog
from krouter.errors import PageNotFound
from krouter.index import Index, Passage, RefreshStats
from krouter.receipt import Citation, Evidence, Receipt, Redirect
from krouter.replacements import Replacements
from krouter.tokenizer import fallback_bigrams, is_cjk, query_terms
from krouter.vault import REPLACED_STATUSES, Problem, contained_path, decode, read_contained

# The decision: confidence = coverage x clarity, compared with one floor.
# coverage: IDF-weighted share of the question's content the top page holds (page and best passage).
# clarity: how far the top page's score stands above the next page's, relative to its own; a page that
# only ties a neighbour gets half credit, one CLEAR_MARGIN ahead gets full credit. Both are ratios, so
# the floor means the same on a 10-page vault and a 10,000-page one. Measured in docs/decisions.md.
DEFAULT_FLOOR = 0.55
MARGIN_SHARE = 0.5
CLEAR_MARGIN = 0.5
TRIGGER_MATCH = 2 / 3
K1 = 1.2
B = 0.75
W_META = 3.0
W_TRIGGER = 2.0
SNIPPET_CHARS = 240
# A receipt lists at most this many redirects and skipped pages: a vault with thousands of archived
# versions of one page must not turn an answer into hundreds of kilobytes.
MAX_LISTED = 20
# Clipped and imported material (Inputs/, Clippings/, ...) is raw evidence, not the vault's own memory:
# it still answers, but a curated page that matches as well comes first.
INPUT_WEIGHT = 0.5
# A page that holds a question word only through a translation counts it at this share of its term
# frequency when ranking (the decision counts it in full): a page holding the question's own word comes
# first, and a generic translation ("tool", "monitor") does not outrank the page in the question's language.
TRANSLATION_TF = 0.5
# A question word keeps at most this many of its translations the vault holds (the dictionary's commonest
# senses first): later senses are rarer readings, and each one is a posting list to merge per question.
HELD_TRANSLATIONS = 3
# A question whose units hold more postings than this (a large vault) is scored in two passes: first the
# pages that can still reach the window `_targets` walks are found, then only those are scored (see
# `_reachable`); every other page's score is worked out if something asks for it.
PRUNE_POSTINGS = 20_000


@dataclass
class _Unit:
    """One content unit of the question as looked up: its display text, the routes by which a page can
    hold it (each a tuple of index terms that must all be on the page: the word itself, its bigrams, a
    translation), its IDF weight and postings over all routes."""

    text: str
    key: str
    alts: tuple[tuple[str, ...], ...]
    df: int
    weight: float
    postings: dict[int, tuple[int, int, int]]
    # Pages that hold the unit only through a translation, with that translation (for the receipt).
    translated: dict[int, str] = field(default_factory=dict)

    def in_terms(self, terms: frozenset[str] | set[str]) -> bool:
        """True when a passage's terms hold the unit by one of its routes."""
        return any(all(term in terms for term in alt) for alt in self.alts)

    def shown_for(self, page_ids: list[int]) -> str:
        """The unit as a receipt shows it for a page: with the translation it matched through, if any."""
        via = next((self.translated[p] for p in page_ids if p in self.translated), None)
        return f"{self.text}→{via}" if via else self.text


@dataclass
class _PageInfo:
    id: int
    path: str
    title: str
    status: str
    replaced: bool
    n_body: int


@dataclass
class _Tables:
    """Per-generation snapshot of what every lookup needs about all pages."""

    generation: int
    pages: dict[int, _PageInfo]
    by_path: dict[str, int]
    n_pages: int
    avg_body: float
    graph: Replacements
    inputs: frozenset[int]
    # K1 * (1 - B + B * length / average), per page: the BM25 length term, computed once per generation.
    length_norm: dict[int, float]
    # Where each replaced page leads, resolved once per generation rather than on every hit.
    redirect: dict[int, Redirect]
    # Replaced pages by the current page they lead to, so a target's weaker contributors can be found
    # without scoring every page in order.
    predecessors: dict[int, list[int]]
    # Which scripts the vault holds: a question word is translated only into a script the vault has.
    has_han: bool
    has_latin: bool


@dataclass
class _Target:
    """A live page and what the question matched on it or on replaced pages that lead to it."""

    page_id: int
    score: float
    matched: set[int] = field(default_factory=set)
    via: int | None = None
    contributors: list[int] = field(default_factory=list)


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
        self._tables: _Tables | None = None
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

    def _load_tables(self) -> _Tables:
        gen = self.index.generation()
        if self._tables and self._tables.generation == gen:
            return self._tables
        rows = self.index.page_table()
        pages = {r[0]: _PageInfo(r[0], r[1], r[2], r[3], bool(r[4]), r[5]) for r in rows}
        by_path = {p.path: p.id for p in pages.values()}
        folders = self.input_folders
        graph = Replacements.build(
            (p.path for p in pages.values() if p.replaced),
            self.index.links(),
            untrusted=lambda path: config.in_folders(path, folders),
        )
        for page in pages.values():
            page.replaced = page.path in graph.replaced
        n_pages = len(pages)
        avg = sum(p.n_body for p in pages.values()) / n_pages if n_pages else 0.0
        avg = max(avg, 1.0)
        inputs = frozenset(p.id for p in pages.values() if config.in_folders(p.path, self.input_folders))
        length_norm = {p.id: K1 * (1 - B + B * p.n_body / avg) for p in pages.values()}
        redirect = {p.id: graph.resolve(p.path) for p in pages.values() if p.replaced}
        predecessors: dict[int, list[int]] = defaultdict(list)
        for pid, red in redirect.items():
            if red.to_path in by_path:
                predecessors[by_path[red.to_path]].append(pid)
        self._tables = _Tables(
            gen,
            pages,
            by_path,
            n_pages,
            avg,
            graph,
            inputs,
            length_norm,
            redirect,
            dict(predecessors),
            has_han=self.index.has_term_between("\u3400", "\u9fff"),
            # Letters only: a number ("至少 2 人") does not make a Chinese vault bilingual.
            has_latin=self.index.has_term_between("a", "z\uffff"),
        )
        return self._tables

    def resolve(self, path: str) -> Redirect:
        """Follow replacements from a page to the current one; cycles and dead ends are reported."""
        if self.auto_refresh:
            self.refresh()
        return self._load_tables().graph.resolve(path)

    def ask(self, question: str, k: int = 5, also: Sequence[str] = ()) -> Receipt:
        """Answer a question: cite the page that holds the answer, or refuse, with the evidence.

        ``also`` are other wordings of the same question (a translation into the notes' language, a
        rewording), at most ``phrasings.MAX_PHRASINGS``; see ``krouter.phrasings`` for how they combine.
        Every lookup is appended to the private query log (see ``krouter.querylog``) unless it is off.
        """
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

    def _decide(self, question: str, k: int) -> Receipt:
        t = self._load_tables()
        units = self._units(question, t)
        index_info = self._index_info()
        total = sum(u.weight for u in units)
        if not units or total <= 0:
            return Receipt(
                query=question,
                vault=str(self.root),
                decision="refuse",
                candidates=[],
                redirects=[],
                skipped=[],
                evidence=Evidence(floor=self.floor),
                reason="the question has no content words to look up",
                index=index_info,
            )
        scores, meta_mask, content_mask = self._score(units, t, _window(max(k, 1)))
        targets, redirects, skipped = self._targets(scores, max(k, 1), t)
        listed_pages = {pid for tgt in targets.values() for pid in tgt.contributors}
        meta_hits = {pid: _bits(meta_mask[pid]) for pid in listed_pages if pid in meta_mask}
        content_hits = {pid: _bits(content_mask[pid]) for pid in listed_pages if pid in content_mask}
        # The lead over the runner-up is measured on the full ranking, before it is cut to k: with k=1
        # there would be no runner-up and every tie would look like a clear answer.
        everything = sorted(targets.values(), key=lambda x: (-x.score, t.pages[x.page_id].path))
        ranked = everything[: max(k, 1)]
        corpus_missing = [u.text for u in units if u.df == 0]
        if not ranked:
            return Receipt(
                query=question,
                vault=str(self.root),
                decision="refuse",
                candidates=[],
                redirects=redirects[:MAX_LISTED],
                skipped=skipped[:MAX_LISTED],
                evidence=Evidence(
                    floor=self.floor, query_terms=[u.text for u in units], corpus_missing=corpus_missing
                ),
                reason=_reason_nothing(corpus_missing, t.n_pages),
                index=index_info,
            )
        citations = [self._citation(x, units, meta_hits, t) for x in ranked]
        top = ranked[0]
        content = set().union(*(content_hits.get(pid, set()) for pid in top.contributors)) & top.matched
        effective = content | (self._fired_triggers(top, units) & top.matched)
        page_cov = sum(units[i].weight for i in effective) / total
        passage_cov = max(
            self._passage_coverage(pid, effective, units, meta_hits, total) for pid in top.contributors
        )
        coverage = (page_cov + passage_cov) / 2
        runner_up = everything[1] if len(everything) > 1 else None
        margin = (top.score - runner_up.score) / top.score if runner_up and top.score > 0 else 1.0
        confidence = coverage * (1 - MARGIN_SHARE + MARGIN_SHARE * min(1.0, margin / CLEAR_MARGIN))
        # "Other pages have it" must be true of a page that could be cited: a current page that is not
        # this one. Words held only by replaced pages or this page's own triggers are not listed.
        mine = set(top.contributors)
        elsewhere = [
            u.text
            for i, u in enumerate(units)
            if i not in effective
            and any(pid not in mine and not t.pages[pid].replaced for pid in u.postings if pid in t.pages)
        ]
        evidence = Evidence(
            confidence=round(confidence, 4),
            floor=self.floor,
            coverage=round(coverage, 4),
            page_coverage=round(page_cov, 4),
            passage_coverage=round(passage_cov, 4),
            margin=round(margin, 4),
            query_terms=[u.text for u in units],
            corpus_missing=corpus_missing,
            elsewhere_missing=elsewhere,
        )
        decision = "cite" if confidence >= self.floor else "refuse"
        reason = _reason(decision, citations, evidence, runner_up.page_id if runner_up else None, t)
        # Only the replacements that led to a page listed here, and dead ends that scored as high as
        # a listed page: a redirect elsewhere in the ranking would point an agent at a page this
        # answer is not about.
        listed = {c.path for c in citations}
        bar = ranked[-1].score
        redirects = [
            r
            for r in redirects
            if r.to_path in listed or (r.to_path is None and scores[t.by_path[r.from_path]][0] >= bar)
        ][:MAX_LISTED]
        skipped = skipped[:MAX_LISTED]
        return Receipt(
            query=question,
            vault=str(self.root),
            decision=decision,
            candidates=citations,
            redirects=redirects,
            skipped=skipped,
            evidence=evidence,
            reason=reason,
            index=index_info,
        )

    def _index_info(self) -> dict[str, object]:
        meta = self.index.meta()
        info: dict[str, object] = {"path": str(self.index.path), "pages": int(meta.get("n_pages", 0))}
        if self.last_refresh is not None:
            info["refreshed"] = self.last_refresh.tokenized
            info["stale"] = self.last_refresh.stale
        return info

    def _units(self, question: str, t: _Tables) -> list[_Unit]:
        units: list[_Unit] = []
        n = t.n_pages
        for qt in query_terms(question, known=self.index.has_term):
            terms: tuple[str, ...] = (qt.term,)
            rows = self._holding(terms)
            if not rows and is_cjk(qt.term) and fallback_bigrams(qt.term):
                # jieba may cut the question's word differently from the page's text; the page's
                # bigrams then still match, if all of them sit on one page.
                terms = tuple(fallback_bigrams(qt.term))
                rows = self._holding(terms)
            alts = [terms]
            # A word's weight is how rare it is in the question's own words, whatever its translations
            # match: a word the vault never writes as asked weighs what a never-seen word weighs, so it
            # counts fully when a translation finds it on a page and fully when the page lacks it.
            own_df = len(rows)
            translated: dict[int, str] = {}
            half = TRANSLATION_TF
            for label, alt, held in self._translations(qt.term, t):
                # Plain tuples and comparisons: this runs once per posting of every translation.
                for pid, (m, g, b) in held.items():
                    old = rows.get(pid)
                    if old is None:
                        translated.setdefault(pid, label)
                        rows[pid] = (m * half, g * half, b * half)  # type: ignore[assignment]
                    else:
                        rows[pid] = (max(old[0], m * half), max(old[1], g * half), max(old[2], b * half))  # type: ignore[assignment]
                alts.append(alt)
            df = len(rows)
            weight = math.log(1 + (n - own_df + 0.5) / (own_df + 0.5)) if n else 1.0
            units.append(_Unit(qt.text, qt.term, tuple(alts), df, weight, rows, translated))
        return units

    def _holding(self, terms: tuple[str, ...]) -> dict[int, tuple[int, int, int]]:
        """(title/alias tf, trigger tf, body tf) per page holding every one of the terms."""
        if len(terms) == 1:
            return self.index.holding(terms[0])
        per = [self.index.holding(g) for g in terms]
        common = set.intersection(*(set(p) for p in per)) if per else set()
        return {pid: tuple(min(p[pid][f] for p in per) for f in range(3)) for pid in common}  # type: ignore[misc]

    def _translations(
        self, term: str, t: _Tables
    ) -> list[tuple[str, tuple[str, ...], dict[int, tuple[int, int, int]]]]:
        """(translation, index terms, postings) for a question word in the vault's other script, at most
        HELD_TRANSLATIONS of them: a Chinese word the vault holds as a word (or, over two characters, as
        bigrams), an English phrase whose every word the vault holds. The postings are read once, here:
        for a single term, holding it is having postings."""
        out: list[tuple[str, tuple[str, ...], dict[int, tuple[int, int, int]]]] = []
        if is_cjk(term):
            if t.has_latin:
                for terms, shown in bilingual.to_english(term):
                    held = self._holding(terms)
                    if held or (len(terms) > 1 and all(map(self.index.has_term, terms))):
                        out.append((shown, terms, held))
                        if len(out) == HELD_TRANSLATIONS:
                            break
        elif t.has_han:
            for zh in bilingual.to_chinese(term):
                held = self._holding((zh,))
                if held:
                    out.append((zh, (zh,), held))
                elif len(zh) > 2:
                    grams = tuple(fallback_bigrams(zh))
                    out.append((zh, grams, self._holding(grams)))
                if len(out) == HELD_TRANSLATIONS:
                    break
        return out

    def _score(
        self, units: list[_Unit], t: _Tables, window: int | None = None
    ) -> tuple[_Scores, Mapping[int, int], Mapping[int, int]]:
        """BM25F score and matched-unit bitmask per page; also bitmasks of the units that hit the
        title/alias/trigger field and of those that hit the page's own text (everything but triggers).

        This loop runs once per posting of every question word, so it is kept to plain arithmetic and
        integer bitmasks (sets per page cost a third of a lookup at 10k pages). The field masks are
        read for the few pages a receipt lists only, so they are worked out per page when asked for
        (kept per posting, they cost a third of this loop); clipped pages are looked for only in a
        vault that has some. With ``window`` (how many best pages `_targets` walks) and more than
        PRUNE_POSTINGS postings, only the pages that can reach that window are scored here."""
        reachable = None
        if window is not None and sum(len(u.postings) for u in units) > PRUNE_POSTINGS:
            reachable = _reachable(units, t, window)
        scores = _Scores(units, t, complete=reachable is None)
        norms = t.length_norm
        inputs = t.inputs
        get = scores.get
        w_meta, w_trigger = W_META, W_TRIGGER  # locals: read once per posting
        for i, u in enumerate(units):
            bit = 1 << i
            w = u.weight * (K1 + 1)
            postings = u.postings
            # Pruned: the reachable pages only, in the order of the postings (the order ties rank in).
            items = postings.items() if reachable is None else _items(postings, reachable)
            for pid, (meta_tf, trig_tf, body_tf) in items:
                try:
                    norm = norms[pid]
                except KeyError:  # a page the tables do not know (cannot happen within one snapshot)
                    continue
                # Most postings are body-only: 0.0 + body_tf is body_tf, so skipping the sum changes
                # no score by a bit.
                tf = w_meta * meta_tf + w_trigger * trig_tf + body_tf if meta_tf or trig_tf else body_tf
                s = w * tf / (tf + norm)
                if inputs and pid in inputs:
                    s *= INPUT_WEIGHT
                entry = get(pid)
                if entry is None:
                    scores[pid] = [s, bit]
                else:
                    entry[0] += s
                    entry[1] |= bit
        return scores, _FieldMasks(units, scores, (0, 1)), _FieldMasks(units, scores, (0, 2))

    def _targets(
        self, scores: _Scores, k: int, t: _Tables
    ) -> tuple[dict[int, _Target], list[Redirect], list[str]]:
        """The best k+1 distinct current pages, each scored by its best contributor (itself or a
        replaced page leading to it), with what all its contributors matched.

        Only the highest-scoring pages are walked: a target's score is its best contributor's, so once
        k+1 targets score strictly above every page left unwalked, nothing further down can outrank
        them or tie them. When replaced pages or ties crowd that window, every page is walked once
        (scored first, if ``scores`` holds only the pages that could reach the window)."""
        want = k + 1
        best = heapq.nlargest(_window(k), scores.items(), key=lambda kv: kv[1][0])
        targets, redirects, skipped = self._walk(best, t)
        ranked = sorted((x.score for x in targets.values()), reverse=True)
        settled = len(ranked) >= want and ranked[want - 1] > best[-1][1][0]
        if (len(best) < len(scores) or not scores.complete) and not settled:
            scores.fill()
            best = sorted(scores.items(), key=lambda kv: -kv[1][0])
            targets, redirects, skipped = self._walk(best, t)
        seen = {pid for pid, _ in best}
        for tgt in targets.values():
            # Weaker contributors below the walked pages still add what they matched.
            for pid in (tgt.page_id, *t.predecessors.get(tgt.page_id, ())):
                if pid not in seen and pid in scores:
                    self._target_of(pid, t, redirects, skipped)
                    tgt.matched |= _bits(scores[pid][1])
                    tgt.contributors.append(pid)
        return targets, redirects, skipped

    def _walk(
        self, pages: list[tuple[int, list]], t: _Tables
    ) -> tuple[dict[int, _Target], list[Redirect], list[str]]:
        """Map pages, best first, to the current pages they lead to."""
        targets: dict[int, _Target] = {}
        redirects: list[Redirect] = []
        skipped: list[str] = []
        for pid, (score, mask) in pages:
            target_id = self._target_of(pid, t, redirects, skipped)
            if target_id is None:
                continue
            tgt = targets.get(target_id)
            if tgt is None:
                tgt = targets[target_id] = _Target(target_id, score, via=pid if pid != target_id else None)
            tgt.matched |= _bits(mask)
            tgt.contributors.append(pid)
        return targets, redirects, skipped

    @staticmethod
    def _target_of(pid: int, t: _Tables, redirects: list[Redirect], skipped: list[str]) -> int | None:
        """The current page a hit on ``pid`` leads to (itself, unless replaced); None for a dead end."""
        red = t.redirect.get(pid)
        if red is None:
            return pid
        redirects.append(red)
        if red.to_path is None or red.to_path not in t.by_path:
            skipped.append(red.from_path)
            return None
        return t.by_path[red.to_path]

    def _fired_triggers(self, top: _Target, units: list[_Unit]) -> set[int]:
        """Question units that belong to a trigger phrasing the question actually expresses.

        Triggers (some written by the learner) always help ranking, but count towards the decision only
        when the question holds at least TRIGGER_MATCH of one trigger's terms: sharing a single word
        with a trigger is not asking what the trigger asks, and must not turn a refusal into a citation.
        Nor does a trigger count when one of those shared words is missing from the page's own text
        while another current page's title, aliases, tags or path hold it: that word names another
        subject ("frontend" when a "Frontend team" page exists, on the backend rotation page), so the
        trigger was taught for a neighbour's question, and must not outvote the pages themselves.
        Measured in learn_bench on the three dev vaults: a plausible-but-wrong teacher's neighbour
        questions let through fell from 24 to 14, and an honest teacher still taught 16 of its 21
        triggers. Counting other pages' body text too stopped 3 more neighbours but cost the honest
        teacher 6 more of its own wordings.
        A question holding fewer than TRIGGER_MATCH of a trigger's terms may still count the trigger's
        bridge words (``_bridge``), unless one of its other words names another page's subject
        (docs/decisions.md D24).
        """
        keys = {u.key: i for i, u in enumerate(units)}
        mine = set(top.contributors)
        pages = self._load_tables().pages

        def named_elsewhere(u: _Unit) -> bool:
            own = any(u.postings[p][0] or u.postings[p][2] for p in mine if p in u.postings)
            return not own and any(
                tf[0] and p not in mine and p in pages and not pages[p].replaced
                for p, tf in u.postings.items()
            )

        fired: set[int] = set()
        for pid in top.contributors:
            for trig in self.index.trigger_terms(pid):
                shared = trig & keys.keys()
                if not trig or any(named_elsewhere(units[keys[k]]) for k in shared):
                    continue
                if len(shared) / len(trig) >= TRIGGER_MATCH:
                    fired |= {keys[k] for k in shared}
                elif not any(named_elsewhere(units[keys[k]]) for k in keys.keys() - trig):
                    # A partly expressed trigger vouches for nothing when the question's other words
                    # name another page's subject: it may be that page's question in the trigger's words.
                    fired |= self._bridge(shared, keys, units, mine)
        return fired

    @staticmethod
    def _bridge(shared: set[str], keys: dict[str, int], units: list[_Unit], mine: set[int]) -> set[int]:
        """The question units a partly expressed trigger vouches for: its words the page's text lacks.

        A trigger is a question someone verified this page answers (``learn.verify_pick``); its words
        that the page's own text lacks are the bridge between that wording and the page. A later
        question that holds fewer than TRIGGER_MATCH of the trigger's terms still asks what the trigger
        asked when it shares at least two of them, one held by the page's own text (the anchor) and one
        it lacks (the bridge): then the bridge words count, and nothing else of the trigger does. A
        question sharing a single word, or only words the page holds anyway, gets nothing from it.
        """
        if len(shared) < 2:
            return set()
        own = {
            k for k in shared if any(units[keys[k]].postings.get(p, (0, 0, 0))[::2] != (0, 0) for p in mine)
        }
        bridge = shared - own
        if not own or not bridge:
            return set()
        return {keys[k] for k in bridge}

    def _passage_coverage(
        self,
        page_id: int,
        matched: set[int],
        units: list[_Unit],
        meta_hits: dict[int, set[int]],
        total: float,
    ) -> float:
        passages = self.index.passages(page_id)
        base = meta_hits.get(page_id, set()) & matched
        best = sum(units[i].weight for i in base)
        for a, b in _windows(passages):
            terms = a.terms | b.terms if b else a.terms
            hit = {i for i in matched if units[i].in_terms(terms)} | base
            best = max(best, sum(units[i].weight for i in hit))
        return best / total

    def _citation(
        self, x: _Target, units: list[_Unit], meta_hits: dict[int, set[int]], t: _Tables
    ) -> Citation:
        info = t.pages[x.page_id]
        line, snippet = self._snippet(x, units, meta_hits.get(x.page_id, set()))
        return Citation(
            path=info.path,
            title=info.title,
            score=round(x.score, 4),
            line=line,
            snippet=snippet,
            matched=[units[i].shown_for(x.contributors) for i in sorted(x.matched)],
            missing=[u.text for i, u in enumerate(units) if i not in x.matched],
            via=t.pages[x.via].path if x.via is not None else None,
        )

    def _snippet(self, x: _Target, units: list[_Unit], in_title: set[int]) -> tuple[int, str]:
        """The passage of the cited page that holds most of the question's weight.

        Words matched by the title, aliases or triggers count as present in every passage (they say
        what the whole page is about), so a page found by its title shows its first paragraph, not
        the one line that happens to repeat a title word. On a tie, content beats a heading."""
        passages = self.index.passages(x.page_id)
        if not passages:
            return 1, ""
        try:
            lines = (self.root / self._tables_path(x.page_id)).read_text(encoding="utf-8", errors="replace")
        except OSError:
            lines = ""
        text_lines = lines.splitlines()

        def line_text(n: int) -> str:
            return text_lines[n - 1].strip() if 0 < n <= len(text_lines) else ""

        best = max(
            passages,
            key=lambda p: (
                sum(u.weight for i, u in enumerate(units) if i in in_title or u.in_terms(p.terms)),
                not line_text(p.line).startswith("#"),
                -p.line,
            ),
        )
        text = line_text(best.line)
        if len(text) > SNIPPET_CHARS:
            text = text[: SNIPPET_CHARS - 1] + "…"
        return best.line, text

    def _tables_path(self, page_id: int) -> str:
        return self._load_tables().pages[page_id].path


def _window(k: int) -> int:
    """How many of the best-scoring pages `Router._targets` walks first for the top k."""
    return 32 + 8 * (k + 1)


def _items(postings: dict[int, tuple], keep: set[int]) -> Iterator[tuple[int, tuple]]:
    """The postings of the pages in ``keep``, in the postings' order (the filter runs in C)."""
    return ((pid, postings[pid]) for pid in filter(keep.__contains__, postings))


def _contribution(u: _Unit, i: int, pid: int, t: _Tables, entry: list | None) -> list | None:
    """Add unit ``i``'s share of page ``pid``'s score to ``entry`` exactly as `Router._score` does."""
    tfs = u.postings.get(pid)
    if tfs is None:
        return entry
    meta_tf, trig_tf, body_tf = tfs
    tf = W_META * meta_tf + W_TRIGGER * trig_tf + body_tf if meta_tf or trig_tf else body_tf
    s = u.weight * (K1 + 1) * tf / (tf + t.length_norm[pid])
    if t.inputs and pid in t.inputs:
        s *= INPUT_WEIGHT
    if entry is None:
        return [s, 1 << i]
    entry[0] += s
    entry[1] |= 1 << i
    return entry


def _reachable(units: list[_Unit], t: _Tables, window: int) -> set[int] | None:
    """The pages whose score can reach the ``window`` best (MaxScore), or None when no page can be
    ruled out. A unit adds less than its weight x (K1 + 1) to any page (tf / (tf + norm) < 1), so units
    are taken in decreasing weight: once the bound of the units left is under the window-th best score
    so far, a page none of the units taken holds cannot reach the window, nor can a page whose score so
    far plus that bound stays under it. Those partial scores add the same shares in another order, so
    a relative margin of 1e-9 keeps rounding from ruling out a page that ties."""
    weights = [u.weight * (K1 + 1) for u in units]
    if any(w < 0 for w in weights):
        return None
    norms = t.length_norm
    inputs = t.inputs
    left = sum(weights)
    partial: dict[int, float] = {}
    get = partial.get
    for i in sorted(range(len(units)), key=lambda i: -weights[i]):
        if len(partial) >= window and left < max(partial.values()):
            bar = heapq.nlargest(window, partial.values())[-1] * (1 - 1e-9)
            if left < bar:
                return {pid for pid, score in partial.items() if score >= bar - left}
        left -= weights[i]
        w = weights[i]
        for pid, (meta_tf, trig_tf, body_tf) in units[i].postings.items():
            norm = norms.get(pid)
            if norm is None:
                continue
            tf = W_META * meta_tf + W_TRIGGER * trig_tf + body_tf if meta_tf or trig_tf else body_tf
            s = w * tf / (tf + norm)
            if inputs and pid in inputs:
                s *= INPUT_WEIGHT
            partial[pid] = get(pid, 0.0) + s
    return None


class _Scores(dict[int, list]):
    """[score, matched-unit bitmask] per page. Not ``complete`` (pruned by `_reachable`), it holds only
    the pages that can reach the window `Router._targets` walks; any other page is scored when asked
    for (``in``, ``[]``), and ``fill()`` scores them all, in the same order a full scoring inserts them."""

    def __init__(self, units: list[_Unit], t: _Tables, *, complete: bool) -> None:
        super().__init__()
        self.units = units
        self.tables = t
        self.complete = complete

    def _entry(self, pid: int) -> list | None:
        if pid not in self.tables.length_norm:
            return None
        entry = None
        for i, u in enumerate(self.units):
            entry = _contribution(u, i, pid, self.tables, entry)
        return entry

    def __missing__(self, pid: int) -> list:
        entry = None if self.complete else self._entry(pid)
        if entry is None:
            raise KeyError(pid)
        return entry

    def __contains__(self, pid: object) -> bool:
        if dict.__contains__(self, pid):
            return True
        return not self.complete and isinstance(pid, int) and self._entry(pid) is not None

    def fill(self) -> None:
        """Score every page the units hold, as a full scoring would have (same order, same floats)."""
        if self.complete:
            return
        full: dict[int, list] = {}
        for i, u in enumerate(self.units):
            for pid in u.postings:
                if pid in self.tables.length_norm:
                    full[pid] = _contribution(u, i, pid, self.tables, full.get(pid)) or []
        self.clear()
        self.update(full)
        self.complete = True


class _FieldMasks(Mapping[int, int]):
    """Per scored page, the bitmask of the units whose postings have a non-zero tf in one of the given
    fields (0 title/alias, 1 trigger, 2 body); a page with no such unit is absent."""

    def __init__(self, units: list[_Unit], scores: _Scores, fields: tuple[int, ...]) -> None:
        self._units = units
        self._scores = scores
        self._fields = fields

    def _mask(self, pid: int) -> int:
        mask = 0
        if pid in self._scores:
            for i, u in enumerate(self._units):
                tfs = u.postings.get(pid)
                if tfs is not None and any(tfs[f] for f in self._fields):
                    mask |= 1 << i
        return mask

    def __getitem__(self, pid: int) -> int:
        mask = self._mask(pid)
        if not mask:
            raise KeyError(pid)
        return mask

    def __iter__(self) -> Iterator[int]:
        return (pid for pid in self._scores if self._mask(pid))

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _stem_key(path: str) -> str:
    """A page path compared the way a person types it: any Unicode form, any case, ``.md`` optional."""
    key = unicodedata.normalize("NFC", path.replace("\\", "/").strip().lstrip("/")).casefold()
    return key.removesuffix(".md")


def _bits(mask: int) -> set[int]:
    """The unit indexes set in a bitmask."""
    out = set()
    i = 0
    while mask:
        if mask & 1:
            out.add(i)
        mask >>= 1
        i += 1
    return out


def _windows(passages: list[Passage]) -> list[tuple[Passage, Passage | None]]:
    """Each passage alone and with its successor: an answer often spans a question and its reply."""
    out: list[tuple[Passage, Passage | None]] = [(p, None) for p in passages]
    out.extend(itertools.pairwise(passages))
    return out


def _reason_nothing(corpus_missing: list[str], n_pages: int) -> str:
    if not n_pages:
        return "the vault has no pages to answer from"
    if corpus_missing:
        return f"no page matches: the vault never mentions {', '.join(repr(w) for w in corpus_missing)}"
    return "no current page matches the question's words"


def _quoted(words: list[str]) -> str:
    return ", ".join(repr(w) for w in words)


def _reason(decision: str, cited: list[Citation], ev: Evidence, runner_up: int | None, t: _Tables) -> str:
    """One line a person can check: why this page, or why none."""
    top = cited[0]
    second = t.pages[runner_up].path if runner_up is not None else None
    lead = f"leads {second} by {ev.margin:.0%}" if second else "no other page matches"
    summary = f"holds {ev.coverage:.0%} of the question's content and {lead}"
    if decision == "cite":
        via = f"; reached through replaced page {top.via}" if top.via else ""
        return f"{top.path} {summary}: confidence {ev.confidence:.0%} ≥ floor {ev.floor:.0%}{via}"
    parts = []
    if ev.corpus_missing:
        parts.append(f"the vault never mentions {_quoted(ev.corpus_missing)}")
    if ev.elsewhere_missing:
        one = len(ev.elsewhere_missing) == 1
        parts.append(
            f"the closest page, {top.path}, lacks {_quoted(ev.elsewhere_missing)}"
            f" ({'another page has it' if one else 'other pages have them'})"
        )
    if not parts and second and ev.margin < CLEAR_MARGIN / 2:
        parts.append(f"{top.path} and {second} match about equally: the question does not say which")
    if not parts:
        parts.append(f"the closest page, {top.path}, matches the question only weakly")
    return (
        "; ".join(parts) + f" — {top.path} {summary}: confidence {ev.confidence:.0%} < floor {ev.floor:.0%}"
    )


def route(question: str, vault: Path | str | None = None, k: int = 5, also: Sequence[str] = ()) -> Receipt:
    """One-shot lookup: open the vault's index, refresh it, answer, close."""
    with Router(vault) as router:
        return router.ask(question, k=k, also=also)
