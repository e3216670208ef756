"""The expert: an honest bot that plays the table convention (synergy_forge.sim.convention).

It reads only its own `Observation`, and of that only these fields: its own hands and seat
(`hand`, `goal_hand`, `seat`); the mission's facts (`mission`, `rulebook`, `players`, `colors`);
the face-up cards (`placed`, and its views `table` and `deltas`; `seconds`; `discards`); the
actions used this round and those still available (`actions_used`, `actions_available`); the
public counts of every seat's hands and decks (`hand_numbers`, `hand_goals`, `deck_numbers`,
`deck_goals`); and `lives`, `rounds_won`, `round_number`, `super_seat`, `hyper_seat`. Nothing
hidden is in an observation (no other hand, no deck order, no seed), and
tests/test_expert.py proves the expert reaches nothing else: its choices do not change when the
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
- Where hands are dealt from decks and cannot be counted, the blueprint is the coop bot's
  play (its belief: each unseen card equally likely, the challenges kept), with the expert's
  take-back. One seat a round (`searcher`) improves on it at card 3, SPARTA-style: its belief
  over each other seat's hand is every deal of that colour's unseen cards (hand and deck) with
  the seat's public hand size, each seat is assumed to play the blueprint's card from the hand
  it holds, and the searcher plays the card with the best exact chance that the round succeeds
  (`blueprint_second`). Mission 5 at 5 players: 79% with the blueprint alone, 98% so.

`skill` (0 to 1) is the chance that a seat follows the expert's play at a decision; otherwise
it makes a casual move, the one the greedy bot would make (a player who plays for their own
goal). skill 1 is the expert; skill 0 the greedy bot with the expert's seat order.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import chain
from math import comb
from typing import TYPE_CHECKING, Any

import numpy as np

from synergy_forge.core.cards import NUMBER_VALUES, Action, NumberCard
from synergy_forge.core.engine import Decision, DecisionKind, GoalCard, Observation
from synergy_forge.core.memo import Memo
from synergy_forge.core.referee import pair_sum
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
#: The deals a hand may be, per (unseen values, hand size): public facts, as every memo here.
_DEALS: Memo[tuple[Any, ...], list[tuple[dict[int, int], int]]] = Memo(4096)


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


def _counts_unseen(obs: Observation) -> dict[str, Counter[int]]:
    """Per colour, how many of each value no card face up or in this seat's hand shows."""
    unseen = {color: Counter(_EACH_VALUE) for color in obs.colors}
    placed = obs.placed
    for card in chain(chain.from_iterable(obs.discards), placed.firsts, obs.seconds, obs.hand):
        if isinstance(card, NumberCard) and card.color in unseen:
            unseen[card.color][card.value] -= 1
    return unseen


def _hands_of(pool: Counter[int], size: int) -> list[tuple[dict[int, int], int]]:
    """Every hand of `size` cards a seat may hold out of `pool` (value -> copies unseen), with
    how many ways of dealing it there are (each deal equally likely, R2)."""
    values = sorted(v for v, k in pool.items() if k > 0)
    key = (tuple((v, pool[v]) for v in values), size)
    found = _DEALS.get(key)
    if found is not None:
        return found
    out: list[tuple[dict[int, int], int]] = []

    def walk(i: int, left: int, hand: dict[int, int], ways: int) -> None:
        if i == len(values):
            if left == 0:
                out.append((dict(hand), ways))
            return
        v = values[i]
        for k in range(min(pool[v], left) + 1):
            hand[v] = k
            walk(i + 1, left - k, hand, ways * comb(pool[v], k))
        del hand[v]

    walk(0, size, {}, 1)
    return _DEALS.remember(key, out)


def searcher(obs: Observation) -> int:
    """The seat that searches this round where hands are hidden (a different one each round).

    One seat only: search improves on the blueprint when the others play the blueprint (SPARTA's
    single-agent search); when every seat searches against a blueprint nobody plays, the seats
    outguess each other (mission 5 at 5 players fell from 79% to 55%)."""
    return obs.round_number % obs.players


def blueprint_second(obs: Observation, choices: tuple[NumberCard, ...]) -> NumberCard | None:
    """Card 3 where hands are hidden: the card with the best chance that the round succeeds
    when every other seat plays as the coop bot would with each hand it may hold.

    The belief over a seat's hand is every deal of its colour's unseen cards (hand and deck)
    with its public hand size; the convention's blueprint (the coop bot's card 3: the best
    chance of the round, the others' cards taken as equally likely) says which card it plays
    from each, so its sum's distribution follows, exactly. None when no belief fits (a card
    moved between colours: the coop bot's uniform view then)."""
    from synergy_forge.sim.chances import Support, success_chances

    n, me, colors = obs.players, obs.seat, obs.colors
    rulebook, challenges = obs.rulebook, obs.mission.challenges
    if any(c.color != colors[me] for c in obs.hand):
        return None
    placed = obs.placed
    goals = tuple(g.goal for g in placed.goals)
    allowed = obs.mission.failures_allowed(n) + placed.extra_failures
    unseen = _counts_unseen(obs)
    uniform: list[Support] = []
    options: list[dict[int, int]] = []  # per seat: card value -> its sum (legal cards)
    for j in range(n):
        pool = unseen[colors[j]] + Counter(c.value for c in obs.hand) if j == me \
            else unseen[colors[j]]
        legal: dict[int, int] = {}
        for value in sorted(pool):
            total, broken = pair_sum(rulebook, challenges, placed.firsts[j],
                                     NumberCard(value, colors[j]), placed.deltas[j])
            if not broken:
                legal[value] = total
        if j != me and sum(pool[v] for v in legal) == 0:
            return None
        weights: dict[int, float] = {}
        for value, total in legal.items():
            weights[total] = weights.get(total, 0.0) + pool[value]
        uniform.append(Support.of(weights or {0: 1.0}))
        options.append(legal)
    blueprint: list[Support] = []
    for j in range(n):
        if j == me:
            blueprint.append(uniform[j])
            continue
        axis = uniform[j].sums
        chance = success_chances(rulebook, goals, placed.ignored, allowed, obs.super_seat,
                                 obs.hyper_seat, j, uniform, axis)
        weights_j = dict.fromkeys(axis, 0.0)
        for hand, ways in _hands_of(unseen[colors[j]], obs.hand_numbers[j]):
            sums = {options[j][v] for v, k in hand.items() if k and v in options[j]}
            if not sums:
                continue  # R9: no legal card; the mission ends whatever this seat plays
            top = max(chance[t] for t in sums)
            best = [t for t in sums if chance[t] >= top - 1e-12]
            for t in best:
                weights_j[t] += ways / len(best)
        if not any(weights_j.values()):
            return None
        blueprint.append(Support(axis, np.array([weights_j[t] for t in axis]),
                                 sum(weights_j.values())))
    own = {c: pair_sum(rulebook, challenges, placed.firsts[me], c, placed.deltas[me])[0]
           for c in choices}
    mine = success_chances(rulebook, goals, placed.ignored, allowed, obs.super_seat,
                           obs.hyper_seat, me, blueprint, sorted(set(own.values())))
    return max(choices, key=lambda c: (mine[own[c]], c))


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
        fallback: ScoreMemory = Memo(MEMORY_SIZE)
        if memory is not None:  # kept beside the memory it was given, as long as that lives
            found = _FALLBACK_MEMORIES.get(id(memory))
            if found is None or found[0] is not memory:
                found = _FALLBACK_MEMORIES[id(memory)] = (memory, fallback)
            fallback = found[1]
        # Their generators come from this one: the same rng, the same game.
        self._casual = GreedyBot(random.Random(rng.getrandbits(64)), own)
        self._fallback = CoopBot(random.Random(rng.getrandbits(64)), fallback)

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
            if kind is DecisionKind.SECOND_NUMBER and obs.seat == searcher(obs):
                card = blueprint_second(obs, decision.choices)
                if card is not None:
                    return card
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
