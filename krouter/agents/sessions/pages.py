"""Writing imported sessions as Markdown pages of the vault (``krouter import``).

Each session becomes one page under an inputs folder (``Inputs/Sessions`` by default), named by a slug
of its first question plus the session id, so a re-import finds and updates the same page instead of
adding a second one (wherever in the vault an earlier import put it; one in no input folder is moved to
where sessions go), and leaves it untouched when nothing but the import time would change. A page
records the hash of the text the import wrote (``import_hash``): a page that no longer matches it was
edited by hand and is kept as it is, never overwritten; so is a page that cannot be read. Anything
that looks like a secret is redacted *before* it reaches the page, because a vault is read by agents
and synced to places a transcript never was.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import yaml

from krouter import config
from krouter.agents.sessions.redaction import RULES_VERSION, redact, redact_together
from krouter.agents.sessions.transcripts import Session, Turn, display_path, read_transcript, transcript_files
from krouter.atomic import atomic_write
from krouter.errors import PathOutsideVault, TranscriptTooLarge
from krouter.lazy_pattern import lazy_pattern
from krouter.safe_text import without_controls
from krouter.vault.files import check_vault, walk
from krouter.vault.page import parse_page

DEFAULT_FOLDER = "Inputs/Sessions"
TITLE_CHARS = 72
SLUG_CHARS = 48


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
    # (from, to): pages an earlier import wrote in no input folder, moved to where sessions go now.
    moved: list[tuple[str, str]] = field(default_factory=list)
    # Pages an earlier import wrote in another folder, updated (or not) where they are.
    elsewhere: list[str] = field(default_factory=list)
    files: int = 0
    # Files in which no line was in a transcript format KRouter knows.
    unrecognised: list[str] = field(default_factory=list)
    # Files refused for a line or a length past what import reads: (file, the message naming it).
    too_large: list[tuple[str, str]] = field(default_factory=list)


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
    """A copy of the session with every turn's text and source redacted together (a value found to be
    a secret in one turn is redacted in all of them): the only form that is ever written, so the title,
    the file name and the frontmatter drawn from it hold no secret either."""
    texts = redact_together([t.text for t in session.turns] + [without_controls(s) for s in session.sources])
    turns = [Turn(t.role, text) for t, text in zip(session.turns, texts, strict=False)]
    sources = texts[len(turns) :]
    return Session(session.session_id, session.fmt, sources, turns, session.timestamps, session.fallback_date)


def render(session: Session, imported_at: str) -> str:
    """The page for a (redacted) session: frontmatter, then a ``**User**:``/``**Assistant**:`` paragraph a turn.

    The last frontmatter field, ``import_hash``, is the hash of the page without that line: a later
    import overwrites the page only while it still matches (see ``_why_keep``). It starts with the
    redaction rules' generation (``r2-sha256:...``), which KRouter versions before it do not read as a
    hash: they keep the page as written by hand instead of writing back what these rules redacted.
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
    return f"---\n{front}import_hash: r{RULES_VERSION}-{_page_hash(unsigned)}\n---\n\n{body}"


_IMPORTED_AT = lazy_pattern(r"^imported_at:.*$", re.M)
# "sha256:" keeps the value a string to YAML (64 hex digits alone can read as a number). Before it, the
# redaction rules' generation; none on the pages of versions that did not record it (generation 1).
_IMPORT_HASH = lazy_pattern(r"^import_hash: (?:r([0-9]{1,9})-)?(sha256:[0-9a-f]{64})\r?\n", re.M)


def _page_hash(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _same_apart_from_import_time(old: str, new: str) -> bool:
    def core(text: str) -> str:
        # The hash covers the import time, so it differs whenever the time does. Not the rules'
        # generation: a page of older rules is signed again, else an older KRouter still overwrites it.
        return _IMPORT_HASH.sub(
            lambda m: f"r{m.group(1) or 1}\n", _IMPORTED_AT.sub("", text, count=1), count=1
        )

    return core(old) == core(new)


def _why_keep(text: str) -> str | None:
    """Why an existing page must not be overwritten, or None when it is exactly what an import wrote."""
    m = _IMPORT_HASH.search(text)
    if m is None:
        return "no import_hash: written by hand or by an older krouter; delete it to re-import"
    unsigned = text[: m.start()] + text[m.end() :]
    if _page_hash(unsigned) != m.group(2):
        return "edited by hand; delete it to re-import"
    if int(m.group(1) or 1) > RULES_VERSION:
        # Written by a newer KRouter: these older rules would put back secrets its rules redacted.
        return (
            f"imported by a newer krouter (redaction rules {m.group(1)}, this one's {RULES_VERSION}); "
            "re-import it with that version"
        )
    return None


def sessions_folder(folder: str | None) -> tuple[str, str | None]:
    """Where imported sessions go: ``folder``, or by default ``Inputs/Sessions`` while ``Inputs`` is an
    input folder, else ``Sessions`` in the first configured one; and a warning when the folder is in no
    input folder. A session is what was said, not what holds: written elsewhere, its pages were cited as
    the vault's own notes, an old chat over the runbook (a cold review)."""
    settings = config.load_config()
    names = config.folder_names(settings.exclude_folders)
    if folder is None:
        if config.in_folders(f"{DEFAULT_FOLDER}/page.md", names) or not settings.exclude_folders:
            folder = DEFAULT_FOLDER
        else:
            folder = f"{settings.exclude_folders[0].strip('/')}/Sessions"
    if config.in_folders(f"{folder.strip('/')}/page.md", names):
        return folder, None
    configured = ", ".join(settings.exclude_folders) or "none"
    return folder, (
        f"{folder} is in no input folder (config.toml's input_folders: {configured}): its sessions will be "
        "cited as the vault's own notes; import under an input folder, or add one"
    )


def inputs_folder(root: Path, folder: str, *, create: bool = True) -> Path:
    """The absolute inputs folder, created if needed (unless not to ``create``: checked only), refusing
    any folder that leaves the vault."""
    rel = PurePosixPath(folder.replace("\\", "/"))
    if not folder.strip() or rel.is_absolute() or ".." in rel.parts or Path(folder).is_absolute():
        raise PathOutsideVault(f"--folder must be a relative folder inside the vault: {folder!r}")
    if any(part.startswith(".") for part in rel.parts if part != "."):
        # Written there, the pages were reported created and never indexed or found (a cold review).
        raise PathOutsideVault(f"--folder must not be a dot-folder, which KRouter never indexes: {folder!r}")
    root = root.resolve()
    target = root.joinpath(*rel.parts)
    # Checked before and after creating it: a symlinked component could point out of the vault.
    if not target.resolve().is_relative_to(root):
        raise PathOutsideVault(f"folder leaves the vault: {folder!r}")
    if not create:
        return target
    target.mkdir(parents=True, exist_ok=True)
    resolved = target.resolve()
    if not resolved.is_relative_to(root):
        raise PathOutsideVault(f"folder leaves the vault: {folder!r}")
    return resolved


def _named(folder: Path, safe_id: str) -> list[Path]:
    """The pages of ``folder`` whose name could be a session's of ``safe_id``."""
    return sorted(folder.glob(f"*{safe_id}.md"))


def _existing_page(candidates: Iterable[Path], session_id: str, safe_id: str) -> Path | None:
    """The page an earlier import wrote for this session: its name ends with the id, and so does its
    frontmatter say (the name alone could match a longer id that happens to end the same way)."""
    for candidate in candidates:
        if candidate.name != f"{safe_id}.md" and not candidate.name.endswith(f"-{safe_id}.md"):
            continue
        try:
            page = parse_page(candidate.name, candidate.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
        if str(page.meta.get("session_id")) == session_id:
            return candidate
    return None


def _legacy_page(candidates: Callable[[str], list[Path]], session: Session) -> Path | None:
    """The page an earlier krouter wrote for a session whose lines name none (its id then the file's
    name alone), when it came from this session's file: re-imported, it is updated, not doubled.
    ``candidates``: the pages whose name could be a given safe id's."""
    if session.legacy_id is None:
        return None
    safe = _safe_id(session.legacy_id)
    found = _existing_page(candidates(safe), session.legacy_id, safe)
    if found is None:
        return None
    try:
        source = parse_page(found.name, found.read_text(encoding="utf-8")).meta.get("source")
    except (OSError, UnicodeDecodeError):
        return None
    return found if source == redact(session.sources[0]) else None


class _VaultPages:
    """Every page of the vault by name, listed once and only when a session has no page in the folder
    it goes in: an earlier import may have put it anywhere (``--folder``, or a default since changed),
    and a second page for it was a duplicate the next search cited twice."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._pages: list[Path] | None = None

    def named(self, safe_id: str) -> list[Path]:
        """The vault's pages whose name could be a session's of ``safe_id``."""
        if self._pages is None:
            self._pages = sorted(self.root / stat.path for stat in walk(self.root))
        # As ``_named`` globs a folder; ``_existing_page`` tells the whole id from a longer one's end.
        return [p for p in self._pages if p.name.endswith(f"{safe_id}.md")]

    def find(self, session: Session, safe_id: str) -> Path | None:
        """The page an earlier import wrote for ``session``, wherever in the vault it is."""
        return _existing_page(self.named(safe_id), session.session_id, safe_id) or _legacy_page(
            self.named, session
        )


def import_sessions(
    sources: Iterable[Path],
    vault: Path,
    folder: str = DEFAULT_FOLDER,
    *,
    now: _dt.datetime | None = None,
) -> ImportReport:
    """Import transcripts into ``vault``/``folder``: one page per session, created, updated, unchanged or kept."""
    root = check_vault(vault)
    inputs_folder(root, folder, create=False)  # a bad --folder fails before any file is read
    report = ImportReport()
    sessions: dict[str, Session] = {}
    refused: list[tuple[str, ...]] = []
    for path in _expand(sources):
        report.files += 1
        try:
            known = read_transcript(path, sessions, report.problems)
        except TranscriptTooLarge as exc:
            # One oversized file in a folder of sessions stopped the whole import: it is skipped alone.
            report.too_large.append((display_path(path), str(exc)))
            refused.append(exc.sessions)
            continue
        if not known:
            report.unrecognised.append(display_path(path))
    _hold_back(sessions, refused, report)
    if not any(raw.turns for raw in sessions.values()):
        # Nothing to write: no folder is made for it (a failed import left an empty Inputs/Sessions).
        report.empty.extend(raw.session_id for raw in sessions.values())
        return report
    # Made only when a page is written in it: a session imported before stays where it is.
    out_dir = inputs_folder(root, folder, create=False)
    inputs = config.folder_names(config.load_config().exclude_folders)
    vault_pages = _VaultPages(root)
    goes_in_input = config.in_folders((out_dir / "page.md").relative_to(root).as_posix(), inputs)
    imported_at = (now or _dt.datetime.now(_dt.UTC)).replace(microsecond=0).isoformat()
    for raw in sessions.values():
        if not raw.turns:
            report.empty.append(raw.session_id)
            continue
        session = redacted(raw)
        text = render(session, imported_at)
        safe = _safe_id(session.session_id)
        target = _existing_page(_named(out_dir, safe), session.session_id, safe) or _legacy_page(
            lambda safe_id: _named(out_dir, safe_id), raw
        )
        earlier = None if target is not None else vault_pages.find(raw, safe)
        if earlier is not None:
            old_rel = earlier.relative_to(root).as_posix()
            if config.in_folders(old_rel, inputs) or not goes_in_input:
                # Imported before into another folder: it stays there, updated, never doubled.
                report.elsewhere.append(old_rel)
                target = earlier
            else:
                # In no input folder (input_folders changed since, or --folder put it there), it was cited
                # as the vault's own note: moved to where sessions go, unless edited by hand.
                _move(earlier, _new_page(root, folder, session, safe), text, root, report)
                continue
        if target is None:
            target = _new_page(root, folder, session, safe)
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


def _new_page(root: Path, folder: str, session: Session, safe: str) -> Path:
    """Where a session with no page yet is written: in ``folder`` (made now), named by its title and id."""
    return inputs_folder(root, folder) / f"{_slug(_title(session))}-{safe}.md"


def _move(earlier: Path, target: Path, text: str, root: Path, report: ImportReport) -> None:
    """Write ``text`` at ``target`` and remove ``earlier``, the session's page in no input folder; kept
    where it is when edited by hand, or when ``target`` is taken by another file."""
    old_rel, new_rel = earlier.relative_to(root).as_posix(), target.relative_to(root).as_posix()
    why = _why_keep(earlier.read_text(encoding="utf-8", errors="replace"))
    if why is None and target.exists():
        why = f"in no input folder, but {new_rel} already exists; left where it is"
    if why is not None:
        report.kept.append((old_rel, why))
        return
    atomic_write(target, text)
    earlier.unlink()
    report.moved.append((old_rel, new_rel))


def _hold_back(sessions: dict[str, Session], refused: list[tuple[str, ...]], report: ImportReport) -> None:
    """Leave out the sessions a file skipped as too large also held (``refused``: each such file's, as
    ``report.too_large`` lists them), saying so there: written from the other files alone, an imported
    session's page lost the turns that file held (a review: "updated" with half the conversation)."""
    for i, sids in enumerate(refused):
        shared = [sid for sid in sids if sid in sessions]
        for sid in shared:
            del sessions[sid]
        if shared:
            path, why = report.too_large[i]
            report.too_large[i] = (
                path,
                f"{why}; its session(s) {', '.join(shared)}, also in other files, not written either (a"
                " page imported before keeps what it holds)",
            )


def _expand(sources: Iterable[Path]) -> Iterator[Path]:
    for source in sources:
        yield from transcript_files(source)
