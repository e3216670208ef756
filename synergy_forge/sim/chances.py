"""The chance that a round succeeds, weighed over every table a seat cannot rule out.

A seat that has to choose its last card knows every first card and goal on the table, but not
the second card each other seat will play. Each other seat's sum therefore has a distribution
(how many of that colour's unseen cards give each sum); the seat's own sum is its choice.
`success_chances` answers, for each own sum, the probability that the whole round succeeds:
allowed failures counted, the super and hyper cards met (R16, R17, R18), goals judged as
`referee.evaluate_goals` judges them (R10, R14). `goal_chances` answers the greedy bot's
question: the probability that the seat meets its own goal.

Two ways, one answer:
- the grid: every combination of possible sums at once, one axis per seat, the goals' own
  rules run over arrays (synergy_forge.sim.grid). The grid depends only on public facts, so every
  seat of a round shares it (kept in the mission model, sim.model); each seat then weighs it by
  its own view of the others.
- table by table through `evaluate_goals`, for a rule the grid cannot run: exact too, slower.
tests/sim/test_chances.py holds the two to each other.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, NamedTuple

import numpy as np

from synergy_forge.core.referee import evaluate_goals, neighbour_seats, round_succeeds
from synergy_forge.core.rules import Rulebook
from synergy_forge.sim.grid import (
    GridRule,
    Many,
    NotOnGrid,
    Unsettled,
    count_true,
    grid_rule,
)
from synergy_forge.sim.model import MissionModel


class Support(NamedTuple):
    """What a seat's sum may be: the sums, smallest first, and each one's weight (any scale:
    how many of the seat's possible cards give it, say). `key`: all of it as a hashable value,
    made once for the memos that key on it (a support is asked about many times)."""

    sums: tuple[int, ...]
    weights: np.ndarray
    total: float
    key: tuple[tuple[int, ...], tuple[float, ...], float]

    @classmethod
    def of(cls, weights: Mapping[int, float]) -> Support:
        sums = tuple(sorted(weights))
        values = tuple([float(weights[s]) for s in sums])
        total = sum(values)
        return cls(sums, np.array(values), total, (sums, values, total))


def success_chances(model: MissionModel, rulebook: Rulebook, goals: Sequence[str],
                    ignored: frozenset[int], allowed: int, super_seat: int | None,
                    hyper_seat: int | None, seat: int, supports: Sequence[Support],
                    own: Sequence[int], remember: bool = True) -> dict[int, float]:
    """P(round succeeds | `seat` has each sum in `own`): at most `allowed` counted seats fail
    their goal and the super and hyper seats meet theirs (R16, R17, R18).

    `supports[j]` says what seat j's sum may be; for `seat` itself only its sums are read (the
    grid's axis for that seat), so that every seat of a round can share one grid. Not
    `remember`: the caller keeps what it needs (the expert's chain of a round, remembered
    whole), so the answer is neither looked for nor kept in the model's memo of answers.
    """
    def wins(met: list[bool], failures: int) -> bool:
        return round_succeeds(failures, allowed,
                              True if super_seat is None else bool(met[super_seat]),
                              True if hyper_seat is None else bool(met[hyper_seat]))

    return _chances(model, rulebook, tuple(goals), ignored, seat, supports, own,
                    lambda grid: grid.won(allowed, super_seat, hyper_seat),
                    ("round", allowed, super_seat, hyper_seat), wins, remember)


def goal_chances(model: MissionModel, rulebook: Rulebook, goals: Sequence[str],
                 ignored: frozenset[int], seat: int, supports: Sequence[Support],
                 own: Sequence[int]) -> dict[int, float]:
    """P(`seat` meets its own goal | it has each sum in `own`), the others as `supports` say."""
    return _chances(model, rulebook, tuple(goals), ignored, seat, supports, own,
                    lambda grid: grid.meets(seat), ("goal", seat),
                    lambda met, failures: met[seat])


def _chances(model: MissionModel, rulebook: Rulebook, goals: tuple[str, ...],
             ignored: frozenset[int], seat: int, supports: Sequence[Support],
             own: Sequence[int], on_grid: Callable[[Grid], np.ndarray], question: tuple,
             wins: Callable[[list[bool], int], bool], remember: bool = True
             ) -> dict[int, float]:
    if not remember:
        return _answer(model, rulebook, goals, ignored, seat, supports, own, on_grid,
                       question, wins)
    # Everything the answer depends on: of the seat's own support only its sums are read.
    key = (rulebook, goals, ignored, seat, question, tuple(own),
           tuple([s.sums if j == seat else s.key for j, s in enumerate(supports)]))
    found = model.answers.get(key)
    if found is None:
        found = model.answers.remember(key, _answer(model, rulebook, goals, ignored, seat,
                                                    supports, own, on_grid, question, wins))
    return dict(found)  # the caller's own copy: the memo's is shared


def _answer(model: MissionModel, rulebook: Rulebook, goals: tuple[str, ...],
            ignored: frozenset[int], seat: int, supports: Sequence[Support],
            own: Sequence[int], on_grid: Callable[[Grid], np.ndarray], question: tuple,
            wins: Callable[[list[bool], int], bool]) -> dict[int, float]:
    rules = grid_rules(model, rulebook)
    if all(rules.get(g) is not None for g in goals):
        try:
            return _by_grid(model, rulebook, goals, ignored, seat, supports, own, on_grid)
        except (Unsettled, NotOnGrid):
            pass  # the referee's own way says what goes wrong on which table
    return _by_table(model, rulebook, goals, ignored, seat, supports, own, question, wins)


def grid_rules(model: MissionModel, rulebook: Rulebook) -> Mapping[str, GridRule | None]:
    """Each goal's rule as the grid runs it (None: a rule the grid cannot run), read-only:
    the model's value is shared by every seat and every caller."""
    rules = model.grid_rules.get(rulebook)
    if rules is None:
        rules = model.grid_rules.remember(rulebook, MappingProxyType({
            gid: grid_rule(g.rule) if g.rule else None for gid, g in rulebook.goals.items()}))
    return rules


def _by_grid(model: MissionModel, rulebook: Rulebook, goals: tuple[str, ...],
             ignored: frozenset[int], seat: int, supports: Sequence[Support],
             own: Sequence[int], on_grid: Callable[[Grid], np.ndarray]) -> dict[int, float]:
    axes = [s.sums for s in supports]
    mine = axes[seat]
    if not set(own) <= set(mine):  # a card the others cannot know of (taken from a discard row)
        axes[seat] = tuple(sorted(set(mine) | set(own)))
    key = (rulebook, goals, ignored, tuple(axes))
    grid = model.grids.get(key)
    if grid is None:
        grid = model.grids.remember(key, Grid(grid_rules(model, rulebook), goals, ignored, axes))
    operands: list[Any] = [on_grid(grid), grid.seats]
    total = 1.0
    for j in range(len(goals)):
        if j != seat:
            operands += [supports[j].weights, [j]]
            total *= supports[j].total
    if not total:
        return {s: 0.0 for s in own}
    by_sum = np.einsum(*operands, [seat]).tolist()
    index = grid.index(seat)
    return {s: by_sum[index[s]] / total for s in own}


class Grid:
    """Every table of one round's possible sums (the product of `axes`), one axis per seat:
    which seats meet their goal, and from that which tables win the round. Raises Unsettled
    (or NotOnGrid) when a goal's rule cannot answer on some table.

    A seat's goal is run on the grid when it is first asked about (the greedy bot asks about
    its own goal only), except a rule that some table may leave unsettled, run at once: the
    grid then fails whole, and the referee's way answers (`_answer`).
    """

    def __init__(self, rules: Mapping[str, GridRule | None], goals: tuple[str, ...],
                 ignored: frozenset[int], axes: Sequence[tuple[int, ...]]) -> None:
        n = len(axes)
        self.axes = axes
        self.shape = tuple(len(a) for a in axes)
        self.seats = list(range(n))
        self.counted = [j not in ignored for j in range(n)]
        self._sums = []
        for j, axis in enumerate(axes):
            view = [1] * n
            view[j] = len(axis)
            self._sums.append(np.asarray(axis, dtype=np.int64).reshape(view))
        self._everyone = Many([self._sums[j] for j in range(n) if self.counted[j]])
        self._rules = [rules[g] for g in goals]
        self._neighbours: list[tuple[Any, Any]] = []
        for i in self.seats:
            left_seat, right_seat = neighbour_seats(i, self.counted)
            if left_seat is not None and right_seat is not None and left_seat != right_seat:
                self._neighbours.append((self._sums[left_seat], self._sums[right_seat]))
            else:
                self._neighbours.append((None, None))
        self._met: dict[int, Any] = {}
        self._arrays: dict[tuple, np.ndarray] = {}
        self._met_count: Any = None
        self._index: dict[int, dict[int, int]] = {}
        for i, rule in enumerate(self._rules):
            assert rule is not None
            if not rule.settled(self._neighbours[i][0] is not None):
                self.met(i)

    def met(self, i: int) -> Any:
        """Where seat i meets its goal (a boolean array that broadcasts to the grid, or a
        bool): its rule run with what the seat sees (R10, R14)."""
        met = self._met.get(i)
        if met is None:
            sums, counted, everyone = self._sums, self.counted, self._everyone
            others = Many([sums[j] for j in self.seats if j != i and counted[j]])
            seen = everyone if counted[i] else Many([*everyone.members, sums[i]])
            left, right = self._neighbours[i]
            rule = self._rules[i]
            assert rule is not None
            met = self._met[i] = rule(sums[i], others, seen, left, right)
        return met

    def index(self, seat: int) -> dict[int, int]:
        """Where each of the seat's sums lies on its axis."""
        index = self._index.get(seat)
        if index is None:
            index = self._index[seat] = {v: i for i, v in enumerate(self.axes[seat])}
        return index

    def won(self, allowed: int, super_seat: int | None, hyper_seat: int | None) -> np.ndarray:
        """1.0 where the round succeeds (R16, R17, R18), else 0.0."""
        key = ("won", allowed, super_seat, hyper_seat)
        won = self._arrays.get(key)
        if won is None:
            if self._met_count is None:  # asked only about the round, never about one goal
                self._met_count = count_true(self.met(i) for i in self.seats if self.counted[i])
            failures = sum(self.counted) - self._met_count
            won = self._arrays[key] = self._filled(round_succeeds(
                failures, allowed, True if super_seat is None else self.met(super_seat),
                True if hyper_seat is None else self.met(hyper_seat)))
        return won

    def meets(self, seat: int) -> np.ndarray:
        """1.0 where `seat` meets its goal, else 0.0."""
        key = ("meets", seat)
        met = self._arrays.get(key)
        if met is None:
            met = self._arrays[key] = self._filled(self.met(seat))
        return met

    def _filled(self, where: Any) -> np.ndarray:
        """1.0 where `where` holds (an array that broadcasts to the grid, or a bool), else 0.0,
        over the whole grid (filling an empty array costs less than broadcast_to and astype)."""
        filled = np.empty(self.shape)
        filled[...] = where
        return filled


def _by_table(model: MissionModel, rulebook: Rulebook, goals: tuple[str, ...],
              ignored: frozenset[int], seat: int, supports: Sequence[Support],
              own: Sequence[int], question: tuple,
              wins: Callable[[list[bool], int], bool]) -> dict[int, float]:
    checks = rulebook.goal_checks
    # The answer for a table depends only on public facts and the sums: every seat of a round
    # shares one memo of them.
    public = (rulebook, goals, ignored, question)
    memo = model.tables.get(public)
    if memo is None:
        memo = model.tables.remember(public, {})
    joint: list[tuple[tuple[int, ...], float]] = [((), 1.0)]
    for j, support in enumerate(supports):
        if j != seat:
            joint = [((*sums, v), weight * w) for sums, weight in joint
                     for v, w in zip(support.sums, support.weights.tolist(), strict=True)]
    total = sum(weight for _, weight in joint)
    out: dict[int, float] = {}
    for mine in set(own):
        won = 0.0
        for others, weight in joint:
            sums = (*others[:seat], mine, *others[seat:])
            ok = memo.get(sums)
            if ok is None:
                met, _, failures = evaluate_goals(checks, goals, list(sums), ignored)
                ok = memo[sums] = bool(wins(met, failures))
            if ok:
                won += weight
        out[mine] = won / total if total else 0.0
    return out
