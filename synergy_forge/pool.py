"""Running independent work units on a local process pool, with data sent once per worker.

Playtest (games) and build (documents) both split their work into units that need the same
large value (a campaign, its missions and rulebook). That value goes to each worker once, by
the pool's initializer, instead of with every unit or as a path each worker reads again. With
one worker the units run in this process, in order. Imports no layer of the package.

Workers are disposable: every unit is a pure function of the shared value and its own
arguments (its seeds, its document), so a unit whose worker was lost (killed, out of memory)
is simply run again on a fresh pool, and each unit's result is yielded exactly once. Workers
also never outlive their parent: a `kill -9` of the command stops them at once instead of
leaving them writing for seconds.

Ctrl-C is the parent's alone. The terminal sends SIGINT to every process of the command, and a
worker interrupted in the middle of reading its next unit would print a traceback, or leave
half a message in the queue that the other workers then wait on for ever (and the parent on
them). So workers ignore SIGINT from the moment they exist, and the interrupted parent ends
them rather than wait for their units.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from synergy_forge.errors import CannotRun


class _WorkerSlot:
    """What a worker process holds for its whole life: the `shared` value its pool sent once.

    A concurrent.futures worker runs each unit by calling a function found by name, so the
    value it received at its start must be reachable from a module: this slot, written once
    by `_install` inside the worker process (never in the process running the pool, where
    the units of a one-worker pool are handed the value directly)."""

    __slots__ = ("shared",)

    def __init__(self) -> None:
        self.shared: Any = None


#: This process's slot, filled only if it is a pool's worker (see _WorkerSlot).
_THIS_WORKER = _WorkerSlot()

#: How many times a unit may lose its worker before the run stops with WorkerLost. Two
#: retries absorb a worker killed from outside; a unit that kills every worker it runs on
#: (a crash in native code, memory exhaustion) is reported rather than retried for ever.
RETRIES = 2

_PR_SET_PDEATHSIG = 1


class WorkerLost(CannotRun):
    """Worker processes kept dying under the same work: a normal, reported failure."""


def _follow_parent(parent: int) -> None:
    """Make this worker die with its parent (the process that started the pool).

    Linux: the kernel sends SIGKILL when the parent dies (prctl PR_SET_PDEATHSIG). Elsewhere,
    and as a second guard, a daemon thread polls the parent's pid: when the parent is gone the
    worker is re-parented and os.getppid() changes.
    """
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    # The direct parent is the command itself, or a fork server that dies with it.
    direct = os.getppid()
    if _exited(parent):  # the command died before prctl took effect
        os._exit(1)

    def watch() -> None:
        while os.getppid() == direct:
            time.sleep(0.2)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()


def _exited(pid: int) -> bool:
    """Whether process `pid` has exited. One that has exited but is not yet reaped by its own
    parent (a zombie: a command interrupted while it forked this worker, which exits at
    once) still answers kill(pid, 0); its worker, already re-parented, would then have waited
    for work for ever, holding the command's output open."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (OSError, IndexError):  # no /proc (not Linux): alive, as kill says
        return False


def ignore_interrupt() -> None:
    """In a worker process: leave Ctrl-C to the parent (see the module's docstring). Workers
    start with SIGINT blocked (`_interrupt_blocked`), so none arrives before this."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


#: How much lower than the command's a background worker's priority is (nice), so that what
#: a person waits for (a saved file on the studio's page) is not slowed by it.
BACKGROUND = 10


def in_background() -> None:
    """In a worker process doing background work (the studio's estimates): Ctrl-C left to the
    parent, as `ignore_interrupt`, and a lower priority than the command's own process."""
    ignore_interrupt()
    with contextlib.suppress(OSError, AttributeError):  # not permitted, or not POSIX
        os.nice(BACKGROUND)


@contextlib.contextmanager
def _interrupt_blocked() -> Iterator[None]:
    """Workers started in here inherit SIGINT blocked, so that a Ctrl-C between their start and
    `ignore_interrupt` is not theirs; this thread gets it (delivered, and KeyboardInterrupt
    raised, when the block ends) and the pool is shut down as for any Ctrl-C."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _install(shared: Any, parent: int) -> None:
    """The initializer of every worker process (never run in the pool's own process)."""
    ignore_interrupt()
    _follow_parent(parent)
    _THIS_WORKER.shared = shared


def _call(work: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    return work(_THIS_WORKER.shared, *args)


def workers_for(jobs: int | None, units: int) -> int:
    """How many processes to start for `units` units: `jobs`, or every core, never more than
    there are units."""
    return max(1, min(jobs or os.cpu_count() or 1, units or 1))


def stop_workers(pool: ProcessPoolExecutor) -> None:
    """End `pool`'s workers now, not after their current units. They ignore Ctrl-C, and a
    plain shutdown, even without waiting, leaves the interpreter's exit joining them until
    their units end (seconds to minutes); they are disposable, so they are terminated."""
    processes = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        with contextlib.suppress(OSError, ValueError):
            process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)


class Pool:
    """Worker processes kept for several batches of units of one `work` on one `shared` value:
    the value is sent once, and what workers cache (the bots' tables) stays warm across
    batches. With one worker the units run in this process, in order."""

    def __init__(self, work: Callable[..., Any], shared: Any, workers: int,
                 context: Any = None) -> None:
        """`context`: a multiprocessing context to start the workers from (default: fork);
        with one, even a single worker is a process of its own."""
        self.work, self.shared, self.workers = work, shared, workers
        self.context = context
        self._pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        # Ctrl-C (or the caller stopping early): the rest of the work is not wanted.
        raised = exc[1] if len(exc) > 1 else None
        self._close(stop=raised is not None and not isinstance(raised, Exception))

    def _close(self, stop: bool = False) -> None:
        """Shut the workers down: after their current units, or with `stop` at once. Workers
        ignore Ctrl-C, so a stopped pool ends them (they are disposable: every unit is a pure
        function of its arguments) instead of waiting for units nobody will read."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        if stop:
            stop_workers(pool)
        else:
            pool.shutdown(wait=True, cancel_futures=True)

    def run(self, units: Sequence[tuple[Any, ...]]) -> Iterator[tuple[int, Any]]:
        """`work(shared, *unit)` for every unit, yielding (index of the unit, result) as each
        finishes, each index once. Units whose worker died are run again on new workers
        (RETRIES times at most, then WorkerLost); an exception raised by `work` itself
        propagates."""
        if self.workers == 1 and self.context is None:
            for index, unit in enumerate(units):
                yield index, self.work(self.shared, *unit)
            return
        pending = set(range(len(units)))
        for attempt in range(RETRIES + 1):
            futures: dict[Future[Any], int] = {}
            try:
                if self._pool is None:
                    self._pool = ProcessPoolExecutor(max_workers=self.workers,
                                                     mp_context=self.context,
                                                     initializer=_install,
                                                     initargs=(self.shared, os.getpid()))
                with _interrupt_blocked():  # submit starts the workers
                    futures = {self._pool.submit(_call, self.work, units[index]): index
                               for index in sorted(pending)}
                for future in as_completed(futures):
                    result = future.result()
                    index = futures[future]
                    pending.discard(index)
                    yield index, result
                return
            except BrokenProcessPool:
                self._close()
                # Units that finished before the pool broke keep their results; only the
                # rest run again.
                for future, index in futures.items():
                    if index in pending and future.done() and not future.cancelled() \
                            and future.exception() is None:
                        pending.discard(index)
                        yield index, future.result()
                if not pending:
                    return
                if attempt == RETRIES:
                    raise WorkerLost(
                        f"worker processes died {RETRIES + 1} times while {len(pending)} of "
                        f"{len(units)} work units were left (killed from outside, or out of "
                        "memory?); nothing was reported from the unfinished units") from None
            except Exception:
                # An error in `work`: no worker goes on with the rest.
                for future in futures:
                    future.cancel()
                raise
            except BaseException:
                # Ctrl-C, or the caller stopped reading: the workers are ended at once (their
                # futures are left to the pool, which fails them: cancelling them here too
                # makes Python 3.11's pool raise InvalidStateError in its own thread).
                self._close(stop=True)
                raise


def run_units(work: Callable[..., Any], shared: Any, units: Sequence[tuple[Any, ...]],
              jobs: int | None = None, context: Any = None) -> Iterator[tuple[int, Any]]:
    """`work(shared, *unit)` for every unit on a pool of its own (see Pool.run). `work` must be
    a module-level function (it is pickled by name); callers that need a fixed order sort by
    the index."""
    with Pool(work, shared, workers_for(jobs, len(units)), context) as pool:
        yield from pool.run(units)
