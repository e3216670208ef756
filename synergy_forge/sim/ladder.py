"""The skill ladder: tables that mix experts and novices, and the win rate over skill it gives.

A table of skill *s* is one whose every seat, independently, follows the table's convention
(the expert bot) with probability *s* for the whole game, and otherwise plays as a novice
(sim.novice: the rules, no convention). Some players follow the plan and some do not, as at a
real table; no seat flips a coin between two policies at each decision.

So the win rate at skill *s* is a mixture of the win rates of tables with exactly *k* experts
among *n* seats (the ladder's *tables*, k = 0..n):

    W(s) = sum over k of C(n, k) s^k (1 - s)^(n - k) W_k

Each W_k is measured on its own games (the same deals at every k; game i's experts at k are
the first k seats of game i's own shuffle of the seats, so a table's experts include those of
the table with one fewer). Then:
- the floor W(0) is the novices' table, never below random play (sim.novice);
- W(s) rises with s whenever W_0 <= W_1 <= ... <= W_n; the measured W_k are fitted monotone
  (weighted isotonic regression) before W(s) is read, and any raw fall beyond the intervals is
  reported (`Curve.violations`);
- one set of games gives the whole curve: the skill needed is read where it crosses the
  target, at any skill, with no straight lines between rungs.

Intervals: each W_k's variance is that of the Agresti-Coull adjusted fitted rate, W(s)'s the
binomial-weighted sum of them (normal approximation, 95%); a table not played counts as any
rate in [0, 1]. The curves of the mission's player counts, averaged, give the pooled curve.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from synergy_forge.core.mission import MOST_STARS

#: The seat roles of a ladder table.
EXPERT, NOVICE = "expert", "novice"
#: A table of some skill "wins" a mission when it wins at least this share of its games.
TARGET = 0.5
#: Skill needed -> stars: a skill below the bound earns that many stars; any more, or a
#: mission that not even the expert wins TARGET of the time, 5 (docs/difficulty.md).
SKILL_BANDS: tuple[tuple[float, int], ...] = ((0.2, 1), (0.4, 2), (0.6, 3), (0.8, 4))
#: The skills reports show the curve at (its rungs); the curve itself is read at any skill.
RUNGS: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)
Z95 = 1.959963984540054
#: Skills a bound curve is scanned at for where it crosses the target (then bisected).
SCAN = 200


def seating(seed: int, players: int, experts: int) -> tuple[str, ...]:
    """The seats' roles in the game dealt from `seed` at the table with `experts` experts:
    the first `experts` seats of the game's own shuffle of the seats (nested across tables)."""
    order = list(range(players))
    random.Random(f"seats:{seed}").shuffle(order)
    roles = [NOVICE] * players
    for seat in order[:experts]:
        roles[seat] = EXPERT
    return tuple(roles)


@cache
def _choose(n: int, k: int) -> int:
    return math.comb(n, k)


def weights(players: int, skill: float) -> tuple[float, ...]:
    """P(exactly k experts among `players` seats) at `skill`, k = 0..players."""
    return tuple(_choose(players, k) * skill ** k * (1 - skill) ** (players - k)
                 for k in range(players + 1))


def isotonic(rates: Sequence[float], games: Sequence[int]) -> tuple[float, ...]:
    """The non-decreasing sequence nearest `rates` in squared error weighted by `games`
    (pool-adjacent-violators). Rates with no games take their neighbours' fitted value."""
    blocks: list[list[float]] = []  # [weighted sum, weight, count]
    for rate, n in zip(rates, games, strict=True):
        blocks.append([rate * n, float(n), 1])
        while len(blocks) > 1 and _mean(blocks[-2]) > _mean(blocks[-1]):
            total, weight, count = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += weight
            blocks[-1][2] += count
    out: list[float] = []
    for block in blocks:
        out += [_mean(block)] * int(block[2])
    return tuple(out)


def _mean(block: list[float]) -> float:
    return block[0] / block[1] if block[1] else math.nan


def _filled(values: tuple[float, ...]) -> tuple[float, ...]:
    """Tables not played (nan) take the nearest played table's fitted rate below them, or
    above them at the bottom: any rate between those keeps the curve monotone."""
    out = list(values)
    known = [i for i, v in enumerate(out) if not math.isnan(v)]
    for i, v in enumerate(out):
        if math.isnan(v):
            below = [j for j in known if j < i]
            out[i] = out[below[-1]] if below else out[known[0]] if known else 0.0
    return tuple(out)


@dataclass(frozen=True)
class Violation:
    """A table that won less often than a table with fewer experts, beyond both intervals."""

    fewer: int  # experts at the table that won more
    more: int  # experts at the table that won less
    fewer_rate: float
    more_rate: float


def wilson(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95% by default)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denominator = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denominator
    low = 0.0 if wins == 0 else max(0.0, centre - half)
    high = 1.0 if wins == games else min(1.0, centre + half)
    return low, high


class Curve:
    """The win rate over skill at one player count, from its tables' wins and games."""

    def __init__(self, players: int, wins: Sequence[int], games: Sequence[int]) -> None:
        if len(wins) != players + 1 or len(games) != players + 1:
            raise ValueError("a curve has one table per number of experts, 0 to players")
        self.players = players
        self.wins = tuple(wins)
        self.games = tuple(games)
        raw = [w / g if g else math.nan for w, g in zip(wins, games, strict=True)]
        played = [(r, g) for r, g in zip(raw, games, strict=True) if g]
        fitted = iter(isotonic([r for r, _ in played], [g for _, g in played]))
        self.fitted = _filled(tuple(next(fitted) if g else math.nan for g in games))
        # Agresti-Coull: a rate's variance with z^2 games added, half of them won, so that a
        # table that won all or none of a few games is not taken as certain. It is taken at the
        # fitted rate, not the raw one, so that a bound moves with its rate: then more wins at
        # any table never lower a bound (each table's term of W(s) is an Agresti-Coull bound,
        # monotone in its rate, and the isotonic fit is monotone in the wins).
        z2 = Z95 * Z95
        self._variance = tuple(
            _adjusted(f * g, g) * (1 - _adjusted(f * g, g)) / (g + z2) if g else math.inf
            for f, g in zip(self.fitted, games, strict=True))

    def rate(self, skill: float) -> float:
        """W(skill): the fitted win rate of a table of that skill."""
        return sum(w * r for w, r in zip(weights(self.players, skill), self.fitted,
                                         strict=True))

    def parts(self, skill: float) -> tuple[float, float, float, float]:
        """W(skill)'s bounds in parts: the played tables' share of the rate and its variance,
        and the unplayed tables' lowest and highest share. An unplayed table wins at least as
        often as the nearest played table below it at its lower bound, and at most as often as
        the nearest above at its upper bound (the ladder is monotone), else anything."""
        share = variance = low = high = 0.0
        for k, w in enumerate(weights(self.players, skill)):
            if not w:
                continue
            if self.games[k]:
                share += w * self.fitted[k]
                variance += w * w * self._variance[k]
            else:
                low += w * self._edge(k, -1)
                high += w * self._edge(k, +1)
        return share, variance, low, high

    def _edge(self, experts: int, step: int) -> float:
        k = experts + step
        while 0 <= k <= self.players:
            if self.games[k]:
                half = Z95 * math.sqrt(self._variance[k])
                return max(0.0, self.fitted[k] - half) if step < 0 else \
                    min(1.0, self.fitted[k] + half)
            k += step
        return 0.0 if step < 0 else 1.0

    def bounds(self, skill: float) -> tuple[float, float]:
        """W(skill)'s 95% interval."""
        return _bounds(*self.parts(skill))

    def variance(self, skill: float) -> float:
        """The variance of W(skill) from the played tables (as `parts`)."""
        return self.parts(skill)[1]

    def least_variance(self, skill: float, left: Mapping[int, int]) -> float:
        """The least variance of W(skill) that the games `left` (per player count) could
        leave, however they were spread over this count's tables; 0 while a table that counts
        there is not played (nothing bounds it yet). With a_k = w_k^2 p_k (1 - p_k) it is
        (sum of sqrt(a_k))^2 over all the games, Agresti-Coull's added ones included
        (Cauchy-Schwarz)."""
        z2 = Z95 * Z95
        roots = total = 0.0
        for k, w in enumerate(weights(self.players, skill)):
            if not self.games[k]:
                if w:
                    return 0.0
                continue
            roots += w * math.sqrt(self._variance[k] * (self.games[k] + z2))
            total += self.games[k] + z2
        return roots * roots / (total + left.get(self.players, 0))

    def table_spread(self, experts: int) -> float:
        """The variance of one game's result at that table, p(1 - p) (0.25 unplayed)."""
        g, w = self.games[experts], self.wins[experts]
        p = (w + 2) / (g + 4)
        return p * (1 - p)

    def table_rate(self, experts: int) -> float:
        """The raw win rate of the table with `experts` experts (nan: not played)."""
        g = self.games[experts]
        return self.wins[experts] / g if g else math.nan

    def violations(self) -> list[Violation]:
        """Tables that won less than a table with fewer experts, beyond both 95% intervals."""
        out = []
        for more in range(self.players + 1):
            for fewer in range(more):
                lo_fewer, _ = wilson(self.wins[fewer], self.games[fewer])
                _, hi_more = wilson(self.wins[more], self.games[more])
                if self.games[fewer] and self.games[more] and hi_more < lo_fewer:
                    out.append(Violation(fewer, more, self.table_rate(fewer),
                                         self.table_rate(more)))
        return out

    @property
    def total_games(self) -> int:
        return sum(self.games)


class PooledCurve:
    """The mean of several player counts' curves: a table's chance over the counts, each as
    likely (the mission's pooled rating)."""

    def __init__(self, curves: Sequence[Curve]) -> None:
        if not curves:
            raise ValueError("a pooled curve needs at least one player count")
        self.curves = tuple(curves)

    def rate(self, skill: float) -> float:
        return sum(c.rate(skill) for c in self.curves) / len(self.curves)

    def bounds(self, skill: float) -> tuple[float, float]:
        m = len(self.curves)
        parts = [c.parts(skill) for c in self.curves]
        return _bounds(sum(p[0] for p in parts) / m, sum(p[1] for p in parts) / (m * m),
                       sum(p[2] for p in parts) / m, sum(p[3] for p in parts) / m)


    def variance(self, skill: float) -> float:
        """The variance of W(skill) from the played tables (as `Curve.parts`)."""
        m = len(self.curves)
        return sum(c.parts(skill)[1] for c in self.curves) / (m * m)

    def least_variance(self, skill: float, left: Mapping[int, int]) -> float:
        """As Curve's: each count's games left at its own tables."""
        m = len(self.curves)
        return sum(c.least_variance(skill, left) for c in self.curves) / (m * m)


def _adjusted(wins: float, games: int) -> float:
    """The Agresti-Coull rate: z^2 more games, half of them won."""
    z2 = Z95 * Z95
    return (wins + z2 / 2) / (games + z2)


def _bounds(share: float, variance: float, low: float, high: float) -> tuple[float, float]:
    half = Z95 * math.sqrt(variance)
    return max(0.0, share - half + low), min(1.0, share + half + high)


AnyCurve = Curve | PooledCurve


def crossing(rate: Callable[[float], float], target: float = TARGET) -> float | None:
    """The lowest skill from which `rate` stays at or above `target` up to skill 1; None when
    it is below the target at skill 1 (not even the expert wins that often)."""
    if rate(1.0) < target:
        return None
    steps = [i / SCAN for i in range(SCAN + 1)]
    last_below = None
    for s in steps:
        if rate(s) < target:
            last_below = s
    if last_below is None:
        return 0.0
    low, high = last_below, min(1.0, last_below + 1 / SCAN)
    for _ in range(30):  # bisect the last step that crosses
        middle = (low + high) / 2
        if rate(middle) < target:
            low = middle
        else:
            high = middle
    return high


def stars_for(skill: float | None) -> int:
    """The stars of a mission that needs `skill` (None: not even the expert wins it)."""
    if skill is None:
        return MOST_STARS
    for bound, stars in SKILL_BANDS:
        if skill < bound:
            return stars
    return MOST_STARS


@dataclass(frozen=True)
class Reading:
    """What a curve says of a mission: the skill a table needs (None: more than the
    expert's), the range its 95% intervals allow, and the stars of that range."""

    skill: float | None
    skill_low: float | None  # with every rate at its upper bound
    skill_high: float | None  # with every rate at its lower bound

    @property
    def stars(self) -> int:
        return stars_for(self.skill)

    @property
    def fewest(self) -> int:
        return stars_for(self.skill_low)

    @property
    def most(self) -> int:
        return stars_for(self.skill_high)

    @property
    def edges(self) -> tuple[float, ...]:
        """The bounds of the star bands inside the range: where the rating is unsettled (a
        skill of None, more than the expert's, lies beyond every bound)."""
        low = 2.0 if self.skill_low is None else self.skill_low
        high = 2.0 if self.skill_high is None else self.skill_high
        return tuple(bound for bound, _ in SKILL_BANDS if low < bound <= high)

    @property
    def decisive(self) -> bool:
        """Its whole range lies in one band of stars."""
        return self.fewest == self.most


def read(curve: AnyCurve, target: float = TARGET) -> Reading:
    return Reading(crossing(curve.rate, target),
                   crossing(lambda s: curve.bounds(s)[1], target),
                   crossing(lambda s: curve.bounds(s)[0], target))
