"""The public belief over hidden hands, and the round's opening as a policy every seat computes.

Where hands are dealt from decks (R2) no seat can count the others' hands, but every seat can
count which cards are still unseen, and so every hand each seat may hold: each deal of its
colour's unseen number cards (and goal cards) with its public hand size, weighted by how many
ways it can be dealt (R2: each deal equally likely). A *type* is one such hand.

`opening` answers, from public facts only, for every seat and every type it may hold, the
first card, the goal card and the second card it means to play: a joint policy of the round,
found by a chain of best responses (as SPARTA searches in Hanabi). It starts from a blueprint
(each seat any of its sums and any of its goals, equally likely); seat 0 best-responds to the
others, seat 1 to seat 0's answer and the others, and so on round the table, twice. Each
answer is exact over the others' types (the chance that the round succeeds, per sum and goal,
on a grid of every seat's possible sums; synergy_forge.sim.chances), so each link can only raise
the round's chance. A seat then plays its own part by looking up its own hand: every seat
computes the same policy, so each one knows what every type of every other seat plays.

Once card 1 and the goal lie face up, the policy says which types could have played them (the
posterior): `card3_chances` searches the last card over those, each seat's planned second card
the blueprint. A seat that did not follow the policy (a casual move at a lower skill) is
believed to hold any hand with the cards it showed.

Everything here is a pure function of public facts: the memos hold nothing else.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from math import comb
from typing import Any

import numpy as np

from synergy_forge.core.cards import NUMBER_VALUES, Action, NumberCard
from synergy_forge.core.engine import GoalCard
from synergy_forge.core.memo import Memo
from synergy_forge.core.observation import Observation
from synergy_forge.core.referee import pair_sum
from synergy_forge.sim.chances import Grid, Support, grid_rules, success_chances
from synergy_forge.sim.convention import Rules, goal_ease, pair_options
from synergy_forge.sim.grid import NotOnGrid, Unsettled

#: What one unit of a hand's value for later rounds (`convention.hand_value`) is worth, in
#: chance that this round succeeds: a hand left with no legal pair costs the whole round.
LATER = 0.01
#: Passes of the chain of best responses round the table.
PASSES = 2

_EACH_VALUE = Counter(NUMBER_VALUES)
#: A type: (per value 1..5, how many the hand holds; the distinct goals it holds).
Type = tuple[tuple[int, ...], tuple[str, ...]]
#: The opening of a round, per the public facts it depends on.
_OPENINGS: Memo[tuple[Any, ...], Opening | None] = Memo(256)
#: The hands of `size` cards a pool may deal, with their ways, per (pool, size).
_DEALS: Memo[tuple[Any, ...], tuple[tuple[tuple[Any, ...], int], ...]] = Memo(4096)
#: The chain of card-3 searches over the posterior, per public facts.
_CHAINS: Memo[tuple[Any, ...], tuple[dict[int, float], ...] | None] = Memo(1024)


@dataclass(frozen=True, slots=True)
class Opening:
    """A round's opening policy: per seat, per type, (first value, goal id, second value);
    and per seat, per (first value, goal id) shown, the types that show them: (the values left
    in hand, the planned second value) -> ways."""

    plays: tuple[dict[Type, tuple[int, str, int]], ...]
    shown: tuple[dict[tuple[int, str], dict[tuple[frozenset[int], int], int]], ...]
    chance: float  # the round's chance if every seat follows it (a check, for tests)


def _dealt(pool: Sequence[tuple[Any, int]], size: int) -> tuple[tuple[tuple[Any, ...], int], ...]:
    """Every hand of `size` cards from `pool` ((item, copies) pairs, in order): per hand, how
    many of each item it holds, and its number of ways (R2: each deal equally likely)."""
    key = (tuple(pool), size)
    found = _DEALS.get(key)
    if found is not None:
        return found
    out: list[tuple[tuple[Any, ...], int]] = []

    def walk(i: int, left: int, held: tuple[int, ...], ways: int) -> None:
        if i == len(pool):
            if left == 0:
                out.append((held, ways))
            return
        copies = pool[i][1]
        for k in range(min(copies, left) + 1):
            walk(i + 1, left - k, (*held, k), ways * comb(copies, k))

    walk(0, size, (), 1)
    return _DEALS.remember(key, tuple(out))


def _start_facts(obs: Observation) -> tuple[Any, ...] | None:
    """The public facts the round's opening depends on, as they were when the round began
    (each seat's hand sizes before it played this round); None where the opening does not
    apply: a number card may have moved to another colour's seat (I in an earlier round), or
    an action this round changed the hands (A, B, C) or what was played (D, E, I)."""
    mission = obs.mission
    if Action.I in mission.actions and Action.I not in obs.actions_available and \
            all(u.card is not Action.I for u in obs.actions_used):
        return None
    if any(u.card in (Action.A, Action.B, Action.C, Action.D, Action.E, Action.I)
           for u in obs.actions_used):
        return None
    n, placed = obs.players, obs.placed
    direction = obs.rulebook.plan(mission.challenges).direction
    numbers = tuple(obs.hand_numbers[j] + (placed.firsts[j] is not None)
                    + (obs.seconds[j] is not None) for j in range(n))
    goals = tuple(obs.hand_goals[j] + (placed.goals[(j + direction) % n] is not None)
                  for j in range(n))
    rules = Rules(obs.rulebook, mission.challenges, mission.goals, n, direction,
                  mission.failures_allowed(n), obs.super_seat, obs.hyper_seat,
                  obs.rounds_won + 1 >= mission.rounds)
    return (rules, obs.colors, obs.discards, numbers, goals, obs.deck_numbers, obs.deck_goals)


def opening(obs: Observation) -> Opening | None:
    """The round's opening policy (see the module's docstring), or None where it does not
    apply (see `_start_facts`) or a goal's rule cannot run on the grid."""
    facts = _start_facts(obs)
    if facts is None:
        return None
    found = _OPENINGS.get(facts, _OPENINGS)
    if found is not _OPENINGS:
        return found  # type: ignore[return-value]
    return _OPENINGS.remember(facts, _opening(*facts))


def _opening(rules: Rules, colors: tuple[str, ...], discards: tuple[tuple[Any, ...], ...],
             numbers: tuple[int, ...], goals: tuple[int, ...], deck_numbers: tuple[int, ...],
             deck_goals: tuple[int, ...]) -> Opening | None:
    n = rules.players
    seen = Counter(chain.from_iterable(discards))
    goal_copies = Counter(rules.goals)
    values = sorted(_EACH_VALUE)
    # Per seat: its number hands (value counts, ways) and goal hands (distinct goals, ways).
    number_types, goal_types = [], []
    for j in range(n):
        color = colors[j]
        pool = [(v, _EACH_VALUE[v] - seen[NumberCard(v, color)]) for v in values]
        hands = _dealt(pool, numbers[j])
        goal_pool = [(g, goal_copies[g] - seen[GoalCard(g, color)])
                     for g in sorted(goal_copies)]
        goal_hands = _dealt(goal_pool, goals[j])
        if not hands or not goal_hands or numbers[j] < 2:
            return None  # R21: this seat cannot play a round
        number_types.append(hands)
        goal_types.append(tuple((tuple(g for (g, _), k in zip(goal_pool, held, strict=True)
                                       if k), ways) for held, ways in goal_hands))
    universe = tuple(sorted({g for seat in goal_types for held, _ in seat for g in held}))
    on_grid = grid_rules(rules.rulebook)
    if any(on_grid.get(g) is None for g in universe):
        return None  # a campaign's goal the grid cannot run: the coop bot's opening
    # Per seat, per number hand: its options (per sum, the pair leaving the best hand).
    seat_options = []
    for j in range(n):
        color = colors[j]
        per_hand = []
        for held, ways in number_types[j]:
            hand = tuple(NumberCard(v, color) for v, k in zip(values, held, strict=True)
                         for _ in range(k))
            found = pair_options(rules, hand, None, 0)
            if found:  # else no legal pair (R9): the mission is lost whatever is played
                per_hand.append((held, ways, found))
        if not per_hand:
            return None
        seat_options.append(per_hand)
    axes = [tuple(sorted({o.sum for _, _, found in seat_options[j] for o in found}))
            for j in range(n)]
    try:
        return _Solver(rules, universe, axes, seat_options, goal_types).solve()
    except (Unsettled, NotOnGrid):  # a rule left unsettled on some table: the coop bot's
        return None


class _Solver:
    """The chain of best responses of `opening`, on the grid of every seat's possible sums."""

    def __init__(self, rules: Rules, universe: tuple[str, ...],
                 axes: list[tuple[int, ...]], seat_options: list[list[Any]],
                 goal_types: list[tuple[tuple[tuple[str, ...], int], ...]]) -> None:
        self.rules, self.universe, self.axes = rules, universe, axes
        self.seat_options, self.goal_types = seat_options, goal_types
        n = self.n = rules.players
        self.shape = tuple(len(a) for a in axes)
        # The goal seat j plays lies in front of seat pos[j] (R4).
        self.pos = [(j + rules.direction) % n for j in range(n)]
        self.owner = [0] * n
        for j, p in enumerate(self.pos):
            self.owner[p] = j
        # met[g][p]: where a goal g in front of seat p is met, over the grid (R10).
        self.met = []
        for g in universe:
            grid = Grid(rules.rulebook, (g,) * n, frozenset(), axes)
            self.met.append([np.broadcast_to(grid.met(p), self.shape) for p in range(n)])
        if rules.last_round:
            self.cost = np.zeros(len(universe))
        else:  # spend the hard goals, keep the easy ones for later (as the plan does)
            ease = goal_ease(rules)
            self.cost = np.array([LATER * 0.01 * ease.get(g, 0.0) for g in universe])
        self.goal_index = {g: k for k, g in enumerate(universe)}
        self.sum_index = [{s: k for k, s in enumerate(axis)} for axis in axes]

    def _view(self, j: int, array: np.ndarray) -> np.ndarray:
        """`array` (along seat j's sums) shaped to broadcast along seat j's axis of the grid."""
        view = [1] * self.n
        view[j] = self.shape[j]
        return array.reshape(view)

    def blueprint(self, j: int) -> np.ndarray:
        """Seat j's sum and goal, each of its types playing any of its sums and any of its
        goals, equally likely: weights over (sum, goal)."""
        sums = np.zeros(self.shape[j])
        for _, ways, found in self.seat_options[j]:
            for o in found:
                sums[self.sum_index[j][o.sum]] += ways / len(found)
        goals = np.zeros(len(self.universe))
        for held, ways in self.goal_types[j]:
            for g in held:
                goals[self.goal_index[g]] += ways / len(held)
        return np.outer(sums, goals)

    def met_chance(self, p: int, weights: np.ndarray) -> np.ndarray:
        """Where the goal in front of seat p is met, as a chance over the grid, when its owner
        plays by `weights` (over its sums and goals)."""
        o = self.owner[p]
        marginal = weights.sum(axis=1, keepdims=True)
        given = np.divide(weights, marginal, out=np.zeros_like(weights), where=marginal > 0)
        out = np.zeros(self.shape)
        for k in range(len(self.universe)):
            column = given[:, k]
            if column.any():
                out += self._view(o, column) * self.met[k][p]
        return out

    def table(self, i: int, chances: list[np.ndarray], weights: list[np.ndarray]) -> np.ndarray:
        """P(the round succeeds | seat i's sum, the goal it plays), the others by `weights`:
        per sum of seat i, per goal of the universe."""
        rules = self.rules
        musts = {rules.super_seat, rules.hyper_seat} - {None}
        allowed = rules.allowed
        mine = self.pos[i]
        # Per number of failures so far (0..allowed): the chance, over the grid.
        ways = [np.ones(self.shape)] + [np.zeros(self.shape) for _ in range(allowed)]
        for p in range(self.n):
            if p == mine:
                continue
            m = chances[p]
            if p in musts:
                ways = [w * m for w in ways]
            else:
                miss = 1.0 - m
                ways = [ways[0] * m] + [ways[k] * m + ways[k - 1] * miss
                                        for k in range(1, allowed + 1)]
        met_ok = sum(ways[1:], ways[0])
        failed_ok = np.zeros(self.shape) if mine in musts or allowed == 0 \
            else sum(ways[1:allowed], ways[0])
        operands: list[Any] = []
        for j in range(self.n):
            if j != i:
                marginal = weights[j].sum(axis=1)
                operands += [marginal / marginal.sum(), [j]]
        base = np.einsum(failed_ok, list(range(self.n)), *operands, [i])
        gain = met_ok - failed_ok
        out = np.empty((self.shape[i], len(self.universe)))
        for k in range(len(self.universe)):
            out[:, k] = base + np.einsum(gain * self.met[k][mine], list(range(self.n)),
                                         *operands, [i])
        return out

    def respond(self, i: int, table: np.ndarray) -> tuple[np.ndarray, dict[Type, Any]]:
        """Seat i's best response to `table`, per type: the sum and goal with the best
        chance, plus what the hand left and the goals kept are worth later (ties: the
        lower sum, then the goal's order)."""
        weights = np.zeros_like(table)
        plays: dict[Type, Any] = {}
        index = self.sum_index[i]
        goal_ids = [[self.goal_index[g] for g in held] for held, _ in self.goal_types[i]]
        for held, ways, found in self.seat_options[i]:
            rows = [index[o.sum] for o in found]
            later = np.array([LATER * o.kept for o in found]).reshape(-1, 1)
            scores = table[rows] + later
            best_row = scores.argmax(axis=0)  # per goal, the best of this hand's sums
            value = scores.max(axis=0) - self.cost
            for (goal_held, goal_ways), ids in zip(self.goal_types[i], goal_ids, strict=True):
                k = ids[int(np.argmax(value[ids]))]
                o = found[int(best_row[k])]
                weights[index[o.sum], k] += ways * goal_ways
                plays[held, goal_held] = (o.first.value, self.universe[k], o.second.value)
        return weights, plays

    def solve(self) -> Opening:
        n = self.n
        weights = [self.blueprint(j) for j in range(n)]
        chances = [self.met_chance(p, weights[self.owner[p]]) for p in range(n)]
        plays: list[dict[Type, Any]] = [{} for _ in range(n)]
        for _ in range(PASSES):
            for i in range(n):
                weights[i], plays[i] = self.respond(i, self.table(i, chances, weights))
                chances[self.pos[i]] = self.met_chance(self.pos[i], weights[i])
        chance = float(self.table(0, chances, weights).reshape(-1).dot(
            weights[0].reshape(-1)) / weights[0].sum())
        shown: list[dict[tuple[int, str], dict[tuple[frozenset[int], int], int]]] = []
        values = sorted(_EACH_VALUE)
        goal_ways = [dict(seat) for seat in self.goal_types]
        for i in range(n):
            number_ways = {held: ways for held, ways, _ in self.seat_options[i]}
            seat: dict[tuple[int, str], dict[tuple[frozenset[int], int], int]] = {}
            for (held, goal_held), (first, goal, second) in plays[i].items():
                left = list(held)
                left[values.index(first)] -= 1
                kept = frozenset(v for v, k in zip(values, left, strict=True) if k)
                by = seat.setdefault((first, goal), {})
                by[kept, second] = by.get((kept, second), 0) + \
                    number_ways[held] * goal_ways[i][goal_held]
            shown.append(seat)
        return Opening(tuple(plays), tuple(shown), chance)


def own_type(obs: Observation) -> Type | None:
    """This seat's type as the round began: its hands, with the cards it played this round
    back in them; None when it holds a card of another colour."""
    me, placed = obs.seat, obs.placed
    color = obs.colors[me]
    cards = list(obs.hand)
    if placed.firsts[me] is not None:
        cards.append(placed.firsts[me])
    if any(c.color != color for c in cards):
        return None
    counts = Counter(c.value for c in cards)
    direction = obs.rulebook.plan(obs.mission.challenges).direction
    goal_cards = list(obs.goal_hand)
    played = placed.goals[(me + direction) % obs.players]
    if played is not None:
        goal_cards.append(played)
    return (tuple(counts[v] for v in sorted(_EACH_VALUE)),
            tuple(sorted({g.goal for g in goal_cards})))


def planned(obs: Observation) -> tuple[int, str, int] | None:
    """This seat's part of the round's opening: (first value, goal id, second value)."""
    policy = opening(obs)
    mine = own_type(obs)
    if policy is None or mine is None:
        return None
    return policy.plays[obs.seat].get(mine)


def card3_chances(obs: Observation) -> tuple[dict[int, float], ...] | None:
    """Card 3 as a chain of searches over the posterior: per seat, P(the round succeeds | its
    sum), when the seats before it (in seat order) play their searched card and those after
    it their planned second card, each from every hand the opening says it may hold after
    what it showed. None where the opening does not apply."""
    policy = opening(obs)
    if policy is None:
        return None
    placed, n = obs.placed, obs.players
    key = (_start_facts(obs), placed, obs.mission.failures_allowed(n))
    found = _CHAINS.get(key, _CHAINS)
    if found is not _CHAINS:
        return found  # type: ignore[return-value]
    return _CHAINS.remember(key, _card3(obs, policy))


def _card3(obs: Observation, policy: Opening) -> tuple[dict[int, float], ...] | None:
    n, colors = obs.players, obs.colors
    rulebook, challenges = obs.rulebook, obs.mission.challenges
    placed = obs.placed
    goals = tuple(g.goal for g in placed.goals)
    allowed = obs.mission.failures_allowed(n) + placed.extra_failures
    direction = rulebook.plan(challenges).direction
    # The unseen cards of each colour (for a seat that did not follow the opening).
    unseen = {color: Counter(_EACH_VALUE) for color in colors}
    for card in chain(chain.from_iterable(obs.discards), placed.firsts, obs.seconds):
        if isinstance(card, NumberCard) and card.color in unseen:
            unseen[card.color][card.value] -= 1
    legal: list[dict[int, int]] = []  # per seat: card value -> its sum, for legal cards
    uniform: list[Support] = []
    deals: list[list[tuple[frozenset[int], int | None, int]]] = []
    for j in range(n):
        first = placed.firsts[j]
        if first is None or first.color != colors[j]:
            return None
        pool = unseen[colors[j]]
        sums: dict[int, int] = {}
        for value in sorted(v for v, k in pool.items() if k > 0):
            total, broken = pair_sum(rulebook, challenges, first, NumberCard(value, colors[j]),
                                     placed.deltas[j])
            if not broken:
                sums[value] = total
        weights: dict[int, float] = {}
        for value, total in sums.items():
            weights[total] = weights.get(total, 0.0) + pool[value]
        if not weights:
            return None
        legal.append(sums)
        uniform.append(Support.of(weights))
        goal = placed.goals[(j + direction) % n]
        shown = policy.shown[j].get((first.value, goal.goal)) if goal is not None else None
        if shown:
            deals.append([(held, second, ways) for (held, second), ways in shown.items()])
        else:  # it did not follow the opening: any hand of its colour's unseen cards
            size = obs.hand_numbers[j]
            items = [(v, pool[v]) for v in sorted(pool) if pool[v] > 0]
            deals.append([(frozenset(v for (v, _), k in zip(items, held, strict=True) if k),
                           None, ways) for held, ways in _dealt(items, size)])

    def chances(j: int, supports: list[Support]) -> dict[int, float]:
        return success_chances(rulebook, goals, placed.ignored, allowed, obs.super_seat,
                               obs.hyper_seat, j, supports, uniform[j].sums, remember=False)

    def played(j: int, chance: dict[int, float] | None) -> Support | None:
        """Seat j's sum when each hand plays its planned card (`chance` None: where the plan
        is kept and legal; else by the uniform blueprint) or its best card by `chance`."""
        sums = legal[j]
        axis = uniform[j].sums
        weights = dict.fromkeys(axis, 0.0)
        fallback = chance if chance is not None else chances(j, uniform)
        order = sorted(sums, key=lambda v: (fallback[sums[v]], v), reverse=True)
        for held, second, ways in deals[j]:
            if chance is None and second is not None and second in held and second in sums:
                weights[sums[second]] += ways
                continue
            for v in order:
                if v in held:
                    weights[sums[v]] += ways
                    break
        return Support.of(weights) if any(weights.values()) else None

    plays: list[Support] = []
    for j in range(n):
        blueprint = played(j, None)
        if blueprint is None:
            return None
        plays.append(blueprint)
    tables = []
    for j in range(n):
        chance = chances(j, plays)
        tables.append(chance)
        searched = played(j, chance)
        if searched is None:
            return None
        plays[j] = searched
    return tuple(tables)
