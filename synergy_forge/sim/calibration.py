"""Calibration against people (`playtest [CAMPAIGN] --human LOG...`): people's games from
logs set against the skill ladder of every mission of the campaign, through one model of
people across missions (sim.people).

The games come from logs (`play --log`, the browser table), replayed by the caller: here each
is a mission, a player count, how many seats people played and whether it was won. Per
mission and player count the ladder is played on the same seeds as `playtest` (every table
of it, sim.ladder), which gives its win rate at any skill: that curve is all the model reads
(any Callable[[float], float] would do).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from synergy_forge.core.mission import Mission
from synergy_forge.core.playhash import PlayChange, play_hash
from synergy_forge.core.rules import Rulebook
from synergy_forge.sim.executors import Executor
from synergy_forge.sim.people import Cell, Discrepancy, PeopleFit, Prediction, fit
from synergy_forge.sim.playtest import STAR_BOT, CountEstimate, Playable, estimates, run
from synergy_forge.sim.playtest import games_to_play as ladder_games

#: The names a log gives a seat that a person played (the table writes "person").
PEOPLE = frozenset({"person", "human"})


@dataclass(frozen=True)
class PlayedGame:
    """One game from a log: what was played, by how many people, and whether it was won;
    `known`, the campaign's mission of its id (None: none), and `changes`, how the mission
    played otherwise than that one (empty: it played alike, and `mission` is the campaign's)."""

    mission: Mission
    rulebook: Rulebook
    colors: tuple[str, ...]
    players: int
    people: int  # seats played by people
    won: bool
    source: str
    known: Mission | None = None
    changes: tuple[PlayChange, ...] = ()

    @property
    def key(self) -> str:
        """The mission the game counts for: a campaign's mission by its id, any other (a
        mission the campaign changed since, or does not have) by its id and content hash
        (core.playhash: a re-rated or re-titled mission is the same, a changed one another)."""
        if self.known is not None and not self.changes:
            return self.mission.id
        return f"{self.mission.id}@{play_hash(self.mission, self.rulebook)}"


@dataclass
class Row:
    """One mission at one player count: its ladder there, people's games there and the
    model's prediction."""

    key: str
    mission: Mission
    players: int
    in_campaign: bool
    ladder: CountEstimate  # its curve, tables and reading at this player count
    games: int = 0
    wins: int = 0
    people_seats: int = 0  # every game's seats played by people, added up
    sources: list[str] = field(default_factory=list)
    prediction: Prediction | None = None


@dataclass
class Calibration:
    """The model fitted to people's games, by mission and player count."""

    model: PeopleFit
    rows: list[Row]  # the campaign's missions by number and player count, then the others

    def mission(self, key: str) -> Mission:
        return next(r.mission for r in self.rows if r.key == key)

    def discrepancies(self) -> list[tuple[Mission, Discrepancy]]:
        return [(self.mission(d.mission), d) for d in self.model.discrepancies]

    def next(self, count: int = 5) -> list[Row]:
        """The missions whose games would teach the most, first, each at its best count."""
        order = {(p.mission, p.players): n for n, p in enumerate(self.model.next(count))}
        return sorted((r for r in self.rows if (r.key, r.players) in order),
                      key=lambda r: order[(r.key, r.players)])


def calibrate(played: Sequence[PlayedGame], campaign: Sequence[Playable], games: int,
              seed: int, executor: Executor | None = None,
              progress: Callable[[int], None] | None = None) -> Calibration:
    """Every mission of `campaign` at each of its player counts, and every other mission
    people played at the counts they played it (`played`: games without a person count for
    nothing; another mission is one the campaign changed since, or does not have), on the
    ladder with `games` seeded games to start (the seeds `playtest --seed` uses); then the
    model."""
    found: dict[tuple[str, int], CountEstimate] = {}
    for estimate in estimates(run(list(campaign), [STAR_BOT], None, games, seed,
                                  progress=progress, executor=executor, walk=False)):
        for count, ladder in estimate.by_count.items():
            found[(estimate.mission.id, count)] = ladder
    subjects = {p.mission.id: (p.mission, True) for p in campaign}
    for key, count, playable in _others(played, campaign):
        # Alone: another version of a campaign's mission has its id, which estimates join by.
        (estimate,) = estimates(run([playable], [STAR_BOT], [count], games, seed,
                                    progress=progress, executor=executor, walk=False))
        found[(key, count)] = estimate.by_count[count]
        subjects[key] = (playable.mission, False)
    rows = {(key, count): Row(key, subjects[key][0], count, subjects[key][1], ladder)
            for (key, count), ladder in found.items()}
    for game in played:
        if game.people and (game.key, game.players) in rows:
            row = rows[(game.key, game.players)]
            row.games += 1
            row.wins += game.won
            row.people_seats += game.people
            row.sources.append(game.source)
    ordered = sorted(rows.values(), key=lambda r: (not r.in_campaign, r.mission.number,
                                                   r.key, r.players))
    model = fit([Cell(r.key, r.players, r.ladder.curve.rate, r.games, r.wins)
                 for r in ordered])
    for row, prediction in zip(ordered, model.predictions, strict=True):
        row.prediction = prediction
    return Calibration(model, ordered)


def _others(played: Sequence[PlayedGame], campaign: Sequence[Playable]
            ) -> list[tuple[str, int, Playable]]:
    """The missions people played that are not the campaign's, each at each count played."""
    known = {p.mission.id for p in campaign}
    found: dict[tuple[str, int], Playable] = {}
    for game in played:
        if game.people and game.key not in known:
            found.setdefault((game.key, game.players),
                             Playable(game.mission, game.rulebook, game.colors))
    return [(key, count, playable) for (key, count), playable in found.items()]


def games_to_play(played: Sequence[PlayedGame], campaign: Sequence[Playable],
                  games: int) -> int:
    """How many games `calibrate` plays at most (for its progress)."""
    return ladder_games(list(campaign), [STAR_BOT], None, games) + sum(
        ladder_games([playable], [STAR_BOT], [count], games)
        for _, count, playable in _others(played, campaign))
