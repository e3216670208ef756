"""The novice: the ladder's floor, a player who knows the rules and nothing of the convention.

It plays a uniformly random legal move, except a move that, as the cards lie, leaves its own
seat no way to finish the round (a first number card with no legal card 3, R9) or to play the
next one (a take-back that leaves no legal pair in a hand with no deck to draw from, R9, R21).
When every move is such a move it plays any. Each seat draws from its own generator, so a
table of novices does not move as one.

Why it can never do worse than random play: the moves it leaves out lose the mission for
certain as the cards lie, and between the moves it keeps it chooses as random play does, so
from any position the novice's chance of winning is at least random play's (an induction on
the decisions left; an action that would have rescued a left-out move aside).
"""

from __future__ import annotations

import random
from typing import Any

from synergy_forge.core.cards import NumberCard
from synergy_forge.core.choices import Decision, DecisionKind
from synergy_forge.core.observation import Observation
from synergy_forge.sim.model import MissionModel


class NoviceBot:
    """Random legal play that never loses the mission at once by its own hand."""

    name = "novice"

    def __init__(self, rng: random.Random, memory: Any = None,
                 model: MissionModel | None = None) -> None:
        self.rng = rng
        self.model = MissionModel() if model is None else model

    def choose(self, observation: Observation, decision: Decision) -> Any:
        choices = decision.choices
        if len(choices) > 1:
            kind = decision.kind
            if kind is DecisionKind.FIRST_NUMBER:
                choices = _keeping(choices, lambda c: _finishes(self.model, observation, c)) \
                    or choices
            elif kind is DecisionKind.TAKE_BACK and not observation.deck_numbers[
                    observation.seat]:
                choices = _keeping(choices, lambda c: _plays_on(self.model, observation, c)) \
                    or choices
        return self.rng.choice(choices)


def _keeping(choices: tuple[Any, ...], keep: Any) -> tuple[Any, ...]:
    return tuple(c for c in choices if keep(c))


def _legal(model: MissionModel, obs: Observation, first: NumberCard,
           second: NumberCard) -> bool:
    return not model.pair_sum(obs.rulebook, obs.mission.challenges, first, second)[1]


def _finishes(model: MissionModel, obs: Observation, first: NumberCard) -> bool:
    """Some card left in hand is a legal card 3 beside `first` (R9)."""
    rest = list(obs.hand)
    rest.remove(first)
    return any(_legal(model, obs, first, second) for second in set(rest))


def _plays_on(model: MissionModel, obs: Observation, kept: NumberCard) -> bool:
    """The hand with `kept` taken back holds a legal pair for the next round (R9, R21)."""
    hand = [*obs.hand, kept]
    cards = set(hand)
    return any(_legal(model, obs, first, second) for first in cards for second in cards
               if second != first or hand.count(first) > 1)
