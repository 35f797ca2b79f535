"""The index's version, and the name of its file: per vault, and per version of the tables and of the
tokeniser, so that two KRouter versions on one machine (an agent's MCP server started before an
upgrade, a project set up with another install) never share an index. They did: each dropped the
other's tables on opening, and a watcher's lease, seeing no file change, told every lookup the emptied
index was fresh for up to five minutes (a cold review). A module of its own, importing nothing heavy: the
`krouter ask` client names the file without loading the index.
"""

from __future__ import annotations

import re
from pathlib import Path

from krouter.tokens.version import TOKENIZER_VERSION

# Bumped when the tables or what is stored in them change, so an index built by an older KRouter is
# rebuilt, not misread (3: field names read case-insensitively and salvaged from broken YAML; 4:
# replaced_by / replaces, more replaced statuses, status lists and phrases, wikilinks in lists; 5: link
# resolution rules, whose results the links table keeps until a page changes; 6: postings packed per
# term with a table of fresh rows beside them, passages and page terms compressed; 7: statuses and
# field names as people type them, a field written twice; passages' lines counted as editors count them;
# 8: other frontmatter fields as passages, numbers as written, and tokenizer 21's later kanji singles,
# so that no index built between those commits is kept; 9: statuses, replacement links and aliases
# written in the body, as Logseq properties or an ADR's status section; dates and nested maps of other
# frontmatter fields as passages; 10: template pages left out, query blocks no passages).
# 11: a page tagged as a clipping (``fields.CLIPPING_TAGS``) is marked so (pages.clipped).
# 12: a page's tag: field read as its tags: are.
# 13: a replaced status that names its replacement by a link (status: superseded by [[New]]) leads there.
# 14: only "superseded/replaced by" names a replacement; "rejected/deprecated by" names who decided.
# 15: a status promising a replacement names it by any link it holds (superseded, see [[X]]; 已被 [[X]] 取代).
# 16: a Chinese ADR's "## 状态" section read as an English one's "## Status".
# 17: a status line at a page's top (Status: superseded by [[New]], **Status:** …, 状态：已废弃) read;
# a frontmatter date no calendar has (2024-02-30) read as text, not as the whole frontmatter's error;
# a Logseq namespace link ([[Project/Alpha]]) resolved to the file Logseq writes (Project___Alpha.md).
# 18: what 17's commits changed after its first (top status lines' replacement links: 由 [[X]] 替代, a date
# before "by", a link whose title starts with a status word; impossible dates; Logseq namespace links),
# so that no index built between those commits is kept (tests/test_index_version_pin.py pins it now).
# 19: Japanese and Korean replaced statuses (廃止, 폐기, 置き換え済み, 대체됨 …) and status lines (状態：, 상태:).
# 20: a Japanese or Korean status counts as a whole word, not by its first characters (廃止しない, 廃止予定,
# 폐기 예정 are current).
# 21: a replacement field of its own at a page's top ("Replaced by: [Page](…)", a Notion export's) and a
# callout's title ("> [!warning] Superseded by [[New]]") read as a replaced status.
# 22: links to macOS's decomposed file names percent-encoded, to Logseq's percent-encoded file names
# ([[Q1: Planning]]), and two-word keys (Roam's "Superseded by:: [[X]]") resolved and read.
# 23: an alias that is a URL path (Hugo's aliases: the old URLs a page redirects from) is no name of it.
# 24: a "Replaced by [[X]]" line retires its page only when nothing but a date or a word follows the link.
SCHEMA_VERSION = "24"


def file_name(vault_name: str, vault_id: str) -> str:
    """The index file's name for a vault (its folder's name, for people reading the cache folder, and
    its id) at this version."""
    safe = re.sub(r"[^A-Za-z0-9_-]+", "_", vault_name)[:40] or "vault"
    return f"{safe}-{vault_id}-v{SCHEMA_VERSION}.{TOKENIZER_VERSION}.sqlite3"


def shared_stem(index_file: Path) -> str:
    """The index file's name without its version: what files kept across versions are named after
    (the page vectors, keyed by page content and model, are the same for every index version)."""
    return re.sub(r"-v\d+\.\d+$", "", index_file.stem)
