"""Packed postings: one row per term holding its whole postings list, and folding edits into it.

Edits go to ``fresh_postings`` and ``stale_pages`` first (see PACK_ROWS); `PackedPostings._pack_fresh`
folds them in once there are enough. `unpack` is what every lookup decodes.
"""

from __future__ import annotations

import itertools
import operator
import sqlite3
import sys
from array import array
from collections.abc import Sequence
from typing import NamedTuple

# Postings are stored packed, one row per term (``pack``): a lookup reads a term's list as one blob and
# decodes it in C. An edit does not rewrite the packed lists of its terms (a common word's list spans
# every page): the page's rows go to ``fresh_postings``, its id to ``stale_pages`` (which voids its packed
# entries) and its old terms to ``stale_terms``. Readers merge the three. Once the fresh rows pass
# PACK_ROWS or PACK_ROWS_PER_PAGE per page of the vault (~5% of its postings), or the stale pages
# PACK_STALE or one in PACK_STALE_SHARE of the pages, the refresh that got them there folds them into
# the packed lists, rewriting only the terms they touch. The limits grow with the vault because a fold
# rewrites whole lists, which grow with it: at 100k pages, folding after every 50k rows made a refresh
# of 1,000 edited pages take 30 s.
PACK_ROWS = 50_000
PACK_ROWS_PER_PAGE = 16
PACK_STALE = 1_000
PACK_STALE_SHARE = 20


def pack(rows: list[tuple[int, int, int, int]]) -> tuple[bytes, bytes]:
    """One term's postings, (page id, title/alias tf, trigger tf, body tf) in page id order, as two
    blobs: the ids as 4-byte ints, and the three tf columns, each in the narrowest of 1/2/4-byte ints
    that holds it ("z": all zero, stored as nothing), behind a 3-letter header naming those widths.
    Native byte order: the index is a cache of this machine's, rebuilt if unreadable."""
    ids, *cols = zip(*rows, strict=True)
    return pack_columns(ids, cols)


def pack_columns(ids: Sequence[int], cols: Sequence[Sequence[int]]) -> tuple[bytes, bytes]:
    """``pack`` of postings given as a column of page ids and the three tf columns."""
    codes, data = [], []
    for col in cols:
        top = max(col)
        code = "z" if not top else "B" if top < 0x100 else "H" if top < 0x10000 else "I"
        codes.append(code)
        if code != "z":
            data.append(array(code, col).tobytes())
    return array("i", ids).tobytes(), "".join(codes).encode() + b"".join(data)


class Block(NamedTuple):
    """A run of consecutive terms of a cold build's chunk (`krouter.index.prepare.Batch`), each with its
    postings packed as `pack` packs a list: the terms joined by newlines (no term holds one), how many
    pages hold each (4-byte ints), the byte length of each term's packed tfs (4-byte ints), then every
    term's page ids (4-byte ints) and packed tfs end to end. A chunk is staged as a few such rows, not
    one row per term: inserting and sorting ~1M small rows was most of the building process's work."""

    terms: str
    counts: bytes
    sizes: bytes
    ids: bytes
    tfs: bytes


def block_lists(block: Block) -> tuple[list[str], list[bytes], list[bytes]]:
    """A staged block's terms, in term order, with each one's ids and tfs blobs (sliced in C)."""
    terms, counts, sizes, ids, tfs = block
    id_at = list(itertools.accumulate(map((4).__mul__, array("i", counts)), initial=0))
    tf_at = list(itertools.accumulate(array("i", sizes), initial=0))
    return (
        terms.split("\n"),
        list(map(ids.__getitem__, map(slice, id_at, id_at[1:]))),
        list(map(tfs.__getitem__, map(slice, tf_at, tf_at[1:]))),
    )


def rebased(ids: bytes, n: int) -> bytes:
    """``ids`` (4-byte ints in native order, each in [0, 2**31)) with ``n`` (in [0, 2**31)) added to every
    one. Done as one addition of two big integers, the blob and ``n`` repeated in every 4-byte lane: no
    lane overflows (a sum stays under 2**32), so no carry crosses into the next. Five times faster than
    a pass through ``int.__add__`` per id (~8 ms a chunk of 140k postings)."""
    if not ids:
        return ids
    order = sys.byteorder
    lanes = int.from_bytes(ids, order) + int.from_bytes(n.to_bytes(4, order) * (len(ids) // 4), order)
    return lanes.to_bytes(len(ids), order)


# Bytes per tf of each column code ("z": an all-zero column, stored as nothing).
_WIDTH = {"z": 0, "B": 1, "H": 2, "I": 4}


def _column_bytes(tfs_blob: bytes, n: int) -> list[tuple[str, bytes]]:
    """The three tf columns of a packed list of ``n`` postings, as (code, bytes), undecoded."""
    out, at = [], 3
    for code in tfs_blob[:3].decode():
        size = n * _WIDTH[code]
        out.append((code, tfs_blob[at : at + size]))
        at += size
    return out


# A segment's (term, first, ids, tfs) fields and a packed tfs blob's header and columns, taken in C.
_IDS, _TFS = operator.itemgetter(2), operator.itemgetter(3)
_HEAD, _TAIL = operator.itemgetter(slice(3)), operator.itemgetter(slice(3, None))


def join_segments(
    parts: Sequence[tuple[str, int, bytes, bytes]], dropped: frozenset[int]
) -> tuple[bytes, bytes] | None:
    """One term's packed list from its segments: (term, first page id of the chunk, ids, tfs) packed
    lists of consecutive chunks of pages, in page order. Exactly what ``pack`` gives for all their
    postings, less those of ``dropped`` pages (None when nothing is left). Joined column by column, in
    C: each column is widened to the widest code any segment needed, which is the narrowest that holds
    the joined column."""
    if dropped:
        ids = array("i", b"".join(map(_IDS, parts)))
        if not dropped.isdisjoint(ids):
            cols: list[list[int]] = [[], [], []]
            for _term, _first, seg_ids, tfs in parts:
                for col, seg in zip(cols, _columns(seg_ids, tfs)[1], strict=True):
                    col.extend(seg)
            keep = [i not in dropped for i in ids]
            kept = list(itertools.compress(ids, keep))
            return pack_columns(kept, [list(itertools.compress(c, keep)) for c in cols]) if kept else None
    if len(parts) == 1:
        return parts[0][2], parts[0][3]
    ids_blob = b"".join(map(_IDS, parts))
    tfs_blobs = list(map(_TFS, parts))
    header = tfs_blobs[0][:3]
    # The usual case: every segment has the same widths and one stored column (body tfs; title and
    # trigger tfs all zero), so the joined column is the segments' columns end to end.
    heads = list(map(_HEAD, tfs_blobs))
    if header.count(b"z") >= 2 and len(set(heads)) == 1:
        return ids_blob, header + b"".join(map(_TAIL, tfs_blobs))
    if _BYTE_WIDE.issuperset(b"".join(heads)):
        # The next most usual: one-byte columns, some all zero in some segments (a word in a title in
        # one chunk, in bodies only in the others). A column is a byte wide wherever any segment
        # stores it, and a segment that does not stores zeros there.
        return ids_blob, _join_byte_columns(parts, heads)
    segments = [
        (len(seg_ids) // 4, _column_bytes(tfs, len(seg_ids) // 4)) for _term, _first, seg_ids, tfs in parts
    ]
    codes = "".join(max((seg[k][0] for _n, seg in segments), key=_WIDTH.__getitem__) for k in range(3))
    data = []
    for k, code in enumerate(codes):
        if code == "z":
            continue
        out = array(code)
        for n, seg in segments:
            seg_code, raw = seg[k]
            if seg_code == code:
                out.frombytes(raw)
            elif seg_code == "z":
                out.frombytes(bytes(n * _WIDTH[code]))
            else:
                out.extend(iter(array(seg_code, raw)))
        data.append(out.tobytes())
    return ids_blob, codes.encode() + b"".join(data)


_Z, _B = b"zB"
_BYTE_WIDE = frozenset(b"zB")


def _join_byte_columns(parts: Sequence[tuple[str, int, bytes, bytes]], heads: list[bytes]) -> bytes:
    """The joined tfs blob of segments whose column codes are all "z" or "B" (see `join_segments`)."""
    sizes = [len(p[2]) // 4 for p in parts]
    codes = bytes(_B if _B in col else _Z for col in zip(*heads, strict=True))
    data = []
    for k in range(3):
        if codes[k] == _Z:
            continue
        pieces = []
        for head, n, (_term, _first, _ids, tfs) in zip(heads, sizes, parts, strict=True):
            if head[k] == _Z:
                pieces.append(bytes(n))
            else:
                at = 3 + n * head[:k].count(_B)
                pieces.append(tfs[at : at + n])
        data.append(b"".join(pieces))
    return codes + b"".join(data)


def _columns(ids_blob: bytes, tfs_blob: bytes) -> tuple[array[int], list[array[int]]]:
    """The page ids and the three tf columns of a packed list, as arrays (all-zero ones filled)."""
    ids = array("i", ids_blob)
    cols, at = [], 3
    for code in tfs_blob[:3].decode():
        if code == "z":
            cols.append(array("B", bytes(len(ids))))
            continue
        size = len(ids) * array(code).itemsize
        cols.append(array(code, tfs_blob[at : at + size]))
        at += size
    return ids, cols


def unpack(ids_blob: bytes, tfs_blob: bytes) -> dict[int, tuple[int, int, int]]:
    """The postings ``pack`` stored, as (title/alias tf, trigger tf, body tf) by page id, in id order.
    Decoding and the dict are built in C; Python code runs only for the postings with a title/alias or
    trigger tf (the few pages whose title or triggers hold the term)."""
    ids = array("i", ids_blob)
    n = len(ids)
    cols: list[array[int] | None] = []
    at = 3
    for code in tfs_blob[:3].decode():
        if code == "z":
            cols.append(None)
            continue
        col = array(code, tfs_blob[at : at + n * array(code).itemsize])
        at += len(col) * col.itemsize
        cols.append(col)
    meta, trig, body = cols
    if body is None:
        # No posting with a body tf (a term of titles or triggers only): rare, every triple built.
        columns = (meta or bytes(n), trig or bytes(n), bytes(n))
        canon: dict[tuple[int, int, int], tuple[int, int, int]] = {}
        return dict(
            zip(
                ids,
                map(canon.setdefault, zip(*columns, strict=True), zip(*columns, strict=True)),
                strict=True,
            )
        )
    # One tuple object per distinct triple, shared by its pages: a list holds a few dozen distinct
    # triples, and a new tuple per posting woke the garbage collector every 700 postings (which then
    # walked the dicts being built) and promoted lists half-built into its oldest generation. Most
    # postings have a body tf only (even in lists whose title column is stored, only the pages whose
    # title holds the term have a title tf): their triples are keyed by the body tf alone, which spares
    # zipping and hashing a triple per posting, and the others are then set in place (a dict keeps a
    # key's position when its value changes, so the id order holds).
    by_body = {tf: (0, 0, tf) for tf in set(body)}
    out = dict(zip(ids, map(by_body.__getitem__, body), strict=True))
    fields: set[int] = set()
    for col in (meta, trig):
        if col is not None:
            fields.update(itertools.compress(range(n), col))
    if fields:
        shared: dict[tuple[int, int, int], tuple[int, int, int]] = {}
        for i in fields:
            tfs = (meta[i] if meta is not None else 0, trig[i] if trig is not None else 0, body[i])
            out[ids[i]] = shared.setdefault(tfs, tfs)
    return out


class PackedPostings:
    """The fold of fresh rows into packed lists. A part of `krouter.index.store.Index`, whose
    connection it uses."""

    conn: sqlite3.Connection

    def _pack_fresh(self) -> None:
        """Fold the fresh rows and stale pages into the packed lists once there are enough of them
        (see PACK_ROWS), rewriting only the terms they touch. A first index of a small vault (no packed
        list yet) is packed whole."""
        if self.conn.execute("SELECT 1 FROM postings LIMIT 1").fetchone() is not None:
            (rows,) = self.conn.execute("SELECT COUNT(*) FROM fresh_postings").fetchone()
            (n_stale,) = self.conn.execute("SELECT COUNT(*) FROM stale_pages").fetchone()
            row = self.conn.execute("SELECT value FROM meta WHERE key='n_pages'").fetchone()
            n_pages = int(row[0]) if row else 0
            if rows <= max(PACK_ROWS, PACK_ROWS_PER_PAGE * n_pages) and n_stale <= max(
                PACK_STALE, n_pages // PACK_STALE_SHARE
            ):
                return
        terms = sorted(
            t
            for (t,) in self.conn.execute(
                "SELECT term FROM stale_terms UNION SELECT term FROM fresh_postings"
            )
        )
        stale = frozenset(p for (p,) in self.conn.execute("SELECT page_id FROM stale_pages"))
        for term in terms:  # one term at a time: a rebuild folds every posting of the vault
            self._fold(term, stale)
        for table in ("fresh_postings", "stale_pages", "stale_terms"):
            self.conn.execute(f"DELETE FROM {table}")
        self._stale = None

    def _fold(self, term: str, stale: frozenset[int]) -> None:
        """Rewrite a term's packed list with its stale pages dropped and its fresh rows merged in (or
        delete it: no page holds the term any more; or leave it: neither touches it). Column by column
        in C: a common word's list spans every page, and a fold rewrites it whenever one page holding
        it was edited."""
        row = self.conn.execute("SELECT ids, tfs FROM postings WHERE term=?", (term,)).fetchone()
        ids: Sequence[int]
        cols: list[Sequence[int]]
        ids, cols = _columns(*row) if row else (array("i"), [array("B")] * 3)
        dropped = bool(stale) and not stale.isdisjoint(ids)
        if dropped:
            keep = list(map(operator.not_, map(stale.__contains__, ids)))
            ids = list(itertools.compress(ids, keep))
            cols = [list(itertools.compress(col, keep)) for col in cols]
        fresh = self.conn.execute(
            "SELECT page_id, meta_tf, trig_tf, body_tf FROM fresh_postings WHERE term=?", (term,)
        ).fetchall()
        if fresh:
            # An edited page's packed entry is stale, so no page is both packed and fresh here.
            new_ids, *new_cols = zip(*fresh, strict=True)
            after = not ids or new_ids[0] > ids[-1]
            ids = [*ids, *new_ids]
            cols = [[*col, *extra] for col, extra in zip(cols, new_cols, strict=True)]
            if not after:
                order = sorted(range(len(ids)), key=ids.__getitem__)
                ids = list(map(ids.__getitem__, order))
                cols = [list(map(col.__getitem__, order)) for col in cols]
        if not ids:
            self.conn.execute("DELETE FROM postings WHERE term=?", (term,))
        elif dropped or fresh:
            self.conn.execute(
                "INSERT OR REPLACE INTO postings VALUES (?, ?, ?)", (term, *pack_columns(ids, cols))
            )
