"""Tuning: the setting closest to a mission's own whose playtest estimate lands in a star band.

The estimate is `playtest`'s: the skill a table needs, read on the skill ladder (sim.ladder:
every table of experts and novices, on the same deals). A setting is accepted only when the
whole range its intervals allow lies inside the band, and a default `playtest --check` of the
tuned file agrees.

The knobs are the ones a designer turns: rounds, lives, allowed failures at each player count,
the starting hand (number and goal cards) and, when asked, one action card more or less. The
search is built to spend few games:

- Candidates are tried in order of distance from the original (one step of one knob costs 1,
  an action card 2), so the first one accepted is the closest.
- Knobs move only towards the band: a mission that is too easy gets more rounds, fewer lives,
  fewer allowed failures, a smaller hand; and difficulty is taken to be monotone in each knob,
  so a setting that is still clearly too easy rules out every setting between it and the
  original, and one that overshoots rules out every setting beyond it.
- Sequential testing: each candidate plays growing batches (25, 25, 50, then 100 games per
  player count and table of the ladder) and is dropped as soon as its range of skills is
  clearly outside the band, usually after the first 25; it is accepted once the range lies
  inside the band.
- Common random numbers: every candidate plays the same deals, the very seeds `playtest --seed
  S --games G` would use, so differences between candidates are the settings', not the luck's,
  and the estimate reported is the one `playtest` will print for the tuned file.
- The most extreme setting in range is tried first, with the original: if even it cannot reach
  the band, the answer (at most so many stars with these challenges) comes after one batch.

The budget caps every game played, at every table of the ladder: a batch is played only if the
games it would add still fit, so the search stops short of the budget rather than past it.

Pure: takes missions and a rulebook, returns a typed result; the executor decides where games
run, and results are the same on any executor.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from enum import StrEnum

from synergy_forge.core.mission import MOST_STARS, Mission
from synergy_forge.core.rules import Rulebook
from synergy_forge.sim.executors import Executor, LocalPool
from synergy_forge.sim.knobs import Setting, candidates, extreme_setting
from synergy_forge.sim.ladder import SKILL_BANDS, Curve, PooledCurve, Reading, read, stars_for
from synergy_forge.sim.playtest import (
    BUDGET,
    STAR_BOT,
    Estimate,
    LadderPlan,
    Playable,
    Tally,
    estimates,
    game_seed,
    play_batch,
)
from synergy_forge.sim.playtest import Cell as PlaytestCell

#: Games per player count played so far at each look of the sequential test (then every 100).
LOOKS = (25, 50, 100)
#: `playtest`'s default games per count: a proposal must also pass `playtest --check` there.
CHECK_GAMES = 100
#: Candidates played side by side in each round of batches. Fixed (not the number of
#: workers), so that which candidate wins does not depend on where the games ran.
WIDTH = 4
#: A skill no table has: where not even the expert wins (skill needed None).
BEYOND = float("inf")


def tables(counts: Sequence[int]) -> int:
    """The ladder's tables at these player counts (0 to n experts at n players)."""
    return sum(p + 1 for p in counts)


def reserve(counts: Sequence[int]) -> int:
    """The most games checking an answer as a default `playtest` plays it can take."""
    return BUDGET * CHECK_GAMES * len(counts)


def first_look(counts: Sequence[int], games: int) -> int:
    """The games of one setting's first batch at these player counts (every table of the
    ladder) and of checking it: the least budget with which `tune` can say anything."""
    return min(LOOKS[0], games) * tables(counts) + reserve(counts)


def band(stars: int) -> tuple[float, float]:
    """The skills needed [low, high) that earn `stars` (SKILL_BANDS)."""
    bounds = dict((s, b) for b, s in SKILL_BANDS)
    low = bounds.get(stars - 1, -1.0)
    high = bounds.get(stars, BEYOND) if stars < MOST_STARS else BEYOND + 1
    return low, high


def _number(skill: float | None) -> float:
    return BEYOND if skill is None else skill


def _reading(by_table: dict[tuple[int, int], Tally], counts: Sequence[int]) -> Reading:
    curves = []
    for p in counts:
        row = [by_table.get((p, k), Tally()) for k in range(p + 1)]
        curves.append(Curve(p, [t.wins for t in row], [t.games for t in row]))
    return read(PooledCurve(curves))


def _skills(reading: Reading) -> tuple[float, float, float]:
    """(skill needed, lowest, highest within the intervals), None as BEYOND."""
    return _number(reading.skill), _number(reading.skill_low), _number(reading.skill_high)


class TargetFit(StrEnum):
    """Where a trial's estimate falls against the stars asked for (not a referee's Verdict)."""

    IN_BAND = "in band"
    TOO_EASY = "too easy"
    TOO_HARD = "too hard"
    UNDECIDED = "undecided"  # the budget ran out first


@dataclass
class Trial:
    """A setting and the games it played (the same deals as every other trial)."""

    setting: Setting
    distance: int
    offsets: tuple[int, ...]
    variant: int  # 0: the original action cards; else one added or removed
    counts: tuple[int, ...] = ()
    #: per (player count, experts at the table)
    by_table: dict[tuple[int, int], Tally] = field(default_factory=dict)
    played: int = 0  # games per table so far
    fit: TargetFit = TargetFit.UNDECIDED
    #: what a default `playtest` of the tuned file estimates (None: not asked yet)
    verified: Estimate | None = None

    @property
    def checked(self) -> bool:
        """A default `playtest --check` of the tuned file passes."""
        return self.verified is not None and not self.verified.fails_check

    @property
    def reading(self) -> Reading:
        return _reading(self.by_table, self.counts)

    @property
    def tally(self) -> Tally:
        """The experts' own games (the ladder's top), every count pooled."""
        total = Tally()
        for (count, experts), tally in self.by_table.items():
            if experts == count:
                total.add(tally)
        return total

    @property
    def games(self) -> int:
        return self.tally.games

    @property
    def skill(self) -> float | None:
        """The skill needed (None: not even the expert wins TARGET of its games)."""
        return self.reading.skill

    @property
    def skill_range(self) -> tuple[float | None, float | None]:
        reading = self.reading
        return reading.skill_low, reading.skill_high

    @property
    def stars(self) -> tuple[int, int]:
        reading = self.reading
        return reading.fewest, reading.most


@dataclass
class TuneResult:
    mission: Mission
    target: int
    counts: tuple[int, ...]
    original: Trial
    #: the closest setting in the band, or None
    proposal: Trial | None
    #: the most extreme setting in range towards the band (what "at most N stars" is about)
    extreme: Trial | None
    games: int  # every game played
    seconds: float
    tried: int  # candidates that played at least one batch
    skipped: int  # candidates ruled out without a game (monotone in each knob)
    exhausted: bool  # the budget ran out before an answer
    games_per_count: int
    seed: int
    #: settings (the original among them) that played every game with their range still
    #: straddling a bound of the band: more games per table might place them
    undecided: int = 0

    @property
    def tuned(self) -> Mission | None:
        """The mission with the proposed setting and the target stars declared."""
        if self.proposal is None:
            return None
        return self.proposal.setting.apply(self.mission, self.target)

    @property
    def reachable(self) -> int | None:
        """When the band cannot be reached: the nearest stars the extreme setting gives."""
        if self.proposal is not None or self.extreme is None or self.exhausted or \
                self.undecided:
            return None
        return stars_for(self.extreme.skill)


def tune(mission: Mission, rulebook: Rulebook, colors: Sequence[str], stars: int, *,
         counts: Sequence[int] | None = None, budget: int = 40_000, games: int = 400,
         seed: int = 1, with_actions: bool = False, executor: Executor | None = None,
         valid: Callable[[Mission], bool] | None = None, strict: bool = True,
         progress: Callable[[int, int], None] | None = None) -> TuneResult:
    """Search for the setting closest to `mission`'s whose estimate (the skill a table needs,
    from `games` games at each player count in `counts` and each level of the skill ladder)
    lands in the band of `stars` (and agrees with `playtest --check` at its default 100
    games), playing at most `budget` games (every level of the ladder counted; at least
    `first_look`, ValueError otherwise).

    Not `strict`: a mission whose own estimate already agrees with `stars` as `playtest
    --check` sees it (its interval reaches the band) is left as it is. `progress(settings,
    games)` is told each new setting tried and each batch of games played, as they come.
    """
    told = progress or (lambda settings, games: None)
    started = time.perf_counter()
    executor = executor or LocalPool()
    unit = executor.unit_games  # games per work unit, as this executor's scheduling wants
    played = tuple(sorted(p for p in (counts or mission.players) if p in mission.players))
    if not played:
        raise ValueError(f"{mission.id} is not made for {', '.join(map(str, counts or ()))} "
                         "players")
    low, high = band(stars)
    seeds = {p: [game_seed(seed, mission.id, p, i) for i in range(games)] for p in played}
    looks = sorted({n for n in (*LOOKS, *range(200, games, 100)) if n < games} | {games})
    per_look = tables(played)
    if budget < first_look(played, games):
        raise ValueError(f"{budget} games cannot pay for a first look at {mission.id}")
    spent = 0
    tried = skipped = 0

    def paid(trials: list[Trial]) -> list[Trial]:
        """The first of `trials` whose next batches the budget still pays for, in order,
        keeping enough to check an answer they may give."""
        costs = itertools.accumulate((next(n for n in looks if n > t.played) - t.played)
                                     * per_look for t in trials)
        room = budget - reserve(played)
        return [t for t, cost in zip(trials, costs, strict=True) if spent + cost <= room]

    def play(trials: list[Trial]) -> None:
        """One more batch for each trial, all in one call of the executor (`paid` ones)."""
        nonlocal spent, tried
        new = sum(1 for trial in trials if not trial.played)
        tried += new
        told(new, 0)
        units = []
        for index, trial in enumerate(trials):
            trial.counts = played
            start = trial.played
            end = next(n for n in looks if n > start)
            for p in played:
                part = seeds[p][start:end]
                for experts in range(p + 1):
                    for at in range(0, len(part), unit):
                        units.append((index, trial.setting, p, experts,
                                      tuple(part[at:at + unit])))
        for (index, _, p, experts, _), tally in zip(units, _results(units), strict=True):
            trials[index].by_table.setdefault((p, experts), Tally()).add(tally)
            spent += tally.games
        for trial in trials:
            trial.played = next(n for n in looks if n > trial.played)
            _judge(trial, low, high, games)
            if trial.fit is TargetFit.IN_BAND:
                trial.verified = verify(trial, stars)
                if not trial.checked:
                    trial.fit = TargetFit.UNDECIDED if trial.played < games else \
                        TargetFit.TOO_HARD if _number(trial.skill) >= high else \
                        TargetFit.TOO_EASY

    def _results(units: list[tuple[int, Setting, int, int, tuple[int, ...]]]) -> list[Tally]:
        results: list[Tally | None] = [None] * len(units)
        for number, tally in session.run([unit[1:] for unit in units]):
            results[number] = tally
            told(0, tally.games)  # as each unit comes back: a batch can take minutes
        assert all(r is not None for r in results), "an executor lost a unit's result"
        return [r for r in results if r is not None]

    def verify(trial: Trial, target: int) -> Estimate:
        """What a default `playtest` of the tuned file estimates: its own ladder, played as
        `playtest` plays it (these games count against the budget too)."""
        nonlocal spent
        tuned = trial.setting.apply(mission, target)
        plan = LadderPlan(tuned, played, CHECK_GAMES, False)
        while wanted := plan.next():
            units = []
            for p, table, more in wanted:
                assert isinstance(table, int)
                start = plan.played(p, table)
                part = [game_seed(seed, mission.id, p, i) for i in range(start, start + more)]
                for at in range(0, len(part), unit):
                    units.append((0, trial.setting, p, table, tuple(part[at:at + unit])))
            for (_, _, p, table, _), tally in zip(units, _results(units), strict=True):
                plan.add(p, table, tally)
                spent += tally.games
        cells = [PlaytestCell(tuned, p, STAR_BOT, tally, experts)
                 for (p, experts), tally in plan.tallies.items()]
        (estimate,) = estimates(cells)
        return estimate

    # One session for the whole search: the mission and rulebook go to each worker once, and
    # the bots' caches stay warm from one setting to the next.
    subject = Playable(replace(mission, source=""), rulebook, tuple(colors))
    with executor.session(_play_setting, subject) as session:
        original = Trial(Setting.of(mission), 0, (), 0, played)
        play([original])
        # The original plays all its games, even when clearly outside the band at once: its
        # estimate is the "before" of the report, the one `playtest` prints.
        while original.played < games and paid([original]):
            original.fit = TargetFit.UNDECIDED
            play([original])
        harder = _number(original.skill) < low
        result = TuneResult(mission, stars, played, original, None, None, spent, 0.0, tried, 0,
                            False, games, seed)
        if not strict and original.fit is not TargetFit.IN_BAND and \
                _agrees(original.reading, low, high):
            original.verified = verify(original, stars)
        agreeing = not strict and original.checked
        if original.fit is TargetFit.IN_BAND or agreeing:
            result.proposal = original
        elif original.fit is not TargetFit.UNDECIDED:
            # The far end first: when even it falls short, no setting in range reaches the band.
            setting = extreme_setting(mission, harder)
            extreme = original
            if setting != original.setting:
                extreme = Trial(setting, -1, (), 0, played)
                if paid([extreme]):
                    play([extreme])
            result.extreme = extreme
            if not extreme.played:
                result.exhausted = True
            elif extreme.fit is not (TargetFit.TOO_EASY if harder else TargetFit.TOO_HARD):
                result.proposal, skipped, result.exhausted, result.undecided = _search(
                    mission, harder, with_actions, play, paid, valid, games)
        elif original.played >= games:
            result.undecided = 1
        else:
            result.exhausted = True
    result.games, result.tried, result.skipped = spent, tried, skipped
    result.seconds = time.perf_counter() - started
    return result


def _play_setting(subject: Playable, setting: Setting, players: int, experts: int,
                  seeds: tuple[int, ...]) -> Tally:
    # Runs in a worker: only the setting, the table and the seeds travel with each unit.
    return play_batch(setting.apply(subject.mission), subject.rulebook, subject.colors,
                      players, STAR_BOT, seeds, experts=experts, model=subject.model)


def _judge(trial: Trial, low: float, high: float, games: int) -> None:
    """Sequential test after each batch: clearly outside the band, its whole range inside the
    band, or go on. Skills: `low` <= skill needed < `high` is in the band. When the games run
    out with the range still straddling a bound, the point decides which side it is on; a
    setting is never accepted on its point alone."""
    point, fewest, most = _skills(trial.reading)
    if fewest >= high:
        trial.fit = TargetFit.TOO_HARD
    elif most < low:
        trial.fit = TargetFit.TOO_EASY
    elif low <= fewest and most < high:
        trial.fit = TargetFit.IN_BAND
    elif trial.played >= games:
        trial.fit = TargetFit.TOO_EASY if point < low else TargetFit.TOO_HARD if point >= high \
            else TargetFit.UNDECIDED


def _agrees(reading: Reading, low: float, high: float) -> bool:
    _, fewest, most = _skills(reading)
    return fewest < high and most >= low


def _search(mission: Mission, harder: bool, with_actions: bool,
            play: Callable[[list[Trial]], None], paid: Callable[[list[Trial]], list[Trial]],
            valid: Callable[[Mission], bool] | None, games: int
            ) -> tuple[Trial | None, int, bool, int]:
    """The candidates nearest first, WIDTH at a time (as many of them as the budget pays
    for); returns (closest in band, skipped, budget exhausted, undecided settings)."""
    queue = candidates(mission, harder, with_actions)
    next(queue)  # the original itself, already played
    short_of = TargetFit.TOO_EASY if harder else TargetFit.TOO_HARD
    past = TargetFit.TOO_HARD if harder else TargetFit.TOO_EASY
    not_far: dict[int, list[tuple[int, ...]]] = {}  # per variant: offsets still short of it
    too_far: dict[int, list[tuple[int, ...]]] = {}  # per variant: offsets past the band
    active: list[Trial] = []
    best: Trial | None = None
    skipped = undecided = 0
    done = False

    def ruled_out(variant: int, offsets: tuple[int, ...]) -> bool:
        below = any(all(o <= s for o, s in zip(offsets, seen, strict=True))
                    for seen in not_far.get(variant, ()))
        beyond = any(all(o >= s for o, s in zip(offsets, seen, strict=True))
                     for seen in too_far.get(variant, ()))
        return below or beyond

    while True:
        while not done and len(active) < WIDTH:
            try:
                distance, offsets, variant, setting = next(queue)
            except StopIteration:
                done = True
                break
            if best is not None and (distance, variant, offsets) > _rank(best):
                done = True
                break
            if ruled_out(variant, offsets) or (
                    valid is not None and not valid(setting.apply(mission))):
                skipped += 1
                continue
            active.append(Trial(setting, distance, offsets, variant))
        if best is not None:
            active = [t for t in active if _rank(t) < _rank(best)]
        if not active:
            return best, skipped, False, undecided
        batch = paid(active)
        if not batch:
            return best, skipped, True, undecided
        play(batch)
        for trial in batch:
            if trial.fit is TargetFit.UNDECIDED and trial.played < games:
                continue
            active.remove(trial)  # decided, or every game played with no side proven
            undecided += trial.fit is TargetFit.UNDECIDED
            if trial.fit is short_of:
                not_far.setdefault(trial.variant, []).append(trial.offsets)
            elif trial.fit is past:
                too_far.setdefault(trial.variant, []).append(trial.offsets)
            elif trial.fit is TargetFit.IN_BAND and (
                    best is None or _rank(trial) < _rank(best)):
                best = trial


def _rank(trial: Trial) -> tuple[int, int, tuple[int, ...]]:
    return trial.distance, trial.variant, trial.offsets


#: Missions tuned side by side on a cluster.
MISSIONS_AT_ONCE = 4


def tune_each(subjects: Sequence[Playable], stars: int | None, *,
              counts: Sequence[int] | None, budget: int, games: int, seed: int,
              with_actions: bool, executor: Executor,
              valid_for: Callable[[Playable], Callable[[Mission], bool]],
              progress: Callable[[int, int], None] | None = None
              ) -> Iterator[TuneResult | None]:
    """`tune` for each mission, in their order: towards `stars`, or (None) towards its
    declared stars, changed only if the estimate disagrees; None for a mission not made for
    any of `counts`. `valid_for(subject)` says which of its candidates may be proposed;
    `progress` is each one's (tune).

    On a cluster several missions are tuned at once, to keep its workers busy; the local pool
    already has every core busy with one (and in this thread, Ctrl-C stops at once). Stopped
    before the end (Ctrl-C, an error, the caller done), the missions not started never start
    and the executor's work is stopped, rather than waited for."""

    def one(subject: Playable) -> TuneResult | None:
        mission = subject.mission
        if counts and not set(counts) & set(mission.players):
            return None
        return tune(mission, subject.rulebook, subject.colors,
                    stars if stars is not None else mission.stars, counts=counts,
                    budget=budget, games=games, seed=seed, with_actions=with_actions,
                    executor=executor, valid=valid_for(subject), strict=stars is not None,
                    progress=progress)

    threads = None
    if not isinstance(executor, LocalPool) and len(subjects) > 1:
        threads = ThreadPoolExecutor(max_workers=MISSIONS_AT_ONCE)
    finished = False
    try:
        yield from (threads.map(one, subjects) if threads is not None else map(one, subjects))
        finished = True
    finally:
        if threads is not None:
            threads.shutdown(wait=finished, cancel_futures=not finished)
        if not finished:
            executor.stop()
