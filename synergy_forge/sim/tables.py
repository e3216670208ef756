"""A table's games: who sits at the seats, the seeds that deal them, and what they gave.

A table is one bot at every seat, or a table of the skill ladder: some seats the expert's, the
others novices' (sim.ladder.seating). Every game's seed is derived from the base seed, the
mission, the player count and the game's index, so the same seeds deal the same hands to every
table (a paired comparison), and results do not depend on how the work is split.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from synergy_forge.core.engine import Game
from synergy_forge.core.mission import Mission
from synergy_forge.core.referee import LossReason
from synergy_forge.core.rules import Rulebook
from synergy_forge.sim.bots import SeatMemories
from synergy_forge.sim.expert import counts_every_hand
from synergy_forge.sim.ladder import EXPERT, NOVICE, seating, wilson
from synergy_forge.sim.model import MissionModel
from synergy_forge.sim.play import play

#: The bot whose ladder gives the stars: `--bots expert` plays the ladder's tables.
STAR_BOT = EXPERT
#: The bot the ladder's top is checked against where hands cannot be counted (it cheats).
CEILING_BOT = "oracle"
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
               bot: str, seeds: Sequence[int], experts: int | None = None,
               model: MissionModel | None = None) -> Tally:
    """Play a game from each seed: `bot` at every seat, or with `experts` given, the ladder's
    table with that many experts and novices in the other seats (sim.ladder.seating).

    The bots work with `model` (sim.model), the mission model of whoever plays more batches
    of this mission (the playtest's `Playable`, the ladder's tables of one player count);
    without one, this batch's own, freed with it."""
    tally = Tally()
    memories = SeatMemories()  # the bots' own, kept across this batch's games
    model = MissionModel() if model is None else model
    for seed in seeds:
        game = Game(mission, player_count, seed, rulebook, colors)
        seats = [bot] * player_count if experts is None else \
            seating(seed, player_count, experts)
        play(game, seats, memories=memories, model=model)
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


@dataclass(frozen=True)
class Playable:
    """A mission with what it is played with: its campaign's rulebook and colours, and the
    mission model its batches share (sim.model: in each process that plays them, its own;
    freed with the playable)."""

    mission: Mission
    rulebook: Rulebook
    colors: tuple[str, ...]
    model: MissionModel = field(default_factory=MissionModel, compare=False, repr=False)


#: Who sits at a cell's seats: a bot's name at every seat, or the number of experts at a
#: table of the ladder (novices in the other seats).
Table = str | int


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


def ceiling_needed(mission: Mission) -> bool:
    """Whether the oracle is played beside the expert: where the expert cannot count every
    hand from the start (sim.expert.counts_every_hand), only the oracle tells whether the
    expert is the limit."""
    return not counts_every_hand(mission)
