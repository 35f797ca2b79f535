"""The learner's journal (``learned.jsonl``: every change it made to a page, enough to undo it byte for
byte) and its outcomes log (``learn_log.jsonl``: every run's outcomes, rejections with their reasons
included, and every undo). Both live in the state dir, private (0600, in a 0700 folder)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import time
from pathlib import Path

from krouter import config
from krouter.atomic import atomic_write
from krouter.routing import querylog

JOURNAL_NAME = "learned.jsonl"
OUTCOMES_NAME = "learn_log.jsonl"


def journal_path() -> Path:
    """Where every change the learner made is recorded (``learned.jsonl`` in the state dir)."""
    return config.state_dir() / JOURNAL_NAME


def outcomes_path() -> Path:
    """Where every run's outcomes, rejections with their reasons included, are recorded."""
    return config.state_dir() / OUTCOMES_NAME


def write_private(path: Path, data: bytes, append: bool) -> None:
    """Append to, or atomically replace, a private state file (0600, in a 0700 folder)."""
    config.private_dir(path.parent)
    if append:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        return
    atomic_write(path, data, mode=0o600)


def append_jsonl(path: Path, obj: dict[str, object]) -> None:
    """Append one JSON object as a line to a private state file (the journal, the outcomes log)."""
    write_private(path, (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8"), append=True)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def new_run_id() -> str:
    """A sortable, unique run id: UTC time plus a random suffix."""
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + secrets.token_hex(3)


def undone_runs() -> set[str]:
    """The run ids ``krouter learn --undo`` reversed (a page or more restored)."""
    return {
        str(item["undo"])
        for _offset, item in querylog.read(outcomes_path())
        if "undo" in item and isinstance(item.get("restored"), int) and item["restored"]
    }


def journal_entries(run_id: str | None = None) -> list[dict[str, object]]:
    """Journal entries, all or one run's, in the order they were written; corrupt lines skipped.

    An entry whose trigger was taken back at once (``take_back``) carries ``"taken_back": True``.
    """
    out = []
    withdrawn: set[tuple[str, str, str, str]] = set()
    for _offset, item in querylog.read(journal_path()):
        back = item.get("take_back")
        if isinstance(back, dict):
            withdrawn.add(entry_key(back))
        elif "page" in item and (run_id is None or item.get("run_id") == run_id):
            out.append(item)
    for e in out:
        if entry_key(e) in withdrawn:
            e["taken_back"] = True
    return out


def entry_key(item: dict[str, object]) -> tuple[str, str, str, str]:
    # A run writes a trigger onto a page once; the digest tells apart the same run id reused.
    return (
        str(item.get("run_id")),
        str(item.get("page")),
        str(item.get("trigger")),
        str(item.get("after_sha256")),
    )
