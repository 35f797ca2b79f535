"""The look-alike checks of ``krouter check``: live pages sharing a title, and near-duplicate bodies
(64-bit SimHash fingerprints compared by banding, so a large vault is not compared pair by pair)."""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter, defaultdict
from functools import lru_cache

from krouter.ops.check.report import Finding
from krouter.tokens.terms import index_terms, normalize
from krouter.vault.page import Page

SIMHASH_BITS = 64
# At most this many differing bits counts as near-duplicate. Measured on the bundled and bench vaults:
# distinct pages sit 12+ bits from their nearest neighbour, while a page with 5% of its terms changed
# lands 0-8 bits from the original; 6 catches most light edits with a wide margin from distinct pages.
NEAR_DUP_DISTANCE = 6
# Short pages share most of their few terms by chance; their fingerprints say little.
MIN_TERMS = 24
# A bucket this large means many pages are alike; comparing neighbours in fingerprint order keeps
# the check linear there while still reporting them.
MAX_BUCKET = 256


_LANE = 32  # bits per counter in the packed sum below: room for 4 billion occurrences of a term


@lru_cache(maxsize=262144)
def _spread(term: str) -> int:
    """A term's 64-bit hash with each bit moved into its own 32-bit lane of one big integer.

    Adding spread hashes counts, per bit, how often it was set, in one bigint addition per term
    instead of 64 Python-level additions; the vocabulary repeats across pages, so this is cached.
    """
    h = int.from_bytes(hashlib.blake2b(term.encode("utf-8"), digest_size=8).digest(), "big")
    return sum(1 << (bit * _LANE) for bit in range(SIMHASH_BITS) if (h >> bit) & 1)


def simhash(terms: list[str]) -> int:
    """64-bit SimHash of a bag of terms, each weighted by its frequency."""
    packed = 0
    total = 0
    for term, count in Counter(terms).items():
        packed += count * _spread(term)
        total += count
    lane = (1 << _LANE) - 1
    # A bit is set when the terms setting it outweigh those clearing it: set-count > total / 2.
    return sum(1 << bit for bit in range(SIMHASH_BITS) if 2 * ((packed >> (bit * _LANE)) & lane) > total)


def hamming(a: int, b: int) -> int:
    """Number of differing bits."""
    return (a ^ b).bit_count()


def near_duplicate_pairs(
    fingerprints: dict[str, int], distance: int = NEAR_DUP_DISTANCE
) -> list[tuple[str, str, int]]:
    """Pairs of paths whose fingerprints differ in at most ``distance`` bits, without comparing all pairs.

    The fingerprint is cut into ``distance + 2`` bands; ``distance`` differing bits touch at most
    ``distance`` bands, so a near pair agrees exactly on at least two (pigeonhole). Pages are bucketed
    by every pair of bands, and only pages sharing a bucket are compared: with 8-bit bands a bucket key
    is 16 bits, so buckets stay small on a 100k-page vault.
    """
    distance = max(0, min(distance, SIMHASH_BITS // 2 - 2))
    bands = distance + 2
    width = SIMHASH_BITS // bands
    mask = (1 << width) - 1
    buckets: dict[tuple[int, int, int, int], list[str]] = defaultdict(list)
    for path, fp in fingerprints.items():
        parts = [(fp >> (band * width)) & mask for band in range(bands)]
        for i, j in itertools.combinations(range(bands), 2):
            buckets[(i, j, parts[i], parts[j])].append(path)
    seen: set[tuple[str, str]] = set()
    out: list[tuple[str, str, int]] = []
    for members in buckets.values():
        if len(members) < 2:
            continue
        members = sorted(members, key=lambda p: (fingerprints[p], p))
        if len(members) > MAX_BUCKET:
            pairs = itertools.pairwise(members)
        else:
            pairs = itertools.combinations(members, 2)
        for a, b in pairs:
            key = (a, b) if a < b else (b, a)
            if key in seen:
                continue
            seen.add(key)
            d = hamming(fingerprints[a], fingerprints[b])
            if d <= distance:
                out.append((key[0], key[1], d))
    return sorted(out)


def duplicate_titles(pages: dict[str, Page], replaced: set[str]) -> list[Finding]:
    """Live pages sharing a title: a receipt naming that title is ambiguous to whoever reads it.

    Replaced pages are left out: an old decision and its replacement often keep the same title, and
    the router never cites the old one.
    """
    groups: dict[str, list[str]] = defaultdict(list)
    for path, page in pages.items():
        if path not in replaced:
            groups[" ".join(normalize(page.title).split())].append(path)
    out = []
    for paths in groups.values():
        if len(paths) > 1:
            paths.sort()
            title = pages[paths[0]].title
            out.append(
                Finding(
                    "duplicate_title", paths[0], f"title {title!r} is shared by {len(paths)} pages", paths[1:]
                )
            )
    return out


def near_duplicates(pages: dict[str, Page], successor: dict[str, list[str]], distance: int) -> list[Finding]:
    """Pages whose bodies are nearly the same, except a page and its own replacement (expected)."""
    fingerprints = {}
    for path, page in pages.items():
        terms = index_terms(page.body)
        if len(terms) >= MIN_TERMS:
            fingerprints[path] = simhash(terms)
    out = []
    for a, b, d in near_duplicate_pairs(fingerprints, distance):
        if _in_chain(a, b, successor) or _in_chain(b, a, successor):
            continue
        what = (
            "identical bodies"
            if d == 0 and pages[a].body.strip() == pages[b].body.strip()
            else (f"near-duplicate bodies (SimHash distance {d} of {SIMHASH_BITS} bits)")
        )
        out.append(Finding("near_duplicate", a, f"{what} with {b!r}; merge them or mark one replaced", [b]))
    return out


def _in_chain(old: str, new: str, successor: dict[str, list[str]]) -> bool:
    """True when ``new`` is reached from ``old`` by following replacements."""
    stack, seen = [old], {old}
    while stack:
        for nxt in successor.get(stack.pop(), []):
            if nxt == new:
                return True
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return False
