"""The worker processes of a cold build or a large refresh (`krouter.index.prepare.prepared_batches`):
forked, each with a pipe of its own, preparing the batches they are asked for with
`krouter.index.prepare.prepare_batch`, the same function as in the refreshing process.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator, MutableSequence, Sequence
from pathlib import Path
from time import monotonic
from typing import TYPE_CHECKING

from krouter.errors import BuildStalled
from krouter.index import prepare
from krouter.index.prepare import Batch, Task

if TYPE_CHECKING:  # multiprocessing costs a fresh process ~15 ms of imports: only a build needs it
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

# Batches a worker pool asks for or holds past the next one to yield, per worker (`Workers.run`).
AHEAD = 3
# Seconds the pool waits for any answer from its busy workers before it stops the build (`BuildStalled`).
# Far past any real batch (a build chunk of at most 1 MB takes ~1 s of CPU, a few times that on a
# crowded machine): only a worker that is stuck reaches it, and without it a stuck worker hung the build.
ANSWER_TIMEOUT_S = 600.0
# The slices that wait is taken in (see `_answers`).
WAIT_SLICE_S = 5.0


def _answers(conns: list[object]) -> list[object]:
    """The pipes of ``conns`` that have an answer, once one has; [] after ANSWER_TIMEOUT_S of silence.
    Waited in slices, each counted for at most its own length: a build stopped with its workers
    (Ctrl-Z) and resumed later has not waited in the meantime, and must not blame a page for it."""
    from multiprocessing.connection import wait

    silent = 0.0
    while silent < ANSWER_TIMEOUT_S:
        step = min(WAIT_SLICE_S, ANSWER_TIMEOUT_S - silent)
        start = monotonic()
        ready = wait(conns, timeout=step)  # type: ignore[arg-type]
        if ready:
            return ready
        silent += min(monotonic() - start, step)
    return []


class _Tracked(Sequence[Task]):
    """A batch's tasks that, as they are read in order, leave in ``progress`` (memory shared with the
    parent) which batch and which page of it the worker is on: what `BuildStalled` names."""

    def __init__(self, tasks: Sequence[Task], number: int, progress: MutableSequence[int]) -> None:
        self.tasks, self.number, self.progress = tasks, number, progress

    def __len__(self) -> int:
        return len(self.tasks)

    def __getitem__(self, k: int) -> Task:  # type: ignore[override]  # a batch is only read by index
        return self.tasks[k]

    def __iter__(self) -> Iterator[Task]:
        for k, task in enumerate(self.tasks):
            self.progress[0], self.progress[1] = self.number, k
            yield task


def _serve(
    conn: Connection,
    root: Path,
    parent: int,
    inherited: list[Connection],
    batches: Sequence[Sequence[Task]],
    invert: bool,
    progress: MutableSequence[int],
) -> None:
    """A worker's loop: prepare each batch whose number it receives and send it back, until its pipe
    closes or its parent is gone (then nobody will read its answers: a killed build leaves no worker).
    The batches came with the fork, so a request is a number and never fills the pipe."""
    import gc
    import signal

    for other in inherited:
        other.close()  # the parent's ends: its death must reach the other workers as end of file too
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    # Tokenising allocates containers by the million and frees them by reference count; the cyclic
    # collector found almost nothing to free yet took ~12 % of a worker's time, walking jieba's
    # dictionary again and again. This process is ours: it collects once per batch instead, and what
    # survives a collection (jieba's dictionary, the memos) is frozen out of the next one's walk.
    gc.disable()
    while True:
        while not conn.poll(1.0):
            if os.getppid() != parent:
                return
        try:
            number = conn.recv()
        except (EOFError, OSError):
            return
        try:
            tasks = _Tracked(batches[number], number, progress)
            answer: tuple[bool, object] = (True, prepare.prepare_batch(root, tasks, invert))
        except BaseException as exc:  # the parent redoes the batch itself and gets the real error
            answer = (False, repr(exc))
        gc.collect()
        gc.freeze()
        try:
            conn.send(answer)
        except OSError:
            return


class Workers:
    """Forked worker processes that prepare batches, answering in the order the batches were given.

    Each worker has a pipe of its own and at most two batches asked of it at a time, and at most
    AHEAD per worker are asked or held past the next one to yield, so memory is bounded by the
    batches in flight whatever the vault's size. A worker that dies or fails has its
    batches done here instead: the result is the same, only slower. Workers that all stay silent for
    ANSWER_TIMEOUT_S stop the build with `BuildStalled`, naming the page the worker was on: doing a
    batch that may hang here would hang this process too."""

    def __init__(self, root: Path, count: int, batches: Sequence[Sequence[Task]], *, invert: bool) -> None:
        import multiprocessing

        self.root, self.batches, self.invert = root, batches, invert
        ctx = multiprocessing.get_context("fork")
        self._conns: list[Connection | None] = []
        self._procs: list[BaseProcess] = []
        # Per worker, (batch number, page in it) it is preparing, written by the worker; -1: none yet.
        self._progress: list[MutableSequence[int]] = []
        try:
            for _ in range(count):
                mine, theirs = ctx.Pipe()
                ends = [c for c in self._conns if c is not None]
                progress = ctx.Array("i", [-1, -1], lock=False)
                self._progress.append(progress)
                proc = ctx.Process(
                    target=_serve,
                    args=(theirs, root, os.getpid(), [*ends, mine], batches, invert, progress),
                    daemon=True,
                )
                proc.start()
                theirs.close()
                self._conns.append(mine)
                self._procs.append(proc)
        except BaseException:
            self.close(finished=False)
            raise

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *_exc: object) -> None:
        self.close(finished=exc_type is None)

    def _ask(self, slot: int, number: int) -> bool:
        """Send batch ``number`` to the worker in ``slot``; False (the worker dropped) if it cannot."""
        conn = self._conns[slot]
        if conn is None:
            return False
        try:
            conn.send(number)
        except OSError:
            self._drop(slot)
            return False
        return True

    def _drop(self, slot: int) -> None:
        conn = self._conns[slot]
        self._conns[slot] = None
        if conn is not None:
            conn.close()

    def run(self) -> Iterator[Batch]:
        """Prepare every batch, yielding them in order while the workers go on with the next ones.

        The next batch goes to whichever worker has the fewest asked of it (at most two each, so one
        is queued while it works on the other), not to each worker in turn: in turn, a worker given
        slow batches held up the ones queued behind it while the other worker idled (6-8 % over the
        work per core at 10k pages, simulated from measured batch times, against 2-3.5 % this way).
        Answers that come early wait here for their turn; at most AHEAD per worker are asked or held
        past the next one to yield, so memory stays bounded whatever the vault's size."""
        n, total = len(self._conns), len(self.batches)
        asked: list[deque[int]] = [deque() for _ in range(n)]
        answered: dict[int, Batch | None] = {}  # None: to be done here
        following = 0  # the next batch to ask for

        def lost(slot: int) -> None:
            # A worker that failed once is not trusted with the batches asked of it either.
            self._drop(slot)
            answered.update(dict.fromkeys(asked[slot]))
            asked[slot].clear()

        def ask(upto: int) -> None:
            nonlocal following
            while following < min(total, upto):
                free = [s for s in range(n) if self._conns[s] is not None and len(asked[s]) < 2]
                if not free:
                    return
                slot = min(free, key=lambda s: len(asked[s]))
                asked[slot].append(following)
                if not self._ask(slot, following):
                    lost(slot)
                following += 1

        for i in range(total):
            ask(i + AHEAD * n)
            while i not in answered:
                busy: dict[object, int] = {
                    conn: s for s, conn in enumerate(self._conns) if asked[s] and conn is not None
                }
                if not busy:  # no worker left: what was never asked is done here
                    answered[i] = None
                    break
                answering = _answers(list(busy))
                if not answering:
                    raise BuildStalled(self._stalled(i, [s for s in busy.values() if asked[s][0] == i]))
                for ready in answering:
                    slot = busy[ready]
                    conn = self._conns[slot]
                    assert conn is not None  # a dropped worker is not waited on
                    try:
                        answer: tuple[bool, object] = conn.recv()
                    except (EOFError, OSError):
                        answer = (False, None)
                    if answer[0] and isinstance(answer[1], Batch):
                        answered[asked[slot].popleft()] = answer[1]
                    else:
                        lost(slot)
                ask(i + AHEAD * n)
            done = answered.pop(i)
            ask(i + 1 + AHEAD * n)
            yield done if done is not None else prepare.prepare_batch(self.root, self.batches[i], self.invert)

    def _stalled(self, number: int, slots: list[int]) -> str:
        """What `BuildStalled` says: the page the worker holding batch ``number`` (the oldest one asked)
        was on, as it last said; the batch's pages when it never said (it stopped before the first)."""
        files = self.batches[number]
        on = [k for s in slots if self._progress[s][0] == number for k in [self._progress[s][1]]]
        if on:
            pages = f"the page {files[on[0]][0].path!r} (page {on[0] + 1} of {len(files)} in its batch)"
        elif len(files) == 1:
            pages = f"the page {files[0][0].path!r}"
        else:
            pages = f"{len(files)} pages from {files[0][0].path!r} to {files[-1][0].path!r}"
        return (
            f"a worker process gave no answer in {ANSWER_TIMEOUT_S:g} s while preparing {pages} "
            f"(batch {number + 1} of {len(self.batches)}); the workers were stopped and the build with them"
        )

    def close(self, *, finished: bool = True) -> None:
        """Stop the workers: closing their pipes tells an idle one to exit; when the work was cut short,
        busy ones are not waited for (nothing they hold is needed any more)."""
        for slot in range(len(self._conns)):
            self._drop(slot)
        for proc in self._procs:
            if finished:
                proc.join(timeout=5.0)
            if proc.is_alive():
                proc.terminate()
                # A stopped worker (SIGSTOP, a debugger) ignores SIGTERM until continued: SIGKILL does not.
                proc.join(timeout=5.0)
                if proc.is_alive():
                    proc.kill()
            proc.join()
        self._procs = []
