"""Hostile and unlucky input (issue #15): one bad file must never take a vault down.

Each test names the failure it pins: undecodable names, alias bombs and huge pages, surrogates in a
question, and the read-containment race. Every vault is made in tmp_path; nothing leaves the machine.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from krouter.agents.mcp.replies import ask_result
from krouter.cli import app
from krouter.errors import PageNotFound, PathOutsideVault
from krouter.index.store import Index
from krouter.ops.check.lint import check
from krouter.routing.router import Router
from krouter.vault.files import MAX_PAGE_BYTES, contained_path, read_contained, read_page_bytes
from krouter.vault.page import parse_page

runner = CliRunner()

needs_bytes_names = pytest.mark.skipif(
    sys.platform in ("darwin", "win32"), reason="the file system refuses names that are not UTF-8"
)


def _vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "Decisions").mkdir(parents=True)
    (root / "Decisions" / "Database.md").write_text(
        "---\ntitle: Primary database\n---\nWe use PostgreSQL as the primary database for every service.\n",
        encoding="utf-8",
    )
    (root / "Runbooks.md").write_text(
        "# Runbooks\n\nRestart the queue worker with systemctl.\n", encoding="utf-8"
    )
    return root


def _alias_bomb(levels: int, width: int = 9, field: str = "tags") -> str:
    names = [f"l{i}" for i in range(levels)]
    lines = [f"{names[0]}: &{names[0]} [" + ", ".join(['"lol"'] * width) + "]"]
    for prev, name in itertools.pairwise(names):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * width) + "]")
    return "---\n" + "\n".join(lines) + f"\n{field}: *{names[-1]}\n---\nThe queue worker restarts nightly.\n"


def _merge_bomb(levels: int, width: int = 9) -> str:
    names = [f"m{i}" for i in range(levels)]
    lines = [f"{names[0]}: &{names[0]} {{a: 1, b: 2}}"]
    for prev, name in itertools.pairwise(names):
        lines.append(f"{name}: &{name} {{<<: [" + ", ".join([f"*{prev}"] * width) + "]}")
    return "---\n" + "\n".join(lines) + "\n---\nBody.\n"


# ----- 1. names that are not UTF-8 ------------------------------------------------------------------


@needs_bytes_names
def test_undecodable_names_are_skipped_reported_and_the_rest_answers(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    raw = os.fsencode(root)
    with open(raw + b"/caf\xe9.md", "wb") as fh:
        fh.write(b"hello\n")
    os.mkdir(raw + b"/Arch\xefv")
    with open(raw + b"/Arch\xefv/old.md", "wb") as fh:
        fh.write(b"# Old\n\nprimary database notes\n")

    result = runner.invoke(app, ["ask", "which primary database do we use", "--vault", str(root)])
    assert result.exit_code == 0, result.output
    assert "Decisions/Database.md" in result.output

    status = runner.invoke(app, ["status", "--vault", str(root), "--json"])
    assert status.exit_code == 0, status.output
    problems = {p["path"]: p["kind"] for p in json.loads(status.output)["problems"]}
    assert problems == {"caf\\xe9.md": "name", "Arch\\xefv/": "name"}

    report = check(root)
    names = [(f.kind, f.path) for f in report.findings if f.kind == "name"]
    assert names == [("name", "Arch\\xefv/"), ("name", "caf\\xe9.md")]
    assert not report.ok

    # Stored once: a later refresh neither rewrites the rows nor counts a change.
    index = Index(root)
    try:
        before = index.generation()
        assert not index.refresh().changed
        assert index.generation() == before
    finally:
        index.close()


@needs_bytes_names
@pytest.mark.parametrize("command", ["ask", "status", "index", "check", "setup"])
def test_a_vault_whose_own_path_is_not_utf8_is_named_not_a_traceback(tmp_path: Path, command: str) -> None:
    """A cold review: a vault under a Latin-1 folder name ("Notizen_\\xfcber") crashed ask, status,
    index, mcp and watch with a UnicodeEncodeError: the path goes into the index, logs and receipts."""
    raw = os.fsencode(tmp_path) + b"/Notizen_\xfcber"
    os.mkdir(raw)
    root = _vault(Path(os.fsdecode(raw)))
    args = {"ask": ["ask", "which primary database do we use"], "setup": ["setup", "codex"]}.get(
        command, [command]
    )
    result = runner.invoke(app, [*args, "--vault", str(root)])
    assert result.exit_code == 2, result.output
    assert "the vault's path is not UTF-8" in result.stderr and "Notizen_\\xfcber" in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)


# ----- 2. bounded work per page -----------------------------------------------------------------------


@pytest.mark.parametrize("text", [_alias_bomb(7), _merge_bomb(7)], ids=["list-aliases", "merge-keys"])
def test_alias_bombs_are_a_yaml_problem_not_a_copy(text: str) -> None:
    page = parse_page("Bomb.md", text)
    assert page.yaml_error and "alias" in page.yaml_error
    assert page.tags == []


def test_billion_laughs_page_leaves_the_rest_of_the_vault_answering(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    (root / "Bomb.md").write_text(_alias_bomb(9), encoding="utf-8")
    (root / "Merge.md").write_text(_merge_bomb(12), encoding="utf-8")
    with Router(root) as router:
        receipt = router.ask("which primary database do we use")
        assert receipt.decision == "cite" and receipt.top and receipt.top.path == "Decisions/Database.md"
        kinds = {p.path: p.kind for p in router.index.problems()}
    assert kinds == {"Bomb.md": "yaml", "Merge.md": "yaml"}
    found = {f.path for f in check(root).findings if f.kind == "yaml"}
    assert found == {"Bomb.md", "Merge.md"}


def test_frontmatter_that_refers_to_itself_is_reported() -> None:
    page = parse_page("Loop.md", "---\nstatus: superseded\nx: &x [a, *x]\n---\nbody\n")
    assert page.yaml_error
    assert page.status == "superseded"  # still salvaged line by line


def test_deep_nesting_is_reported_not_a_crash() -> None:
    page = parse_page("Deep.md", "---\nx: " + "[" * 5000 + "]" * 5000 + "\n---\nbody\n")
    assert page.yaml_error
    assert page.body.startswith("---")


@pytest.mark.parametrize("levels", [60, 65])
def test_nesting_just_past_the_limit_is_reported_and_just_under_it_is_read(levels: int) -> None:
    """Frontmatter with no alias skips measuring its node graph only when it cannot nest past the
    limit: either side of the limit reads as it did when every page was measured."""
    page = parse_page("Deep.md", "---\ntitle: Deep\nx: " + "[" * levels + "]" * levels + "\n---\nbody\n")
    if levels > 64:
        assert page.yaml_error and "nests too deeply" in page.yaml_error
    else:
        assert page.yaml_error is None and page.title == "Deep" and page.body == "body\n"


def test_huge_frontmatter_is_not_parsed_as_yaml() -> None:
    fm = "title: Big\nnotes: |\n" + "  line of notes\n" * 40_000
    page = parse_page("Big.md", f"---\n{fm}---\nbody\n")
    assert page.yaml_error and "KiB" in page.yaml_error
    assert page.title == "Big"


def test_a_page_over_the_size_cap_is_skipped_and_reported(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    with open(root / "Dump.md", "wb") as fh:
        fh.truncate(MAX_PAGE_BYTES + 1)  # sparse: no disk used
    with Router(root) as router:
        receipt = router.ask("which primary database do we use")
        assert receipt.top and receipt.top.path == "Decisions/Database.md"
        assert [(p.path, p.kind) for p in router.index.problems()] == [("Dump.md", "too_large")]
    assert [(f.kind, f.path) for f in check(root).findings] == [("too_large", "Dump.md")]


# ----- 8. lone surrogates in a question -------------------------------------------------------------


def test_question_with_undecodable_bytes_is_answered_and_logged(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    # What Python makes of `krouter ask "$(printf 'caf\xe9')..."`: the bad byte as a lone surrogate.
    result = runner.invoke(app, ["ask", "caf\udce9 primary database", "--vault", str(root)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code in (0, 3)
    log = Path(os.environ["KROUTER_STATE_DIR"]) / "queries.jsonl"
    (line,) = log.read_text(encoding="utf-8").splitlines()
    assert json.loads(line)["question"] == "caf\ufffd primary database"


def _rpc(*messages: dict[str, object]) -> bytes:
    # ensure_ascii: a lone surrogate travels as the JSON escape "\ud800", as a hostile client sends it.
    return b"".join(json.dumps(m).encode("ascii") + b"\n" for m in messages)


def test_mcp_ask_with_a_lone_surrogate_returns_a_serialisable_receipt(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    with Router(root) as router:
        out = ask_result(router, "\ud800 primary database", 3)
    # The reply must survive the SDK's JSON encoding: no lone surrogate anywhere in it.
    json.dumps(out, ensure_ascii=False).encode("utf-8")
    assert out["decision"] in ("cite", "refuse")


def test_mcp_server_keeps_answering_after_a_lone_surrogate(tmp_path: Path) -> None:
    """The SDK's JSON parser (mcp 2.x) rejects a lone-surrogate escape before any tool runs, and sends
    no reply for that request; what KRouter must guarantee is that the next call is answered."""
    root = _vault(tmp_path)
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"},
        },
    }

    def ask(n: int, question: str) -> dict[str, object]:
        return {
            "jsonrpc": "2.0",
            "id": n,
            "method": "tools/call",
            "params": {"name": "krouter_ask", "arguments": {"question": question}},
        }

    proc = subprocess.Popen(
        [sys.executable, "-m", "krouter", "mcp", "--vault", str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    # Bounds the test if the server never answers: it is killed, and its stdout ends.
    guard = threading.Timer(120, proc.kill)
    guard.start()
    replies: dict[object, dict[str, object]] = {}
    try:
        assert proc.stdin and proc.stdout
        notified = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        proc.stdin.write(_rpc(init, notified, ask(2, "\ud800 primary database"), ask(3, "primary database")))
        proc.stdin.flush()
        for raw in proc.stdout:
            message = json.loads(raw)
            replies[message.get("id")] = message
            if 3 in replies:
                break
    finally:
        guard.cancel()
        proc.kill()
        proc.wait()
    assert 3 in replies, "the server stopped answering"
    assert "Decisions/Database.md" in json.dumps(replies[3])


# ----- 7. control characters in what is printed -----------------------------------------------------


def test_a_title_cannot_overwrite_the_receipt_on_a_terminal(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    (root / "Decisions" / "Database.md").write_text(
        '---\ntitle: "ok\\e[2K\\rCITE  Decisions/Fake.md (spoofed)"\n---\n'
        "We use PostgreSQL as the primary database for every service.\n",
        encoding="utf-8",
    )
    result = runner.invoke(app, ["ask", "which primary database do we use", "--vault", str(root)])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\r" not in result.output
    assert "ok\\e[2K\\rCITE  Decisions/Fake.md (spoofed)" in result.output
    assert result.output.splitlines()[0].startswith("CITE  Decisions/Database.md")


@pytest.mark.skipif(sys.platform == "win32", reason="no newline in Windows file names")
def test_a_newline_in_a_file_name_stays_on_one_output_line(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    (root / "Decisions" / "Database.md").unlink()
    (root / "Decisions" / "Data\nCITE  base.md").write_text(
        "We use PostgreSQL as the primary database for every service.\n", encoding="utf-8"
    )
    result = runner.invoke(app, ["ask", "which primary database do we use", "--vault", str(root)])
    assert result.output.splitlines()[0].startswith("CITE  Decisions/Data\\nCITE  base.md")
    checked = runner.invoke(app, ["check", "--vault", str(root)])
    assert not any(line.startswith("CITE") for line in checked.output.splitlines())


def test_page_text_printed_by_read_shows_escape_sequences(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    (root / "Note.md").write_bytes(b"line one\r\nline \x1b[31mtwo\x07\r\n")
    result = runner.invoke(app, ["read", "Note.md", "--vault", str(root)])
    assert result.exit_code == 0
    assert result.output.replace("\r\n", "\n") == "line one\nline \\e[31mtwo\\x07\n"


# ----- 4. files that hold vault text are owner-only -------------------------------------------------


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)  # the usual default, under which a plain mkdir/creat is world-readable
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
@pytest.mark.usefixtures("umask_022")
def test_index_and_the_folders_krouter_creates_are_owner_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _vault(tmp_path)
    home = tmp_path / "home"
    home.mkdir(mode=0o755)
    monkeypatch.setenv("KROUTER_CACHE_DIR", str(home / ".cache" / "krouter"))
    monkeypatch.setenv("KROUTER_STATE_DIR", str(home / ".local" / "state" / "krouter"))
    monkeypatch.delenv("KROUTER_NO_QUERY_LOG", raising=False)
    with Router(root) as router:
        router.ask("which primary database do we use")
        db = router.index.path
        # While the connection is open the WAL and shared-memory files exist: they hold page text too.
        files = [Path(f"{db}{s}") for s in ("", "-wal", "-shm")]
        assert all(f.exists() for f in files)
        assert {f.name: _mode(f) for f in files} == {f.name: 0o600 for f in files}
    for folder in (
        home / ".cache",
        home / ".cache" / "krouter",
        db.parent,
        home / ".local",
        home / ".local" / "state",
    ):
        assert _mode(folder) == 0o700, folder
    assert _mode(home / ".local" / "state" / "krouter" / "queries.jsonl") == 0o600


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
@pytest.mark.usefixtures("umask_022")
def test_an_index_left_world_readable_is_narrowed(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    with Router(root) as router:
        db = router.index.path
    os.chmod(db.parent, 0o755)
    os.chmod(db.parent.parent, 0o755)
    os.chmod(db, 0o644)
    with Router(root) as router:
        router.ask("which primary database do we use")
    assert (_mode(db.parent.parent), _mode(db.parent), _mode(db)) == (0o700, 0o700, 0o600)


# ----- 5. read containment: no check-then-use gap --------------------------------------------------


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
def test_a_folder_swapped_for_a_symlink_after_the_check_is_not_read(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "Database.md").write_text("the outside secret\n", encoding="utf-8")
    checked = contained_path(root, "Decisions/Database.md")
    # The swap lands between the check and the read: the window the race test hit 224 times.
    (root / "Decisions").rename(tmp_path / "moved")
    (root / "Decisions").symlink_to(outside, target_is_directory=True)
    with pytest.raises(PathOutsideVault):
        read_contained(root, checked)


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
def test_a_lookup_trusting_its_index_never_cites_text_through_a_swapped_folder(tmp_path: Path) -> None:
    """A bug hunt: with `krouter watch` running, a folder swapped for a link out of the vault was read
    through it, and the outside file's text cited, until the watcher reported the swap half a second
    later (a lookup the watcher's lease trusts does not walk). The passage is read without following
    links; the page, no longer there as indexed, is looked up again after a walk."""
    root = tmp_path / "vault"
    (root / "Stuff").mkdir(parents=True)
    (root / "Stuff" / "wifi.md").write_text("---\ntitle: Wifi\n---\nThe guest wifi password is marmot42.\n")
    (root / "Other.md").write_text("# Other\n\nThe printer is on floor two.\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "wifi.md").write_text("The guest wifi password is EVILTEXT, salary zorblax.\n")
    with Router(root) as router:
        assert router.ask("guest wifi password").decision == "cite"
    (root / "Stuff").rename(tmp_path / "held")
    (root / "Stuff").symlink_to(outside, target_is_directory=True)
    with Router(root, auto_refresh=False) as router:
        receipt = router.ask("guest wifi password")
    assert "EVILTEXT" not in json.dumps(receipt.to_dict()) and receipt.decision == "refuse", receipt.to_text()


def test_a_page_that_cannot_be_read_now_is_not_cited_from_the_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug hunt: the pages of a folder made unreadable (chmod, a privacy prompt, a sync mount) are kept
    as last indexed, and one was cited with an empty passage, even after its file was deleted; `krouter
    read` then failed. Such a page is refused, saying why."""
    from krouter.routing import citation

    root = _vault(tmp_path)
    real = citation.read_page_bytes

    def denied(vault: Path, rel: str, *args: object) -> bytes:
        if rel == "Decisions/Database.md":
            raise PermissionError(13, "Permission denied")
        return real(vault, rel, *args)

    with Router(root) as router:
        assert router.ask("which primary database do we use").decision == "cite"
        monkeypatch.setattr(citation, "read_page_bytes", denied)
        receipt = router.ask("which primary database do we use")
    assert receipt.decision == "refuse" and "cannot be read now (Permission denied)" in receipt.reason


def test_a_readable_page_answers_when_the_top_one_cannot_be_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Session 52's leftover: a page that cannot be read now refused the question even when a readable
    page below it answers (a deleted one is walked past). It is passed over, and the receipt says so."""
    from krouter.agents.mcp import replies
    from krouter.routing import citation

    root = _vault(tmp_path)
    (root / "Archive").mkdir()
    (root / "Archive" / "Database notes.md").write_text(
        "---\ntitle: Primary database\naliases: [primary database we use]\n---\nWe use PostgreSQL 16 as the "
        "primary database for every service, on the primary host.\n",
        encoding="utf-8",
    )
    real = citation.read_page_bytes

    def denied(vault: Path, rel: str, *args: object) -> bytes:
        if rel.startswith("Archive/"):
            raise PermissionError(13, "Permission denied")
        return real(vault, rel, *args)

    with Router(root) as router:
        assert router.ask("which primary database do we use").top.path == "Archive/Database notes.md"  # type: ignore[union-attr]
        monkeypatch.setattr(citation, "read_page_bytes", denied)
        receipt = router.ask("which primary database do we use")
        assert receipt.decision == "cite" and receipt.top is not None
        assert receipt.top.path == "Decisions/Database.md", receipt.to_text()
        assert receipt.evidence.unread == {"Archive/Database notes.md": "Permission denied"}
        assert (
            "passed over: Archive/Database notes.md cannot be read now (Permission denied)"
            in receipt.to_text()
        )
        assert all(c.path != "Archive/Database notes.md" for c in receipt.candidates)
        out = replies.ask_result(router, "which primary database do we use", 5)
        assert out["unread"] == ["Archive/Database notes.md"]
        assert "passed over, cannot be read now: Archive/Database notes.md" in replies.ask_summary(out)
        # With nothing else to say, the unreadable page is still refused, saying why.
        receipt = router.ask("on which host")
    assert receipt.decision == "refuse" and "cannot be read now (Permission denied)" in receipt.reason


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
def test_the_learner_never_reads_a_page_through_a_swapped_folder(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    assert read_contained(root, contained_path(root, "Decisions/Database.md")).startswith(b"---")
    (tmp_path / "secret.md").write_text("outside\n", encoding="utf-8")
    (root / "Runbooks.md").unlink()
    (root / "Runbooks.md").symlink_to(tmp_path / "secret.md")
    # contained_path refuses the outbound link; the reader refuses any link even when asked directly.
    with pytest.raises(PathOutsideVault):
        contained_path(root, "Runbooks.md")
    with pytest.raises(OSError):
        read_page_bytes(root, "Runbooks.md")


# ----- 9. hard links; temp files left by a crash ----------------------------------------------------


@pytest.mark.skipif(sys.platform == "win32", reason="hard links need NTFS and privileges")
def test_check_reports_a_page_hard_linked_from_outside(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    outside = tmp_path / "diary.md"
    outside.write_text("private words\n", encoding="utf-8")
    os.link(outside, root / "Diary.md")
    report = check(root)
    assert [(f.kind, f.path, f.severity) for f in report.findings] == [("hardlink", "Diary.md", "notice")]
    assert "2 hard links" in report.findings[0].message


def test_check_lists_a_temp_file_left_by_an_interrupted_write(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    left = root / "Decisions" / ".Database.md.0123456789abcdef.tmp"
    left.write_text("half a page\n", encoding="utf-8")
    (root / ".obsidian").mkdir()
    (root / ".obsidian" / "workspace.json").write_text("{}", encoding="utf-8")
    report = check(root)
    assert [(f.kind, f.path) for f in report.findings] == [
        ("leftover_tmp", "Decisions/.Database.md.0123456789abcdef.tmp")
    ]
    with Router(root) as router:  # never read as a page
        assert all(".tmp" not in row[1] for row in router.index.page_table())


# ----- 10. uninstall says what it keeps ---------------------------------------------------------------

INSTALL_SH = Path(__file__).resolve().parent.parent / "install.sh"


def _uninstall(home: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "KROUTER_", "DBUS_"))}
    env["HOME"] = str(home)
    return subprocess.run(
        ["sh", str(INSTALL_SH), "--uninstall", *flags],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.skipif(sys.platform == "win32", reason="install.sh is for POSIX systems")
def test_uninstall_names_the_api_key_and_the_agent_configs_it_leaves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    project = tmp_path / "project"
    project.mkdir(parents=True)
    state = home / ".local" / "state" / "krouter"
    monkeypatch.setenv("KROUTER_STATE_DIR", str(state))
    vault = tmp_path / "notes"
    vault.mkdir()
    written = runner.invoke(
        app, ["setup", "claude-code", "--write", "--project", str(project), "--vault", str(vault)]
    )
    assert written.exit_code == 0, written.output
    key = home / ".config" / "krouter" / "learn.env"
    key.parent.mkdir(parents=True)
    key.write_text("ANTHROPIC_API_KEY=test\n", encoding="utf-8")

    kept = _uninstall(home)
    assert kept.returncode == 0, kept.stderr
    assert f"kept {key}" in kept.stdout and "--purge-key" in kept.stdout
    assert str(project / ".mcp.json") in kept.stdout and str(project / "CLAUDE.md") in kept.stdout
    assert key.exists()

    purged = _uninstall(home, "--purge-key", "--purge-logs")
    assert purged.returncode == 0, purged.stderr
    assert f"removed {key}" in purged.stdout
    assert not key.exists() and not state.exists()


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
def test_reads_racing_a_folder_symlink_swap_never_return_outside_bytes(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "Database.md").write_text("the outside secret\n", encoding="utf-8")
    real, link, parked = root / "Decisions", root / "Decisions.link", root / "Decisions.real"
    link.symlink_to(outside, target_is_directory=True)
    stop = threading.Event()

    def swap() -> None:
        # Bounded: the reader below stops it, and it stops by itself after this many swaps.
        for _ in range(200_000):
            if stop.is_set():
                return
            os.rename(real, parked)
            os.rename(link, real)
            os.rename(real, link)
            os.rename(parked, real)

    swapper = threading.Thread(target=swap, daemon=True)
    swapper.start()
    read = refused = 0
    try:
        for _ in range(20_000):
            try:
                data = read_contained(root, contained_path(root, "Decisions/Database.md"))
            except (PathOutsideVault, PageNotFound):
                refused += 1
                continue
            assert b"outside" not in data
            read += 1
    finally:
        stop.set()
        swapper.join()
    assert read and refused  # both sides of the race were exercised


def test_json_nested_past_the_parser_s_depth_is_skipped_not_a_traceback(tmp_path: Path) -> None:
    """Python's JSON parser raises RecursionError, not a ValueError, on deep nesting: a synced vault's
    .obsidian/app.json so written crashed every lookup, and a query log line so written the learner."""
    from krouter.routing import querylog

    vault = _vault(tmp_path)
    nested = "[" * 100_000 + "]" * 100_000
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian" / "app.json").write_text('{"userIgnoreFilters": ' + nested + "}", encoding="utf-8")
    res = CliRunner().invoke(app, ["ask", "which database do we use", "--vault", str(vault)])
    assert res.exit_code == 0 and res.exception is None, res.output
    log = tmp_path / "log.jsonl"
    log.write_text('{"question": ' + nested + '}\n{"question": "kept"}\n', encoding="utf-8")
    assert [item["question"] for _, item in querylog.read(log)] == ["kept"]
