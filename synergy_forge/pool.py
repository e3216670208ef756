"""Running independent work units on a local process pool, with data sent once per worker.

Playtest (games) and build (documents) both split their work into units that need the same
large value (a campaign, its missions and rulebook). That value goes to each worker once, by
the pool's initializer, instead of with every unit or as a path each worker reads again. With
one worker the units run in this process, in order. Imports no layer of the package.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

_SHARED: Any = None


def _install(shared: Any) -> None:
    global _SHARED
    _SHARED = shared


def _call(work: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    return work(_SHARED, *args)


def workers_for(jobs: int | None, units: int) -> int:
    """How many processes to start for `units` units: `jobs`, or every core, never more than
    there are units."""
    return max(1, min(jobs or os.cpu_count() or 1, units or 1))


def run_units(work: Callable[..., Any], shared: Any, units: Sequence[tuple[Any, ...]],
              jobs: int | None = None) -> Iterator[tuple[int, Any]]:
    """`work(shared, *unit)` for every unit, yielding (index of the unit, result) as each
    finishes. `work` must be a module-level function (it is pickled by name); callers that need
    a fixed order sort by the index."""
    workers = workers_for(jobs, len(units))
    if workers == 1:
        for index, unit in enumerate(units):
            yield index, work(shared, *unit)
        return
    with ProcessPoolExecutor(max_workers=workers, initializer=_install,
                             initargs=(shared,)) as pool:
        futures = {pool.submit(_call, work, unit): index for index, unit in enumerate(units)}
        for future in as_completed(futures):
            yield futures[future], future.result()
