"""The index's version changes whenever what it stores of a page does (docs/decisions.md: bump it with
every rule change, even within a session). Two KRouter installs of one version share one index file: an
install whose pages parse differently, under the same number, answers from what the other stored (an
upgrade hunt: after an install of 35e5a65, the next commit's `krouter ask` kept "Old queue 2.md was
replaced, with no replacement page" for a page whose status line names its replacement, until the page
was edited).

What the index stores of the pages below is pinned to the version here: a change to how they parse fails
this test until SCHEMA_VERSION is bumped and the new digest recorded beside it.
"""

from __future__ import annotations

import hashlib
import json

from krouter.index.version import SCHEMA_VERSION
from krouter.vault.page import parse_page

# Pages in the forms the schema's history names (statuses and replacements in frontmatter, a status
# line at the top, an ADR's Status section in English and Chinese, Logseq properties, dates, templates).
PAGES = {
    "Old queue.md": "# Old queue\n\nStatus: Superseded on 2024-03-01 by [[Kafka queue]], [[2024-03-01]]\n",
    "报销接口.md": "# 报销接口\n\n状态：已废弃，由 [[报销服务v2]] 替代\n\n报销单走 /api/expense。\n",
    "旧报销流程.md": "# 旧报销流程\n\n状态：已被 [[新报销流程]] 取代（2024年3月1日）\n\n报销单交给王姐。\n",
    "Webhooks.md": '---\nstatus: "superseded, see [[Deprecated APIs guide]]"\n---\n# Webhooks\n\nRetries hourly.\n',
    "Old deploy.md": "# Old deploy\n\nStatus: Deprecated, see [[New deploy]]\n\nDeploy with fabric.\n",
    "Vendor API.md": "# Vendor API v1\n\nStatus: [[Deprecated]]\n\nThe v1 rate limit is 600 a minute.\n",
    "Legacy export.md": "# Legacy export\n\n**Status:** Deprecated by [[Platform team]]\n\nIt runs at 02:00.\n",
    "endpoint.md": "# GET /v1/users\n\nStatus: Deprecated\n\nThe v1 users endpoint sunsets on 2025-06-01.\n",
    "adr/0003-use-mysql.md": "# 3. Use MySQL\n\n## Status\n\nSuperseded by ADR-0005\n\n## Decision\n\nMySQL.\n",
    "adr/0002-队列.md": "# 2. 消息队列\n\n## 状态\n\n已被 [[0005-kafka]] 取代\n\n## 决策\n\n用 RabbitMQ。\n",
    "pages/Budget.md": "status:: superseded\nsuperseded-by:: [[Project/Alpha]]\nalias:: Old budget\n\n- Q3 is 40k.\n",
    "Meeting.md": "---\ncreated: 2024-02-30\nowner: Ann\ntags: [ops]\n---\n# Weekly meeting\n\nMondays at 10.\n",
    "Template.md": "---\ntitle: {{title}}\n---\n# {{title}}\n\nStatus: <% tp.date.now() %>\n",
    "Cache.md": "---\nstatus: current\nsupersedes: '[[Cache - Memcached]]'\ntriggers: [which cache]\n---\n# Cache\n\nRedis 7.\n",
    "旧ルール.md": "---\nstatus: 廃止\n---\n# 交通費\n\n定期代で支給。\n",
    "구_규칙.md": "# 회의실\n\n상태: 대체됨 [[회의실 규칙 2025]]\n\n엑셀로 예약.\n",
    "Old deploy aa11.md": "# Old deploy\n\nStatus: Deprecated\nReplaced by: [Deploy](Deploy%209b1c.md)\n\nJenkins.\n",
    "Old A.md": "# Old A\n\n> [!warning] Superseded by [[New plan]]\n\nJenkins alpha.\n",
}

# The digest of what PAGES parse into, for each index version since this pin was kept ("17" as the
# version first parsed them, at de32a81), over PAGES as they were then (19 added 旧ルール and 구_규칙, 21 the last two).
PARSED = {
    "17": "07102b78f56b56b5e8c16290bf680ab8a6c6bbbb17911b27e4595b7ebe152ce6",
    "18": "df75cba9d724584ba13f5126d637e24d213026cc4e9a1c23ba616f409e3f3795",
    "19": "d809d5871d0145fb14b64abd215fc91798e48801f8d654ef4431c2c896fd8c03",
    "20": "d809d5871d0145fb14b64abd215fc91798e48801f8d654ef4431c2c896fd8c03",
    "21": "1b7be850560bc88075820d0fbcd058208f0fa312ad4951bc1002267c31c2ff4d",
    "22": "1b7be850560bc88075820d0fbcd058208f0fa312ad4951bc1002267c31c2ff4d",
    "23": "1b7be850560bc88075820d0fbcd058208f0fa312ad4951bc1002267c31c2ff4d",
    "24": "1b7be850560bc88075820d0fbcd058208f0fa312ad4951bc1002267c31c2ff4d",
}


def parsed_digest() -> str:
    """A digest of what the index stores of each page of PAGES: its fields as parsed (a YAML error by
    whether there is one; its wording is PyYAML's)."""
    rows = []
    for rel, text in sorted(PAGES.items()):
        p = parse_page(rel, text)
        rows.append(
            [
                rel,
                p.title,
                p.body,
                p.body_line,
                p.status,
                p.aliases,
                p.tags,
                p.triggers,
                p.superseded_by,
                p.supersedes,
                p.status_links,
                p.yaml_error is not None,
                p.status_disagreement,
                [list(prop) for prop in p.properties],
                p.template,
                p.replaced,
            ]
        )
    return hashlib.sha256(json.dumps(rows, ensure_ascii=False, default=str).encode("utf-8")).hexdigest()


def test_what_the_index_stores_of_a_page_changes_only_with_its_version() -> None:
    assert parsed_digest() == PARSED.get(SCHEMA_VERSION), (
        f"these pages parse differently from what index schema {SCHEMA_VERSION} stored: bump "
        "SCHEMA_VERSION in krouter/index/version.py (say why there) and record the digest in PARSED"
    )
