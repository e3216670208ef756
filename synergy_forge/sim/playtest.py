"""Playtesting: many seeded games per mission, player count and table, and what they say.

`run` plays every mission's tables, the ladder's in rounds as its plan (sim.plan) asks, on
any executor; `playtest` adds each mission's estimate (sim.estimate). The same seeds give the
same cells whatever runs them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from synergy_forge.sim.estimate import (
    BOT_LIMIT,
    TOO_EASY,
    Concern,
    CountEstimate,
    Estimate,
    Finding,
    LadderTally,
    describe_stars,
    estimate_from,
    estimates,
    play_tables,
)
from synergy_forge.sim.executors import Executor, LocalPool
from synergy_forge.sim.plan import BUDGET, LadderPlan
from synergy_forge.sim.tables import (
    CEILING_BOT,
    NOVICE,
    STAR_BOT,
    Cell,
    Playable,
    Table,
    Tally,
    ceiling_needed,
    game_seed,
    play_batch,
)

#: The names other modules read here; each is defined in the module that owns its concept.
__all__ = ["BOT_LIMIT", "BUDGET", "CEILING_BOT", "NOVICE", "STAR_BOT", "TOO_EASY", "Cell",
           "Concern", "CountEstimate", "Estimate", "Finding", "LadderPlan", "LadderTally",
           "Playable", "PlaytestResult", "Table", "Tally", "describe_stars", "estimate_from",
           "estimates", "game_seed", "games_to_play", "play_batch", "play_tables", "playtest",
           "run"]


def _work(playables: Sequence[Playable], index: int, player_count: int, table: Table,
          seeds: tuple[int, ...]) -> Tally:
    # Runs in a worker: `playables` arrived once per worker, with the executor.
    subject = playables[index]
    if isinstance(table, int):
        return play_batch(subject.mission, subject.rulebook, subject.colors, player_count,
                          STAR_BOT, seeds, experts=table, model=subject.model)
    return play_batch(subject.mission, subject.rulebook, subject.colors, player_count, table,
                      seeds, model=subject.model)


def run(playables: Sequence[Playable], bots: Sequence[str],
        player_counts: Sequence[int] | None, games: int, seed: int, jobs: int | None = None,
        progress: Callable[[int], None] | None = None, chunk: int | None = None,
        executor: Executor | None = None, walk: bool = True) -> list[Cell]:
    """Play every mission x player count x bot; returns one cell each, in a fixed order.

    STAR_BOT among `bots` means the ladder (`LadderPlan`): its tables are played in rounds,
    every mission's round at once, until each mission's rating is settled or its games are
    spent. The other bots play `games` games each.

    The work runs on `executor` (default: the local pool with `jobs` workers). Every unit
    carries its games' seeds, and tallies are added in the units' order, so the cells are the
    same on one process, any number of local workers or any cluster.
    """
    executor = executor or LocalPool(jobs)
    chunk = chunk or executor.unit_games
    counts = [tuple(p for p in (player_counts or s.mission.players) if p in s.mission.players)
              for s in playables]
    cells: dict[tuple[int, int, Table], Cell] = {}
    # Workers get the missions as values: no file name (a worker reads nothing).
    shared = tuple(replace(p, mission=replace(p.mission, source="")) for p in playables)

    def batch(wanted: list[tuple[int, int, Table, int]]) -> None:
        units: list[tuple[int, int, Table, tuple[int, ...]]] = []
        for index, count, table, more in wanted:
            key = (index, count, table)
            if key not in cells:
                experts = table if isinstance(table, int) else None
                bot = STAR_BOT if experts is not None else str(table)
                cells[key] = Cell(playables[index].mission, count, bot, Tally(), experts)
            start = cells[key].tally.games + sum(len(u[3]) for u in units
                                                 if u[:3] == (index, count, table))
            mid = playables[index].mission.id
            dealt = [game_seed(seed, mid, count, i) for i in range(start, start + more)]
            for first in range(0, more, chunk):
                units.append((index, count, table, tuple(dealt[first:first + chunk])))
        results: list[Tally | None] = [None] * len(units)
        for number, tally in session.run(units):
            results[number] = tally
            if progress:
                progress(len(units[number][3]))
        for (index, count, table, _), tally in zip(units, results, strict=True):
            assert tally is not None, "an executor finished without every unit's result"
            cells[(index, count, table)].tally.add(tally)
            if index in plans and isinstance(table, int):
                plans[index].add(count, table, tally)

    missions = range(len(playables))
    # The oracle asked for by name plays `games` games; else, where hands cannot be counted,
    # it plays beside the ladder's top (the same seeds) to tell whether the expert is the limit.
    plans = {i: LadderPlan(playables[i].mission, counts[i], games,
                           CEILING_BOT not in bots and ceiling_needed(playables[i].mission),
                           walk)
             for i in missions if counts[i]} if STAR_BOT in bots else {}
    with executor.session(_work, shared) as session:
        plain: list[tuple[int, int, Table, int]] = [
            (i, c, bot, games) for i in missions for bot in bots if bot != STAR_BOT
            for c in counts[i]]
        while True:
            wanted: list[tuple[int, int, Table, int]] = list(plain)
            plain = []
            for index, plan in plans.items():
                for count, table, more in plan.next():
                    wanted.append((index, count, table, more))
            if not wanted:
                break
            batch(wanted)
        if progress:  # the games a settled mission did not need to play
            for plan in plans.values():
                for count in plan.counts:
                    progress(max(0, plan.cap - plan.spent(count)))
    order = {bot: n for n, bot in enumerate(bots)}

    def rank(key: tuple[int, int, Table]) -> tuple[int, int, int, int]:
        index, count, table = key
        if isinstance(table, int):
            return index, count, order[STAR_BOT], -table
        return index, count, order.get(table, len(order)), 0
    return [cells[key] for key in sorted(cells, key=rank)]


def games_to_play(playables: Sequence[Playable], bots: Sequence[str],
                  player_counts: Sequence[int] | None, games: int) -> int:
    """How many games `playtest` plays at most (for a progress bar: `run` reports the games a
    settled ladder did not need as played)."""
    total = 0
    for s in playables:
        counts = [p for p in (player_counts or s.mission.players) if p in s.mission.players]
        plan = LadderPlan(s.mission, tuple(counts), games,
                          CEILING_BOT not in bots and ceiling_needed(s.mission))
        per_count = games * len([b for b in bots if b != STAR_BOT])
        if STAR_BOT in bots:
            per_count += plan.cap + (plan.first if plan.ceiling else 0)
        total += per_count * len(counts)
    return total


@dataclass(frozen=True)
class PlaytestResult:
    """What a playtest found: one cell per mission x player count x table, in a fixed order,
    and one estimate per mission the ladder was played for."""

    games: int
    seed: int
    bots: tuple[str, ...]
    cells: list[Cell]
    estimates: list[Estimate]

    @property
    def failing(self) -> list[Estimate]:
        """The estimates `playtest --check` fails on."""
        return [e for e in self.estimates if e.fails_check]


def playtest(playables: Sequence[Playable], bots: Sequence[str],
             player_counts: Sequence[int] | None, games: int, seed: int, jobs: int | None = None,
             progress: Callable[[int], None] | None = None,
             executor: Executor | None = None) -> PlaytestResult:
    """Play every mission x player count x bot (`run`) and estimate each mission."""
    cells = run(playables, bots, player_counts, games, seed, jobs, progress, executor=executor)
    return PlaytestResult(games, seed, tuple(bots), cells, estimates(cells))
