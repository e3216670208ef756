"""Where playtest work units run: the local process pool (the default, nothing to start) or a
Dask distributed cluster (`--scheduler tcp://HOST:PORT`, or Dask's DASK_SCHEDULER_ADDRESS).

An executor maps a module-level function over work units, with one shared value (the missions
and their rulebook, as data) sent once to each worker, and yields (unit index, result) as units
finish. Only that value and the units (mission indexes, player counts, bot names, seeds) travel:
never a file path, so a worker on another machine needs no copy of the campaign. Callers sort by
the unit index before combining, so results do not depend on where or in what order units ran.

`distributed` is an optional extra (`pip install synergy-forge[cluster]`) and is imported only
when a scheduler is given.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from synergy_forge.pool import WorkerLost, run_units

#: Dask's own setting for the scheduler to connect to, honoured when --scheduler is not given.
SCHEDULER_VARIABLE = "DASK_SCHEDULER_ADDRESS"


class ExecutorError(RuntimeError):
    """The executor cannot run the work: a reported failure (no traceback), exit 2."""


class Executor(Protocol):
    def map(self, work: Callable[..., Any], shared: Any,
            units: Sequence[tuple[Any, ...]]) -> Iterator[tuple[int, Any]]: ...

    @property
    def name(self) -> str: ...


@dataclass
class LocalPool:
    """Worker processes on this machine (synergy_forge.pool); `jobs` None means every core."""

    jobs: int | None = None

    @property
    def name(self) -> str:
        return "local pool" + (f" of {self.jobs}" if self.jobs else "")

    def map(self, work: Callable[..., Any], shared: Any,
            units: Sequence[tuple[Any, ...]]) -> Iterator[tuple[int, Any]]:
        return run_units(work, shared, units, self.jobs)


def _dask_call(work: Callable[..., Any], shared: Any, *unit: Any) -> Any:
    # Runs on a Dask worker: `shared` is the scattered value, deserialised once per worker
    # and kept in its memory, so bots' caches stay warm across the units the worker runs.
    return work(shared, *unit)


@dataclass
class Dask:
    """A Dask distributed cluster at `address` (tcp://HOST:PORT)."""

    address: str
    #: seconds to wait for the scheduler before giving up
    timeout: float = 20.0

    @property
    def name(self) -> str:
        return f"Dask cluster at {self.address}"

    def map(self, work: Callable[..., Any], shared: Any,
            units: Sequence[tuple[Any, ...]]) -> Iterator[tuple[int, Any]]:
        try:
            from distributed import Client, KilledWorker, as_completed
        except ImportError:
            raise ExecutorError("running on a Dask cluster needs the 'cluster' extra: pip "
                                "install 'synergy-forge[cluster]'") from None
        try:
            client = Client(self.address, timeout=self.timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise ExecutorError(f"cannot reach the Dask scheduler at {self.address}: {exc}"
                                ) from None
        try:
            if not client.scheduler_info().get("workers"):
                client.wait_for_workers(1, timeout=self.timeout)
            # Broadcast: every worker holds a copy, so losing one loses no data.
            [data] = client.scatter([shared], broadcast=True, hash=False)
            run = uuid.uuid4().hex
            futures = {
                client.submit(_dask_call, work, data, *unit, key=f"unit-{index}-{run}"): index
                for index, unit in enumerate(units)
            }
            try:
                for future in as_completed(futures, loop=client.loop):
                    index = futures[future]
                    try:
                        result = future.result()
                    except KilledWorker as exc:
                        raise WorkerLost(
                            "a work unit lost its worker more times than the scheduler "
                            "allows (distributed.scheduler.allowed-failures) on the cluster "
                            f"at {self.address} ({exc}); nothing was reported from the "
                            "unfinished units") from None
                    future.release()
                    yield index, result
            finally:
                client.cancel(list(futures))
        except TimeoutError as exc:
            raise ExecutorError(f"the Dask cluster at {self.address} has no worker: {exc}"
                                ) from None
        finally:
            client.close()


def executor_for(scheduler: str | None, jobs: int | None) -> Executor:
    """A Dask executor when a scheduler is given (or DASK_SCHEDULER_ADDRESS is set), else the
    local pool with `jobs` workers."""
    address = scheduler or os.environ.get(SCHEDULER_VARIABLE) or None
    if address:
        return Dask(address)
    return LocalPool(jobs)
