"""Bots: players that see only their own observation and answer one decision at a time.

A bot is any object with `choose(observation, decision) -> choice`. Adding one is one class
and one line in BOTS.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from itertools import product
from typing import Any, Protocol

from synergy_forge.cards import NUMBER_VALUES, Action, NumberCard
from synergy_forge.engine import Decision, DecisionKind, GoalCard, Observation
from synergy_forge.referee import arrange, seat_sum


class Bot(Protocol):
    name: str

    def choose(self, observation: Observation, decision: Decision) -> Any: ...


class RandomBot:
    """Uniform over the legal choices."""

    name = "random"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, observation: Observation, decision: Decision) -> Any:
        return self.rng.choice(decision.choices)


#: Beyond this many combinations of the other seats' sums, estimate by sampling.
EXACT_LIMIT = 2000
SAMPLES = 200


class GreedyBot:
    """Plays for its own goal only: each choice maximises the chance that this seat meets it.

    The other seats' sums are modelled from what is face up: a card not yet played is any of
    that colour's unseen cards (all ten, less those in discard rows, on the table and in this
    seat's hand), each equally likely, keeping the challenges. The chance is exact when the
    combinations are few, else estimated from samples drawn from the bot's own generator.
    """

    name = "greedy"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

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
            return max(decision.choices, key=lambda c: (c.value, c.color))
        return self.rng.choice(decision.choices)

    # -- the model of the others -----------------------------------------------------------

    def _unseen(self, obs: Observation, color: str) -> list[NumberCard]:
        pool = Counter(NumberCard(v, color) for v in NUMBER_VALUES)
        seen: list[Any] = [c for row in obs.discards for c in row]
        seen += [c for first, _, second in obs.table for c in (first, second) if c is not None]
        seen += list(obs.hand)
        for card in seen:
            if isinstance(card, NumberCard) and card.color == color and pool[card] > 0:
                pool[card] -= 1
        return list(pool.elements())

    def _other_sums(self, obs: Observation) -> list[Counter]:
        """Per other seat, a distribution (Counter of weights) of its sum."""
        plan = obs.rulebook.plan(obs.mission.challenges)
        table, deltas = obs.table, obs.deltas
        out: list[Counter] = []
        for seat in range(obs.players):
            if seat == obs.seat:
                continue
            first, _, second = table[seat]
            pool = self._unseen(obs, obs.colors[seat])
            dist: Counter = Counter()
            if first is not None and second is not None:
                dist[seat_sum(plan, first, second, deltas[seat])[4]] = 1
            elif first is not None:
                for card in pool or [first]:
                    e = seat_sum(plan, first, card, deltas[seat])
                    if not e[6]:
                        dist[e[4]] += 1
            else:
                for i, a in enumerate(pool):
                    for j, b in enumerate(pool):
                        if i != j:
                            e = seat_sum(plan, a, b, 0)
                            if not e[6]:
                                dist[e[4]] += 1
            if not dist:  # nothing legal is left to them: any sum of the pool
                dist[0] = 1
            out.append(dist)
        return out

    def _chances(self, obs: Observation, own_sums: set[int], goals: set[str],
                 dists: list[Counter] | None = None) -> dict[tuple[str, int], float]:
        """P(goal met | own sum) for every goal and own sum asked, by the goal's own rule."""
        dists = dists if dists is not None else self._other_sums(obs)
        checks = obs.rulebook.goal_checks
        seat, n = obs.seat, obs.players
        others_seats = [s for s in range(n) if s != seat]
        left_index = others_seats.index((seat + 1) % n)
        right_index = others_seats.index((seat - 1) % n)
        supports = [list(d.items()) for d in dists]
        combos = 1
        for s in supports:
            combos *= len(s)
        if combos <= EXACT_LIMIT:
            weighted = []
            for picks in product(*supports):
                weight = 1.0
                for _, w in picks:
                    weight *= w
                weighted.append(([v for v, _ in picks], weight))
        else:
            weighted = []
            for _ in range(SAMPLES):
                values = [self.rng.choices([v for v, _ in s], [w for _, w in s])[0]
                          for s in supports]
                weighted.append((values, 1.0))
        total = sum(w for _, w in weighted)
        result = {}
        for goal in goals:
            check = checks[goal]
            for own in own_sums:
                met = 0.0
                for others, weight in weighted:
                    everyone = [*others, own]
                    if check(own, others, everyone, sorted(set(everyone)),
                             others[left_index], others[right_index]):
                        met += weight
                result[(goal, own)] = met / total
        return result

    # -- decisions ---------------------------------------------------------------------------

    def _plan_sums(self, obs: Observation, first: NumberCard, delta: int,
                   hand: list[NumberCard]) -> list[int]:
        plan = obs.rulebook.plan(obs.mission.challenges)
        sums = []
        for card in set(hand):
            e = seat_sum(plan, first, card, delta)
            if not e[6]:
                sums.append(e[4])
        return sums

    def _first(self, obs: Observation, decision: Decision) -> NumberCard:
        hand = list(obs.hand)
        goals = {g.goal for g in obs.goal_hand} or set(obs.rulebook.goals)
        table_goal = obs.table[obs.seat][1]
        if table_goal is not None:  # goal-number-number: the goal is already known
            goals = {table_goal.goal}
        options = {}
        for first in decision.choices:
            rest = list(hand)
            rest.remove(first)
            options[first] = self._plan_sums(obs, first, 0, rest)
        chances = self._chances(obs, {s for v in options.values() for s in v}, goals)
        return self._pick(decision.choices, lambda f: max(
            (chances[(g, s)] for g in goals for s in options[f]), default=0.0))

    def _goal(self, obs: Observation, decision: Decision) -> GoalCard:
        if obs.mission.challenges and obs.rulebook.plan(obs.mission.challenges).direction:
            return self.rng.choice(decision.choices)  # R4: not the goal this seat must meet
        first = obs.table[obs.seat][0]
        if first is None:  # goal-number-number: choose for the best pair still possible
            sums = {s for f in set(obs.hand) for s in self._plan_sums(
                obs, f, 0, [c for c in obs.hand if c != f])}
            goals = {g.goal for g in decision.choices}
            chances = self._chances(obs, sums, goals)
            return self._pick(decision.choices,
                              lambda g: max((chances[(g.goal, s)] for s in sums), default=0.0))
        sums = set(self._plan_sums(obs, first, obs.deltas[obs.seat], list(obs.hand)))
        chances = self._chances(obs, sums, {g.goal for g in decision.choices})
        return self._pick(decision.choices,
                          lambda g: max((chances[(g.goal, s)] for s in sums), default=0.0))

    def _second(self, obs: Observation, decision: Decision) -> NumberCard:
        first, goal, _ = obs.table[obs.seat]
        plan = obs.rulebook.plan(obs.mission.challenges)
        delta = obs.deltas[obs.seat]
        sums = {c: seat_sum(plan, first, c, delta)[4] for c in decision.choices}
        chances = self._chances(obs, set(sums.values()), {goal.goal})
        return self._pick(decision.choices, lambda c: chances[(goal.goal, sums[c])])

    def _action(self, obs: Observation, decision: Decision) -> Any:
        """Use an action on its own cards when it raises its own chance by a clear margin."""
        table = obs.table
        hand = list(obs.hand)
        dists = self._other_sums(obs)

        def best(use: Any) -> float:
            used = [*obs.actions_used, use] if use is not None else list(obs.actions_used)
            firsts = [t[0] for t in table]
            goals = [t[1] for t in table]
            placed = arrange(firsts, goals, used[len(obs.actions_used):])
            first, goal = placed.firsts[obs.seat], placed.goals[obs.seat]
            delta = obs.deltas[obs.seat] + placed.deltas[obs.seat]
            own_hand = list(hand)
            if use is not None and use.card is Action.B:
                delta = 0  # S2: changes leave with the card
                own_hand.remove(use.replacement)
                own_hand.append(table[obs.seat][0])
            sums = set(self._plan_sums(obs, first, delta, own_hand))
            if not sums:
                return 0.0
            chances = self._chances(obs, sums, {goal.goal}, dists)
            return max(chances[(goal.goal, s)] for s in sums)

        relevant: list[Callable[[Any], bool]] = [
            lambda u: u.card in (Action.F, Action.G) and u.target == obs.seat,
            lambda u: u.card in (Action.B, Action.D),
        ]
        candidates = [u for u in decision.choices[1:] if any(r(u) for r in relevant)]
        if not candidates:
            return None
        baseline = best(None)
        scored = max(candidates, key=best)
        return scored if best(scored) >= baseline + 0.15 else None


BOTS: dict[str, type] = {"random": RandomBot, "greedy": GreedyBot}


def make_bot(name: str, seed: int, seat: int) -> Bot:
    """A bot with its own generator, derived from the game's seed and its seat."""
    return BOTS[name](random.Random(f"{name}:{seed}:{seat}"))
