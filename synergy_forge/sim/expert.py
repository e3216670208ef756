"""The expert: an honest bot that plays the table convention (synergy_forge.sim.convention).

It reads only its own `Observation`, and of that only: its own hands (`hand`, `goal_hand`,
`seat`), the mission and rulebook, the player count and colours, the face-up cards (`placed`,
`seconds`, `discards`), the actions used this round and those still available, the public
counts of every seat's hands and decks, the lives, rounds won and round number, and who holds
the super and hyper cards. tests/test_expert.py proves it: its choices do not change when
hidden cards are dealt differently, and a proxy records every field it reads.

How it plays:
- The public belief (`public_hands`): where no seat has cards left in its decks, every hand
  follows from counting the cards face up (a colour's ten number cards and its goal cards,
  less those on the table and in the discard rows). Every seat can count, so every seat knows
  every hand, and knows that the others know.
- The convention: with every hand public, every seat computes the same joint plan
  (`convention.plan_round`: fixed tie-breaks, no talking) and plays its part of it; the plan is
  computed again at every step from what has been played, so it also copes with a seat that
  did not follow it. Actions are used in seat order (R12) when the plan says one turns a lost
  round into a won one (`convention.best_action`). The take-back keeps the card that leaves
  the most legal sums for later rounds (R17).
- Where hands are dealt from decks and cannot be counted, the belief over the hidden cards is
  the coop bot's (each unseen card equally likely, the challenges kept), and the expert plays
  as the coop bot does, with its own take-back: below it never, since that is its play.

`skill` (0 to 1) is the chance that a seat follows the expert's play at a decision; otherwise
it makes a casual move, the one the greedy bot would make (a player who plays for their own
goal). skill 1 is the expert; skill 0 the greedy bot with the expert's seat order.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import chain
from typing import TYPE_CHECKING, Any

from synergy_forge.core.cards import NUMBER_VALUES, Action, NumberCard
from synergy_forge.core.engine import Decision, DecisionKind, GoalCard, Observation
from synergy_forge.core.memo import Memo
from synergy_forge.sim.convention import (
    RoundState,
    Rules,
    best_action,
    hand_value,
    plan_round,
)

if TYPE_CHECKING:
    from synergy_forge.sim.bots import ScoreMemory

_EACH_VALUE = Counter(NUMBER_VALUES)


def rules_of(obs: Observation) -> Rules:
    """The mission's facts a plan depends on, from the observation (all public)."""
    mission, n = obs.mission, obs.players
    return Rules(obs.rulebook, mission.challenges, mission.goals, n,
                 obs.rulebook.plan(mission.challenges).direction,
                 mission.failures_allowed(n) + obs.placed.extra_failures,
                 obs.super_seat, obs.hyper_seat, obs.rounds_won + 1 >= mission.rounds)


def public_hands(obs: Observation) -> tuple[tuple[tuple[NumberCard, ...], ...],
                                            tuple[tuple[GoalCard, ...], ...]] | None:
    """Every seat's number and goal hands, when the face-up cards tell them exactly; None when
    some seat still has cards in a deck (its hand is one of many) or a card may have changed
    colour owner through I in an earlier round.

    Only public facts are read, so every seat finds the same hands (its own included).
    """
    n, colors = obs.players, obs.colors
    if any(obs.deck_numbers) or any(obs.deck_goals):
        return None
    mission = obs.mission
    # I swaps first cards between seats: taken back, a card would lie in another colour's
    # hand, where counting by colour cannot follow it. Used this round, it has not yet.
    if Action.I in mission.actions and Action.I not in obs.actions_available and \
            all(u.card is not Action.I for u in obs.actions_used):
        return None
    numbers = {color: Counter(_EACH_VALUE) for color in colors}
    goals = {color: Counter(mission.goals) for color in colors}
    placed = obs.placed
    face_up = chain(chain.from_iterable(obs.discards), placed.firsts, obs.seconds, placed.goals)
    for card in face_up:
        if isinstance(card, NumberCard):
            counts = numbers.get(card.color)
            if counts is not None:
                counts[card.value] -= 1
        elif isinstance(card, GoalCard):
            left = goals.get(card.color)
            if left is not None:
                left[card.goal] -= 1
    hands, goal_hands = [], []
    for seat in range(n):
        color = colors[seat]
        hand = tuple(sorted(NumberCard(v, color) for v, k in numbers[color].items()
                            for _ in range(k)))
        goal_hand = tuple(sorted(GoalCard(g, color) for g, k in goals[color].items()
                                 for _ in range(k)))
        if len(hand) != obs.hand_numbers[seat] or len(goal_hand) != obs.hand_goals[seat]:
            return None
        hands.append(hand)
        goal_hands.append(goal_hand)
    return tuple(hands), tuple(goal_hands)


def round_state(obs: Observation, hands: tuple[tuple[NumberCard, ...], ...],
                goal_hands: tuple[tuple[GoalCard, ...], ...]) -> RoundState:
    placed = obs.placed
    return RoundState(hands, goal_hands, placed.firsts, placed.deltas, placed.goals,
                      placed.ignored)


def keep_card(rules: Rules, hand: tuple[NumberCard, ...],
              choices: tuple[NumberCard, ...]) -> NumberCard:
    """R17: the card to take back: the one that leaves the hand the most legal sums (ties:
    the higher card)."""
    return max(choices, key=lambda c: (hand_value(rules, (*hand, c)), c))


# The fallback coop bot's memory, per memory the expert was given (each private to its seat).
_FALLBACK_MEMORIES: dict[int, tuple[Any, Any]] = {}


class ExpertBot:
    """Plays the table convention from its own observation only (see the module's docstring)."""

    name = "expert"
    skilled = True  # make_bot hands it a `skill`

    def __init__(self, rng: random.Random, memory: ScoreMemory | None = None,
                 skill: float = 1.0) -> None:
        from synergy_forge.sim.bots import MEMORY_SIZE, CoopBot, GreedyBot

        if not 0.0 <= skill <= 1.0:
            raise ValueError(f"skill is between 0 and 1, not {skill}")
        self.rng = rng
        self.skill = skill
        own: ScoreMemory = Memo(MEMORY_SIZE) if memory is None else memory
        found = _FALLBACK_MEMORIES.get(id(own))
        if found is None or found[0] is not own:
            found = _FALLBACK_MEMORIES[id(own)] = (own, Memo(MEMORY_SIZE))
        # Their generators come from this one: the same rng, the same game.
        self._casual = GreedyBot(random.Random(rng.getrandbits(64)), own)
        self._fallback = CoopBot(random.Random(rng.getrandbits(64)), found[1])

    def choose(self, observation: Observation, decision: Decision) -> Any:
        if len(decision.choices) == 1:
            return decision.choices[0]
        if self.skill < 1.0 and self.rng.random() >= self.skill:
            return self._casual.choose(observation, decision)
        return self.play(observation, decision)

    def play(self, obs: Observation, decision: Decision) -> Any:
        """The expert's choice (skill aside)."""
        kind = decision.kind
        if kind is DecisionKind.SUPER or kind is DecisionKind.HYPER:
            return decision.choices[0]  # the convention: seat 0 first (any seat would do)
        rules = rules_of(obs)
        if kind is DecisionKind.TAKE_BACK:
            return keep_card(rules, obs.hand, decision.choices)
        known = public_hands(obs)
        if known is None:
            return self._fallback.choose(obs, decision)
        state = round_state(obs, *known)
        if kind is DecisionKind.ACTION:
            return best_action(rules, state, decision.choices, obs.discards)
        plan = plan_round(rules, state)
        if plan is not None:
            first, goal, second = plan.plays[obs.seat]
            wanted = {DecisionKind.FIRST_NUMBER: first, DecisionKind.GOAL: goal,
                      DecisionKind.SECOND_NUMBER: second}.get(kind)
            if wanted in decision.choices:
                return wanted
        return self._fallback.choose(obs, decision)
