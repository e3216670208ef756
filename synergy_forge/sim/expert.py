"""The expert: an honest bot that plays the table convention (synergy_forge.sim.convention).

It reads only its own `Observation`, and of that only these fields: its own hands and seat
(`hand`, `goal_hand`, `seat`); the mission's facts (`mission`, `rulebook`, `players`, `colors`);
the face-up cards (`placed`, and its views `table` and `deltas`; `seconds`; `discards`); the
actions used this round and those still available (`actions_used`, `actions_available`); the
public counts of every seat's hands and decks (`hand_numbers`, `hand_goals`, `deck_numbers`,
`deck_goals`); and `lives`, `rounds_won`, `round_number`, `super_seat`, `hyper_seat`. Nothing
hidden is in an observation (no other hand, no deck order, no seed), and
tests/sim/test_expert.py proves the expert reaches nothing else: its choices do not change when the
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
- Where hands are dealt from decks and cannot be counted, every seat plays a policy over the
  public belief (synergy_forge.sim.belief): for every hand each seat may hold (the deals of
  its colour's unseen cards, R2), card 1, the goal card and card 2 as a chain of best
  responses finds them, computed alike at every seat from public facts; each seat looks up its
  own hand. Card 3 is a chain of searches over the hands each seat may still hold after what
  it showed. Where that policy does not apply, card 1 and the goal are the coop bot's and card
  3 the chain over every unseen card (`card3_chances`). The take-back is the expert's.

Partial skill is not the expert's business: the skill ladder seats experts beside novices
(sim.ladder), each playing its own way for the whole game.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import partial
from itertools import chain
from typing import Any

from synergy_forge.core.cards import NUMBER_VALUES, Action, GoalCard, NumberCard
from synergy_forge.core.choices import Decision, DecisionKind
from synergy_forge.core.memo import Memo
from synergy_forge.core.mission import Mission
from synergy_forge.core.observation import Observation
from synergy_forge.sim import belief
from synergy_forge.sim.chances import Support
from synergy_forge.sim.convention import (
    RoundState,
    Rules,
    best_action,
    hand_value,
    planned_card,
)
from synergy_forge.sim.coop import CoopBot
from synergy_forge.sim.greedy import MEMORY_SIZE, ScoreMemory
from synergy_forge.sim.model import MissionModel

_EACH_VALUE = Counter(NUMBER_VALUES)
#: What a memo's `get` gives for facts it does not hold (None is a value it holds).
_UNKNOWN: Any = object()


def counts_every_hand(mission: Mission) -> bool:
    """Whether the expert counts every hand of `mission` from its first round: every number
    card and goal card is dealt into the hands (no decks, R2) and no I can move a number card
    to another colour's seat (R13). Where it does, the expert and the oracle play the same
    games; elsewhere the oracle's wins over the expert's measure the bot, not the mission."""
    return mission.hand_numbers >= len(NUMBER_VALUES) and \
        mission.hand_goals >= len(mission.goals) and Action.I not in mission.actions


def rules_of(model: MissionModel, obs: Observation) -> Rules:
    """The mission's facts a plan depends on, from the observation (all public)."""
    mission, n = obs.mission, obs.players
    return Rules(obs.rulebook, mission.challenges, mission.goals, n,
                 model.plan(obs.rulebook, mission.challenges).direction,
                 mission.failures_allowed(n) + obs.placed.extra_failures,
                 obs.super_seat, obs.hyper_seat, obs.rounds_won + 1 >= mission.rounds)


def public_hands(model: MissionModel, obs: Observation
                 ) -> tuple[tuple[tuple[NumberCard, ...], ...],
                            tuple[tuple[GoalCard, ...], ...], bool] | None:
    """Every seat's number hand, when the face-up cards tell it exactly, and its goal cards not
    yet seen: its goal hand exactly when no seat has goal cards left in its deck (the bool says
    so), else the goal hand and the goal deck together. None when some seat still has number
    cards in a deck (its hand is one of many) or a card may have changed colour owner through I
    in an earlier round.

    Only public facts are read, so every seat finds the same hands (its own included).
    """
    n, colors = obs.players, obs.colors
    if any(obs.deck_numbers):
        return None
    goals_known = not any(obs.deck_goals)
    mission = obs.mission
    # I swaps first cards between seats: taken back, a card would lie in another colour's
    # hand, where counting by colour cannot follow it. Used this round, it has not yet.
    if Action.I in mission.actions and Action.I not in obs.actions_available and \
            all(u.card is not Action.I for u in obs.actions_used):
        return None
    placed = obs.placed
    key = (mission.goals, colors, obs.discards, placed.firsts, placed.goals, obs.seconds,
           obs.hand_numbers, obs.hand_goals, obs.deck_goals)
    found = model.counted.get(key, _UNKNOWN)  # one look-up: None is a value it holds
    if found is not _UNKNOWN:
        return found
    # Every card face up, counted at once (cards are tuples: hashed in C).
    seen = Counter(chain(chain.from_iterable(obs.discards), placed.firsts, obs.seconds,
                         placed.goals))
    hands, goal_hands = [], []
    for seat in range(n):
        numbers, goals = _colour_cards(model, mission.goals, colors[seat])
        hand: list[NumberCard] = []
        for card, copies in numbers:
            hand += [card] * (copies - seen[card])
        goal_hand: list[GoalCard] = []
        for card_g, copies in goals:
            goal_hand += [card_g] * (copies - seen[card_g])
        if len(hand) != obs.hand_numbers[seat] or \
                len(goal_hand) != obs.hand_goals[seat] + obs.deck_goals[seat]:
            return model.counted.remember(key, None)
        hands.append(tuple(hand))
        goal_hands.append(tuple(goal_hand))
    return model.counted.remember(key, (tuple(hands), tuple(goal_hands), goals_known))


def _colour_cards(model: MissionModel, goals: tuple[str, ...], color: str
                  ) -> tuple[tuple[tuple[NumberCard, int], ...], tuple[tuple[GoalCard, int], ...]]:
    """A colour's number cards and goal cards (`goals`: the mission's), each with its copies,
    in the order a counted hand lists them; made once, asked at every count."""
    key = (goals, color)
    found = model.colour_cards.get(key)
    if found is None:
        copies = Counter(goals)
        found = model.colour_cards.remember(key, (
            tuple((NumberCard(value, color), k) for value, k in _EACH_VALUE.items()),
            tuple((GoalCard(goal, color), copies[goal]) for goal in sorted(copies))))
    return found


def round_state(obs: Observation, hands: tuple[tuple[NumberCard, ...], ...],
                goal_hands: tuple[tuple[GoalCard, ...], ...]) -> RoundState:
    placed = obs.placed
    return RoundState(hands, goal_hands, placed.firsts, placed.deltas, placed.goals,
                      placed.ignored)


def _hands_of(model: MissionModel, pool: Counter[int],
              size: int) -> tuple[tuple[frozenset[int], int], ...]:
    """The values a hand of `size` cards out of `pool` (value -> copies unseen) may hold, each
    set with how many ways of dealing a hand of just those values there are (each deal equally
    likely, R2). Which card a hand plays depends only on the values it holds (`played`), so
    hands holding the same values are counted together: fewer to look through."""
    items = [(v, k) for v, k in sorted(pool.items()) if k > 0]
    out: dict[frozenset[int], int] = {}
    for held, ways in belief.dealt(model, items, size):
        values = frozenset(v for (v, _), k in zip(items, held, strict=True) if k)
        out[values] = out.get(values, 0) + ways
    return tuple(out.items())


def card3_chances(model: MissionModel,
                  obs: Observation) -> tuple[dict[int, float], ...] | None:
    """Card 3 where hands are hidden, as a chain of searches every seat can work out: per seat,
    P(the round succeeds | its sum), when the seats before it (in seat order) play their own
    searched card and the seats after it the blueprint's, each from every hand it may hold.

    The blueprint is the coop bot's card 3: the best chance of the round with every other
    seat's card any unseen card of its colour that keeps the challenges, equally likely (ties:
    the higher card). Seat 0 searches against the blueprint (SPARTA's single-agent search);
    seat 1 against seat 0's search and the others' blueprint; and so on. Each search is a best
    response to what the others really play, so each link can only raise the round's chance.
    A seat's belief over another's hand is every deal of that colour's unseen cards (hand and
    deck) with the seat's public hand size, weighted by its number of ways; everything here is
    public, so every seat computes the same chain (remembered once per round). None when no
    belief fits (a number card moved to another colour's seat by I)."""
    n, colors = obs.players, obs.colors
    rulebook, challenges = obs.rulebook, obs.mission.challenges
    placed = obs.placed
    key = (rulebook, challenges, colors, obs.discards, placed.firsts, placed.deltas,
           placed.goals, placed.ignored, obs.hand_numbers, obs.mission.failures_allowed(n)
           + placed.extra_failures, obs.super_seat, obs.hyper_seat)
    chains = model.chains
    if key in chains:
        found: tuple[dict[int, float], ...] | None = chains[key]
        return found
    return chains.remember(key, _chain(model, obs))


def _chain(model: MissionModel, obs: Observation) -> tuple[dict[int, float], ...] | None:
    n, colors = obs.players, obs.colors
    rulebook, challenges = obs.rulebook, obs.mission.challenges
    placed = obs.placed
    unseen = belief.unseen_numbers(obs)
    legal: list[dict[int, int]] = []  # per seat: card value -> its sum, for legal cards
    uniform: list[Support] = []
    deals = []
    for j in range(n):
        pool = unseen[colors[j]]
        found = belief.legal_sums(pool, colors[j], placed.firsts[j], placed.deltas[j],
                                  partial(model.pair_sum, rulebook, challenges))
        if found is None:
            return None
        legal.append(found[0])
        uniform.append(found[1])
        deals.append(_hands_of(model, pool, obs.hand_numbers[j]))

    def played(j: int, chance: dict[int, float]) -> Support | None:
        """The distribution of seat j's sum when it plays by `chance` from each hand."""
        axis = uniform[j].sums
        weights = dict.fromkeys(axis, 0.0)
        sums = legal[j]
        # Each hand plays its best legal card by (chance, value): that key is unique per
        # value, so the first card of this order that the hand holds is that best card (the
        # same as a max over the hand's cards, without ranking them again for every hand).
        order = sorted(sums, key=lambda v: (chance[sums[v]], v), reverse=True)
        # The ways are whole numbers (far under 2**53): added in any grouping, the same floats.
        for held, ways in deals[j]:
            for v in order:
                if v in held:
                    weights[sums[v]] += ways
                    break
            # no legal card held: R9, the mission ends whatever it plays
        return Support.of(weights) if any(weights.values()) else None

    return belief.search_chain(model, obs, uniform, played)


def hidden_second(model: MissionModel, obs: Observation,
                  choices: tuple[NumberCard, ...]) -> NumberCard | None:
    """This seat's link of the chain (`card3_chances`): the card with the best chance that the
    round succeeds (ties: the higher card); None when the chain does not apply."""
    return _best_second(model, obs, card3_chances(model, obs), choices)


def _best_second(model: MissionModel, obs: Observation,
                 tables: tuple[dict[int, float], ...] | None,
                 choices: tuple[NumberCard, ...]) -> NumberCard | None:
    """The card whose sum has the best chance in this seat's table (ties: the higher card)."""
    me = obs.seat
    if tables is None or any(c.color != obs.colors[me] for c in obs.hand):
        return None  # a card of another colour in hand (I): not on the chain's axis
    mine, placed = tables[me], obs.placed
    pairs = model.pairs(obs.rulebook, obs.mission.challenges)
    return max(choices, key=lambda c: (mine[pairs[placed.firsts[me], c, placed.deltas[me]][0]],
                                       c))


def hidden_play(model: MissionModel, obs: Observation, decision: Decision) -> Any:
    """Where hands are hidden: card 1 and the goal as the round's opening policy says for this
    seat's own hands (`belief.opening`), card 3 by the chain of searches over what the others
    showed (`belief.card3_chances`, else `card3_chances`); None where neither applies."""
    kind, me = decision.kind, obs.seat
    if kind is DecisionKind.SECOND_NUMBER:
        tables = belief.card3_chances(model, obs)
        if tables is None:
            return hidden_second(model, obs, decision.cards)
        return _best_second(model, obs, tables, decision.cards)
    if kind is not DecisionKind.FIRST_NUMBER and kind is not DecisionKind.GOAL:
        return None
    plan = belief.planned(model, obs)
    if plan is None:
        return None
    first, goal, _ = plan
    placed = obs.placed
    played_first = placed.firsts[me]
    played_goal = placed.goals[(me + model.plan(obs.rulebook, obs.mission.challenges).direction)
                               % obs.players]
    # A seat that left the opening (a casual move) does not come back to it half-way.
    if (played_first is not None and played_first.value != first) or \
            (played_goal is not None and played_goal.goal != goal):
        return None
    if kind is DecisionKind.GOAL:
        return next((g for g in decision.goal_cards if g.goal == goal), None)
    return next((c for c in decision.cards if c.value == first), None)


def keep_card(model: MissionModel, rules: Rules, hand: tuple[NumberCard, ...],
              choices: tuple[NumberCard, ...]) -> NumberCard:
    """R17: the card to take back: the one that leaves the hand the most legal sums (ties:
    the higher card)."""
    return max(choices, key=lambda c: (hand_value(model, rules, (*hand, c)), c))


class ExpertBot:
    """Plays the table convention from its own observation only (see the module's docstring)."""

    name = "expert"

    def __init__(self, rng: random.Random, memory: ScoreMemory | None = None,
                 model: MissionModel | None = None) -> None:
        self.rng = rng
        self.model = MissionModel() if model is None else model
        # Where it cannot plan it plays as coop, with its seat's memory, the same model and a
        # generator drawn from its own: the same rng, the same game.
        self._fallback = CoopBot(random.Random(rng.getrandbits(64)),
                                 Memo(MEMORY_SIZE) if memory is None else memory, self.model)

    def choose(self, observation: Observation, decision: Decision) -> Any:
        if len(decision.choices) == 1:
            return decision.choices[0]
        return self.play(observation, decision)

    def play(self, obs: Observation, decision: Decision) -> Any:
        """The expert's choice."""
        kind = decision.kind
        if kind is DecisionKind.SUPER or kind is DecisionKind.HYPER:
            return decision.choices[0]  # the convention: seat 0 first (any seat would do)
        model = self.model
        if kind is DecisionKind.TAKE_BACK:
            return keep_card(model, rules_of(model, obs), obs.hand, decision.cards)
        known = public_hands(model, obs)
        if known is None:
            card = hidden_play(model, obs, decision)
            if card is not None:
                return card
            return self._fallback.choose(obs, decision)
        hands, goal_hands, goals_known = known
        if not goals_known and kind in (DecisionKind.FIRST_NUMBER, DecisionKind.GOAL):
            # Goal cards in decks: the opening weighs every goal hand each seat may hold (a
            # plan made with every unseen goal as the others' would not know which they hold).
            card = hidden_play(model, obs, decision)
            if card is not None:
                return card
        if kind is DecisionKind.GOAL and not goals_known:
            # The goal cards the others may hold are all those not yet seen; this seat knows
            # its own, and plans with them (the others replan with the goals on the table).
            goal_hands = (*goal_hands[:obs.seat], obs.goal_hand, *goal_hands[obs.seat + 1:])
        rules = rules_of(model, obs)  # not before: where hands are hidden, no plan is made
        state = round_state(obs, hands, goal_hands)
        if kind is DecisionKind.ACTION:
            return best_action(model, rules, state, decision.uses, obs.discards)
        planned = planned_card(model, rules, state, decision)
        return planned if planned is not None else self._fallback.choose(obs, decision)
