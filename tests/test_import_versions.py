"""Two KRouter versions importing into one vault (an agent's install not yet upgraded beside a new one):
a session page redacted by newer rules is never written over by older ones, which would put back the
secrets those rules took out (an upgrade hunt)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from krouter.agents.sessions.pages import import_sessions
from krouter.agents.sessions.redaction import RULES_VERSION
from krouter.cli import app

# How every KRouter before the rules' generation was recorded reads a page's import hash (and then
# overwrites the page when the hash matches, writing back what its own older rules let through).
RELEASED_HASH = re.compile(r"^import_hash: (sha256:[0-9a-f]{64})\r?\n", re.M)
HASH_LINE = re.compile(r"^import_hash: (?:r[0-9]+-)?(sha256:[0-9a-f]{64})$", re.M)


def _session(tmp_path: Path, *turns: str) -> Path:
    src = tmp_path / "chat.jsonl"
    rows = [
        {"session_id": "s1", "role": ("user", "assistant")[i % 2], "content": t} for i, t in enumerate(turns)
    ]
    src.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return src


def test_a_page_hides_its_hash_from_krouters_before_the_rules_generation(vault: Path, tmp_path: Path) -> None:
    """Before: the page's import_hash was the one every older version reads, so an older install's next
    import rewrote the page with its own redaction (a password in a Chinese sentence came back)."""
    src = _session(tmp_path, "Where are backups kept?", "In the backups bucket.")
    text = (vault / import_sessions([src], vault).created[0]).read_text(encoding="utf-8")
    assert RELEASED_HASH.search(text) is None, text
    assert f"\nimport_hash: r{RULES_VERSION}-sha256:" in text


def test_reimport_keeps_a_page_of_newer_redaction_rules(vault: Path, tmp_path: Path) -> None:
    src = _session(tmp_path, "Where are backups kept?", "In the backups bucket.")
    rel = import_sessions([src], vault).created[0]
    page = vault / rel
    # As a later KRouter writes it: the same hash (of the page without that line), a later generation.
    newer = HASH_LINE.sub(
        lambda m: f"import_hash: r{RULES_VERSION + 1}-{m.group(1)}", page.read_text("utf-8")
    )
    page.write_text(newer, encoding="utf-8")
    src = _session(tmp_path, "Where are backups kept?", "In the backups bucket.", "And for how long?")
    result = CliRunner().invoke(app, ["import", str(src), "--vault", str(vault)])
    assert result.exit_code == 0, result.output
    assert page.read_text(encoding="utf-8") == newer
    assert (
        f"kept      {rel} (imported by a newer krouter (redaction rules {RULES_VERSION + 1}" in result.output
    )


def test_a_page_an_older_krouter_imported_is_signed_again(vault: Path, tmp_path: Path) -> None:
    """The upgrade itself: a page with the hash as older versions wrote it is this import's to update,
    even when nothing but the import time would change (left as it was, an older install still wrote
    over it); a page this generation signed is then left as it is."""
    src = _session(tmp_path, "Where are backups kept?", "In the backups bucket.")
    rel = import_sessions([src], vault).created[0]
    page = vault / rel
    older = HASH_LINE.sub(lambda m: f"import_hash: {m.group(1)}", page.read_text("utf-8"))
    page.write_text(older, encoding="utf-8")
    assert import_sessions([src], vault).updated == [rel]
    assert RELEASED_HASH.search(page.read_text(encoding="utf-8")) is None
    assert import_sessions([src], vault).unchanged == [rel]
    src = _session(tmp_path, "Where are backups kept?", "In the backups bucket.", "And for how long?")
    assert import_sessions([src], vault).updated == [rel]
    assert "And for how long?" in page.read_text(encoding="utf-8")
