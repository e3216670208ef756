"""A round's policy over hidden hands, and the chain of best responses that finds it.

`Solver` is handed, for every seat, the hands it may hold (its *types*: number hands with their
options, goal hands, and each type's weight) and the grid of every seat's possible sums; it
answers, for every type of every seat, the first card, goal card and second card it plays
(`Opening`), each seat's answer a best response to the others' (synergy_forge.sim.belief builds
the types from public facts and says when each policy is played). Everything here is a pure
function of its arguments; what it remembers, the mission model (sim.model) holds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from synergy_forge.core.cards import NUMBER_VALUES
from synergy_forge.sim.chances import Grid, grid_rules
from synergy_forge.sim.convention import Rules, goal_ease
from synergy_forge.sim.grid import NotOnGrid, Unsettled
from synergy_forge.sim.model import MissionModel

#: What one unit of a hand's value for later rounds (`convention.hand_value`) is worth, in
#: chance that this round succeeds: a hand left with no legal pair costs the whole round.
LATER = 0.01
#: At most this many passes of the chain of best responses round the table (it stops sooner
#: once each seat's play is a best response to the others' as they stand):
#: for the opening, and for the reply (on a smaller grid: each seat's card 1 is known).
PASSES = 4
REPLY_PASSES = 2

_EACH_VALUE = Counter(NUMBER_VALUES)
_VALUES = sorted(_EACH_VALUE)
#: A type: (per value 1..5, how many the hand holds; the distinct goals it holds).
Type = tuple[tuple[int, ...], tuple[str, ...]]


class Opening:
    """A round's opening policy: per seat, per type it may hold, (first value, goal id,
    second value) (`play`); and per seat, per (first value, goal id) it showed, the types that
    show them (`shown`). `chance`: the round's chance if every seat follows it."""

    def __init__(self, solver: Solver, plays: list[tuple[np.ndarray, np.ndarray]],
                 chance: float) -> None:
        self.solver, self.plays, self.chance = solver, plays, chance
        self._shown: dict[tuple[int, int, str], dict[tuple[frozenset[int], int], float]] = {}

    def play(self, seat: int, held: Type) -> tuple[int, str, int] | None:
        solver = self.solver
        h = solver.number_index[seat].get(held[0])
        # Once its goal card lies on the table, a seat's goal hand no longer matters here.
        g = 0 if solver.goal_played else solver.goal_index_of[seat].get(held[1])
        if h is None or g is None:
            return None
        goal, row = self.plays[seat]
        k, r = int(goal[h, g]), int(row[h, g])
        return (int(solver.firsts[seat][h, r]), solver.universe[k],
                int(solver.seconds[seat][h, r]))

    def shown(self, seat: int, first: int, goal: str) -> dict[tuple[frozenset[int], int], float]:
        """The hands (values left after card 1) and planned second values of the types of
        `seat` that show `first` and `goal`, each with its ways (worked out when first asked:
        a pure function of the policy)."""
        key = (seat, first, goal)
        found = self._shown.get(key)
        if found is not None:
            return found
        solver = self.solver
        out: dict[tuple[frozenset[int], int], float] = {}
        k = solver.goal_at.get(goal)
        if k is not None:
            goals, rows = self.plays[seat]
            hs = np.arange(rows.shape[0])[:, None]
            firsts = solver.firsts[seat][hs, rows]
            hands, goal_hands = np.nonzero((goals == k) & (firsts == first))
            # Each type as one number (the values left after card 1 as bits, the second
            # value), and the ways of each such number added in the types' order.
            left = solver.counts[seat][hands]
            left[:, _VALUES.index(first)] -= 1
            kept = (left > 0) @ (1 << np.arange(len(_VALUES)))
            step = _VALUES[-1] + 1
            seconds = solver.seconds[seat][hands, rows[hands, goal_hands]]
            pairs, at, inverse = np.unique(kept * step + seconds, return_index=True,
                                           return_inverse=True)
            ways = np.bincount(inverse, solver.type_ways[seat][hands, goal_hands], len(pairs))
            for u in np.argsort(at):  # in the order each first appears
                bits, second = divmod(int(pairs[u]), step)
                held = frozenset(v for b, v in enumerate(_VALUES) if bits >> b & 1)
                out[held, second] = float(ways[u])
        self._shown[key] = out
        return out


class Solver:
    """The chain of best responses of `opening`, on the grid of every seat's possible sums.
    Every choice is made for all of a seat's types at once (arrays: per number hand `h`, per
    goal hand `g`)."""

    def __init__(self, model: MissionModel, rules: Rules, universe: tuple[str, ...],
                 axes: list[tuple[int, ...]], seat_options: list[list[Any]],
                 goal_types: list[tuple[tuple[tuple[str, ...], int], ...]],
                 type_ways: list[np.ndarray] | None = None, goal_played: bool = False) -> None:
        """`type_ways[j]`: per (number hand, goal hand) of seat j, its weight (default: the
        product of their ways, R2); `goal_played`: every goal card is on the table already
        (each seat's goal hand is then its one goal)."""
        self.rules, self.universe, self.axes = rules, universe, axes
        self.goal_played = goal_played
        self.options = [[found for _, _, found in seat] for seat in seat_options]
        self.goal_types = goal_types
        n = self.n = rules.players
        self.shape = tuple(len(a) for a in axes)
        # The goal seat j plays lies in front of seat pos[j] (R4).
        self.pos = [(j + rules.direction) % n for j in range(n)]
        self.owner = [0] * n
        for j, p in enumerate(self.pos):
            self.owner[p] = j
        self.met = met_grid(model, rules.rulebook, universe, tuple(axes))
        # Where each seat's sums lie on the met grid's axes.
        self.at = [np.searchsorted(wide, a) for a, wide in zip(axes, self.met.axes, strict=True)]
        # Per seat p, per table of the grid: where its set of goals met lies in `met_chance`'s
        # table (per sum of the owner of p's goal, per set).
        kinds = cut(self.met.kinds, self.at, lead=1)
        self.kinds = []
        for p in range(n):
            o = self.owner[p]
            along = [1] * n
            along[o] = self.shape[o]
            self.kinds.append(np.arange(self.shape[o]).reshape(along) * len(self.met.sets[p])
                              + kinds[p])
        if rules.last_round:
            self.cost = np.zeros(len(universe))
        else:  # spend the hard goals, keep the easy ones for later (as the plan does)
            ease = goal_ease(model, rules)
            self.cost = np.array([LATER * 0.01 * ease.get(g, 0.0) for g in universe])
        self.goal_at = {g: k for k, g in enumerate(universe)}
        # Per seat: its number hands' options as arrays padded to the most options a hand
        # has (a padding row points at a sum row of -inf), and its goal hands as masks.
        self.rows, self.later, self.loss, self.firsts, self.seconds = [], [], [], [], []
        self.number_types, self.number_ways, self.number_index = [], [], []
        self.counts: list[np.ndarray] = []  # per seat, its number types as (type, value)
        self.masks, self.goal_ways, self.goal_index_of = [], [], []
        for j in range(n):
            index = {x: k for k, x in enumerate(axes[j])}
            counts = [len(found) for _, _, found in seat_options[j]]
            size, width = len(counts), max(counts)
            every = [o for _, _, found in seat_options[j] for o in found]
            # Each option's (hand, row) in the padded arrays.
            at = (np.repeat(np.arange(size), counts),
                  np.arange(len(every)) - np.repeat(np.cumsum(counts) - counts, counts))
            rows = np.full((size, width), len(axes[j]))
            rows[at] = [index[o.sum] for o in every]
            kept = np.array([o.kept for o in every], dtype=float)
            later = np.zeros((size, width))
            later[at] = LATER * kept
            loss = np.zeros((size, width))
            loss[at] = LATER * (kept - np.array([o.lost for o in every], dtype=float))
            firsts = np.zeros((size, width), dtype=np.int64)
            firsts[at] = [o.first.value for o in every]
            seconds = np.zeros((size, width), dtype=np.int64)
            seconds[at] = [o.second.value for o in every]
            self.rows.append(rows)
            self.later.append(later)
            self.loss.append(loss)
            self.firsts.append(firsts)
            self.seconds.append(seconds)
            self.number_types.append([held for held, _, _ in seat_options[j]])
            self.counts.append(np.array(self.number_types[j], dtype=np.int64))
            self.number_ways.append(np.array([float(w) for _, w, _ in seat_options[j]]))
            self.number_index.append({held: h for h, (held, _, _) in enumerate(seat_options[j])})
            masks = np.zeros((len(goal_types[j]), len(universe)), dtype=bool)
            held_goals = [(g, self.goal_at[x]) for g, (held, _) in enumerate(goal_types[j])
                          for x in held]
            if held_goals:
                masks[tuple(np.array(held_goals).T)] = True
            self.masks.append(masks)
            self.goal_ways.append(np.array([float(w) for _, w in goal_types[j]]))
            self.goal_index_of.append({held: g for g, (held, _) in enumerate(goal_types[j])})
        self.type_ways = type_ways if type_ways is not None else [
            np.outer(self.number_ways[j], self.goal_ways[j]) for j in range(n)]

    def blueprint(self, j: int) -> np.ndarray:
        """Seat j's sum and goal, each of its types playing any of its sums and any of its
        goals, equally likely: weights over (sum, goal)."""
        rows, ways = self.rows[j], self.type_ways[j]
        counts = (rows < self.shape[j]).sum(axis=1)
        sums = np.zeros(self.shape[j] + 1)
        np.add.at(sums, rows, (ways.sum(axis=1) / counts)[:, None])
        masks = self.masks[j]
        goals = (masks * (ways.sum(axis=0) / masks.sum(axis=1))[:, None]).sum(axis=0)
        return np.outer(sums[:-1], goals / goals.sum())

    def met_chance(self, p: int, weights: np.ndarray) -> np.ndarray:
        """Where the goal in front of seat p is met, as a chance over the grid, when its owner
        plays by `weights` (over its sums and goals)."""
        marginal = weights.sum(axis=1, keepdims=True)
        given = np.divide(weights, marginal, out=np.zeros_like(weights), where=marginal > 0)
        # Per owner's sum and set of goals met there, the chance its goal is one of them (added
        # goal by goal, as a sum over the goal axis adds), then read off at every table.
        terms = given[:, :, None] * self.met.sets[p].T  # (owner's sum, goal, set)
        return terms.cumsum(axis=1)[:, -1].ravel().take(self.kinds[p])

    def table(self, i: int, chances: list[np.ndarray],
              weights: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """P(the round succeeds | seat i's sum, the goal it plays), the others by `weights`
        (each over its sums and goals; `chances`: where the goal in front of each seat is
        met, by `met_chance`), and P(it succeeds with seat i missing its own goal, so that it
        keeps no card, R17): each per sum of seat i, per goal of the universe.

        Worked out on the grid of the sums the others play (those of weight 0 left out: once
        a seat has answered, its types play few of its sums), seat i's whole axis kept."""
        rules, n = self.rules, self.n
        musts = {rules.super_seat, rules.hyper_seat} - {None}
        allowed = rules.allowed
        mine = self.pos[i]
        marginals = [w.sum(axis=1) for w in weights]
        kept = [np.arange(self.shape[j]) if j == i else np.flatnonzero(marginals[j])
                for j in range(n)]
        shape = tuple(len(k) for k in kept)
        def view(j: int, array: np.ndarray) -> np.ndarray:
            """`array` (along seat j's kept sums) shaped to broadcast on the grid."""
            shape_of = [1] * n
            shape_of[j] = len(kept[j])
            return array.reshape(shape_of)

        # The goal seat i plays lies in front of `mine`; the goal in front of seat i (from
        # its owner) decides whether seat i keeps a card if the round is won (R17).
        apart = (mine,) if mine == i else (mine, i)
        # Per number of failures among the other seats (0..allowed): the chance, on the grid.
        ways = [np.ones(shape)] + [np.zeros(shape) for _ in range(allowed)]
        for p in range(n):
            if p in apart:
                continue
            m = cut(chances[p], kept)
            if p in musts:
                ways = [w * m for w in ways]
            else:
                miss = 1.0 - m
                ways = [ways[0] * m] + [ways[k] * m + ways[k - 1] * miss
                                        for k in range(1, allowed + 1)]
        zero = np.zeros(shape)

        def within(misses: int) -> np.ndarray:
            """The chance that the others' failures leave room for `misses` more."""
            return sum(ways[1:allowed + 1 - misses], ways[0]) if misses <= allowed else zero

        # The round won, and the round won with seat i missing its goal, where seat i's goal
        # card is missed (x) or met (y): both are linear in where it is met.
        if mine == i:
            lost = zero if mine in musts else within(1)
            won_x, won_y, miss_x, miss_y = lost, within(0), lost, zero
        else:
            m = cut(chances[i], kept)
            i_misses = zero if i in musts else (1.0 - m)
            won_y = m * within(0) + i_misses * within(1)
            won_x = zero if mine in musts else m * within(1) + i_misses * within(2)
            miss_y = i_misses * within(1)
            miss_x = zero if mine in musts else i_misses * within(2)
        # The others' sums weighed in, then summed out (all but seat i's axis).
        others: Any = 1.0  # of length 1 along seat i's axis: it broadcasts there
        for j in range(n):
            if j != i:
                marginal = marginals[j][kept[j]]
                others = others * view(j, marginal / marginal.sum())
        axes = tuple(j for j in range(n) if j != i)
        met = cut(self.met.stacks[mine], [self.at[j][kept[j]] for j in range(n)], lead=1)

        def chance(x: np.ndarray, y: np.ndarray) -> np.ndarray:
            base = (x * others).sum(axis=axes)
            gain = (met * ((y - x) * others)).sum(axis=tuple(j + 1 for j in axes))
            return base[:, None] + gain.T

        return chance(won_x, won_y), chance(miss_x, miss_y)

    def respond(self, i: int, tables: tuple[np.ndarray, np.ndarray]
                ) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
        """Seat i's best response to `tables` (`table`'s), for every type at once: the sum and
        goal with the best chance, plus what the hand left and the goals kept are worth later
        (the hand keeps a card unless the round is won with this seat missing its goal; ties:
        the lower sum, then the goal's order). Returns the weights over (sum, goal) it gives,
        and per (number hand, goal hand) the goal's index and the option's row."""
        table, bare = tables
        pad = np.full((1, table.shape[1]), -np.inf)
        rows = self.rows[i]
        # Per (hand, option, goal):
        scores = np.vstack([table, pad])[rows] + self.later[i][:, :, None] - \
            np.vstack([bare, np.zeros_like(pad)])[rows] * self.loss[i][:, :, None]
        # Rounded: chances equal but for the order of a sum's terms are a tie, broken alike.
        scores = np.round(scores, 9)
        best = scores.argmax(axis=1)  # per hand and goal: its best option
        value = scores.max(axis=1) - self.cost  # (hand, goal)
        masked = np.where(self.masks[i][None, :, :], value[:, None, :], -np.inf)
        goal = masked.argmax(axis=2)  # (hand, goal hand)
        hands = np.arange(rows.shape[0])[:, None]
        row = best[hands, goal]
        sums = rows[hands, row]
        weights = np.zeros_like(table)
        np.add.at(weights, (sums, goal), self.type_ways[i])
        return weights, (goal, row)

    def solve(self, passes: int | None = None) -> Opening:
        n = self.n
        weights = [self.blueprint(j) for j in range(n)]
        chances = [self.met_chance(p, weights[self.owner[p]]) for p in range(n)]
        plays: list[tuple[np.ndarray, np.ndarray]] = [(np.empty(0), np.empty(0))] * n
        steady = 0  # the latest answers in a row that changed no seat's play
        for step in range((PASSES if passes is None else passes) * n):
            # A seat's answer reads only the others' plays: once none has changed since its
            # last answer, every seat would answer as it did.
            if steady == n - 1:
                break
            i = step % n
            weights[i], play = self.respond(i, self.table(i, chances, weights))
            chances[self.pos[i]] = self.met_chance(self.pos[i], weights[i])
            same = plays[i][0].shape == play[0].shape and np.array_equal(plays[i][0], play[0]) \
                and np.array_equal(plays[i][1], play[1])
            plays[i] = play
            steady = steady + 1 if same else 0
        chance = float((self.table(0, chances, weights)[0] * weights[0]).sum() / weights[0].sum())
        # Its grids (megabytes at 5 players) are not needed to play the policy.
        del self.met, self.kinds
        return Opening(self, plays, chance)


class MetGrid:
    """Where each goal of `universe` in front of each seat is met (R10), over a grid of sums
    (`axes`): `stacks[p]`, per seat p, is (goal, *grid) of booleans. The same as sets:
    `sets[p]` (set, goal) holds each set of goals met somewhere, and `kinds[p]`, per table of
    the grid, the row of `sets[p]` met there. Raises Unsettled (or NotOnGrid) as `Grid` does."""

    def __init__(self, model: MissionModel, rulebook: Any, universe: tuple[str, ...],
                 axes: tuple[tuple[int, ...], ...]) -> None:
        n = len(axes)
        self.axes = axes
        self.stacks = np.empty((n, len(universe), *(len(a) for a in axes)), dtype=bool)
        for k, g in enumerate(universe):
            grid = Grid(grid_rules(model, rulebook), (g,) * n, frozenset(), axes)
            for p in range(n):
                self.stacks[p, k] = grid.met(p)
        bits = 1 << np.arange(len(universe), dtype=np.int64)
        self.sets, kinds = [], []
        for p in range(n):
            codes = np.tensordot(bits, self.stacks[p], axes=1)
            found, kind = np.unique(codes.ravel(), return_inverse=True)
            self.sets.append(((found[:, None] & bits) > 0).astype(float))
            kinds.append(kind.reshape(codes.shape).astype(np.min_scalar_type(len(found))))
        self.kinds = np.stack(kinds)

    def covers(self, axes: tuple[tuple[int, ...], ...]) -> bool:
        return all(set(a) <= set(mine) for a, mine in zip(axes, self.axes, strict=True))


def cut(array: np.ndarray, positions: Sequence[np.ndarray], lead: int = 0) -> np.ndarray:
    """`array`, whose axes from `lead` on are one per seat, at `positions` along each seat's
    axis: the axes that shrink most are cut first (each cut copies what is left)."""
    lengths = array.shape[lead:]
    for j in sorted((j for j, at in enumerate(positions) if len(at) < lengths[j]),
                    key=lambda j: len(positions[j]) / lengths[j]):
        array = array.take(positions[j], axis=j + lead)
    return array


def met_grid(model: MissionModel, rulebook: Any, universe: tuple[str, ...],
             axes: tuple[tuple[int, ...], ...]) -> MetGrid:
    """A MetGrid whose axes hold `axes`: one kept per rulebook, goals and player count, widened
    to every grid asked about so far (each round's grid is a little different, and working one
    out runs every goal's rule over it). A rule reads only a table's sums, so each table's
    answer is the same on any grid that holds it. Where a goal's rule cannot run on the wider
    grid, the MetGrid of `axes` alone, so that only these tables may leave it unsettled."""
    key = (rulebook, universe, len(axes))
    wide = model.met_grids.get(key)
    if wide is None or not wide.covers(axes):
        union = axes if wide is None else tuple(tuple(sorted({*a, *mine}))
                                                for a, mine in zip(axes, wide.axes, strict=True))
        try:
            wide = model.met_grids.remember(key, MetGrid(model, rulebook, universe, union))
        except (Unsettled, NotOnGrid):
            return MetGrid(model, rulebook, universe, axes)
    return wide
