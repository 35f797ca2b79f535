#!/usr/bin/env python3
"""A minimal FTS5 search tool on the same MCP SDK as ``krouter mcp``: the per-call baseline of run.py.

Usage: fts_mcp.py PORTER_DB TRIGRAM_DB. One tool, ``fts_ask(question)``: a question with Han characters
goes to the trigram table, any other to the ``porter unicode61`` one; the top 10 by ``bm25()`` come back
as a dict (path, title, score). One connection, opened at start, as a long-lived server would keep it.
"""

from __future__ import annotations

import re
import sqlite3
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from mcp.server.mcpserver import MCPServer  # noqa: E402
from run import _FTS_TOP10, fts_query  # noqa: E402

_HAN = re.compile(r"[\u3400-\u9fff]")


def main() -> None:
    """Serve the tool over stdio until the client closes the session."""
    porter = sqlite3.connect(sys.argv[1], check_same_thread=False)
    trigram = sqlite3.connect(sys.argv[2], check_same_thread=False)
    server = MCPServer(name="fts5", log_level="WARNING")

    @server.tool()
    def fts_ask(question: str) -> dict[str, Any]:
        """Top 10 pages for a question by FTS5 bm25()."""
        tokenizer = "trigram" if _HAN.search(question) else "porter"
        match = fts_query(question, tokenizer)
        conn = trigram if tokenizer == "trigram" else porter
        rows = conn.execute(_FTS_TOP10, (match,)).fetchall() if match else []
        return {"hits": [{"path": p, "title": t, "score": s} for p, t, s in rows]}

    server.run("stdio")


if __name__ == "__main__":
    main()
