"""Page paths as people type them: compared in any Unicode form, case and with ``.md`` or without, and
what one that leads nowhere may have meant (the pages whose file name or title was typed)."""

from __future__ import annotations

import posixpath
import shlex
import unicodedata
from collections.abc import Sequence
from pathlib import Path


def page_key(path: str) -> str:
    """A page path compared the way a person types it: any Unicode form, any case, ``.md`` optional."""
    key = unicodedata.normalize(
        "NFC", path.replace("\\", "/").strip().removeprefix("./").lstrip("/")
    ).casefold()
    return key.removesuffix(".md")


def with_suggestions(
    message: str, path: str, page_table: Sequence[tuple], vault: Path | str | None = None
) -> str:
    """``message`` (no page at PATH), plus the pages whose file name or title is what was typed: a
    newcomer types a page's name ("王芳") where its vault-relative path ("People/王芳.md") is needed. The
    example command names the ``vault`` the user named, if any."""

    def key(text: str) -> str:
        # A macOS file name is decomposed (NFD), a typed name composed: compare them the same way.
        return unicodedata.normalize("NFC", text).casefold().strip()

    name = Path(path.replace("\\", "/")).name
    want = key(name[:-3] if name.lower().endswith(".md") else name)
    if not want:
        return message
    typed = key(posixpath.normpath(path.replace("\\", "/")))
    # The page typed is not its own suggestion: indexed but unreadable now (a folder without read
    # permission), it is the message that says why.
    matches = [
        rel
        for _id, rel, title, *_ in page_table
        if (key(Path(rel).stem) == want or key(title or "") == want)
        and key(rel) not in (typed, f"{typed}.md")
    ]
    if not matches:
        return message
    shown = ", ".join(matches[:5]) + (f" (and {len(matches) - 5} more)" if len(matches) > 5 else "")
    # Options before the path, and "--" before one that starts with a dash (not read as an option).
    words = ["krouter", "read", *(["--vault", str(vault)] if vault is not None else [])]
    words += ["--", matches[0]] if matches[0].startswith("-") else [matches[0]]
    example = shlex.join(words)
    return f"{message}; did you mean {shown}? Pass the vault-relative path, e.g. {example}"
