"""Playtesting: many seeded games per mission, player count and bot, and what they say.

The same seeds deal the same hands to every bot (a paired comparison), and every game's seed
is derived from the base seed, the mission and the game's index, so results do not depend on
how the work is split between processes.

The difficulty (docs/difficulty.md) is the skill a table needs: the expert bot is played at
the levels of a skill ladder (`LADDER`: how often a seat follows the table's plan instead of a
casual move), from the top down, and the skill needed is the lowest from which the table wins
at least `TARGET` of its games at every level above (interpolated between the two levels
around it). Levels below the first one clearly under `TARGET` cannot change it and are not
played. Stars come from that skill (`SKILL_BANDS`).
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from synergy_forge.core.engine import Game
from synergy_forge.core.mission import MOST_STARS, Mission
from synergy_forge.core.referee import LossReason
from synergy_forge.core.rules import Rulebook
from synergy_forge.sim.bots import SeatMemories
from synergy_forge.sim.executors import Executor, LocalPool
from synergy_forge.sim.play import play

#: The bot whose skill ladder gives the stars, and the ladder: how often a seat follows the
#: table's plan instead of a casual move (sim.expert), from careless to expert.
STAR_BOT = "expert"
LADDER: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)
#: A table of some skill "wins" a mission when it wins at least this share of its games.
TARGET = 0.5
#: Skill needed -> stars: a skill below the bound earns that many stars; any more, or a
#: mission that not even the expert wins TARGET of the time, 5 (docs/difficulty.md).
SKILL_BANDS: tuple[tuple[float, int], ...] = ((0.2, 1), (0.4, 2), (0.6, 3), (0.8, 4))
#: Win rates of the careless table (the ladder's bottom) above which a mission is too easy.
TOO_EASY = 0.97
Z95 = 1.959963984540054


def wilson(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95% by default)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denominator = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denominator
    low = 0.0 if wins == 0 else max(0.0, centre - half)
    high = 1.0 if wins == games else min(1.0, centre + half)
    return low, high


def stars_for(skill: float | None) -> int:
    """The stars of a mission that needs `skill` (None: not even the expert wins it)."""
    if skill is None:
        return MOST_STARS
    for bound, stars in SKILL_BANDS:
        if skill < bound:
            return stars
    return MOST_STARS


def skill_needed(points: Sequence[tuple[float, float]], target: float = TARGET) -> float | None:
    """The lowest skill from which a table wins at least `target` at every level above.

    `points` are (skill, win rate) of the ladder levels played, lowest skill first, ending at
    the ladder's top; a level below the lowest one played counts as failing unless that one is
    the ladder's bottom. Between the last failing level and the first passing one the skill is
    interpolated on a straight line, so that a rate a little higher gives a skill a little
    lower: it never rises when any rate rises. None when the top level itself fails.
    """
    first = None  # the index of the lowest level from which every level passes
    for i in range(len(points) - 1, -1, -1):
        if points[i][1] < target:
            break
        first = i
    if first is None:
        return None
    if first == 0:  # the lowest level played passes: the walk reached the ladder's bottom
        return points[0][0]
    (s0, r0), (s1, r1) = points[first - 1], points[first]
    return s0 + (s1 - s0) * (target - r0) / (r1 - r0)


def star_range(low: float | None, high: float | None) -> tuple[int, int]:
    """The stars a range of skills needed spans (`low` from the rates' upper bounds, `high`
    from their lower bounds)."""
    return stars_for(low), stars_for(high)


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
               bot: str, seeds: Sequence[int], skill: float | None = None) -> Tally:
    tally = Tally()
    memories = SeatMemories()  # the bots' own, kept across this batch's games
    for seed in seeds:
        game = Game(mission, player_count, seed, rulebook, colors)
        play(game, [bot] * player_count, skill=skill, memories=memories)
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
    TOO_EASY = "too-easy"  # the careless table (the ladder's bottom) wins nearly always
    BEYOND_EXPERT = "beyond-expert"  # not even the expert wins TARGET of its games
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


def _work(playables: Sequence[Playable], index: int, player_count: int, bot: str,
          skill: float | None, seeds: tuple[int, ...]) -> Tally:
    # Runs in a worker: `playables` arrived once per worker, with the executor.
    subject = playables[index]
    return play_batch(subject.mission, subject.rulebook, subject.colors, player_count, bot,
                      seeds, skill)


@dataclass
class Cell:
    mission: Mission
    player_count: int
    bot: str
    tally: Tally
    #: the skill level the bot played at (the estimate's ladder), None for a plain bot
    skill: float | None = None

    @property
    def label(self) -> str:
        """The bot as reports name it: "expert" at the ladder's top, "expert@0.5" below."""
        if self.skill is None or self.skill >= LADDER[-1]:
            return self.bot
        return f"{self.bot}@{self.skill:g}"


@dataclass
class Level:
    """One level of the skill ladder: its games at every player count, and pooled."""

    skill: float
    tally: Tally
    by_count: dict[int, Tally]


@dataclass
class Estimate:
    """A mission's difficulty: the skill a table needs to win it (TARGET of its games), with
    the range its intervals allow, and the stars that skill earns."""

    mission: Mission
    #: the skill needed; None: not even the expert wins TARGET of its games
    skill: float | None
    #: the range of skills needed the 95% intervals allow (from the rates' upper bounds, from
    #: their lower bounds)
    skill_low: float | None
    skill_high: float | None
    fewest: int
    most: int
    #: the ladder's levels played, lowest skill first (the expert's own last)
    levels: list[Level]
    gap: float | None  # oracle win rate minus the expert's
    findings: list[Finding]

    @property
    def fails_check(self) -> bool:
        """An unwinnable mission (or player count) or declared stars outside the estimate:
        what `playtest --check` fails on."""
        return any(f.fails_check for f in self.findings)

    @property
    def stars(self) -> int:
        return stars_for(self.skill)

    @property
    def expert(self) -> Tally:
        """The ladder's top: the expert's own games."""
        return self.levels[-1].tally


def run(playables: Sequence[Playable], bots: Sequence[str],
        player_counts: Sequence[int] | None, games: int, seed: int, jobs: int | None = None,
        progress: Callable[[int], None] | None = None, chunk: int | None = None,
        executor: Executor | None = None, ladder: Sequence[float] = LADDER,
        walk: bool = True) -> list[Cell]:
    """Play every mission x player count x bot; returns one cell each, in a fixed order.

    STAR_BOT among `bots` is played on the skill ladder, from the top down: after each level,
    a mission whose win rate (all its player counts pooled) is clearly under TARGET stops
    there, since no lower level can change the skill it needs (`skill_needed`). Not `walk`:
    every level is played (to fit people's games to the ladder, sim.calibration).

    The work runs on `executor` (default: the local pool with `jobs` workers). Every unit
    carries its games' seeds, and tallies are added in the units' order, so the cells are the
    same on one process, any number of local workers or any cluster.
    """
    executor = executor or LocalPool(jobs)
    chunk = chunk or executor.unit_games
    counts = [[p for p in (player_counts or s.mission.players) if p in s.mission.players]
              for s in playables]
    seeds = {(index, count): [game_seed(seed, s.mission.id, count, i) for i in range(games)]
             for index, s in enumerate(playables) for count in counts[index]}
    cells: dict[tuple[int, int, str, float | None], Cell] = {}
    # Workers get the missions as values: no file name (a worker reads nothing).
    shared = tuple(replace(p, mission=replace(p.mission, source="")) for p in playables)

    def batch(specs: list[tuple[int, str, float | None]]) -> None:
        units: list[tuple[int, int, str, float | None, tuple[int, ...]]] = []
        for index, bot, skill in specs:
            for count in counts[index]:
                cells[(index, count, bot, skill)] = Cell(playables[index].mission, count, bot,
                                                         Tally(), skill)
                dealt = seeds[(index, count)]
                for start in range(0, games, chunk):
                    units.append((index, count, bot, skill, tuple(dealt[start:start + chunk])))
        results: list[Tally | None] = [None] * len(units)
        for number, tally in session.run(units):
            results[number] = tally
            if progress:
                progress(len(units[number][4]))
        for (index, count, bot, skill, _), tally in zip(units, results, strict=True):
            assert tally is not None, "an executor finished without every unit's result"
            cells[(index, count, bot, skill)].tally.add(tally)

    missions = range(len(playables))
    climbing = [i for i in missions if counts[i]] if STAR_BOT in bots else []
    with executor.session(_work, shared) as session:
        batch([(i, bot, None) for i in missions for bot in bots if bot != STAR_BOT] +
              [(i, STAR_BOT, ladder[-1]) for i in climbing])
        for level in range(len(ladder) - 1, 0, -1):
            going_on = []
            for i in climbing:
                pooled = Tally()
                for count in counts[i]:
                    pooled.add(cells[(i, count, STAR_BOT, ladder[level])].tally)
                if walk and pooled.interval[1] < TARGET:
                    if progress:  # the levels it will not play
                        progress(games * len(counts[i]) * level)
                else:
                    going_on.append(i)
            climbing = going_on
            if not climbing:
                break
            batch([(i, STAR_BOT, ladder[level - 1]) for i in climbing])
    order = {bot: n for n, bot in enumerate(bots)}
    return [cells[key] for key in sorted(cells, key=lambda k: (
        k[0], k[1], order[k[2]], -(k[3] if k[3] is not None else 0.0)))]


def _levels(cells: Sequence[Cell]) -> list[Level]:
    """The ladder's levels among `cells` (one mission's), lowest skill first."""
    levels: dict[float, Level] = {}
    for cell in cells:
        if cell.bot == STAR_BOT and cell.skill is not None:
            level = levels.setdefault(cell.skill, Level(cell.skill, Tally(), {}))
            level.tally.add(cell.tally)
            level.by_count.setdefault(cell.player_count, Tally()).add(cell.tally)
    return [levels[s] for s in sorted(levels)]


@dataclass
class LadderTally:
    """One player count's games at every level of the ladder, growing batch by batch (the
    studio's estimate, which plays every level: it does not know in advance how many games)."""

    levels: dict[float, Tally] = field(default_factory=lambda: {s: Tally() for s in LADDER})

    def add(self, other: LadderTally) -> None:
        for skill, tally in other.levels.items():
            self.levels.setdefault(skill, Tally()).add(tally)

    @property
    def games(self) -> int:
        """Games per level."""
        return max((t.games for t in self.levels.values()), default=0)


def play_ladder(mission: Mission, rulebook: Rulebook, colors: Sequence[str], player_count: int,
                seeds: Sequence[int]) -> LadderTally:
    """The same deals at every level of the ladder."""
    return LadderTally({skill: play_batch(mission, rulebook, colors, player_count, STAR_BOT,
                                          seeds, skill) for skill in LADDER})


def ladder_levels(by_count: dict[int, LadderTally]) -> list[Level]:
    """Levels, lowest skill first, from each player count's ladder."""
    levels: dict[float, Level] = {}
    for count in sorted(by_count):
        for skill, tally in by_count[count].levels.items():
            level = levels.setdefault(skill, Level(skill, Tally(), {}))
            level.tally.add(tally)
            level.by_count.setdefault(count, Tally()).add(tally)
    return [levels[s] for s in sorted(levels)]


def estimate_of(levels: list[Level]) -> tuple[float | None, float | None, float | None]:
    """(skill needed, its lowest, its highest within the 95% intervals) from the levels."""
    return (skill_needed([(lv.skill, lv.tally.win_rate) for lv in levels]),
            skill_needed([(lv.skill, lv.tally.interval[1]) for lv in levels]),
            skill_needed([(lv.skill, lv.tally.interval[0]) for lv in levels]))


def estimates(cells: Sequence[Cell]) -> list[Estimate]:
    """Per mission: the skill a table needs and its stars, and what looks wrong."""
    by_mission: dict[str, dict[str, Tally]] = {}  # per bot, its top level for the expert
    by_count: dict[str, dict[int, Tally]] = {}  # every bot's games at each player count
    ceiling_at: dict[tuple[str, int], Tally] = {}  # the best player's games at each count
    own: dict[str, list[Cell]] = {}
    missions: dict[str, Mission] = {}
    for cell in cells:
        mid = cell.mission.id
        missions[mid] = cell.mission
        own.setdefault(mid, []).append(cell)
        by_count.setdefault(mid, {}).setdefault(cell.player_count, Tally()).add(cell.tally)
        if cell.skill is not None and cell.skill < LADDER[-1]:
            continue
        by_mission.setdefault(mid, {}).setdefault(cell.bot, Tally()).add(cell.tally)
        if cell.bot in ("oracle", STAR_BOT):
            ceiling_at.setdefault((mid, cell.player_count), Tally()).add(cell.tally)
    out = []
    for mission_id, tallies in by_mission.items():
        mission = missions[mission_id]
        findings = []
        oracle = tallies.get("oracle")
        best = oracle if oracle is not None and oracle.games else tallies.get(STAR_BOT)
        name = "oracle" if best is oracle else STAR_BOT
        if best is not None and best.games:
            # Only claimed with the oracle or the expert in the run; any bot's win disproves
            # it (neither is exhaustive). Each claim comes with the games that show its cause.
            if not any(t.wins for t in by_count[mission_id].values()):
                findings.append(Finding(Concern.UNWINNABLE, name, best))
            else:
                if oracle is not None and oracle.games and not oracle.wins:
                    winners = tuple((bot, t.wins) for bot, t in tallies.items() if t.wins)
                    findings.append(Finding(Concern.ORACLE_NEVER_WON, "oracle", oracle,
                                            winners=winners))
                for player_count, tally in sorted(by_count[mission_id].items()):
                    if tally.games and not tally.wins:
                        there = ceiling_at.get((mission_id, player_count), tally)
                        findings.append(Finding(Concern.UNWINNABLE_AT, name, there,
                                                players=player_count, games=tally.games))
        levels = _levels(own[mission_id])
        if not levels:
            continue
        skill, skill_low, skill_high = estimate_of(levels)
        fewest, most = star_range(skill_low, skill_high)
        bottom = levels[0]
        if bottom.skill <= LADDER[0] and bottom.tally.interval[0] >= TOO_EASY:
            findings.append(Finding(Concern.TOO_EASY, STAR_BOT, skill=bottom.skill,
                                    win_rate=bottom.tally.win_rate))
        if skill is None:
            findings.append(Finding(Concern.BEYOND_EXPERT, STAR_BOT,
                                    win_rate=levels[-1].tally.win_rate))
        if not fewest <= mission.stars <= most:
            findings.append(Finding(Concern.STARS_DISAGREE, stars=(fewest, most)))
        top = levels[-1].tally
        gap = oracle.win_rate - top.win_rate if oracle is not None and oracle.games else None
        out.append(Estimate(mission, skill, skill_low, skill_high, fewest, most, levels, gap,
                            findings))
    return out


@dataclass(frozen=True)
class PlaytestResult:
    """What a playtest found: one cell per mission x player count x bot, in a fixed order,
    and one estimate per mission the star bot played."""

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


def games_to_play(playables: Sequence[Playable], bots: Sequence[str],
                  player_counts: Sequence[int] | None, games: int) -> int:
    """How many games `playtest` plays at most (for a progress bar: `run` reports the ladder
    levels it skips as played)."""
    plays = len(bots) + (len(LADDER) - 1 if STAR_BOT in bots else 0)
    return sum(games * plays * len([p for p in (player_counts or s.mission.players)
                                    if p in s.mission.players]) for s in playables)
