"""The file watcher under ``krouter watch`` and the MCP server: watchdog's events on a vault, collected
into batches of changed paths for the thread that owns the index to refresh.

Events only *trigger* a refresh (``krouter.ops.watch``); what to re-index is decided by
``Index.refresh()``. A vault folder deleted and made again under the same name (a restore, a re-clone, a
sync tool replacing it) is watched again, and the whole vault is reported changed.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from krouter import config
from krouter.file_stamp import file_stamp
from krouter.ops.ask_socket.protocol import LEASE_STALE_S
from krouter.ops.watch_lease import folder_identity
from krouter.vault.files import shown_path
from krouter.vault.ignore import RULE_FILES

if TYPE_CHECKING:
    from watchdog.events import FileSystemEvent
    from watchdog.observers.api import BaseObserver

    from krouter.ops.watch_lease import WatchLease

log = logging.getLogger("krouter.watch")

DEBOUNCE_S = 0.3
# A steady stream of events (a sync client unpacking thousands of files) must not postpone the refresh
# forever: after this long with changes pending, refresh anyway and pick up the rest next round.
MAX_DELAY_S = 2.0
# How often a watcher whose index's lease another process holds tries to take it over.
LEASE_RETRY_S = 5.0

# Events that can change what a page says or where it is; opened/closed-without-writing cannot.
_RELEVANT = frozenset({"created", "modified", "deleted", "moved", "closed"})


def _relevant_path(root: Path, path: str, is_directory: bool) -> str | None:
    """The vault-relative path an event touches, or None when no page can be affected.

    Dot-folders and dot-files are skipped like the indexer skips them (``.obsidian``, ``.git``, vim's
    ``.page.md.swp``), but for the files that hold ignore rules (``.krouterignore``, Obsidian's excluded
    files and template folders): a change there is reported as the whole vault ("."), since it can
    exclude or bring back any page. A directory counts because renaming or deleting a folder moves every
    page in it, and some platforms report only the folder.
    """
    try:
        rel = Path(os.fsdecode(path)).relative_to(root)
    except ValueError:
        return None
    if rel.as_posix() in RULE_FILES or rel.as_posix() == ".obsidian":
        return "."
    if any(part.startswith(".") for part in rel.parts):
        return None
    if not is_directory and not rel.name.lower().endswith(".md"):
        return None
    # A name that is not UTF-8 is only ever shown (in the log line), never stored.
    return shown_path(rel.as_posix()) or "."


class VaultWatcher:
    """Watches a vault with watchdog and collects changed paths until a caller takes them.

    Thread-safe: watchdog's thread adds paths, a consumer waits for a quiet batch with ``wait()`` or
    takes whatever is pending with ``take()``. It never touches the index itself, so the consumer can
    keep the SQLite connection on the one thread that owns it.
    """

    def __init__(
        self,
        root: Path,
        *,
        debounce: float = DEBOUNCE_S,
        max_delay: float = MAX_DELAY_S,
        index_path: Path | None = None,
    ) -> None:
        self.root = Path(root).resolve()
        self.debounce = debounce
        self.max_delay = max_delay
        self._cond = threading.Condition()
        self._pending: set[str] = set()
        self._first = 0.0
        self._last = 0.0
        self._observer: BaseObserver | None = None
        # With an index path, the watcher tells other processes whether every change it saw is indexed
        # (krouter.ops.watch_lease), so their lookups can skip walking the vault.
        self._index_path = index_path
        self._lease: WatchLease | None = None
        self._seq = 0  # events seen so far
        self._taken_seq = 0  # events seen when the last batch was taken
        # The vault folder being watched (device, inode), and whether its deletion was reported: one
        # deleted and made again under the same name (a restore, a re-clone, a sync tool replacing it) is
        # another folder, which the observer does not watch (its inode number may be the old one's).
        self._folder: tuple[int, int] | None = None
        self._lost = False
        # A page folder moved or deleted inside the vault since the last look (see _follow_folders).
        self._folders_moved = False
        # config.toml as last seen ((mtime, size, inode) or None): its ``ignore`` patterns apply to every
        # vault, and the file lives outside this one, so it is looked at rather than watched.
        self._settings: tuple[int, int, int] | None = None
        self._restart = threading.Lock()  # the observer is replaced or stopped by one thread at a time
        self._lease_tried = 0.0  # when this watcher last tried to take the lease another process held
        self._looked = 0.0  # when its wait loop last came round (see _resumed)

    def start(self) -> None:
        """Start watching (recursively). Raises OSError when the platform refuses (inotify limits)."""
        self._folder = folder_identity(self.root)
        self._settings = file_stamp(config.config_path())
        self._observer = self._observe()
        if self._index_path is not None:
            from krouter.ops.watch_lease import WatchLease

            self._lease = WatchLease.acquire(self._index_path)
            self._lease_tried = time.monotonic()

    def _observe(self) -> BaseObserver:
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer

        watcher = self

        class _Handler(FileSystemEventHandler):
            def on_any_event(self, event: FileSystemEvent) -> None:
                watcher._on_event(event)

        observer = Observer()
        observer.daemon = True
        observer.schedule(_Handler(), str(self.root), recursive=True)
        observer.start()
        return observer

    def _follow_folder(self) -> None:
        """When the vault folder was deleted, or deleted and made again, since the last look: report the
        whole vault as changed (the next refresh walks it), and watch the new folder once there is one.
        Runs on the consumer's thread (``wait``), never while holding the lock the observer's thread
        takes to report an event."""
        now = folder_identity(self.root)
        with self._cond:
            # Read and cleared at once: a deletion reported while the observer is being replaced is
            # seen on the next look, not lost.
            lost, self._lost = self._lost, False
        if now == self._folder and not lost:
            return
        if now is None:
            if self._folder is None:
                return  # gone, and said so: nothing to watch until it is back
            log.info("the vault folder %s is gone: nothing is indexed until it is back", self.root)
        else:
            if not self._replace_observer():
                with self._cond:
                    self._lost = True
                return
            log.info("the vault folder %s was made again: watching the new one", self.root)
        self._folder = now
        self._add_pending({"."})

    def _replace_observer(self) -> bool:
        """Watch the vault afresh with a new observer; False when it cannot be watched yet (or the
        watcher is stopping). One replacement at a time, and none once stop() has begun (another thread
        may close a server while its refresher looks)."""
        with self._restart:
            if self._observer is None:
                return False
            try:
                new = self._observe()
            except OSError as exc:
                # Gone again before it could be watched (a sync tool still at work): next look.
                log.info("cannot watch %s yet (%s); trying again", self.root, exc)
                return False
            old, self._observer = self._observer, new
            old.stop()
            old.join(timeout=5)
        return True

    def _follow_folders(self) -> None:
        """When a folder was moved or deleted inside the vault since the last look: watch the vault
        afresh and report all of it changed. watchdog loses the watch of a folder moved into one made a
        moment before (a script, a file manager's "new folder with selection"): no edit in it was seen
        again, and other processes trusted the index for minutes."""
        with self._cond:
            moved, self._folders_moved = self._folders_moved, False
        if not moved:
            return
        if not self._replace_observer():
            with self._cond:
                self._folders_moved = self._observer is not None
            return
        self._add_pending({"."})

    def _resumed(self) -> None:
        """After a gap of LEASE_STALE_S without a look (the process stopped by Ctrl-Z, then continued; as
        long as a lease not beaten goes untrusted), the whole vault is pending before the lease is beaten
        again: the events queued while it was stopped reach the observer only after the first beat, and
        for those milliseconds its "clean" vouched for edits it had not seen (a review)."""
        now = time.monotonic()
        if self._looked and now - self._looked >= LEASE_STALE_S:
            log.info("this watcher was stopped for %.0f s: checking the whole vault", now - self._looked)
            self._add_pending({"."})
        self._looked = now

    def _take_lease_over(self) -> None:
        """Take the index's lease once the process that held it is gone (every LEASE_RETRY_S at most):
        a `krouter watch` started beside an agent's `krouter mcp` never took it over, so once the agent
        closed every fresh ask walked the vault (a cold review). Taken dirty, the whole vault pending."""
        from krouter.ops.watch_lease import WatchLease

        now = time.monotonic()
        if self._index_path is None or self._lease is not None or self._observer is None:
            return
        if now - self._lease_tried < LEASE_RETRY_S:
            return
        self._lease_tried = now
        lease = WatchLease.acquire(self._index_path, tries=1)
        if lease is None:
            return
        with self._cond:
            if self._observer is None:  # stopped meanwhile
                lease.release()
                return
            self._lease = lease
        log.info("the lease of %s is this process's now: it answers fresh `krouter ask` runs", self.root)
        self._add_pending({"."})

    def follow_settings(self) -> None:
        """When config.toml changed since the last look, report the whole vault as changed: its ignore
        patterns may now exclude pages, or bring them back, anywhere in it. Looked at by every wait, and
        by a server just before it answers (a call made within the wait's half second still cited a page
        an ignore line had just left out)."""
        now = file_stamp(config.config_path())
        if now != self._settings:
            # Pending (the lease dirty) before the new settings are taken as read: the other way round,
            # `fresh` saw a clean lease and matching settings with the change not yet indexed.
            self._add_pending({"."})
            self._settings = now
            log.info("the settings changed: checking the whole vault")

    def stop(self) -> None:
        """Stop the observer thread and wait for it (bounded)."""
        with self._cond:
            if self._lease is not None:
                self._lease.release()
                self._lease = None
        with self._restart:
            observer, self._observer = self._observer, None
        if observer is not None:
            observer.stop()
            observer.join(timeout=5)
        with self._cond:
            self._cond.notify_all()

    @property
    def leased(self) -> bool:
        """True while this watcher holds the index's lease (no other process's watcher does)."""
        with self._cond:
            return self._lease is not None

    @property
    def fresh(self) -> bool:
        """True while this watcher holds the lease, every change it was told about is indexed and
        config.toml is as that refresh read it: what the lease tells other processes, for this process's
        own lookups (the ask socket's)."""
        with self._cond:
            clean = self._lease is not None and self._lease.clean
        # And config.toml as the last refresh read it: an ignore line added since is not applied yet
        # (the diff's review: the ask socket trusted the lease and cited a page just ignored).
        return clean and file_stamp(config.config_path()) == self._settings and self._watching_the_folder()

    def _watching_the_folder(self) -> bool:
        """Whether the folder at the vault's path is the one watched. One renamed away gives watchdog no
        event, and one made in its place is not watched until ``_follow_folder`` looks (up to half a
        second); a refresh while it is gone lists nothing and keeps every page: clean then, the lease
        vouched for the old folder's pages (a review)."""
        return self._folder is not None and not self._lost and folder_identity(self.root) == self._folder

    @property
    def running(self) -> bool:
        """True while the observer thread is alive."""
        return self._observer is not None and self._observer.is_alive()

    def _on_event(self, event: FileSystemEvent) -> None:
        if event.event_type == "events_lost":
            # The kernel's queue overflowed (a git checkout, an editor rewriting its state file
            # thousands of times): any page may have changed unseen, so the whole vault is walked.
            log.info("file events were lost: checking the whole vault")
            self._add_pending({"."})
            return
        if event.event_type not in _RELEVANT:
            return
        if (
            event.is_directory
            and event.event_type == "deleted"
            and Path(os.fsdecode(event.src_path)) == self.root
        ):
            with self._cond:
                self._lost = True
        # A directory "modified" event accompanies every file change inside it: it says nothing new.
        if event.is_directory and event.event_type in ("modified", "closed"):
            return
        # A page folder moved or deleted (a folder moved into a new one is reported as made there and
        # deleted here); not one made (an install unpacking thousands), not the vault itself nor a
        # dot-folder (git makes and deletes them by the hundred).
        if (
            event.is_directory
            and event.event_type in ("moved", "deleted")
            and _relevant_path(self.root, event.src_path, True) not in (None, ".")
        ):
            with self._cond:
                self._folders_moved = True
        paths = {_relevant_path(self.root, event.src_path, event.is_directory)}
        dest = getattr(event, "dest_path", "")
        if dest:
            # An atomic save is "temp file moved onto page.md": only the destination is a page.
            paths.add(_relevant_path(self.root, dest, event.is_directory))
        paths.discard(None)
        if paths:
            self._add_pending({p for p in paths if p is not None})

    def _add_pending(self, paths: set[str]) -> None:
        """Record ``paths`` as changed and wake a waiting consumer."""
        now = time.monotonic()
        with self._cond:
            self._seq += 1
            if self._lease is not None:
                # Before the change is pending: a lookup elsewhere must never see "clean" while a change
                # waits to be indexed.
                self._lease.mark(dirty=True)
            if not self._pending:
                self._first = now
            self._pending.update(paths)
            self._last = now
            self._cond.notify_all()

    def take(self) -> set[str]:
        """Take every pending path now, quiet or not (a caller about to answer must see every edit)."""
        with self._cond:
            out, self._pending = self._pending, set()
            self._taken_seq = self._seq
            return out

    def indexed(self, index: str | None = None) -> None:
        """Say that a refresh which started after the last ``take()`` has committed (to the index file
        ``index``, its ``file_identity``): when no event came since, other processes may trust the
        index without walking the vault."""
        from krouter.ops.watch_lease import settings_stamp

        here = self._watching_the_folder()
        with self._cond:
            if here and self._lease is not None and not self._pending and self._seq == self._taken_seq:
                settings = settings_stamp(self._settings) if self._settings else "none"
                self._lease.mark(dirty=False, index=index, settings=settings)

    def wait(self, timeout: float | None = None, *, take: bool = True) -> set[str]:
        """Block until a batch is ready (no event for ``debounce`` s, or ``max_delay`` s of changes).

        Returns the batch, or an empty set when ``timeout`` passes first or the watcher stops. With
        ``take=False`` the batch stays pending, for a ``take()`` on the thread that will refresh: no
        moment exists where a change is neither pending nor indexed.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        self._take_lease_over()
        self._follow_folder()
        self._follow_folders()
        self.follow_settings()
        with self._cond:
            while True:
                if self._lease is not None:
                    self._resumed()
                    self._lease.beat()  # every loop of a running watcher comes here within 0.5 s
                now = time.monotonic()
                if self._pending:
                    ready_at = min(self._last + self.debounce, self._first + self.max_delay)
                    if now >= ready_at:
                        if not take:
                            return set(self._pending)
                        out, self._pending = self._pending, set()
                        self._taken_seq = self._seq
                        return out
                    wake = ready_at
                else:
                    wake = None
                if deadline is not None:
                    if now >= deadline:
                        return set()
                    wake = deadline if wake is None else min(wake, deadline)
                if self._observer is None and not self._pending:
                    return set()
                # Short slices keep Ctrl-C responsive on platforms where a blocked wait ignores it.
                self._cond.wait(timeout=min(0.5, wake - now) if wake is not None else 0.5)
