"""The coop bot: plays for the group, every seat following one table convention (the opening).

The opening convention is a pure function of public facts (the mission, the player count),
kept in the mission model (sim.model) and shared by every seat. A hand's best opening scores
are kept there too, keyed by the hand (as `greedy.legal_sums`): asked again at every table of
the skill ladder, which deals the same hands.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import numpy as np

from synergy_forge.core.cards import Action, GoalCard, NumberCard
from synergy_forge.core.choices import Decision, DecisionKind
from synergy_forge.core.memo import Memo
from synergy_forge.core.observation import Observation
from synergy_forge.core.referee import arrange, colour_pair_sums
from synergy_forge.core.rules import Rulebook
from synergy_forge.sim.chances import grid_rules, success_chances
from synergy_forge.sim.greedy import GreedyBot
from synergy_forge.sim.grid import Many, NotOnGrid, Unsettled
from synergy_forge.sim.model import MissionModel


class CoopBot(GreedyBot):
    """Plays for the group: every choice serves the ROUND (allowed failures, the super card and
    the hyper card included), and the seats follow one table convention so that they do not all
    take the same "best" play together.

    - First card and goal card: the others' goals are unknown then, so every seat follows a
      convention computed from public facts alone (the mission and the player count, `_Opening`):
      seat by seat in seat order, the goal and sum that best serve the seats before it, each
      seat's own choice then weighed against that plan. Without it every seat, modelling the
      others as random, would open with the same pair and goal (all "unique" on the same sum,
      all missing). When goals pass (R4), the goal given is the one the convention wants for
      the seat it lands on, of those this seat holds.
    - Last card: exact over what it cannot see: every legal second card each other seat could
      still hold (by elimination, each equally likely) is weighed, and every possible table is
      judged by the goals' own rules (synergy_forge.sim.chances).
    - Actions: H when the round is more likely lost than won; otherwise an action on its own
      cards that clearly raises its chance (as the greedy bot does).
    - Take-back (R17): the card that leaves the most legal pairs for the rounds to come.
    """

    name = "coop"

    def choose(self, observation: Observation, decision: Decision) -> Any:
        if len(decision.choices) == 1:
            return decision.choices[0]
        kind = decision.kind
        if kind is DecisionKind.SECOND_NUMBER:
            chances = self.round_chances(observation, list(decision.cards))
            return self._pick(decision.choices, lambda c: chances[c])
        if kind is DecisionKind.ACTION:
            return self._coop_action(observation, decision)
        if kind is DecisionKind.FIRST_NUMBER:
            return self._opening_first(observation, decision)
        if kind is DecisionKind.GOAL:
            return self._opening_goal(observation, decision)
        return super().choose(observation, decision)

    def _opening_best(self, obs: Observation, first: NumberCard | None, goals: Sequence[str],
                      per_goal: bool) -> Mapping[Any, float]:
        """The convention's score of this seat's best pair, from `first` (None: any card of its
        hand) and a goal of `goals`: per goal (`per_goal`), else per first card."""
        opening = _opening(self.model, obs)
        weights = _weights(obs)
        me = obs.seat
        delta = obs.deltas[me] if first is not None else 0
        # Everything the scores depend on (the opening's mission and player count included):
        # the skill ladder deals the same hands at every level.
        key = (obs.rulebook, obs.mission.challenges, obs.mission.goals, obs.players, weights,
               me, obs.hand, first, delta, frozenset(goals), per_goal)
        found = self.model.best_openings.get(key)
        if found is not None:
            return found
        hand = list(obs.hand)
        best: dict[Any, float] = {}
        for f in [first] if first is not None else sorted(set(hand)):
            rest = list(hand)
            if first is None:
                rest.remove(f)
            reachable = self._plan_sums(obs, f, delta, rest)
            for g in set(goals):
                value = opening.best(me, g, reachable, weights)
                at = g if per_goal else f
                best[at] = max(best.get(at, -1.0), value)
        return self.model.best_openings.remember(key, MappingProxyType(best))

    def _opening_first(self, obs: Observation, decision: Decision) -> NumberCard:
        table_goal = obs.placed.goals[obs.seat]
        if table_goal is not None:  # goal-number-number: the goal is already down
            goals: Sequence[str] = [table_goal.goal]
        elif self._passing(obs):  # the goal to meet comes from a neighbour: any of the deck's
            goals = obs.mission.goals
        else:
            goals = [g.goal for g in obs.goal_hand]
        best = self._opening_best(obs, None, goals, per_goal=False)
        return self._pick(decision.choices, lambda c: best.get(c, -1.0))

    def _opening_goal(self, obs: Observation, decision: Decision) -> GoalCard:
        me = obs.seat
        if self._passing(obs):
            # R4: the goal lands on a neighbour; give the one the convention wants there.
            n = obs.players
            lands = arrange(list(range(n)), list(range(n)), (),
                            self.model.plan(obs.rulebook, obs.mission.challenges).direction
                            ).goals
            to = lands.index(me)
            opening, weights = _opening(self.model, obs), _weights(obs)
            support = self._supports(obs, obs.table, obs.deltas)[to] \
                if obs.placed.firsts[to] is not None else None
            sums = support.sums if support is not None else opening.sums
            return self._pick(decision.choices, lambda g: max(
                opening.score(to, g.goal, x, weights) for x in sums))
        best = self._opening_best(obs, obs.placed.firsts[me], [g.goal for g in obs.goal_hand],
                                  per_goal=True)
        return self._pick(decision.choices, lambda g: best.get(g.goal, -1.0))

    def round_chances(self, obs: Observation, mine: list[NumberCard],
                      extra_failures: int = 0) -> dict[NumberCard, float]:
        """P(round succeeds and the mission goes on | this seat plays each card of `mine`)."""
        table, deltas, n, me = obs.table, obs.deltas, obs.players, obs.seat
        supports = self._supports(obs, table, deltas)
        placed = obs.placed  # after card 2, every first card and goal lies on the table
        own = {c: self.model.pair_sum(obs.rulebook, obs.mission.challenges, placed.firsts[me],
                                      c, deltas[me])[0] for c in mine}
        ignored = frozenset(u.seat for u in obs.actions_used if u.card is Action.J)
        allowed = obs.mission.failures_allowed(n) + extra_failures + sum(
            1 for u in obs.actions_used if u.card is Action.H)
        by_sum = success_chances(self.model, obs.rulebook, [g.goal for g in placed.goals],
                                 ignored, allowed, obs.super_seat, obs.hyper_seat, me,
                                 supports, sorted(set(own.values())))
        return {card: by_sum[s] for card, s in own.items()}

    def _coop_action(self, obs: Observation, decision: Decision) -> Any:
        """H when the round is more likely lost than won; else an action on its own cards that
        raises its chance clearly (the greedy bot's)."""
        hand = list(obs.hand)
        h = next((u for u in decision.uses[1:] if u is not None and u.card is Action.H), None)
        if h is not None and hand:
            base = max(self.round_chances(obs, hand).values())
            if base < 0.5 and \
                    max(self.round_chances(obs, hand, extra_failures=1).values()) > base + 0.15:
                return h
        return self._action(obs, decision)




#: How often the opening convention expects another seat to reach its planned sum (else any
#: sum its colour can make): the plan is made before anyone sees a hand.
FOLLOWS = 0.7
OPENING_SAMPLES = 240
#: Entries of an opening's memo of best scores (`_Opening.best`; about 300 bytes each).
BEST_SIZE = 20_000


class _Opening:
    """The table's opening convention for one mission and player count, from public facts only:
    seat by seat in seat order, the (goal, sum) that maximises how many of the seats so far meet
    their goals, the later seats taken as playing any pair. `score` weighs one seat's
    candidate (goal, sum) against the whole plan: how many seats meet their goals (the super
    and hyper seats counted again), each other seat at its planned sum FOLLOWS of the time."""

    def __init__(self, model: MissionModel, rulebook: Rulebook, challenges: tuple[str, ...],
                 goals: tuple[str, ...], players: int) -> None:
        pair_sums = colour_pair_sums(model.plan(rulebook, challenges)) or [0]
        self.sums = tuple(sorted(set(pair_sums)))
        self.goals = tuple(sorted(set(goals)))
        self.checks = rulebook.goal_checks
        self.rules = grid_rules(model, rulebook)
        n = self.players = players
        rng = random.Random(0)
        self.random = np.array([[rng.choice(pair_sums) for _ in range(n)]
                                for _ in range(OPENING_SAMPLES)], dtype=np.int64)
        self.follows = np.array([[rng.random() < FOLLOWS for _ in range(n)]
                                 for _ in range(OPENING_SAMPLES)])
        self.plan: list[tuple[str, int]] = []
        for k in range(n):
            best: tuple[float, str, int] | None = None
            for g in self.goals:
                for x, met in zip(self.sums, self._met_at(k, g, self.sums, upto=k),
                                  strict=True):
                    value = float(met.sum())
                    if best is None or value > best[0] + 1e-9:
                        best = (value, g, x)
            assert best is not None
            self.plan.append((best[1], best[2]))
        self._scores: dict[tuple[int, str, int], np.ndarray] = {}
        # Bounded: a hand's reachable sums are a subset of `sums`, many over a long run.
        self._best: Memo[tuple[int, str, frozenset[int], tuple[float, ...]], float] = \
            Memo(BEST_SIZE)

    def _met(self, seat: int, goal: str, own: int, upto: int | None = None) -> np.ndarray:
        """Per seat, the share of sampled tables on which it meets its goal, `seat` playing
        `goal` at `own`; with `upto`, only the seats up to it count, those before it at
        their planned sums and those after it at any sum (not yet planned)."""
        n, planned = self.players, self.plan
        columns = []
        for j in range(n):
            if j == seat:
                columns.append(np.full(OPENING_SAMPLES, own, dtype=np.int64))
            elif upto is not None:
                columns.append(np.full(OPENING_SAMPLES, planned[j][1], dtype=np.int64)
                               if j < upto else self.random[:, j])
            else:
                columns.append(np.where(self.follows[:, j], planned[j][1], self.random[:, j]))
        counted = n if upto is None else upto + 1
        met = np.zeros(n)
        everyone = Many(columns)
        for i in range(counted):
            goal_i = goal if i == seat else planned[i][0]
            rule = self.rules.get(goal_i)
            answer = None
            if rule is not None:
                try:
                    answer = rule(columns[i], Many(columns[:i] + columns[i + 1:]), everyone,
                                  columns[(i + 1) % n], columns[i - 1])
                except (Unsettled, NotOnGrid):
                    answer = None
            if answer is not None:
                met[i] = float(np.mean(np.broadcast_to(answer, (OPENING_SAMPLES,))))
                continue
            check = self.checks[goal_i]  # a rule the grid cannot run: table by table
            for row in range(OPENING_SAMPLES):
                sums = [int(c[row]) for c in columns]
                met[i] += bool(check(sums[i], sums[:i] + sums[i + 1:], sums,
                                     sorted(set(sums)), sums[(i + 1) % n], sums[i - 1]))
            met[i] /= OPENING_SAMPLES
        return met

    def _met_at(self, seat: int, goal: str, owns: Sequence[int],
                upto: int | None = None) -> list[np.ndarray]:
        """`_met` at each sum of `owns`: all at once where the goals' grid rules answer for
        every sum (each row the same shares: whole counts over the same samples), else one
        by one."""
        n, planned = self.players, self.plan
        counted = n if upto is None else upto + 1
        rules = [self.rules.get(goal if i == seat else planned[i][0]) for i in range(counted)]
        if None in rules:
            return [self._met(seat, goal, x, upto) for x in owns]
        columns: list[np.ndarray] = []
        for j in range(n):
            if j == seat:
                columns.append(np.array(owns, dtype=np.int64).reshape(-1, 1))
            elif upto is not None:
                columns.append(np.full(OPENING_SAMPLES, planned[j][1], dtype=np.int64)
                               if j < upto else self.random[:, j])
            else:
                columns.append(np.where(self.follows[:, j], planned[j][1], self.random[:, j]))
        shape = (len(owns), OPENING_SAMPLES)
        met = np.zeros((len(owns), n))
        everyone = Many(columns)
        try:
            for i, rule in enumerate(rules):
                assert rule is not None
                answer = rule(columns[i], Many(columns[:i] + columns[i + 1:]), everyone,
                              columns[(i + 1) % n], columns[i - 1])
                met[:, i] = np.mean(np.broadcast_to(answer, shape), axis=1)
        except (Unsettled, NotOnGrid):  # at some sum: each sum its own way
            return [self._met(seat, goal, x, upto) for x in owns]
        return [row.copy() for row in met]

    def score(self, seat: int, goal: str, own: int, weights: tuple[float, ...]) -> float:
        key = (seat, goal, own)
        met = self._scores.get(key)
        if met is None:
            # The seat's goal at every sum of the opening at once: the others are asked next.
            owns = sorted({*self.sums, own})
            for x, row in zip(owns, self._met_at(seat, goal, owns), strict=True):
                self._scores.setdefault((seat, goal, x), row)
            met = self._scores[key]
        return float(np.dot(met, weights))

    def best(self, seat: int, goal: str, sums: frozenset[int],
             weights: tuple[float, ...]) -> float:
        """The best `score` of `seat` playing `goal` at any of `sums` (-1.0: no sum).

        Remembered: the first card and the goal ask it for the same few reachable sums
        hundreds of thousands of times a tune, and a max of floats is the same in any order.
        The key's parts are few (seats, goals, the sums a hand reaches, the super and hyper
        seats' weights), so this stays small beside the opening's own arrays."""
        key = (seat, goal, sums, weights)
        found = self._best.get(key)
        if found is None:
            found = self._best.remember(key, max(
                (self.score(seat, goal, x, weights) for x in sums), default=-1.0))
        return found


def _opening(model: MissionModel, obs: Observation) -> _Opening:
    """The opening convention of this mission and player count (public facts, shared)."""
    key = (obs.rulebook, obs.mission.challenges, obs.mission.goals, obs.players)
    found: _Opening | None = model.openings.get(key)
    if found is None:
        found = model.openings.remember(key, _Opening(model, obs.rulebook,
                                                      obs.mission.challenges,
                                                      obs.mission.goals, obs.players))
    return found


def _weights(obs: Observation) -> tuple[float, ...]:
    """Each seat's weight in the opening's score: the super and hyper seats count again."""
    return tuple(1.0 + (i == obs.super_seat) + (i == obs.hyper_seat)
                 for i in range(obs.players))
