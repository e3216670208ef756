"""The greedy bot: plays for its own goal only, from its own observation.

What it works out is remembered in two kinds of memo (synergy_forge.core.memo), neither
reachable from any observation, both handed to it by whoever plays its games: its own memory
(`GreedyBot.memory`: scores of its own hands, private to its seat, sim.bots.SeatMemories), and
the mission model's memos of pure functions of public facts (the sums a seat can still make
given the face-up cards, sim.model), which every seat may share because they hold nothing
hidden. One of them (`legal_sums`) is keyed by the cards it is asked about as well, as the
pair sums are: it answers only a seat that asks about the same cards, so it tells nobody
another seat's hand.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from itertools import chain
from typing import Any

import numpy as np

from synergy_forge.core.actions import ACTIONS, ActionUse, Layout, lay_out
from synergy_forge.core.cards import NUMBER_VALUES, Action, GoalCard, NumberCard
from synergy_forge.core.choices import Decision, DecisionKind
from synergy_forge.core.memo import Memo
from synergy_forge.core.observation import Observation
from synergy_forge.core.referee import colour_pair_sums
from synergy_forge.core.rules import Rulebook
from synergy_forge.sim.chances import Support, goal_chances, grid_rules
from synergy_forge.sim.grid import GridRule, Many, NotOnGrid, Unsettled
from synergy_forge.sim.model import MissionModel

_EACH_VALUE = tuple(Counter(NUMBER_VALUES).items())

AFFINITY_SAMPLES = 300

#: A memory of one seat's own scores, by (rulebook, challenges, goals, players, ..., hand).
ScoreMemory = Memo[tuple[Any, ...], dict[Any, float]]
#: Entries a bot's memory keeps: one per hand and goals seen (about 1 kB each).
MEMORY_SIZE = 4096


class GreedyBot:
    """Plays for its own goal only: each choice maximises the chance that this seat meets it.

    The other seats' sums are modelled from what is face up: a card not yet played is any of
    that colour's unseen cards (all ten, less those in discard rows and on the table), each
    equally likely, keeping the challenges. The chance is exact (synergy_forge.sim.chances).
    """

    name = "greedy"

    def __init__(self, rng: random.Random, memory: ScoreMemory | None = None,
                 model: MissionModel | None = None) -> None:
        self.rng = rng
        self.memory: ScoreMemory = Memo(MEMORY_SIZE) if memory is None else memory
        self.model = MissionModel() if model is None else model

    def _pick(self, choices: Any, score: Callable[[Any], float]) -> Any:
        """The best-scoring choice; ties broken by the bot's own generator."""
        scored = [(score(c), c) for c in choices]
        top = max(s for s, _ in scored)
        return self.rng.choice([c for s, c in scored if s >= top - 1e-9])

    def choose(self, observation: Observation, decision: Decision) -> Any:
        kind = decision.kind
        if len(decision.choices) == 1:
            return decision.choices[0]
        if kind is DecisionKind.FIRST_NUMBER:
            return self._first(observation, decision)
        if kind is DecisionKind.GOAL:
            return self._goal(observation, decision)
        if kind is DecisionKind.SECOND_NUMBER:
            return self._second(observation, decision)
        if kind is DecisionKind.ACTION:
            return self._action(observation, decision)
        if kind is DecisionKind.TAKE_BACK:
            return _keep(self.model, observation, decision.cards)
        return self.rng.choice(decision.choices)

    # -- the model of the others -----------------------------------------------------------

    def _supports(self, obs: Observation, table: Any,
                  deltas: tuple[int, ...]) -> tuple[Support, ...]:
        """What each seat's sum may be, seen from here: a second card not yet played is any
        of that colour's unseen cards, each equally likely, that keeps the challenges (R9).

        Another seat's hand is unseen, and so is this seat's to the others: every seat's
        possible sums follow from the face-up cards alone (and so are shared by all the seats
        of a round), except when this seat holds a card of another seat's colour (taken from a
        discard row), which it alone can rule out.
        """
        rulebook, challenges, colors = obs.rulebook, obs.mission.challenges, obs.colors
        foreign = [c for c in obs.hand if c.color != colors[obs.seat]]
        discards = obs.discards
        key = (rulebook, challenges, colors, discards, table, deltas)
        model = self.model
        supports = None if foreign else model.public_supports.get(key)
        if supports is None:
            unseen = _unseen(colors, chain(chain.from_iterable(discards),
                                           chain.from_iterable(table), foreign))
            supports = tuple(_support(model, rulebook, challenges, table[seat][0],
                                      deltas[seat], colors[seat], unseen[colors[seat]])
                             for seat in range(obs.players))
            if not foreign:  # what its own hand rules out stays with this seat
                model.public_supports.remember(key, supports)
        return supports

    def _goal_chances(self, obs: Observation, goals: Sequence[str],
                      own_sums: Iterable[int]) -> dict[int, float]:
        """P(this seat meets its goal | each own sum), the goals on the table being `goals`."""
        table = obs.table
        ignored = frozenset(u.seat for u in obs.actions_used if u.card is Action.J)
        return goal_chances(self.model, obs.rulebook, goals, ignored, obs.seat,
                            self._supports(obs, table, obs.deltas), sorted(own_sums))

    # -- decisions ---------------------------------------------------------------------------

    def _plan_sums(self, obs: Observation, first: NumberCard, delta: int,
                   hand: list[NumberCard]) -> frozenset[int]:
        """The sums this seat could reach with `first` and a card of `hand`, keeping R9."""
        return legal_sums(self.model, obs.rulebook, obs.mission.challenges, first, delta,
                          frozenset(hand))

    def _affinity(self, obs: Observation) -> dict[tuple[str, int], float]:
        """P(goal met | own sum) against other seats playing any two cards of their colour.

        Estimated once per mission and player count from a fixed sample (so every bot and
        every process gets the same table) and shared by every seat (public facts only): the
        first card and the goal card are chosen before the others' goals are known, where only
        this prior helps.
        """
        key = (obs.rulebook, obs.mission.challenges, obs.mission.goals, obs.players)
        model = self.model
        found = model.affinity.get(key)
        if found is not None:
            return found
        pair_sums = colour_pair_sums(model.plan(obs.rulebook, obs.mission.challenges)) or [0]
        rng = random.Random(0)
        samples = [[rng.choice(pair_sums) for _ in range(obs.players - 1)]
                   for _ in range(AFFINITY_SAMPLES)]
        checks = obs.rulebook.goal_checks
        own_range = sorted(set(pair_sums) | set(range(0, 16)))
        table: dict[tuple[str, int], float] = {}
        for goal in set(obs.mission.goals):
            counts = _met_counts(grid_rules(model, obs.rulebook).get(goal), own_range, samples)
            check = checks[goal]
            for i, own in enumerate(own_range):
                if counts is not None:
                    met = counts[i]
                    table[(goal, own)] = met / len(samples)
                    continue
                met = 0  # a rule the grid cannot run (or not settled here): sample by sample
                for others in samples:
                    everyone = [*others, own]
                    if check(own, others, everyone, sorted(set(everyone)), others[0],
                             others[-1]):
                        met += 1
                table[(goal, own)] = met / len(samples)
        return model.affinity.remember(key, table)

    def _first(self, obs: Observation, decision: Decision) -> NumberCard:
        hand = obs.hand
        goals = frozenset(g.goal for g in obs.goal_hand)
        table_goal = obs.placed.goals[obs.seat]
        if table_goal is not None:  # goal-number-number: the goal is already known
            goals = frozenset({table_goal.goal})
        if self._passing(obs):
            goals = frozenset(obs.mission.goals)  # the goal to meet will come from a neighbour
        # A pure function of the hand and the goals: remembered across games, by this seat only.
        key = ("first", obs.rulebook, obs.mission.challenges, obs.mission.goals, obs.players,
               goals, hand)
        scores = self.memory.get(key)
        if scores is None:
            affinity = self._affinity(obs)
            best: dict[int, float] = {}  # own sum -> its chance for the most hopeful goal
            scores = {}
            for first in set(hand):
                rest = list(hand)
                rest.remove(first)
                top = 0.0
                for x in self._plan_sums(obs, first, 0, rest):
                    chance = best.get(x)
                    if chance is None:
                        chance = best[x] = max(affinity.get((g, x), 0.0) for g in goals)
                    top = max(top, chance)
                scores[first] = top
            self.memory.remember(key, scores)
        return self._pick(decision.choices, scores.__getitem__)

    def _passing(self, obs: Observation) -> bool:
        return bool(obs.mission.challenges) and \
            bool(self.model.plan(obs.rulebook, obs.mission.challenges).direction)

    def _goal(self, obs: Observation, decision: Decision) -> GoalCard:
        if self._passing(obs):
            return self.rng.choice(decision.goal_cards)  # R4: not the goal this seat must meet
        first = obs.placed.firsts[obs.seat]
        delta = obs.deltas[obs.seat]
        key = ("goal", obs.rulebook, obs.mission.challenges, obs.mission.goals, obs.players,
               first, delta, obs.hand)
        scores = self.memory.get(key)
        if scores is None:
            affinity = self._affinity(obs)
            sums: Iterable[int]
            if first is None:  # goal-number-number: for the best pair still possible
                sums = {x for f in set(obs.hand) for x in self._plan_sums(
                    obs, f, 0, [c for c in obs.hand if c != f])}
            else:
                sums = self._plan_sums(obs, first, delta, list(obs.hand))
            scores = self.memory.remember(
                key, {g: max((affinity.get((g, x), 0.0) for x in sums), default=0.0)
                      for g in set(obs.mission.goals)})
        return self._pick(decision.choices, lambda g: scores.get(g.goal, 0.0))

    def _second(self, obs: Observation, decision: Decision) -> NumberCard:
        placed = obs.placed  # at card 3, every first card and goal lies on the table
        first = placed.firsts[obs.seat]
        delta = obs.deltas[obs.seat]
        sums = {c: _pair(self.model, obs, first, c, delta)[0] for c in decision.cards}
        chances = self._goal_chances(obs, [g.goal for g in placed.goals], set(sums.values()))
        return self._pick(decision.choices, lambda c: chances[sums[c]])

    def _action(self, obs: Observation, decision: Decision) -> Any:
        """Use an action on its own cards when it raises its own chance by a clear margin."""
        table = obs.table
        hand = list(obs.hand)

        def best(use: ActionUse | None) -> float:
            # The table as it lies, after `use` (`actions.ACTIONS`: B's card comes back).
            placed = lay_out(Layout([t[0] for t in table], [t[1] for t in table],
                                    list(obs.deltas)), () if use is None else (use,))
            own_hand = hand if use is None else list(ACTIONS[use.card].on_hand(
                tuple(hand), use, obs.placed.firsts[obs.seat]))
            sums = self._plan_sums(obs, placed.firsts[obs.seat], placed.deltas[obs.seat],
                                   own_hand)
            if not sums:
                return 0.0
            return max(self._goal_chances(obs, [g.goal for g in placed.goals], sums).values())

        relevant: list[Callable[[ActionUse], bool]] = [
            lambda u: u.card in (Action.F, Action.G) and u.target == obs.seat,
            lambda u: u.card in (Action.B, Action.D),
        ]
        candidates = [u for u in decision.uses[1:]
                      if u is not None and any(r(u) for r in relevant)]
        if not candidates:
            return None
        baseline = best(None)
        values = [best(u) for u in candidates]  # each weighed once
        top = max(values)
        scored = candidates[values.index(top)]  # the first best, as max() gives
        return scored if top >= baseline + 0.15 else None


def _met_counts(rule: GridRule | None, own_range: list[int], samples: list[list[int]]
                ) -> list[int] | None:
    """Per own sum of `own_range`, on how many `samples` (the others' sums; the first is the
    left neighbour, the last the right) a goal's rule is met: every own sum and sample at once,
    on the grid (synergy_forge.sim.grid). None when the grid cannot say (the rule's own way
    then counts, and fails where it would)."""
    if rule is None:
        return None
    columns = np.array(samples, dtype=np.int64).T
    others = [column.reshape(1, -1) for column in columns]
    own = np.array(own_range, dtype=np.int64).reshape(-1, 1)
    try:
        met = rule(own, Many(others), Many([*others, own]), others[0], others[-1])
    except (Unsettled, NotOnGrid):
        return None
    shape = (len(own_range), len(samples))
    return [int(n) for n in np.broadcast_to(met, shape).sum(axis=1).tolist()]


def _keep(model: MissionModel, obs: Observation, choices: Sequence[NumberCard]) -> NumberCard:
    """R17: the card to take back that leaves the most legal pairs in the hand for later
    rounds (the higher card on a tie).

    The pairs the hand makes without the card are the same whichever card comes back, so
    only those it makes with the card (either card first) are counted: the same order.
    """
    hand = obs.hand

    def pairs(card: NumberCard) -> tuple[int, int, str]:
        legal = sum(1 for other in hand if not _pair(model, obs, card, other, 0)[1]) + \
            sum(1 for other in hand if not _pair(model, obs, other, card, 0)[1])
        return legal, card.value, card.color
    return max(choices, key=pairs)


def _pair(model: MissionModel, obs: Observation, first: NumberCard, second: NumberCard,
          delta: int) -> tuple[int, bool]:
    return model.pair_sum(obs.rulebook, obs.mission.challenges, first, second, delta)


def legal_sums(model: MissionModel, rulebook: Rulebook, challenges: tuple[str, ...],
               first: NumberCard, delta: int, cards: frozenset[NumberCard]) -> frozenset[int]:
    """The sums `first` (changed by `delta`) makes with a card of `cards`, keeping R9."""
    key = (rulebook, challenges, first, delta, cards)
    found = model.legal_sums.get(key)
    if found is None:
        found = model.legal_sums.remember(key, frozenset(
            total for total, broken in (model.pair_sum(rulebook, challenges, first, card, delta)
                                        for card in cards) if not broken))
    return found


def _unseen(colors: tuple[str, ...], seen: Any) -> dict[str, dict[int, int]]:
    """Per colour, how many cards of each value are not among `seen`."""
    unseen = {color: dict(_EACH_VALUE) for color in colors}
    for card in seen:
        if type(card) is NumberCard:
            counts = unseen.get(card.color)
            if counts is not None and counts.get(card.value, 0) > 0:
                counts[card.value] -= 1
    return unseen


def _support(model: MissionModel, rulebook: Rulebook, challenges: tuple[str, ...],
             first: NumberCard, delta: int, color: str, unseen: dict[int, int]) -> Support:
    """How many of a seat's possible second cards give each sum, keeping the challenges."""
    key = (rulebook, challenges, first, delta, color, tuple(unseen.items()))
    support = model.supports.get(key)
    if support is None:
        weights: dict[int, float] = {}
        for value, count in unseen.items():
            total, broken = model.pair_sum(rulebook, challenges, first,
                                           NumberCard(value, color), delta)
            if count > 0 and not broken:
                weights[total] = weights.get(total, 0.0) + count
        # nothing legal left: R9 ends the mission
        support = model.supports.remember(key, Support.of(weights or {0: 1.0}))
    return support
