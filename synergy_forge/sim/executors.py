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
import sys
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from synergy_forge.errors import CannotRun
from synergy_forge.pool import Pool, WorkerLost, run_units, workers_for

#: Dask's own setting for the scheduler to connect to, honoured when --scheduler is not given.
SCHEDULER_VARIABLE = "DASK_SCHEDULER_ADDRESS"


class ExecutorError(CannotRun):
    """The executor cannot run the work: a reported failure (no traceback), exit 2."""


class Session(Protocol):
    """Workers holding one shared value, running batches of units of one function."""

    def __enter__(self) -> Session: ...

    def __exit__(self, *exc: object) -> None: ...

    def run(self, units: Sequence[tuple[Any, ...]]) -> Iterator[tuple[int, Any]]: ...


class Executor(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def unit_games(self) -> int:
        """Games per work unit, so that scheduling costs under a tenth of the unit's time
        (docs/performance.md, bench/bench_scale.py)."""
        ...

    def session(self, work: Callable[..., Any], shared: Any) -> Session:
        """Workers for several batches (the shared value sent once, caches kept warm)."""
        ...

    def map(self, work: Callable[..., Any], shared: Any,
            units: Sequence[tuple[Any, ...]]) -> Iterator[tuple[int, Any]]:
        """One batch: (unit index, `work(shared, *unit)`) for every unit, as they finish."""
        ...

    def stop(self) -> None:
        """Ctrl-C reached the main thread while batches run in other threads (tune's missions
        on a cluster): those batches end at their next result instead of playing on."""
        ...


@dataclass
class LocalPool:
    """Worker processes on this machine (synergy_forge.pool); `jobs` None means every core."""

    jobs: int | None = None
    #: a unit costs the pool about 0.1 ms against some 250 ms for 50 coop games
    unit_games: int = 50

    @property
    def name(self) -> str:
        return "local pool" + (f" of {self.jobs}" if self.jobs else "")

    def session(self, work: Callable[..., Any], shared: Any) -> Session:
        return Pool(work, shared, workers_for(self.jobs, sys.maxsize))

    def map(self, work: Callable[..., Any], shared: Any,
            units: Sequence[tuple[Any, ...]]) -> Iterator[tuple[int, Any]]:
        return run_units(work, shared, units, self.jobs)

    def stop(self) -> None:
        """Nothing to do: the local pool runs in the thread Ctrl-C interrupts (synergy_forge.pool
        ends its workers then)."""


def _dask_call(work: Callable[..., Any], shared: Any, *unit: Any) -> Any:
    # Runs on a Dask worker: `shared` is the scattered value, deserialised once per worker
    # and kept in its memory, so bots' caches stay warm across the units the worker runs.
    return work(shared, *unit)


#: The schemes a scheduler address may have: Dask's TCP (the default when none is written).
#: inproc:// only reaches this process, ucx:// and tls:// need configuration we do not take.
SCHEMES = ("tcp",)
#: What Dask's first message (the handshake) may weigh at most: it is a few hundred bytes; a
#: service that is not Dask sends text whose first 8 bytes read as an absurd length.
MAX_HANDSHAKE = 1024 * 1024


def scheduler_address(text: str) -> str:
    """`text` as a Dask scheduler address, tcp://HOST:PORT; raises ExecutorError (exit 2) in
    one line when it is not one, before anything connects."""
    given = text.strip()
    scheme, sep, rest = given.partition("://")
    if not sep:
        scheme, rest = "tcp", given
    usage = "give tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786"
    if scheme.lower() not in SCHEMES:
        raise ExecutorError(f"scheduler address {given!r}: the {scheme}:// scheme is not "
                            f"supported; {usage}")
    host, colon, port = rest.rstrip("/").rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not colon or not host or "/" in host or "/" in port or any(c.isspace() for c in host):
        raise ExecutorError(f"scheduler address {given!r} names no host and port; {usage}")
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ExecutorError(f"scheduler address {given!r}: the port must be a number from 1 "
                            f"to 65535; {usage}")
    return f"tcp://{f'[{host}]' if ':' in host else host}:{int(port)}"


def probe_scheduler(address: str, timeout: float) -> None:
    """Connect to the scheduler at `address` (as scheduler_address gives) and read the start
    of its handshake, within `timeout` seconds for each: raises ExecutorError when nothing
    listens, nothing answers (a web server waits for a request: the dashboard's port given by
    mistake) or what answers is not Dask. Dask's own client has no timeout on the handshake
    and believes any length it reads."""
    import socket
    import struct

    host, _, port = address.removeprefix("tcp://").rpartition(":")
    host = host.strip("[]")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout) as sock:
            sock.settimeout(timeout)
            head = b""
            while len(head) < 8:
                chunk = sock.recv(8 - len(head))
                if not chunk:
                    raise ExecutorError(f"{address} closed the connection: not a Dask "
                                        "scheduler")
                head += chunk
    except TimeoutError:
        raise ExecutorError(f"{address} did not answer within {timeout:g} s: not a Dask "
                            "scheduler (is it the dashboard's port? the scheduler's is "
                            "usually 8786)") from None
    except OSError as exc:
        raise ExecutorError(f"cannot reach the Dask scheduler at {address}: "
                            f"{exc.strerror or exc}") from None
    (length,) = struct.unpack("Q", head)  # as distributed.comm.tcp frames it
    if not 0 < length <= MAX_HANDSHAKE:
        raise ExecutorError(f"{address} is not a Dask scheduler (it answered something else)")


@dataclass
class Dask:
    """A Dask distributed cluster at `address` (tcp://HOST:PORT)."""

    address: str
    #: seconds to wait for the scheduler before giving up
    timeout: float = 20.0
    #: seconds to connect and to hear the scheduler's handshake: it answers in milliseconds
    connect_timeout: float = 5.0
    #: a Dask task costs some 10-25 ms of scheduling: 100 coop games (about 0.5 s) keep that
    #: near 5%
    unit_games: int = 100
    #: set by stop(): every batch ends at its next result
    stopping: threading.Event = field(default_factory=threading.Event, repr=False,
                                      compare=False)

    @property
    def name(self) -> str:
        return f"Dask cluster at {self.address}"

    def stop(self) -> None:
        self.stopping.set()

    def session(self, work: Callable[..., Any], shared: Any) -> Session:
        return _DaskSession(self, work, shared)

    def map(self, work: Callable[..., Any], shared: Any,
            units: Sequence[tuple[Any, ...]]) -> Iterator[tuple[int, Any]]:
        with _DaskSession(self, work, shared) as session:
            yield from session.run(units)


class _DaskSession:
    def __init__(self, cluster: Dask, work: Callable[..., Any], shared: Any) -> None:
        self.cluster, self.work, self.shared = cluster, work, shared
        self.client: Any = None
        self.data: Any = None

    def __enter__(self) -> _DaskSession:
        import importlib.util

        missing = ExecutorError("running on a Dask cluster needs the 'cluster' extra: pip "
                                "install 'synergy-forge[cluster]'")
        if importlib.util.find_spec("distributed") is None:
            raise missing
        address, timeout = self.cluster.address, self.cluster.timeout
        # Probed before Dask is imported (more than a second of CPU): an address where no
        # scheduler answers is said at once.
        probe_scheduler(address, self.cluster.connect_timeout)
        try:
            from distributed import Client
        except ImportError:
            raise missing from None
        try:
            self.client = Client(address, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise ExecutorError(f"cannot reach the Dask scheduler at {address}: {exc}"
                                ) from None
        try:
            if not self.client.scheduler_info().get("workers"):
                self.client.wait_for_workers(1, timeout=timeout)
            # Broadcast: every worker holds a copy, so losing one loses no data.
            [self.data] = self.client.scatter([self.shared], broadcast=True, hash=False)
        except TimeoutError as exc:
            self.client.close()
            raise ExecutorError(f"the Dask cluster at {address} has no worker: {exc}"
                                ) from None
        except BaseException:
            self.client.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.client.close()

    def run(self, units: Sequence[tuple[Any, ...]]) -> Iterator[tuple[int, Any]]:
        from distributed import KilledWorker, as_completed

        client, batch = self.client, uuid.uuid4().hex
        futures = {client.submit(_dask_call, self.work, self.data, *unit,
                                 key=f"unit-{index}-{batch}"): index
                   for index, unit in enumerate(units)}
        try:
            for future in as_completed(futures, loop=client.loop):
                if self.cluster.stopping.is_set():  # the rest is cancelled below
                    raise ExecutorError("stopped")
                index = futures[future]
                try:
                    result = future.result()
                except KilledWorker as exc:
                    raise WorkerLost(
                        "a work unit lost its worker more times than the scheduler allows "
                        "(distributed.scheduler.allowed-failures) on the cluster at "
                        f"{self.cluster.address} ({exc}); nothing was reported from the "
                        "unfinished units") from None
                future.release()
                yield index, result
        finally:
            client.cancel(list(futures))


def executor_for(scheduler: str | None, jobs: int | None) -> Executor:
    """A Dask executor when a scheduler is given (or DASK_SCHEDULER_ADDRESS is set), else the
    local pool with `jobs` workers."""
    address = scheduler or os.environ.get(SCHEDULER_VARIABLE) or None
    if address:
        return Dask(scheduler_address(address))
    return LocalPool(jobs)
