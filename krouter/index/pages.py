"""Writing one page's rows: tokenise it into postings and passages, replace or delete its rows, and
re-resolve the replacement links a change can affect. Runs inside a refresh's transaction, which names
the pages it changed for readers (``changed_since``).
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from collections.abc import Callable, Generator
from pathlib import Path

from krouter.index.passages import terms_of_page
from krouter.index.prepare import (
    BATCH,
    Postings,
    Prepared,
    Task,
    prepare_page,
    prepared_batches,
    worker_count,
)
from krouter.index.refresh import RefreshStats
from krouter.vault.files import FileStat
from krouter.vault.links import LinkResolver
from krouter.vault.page import Problem

# The pages columns in the order `krouter.index.prepare.page_row` gives them, after the id.
PAGE_COLUMNS = (
    "id, path, mtime_ns, size, hash, title, status, replaced, superseded_by, supersedes, n_body, n_meta, "
    "body_line, yaml_error, passages, trigger_terms, other_terms, clipped"
)
PAGE_MARKS = ", ".join("?" * 18)
_YAML_ERROR = 12

# Up to this many changed paths, a refresh looks their rows up by path instead of reading every row.
_FEW_PATHS = 2000
# The columns of a page's row every lookup's page table holds (``Index.page_table``, ``page_rows``): one
# list, so that tables patched from some rows are the tables a full load makes.
PAGE_TABLE_COLUMNS = "id, path, title, status, replaced, n_body, n_meta, clipped"
# Up to this many pages changed by one refresh are named for readers, which then patch their page
# tables (`krouter.routing.tables`) rather than read every row again.
_CHANGES_NAMED = 2000


class PageRows:
    """What the index stores per page: the stored (mtime, size) a refresh compares with the files, the
    writes of a page's rows, and the pages each refresh changed, for readers to patch their page tables
    from. A part of `krouter.index.store.Index`, whose connection it uses."""

    root: Path
    conn: sqlite3.Connection
    _changed_ids: set[int]

    def stamp(self) -> tuple[int, str | None]:
        """The generation and the token of the refresh that made it (`PageRows._new_generation`)."""
        meta = dict(self.conn.execute("SELECT key, value FROM meta WHERE key IN ('generation', 'gen_token')"))
        return int(meta.get("generation", 0)), meta.get("gen_token")

    def changed_since(self, generation: int, token: str | None) -> list[int] | None:
        """The ids of the pages added, re-indexed or removed by the refresh that made the current
        generation, when it followed ``generation`` stamped ``token`` (what a reader loaded last); None
        when that is not known (another step came between, a rebuild, too many pages changed)."""
        row = self.conn.execute("SELECT value FROM meta WHERE key='changed'").fetchone()
        if token is None or not row or not row[0]:
            return None
        record = json.loads(row[0])
        if record["from"] != generation or record["token"] != token:
            return None
        return list(record["ids"])

    def stored_hash(self, path: str) -> str | None:
        """The fingerprint (``content_hash``) of a page's bytes as last indexed; None when not indexed."""
        row = self.conn.execute("SELECT hash FROM pages WHERE path=?", (path,)).fetchone()
        return str(row[0]) if row else None

    def page_rows(self, ids: list[int]) -> list[tuple[int, str, str, str, int, int, int, int]]:
        """``page_table``'s rows of just these pages (those still in the index), by id."""
        rows = []
        for start in range(0, len(ids), 500):  # under SQLite's bound-parameter limit
            chunk = ids[start : start + 500]
            marks = ", ".join("?" * len(chunk))
            rows += self.conn.execute(
                f"SELECT {PAGE_TABLE_COLUMNS} FROM pages WHERE id IN ({marks})",
                chunk,
            ).fetchall()
        return sorted(rows)

    def _stored_stats_of(self, paths: list[str]) -> dict[str, tuple[int, int]]:
        """The stored (mtime, size) of just these paths, as ``_stored_stats`` has them."""
        out: dict[str, tuple[int, int]] = {}
        for start in range(0, len(paths), 400):  # under SQLite's bound-parameter limit
            chunk = paths[start : start + 400]
            marks = ", ".join("?" * len(chunk))
            rows = self.conn.execute(
                f"SELECT path, mtime_ns, size FROM pages WHERE path IN ({marks}) UNION ALL "
                f"SELECT path, mtime_ns, size FROM problems WHERE kind != 'yaml' AND path IN ({marks})",
                chunk * 2,
            )
            out.update((p, (m, s)) for p, m, s in rows)
        return out

    def _stored_stats(self) -> dict[str, tuple[int, int]]:
        # Every refresh that writes also bumps the generation and stamps refreshed_at, so an unchanged
        # pair means the stored (mtime, size) table is unchanged: re-reading it on every lookup cost a
        # query over every page (~60 ms at 100k pages) for nothing.
        key = tuple(
            v
            for (v,) in self.conn.execute(
                "SELECT value FROM meta WHERE key IN ('generation', 'refreshed_at') ORDER BY key"
            )
        )
        if self._stored is not None and self._stored[0] == key:
            return self._stored[1]
        rows = self.conn.execute(
            "SELECT path, mtime_ns, size FROM pages "
            "UNION ALL SELECT path, mtime_ns, size FROM problems WHERE kind NOT IN ('yaml', 'name')"
        )
        stored = {p: (m, s) for p, m, s in rows}
        self._stored = (key, stored)
        return stored

    def _stored_bad_names(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT path, message FROM problems WHERE kind='name'"))

    def _store_bad_names(self, bad_names: dict[str, str]) -> None:
        """Keep the files and folders skipped for their names in the problems table, so ``status`` and
        every reader of ``problems()`` report them (under their path with each bad byte as ``\\xNN``)."""
        self.conn.execute("DELETE FROM problems WHERE kind='name'")
        self.conn.executemany(
            "INSERT OR REPLACE INTO problems VALUES (?, 'name', ?, -1, -1)", sorted(bad_names.items())
        )

    def _apply(
        self,
        todo: list[FileStat],
        gone: list[str],
        stats: RefreshStats,
        progress: Callable[[int, int], None] | None,
    ) -> None:
        """Index ``todo`` and drop ``gone`` inside the caller's transaction."""
        # Another refresher may have done part of the work while we waited for the lock.
        stored = self._stored_rows([fs.path for fs in todo] + gone)
        problem_paths = {p for (p,) in self.conn.execute("SELECT path FROM problems")}
        self._touched, self._paths_changed, self._changed_ids = set(), False, set()
        # mtime 0 marks a racy file: always re-read it (by hash), never trust its stored stat.
        skip = {
            fs.path
            for fs in todo
            if (old := stored.get(fs.path)) and fs.mtime_ns and (old[1], old[2]) == (fs.mtime_ns, fs.size)
        }
        prepared = self._prepared(
            [(fs, old[3] if (old := stored.get(fs.path)) else "") for fs in todo if fs.path not in skip]
        )
        try:
            for n, fs in enumerate(todo, 1):
                if progress:
                    progress(n, len(todo))
                if fs.path not in skip:
                    self._index_file(next(prepared), stored.get(fs.path), fs.path in problem_paths, stats)
        finally:
            prepared.close()  # stops any worker processes now, also when this refresh is cut short
        for path in gone:
            row = stored.get(path)
            if row:
                self._delete_page(row[0])
                self._paths_changed = True
            self.conn.execute("DELETE FROM problems WHERE path=?", (path,))
            stats.deleted += 1
        if not (stats.added or stats.updated or stats.deleted):
            # Only stored mtimes moved (touched files, racy re-checks): the pages are as they were, so
            # the generation stays and readers keep their cached tables; refreshed_at still changes,
            # which is what the stored-stats cache keys on.
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('refreshed_at', ?)", (repr(time.time()),))
            return
        self._resolve_links(None if self._paths_changed else self._touched)
        self._pack_fresh()
        self._new_generation(self._changed_ids)

    def _new_generation(self, changed: set[int] | None = None) -> None:
        """Record that the pages changed: the generation goes up (readers reload their per-generation
        tables), with the page count, the average body length and the refresh time. ``main.`` names the
        connection's own database, also while a staging build is attached to it.

        ``changed``: the ids of the pages added, re-indexed or removed since the last generation, named
        for readers (``Index.changed_since``) with the generation and token they follow; a new token
        marks each generation, as a file started over begins its generations at 0 again."""
        n_pages, avg_body = self.conn.execute(
            "SELECT COUNT(*), COALESCE(AVG(n_body), 0) FROM main.pages"
        ).fetchone()
        was = dict(
            self.conn.execute("SELECT key, value FROM main.meta WHERE key IN ('generation', 'gen_token')")
        )
        generation = int(was.get("generation", 0))
        named = changed is not None and len(changed) <= _CHANGES_NAMED and "gen_token" in was
        self.conn.executemany(
            "INSERT OR REPLACE INTO main.meta VALUES (?, ?)",
            [
                ("generation", str(generation + 1)),
                ("gen_token", secrets.token_hex(8)),
                (
                    "changed",
                    json.dumps({"from": generation, "token": was["gen_token"], "ids": sorted(changed)})
                    if named and changed is not None
                    else "",
                ),
                ("n_pages", str(n_pages)),
                ("avg_body", repr(float(avg_body))),
                ("refreshed_at", repr(time.time())),
            ],
        )
        self._changed_ids = set()

    def _stored_rows(self, paths: list[str]) -> dict[str, tuple[int, int, int, str]]:
        """(id, mtime, size, hash) of the given pages, by path. A few edited pages are looked up by
        path rather than by reading every row (~15 % of a one-page refresh at 10k pages)."""
        sql = "SELECT id, path, mtime_ns, size, hash FROM pages"
        if len(paths) > _FEW_PATHS:
            rows = self.conn.execute(sql).fetchall()
        else:
            rows = []
            for start in range(0, len(paths), 500):  # under SQLite's bound-parameter limit
                chunk = paths[start : start + 500]
                marks = ", ".join("?" * len(chunk))
                rows.extend(self.conn.execute(f"{sql} WHERE path IN ({marks})", chunk))
        return {p: (i, m, s, h) for i, p, m, s, h in rows}

    def _prepared(self, files: list[Task]) -> Generator[Prepared, None, None]:
        """``files`` read and tokenised, in order: by worker processes when there are enough of them
        (see krouter.index.prepare), else here, one at a time as they are asked for."""
        workers = worker_count(len(files))
        if not workers:
            return (prepare_page(self.root, fs, stored_hash) for fs, stored_hash in files)
        batches = [files[i : i + BATCH] for i in range(0, len(files), BATCH)]
        return (
            p for b in prepared_batches(self.root, batches, invert=False, workers=workers) for p in b.pages
        )

    def _index_file(
        self,
        prepared: Prepared,
        old: tuple[int, int, int, str] | None,
        was_problem: bool,
        stats: RefreshStats,
    ) -> None:
        fs, digest, problem = prepared.fs, prepared.digest, prepared.problem
        if problem is not None and not digest:  # not read at all
            self._skip(problem, fs, old, was_problem, stats)
            return
        if old and old[3] == digest:
            self.conn.execute(
                "UPDATE pages SET mtime_ns=?, size=? WHERE id=?", (fs.mtime_ns, fs.size, old[0])
            )
            stats.unchanged += 1
            return
        if problem is not None:  # read, but not text
            self._skip(problem, fs, old, was_problem, stats)
            return
        if was_problem:
            self.conn.execute("DELETE FROM problems WHERE path=?", (fs.path,))
        assert prepared.row is not None and prepared.postings is not None
        # The old page goes first: deleting it also deletes its YAML problem, which must not take the
        # new version's problem with it.
        if old:
            self._delete_page(old[0])
            stats.updated += 1
            self._touched.add(fs.path)
        else:
            stats.added += 1
            self._paths_changed = True
        self._insert_page(prepared.row, prepared.postings, old[0] if old else None)
        stats.tokenized += 1

    def _skip(
        self,
        problem: Problem,
        fs: FileStat,
        old: tuple[int, int, int, str] | None,
        was_problem: bool,
        stats: RefreshStats,
    ) -> None:
        """Record a file that is not indexed (``problem``) and count it: a page that became unreadable
        leaves the index (its rows are gone: readers must reload their tables), one skipped before and
        still skipped leaves the index as it was, and a new one adds nothing."""
        self._record_problem(problem, fs, old)
        if old:
            stats.updated += 1
            self._paths_changed = True
        elif was_problem:
            stats.unchanged += 1

    def _record_problem(self, problem: Problem, fs: FileStat, old: tuple[int, int, int, str] | None) -> None:
        if old:
            self._delete_page(old[0])
        self.conn.execute(
            "INSERT OR REPLACE INTO problems VALUES (?, ?, ?, ?, ?)",
            (problem.path, problem.kind, problem.message, fs.mtime_ns, fs.size),
        )

    def _delete_page(self, page_id: int) -> None:
        row = self.conn.execute(
            "SELECT path, passages, other_terms FROM pages WHERE id=?", (page_id,)
        ).fetchone()
        self._changed_ids.add(page_id)
        # Its packed entries are voided, not rewritten: see PACK_ROWS.
        self.conn.execute("DELETE FROM fresh_postings WHERE page_id=?", (page_id,))
        self.conn.execute("INSERT OR IGNORE INTO stale_pages VALUES (?)", (page_id,))
        self.conn.execute("DELETE FROM pages WHERE id=?", (page_id,))
        if row:
            self.conn.executemany(
                "INSERT OR IGNORE INTO stale_terms VALUES (?)", ((t,) for t in terms_of_page(row[1], row[2]))
            )
            self.conn.execute("DELETE FROM problems WHERE path=? AND kind='yaml'", (row[0],))

    def _insert_page(self, row: tuple[object, ...], postings: Postings | None, page_id: int | None) -> None:
        """Write a page's row (`krouter.index.prepare.page_row`), its YAML problem and its postings
        (None: a cold build stages them with its chunk's segment)."""
        yaml_error = row[_YAML_ERROR]
        if yaml_error:
            self.conn.execute(
                "INSERT OR REPLACE INTO problems VALUES (?, ?, ?, ?, ?)", (row[0], "yaml", yaml_error, -1, -1)
            )
        cur = self.conn.execute(f"INSERT INTO pages ({PAGE_COLUMNS}) VALUES ({PAGE_MARKS})", (page_id, *row))
        if cur.lastrowid is not None:
            self._changed_ids.add(cur.lastrowid)
        if postings is not None:
            new_id = cur.lastrowid
            self.conn.executemany(
                "INSERT INTO fresh_postings VALUES (?, ?, ?, ?, ?)",
                ((t, new_id, *tfs) for t, *tfs in postings.rows()),
            )

    def _resolve_links(self, only: set[str] | None = None) -> None:
        """Re-resolve replacement links: every one when pages were added or removed (a new page can make
        a dangling link resolve, or a link ambiguous), else only those of the ``only`` pages — a link's
        target depends on the set of page paths and on the page it is written on, nothing else."""
        if only is None:
            self.conn.execute("DELETE FROM links")
            rows = self.conn.execute(
                "SELECT path, superseded_by, supersedes FROM pages "
                "WHERE superseded_by != '[]' OR supersedes != '[]'"
            ).fetchall()
        else:
            rows = []
            for start in range(0, len(only), 500):  # under SQLite's bound-parameter limit
                chunk = sorted(only)[start : start + 500]
                marks = ", ".join("?" * len(chunk))
                self.conn.execute(f"DELETE FROM links WHERE src IN ({marks})", chunk)
                rows += self.conn.execute(
                    f"SELECT path, superseded_by, supersedes FROM pages WHERE path IN ({marks}) "
                    "AND (superseded_by != '[]' OR supersedes != '[]')",
                    chunk,
                ).fetchall()
            if not rows:
                return
        resolver = LinkResolver([p for (p,) in self.conn.execute("SELECT path FROM pages")])
        out = []
        for path, by_json, sup_json in rows:
            for raw in json.loads(by_json):
                out.append((path, resolver.resolve(raw, path), "superseded_by", raw))
            for raw in json.loads(sup_json):
                out.append((path, resolver.resolve(raw, path), "supersedes", raw))
        self.conn.executemany("INSERT INTO links VALUES (?, ?, ?, ?)", out)
