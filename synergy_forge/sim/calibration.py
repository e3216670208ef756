"""Calibration against people: how often people won a mission, beside the estimate, and the
skill on the ladder that best explains their games (`playtest --human LOG...`).

The games come from logs (`play --log`, the browser table), replayed by the caller: here each
is a mission, a player count, how many seats people played and whether it was won. Per
mission and player count, the skill ladder is played on the same seeds as `playtest` (every
table of it, sim.ladder), giving the win rate at any skill. The skill that best explains the
people's games is the one under which their wins and losses are most likely (maximum
likelihood on a grid of skills), and its range the skills whose likelihood is within a factor
LIKELIHOOD_RANGE of the best (about a 95% range). People who win less often than a table of
novices (or more often than the experts) are beyond the ladder: the likelihood is best at its
end, and that is all it can say.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from synergy_forge.core.mission import Mission
from synergy_forge.core.playhash import PlayChange, play_hash
from synergy_forge.core.rules import Rulebook
from synergy_forge.sim.executors import Executor
from synergy_forge.sim.ladder import wilson
from synergy_forge.sim.playtest import (
    STAR_BOT,
    CountEstimate,
    Playable,
    estimates,
    run,
)

#: The names a log gives a seat that a person played (the table writes "person").
PEOPLE = frozenset({"person", "human"})
#: Skills tried when fitting, 0 to 1.
FIT_STEPS = 100
#: A skill is in the range when its likelihood is at least the best one's divided by this
#: (exp(1.92): the likelihood-ratio range that covers about 95%).
LIKELIHOOD_RANGE = math.exp(1.92)
#: Games per mission and player count below which the fit says little (docs/difficulty.md).
ENOUGH_GAMES = 30


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
    def played(self) -> tuple[str, str, int]:
        """What the game counts with: the mission by id and play (core.playhash: a re-rated
        or re-titled mission is the same, a changed one another), and the player count."""
        return self.mission.id, play_hash(self.mission, self.rulebook), self.players


@dataclass
class Calibration:
    """People's games of one mission at one player count, beside the ladder's."""

    mission: Mission
    players: int
    games: int
    wins: int
    people_seats: int  # every game's seats played by people, added up
    sources: list[str] = field(default_factory=list)
    #: the ladder at this player count (its curve and what it reads)
    ladder: CountEstimate | None = None
    #: the skill under which the people's games are most likely, and its range
    fitted: float | None = None
    fitted_low: float | None = None
    fitted_high: float | None = None
    #: "below" when people won less often than a table of novices, "above" when more often
    #: than the experts: the fit is then the ladder's end, not a skill found inside it
    fitted_edge: str | None = None

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)

    @property
    def enough(self) -> bool:
        return self.games >= ENOUGH_GAMES


def beyond(rate: Callable[[float], float], wins: int, games: int) -> str | None:
    """"below" when `wins` of `games` is a lower rate than the ladder's at every skill,
    "above" when a higher one, else None (some skill wins as often)."""
    if not games:
        return None
    if wins / games < rate(0.0):
        return "below"
    if wins / games > rate(1.0):
        return "above"
    return None


def fit(rate: Callable[[float], float], wins: int, games: int
        ) -> tuple[float, float, float] | None:
    """(best skill, lowest, highest in range) for `wins` of `games`; None without games."""
    if not games:
        return None
    floor = 0.5 / (10 * games)  # a table that never won still allows a rare win

    def likelihood(skill: float) -> float:
        p = min(max(rate(skill), floor), 1 - floor)
        return wins * math.log(p) + (games - wins) * math.log(1 - p)

    skills = [i / FIT_STEPS for i in range(FIT_STEPS + 1)]
    values = [likelihood(s) for s in skills]
    top = max(values)
    # Ties (a flat stretch of the curve, or all of it) say nothing about where in the stretch
    # people are: the least skill that explains their games, as the skill needed is the least
    # that reaches the target; the most only for people above every table.
    best = [s for s, v in zip(skills, values, strict=True) if v >= top - 1e-9]
    inside = [s for s, v in zip(skills, values, strict=True)
              if v >= top - math.log(LIKELIHOOD_RANGE)]
    chosen = max(best) if beyond(rate, wins, games) == "above" else min(best)
    return chosen, min(inside), max(inside)


def group(played: Sequence[PlayedGame]) -> list[Calibration]:
    """People's games by mission (as played: a changed mission is another) and player count,
    in the order first seen; games without a person are left out."""
    found: dict[tuple[str, str, int], Calibration] = {}
    for game in played:
        if not game.people:
            continue
        calibration = found.get(game.played)
        if calibration is None:
            calibration = found[game.played] = Calibration(game.mission, game.players, 0, 0, 0)
        calibration.games += 1
        calibration.wins += game.won
        calibration.people_seats += game.people
        calibration.sources.append(game.source)
    return list(found.values())


def calibrate(played: Sequence[PlayedGame], games: int, seed: int,
              executor: Executor | None = None,
              progress: Callable[[int], None] | None = None) -> list[Calibration]:
    """Per mission and player count people played: their win rate, the ladder on the seeds
    `playtest --seed` uses (every table played: a whole curve) and the fit."""
    calibrations = group(played)
    firsts = {id(c): next(g for g in played if g.people and g.mission == c.mission
                          and g.players == c.players) for c in calibrations}
    for calibration in calibrations:
        first = firsts[id(calibration)]
        cells = run([Playable(first.mission, first.rulebook, first.colors)], [STAR_BOT],
                    [calibration.players], games, seed, progress=progress, executor=executor,
                    walk=False)
        (estimate,) = estimates(cells)
        ladder = calibration.ladder = estimate.by_count[calibration.players]
        fitted = fit(ladder.curve.rate, calibration.wins, calibration.games)
        if fitted is not None:
            calibration.fitted, calibration.fitted_low, calibration.fitted_high = fitted
            calibration.fitted_edge = beyond(ladder.curve.rate, calibration.wins,
                                             calibration.games)
    return calibrations
