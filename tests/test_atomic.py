"""``krouter.atomic``: the one way KRouter replaces a file (pages, cursor, agent configs, units)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from krouter import atomic
from krouter.atomic import atomic_write


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def test_writes_bytes_and_text_exactly(tmp_path: Path) -> None:
    target = tmp_path / "f.md"
    atomic_write(target, b"a\r\nb\n")
    assert target.read_bytes() == b"a\r\nb\n"
    atomic_write(target, "ü\r\nz\n")  # text: UTF-8, line endings as given
    assert target.read_bytes() == "ü\r\nz\n".encode()
    assert [p.name for p in tmp_path.iterdir()] == ["f.md"]


def test_mode_is_the_umask_default_or_exactly_as_asked(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    atomic_write(plain, "x")
    assert plain.stat().st_mode & 0o777 == 0o666 & ~_umask()
    for mode in (0o600, 0o664, 0o640):
        target = tmp_path / f"m{mode:o}"
        atomic_write(target, "x", mode=mode)
        assert target.stat().st_mode & 0o777 == mode


def test_temp_files_are_hidden_unique_and_beside_the_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sources: list[Path] = []
    real_replace = os.replace

    def spy(src: str | Path, dst: str | Path) -> None:
        sources.append(Path(src))
        real_replace(src, dst)

    monkeypatch.setattr(atomic.os, "replace", spy)
    target = tmp_path / ("long name " * 30).strip()[:250]  # near the 255-byte limit of a name
    atomic_write(target, "one")
    atomic_write(target, "two")
    assert target.read_text(encoding="utf-8") == "two"
    assert len(set(sources)) == 2
    assert all(s.parent == tmp_path and s.name.startswith(".") for s in sources)


def test_a_planted_symlink_is_never_followed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep", encoding="utf-8")
    monkeypatch.setattr(atomic.secrets, "token_hex", lambda n: "guessed")
    (tmp_path / ".f.guessed.tmp").symlink_to(victim)
    with pytest.raises(FileExistsError):
        atomic_write(tmp_path / "f", "new")
    assert victim.read_text(encoding="utf-8") == "keep" and not (tmp_path / "f").exists()


def test_failure_before_the_rename_leaves_the_old_file_and_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "f"
    target.write_text("old", encoding="utf-8")

    def refuse() -> None:
        raise RuntimeError("changed underneath")

    with pytest.raises(RuntimeError):
        atomic_write(target, "new", before_replace=refuse)
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["f"]


def test_file_and_folder_are_fsynced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kinds: list[str] = []
    real_fsync = os.fsync

    def spy(fd: int) -> None:
        kinds.append("dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        real_fsync(fd)

    monkeypatch.setattr(atomic.os, "fsync", spy)
    atomic_write(tmp_path / "f", "x")
    assert kinds == ["file", "dir"]


def test_a_leftover_half_build_with_this_processs_pid_is_not_built_on(tmp_path: Path) -> None:
    # A cold review: a leftover "<store>.<pid>.tmp" of an earlier process with the same pid (pids are
    # reused, in containers most) was opened by sqlite3 and built on, and the store came out broken.
    import os

    from krouter.atomic import sqlite_aside

    store = tmp_path / "store.sqlite3"
    store.with_name(f"{store.name}.{os.getpid()}.tmp").write_bytes(b"junk, not a database")
    with sqlite_aside(store) as conn:
        conn.execute("CREATE TABLE t (x)")
    import sqlite3

    assert sqlite3.connect(store).execute("SELECT count(*) FROM t").fetchone() == (0,)
