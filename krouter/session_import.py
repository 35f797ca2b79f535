"""``krouter import``: turn conversation transcripts into Markdown pages of the vault.

Two JSONL shapes are read, line by line, and may be mixed in one file:

- plain transcripts: ``{"session_id": ..., "role": "user"|"assistant", "content": str | [blocks]}``;
- Claude Code project transcripts (``~/.claude/projects/<project>/<session>.jsonl``): lines with
  ``type`` "user"/"assistant", ``message.role``, ``message.content`` (a string or a list of ``text``,
  ``tool_use``, ``tool_result`` blocks), ``sessionId`` and ``timestamp``.

Each session becomes one page under an inputs folder (``Inputs/Sessions`` by default), named by a slug
of its first question plus the session id, so a re-import finds and updates the same page instead of
adding a second one, and leaves it untouched when nothing but the import time would change. A page
records the hash of the text the import wrote (``import_hash``): a page that no longer matches it was
edited by hand and is kept as it is, never overwritten; so is a page that cannot be read. Text is
kept; a tool call becomes one line; tool results, thinking, and Claude Code's own bookkeeping
(system reminders, slash-command echoes, sub-agent side chains) are dropped. Anything that looks like
a secret is redacted *before* it reaches the page, because a vault is read by agents and synced to
places a transcript never was. A malformed line is reported as ``file:line`` and skipped.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Annotated

import typer
import yaml

from krouter.atomic import atomic_write
from krouter.cli_options import EXIT_USAGE, USAGE_ERRORS, NamedVaultOption, fail
from krouter.config import vault_to_write
from krouter.errors import KRouterError, PathOutsideVault
from krouter.vault import check_vault, parse_page

DEFAULT_FOLDER = "Inputs/Sessions"
TITLE_CHARS = 72
SLUG_CHARS = 48
TOOL_LINE_CHARS = 160

# ---------------------------------------------------------------------------------------------------
# Redaction. Order matters: whole private-key blocks first, then vendor-specific token shapes (their
# kind names are more useful than "token"), then the generic ``name = value`` assignments.

_REDACTIONS: list[tuple[str, re.Pattern[str]]] = [
    (
        "private_key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?"
            r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
            re.S,
        ),
    ),
    ("anthropic_key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{16,}")),
    ("openai_key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}")),
    ("stripe_key", re.compile(r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}")),
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})")),
    ("slack_token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
]
# Secrets whose surroundings are worth keeping: "Bearer <x>", "password = <x>", "://user:<x>@".
_BEARER = re.compile(r"(?i)\b(bearer\s+)(?!\[REDACTED)([A-Za-z0-9._~+/=-]{12,})")
_URL_PASSWORD = re.compile(r"(://[^\s:/@]+:)(?!\[REDACTED)([^\s@/]{3,})(@)")
_ASSIGNMENT = re.compile(
    r"(?i)\b((?:[a-z0-9]+[_-])*(?:password|passwd|pwd|passphrase|secret|token|api[_-]?key|"
    r"access[_-]?key|private[_-]?key|client[_-]?secret|credentials?)(?:[_-][a-z0-9]+)*)"
    r"(\"?'?\s*[:=]\s*)([\"'`]?)(?!\[REDACTED)([^\s\"'`,;]{4,})"
)
# Values of a secret-named field that are placeholders or code, not secrets: redacting them would
# only make transcripts about configuration unreadable.
_NOT_SECRET = re.compile(
    r"(?i)^(?:none|null|nil|true|false|str|string|int|bool|undefined|optional|required|"
    r"redacted|\*+|x+|\.\.\.|[$<{(].*|os\.environ.*|process\.env.*|env\(.*|getenv.*)$"
)


def _kind_for(name: str) -> str:
    low = name.lower()
    for word in ("password", "passwd", "pwd", "passphrase"):
        if word in low:
            return "password"
    return "secret" if "secret" in low or "credential" in low else "token"


def redact(text: str) -> str:
    """Replace secret-looking strings with ``[REDACTED:kind]``; everything else is left as it was."""
    for kind, pattern in _REDACTIONS:
        text = pattern.sub(f"[REDACTED:{kind}]", text)
    text = _BEARER.sub(r"\1[REDACTED:bearer_token]", text)
    text = _URL_PASSWORD.sub(r"\1[REDACTED:password]\3", text)

    def assignment(m: re.Match[str]) -> str:
        value = m.group(4)
        if _NOT_SECRET.match(value):
            return m.group(0)
        return f"{m.group(1)}{m.group(2)}{m.group(3)}[REDACTED:{_kind_for(m.group(1))}]"

    return _ASSIGNMENT.sub(assignment, text)


# ---------------------------------------------------------------------------------------------------
# Reading transcripts.


@dataclass
class Turn:
    """One speaker's consecutive text in a session."""

    role: str  # "user" | "assistant"
    text: str


@dataclass
class Session:
    """Everything read for one session id, in the order it was read."""

    session_id: str
    fmt: str
    sources: list[str] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)
    timestamps: list[_dt.datetime] = field(default_factory=list)
    fallback_date: _dt.date | None = None

    def add(self, role: str, text: str) -> None:
        """Append text; a speaker's consecutive lines (Claude Code streams one block per line) merge."""
        text = text.strip()
        if not text:
            return
        if self.turns and self.turns[-1].role == role:
            self.turns[-1].text += "\n\n" + text
        else:
            self.turns.append(Turn(role, text))


@dataclass
class ImportReport:
    """What one import did: vault-relative paths of pages created, updated, left unchanged, and kept
    (with the reason an existing page was not overwritten)."""

    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    kept: list[tuple[str, str]] = field(default_factory=list)
    empty: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    files: int = 0
    # Files in which no line was in a transcript format KRouter knows.
    unrecognised: list[str] = field(default_factory=list)


_ROLES = {"user": "user", "human": "user", "assistant": "assistant", "ai": "assistant", "model": "assistant"}
_TEXT_BLOCKS = {"text", "input_text", "output_text"}
# Claude Code wraps its own chatter in tags; none of it is what the person or the model said.
_NOISE_BLOCKS = re.compile(
    r"<(system-reminder|local-command-stdout|local-command-stderr|command-message|user-prompt-submit-hook)>"
    r".*?</\1>",
    re.S,
)
_COMMAND = re.compile(r"<command-name>\s*(.*?)\s*</command-name>", re.S)
_COMMAND_ARGS = re.compile(r"<command-args>\s*(.*?)\s*</command-args>", re.S)
_INTERRUPTED = re.compile(r"^\[Request interrupted by user[^\]]*\]$", re.M)
_CAVEAT = re.compile(
    r"^Caveat: The messages below were generated by the user while running local commands.*$"
)


def _clean(text: str) -> str:
    """Strip Claude Code's tags and echoes, keeping a slash command as ``(command: /x args)``."""
    if "<" in text:
        args = _COMMAND_ARGS.search(text)

        def command(m: re.Match[str]) -> str:
            extra = f" {args.group(1)}" if args and args.group(1) else ""
            return f"(command: {m.group(1)}{extra})"

        text = _COMMAND.sub(command, text)
        text = _COMMAND_ARGS.sub("", text)
        text = _NOISE_BLOCKS.sub("", text)
    text = _INTERRUPTED.sub("", text)
    if _CAVEAT.match(text):
        return ""
    return text.strip()


def _one_line(value: object, limit: int = TOOL_LINE_CHARS) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _tool_line(block: dict[str, object]) -> str:
    """A tool call in one line: its name and the one argument that says what it did."""
    name = str(block.get("name") or "tool")
    args = block.get("input")
    detail = ""
    if isinstance(args, dict):
        for key in ("command", "file_path", "path", "pattern", "url", "query", "description", "prompt"):
            if isinstance(args.get(key), str) and args[key].strip():
                detail = args[key]
                break
        else:
            first = next((v for v in args.values() if isinstance(v, str) and v.strip()), "")
            detail = first
    elif isinstance(args, str):
        detail = args
    return f"(tool: {name}: {_one_line(detail)})" if detail else f"(tool: {name})"


def _content_text(content: object) -> str:
    """Text of a message's content: strings and text blocks kept, tool calls one line each, rest dropped."""
    if isinstance(content, str):
        return _clean(content)
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(_clean(block))
        elif isinstance(block, dict):
            kind = block.get("type")
            if kind in _TEXT_BLOCKS and isinstance(block.get("text"), str):
                parts.append(_clean(block["text"]))
            elif kind == "tool_use":
                parts.append(_tool_line(block))
            # tool_result, thinking, images, documents: large, noisy, and the likeliest to hold secrets.
    return "\n\n".join(p for p in parts if p)


def _timestamp(value: object) -> _dt.datetime | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = value / 1000 if value > 1e11 else value  # milliseconds since the epoch, or seconds
        try:
            return _dt.datetime.fromtimestamp(seconds, _dt.UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str) and value.strip():
        try:
            ts = _dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
        return ts if ts.tzinfo else ts.replace(tzinfo=_dt.UTC)
    return None


def _display(path: Path) -> str:
    """A source path as shown on the page: home folded to ``~`` so usernames do not leak."""
    try:
        return "~/" + path.resolve().relative_to(Path.home().resolve()).as_posix()
    except (ValueError, RuntimeError):
        return path.resolve().as_posix()


def read_transcript(path: Path, sessions: dict[str, Session], problems: list[str]) -> bool:
    """Add the turns of one JSONL file to ``sessions``; malformed lines go to ``problems``.

    Returns False when no line of the file was in a format KRouter knows (Claude Code, Codex, or
    ``{session_id, role, content}`` lines), so the caller can say so instead of importing nothing.
    """
    source = _display(path)
    known = False
    try:
        mtime = _dt.datetime.fromtimestamp(path.stat().st_mtime, _dt.UTC).date()
        handle = path.open("r", encoding="utf-8", errors="replace")
    except OSError as exc:
        problems.append(f"{path}: cannot read: {exc.strerror or exc}")
        return True
    with handle:
        for lineno, line in enumerate(handle, 1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                problems.append(f"{where}: not JSON ({exc.msg})")
                continue
            if not isinstance(obj, dict):
                problems.append(f"{where}: not a JSON object")
                continue
            parsed = _parse_line(obj, path)
            # Bookkeeping lines of a known agent (Claude Code's summaries, Codex's session header)
            # still show the file is a transcript, even when they hold no turn.
            known = known or not isinstance(parsed, str) or any(key in obj for key in _KNOWN_KEYS)
            if isinstance(parsed, str):
                if parsed:
                    problems.append(f"{where}: {parsed}")
                continue
            sid, fmt, role, text, ts = parsed
            session = sessions.get(sid)
            if session is None:
                session = sessions[sid] = Session(sid, fmt, fallback_date=mtime)
            if source not in session.sources:
                session.sources.append(source)
            if ts is not None:
                session.timestamps.append(ts)
            session.add(role, text)
    return known


# Keys that mark a line as written by an agent KRouter reads (Claude Code, Codex), turn or not.
_KNOWN_KEYS = ("sessionId", "uuid", "leafUuid", "payload")
# Codex wraps the context it sends with the user's first message in tags; none of it was typed.
_CODEX_CONTEXT = re.compile(r"^\s*<(environment_context|user_instructions|turn_aborted)>.*?</\1>\s*$", re.S)


def _codex_line(
    obj: dict[str, object], payload: dict[str, object], path: Path
) -> tuple[str, str, str, str, _dt.datetime | None] | str:
    """A line of a Codex rollout file (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``).

    Messages are ``response_item`` lines with a ``message`` payload; ``event_msg`` lines repeat them
    for the terminal UI and are skipped, as are reasoning, tool calls and the session header. One
    file is one session, named by the file.
    """
    if obj.get("type") != "response_item" or payload.get("type") != "message":
        return ""
    role = _ROLES.get(str(payload.get("role")).lower())
    if role is None:
        return ""
    text = _content_text(payload.get("content"))
    if _CODEX_CONTEXT.match(text):
        return ""
    return path.stem, "codex", role, text, _timestamp(obj.get("timestamp"))


def _parse_line(obj: dict[str, object], path: Path) -> tuple[str, str, str, str, _dt.datetime | None] | str:
    """(session id, format, role, text, timestamp), or a reason to skip ("" for silent noise)."""
    message = obj.get("message")
    payload = obj.get("payload")
    if isinstance(payload, dict) and "type" in obj:
        return _codex_line(obj, payload, path)
    if "type" in obj and "role" not in obj:
        # Claude Code: summaries, snapshots, system lines and sub-agent side chains are bookkeeping.
        if obj.get("type") not in ("user", "assistant") or obj.get("isMeta") or obj.get("isSidechain"):
            return ""
        if not isinstance(message, dict):
            return "Claude Code line without a message object"
        role = _ROLES.get(str(message.get("role") or obj.get("type")).lower())
        if role is None:
            return ""
        sid = obj.get("sessionId") or path.stem
        return (
            str(sid),
            "claude-code",
            role,
            _content_text(message.get("content")),
            _timestamp(obj.get("timestamp")),
        )
    if "role" not in obj or "content" not in obj:
        return "no role/content (expected {session_id, role, content})"
    raw_role = obj.get("role")
    if not isinstance(raw_role, str):
        return "role is not a string"
    role = _ROLES.get(raw_role.lower())
    if role is None:
        return ""  # system prompts and tool messages are not conversation
    sid = obj.get("session_id") or obj.get("sessionId") or obj.get("conversation_id") or path.stem
    if not isinstance(sid, (str, int)):
        return "session_id is not a string"
    ts = _timestamp(obj.get("timestamp") or obj.get("created_at") or obj.get("time"))
    return str(sid), "jsonl", role, _content_text(obj.get("content")), ts


# ---------------------------------------------------------------------------------------------------
# Writing pages.


def _safe_id(session_id: str) -> str:
    """The session id as a file-name part; ids that need changing get a hash so they stay distinct."""
    safe = re.sub(r"[^A-Za-z0-9_-]+", "-", session_id).strip("-")[:64]
    if safe != session_id:
        safe = f"{safe}-{hashlib.blake2b(session_id.encode(), digest_size=4).hexdigest()}".lstrip("-")
    return safe


def _slug(text: str) -> str:
    words = re.findall(r"\w+", text.lower())
    slug = ""
    for word in words:
        nxt = f"{slug}-{word}" if slug else word
        if len(nxt) > SLUG_CHARS:
            break
        slug = nxt
    return slug or "session"


def _title(session: Session) -> str:
    """The first thing the person asked, cut at a word boundary (never inside a redaction marker)."""
    first = next((t.text for t in session.turns if t.role == "user" and not t.text.startswith("(")), "")
    text = " ".join(first.split())
    if len(text) > TITLE_CHARS:
        cut = text[: TITLE_CHARS - 1]
        marker = cut.rfind("[REDACTED")
        if marker != -1 and "]" not in cut[marker:]:
            cut = cut[:marker]
        elif " " in cut:
            cut = cut[: cut.rfind(" ")]
        text = cut.rstrip(" ,;:-") + "…"
    return text or f"Session {session.session_id[:8]}"


def redacted(session: Session) -> Session:
    """A copy of the session with every turn's text redacted: the only form that is ever written."""
    turns = [Turn(t.role, redact(t.text)) for t in session.turns]
    sources = [redact(s) for s in session.sources]
    return Session(session.session_id, session.fmt, sources, turns, session.timestamps, session.fallback_date)


def render(session: Session, imported_at: str) -> str:
    """The page for a (redacted) session: frontmatter, then a ``**User**:``/``**Assistant**:`` paragraph a turn.

    The last frontmatter field, ``import_hash``, is the hash of the page without that line: a later
    import overwrites the page only while it still matches (see ``_why_keep``).
    """
    title = _title(session)
    when = min(session.timestamps).date() if session.timestamps else session.fallback_date
    meta: dict[str, object] = {
        "title": title,
        "source": session.sources[0] if len(session.sources) == 1 else session.sources,
        "session_id": session.session_id,
        "format": session.fmt,
        "date": when,
        "imported_at": imported_at,
        "tags": ["session"],
    }
    front = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=1000)
    parts = [f"# {title}\n"]
    for turn in session.turns:
        label = "User" if turn.role == "user" else "Assistant"
        parts.append(f"**{label}**: {turn.text}\n")
    body = "\n".join(parts)
    unsigned = f"---\n{front}---\n\n{body}"
    return f"---\n{front}import_hash: {_page_hash(unsigned)}\n---\n\n{body}"


_IMPORTED_AT = re.compile(r"^imported_at:.*$", re.M)
# "sha256:" keeps the value a string to YAML (64 hex digits alone can read as a number).
_IMPORT_HASH = re.compile(r"^import_hash: (sha256:[0-9a-f]{64})\r?\n", re.M)


def _page_hash(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _same_apart_from_import_time(old: str, new: str) -> bool:
    def core(text: str) -> str:
        # The hash covers the import time, so it differs whenever the time does.
        return _IMPORT_HASH.sub("", _IMPORTED_AT.sub("", text, count=1), count=1)

    return core(old) == core(new)


def _why_keep(text: str) -> str | None:
    """Why an existing page must not be overwritten, or None when it is exactly what an import wrote."""
    m = _IMPORT_HASH.search(text)
    if m is None:
        return "no import_hash: written by hand or by an older krouter; delete it to re-import"
    unsigned = text[: m.start()] + text[m.end() :]
    if _page_hash(unsigned) != m.group(1):
        return "edited by hand; delete it to re-import"
    return None


def inputs_folder(root: Path, folder: str) -> Path:
    """The absolute inputs folder, created if needed, refusing any folder that leaves the vault."""
    rel = PurePosixPath(folder.replace("\\", "/"))
    if not folder.strip() or rel.is_absolute() or ".." in rel.parts or Path(folder).is_absolute():
        raise PathOutsideVault(f"--folder must be a relative folder inside the vault: {folder!r}")
    root = root.resolve()
    target = root.joinpath(*rel.parts)
    # Checked before and after creating it: a symlinked component could point out of the vault.
    if not target.resolve().is_relative_to(root):
        raise PathOutsideVault(f"folder leaves the vault: {folder!r}")
    target.mkdir(parents=True, exist_ok=True)
    resolved = target.resolve()
    if not resolved.is_relative_to(root):
        raise PathOutsideVault(f"folder leaves the vault: {folder!r}")
    return resolved


def _existing_page(folder: Path, session_id: str, safe_id: str) -> Path | None:
    """The page an earlier import wrote for this session: its name ends with the id, and so does its
    frontmatter say (the name alone could match a longer id that happens to end the same way)."""
    for candidate in sorted(folder.glob(f"*{safe_id}.md")):
        if candidate.name != f"{safe_id}.md" and not candidate.name.endswith(f"-{safe_id}.md"):
            continue
        try:
            page = parse_page(candidate.name, candidate.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
        if str(page.meta.get("session_id")) == session_id:
            return candidate
    return None


def transcript_files(source: Path) -> list[Path]:
    """The file itself, or every ``*.jsonl`` under a folder (sorted, so imports are reproducible)."""
    if source.is_dir():
        return sorted(p for p in source.rglob("*.jsonl") if p.is_file())
    return [source]


def import_sessions(
    sources: Iterable[Path],
    vault: Path,
    folder: str = DEFAULT_FOLDER,
    *,
    now: _dt.datetime | None = None,
) -> ImportReport:
    """Import transcripts into ``vault``/``folder``: one page per session, created, updated, unchanged or kept."""
    root = check_vault(vault)
    out_dir = inputs_folder(root, folder)
    report = ImportReport()
    sessions: dict[str, Session] = {}
    for path in _expand(sources):
        report.files += 1
        if not read_transcript(path, sessions, report.problems):
            report.unrecognised.append(_display(path))
    imported_at = (now or _dt.datetime.now(_dt.UTC)).replace(microsecond=0).isoformat()
    for raw in sessions.values():
        if not raw.turns:
            report.empty.append(raw.session_id)
            continue
        session = redacted(raw)
        text = render(session, imported_at)
        safe = _safe_id(session.session_id)
        target = _existing_page(out_dir, session.session_id, safe)
        if target is None:
            target = out_dir / f"{_slug(_title(session))}-{safe}.md"
        rel = target.relative_to(root).as_posix()
        existed = target.exists()
        if existed:
            try:
                old = target.read_text(encoding="utf-8")
            except UnicodeDecodeError as exc:
                report.kept.append((rel, f"not UTF-8 (byte {exc.start}); left alone"))
                continue
            except OSError as exc:
                report.kept.append((rel, f"cannot be read ({exc.strerror or exc}); left alone"))
                continue
            if _same_apart_from_import_time(old, text):
                report.unchanged.append(rel)
                continue
            why = _why_keep(old)
            if why is not None:
                report.kept.append((rel, why))
                continue
        atomic_write(target, text)
        (report.updated if existed else report.created).append(rel)
    return report


def _expand(sources: Iterable[Path]) -> Iterator[Path]:
    for source in sources:
        yield from transcript_files(source)


# ---------------------------------------------------------------------------------------------------
# The command.


def import_command(
    source: Annotated[
        Path,
        typer.Argument(
            metavar="SOURCE", help="A transcript (.jsonl), or a folder: every *.jsonl under it is imported."
        ),
    ],
    vault: NamedVaultOption = None,
    folder: Annotated[
        str, typer.Option("--folder", metavar="FOLDER", help="Vault-relative folder the session pages go in.")
    ] = DEFAULT_FOLDER,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Import Claude Code, Codex or {role, content} JSONL transcripts as pages, one per session.

    Re-importing updates the same page, unless it was edited by hand. A file in no known format is
    named, and makes the command exit 1."""
    if not source.exists():
        raise fail(f"no such file or folder: {source}", EXIT_USAGE, as_json=as_json)
    try:
        report = import_sessions([source], vault_to_write(vault, "import into"), folder)
    except USAGE_ERRORS as exc:
        raise fail(str(exc), EXIT_USAGE, as_json=as_json) from exc
    except (KRouterError, OSError) as exc:
        raise fail(str(exc), as_json=as_json) from exc
    unknown = [
        f"{name}: not a transcript KRouter reads (Claude Code, Codex, or JSONL lines of "
        "{session_id, role, content}); nothing imported from it"
        for name in report.unrecognised
    ]
    if as_json:
        out = {
            "files": report.files,
            "created": report.created,
            "updated": report.updated,
            "unchanged": report.unchanged,
            "kept": [{"path": rel, "why": why} for rel, why in report.kept],
            "empty_sessions": report.empty,
            "skipped_lines": report.problems,
            "unrecognised_files": report.unrecognised,
        }
        typer.echo(json.dumps(out, ensure_ascii=False))
        for line in unknown:
            typer.echo(f"krouter: {line}", err=True)
        if unknown:
            raise typer.Exit(1)
        return
    for problem in report.problems:
        typer.echo(f"  skipped: {problem}", err=True)
    for rel in report.created:
        typer.echo(f"created   {rel}")
    for rel in report.updated:
        typer.echo(f"updated   {rel}")
    for rel, why in report.kept:
        typer.echo(f"kept      {rel} ({why})")
    typer.echo(
        f"imported {report.files} file(s): {len(report.created)} created, {len(report.updated)} updated, "
        f"{len(report.unchanged)} unchanged, {len(report.kept)} kept, "
        f"{len(report.empty)} empty session(s) skipped, "
        f"{len(report.problems)} line(s) skipped"
    )
    for line in unknown:
        typer.echo(f"krouter: {line}", err=True)
    if unknown:
        raise typer.Exit(1)
