"""Typed errors raised by the library; the CLI turns them into messages and exit codes."""

from __future__ import annotations

from pathlib import Path


class KRouterError(Exception):
    """Base class for every error KRouter raises on purpose."""


class VaultNotFound(KRouterError):
    """The vault folder does not exist or is not a folder."""

    @classmethod
    def at(cls, root: Path, origin: str = "") -> VaultNotFound:
        """The error for ``root`` when it is no folder: a file, or nothing at all; ``origin`` ends the
        message (where a path the user did not type came from)."""
        if Path(root).expanduser().exists():
            return cls(f"not a folder: {root} (a vault is a folder of Markdown pages){origin}")
        return cls(f"vault folder not found: {root}{origin}")


class VaultNotNamed(KRouterError):
    """No vault was named and none is configured, or a write would land in the bundled demo vault."""


class PathOutsideVault(KRouterError):
    """A path given to read or write resolves outside the vault (``..``, absolute, or a symlink)."""


class PageNotFound(KRouterError):
    """A vault-relative path names no page."""


class IndexBusy(KRouterError):
    """Another process holds the index for writing longer than we are willing to wait, and there is
    no earlier index to answer from."""


class IndexUnavailable(KRouterError):
    """The index file or its folder cannot be created or opened (a file in the way, no permission)."""


class ConfigError(KRouterError):
    """The configuration file cannot be read or holds a value of the wrong type."""


class BuildStalled(KRouterError):
    """A worker process preparing pages for a build or a large refresh gave no answer in the time
    allowed (a page that sends the tokeniser into a loop, a stopped process); the message names its
    pages."""


class TranscriptTooLarge(KRouterError):
    """A transcript given to ``krouter import`` has a line, or (a pipe, a device) a length, past what it
    reads: no transcript is that, and reading on would fill memory (``/dev/zero``)."""

    # The sessions of the lines read before it was refused: another file's turns of one are half of it.
    sessions: tuple[str, ...] = ()
