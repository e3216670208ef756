"""The ladder's plan: which tables to play next, and when a mission's rating is settled.

Played in rounds (docs/difficulty.md): the two ends first, the mixed tables when the ends do
not settle the stars, then more games where they narrow an unsettled rating the most for
their cost, until it lies in one band or the player count's games are spent.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from statistics import NormalDist

from synergy_forge.core.mission import Mission
from synergy_forge.sim.ladder import (
    TARGET,
    Z95,
    AnyCurve,
    Curve,
    PooledCurve,
    Reading,
    read,
    weights,
)
from synergy_forge.sim.tables import CEILING_BOT, Table, Tally

#: What a game costs at each kind of table, roughly, in games of the mixed tables: novices
#: play at random, experts alone agree on one plan per round, a mixed table plans again after
#: every novice's move. Only the choice of where to play more uses it.
NOVICE_COST, EXPERT_COST, MIXED_COST = 0.2, 0.3, 1.0
#: A mission and player count's games at most, in multiples of `--games`.
BUDGET = 3
#: A rating whose games left would settle it with less than this chance gets no more.
FUTILE = 0.1


def hopeless(reading: Reading, curve: AnyCurve, left: Mapping[int, int]) -> bool:
    """Whether the games left would take some band edge out of a rating's range with less
    than a FUTILE chance (the mission sits on the edge; its games go elsewhere).

    At an edge the rate now differs from the target by d, with variance v; the games `left`
    (per player count) leave a variance of at least v_end (`least_variance`), and the rate
    they end with is taken as normal around the rate now, with variance v - v_end
    (conditional power). The edge leaves the range when that rate lies beyond Z95 sqrt(v_end)
    of the target."""
    if reading.skill_low is None or reading.skill_high is None:
        return False
    for edge in reading.edges:
        d = curve.rate(edge) - TARGET
        end = curve.least_variance(edge, left)
        if not end:  # a table that counts there is not played yet
            return False
        drift = math.sqrt(max(0.0, curve.variance(edge) - end))
        half = Z95 * math.sqrt(end)
        if not drift:
            chance = float(abs(d) > half)
        else:
            normal = NormalDist(d, drift)
            chance = normal.cdf(-half) + 1 - normal.cdf(half)
        if chance < FUTILE:
            return True
    return False


def cost(players: int, experts: int) -> float:
    return NOVICE_COST if experts == 0 else EXPERT_COST if experts == players else MIXED_COST


@dataclass
class LadderPlan:
    """One mission's ladder, played in rounds: which games to play next, from those played.

    Deterministic: every choice depends only on the tallies so far, so the same seeds give
    the same games whatever runs them. `walk` False plays every table (a whole curve, for
    people's games) before deciding anything.
    """

    mission: Mission
    counts: tuple[int, ...]
    games: int
    ceiling: bool  # the oracle is played beside the top (hands cannot be counted)
    walk: bool = True
    tallies: dict[tuple[int, int], Tally] = field(default_factory=dict)
    done: bool = False
    stage: int = 0

    @property
    def first(self) -> int:
        """Games a table gets when first played, and each time it is given more."""
        return max(2, math.ceil(self.games / 5))

    @property
    def cap(self) -> int:
        """Games of the ladder's tables per player count, at most."""
        return BUDGET * self.games

    def played(self, count: int, experts: int) -> int:
        tally = self.tallies.get((count, experts))
        return tally.games if tally else 0

    def spent(self, count: int) -> int:
        return sum(t.games for (c, _), t in self.tallies.items() if c == count)

    def curve(self, count: int) -> Curve:
        tables = [self.tallies.get((count, k), Tally()) for k in range(count + 1)]
        return Curve(count, [t.wins for t in tables], [t.games for t in tables])

    def pooled(self) -> PooledCurve:
        return PooledCurve([self.curve(c) for c in self.counts])

    def readings(self) -> list[tuple[Reading, Callable[[int, int, float], float]]]:
        """The ratings to settle that the games left can still settle, each with the weight
        of a table's rate in its variance at a skill: the pooled rating, and each player
        count's where the mission declares them (`playtest --check` compares each)."""
        m = len(self.counts)
        left = {c: max(0, self.cap - self.spent(c)) for c in self.counts}

        def pooled(c: int, k: int, s: float) -> float:
            return (weights(c, s)[k] / m) ** 2

        def alone(only: int) -> Callable[[int, int, float], float]:
            return lambda c, k, s: weights(c, s)[k] ** 2 if c == only else 0.0

        rated: list[tuple[AnyCurve, Callable[[int, int, float], float]]] = [
            (self.pooled(), pooled)]
        if self.mission.stars_per_count:
            rated += [(self.curve(count), alone(count)) for count in self.counts]
        return [(reading, weight) for curve, weight in rated
                if not hopeless(reading := read(curve), curve, left)]

    def settled(self) -> bool:
        return all(reading.decisive for reading, _ in self.readings())

    def next(self) -> list[tuple[int, Table, int]]:
        """(player count, table, games) to play next; [] once the plan is done."""
        if self.done:
            return []
        self.stage += 1
        if self.stage == 1:  # the two ends, and the oracle beside the top
            ends: list[tuple[int, Table, int]] = []
            for count in self.counts:
                ends += [(count, 0, self.first), (count, count, self.first)]
                if self.ceiling:
                    ends.append((count, CEILING_BOT, self.first))
            return ends
        if self.stage == 2 and not (self.walk and self.settled()):  # the mixed tables
            return [(count, k, self.first) for count in self.counts for k in range(1, count)]
        return self._more()

    def _more(self) -> list[tuple[int, Table, int]]:
        """More games where they narrow an unsettled rating the most for their cost: the
        variance they take off the rating's win rate at each band edge it straddles."""
        readings = self.readings()
        if all(reading.decisive for reading, _ in readings):
            self.done = True
            return []
        z2 = 4.0  # Agresti-Coull's added games, as Curve's variances
        gains: list[tuple[float, int, int]] = []
        for count in self.counts:
            if self.spent(count) + self.first > self.cap:
                continue
            curve = self.curve(count)
            for k in range(count + 1):
                g, more = self.played(count, k), self.first
                shrink = curve.table_spread(k) * more / ((g + z2) * (g + more + z2))
                gain = sum(weight(count, k, edge) * shrink for reading, weight in readings
                           for edge in reading.edges)
                if gain > 0:
                    gains.append((gain / cost(count, k), count, k))
        if not gains:
            self.done = True
            return []
        gains.sort(key=lambda g: (-g[0], g[1], g[2]))
        chosen: list[tuple[int, Table, int]] = []
        for _, count, k in gains:  # the best two that the player count's games still allow
            planned = sum(more for c, _, more in chosen if c == count)
            if self.spent(count) + planned + self.first <= self.cap:
                chosen.append((count, k, self.first))
            if len(chosen) == 2:
                break
        return chosen

    def add(self, count: int, experts: int, tally: Tally) -> None:
        self.tallies.setdefault((count, experts), Tally()).add(tally)
