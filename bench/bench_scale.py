"""Scale-out and tuning: what a work unit costs to schedule, the same playtest on the local pool
and on a 2-worker Dask LocalCluster, and `tune`'s games against an exhaustive grid.

    .venv/bin/python bench/bench_scale.py [--games 200] [--skip-tune | --only-tune]

Needs the `cluster` extra (distributed). Everything runs on this machine, loopback only.
"""

from __future__ import annotations

import argparse
import json
import os
import time

from synergy_forge.authoring.loading import read_campaign
from synergy_forge.reporting.playtest import playtest_to_json
from synergy_forge.resources import starter_campaign
from synergy_forge.sim import playtest as pt
from synergy_forge.sim.executors import Dask, LocalPool
from synergy_forge.sim.knobs import MAX_DISTANCE, grid_size
from synergy_forge.sim.knobs import candidates as _candidates
from synergy_forge.sim.tune import band, tune

UNIT_GAMES = LocalPool().unit_games  # what tune's units hold on this machine's pool
#: Five starter missions and the stars asked of each (one band away from the declared).
TUNED = {5: 3, 9: 3, 13: 3, 22: 2, 27: 4}


def _nothing(shared: object, index: int) -> int:
    return index


def sources(count: int = 6):
    campaign = read_campaign(starter_campaign()).campaign
    return [pt.Playable(m, campaign.rulebook, campaign.colors)
            for m in campaign.missions[:count]]


def unit_cost(address: str) -> None:
    """Scheduling cost per unit (empty units) against the time of one unit of UNIT_GAMES games."""
    subject = sources(5)[4]  # a fresh playable: its mission model is empty
    pt.play_batch(subject.mission, subject.rulebook, subject.colors, 4, "coop", range(20),
                  model=subject.model)
    # CPU time: what the unit costs a core of its own, whatever else shares this host.
    start = time.process_time()
    pt.play_batch(subject.mission, subject.rulebook, subject.colors, 4, "coop",
                  range(100, 100 + UNIT_GAMES), model=subject.model)
    work = time.process_time() - start
    print(f"one unit of {UNIT_GAMES} coop games (short-hand, 4 players, warm caches): "
          f"{work * 1000:.0f} ms of CPU")
    units = [(i,) for i in range(400)]
    for name, executor in (("local pool, 2 workers", LocalPool(2)),
                           ("Dask LocalCluster, 2 workers", Dask(address))):
        with executor.session(_nothing, None) as session:
            list(session.run(units[:20]))  # workers started
            start = time.perf_counter()
            list(session.run(units))
            per_unit = (time.perf_counter() - start) / len(units)
        # Two workers drain the queue: the wall time of one empty unit is half its cost. Wall
        # time on a shared host overstates it, so the share printed is an upper bound.
        print(f"{name}: {per_unit * 1000:.2f} ms per empty unit (wall), so scheduling is at "
              f"most {2 * per_unit / work:.1%} of a {UNIT_GAMES}-game unit's time and "
              f"{per_unit / work:.1%} of a {2 * UNIT_GAMES}-game unit's")


def _cpu() -> float:
    return time.process_time()


def pool_against_cluster(address: str, games: int) -> None:
    """Wall time, and CPU seconds spent by the workers: on a host shared with other work the
    wall time measures the neighbours as much as the code, the CPU time does not."""
    from distributed import Client

    reports = {}
    walls: dict[str, list[float]] = {"pool": [], "cluster": []}
    cpus: dict[str, list[float]] = {"pool": [], "cluster": []}
    with Client(address, set_as_default=False) as client:
        # A running cluster has imported everything already: one small run first.
        pt.run(sources()[:1], ["coop"], [3], 10, seed=9, executor=Dask(address))
        for name, executor in (("pool", LocalPool(2)), ("cluster", Dask(address))) * 2:
            # Cold caches everywhere: fresh playables, whose mission models travel empty to
            # every worker.
            subjects = sources()
            before_children = os.times().children_user + os.times().children_system
            before_workers = sum(client.run(_cpu).values())
            start = time.perf_counter()
            cells = pt.run(subjects, ["coop"], None, games, seed=1, executor=executor)
            wall = time.perf_counter() - start
            cpu = (os.times().children_user + os.times().children_system - before_children
                   if name == "pool" else sum(client.run(_cpu).values()) - before_workers)
            walls[name].append(wall)
            cpus[name].append(cpu)
            result = pt.PlaytestResult(games, 1, ("coop",), cells, pt.estimates(cells))
            reports[name] = json.dumps(playtest_to_json(result))
            played = sum(c.tally.games for c in cells)
            print(f"{name:>8}: {played} games in {wall:.1f} s wall ({played / wall:.0f} "
                  f"games/s), {cpu:.1f} CPU s in the workers ({played / cpu:.0f} games per "
                  "CPU s)")
    assert len(set(reports.values())) == 1, "the executors disagree"
    print(f"cluster speed / pool speed, best of two each: wall "
          f"{min(walls['pool']) / min(walls['cluster']):.2f}, CPU "
          f"{min(cpus['pool']) / min(cpus['cluster']):.2f}; the JSON reports are identical")


def tune_against_grid() -> None:
    campaign = read_campaign(starter_campaign()).campaign
    total = grid_total = near_total = 0
    for number, stars in TUNED.items():
        mission = campaign.mission(number)
        result = tune(mission, campaign.rulebook, campaign.colors, stars, executor=LocalPool())
        counts = len(result.counts)
        grid = grid_size(mission) * result.games_per_count * counts
        harder = result.original.tally.win_rate >= band(stars)[1]
        near = sum(1 for _ in _candidates(mission, harder, False)) * \
            result.games_per_count * counts
        total += result.games
        grid_total += grid
        near_total += near
        change = ", ".join(f"{k} {a}->{b}" for k, a, b in
                           result.original.setting.changes(result.proposal.setting)) \
            if result.proposal else "none in range"
        print(f"{mission.id} {mission.stars}->{stars} stars: {result.games:,} games in "
              f"{result.seconds:.0f} s ({result.tried} settings played, {result.skipped} ruled "
              f"out); full grid {grid:,}; grid of the {near // result.games_per_count // counts}"
              f" settings within {MAX_DISTANCE} steps towards the band {near:,}: {change}")
    print(f"total: tune {total:,} games; {total / near_total:.3f} of the near grid, "
          f"{total / grid_total:.6f} of the full grid")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--skip-tune", action="store_true")
    parser.add_argument("--only-tune", action="store_true")
    args = parser.parse_args()
    if args.only_tune:
        tune_against_grid()
        return
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None, silence_logs=50) as cluster:
        unit_cost(cluster.scheduler_address)
        pool_against_cluster(cluster.scheduler_address, args.games)
    if not args.skip_tune:
        tune_against_grid()


if __name__ == "__main__":
    main()
