"""Rounds judged per second through the Python API: 5 seats, two challenges, one core.

    .venv/bin/python bench/bench_judge.py [--rounds N]

Measures `judge` (legality checks + settlement) and `settle` (what the engine calls), each with
the native fast path and with the data path (sandboxed rule expressions).
"""

from __future__ import annotations

import argparse
import platform
import random
import time

from synergy_forge.authoring.definitions import standard_rulebook
from synergy_forge.core.actions import ActionUse
from synergy_forge.core.cards import DEFAULT_COLORS, GOAL_IDS, Action, NumberCard
from synergy_forge.core.referee import SeatPlay, Table, judge, settle

CHALLENGES = ("minimum-5", "double-plus-3")


def tables(count: int, rng: random.Random) -> list[Table]:
    out = []
    for _ in range(count):
        plays = tuple(
            SeatPlay(NumberCard(rng.randint(1, 5), c), NumberCard(rng.randint(1, 5), c),
                     rng.choice(GOAL_IDS))
            for c in DEFAULT_COLORS
        )
        actions = ()
        if rng.random() < 0.3:
            actions = (ActionUse(Action.F, rng.randrange(5), target=rng.randrange(5)),)
        out.append(Table(plays, CHALLENGES, allowed_failures=1, actions=actions))
    return out


def rate(function, pool, rulebook, seconds: float = 2.0) -> float:
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for table in pool:
            function(table, rulebook)
        done += len(pool)
    return done / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    pool = tables(2000, random.Random(7))
    print(f"python {platform.python_version()} on {platform.machine()}, one process")
    for name, native in (("native", True), ("data", False)):
        rulebook = standard_rulebook(native=native)
        for function in (judge, settle):
            per_second = rate(function, pool, rulebook, args.seconds)
            print(f"{name:>6} {function.__name__:>6}: {per_second:>10,.0f} rounds/s")


if __name__ == "__main__":
    main()
