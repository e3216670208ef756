"""Playtesting: many seeded games per mission, player count and bot, and what they say.

The same seeds deal the same hands to every bot (a paired comparison), and every game's seed
is derived from the base seed, the mission and the game's index, so results do not depend on
how the work is split between processes.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from synergy_forge.core.engine import Game
from synergy_forge.core.mission import Mission
from synergy_forge.core.rules import Rulebook
from synergy_forge.sim.executors import Executor, LocalPool
from synergy_forge.sim.play import play

#: Coop win rate -> stars: a rate at or above the bound earns that many stars
#: (calibrated on the starter campaign, docs/difficulty.md).
STAR_BANDS: tuple[tuple[float, int], ...] = ((0.50, 1), (0.36, 2), (0.24, 3), (0.10, 4),
                                             (0.0, 5))
STAR_BOT = "coop"
TOO_EASY = 0.97  # the lower bound of the coop win rate above which a mission is too easy
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


def stars_for(rate: float) -> int:
    for bound, stars in STAR_BANDS:
        if rate >= bound:
            return stars
    return STAR_BANDS[-1][1]


def star_range(low: float, high: float) -> tuple[int, int]:
    """The stars an interval of win rates spans (a higher rate means fewer stars)."""
    return stars_for(high), stars_for(low)


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
    losses: Counter = field(default_factory=Counter)  # reason -> games
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
               bot: str, seeds: Sequence[int]) -> Tally:
    tally = Tally()
    for seed in seeds:
        game = Game(mission, player_count, seed, rulebook, colors)
        play(game, [bot] * player_count)
        outcome = game.outcome
        assert outcome is not None
        tally.games += 1
        tally.wins += outcome.won
        tally.rounds_won += outcome.rounds_won
        tally.rounds_played += outcome.rounds_played
        tally.lives_lost += mission.lives - outcome.lives
        if not outcome.won:
            tally.losses[str(outcome.reason)] += 1
        for record in game.history:
            verdict = record.verdict
            for i, goal in enumerate(verdict.goals):
                if verdict.counted[i]:
                    tally.goals_played[goal] += 1
                    tally.goals_met[goal] += verdict.met[i]
    return tally


#: Why a game was lost (LossReason values), in a few words for reports.
LOSS_LABELS = {"lives": "lives", "challenge": "a challenge not kept", "numbers": "number cards",
               "goals": "goal cards", "hyper": "the hyper card"}
#: The same as the end of a sentence: "the games ended when ...".
LOSS_CAUSES = {"lives": "the last life was lost", "challenge": "a player could not keep a "
               "challenge", "numbers": "a player had fewer than two number cards",
               "goals": "a player ran out of goal cards", "hyper": "the hyper card's holder "
               "missed its goal"}


def loss_shares(tally: Tally) -> list[tuple[str, float]]:
    """(reason, share of the lost games), the commonest first."""
    lost = tally.games - tally.wins
    if not lost:
        return []
    return sorted(((reason, count / lost) for reason, count in tally.losses.items()),
                  key=lambda item: (-item[1], item[0]))


def why_lost(tally: Tally, mission: Mission, who: str) -> str:
    """What the figures say about how `who`'s games were lost: the commonest ends with their
    shares, the rounds won and lives left on average, and for goal cards the R23 arithmetic."""
    shares = loss_shares(tally)
    if not shares or not tally.games:
        return ""
    ends = ", ".join(f"{LOSS_CAUSES.get(reason, reason)} ({share:.0%})"
                     for reason, share in shares[:2])
    rounds = tally.rounds_won / tally.games
    lives = mission.lives - tally.lives_lost / tally.games
    text = (f"{who} games ended when {ends}, after {rounds:.1f} of {mission.rounds} rounds won "
            f"with {lives:.1f} of {mission.lives} lives left on average")
    if shares[0][0] == "goals":
        deck, spare = len(mission.goals), len(mission.goals) - mission.rounds
        room = "no failed round" if spare <= 0 else \
            f"room for {spare} failed round{'s' if spare > 1 else ''}"
        text += (f": a {deck}-card goal deck with {mission.rounds} rounds to win leaves {room}"
                 " (R23)")
    elif shares[0][0] == "challenge":
        text += ": a player was left with no card that keeps the challenges (R9)"
    elif shares[0][0] == "numbers":
        text += f": a hand of {mission.hand_numbers} number cards runs short (R21)"
    return text


def _cause(tally: Tally, mission: Mission, who: str) -> str:
    text = why_lost(tally, mission, who)
    return f"; {text}" if text else ""


@dataclass(frozen=True)
class Playable:
    """A mission with what it is played with: its campaign's rulebook and colours."""

    mission: Mission
    rulebook: Rulebook
    colors: tuple[str, ...]


def _work(playables: Sequence[Playable], index: int, player_count: int, bot: str,
          seeds: tuple[int, ...]) -> Tally:
    # Runs in a worker: `playables` arrived once per worker, with the executor.
    subject = playables[index]
    return play_batch(subject.mission, subject.rulebook, subject.colors, player_count, bot,
                      seeds)


@dataclass
class Cell:
    mission: Mission
    player_count: int
    bot: str
    tally: Tally


@dataclass
class Estimate:
    """A mission's difficulty from the coop bot, all player counts pooled."""

    mission: Mission
    rate: float
    low: float
    high: float
    fewest: int
    most: int
    gap: float | None  # oracle win rate minus coop win rate
    warnings: list[str]
    #: An unwinnable mission (or player count) or declared stars outside the estimate:
    #: what `playtest --check` fails on.
    fails_check: bool = False


def run(playables: Sequence[Playable], bots: Sequence[str],
        player_counts: Sequence[int] | None, games: int, seed: int, jobs: int | None = None,
        progress: Callable[[int], None] | None = None, chunk: int | None = None,
        executor: Executor | None = None) -> list[Cell]:
    """Play every mission x player count x bot; returns one cell each, in a fixed order.

    The work runs on `executor` (default: the local pool with `jobs` workers). Every unit
    carries its games' seeds, and tallies are added in the units' order, so the cells are the
    same on one process, any number of local workers or any cluster.
    """
    executor = executor or LocalPool(jobs)
    chunk = chunk or executor.unit_games
    units: list[tuple[int, int, str, tuple[int, ...]]] = []
    cells: dict[tuple[int, int, str], Cell] = {}
    for index, subject in enumerate(playables):
        mission = subject.mission
        counts = [p for p in (player_counts or mission.players) if p in mission.players]
        for count in counts:
            seeds = [game_seed(seed, mission.id, count, i) for i in range(games)]
            for bot in bots:
                cells[(index, count, bot)] = Cell(mission, count, bot, Tally())
                for start in range(0, games, chunk):
                    units.append((index, count, bot, tuple(seeds[start:start + chunk])))
    results: list[Tally | None] = [None] * len(units)
    # Workers get the missions as values: no file name (a worker reads nothing).
    shared = tuple(replace(p, mission=replace(p.mission, source="")) for p in playables)
    for number, tally in executor.map(_work, shared, units):
        results[number] = tally
        if progress:
            progress(len(units[number][3]))
    for (index, count, bot, _), tally in zip(units, results, strict=True):
        assert tally is not None, "an executor finished without every unit's result"
        cells[(index, count, bot)].tally.add(tally)
    return list(cells.values())


def estimates(cells: Sequence[Cell]) -> list[Estimate]:
    """Per mission: the stars the coop bot's win rate suggests, and what looks wrong."""
    by_mission: dict[str, dict[str, Tally]] = {}
    by_count: dict[str, dict[int, Tally]] = {}  # every bot's games at each player count
    oracle_at: dict[tuple[str, int], Tally] = {}  # the oracle's games at each player count
    missions: dict[str, Mission] = {}
    for cell in cells:
        missions[cell.mission.id] = cell.mission
        by_mission.setdefault(cell.mission.id, {}).setdefault(cell.bot, Tally()).add(cell.tally)
        by_count.setdefault(cell.mission.id, {}).setdefault(cell.player_count, Tally()).add(
            cell.tally)
        if cell.bot == "oracle":
            oracle_at.setdefault((cell.mission.id, cell.player_count), Tally()).add(cell.tally)
    out = []
    for mission_id, tallies in by_mission.items():
        mission = missions[mission_id]
        warnings = []
        fails = False
        oracle = tallies.get("oracle")
        if oracle is not None and oracle.games:
            # Only claimed with the oracle in the run; any bot's win disproves it (the oracle
            # searches, it is not exhaustive).
            # Each claim comes with the cause the figures show, not a guess.
            if not any(t.wins for t in tallies.values()):
                warnings.append("unwinnable: no bot won, not even the oracle, which sees "
                                f"every hand{_cause(oracle, mission, 'its')}")
                fails = True
            elif not oracle.wins:
                winners = ", ".join(f"{bot} {t.wins}" for bot, t in tallies.items() if t.wins)
                warnings.append(f"the oracle never won, though other bots did ({winners} "
                                f"games){_cause(oracle, mission, 'its')}")
            if any(t.wins for t in tallies.values()):
                for player_count, tally in sorted(by_count[mission_id].items()):
                    if tally.games and not tally.wins:
                        there = oracle_at.get((mission_id, player_count), tally)
                        warnings.append(f"unwinnable at {player_count} players: no bot won any of "
                                        f"its {tally.games} games there, not even the oracle"
                                        f"{_cause(there, mission, 'the oracle')}")
                        fails = True
        coop = tallies.get(STAR_BOT)
        if coop is None or not coop.games:
            continue
        low, high = coop.interval
        fewest, most = star_range(low, high)
        if low >= TOO_EASY:
            warnings.append(f"too easy to be worth a card: the {STAR_BOT} bot wins "
                            f"{coop.win_rate:.0%} of games")
        if not fewest <= mission.stars <= most:
            warnings.append(f"declared {mission.stars} star{'s' if mission.stars > 1 else ''}, "
                            f"estimated {describe_stars(fewest, most)}")
            fails = True
        gap = oracle.win_rate - coop.win_rate if oracle is not None and oracle.games else None
        out.append(Estimate(mission, coop.win_rate, low, high, fewest, most, gap, warnings,
                            fails))
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
    """How many games `playtest` plays (for a progress bar)."""
    return sum(games * len(bots) * len([p for p in (player_counts or s.mission.players)
                                        if p in s.mission.players]) for s in playables)
