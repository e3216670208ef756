"""Bots: players that see only their own observation and answer one decision at a time.

A bot is any object with `choose(observation, decision) -> choice`. Adding one is one class
and one line in BOTS. What it is shown is what its `sees` says: "seat" (the default) its
seat's `Observation`; "nothing" (the random bot, which reads nothing) None; "all"
`Game.observe_all()`, every hand: the oracle's cheat, said aloud.

What a bot works out is remembered in two kinds of memo (synergy_forge.core.memo), neither
reachable from any observation, both owned by whoever plays the games (a batch of a playtest,
a table) and kept from one game to the next: a bot's own memory (`memory`: scores of its own
hands, private to its seat, in a `SeatMemories`), and the mission model (sim.model: the priors
of a mission, the sums a seat can still make given the face-up cards, the plans of rounds),
which every seat may share because it holds nothing hidden.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from synergy_forge.core.choices import Choice, Decision
from synergy_forge.core.engine import Game
from synergy_forge.core.memo import Memo
from synergy_forge.core.observation import Observation, Omniscient
from synergy_forge.sim.coop import CoopBot
from synergy_forge.sim.expert import ExpertBot
from synergy_forge.sim.greedy import MEMORY_SIZE, GreedyBot, ScoreMemory
from synergy_forge.sim.mixed import MixedExpertBot
from synergy_forge.sim.model import MissionModel
from synergy_forge.sim.novice import NoviceBot
from synergy_forge.sim.oracle import OracleBot

__all__ = ["BOTS", "MEMORY_SIZE", "SEES_SEAT", "Bot", "CoopBot", "ExpertBot", "GreedyBot",
           "MissionModel", "OracleBot", "RandomBot", "ScoreMemory", "SeatMemories", "make_bot",
           "view_for"]


class Bot(Protocol):
    name: str

    def choose(self, observation: Any, decision: Decision) -> Choice: ...


#: What a bot is shown (`sees`), when it does not say: its seat's observation.
SEES_SEAT = "seat"



class RandomBot:
    """Uniform over the legal choices."""

    name = "random"
    sees = "nothing"  # it reads nothing: building its observation would only cost time

    def __init__(self, rng: random.Random, memory: ScoreMemory | None = None,
                 model: MissionModel | None = None) -> None:
        self.rng = rng

    def choose(self, observation: Observation, decision: Decision) -> Choice:
        return self.rng.choice(decision.choices)


BOTS: dict[str, type] = {"random": RandomBot, "novice": NoviceBot, "greedy": GreedyBot,
                         "coop": CoopBot, "expert": MixedExpertBot, "oracle": OracleBot}

class SeatMemories:
    """The memory of the bot of each kind at each seat, owned by whoever plays several games
    (a batch of a playtest, a table) and kept from one game to the next: a hand seen in one
    game comes back in the next. Each memory is private to its seat; at most one per kind of
    bot and seat, so this holds at most len(BOTS) x seats memories of MEMORY_SIZE entries."""

    __slots__ = ("_memories",)

    def __init__(self) -> None:
        self._memories: dict[tuple[str, int], ScoreMemory] = {}

    def of(self, name: str, seat: int) -> ScoreMemory:
        """The memory of the `name` bot at `seat` (made empty the first time)."""
        memory = self._memories.get((name, seat))
        if memory is None:
            memory = self._memories[(name, seat)] = Memo(MEMORY_SIZE)
        return memory


def make_bot(name: str, seed: int, seat: int, *, memories: SeatMemories | None = None,
             model: MissionModel | None = None) -> Bot:
    """A bot with its own generator, derived from the game's seed and its seat, its seat's
    memory from `memories` and the mission `model` its owner plays with (fresh ones
    without: the same choices, worked out again)."""
    memory = (memories or SeatMemories()).of(name, seat)
    bot: Bot = BOTS[name](random.Random(f"{name}:{seed}:{seat}"), memory,
                          MissionModel() if model is None else model)
    return bot


def view_for(bot: Bot, game: Game, seat: int) -> Observation | Omniscient | None:
    """What `bot` at `seat` is shown, as its `sees` says: its observation, nothing, or
    everything (the oracle)."""
    sees = getattr(bot, "sees", SEES_SEAT)
    if sees == SEES_SEAT:
        return game.observe(seat)
    return game.observe_all() if sees == "all" else None
