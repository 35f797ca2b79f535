"""One learner write at a time, across every process of the user: the lock around a page's last check,
its rename and its journal record.

Two writers that read the same page and then both wrote lost one trigger while both were told
"learned": each compared the page with what it had read, then renamed its own copy over it. Holding
this lock from the first compare through the rename and the journal record makes compare-and-rename
one step for every KRouter process (nightly runs, agents' teaching, undo). It is one lock for the
state dir, not one per page: learner writes are rare and last milliseconds, and a per-page key would
have to agree on one spelling of a path (case, Unicode form) that the file system may not.

An editor saving the page is not a KRouter process and cannot be locked out; the final compare runs
inside the lock immediately before the rename, so the window in which its save could be overwritten is
as small as it can be.

The lock is the operating system's (``krouter.file_lock``): it dies with its process, so a crashed
writer never leaves a stale lock behind.
"""

from __future__ import annotations

import contextlib

from krouter.file_lock import state_lock

LOCK_NAME = "learned.lock"

# Agents' teaching, from the caps' check to the pick held or written: two agents teaching at once (two
# MCP servers, `krouter teach ... &`) each saw the page under its cap, and both were held. Taken before
# the learner's lock, never while holding it.
TEACH_LOCK_NAME = "teach.lock"


# How long a teaching waits for another process's turn (either lock) before it says so: a holder stopped
# with Ctrl-Z (`krouter teach`, `krouter learn --undo`) kept an MCP server's krouter_teach waiting for ever,
# and every later call of that server behind it on its one worker, krouter_ask included (a bug hunt).
# Far past a real turn: a teaching holds the lock for seconds at most, a write for milliseconds.
LOCK_WAIT_S = 30.0


def busy(what: str) -> str:
    """Why nothing was written: another process held ``what`` for all of LOCK_WAIT_S."""
    return (
        f"another KRouter process has held {what} for {LOCK_WAIT_S:g} s (a long learner run, or one "
        "stopped with Ctrl-Z?); try again in a moment"
    )


def learner_lock(bounded: bool = False) -> contextlib.AbstractContextManager[None]:
    """Hold the learner's write lock for the block (waiting for another process to let it go; for
    at most LOCK_WAIT_S when ``bounded``, then ``krouter.file_lock.Taken``).

    Not re-entrant: a block holding it must not take it again (the second wait would never end).
    """
    return state_lock(LOCK_NAME, timeout=LOCK_WAIT_S if bounded else None)
