"""Where ``krouter import`` reads from (a pipe, a device) and where it writes (a session already
imported stays where it is, once): a bug hunt's findings."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from krouter.cli import app

ROWS = [
    {"session_id": "s1", "role": "user", "content": "What port does the billing api use?"},
    {"session_id": "s1", "role": "assistant", "content": "Port 8080."},
]


def jsonl(rows: list[dict[str, object]]) -> bytes:
    return "".join(json.dumps(row) + "\n" for row in rows).encode()


def session_pages(vault: Path) -> list[str]:
    return sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md") if p.name != "Note.md")


def import_pipe(vault: Path, data: bytes, *args: str) -> tuple[int, str]:
    """Import what a pipe holds (``krouter import <(cat chat.jsonl)``): read once, never seekable."""
    read, write = os.pipe()
    try:
        os.write(write, data)  # fits the pipe's buffer: written before the import reads
        os.close(write)
        result = CliRunner().invoke(app, ["import", f"/dev/fd/{read}", "--vault", str(vault), *args])
    finally:
        os.close(read)
    return result.exit_code, result.output


def test_a_transcript_from_a_pipe_is_imported(vault: Path) -> None:
    """A bug hunt: the first line was read to name the file's sessions, then missing from the import."""
    code, out = import_pipe(vault, jsonl(ROWS))
    assert code == 0 and "1 created" in out, out
    [page] = session_pages(vault)
    text = (vault / page).read_text(encoding="utf-8")
    assert "Port 8080." in text and "What port does the billing api use?" in text
    assert "pipe:[" not in text


def test_an_id_less_transcript_from_a_pipe_updates_its_page_when_piped_again(vault: Path) -> None:
    rows = [{"role": "user", "content": "Which queue do we use?"}, {"role": "assistant", "content": "NATS."}]
    assert import_pipe(vault, jsonl(rows))[0] == 0
    code, out = import_pipe(vault, jsonl(rows))
    assert code == 0 and "1 unchanged" in out, out
    assert len(session_pages(vault)) == 1


def test_two_chats_opening_alike_piped_one_after_the_other_are_two_pages(vault: Path) -> None:
    """A cold review: a pipe's id-less session was named by its first line alone, so two exports opening
    with the same line were one session, and the second overwrote the first's page."""
    one = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "The queue is NATS."}]
    two = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Deploys go out on Tuesdays."}]
    assert import_pipe(vault, jsonl(one))[0] == 0
    assert import_pipe(vault, jsonl(two))[0] == 0
    texts = [(vault / page).read_text(encoding="utf-8") for page in session_pages(vault)]
    assert len(texts) == 2 and any("NATS" in t for t in texts) and any("Tuesdays" in t for t in texts)


def test_an_endless_device_is_refused_naming_it_and_nothing_is_written(vault: Path) -> None:
    """A bug hunt: import /dev/zero grew memory without bound (a line was read whole, then cut)."""
    result = CliRunner().invoke(app, ["import", "/dev/zero", "--vault", str(vault)])
    assert result.exit_code == 1 and "/dev/zero: line 1 is longer than 64 MiB" in result.output
    assert "Traceback" not in result.output and session_pages(vault) == []


def test_a_stream_past_the_limit_is_refused_and_nothing_is_written(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from krouter.agents.sessions import lines

    monkeypatch.setattr(lines, "STREAM_LIMIT", 1000)
    code, out = import_pipe(vault, jsonl(ROWS * 20), "--json")
    assert code == 1 and "/dev/fd/" in out and "read and no end: not a transcript" in out, out
    assert session_pages(vault) == []


def test_a_file_too_large_in_a_folder_is_skipped_and_the_others_are_imported(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One file with a line past the limit stopped the import of the whole folder (a known defect);
    its first lines, read before the long one, must not be written either."""
    from krouter.agents.sessions import lines

    monkeypatch.setattr(lines, "LINE_LIMIT", 200)
    folder = tmp_path / "chats"
    folder.mkdir()
    (folder / "a.jsonl").write_bytes(jsonl(ROWS))
    long = {"session_id": "big", "role": "assistant", "content": "x" * 300}
    (folder / "big.jsonl").write_bytes(
        jsonl([{"session_id": "big", "role": "user", "content": "hello"}, long])
    )
    (folder / "c.jsonl").write_bytes(jsonl([{**row, "session_id": "s3"} for row in ROWS]))
    result = CliRunner().invoke(app, ["import", str(folder), "--vault", str(vault)])
    assert result.exit_code == 1, result.output
    assert "big.jsonl: line 2 is longer than" in result.stderr
    assert "imported 2 of 3 file(s): 2 created" in result.stdout
    assert "1 file(s) skipped as too large" in result.stdout
    texts = [(vault / page).read_text(encoding="utf-8") for page in session_pages(vault)]
    assert len(texts) == 2 and not any("hello" in t for t in texts), texts
    as_json = CliRunner().invoke(app, ["import", str(folder), "--vault", str(vault), "--json"])
    out = json.loads(as_json.stdout)
    assert as_json.exit_code == 1 and (out["files"], out["imported_files"]) == (3, 2)
    [skipped] = out["too_large_files"]
    assert Path(skipped["path"]) == (folder / "big.jsonl").resolve() and out["unrecognised_files"] == []
    assert "big.jsonl: line 2 is longer than" in skipped["why"] and len(out["unchanged"]) == 2


def test_a_session_also_in_a_file_too_large_keeps_its_page_as_it_was(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A review: a session written across two files (a resumed chat), one of them grown past the limit,
    was "updated" from the other file alone, and its page lost the turns the skipped file held."""
    from krouter.agents.sessions import lines

    monkeypatch.setattr(lines, "LINE_LIMIT", 200)
    folder = tmp_path / "chats"
    folder.mkdir()
    later = [
        {"session_id": "s1", "role": "user", "content": "And the queue?"},
        {"session_id": "s1", "role": "assistant", "content": "NATS on 4222."},
    ]
    (folder / "a.jsonl").write_bytes(jsonl(ROWS))
    (folder / "b.jsonl").write_bytes(jsonl(later))
    (folder / "c.jsonl").write_bytes(jsonl([{**row, "session_id": "s3"} for row in ROWS]))
    assert CliRunner().invoke(app, ["import", str(folder), "--vault", str(vault)]).exit_code == 0
    before = {page: (vault / page).read_bytes() for page in session_pages(vault)}
    assert any(b"NATS on 4222." in text for text in before.values())
    big = {"session_id": "s1", "role": "assistant", "content": "x" * 300}
    (folder / "b.jsonl").write_bytes(jsonl([*later, big]))
    (folder / "c.jsonl").write_bytes(jsonl([{**row, "session_id": "s3"} for row in [*ROWS, *later]]))
    result = CliRunner().invoke(app, ["import", str(folder), "--vault", str(vault), "--json"])
    assert result.exit_code == 1, result.output
    out = json.loads(result.stdout)
    assert {page: (vault / page).read_bytes() for page in before if "s3" not in page} == {
        page: text for page, text in before.items() if "s3" not in page
    }
    assert out["updated"] == [page for page in before if "s3" in page], out
    [skipped] = out["too_large_files"]
    assert Path(skipped["path"]) == (folder / "b.jsonl").resolve()
    assert "b.jsonl: line 3 is longer than" in skipped["why"]
    assert "session(s) s1, also in other files" in skipped["why"]


def run_import(vault: Path, tmp_path: Path, *args: str) -> tuple[int, str]:
    src = tmp_path / "chat.jsonl"
    src.write_bytes(jsonl(ROWS))
    result = CliRunner().invoke(app, ["import", str(src), "--vault", str(vault), *args])
    return result.exit_code, result.output


def test_a_session_imported_into_an_input_folder_stays_there_whatever_folder_is_named(
    vault: Path, tmp_path: Path
) -> None:
    """A bug hunt: --folder moved a session imported before out of Inputs/Sessions, said "moved A -> B
    (sessions go in an input folder)" backwards, counted no move, and the next plain import made a
    second page."""
    assert run_import(vault, tmp_path)[0] == 0
    [first] = session_pages(vault)
    code, out = run_import(vault, tmp_path, "--folder", "Notes/Chats")
    assert code == 0 and "moved" not in out.replace("0 moved", ""), out
    assert f"stay there (not Notes/Chats): {first}" in out and "1 unchanged" in out
    assert session_pages(vault) == [first] and not (vault / "Notes").exists()
    code, out = run_import(vault, tmp_path)
    assert code == 0 and "1 unchanged" in out and session_pages(vault) == [first], out


def test_a_session_in_no_input_folder_is_moved_to_one_and_the_move_is_counted(
    vault: Path, tmp_path: Path
) -> None:
    assert run_import(vault, tmp_path, "--folder", "Notes/Chats")[0] == 0
    [first] = session_pages(vault)
    assert first.startswith("Notes/Chats/")
    code, out = run_import(vault, tmp_path)
    [now] = session_pages(vault)
    assert code == 0 and now.startswith("Inputs/Sessions/"), out
    assert f"moved     {first} -> {now} (Notes/Chats is in no input folder)" in out
    assert "1 moved" in out
