"""Calibration against people (`playtest [CAMPAIGN] --human LOG...`): people's games from
logs set against the skill ladder of every mission of the campaign, through one model of
people across missions (sim.people).

The games come from logs (`play --log`, the browser table), replayed by the caller: here each
is a mission, a player count, how many seats people played and whether it was won. Per
mission and player count the expert is played at every level of the skill ladder on the same
seeds as `playtest`; between levels the win rate is taken on a straight line, and that curve
is what the model reads (any Callable[[float], float] would do).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from synergy_forge.core.mission import Mission
from synergy_forge.core.playhash import PlayChange, play_hash
from synergy_forge.core.rules import Rulebook
from synergy_forge.sim.executors import Executor
from synergy_forge.sim.people import Cell, Curve, Discrepancy, PeopleFit, Prediction, fit
from synergy_forge.sim.playtest import LADDER, STAR_BOT, Playable, Tally, run

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


def curve(points: Sequence[tuple[float, float]]) -> Curve:
    """Win rate at any skill, on straight lines between (skill, rate) points, flat beyond."""
    ordered = sorted(points)

    def rate(skill: float) -> float:
        if skill <= ordered[0][0]:
            return ordered[0][1]
        for (s0, r0), (s1, r1) in itertools.pairwise(ordered):
            if skill <= s1:
                return r0 + (r1 - r0) * (skill - s0) / (s1 - s0)
        return ordered[-1][1]
    return rate


@dataclass
class Row:
    """One mission at one player count: its ladder there, people's games there and the
    model's prediction."""

    key: str
    mission: Mission
    players: int
    in_campaign: bool
    levels: list[tuple[float, Tally]]  # the ladder at this count, lowest skill first
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
        """The missions and player counts whose games would teach the most, first."""
        order = {(p.mission, p.players): n for n, p in enumerate(self.model.next(count))}
        return sorted((r for r in self.rows if (r.key, r.players) in order),
                      key=lambda r: order[(r.key, r.players)])


def calibrate(played: Sequence[PlayedGame], campaign: Sequence[Playable], games: int,
              seed: int, executor: Executor | None = None,
              progress: Callable[[int], None] | None = None) -> Calibration:
    """Every mission of `campaign` at each of its player counts, and every other mission
    people played at the counts they played it (`played`: games without a person count for
    nothing; another mission is one the campaign changed since, or does not have), on the
    ladder with
    `games` seeded games per level (the seeds `playtest --seed` uses); then the model."""
    subjects: dict[str, tuple[Playable, bool]] = {p.mission.id: (p, True) for p in campaign}
    others: dict[int, list[Playable]] = {}  # missions not the campaign's, at the counts played
    for game in played:
        if game.people and game.key not in subjects:
            subjects[game.key] = (Playable(game.mission, game.rulebook, game.colors), False)
        if game.people and not subjects[game.key][1] and \
                subjects[game.key][0] not in others.setdefault(game.players, []):
            others[game.players].append(subjects[game.key][0])
    cells = run(list(campaign), [STAR_BOT], None, games, seed, progress=progress,
                executor=executor, walk=False)
    for count, playables in sorted(others.items()):
        cells += run(playables, [STAR_BOT], [count], games, seed, progress=progress,
                     executor=executor, walk=False)
    by_mission = {id(playable.mission): k for k, (playable, _) in subjects.items()}
    rows: dict[tuple[str, int], Row] = {}
    for cell in cells:
        assert cell.skill is not None
        key = by_mission[id(cell.mission)]
        row = rows.setdefault((key, cell.player_count), Row(
            key, cell.mission, cell.player_count, subjects[key][1], []))
        row.levels.append((cell.skill, cell.tally))
    for game in played:
        if game.people and (game.key, game.players) in rows:
            row = rows[(game.key, game.players)]
            row.games += 1
            row.wins += game.won
            row.people_seats += game.people
            row.sources.append(game.source)
    ordered = sorted(rows.values(), key=lambda r: (not r.in_campaign, r.mission.number,
                                                   r.key, r.players))
    for row in ordered:
        row.levels.sort(key=lambda level: level[0])
    model = fit([Cell(r.key, r.players, curve([(s, t.win_rate) for s, t in r.levels]),
                      r.games, r.wins) for r in ordered])
    for row, prediction in zip(ordered, model.predictions, strict=True):
        row.prediction = prediction
    return Calibration(model, ordered)


def games_to_play(played: Sequence[PlayedGame], campaign: Sequence[Playable],
                  games: int) -> int:
    """How many games `calibrate` plays (for its progress)."""
    known = {p.mission.id for p in campaign}
    others = {(g.key, g.players) for g in played if g.people and g.key not in known}
    return games * len(LADDER) * (sum(len(p.mission.players) for p in campaign) + len(others))
