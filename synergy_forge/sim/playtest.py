"""Playtesting: many seeded games per mission, player count and bot, and what they say.

The same seeds deal the same hands to every bot and every table of the ladder (a paired
comparison), and every game's seed is derived from the base seed, the mission, the player
count and the game's index, so results do not depend on how the work is split between
processes.

The difficulty (docs/difficulty.md) is the skill a table needs, read on the skill ladder
(sim.ladder): tables of experts and novices in every mix, whose win rates give the win rate at
any skill. The ladder is played in rounds (`LadderPlan`): the two ends first, the mixed tables
when the ends do not settle the stars, then more games where they do the most to settle a
rating that straddles two bands, until it lies in one band or the mission's games run out.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from synergy_forge.core.engine import Game
from synergy_forge.core.mission import Mission
from synergy_forge.core.referee import LossReason
from synergy_forge.core.rules import Rulebook
from synergy_forge.sim.bots import SeatMemories
from synergy_forge.sim.executors import Executor, LocalPool
from synergy_forge.sim.ladder import (
    EXPERT,
    NOVICE,
    RUNGS,
    Curve,
    PooledCurve,
    Reading,
    Violation,
    read,
    seating,
    weights,
    wilson,
)
from synergy_forge.sim.play import play

#: The bot whose ladder gives the stars: `--bots expert` plays the ladder's tables.
STAR_BOT = EXPERT
#: The bot the ladder's top is checked against where hands cannot be counted (it cheats).
CEILING_BOT = "oracle"
#: Win rates of the novices' table above which a mission is too easy to be worth a card.
TOO_EASY = 0.97
#: The oracle beating the expert by more than this says the expert, not the mission, is the
#: limit (docs/difficulty.md).
BOT_LIMIT = 0.10


def describe_stars(fewest: int, most: int) -> str:
    if fewest == most:
        return f"{fewest} star{'s' if fewest > 1 else ''}"
    return f"between {fewest} and {most} stars"


def game_seed(base: int, mission_id: str, player_count: int, index: int) -> int:
    digest = hashlib.sha256(f"{base}:{mission_id}:{player_count}:{index}".encode()).hexdigest()
    return int(digest[:12], 16)


@dataclass
class Tally:
    """What a batch of games gave; tallies add up, whatever the order."""

    games: int = 0
    wins: int = 0
    rounds_won: int = 0
    rounds_played: int = 0
    lives_lost: int = 0
    losses: Counter[LossReason] = field(default_factory=Counter)  # reason -> games
    goals_met: Counter = field(default_factory=Counter)  # goal -> times met
    goals_played: Counter = field(default_factory=Counter)  # goal -> times it had to be met

    def add(self, other: Tally) -> None:
        self.games += other.games
        self.wins += other.wins
        self.rounds_won += other.rounds_won
        self.rounds_played += other.rounds_played
        self.lives_lost += other.lives_lost
        self.losses.update(other.losses)
        self.goals_met.update(other.goals_met)
        self.goals_played.update(other.goals_played)

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)


def play_batch(mission: Mission, rulebook: Rulebook, colors: Sequence[str], player_count: int,
               bot: str, seeds: Sequence[int], experts: int | None = None) -> Tally:
    """Play a game from each seed: `bot` at every seat, or with `experts` given, the ladder's
    table with that many experts and novices in the other seats (sim.ladder.seating)."""
    tally = Tally()
    memories = SeatMemories()  # the bots' own, kept across this batch's games
    for seed in seeds:
        game = Game(mission, player_count, seed, rulebook, colors)
        seats = [bot] * player_count if experts is None else \
            seating(seed, player_count, experts)
        play(game, seats, memories=memories)
        outcome = game.outcome
        assert outcome is not None
        tally.games += 1
        tally.wins += outcome.won
        tally.rounds_won += outcome.rounds_won
        tally.rounds_played += outcome.rounds_played
        tally.lives_lost += mission.lives - outcome.lives
        if not outcome.won:
            assert outcome.reason is not None, "the engine says why every lost game was lost"
            tally.losses[outcome.reason] += 1
        for record in game.history:
            verdict = record.verdict
            for i, goal in enumerate(verdict.goals):
                if verdict.counted[i]:
                    tally.goals_played[goal] += 1
                    tally.goals_met[goal] += verdict.met[i]
    return tally


class Concern(StrEnum):
    """What a playtest finds wrong with a mission; the value is its code in the JSON report
    (docs/playtest.md), the words are the reporters' (reporting.playtest)."""

    UNWINNABLE = "unwinnable"  # no bot won any game
    UNWINNABLE_AT = "unwinnable-at-players"  # no bot won at one player count
    ORACLE_NEVER_WON = "oracle-never-won"  # the oracle lost every game other bots won some of
    TOO_EASY = "too-easy"  # the novices' table wins nearly always
    BEYOND_EXPERT = "beyond-expert"  # not even the expert wins TARGET of its games
    LIMITED_BY_BOT = "limited-by-bot"  # the expert, not the mission, sets the ladder's top
    NOT_MONOTONE = "ladder-not-monotone"  # a table won less than one with fewer experts
    STARS_DISAGREE = "declared-stars-outside-estimate"


@dataclass(frozen=True)
class Finding:
    """One concern about a mission, with the figures that show it: `bot` and `losses` are the
    bot whose games show it and those games (how they were lost); `players` a player count;
    `games` and `win_rate` the games it rests on; `winners` (bot, wins) of the others."""

    concern: Concern
    bot: str | None = None
    losses: Tally | None = None
    players: int | None = None
    games: int | None = None
    win_rate: float | None = None
    skill: float | None = None
    winners: tuple[tuple[str, int], ...] = ()
    stars: tuple[int, int] | None = None  # the estimate's fewest and most, against declared
    #: the rate it is compared with (the oracle's, a table with fewer experts)
    other_rate: float | None = None
    violation: Violation | None = None

    @property
    def fails_check(self) -> bool:
        """What `playtest --check` fails on: an unwinnable mission or player count, declared
        stars outside the estimate."""
        return self.concern in (Concern.UNWINNABLE, Concern.UNWINNABLE_AT,
                                Concern.STARS_DISAGREE)


@dataclass(frozen=True)
class Playable:
    """A mission with what it is played with: its campaign's rulebook and colours."""

    mission: Mission
    rulebook: Rulebook
    colors: tuple[str, ...]


#: Who sits at a cell's seats: a bot's name at every seat, or the number of experts at a
#: table of the ladder (novices in the other seats).
Table = str | int


def _work(playables: Sequence[Playable], index: int, player_count: int, table: Table,
          seeds: tuple[int, ...]) -> Tally:
    # Runs in a worker: `playables` arrived once per worker, with the executor.
    subject = playables[index]
    if isinstance(table, int):
        return play_batch(subject.mission, subject.rulebook, subject.colors, player_count,
                          STAR_BOT, seeds, experts=table)
    return play_batch(subject.mission, subject.rulebook, subject.colors, player_count, table,
                      seeds)


@dataclass
class Cell:
    """The games of one mission at one player count at one table."""

    mission: Mission
    player_count: int
    bot: str
    tally: Tally
    #: at a table of the ladder, how many seats the expert played (the others: novices)
    experts: int | None = None

    @property
    def label(self) -> str:
        """The table as reports name it: a bot's name, "novice" and "expert" at the ladder's
        ends, "2 of 4 experts" between."""
        if self.experts is None:
            return self.bot
        if self.experts == 0:
            return NOVICE
        if self.experts == self.player_count:
            return EXPERT
        return f"{self.experts} of {self.player_count} experts"


# -- the ladder's plan: which tables to play, and when a rating is settled -----------------

#: What a game costs at each kind of table, roughly, in games of the mixed tables: novices
#: play at random, experts alone agree on one plan per round, a mixed table plans again after
#: every novice's move. Only the choice of where to play more uses it.
NOVICE_COST, EXPERT_COST, MIXED_COST = 0.2, 0.3, 1.0
#: A mission and player count's games at most, in multiples of `--games`.
BUDGET = 3


def cost(players: int, experts: int) -> float:
    return NOVICE_COST if experts == 0 else EXPERT_COST if experts == players else MIXED_COST


@dataclass
class LadderPlan:
    """One mission's ladder, played in rounds: which games to play next, from those played.

    Deterministic: every choice depends only on the tallies so far, so the same seeds give
    the same games whatever runs them. `walk` False plays every table (a whole curve, for
    people's games) before deciding anything.
    """

    mission: Mission
    counts: tuple[int, ...]
    games: int
    ceiling: bool  # the oracle is played beside the top (hands cannot be counted)
    walk: bool = True
    tallies: dict[tuple[int, int], Tally] = field(default_factory=dict)
    done: bool = False
    stage: int = 0

    @property
    def first(self) -> int:
        """Games a table gets when first played, and each time it is given more."""
        return max(2, math.ceil(self.games / 5))

    @property
    def cap(self) -> int:
        """Games of the ladder's tables per player count, at most."""
        return BUDGET * self.games

    def played(self, count: int, experts: int) -> int:
        tally = self.tallies.get((count, experts))
        return tally.games if tally else 0

    def spent(self, count: int) -> int:
        return sum(t.games for (c, _), t in self.tallies.items() if c == count)

    def curve(self, count: int) -> Curve:
        tables = [self.tallies.get((count, k), Tally()) for k in range(count + 1)]
        return Curve(count, [t.wins for t in tables], [t.games for t in tables])

    def pooled(self) -> PooledCurve:
        return PooledCurve([self.curve(c) for c in self.counts])

    def readings(self) -> list[tuple[Reading, Callable[[int, int, float], float]]]:
        """The ratings to settle, each with the weight of a table's rate in its variance at
        a skill: the pooled rating, and each player count's where the mission declares
        them (`playtest --check` compares each)."""
        m = len(self.counts)

        def pooled(c: int, k: int, s: float) -> float:
            return (weights(c, s)[k] / m) ** 2

        def alone(only: int) -> Callable[[int, int, float], float]:
            return lambda c, k, s: weights(c, s)[k] ** 2 if c == only else 0.0

        out: list[tuple[Reading, Callable[[int, int, float], float]]] = [
            (read(self.pooled()), pooled)]
        if self.mission.stars_per_count:
            out += [(read(self.curve(count)), alone(count)) for count in self.counts]
        return out

    def settled(self) -> bool:
        return all(reading.decisive for reading, _ in self.readings())

    def next(self) -> list[tuple[int, Table, int]]:
        """(player count, table, games) to play next; [] once the plan is done."""
        if self.done:
            return []
        self.stage += 1
        if self.stage == 1:  # the two ends, and the oracle beside the top
            ends: list[tuple[int, Table, int]] = []
            for count in self.counts:
                ends += [(count, 0, self.first), (count, count, self.first)]
                if self.ceiling:
                    ends.append((count, CEILING_BOT, self.first))
            return ends
        if self.stage == 2 and not (self.walk and self.settled()):  # the mixed tables
            return [(count, k, self.first) for count in self.counts for k in range(1, count)]
        return self._more()

    def _more(self) -> list[tuple[int, Table, int]]:
        """More games where they narrow an unsettled rating the most for their cost: the
        variance they take off the rating's win rate at each band edge it straddles."""
        readings = self.readings()
        if all(reading.decisive for reading, _ in readings):
            self.done = True
            return []
        z2 = 4.0  # Agresti-Coull's added games, as Curve's variances
        gains: list[tuple[float, int, int]] = []
        for count in self.counts:
            if self.spent(count) + self.first > self.cap:
                continue
            curve = self.curve(count)
            for k in range(count + 1):
                g, more = self.played(count, k), self.first
                shrink = curve.table_spread(k) * more / ((g + z2) * (g + more + z2))
                gain = sum(weight(count, k, edge) * shrink for reading, weight in readings
                           for edge in reading.edges)
                if gain > 0:
                    gains.append((gain / cost(count, k), count, k))
        if not gains:
            self.done = True
            return []
        gains.sort(key=lambda g: (-g[0], g[1], g[2]))
        chosen: list[tuple[int, Table, int]] = []
        for _, count, k in gains:  # the best two that the player count's games still allow
            planned = sum(more for c, _, more in chosen if c == count)
            if self.spent(count) + planned + self.first <= self.cap:
                chosen.append((count, k, self.first))
            if len(chosen) == 2:
                break
        return chosen

    def add(self, count: int, experts: int, tally: Tally) -> None:
        self.tallies.setdefault((count, experts), Tally()).add(tally)


def ceiling_needed(mission: Mission) -> bool:
    """Whether the oracle is played beside the expert: where the expert cannot count every
    hand from the start (hands or goals from decks), only the oracle tells whether the expert
    is the limit."""
    return mission.hand_numbers < 10 or mission.hand_goals < len(mission.goals)


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


# -- what the games say: the estimate ---------------------------------------------------------


@dataclass
class CountEstimate:
    """The ladder at one player count: its tables' games, the curve and what it reads."""

    players: int
    curve: Curve
    reading: Reading


@dataclass
class Estimate:
    """A mission's difficulty: the skill a table needs to win it (TARGET of its games), with
    the range its intervals allow, and the stars that skill earns; pooled over the player
    counts, and at each."""

    mission: Mission
    curve: PooledCurve
    reading: Reading
    by_count: dict[int, CountEstimate]
    #: the oracle's games per player count, where they were played (it sees every hand)
    ceiling: dict[int, Tally]
    #: the expert, not the mission, is the limit: the rating may be too high (see findings)
    limited_by_bot: bool
    findings: list[Finding]

    @property
    def skill(self) -> float | None:
        """The skill needed; None: not even the expert wins TARGET of its games."""
        return self.reading.skill

    @property
    def skill_low(self) -> float | None:
        return self.reading.skill_low

    @property
    def skill_high(self) -> float | None:
        return self.reading.skill_high

    @property
    def fewest(self) -> int:
        """The fewest stars the intervals allow; where the bot is the limit, any fewer."""
        return 1 if self.limited_by_bot else self.reading.fewest

    @property
    def most(self) -> int:
        return self.reading.most

    @property
    def stars(self) -> int:
        return self.reading.stars

    @property
    def fails_check(self) -> bool:
        """An unwinnable mission (or player count) or declared stars outside the estimate:
        what `playtest --check` fails on."""
        return any(f.fails_check for f in self.findings)

    @property
    def expert(self) -> Tally:
        """The ladder's top: the experts' own games, every player count."""
        total = Tally()
        for count, entry in self.by_count.items():
            total.add(_table(entry, count))
        return total

    @property
    def gap(self) -> float | None:
        """The oracle's win rate minus the expert's on the same deals, where it played."""
        if not self.ceiling:
            return None
        oracle, expert = Tally(), Tally()
        for count, tally in self.ceiling.items():
            oracle.add(tally)
            expert.add(_table(self.by_count[count], count))
        return oracle.win_rate - expert.win_rate

    def rungs(self, players: int | None = None) -> list[tuple[float, float, float, float]]:
        """(skill, win rate, low, high) at each rung, pooled or at one player count."""
        curve = self.curve if players is None else self.by_count[players].curve
        return [(s, curve.rate(s), *curve.bounds(s)) for s in RUNGS]

    def rate_at(self, players: int) -> Callable[[float], float]:
        """The win rate over skill at one player count (people's games are set against it)."""
        return self.by_count[players].curve.rate

    def counts_apart(self) -> list[CountEstimate]:
        """The player counts whose stars differ from the pooled rating by a star or more."""
        return [e for e in self.by_count.values() if e.reading.stars != self.reading.stars]


def _table(entry: CountEstimate, experts: int) -> Tally:
    curve = entry.curve
    return Tally(games=curve.games[experts], wins=curve.wins[experts])


def estimates(cells: Sequence[Cell]) -> list[Estimate]:
    """Per mission: the skill a table needs and its stars, and what looks wrong."""
    own: dict[str, list[Cell]] = {}
    missions: dict[str, Mission] = {}
    for cell in cells:
        missions[cell.mission.id] = cell.mission
        own.setdefault(cell.mission.id, []).append(cell)
    out = []
    for mission_id, mine in own.items():
        estimate = _estimate(missions[mission_id], mine)
        if estimate is not None:
            out.append(estimate)
    return out


def _estimate(mission: Mission, cells: list[Cell]) -> Estimate | None:
    ladder: dict[int, dict[int, Tally]] = {}
    ceiling: dict[int, Tally] = {}
    for cell in cells:
        if cell.experts is not None:
            ladder.setdefault(cell.player_count, {})[cell.experts] = cell.tally
        elif cell.bot == CEILING_BOT:
            ceiling[cell.player_count] = cell.tally
    if not ladder:
        return None
    by_count = {}
    for count in sorted(ladder):
        tables = [ladder[count].get(k, Tally()) for k in range(count + 1)]
        curve = Curve(count, [t.wins for t in tables], [t.games for t in tables])
        by_count[count] = CountEstimate(count, curve, read(curve))
    pooled = PooledCurve([e.curve for e in by_count.values()])
    reading = read(pooled)
    findings = _winnable(mission, cells)
    limited = False
    for count, entry in by_count.items():
        oracle = ceiling.get(count)
        top = _table(entry, count)
        if oracle is not None and oracle.games and top.games and \
                oracle.win_rate - top.win_rate > BOT_LIMIT:
            limited = True
            findings.append(Finding(Concern.LIMITED_BY_BOT, CEILING_BOT, players=count,
                                    games=oracle.games, win_rate=top.win_rate,
                                    other_rate=oracle.win_rate))
        for violation in entry.curve.violations():
            if violation.more == count:  # the experts below a table with fewer of them
                limited = True
                findings.append(Finding(Concern.LIMITED_BY_BOT, STAR_BOT, players=count,
                                        violation=violation))
            else:
                findings.append(Finding(Concern.NOT_MONOTONE, STAR_BOT, players=count,
                                        violation=violation))
    novices = Tally()
    for entry in by_count.values():
        novices.add(_table(entry, 0))
    if novices.games and novices.interval[0] >= TOO_EASY:
        findings.append(Finding(Concern.TOO_EASY, NOVICE, skill=0.0,
                                win_rate=novices.win_rate))
    if reading.skill is None and not limited:
        findings.append(Finding(Concern.BEYOND_EXPERT, STAR_BOT,
                                win_rate=_expert_rate(by_count)))
    estimate = Estimate(mission, pooled, reading, by_count, ceiling, limited, findings)
    fewest, most = estimate.fewest, estimate.most
    # Stars declared per player count are checked at each count; one number, pooled.
    if not mission.stars_per_count and not fewest <= mission.stars <= most:
        findings.append(Finding(Concern.STARS_DISAGREE, stars=(fewest, most)))
    for count, declared in sorted(mission.stars_per_count.items()):
        at = by_count.get(count)
        if at is None:
            continue
        low = 1 if limited else at.reading.fewest
        if not low <= declared <= at.reading.most:
            findings.append(Finding(Concern.STARS_DISAGREE, players=count,
                                    stars=(low, at.reading.most)))
    return estimate


def _expert_rate(by_count: dict[int, CountEstimate]) -> float:
    total = Tally()
    for count, entry in by_count.items():
        total.add(_table(entry, count))
    return total.win_rate


def _winnable(mission: Mission, cells: list[Cell]) -> list[Finding]:
    """Unwinnable, at all or at a player count: claimed only with the expert or the oracle in
    the run, and disproved by any bot's win (neither is exhaustive); each claim comes with the
    games that show its cause."""
    findings: list[Finding] = []
    by_count: dict[int, Tally] = {}
    experts: dict[int, Tally] = {}  # the experts' own table at each count
    ceiling: dict[int, Tally] = {}  # the oracle's games at each count
    oracle = Tally()
    by_bot: dict[str, Tally] = {}
    for cell in cells:
        by_count.setdefault(cell.player_count, Tally()).add(cell.tally)
        if cell.bot == CEILING_BOT:
            oracle.add(cell.tally)
        if cell.experts == cell.player_count:
            experts.setdefault(cell.player_count, Tally()).add(cell.tally)
        if cell.bot == CEILING_BOT:
            ceiling.setdefault(cell.player_count, Tally()).add(cell.tally)
        by_bot.setdefault(cell.label if cell.experts is None else cell.bot,
                          Tally()).add(cell.tally)
    # The strongest player's games show the cause: the oracle's where it played.
    name, best = (CEILING_BOT, ceiling) if oracle.games else (STAR_BOT, experts)
    top = Tally()
    for tally in best.values():
        top.add(tally)
    if not any(t.wins for t in by_count.values()):
        return [Finding(Concern.UNWINNABLE, name, top)]
    if oracle.games and not oracle.wins:
        winners = tuple((bot, t.wins) for bot, t in by_bot.items() if t.wins)
        findings.append(Finding(Concern.ORACLE_NEVER_WON, CEILING_BOT, oracle, winners=winners))
    for count, tally in sorted(by_count.items()):
        if tally.games and not tally.wins:
            findings.append(Finding(Concern.UNWINNABLE_AT, name, best.get(count, tally),
                                    players=count, games=tally.games))
    return findings


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


# -- a ladder grown batch by batch (the studio) -------------------------------------------------


@dataclass
class LadderTally:
    """One player count's games at every table of the ladder (and the oracle's beside its
    top where hands cannot be counted), growing batch by batch: the studio's estimate, which
    plays every table evenly, not knowing how long a page stays open."""

    players: int
    tables: dict[int, Tally] = field(default_factory=dict)
    ceiling: Tally | None = None

    def add(self, other: LadderTally) -> None:
        for experts, tally in other.tables.items():
            self.tables.setdefault(experts, Tally()).add(tally)
        if other.ceiling is not None:
            if self.ceiling is None:
                self.ceiling = Tally()
            self.ceiling.add(other.ceiling)

    @property
    def games(self) -> int:
        """Games per table."""
        return min((t.games for t in self.tables.values()), default=0)


def play_tables(mission: Mission, rulebook: Rulebook, colors: Sequence[str], players: int,
                seeds: Sequence[int]) -> LadderTally:
    """The same deals at every table of the ladder at one player count (and the oracle's,
    where it tells whether the expert is the limit)."""
    out = LadderTally(players, {k: play_batch(mission, rulebook, colors, players, STAR_BOT,
                                              seeds, experts=k) for k in range(players + 1)})
    if ceiling_needed(mission):
        out.ceiling = play_batch(mission, rulebook, colors, players, CEILING_BOT, seeds)
    return out


def estimate_from(mission: Mission, by_count: dict[int, LadderTally]) -> Estimate | None:
    """The estimate from each player count's ladder, as `playtest` makes it from its cells."""
    cells = [Cell(mission, count, STAR_BOT, tally, experts)
             for count, ladder in sorted(by_count.items())
             for experts, tally in sorted(ladder.tables.items())]
    cells += [Cell(mission, count, CEILING_BOT, ladder.ceiling)
              for count, ladder in sorted(by_count.items()) if ladder.ceiling is not None]
    return _estimate(mission, cells) if cells else None
