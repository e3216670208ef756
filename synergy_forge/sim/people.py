"""People across missions: one model of every game people played, set against the ladder of
each mission and player count (`playtest --human`, docs/difficulty.md "Calibrating against
people").

The ladder gives, per mission m and player count p, a win-rate curve f_mp over skill in
[0, 1] (any `Curve`: the model does not care what skill means). People are modelled as:

- a **table** is one game: its seats' skill s is drawn anew for each game from the
  **population**, logit(s) ~ Normal(mu, sigma^2) (logs do not say who played, and a game is
  what a log holds);
- each mission m has a **discrepancy** delta_m ~ tau * t_3 (a Student t with 3 degrees of
  freedom): how much better (> 0) or worse people do on it than the ladder says at their
  skill, on the log-odds scale; heavier-tailed than a normal, since a few missions are far
  from their ladder where most are near it;
- a game of m at p players is won with probability logistic(logit(f_mp(s)) + delta_m).

Priors: the population's median skill logistic(mu) uniform on (0, 1); its spread sigma
uniform on [0, 3]; tau half-normal with scale 1 on [0, 3]. Everything is summed exactly on
grids (`Grids`): mu, sigma, tau and delta on even grids, s by Gauss-Hermite quadrature in
logit(s). Given the hyperparameters the missions are independent and, a table being one game,
so are the games of one mission given delta_m, so the posterior is exact on the grid.

From it: the population's median skill and spread with intervals; for every mission and
player count, people's predicted win rate (the long-run rate, delta included: the mission's
own posterior where people played it, its prior where they did not) with an interval; each
played mission's discrepancy, and whether the ladder is contradicted there (its interval
leaves out 0); and per mission and player count the information NEXT_GAMES more games would
bring about the model's parameters (the mutual information between their wins and the
parameters, BALD), in bits: "playtest next".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

Curve = Callable[[float], float]
Array = NDArray[np.float64]

#: The interval every figure of the model gives.
LEVEL = 0.9
#: A ladder's win rate is read as at least this and at most 1 minus it: from about a hundred
#: games a level, a rate of 0% or 100% says "rarely", not "never".
RATE_FLOOR = 0.01
#: How many more games "playtest next" weighs at a mission and player count.
NEXT_GAMES = 10
#: The scale of tau's half-normal prior: a mission's people and ladder differ by about a
#: factor e (one unit of log-odds) at most, most of the time, before any game says more.
TAU_SCALE = 1.0
#: Degrees of freedom of the discrepancies' Student t: most missions near their ladder, a
#: few far from it (where the ladder's bots miss what people do), more than a normal allows.
DISCREPANCY_DOF = 3.0
#: Points each curve is read at; the model interpolates between them.
CURVE_POINTS = 201
#: Bins of win rate a prediction's posterior is kept in (for "playtest next" and `chances`).
INFORMATION_BINS = 500


@dataclass(frozen=True)
class Grids:
    """The grids the posterior is summed on."""

    medians: int = 50  # the population's median skill, mid-points of (0, 1)
    spreads: tuple[float, float, int] = (0.0, 3.0, 13)  # sigma: from, to, points
    taus: tuple[float, float, int] = (0.0, 3.0, 13)
    deltas: tuple[float, float, int] = (-6.0, 6.0, 49)  # must hold 0
    nodes: int = 16  # Gauss-Hermite nodes for a table's skill


@dataclass(frozen=True)
class Cell:
    """One mission at one player count: its ladder's curve and people's games there."""

    mission: str
    players: int
    curve: Curve
    games: int = 0
    wins: int = 0


@dataclass(frozen=True)
class Interval:
    """A posterior mean with the central LEVEL interval."""

    value: float
    low: float
    high: float


@dataclass(frozen=True)
class Prediction:
    """People's long-run win rate at a mission and player count: `rate` with the mission's
    discrepancy, `ladder` what the ladder alone says of this population (delta 0), and the
    bits `information` NEXT_GAMES more games there would bring. `rates` and `weights` are the
    posterior of the long-run rate, binned (INFORMATION_BINS): what `wins` reads."""

    mission: str
    players: int
    games: int
    wins: int
    rate: Interval
    ladder: Interval
    information: float
    rates: tuple[float, ...] = field(repr=False, default=())
    weights: tuple[float, ...] = field(repr=False, default=())

    def chances(self, games: int) -> list[float]:
        """The chance of each number of wins, 0 to `games`, in `games` more games."""
        return [float(x) for x in _binomials(np.array(self.rates), games).T @
                np.array(self.weights)]


@dataclass(frozen=True)
class Discrepancy:
    """A played mission's delta (log-odds; > 0: people win it more often than the ladder
    says at their skill), and whether its interval leaves out 0."""

    mission: str
    games: int
    wins: int
    delta: Interval

    @property
    def contradicts(self) -> bool:
        return self.delta.low > 0 or self.delta.high < 0


@dataclass
class PeopleFit:
    """What the model says: of the population, of each mission and player count, of each
    mission people played."""

    games: int
    skill: Interval  # the population's median skill
    spread: Interval  # sigma, on the log-odds scale
    middle_half: tuple[float, float]  # the skills of the population's quartiles
    tau: Interval
    predictions: list[Prediction] = field(default_factory=list)
    discrepancies: list[Discrepancy] = field(default_factory=list)

    def next(self, count: int = 5) -> list[Prediction]:
        """The `count` missions whose games would teach the most, first, each at the player
        count where they would teach it most (its counts share its discrepancy)."""
        best: dict[str, Prediction] = {}
        for p in sorted(self.predictions, key=lambda p: (-p.information, p.mission,
                                                         p.players)):
            best.setdefault(p.mission, p)
        return list(best.values())[:count]


def _logistic(x: Array) -> Array:
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * x)))  # overflow-free


def _logit(p: Array) -> Array:
    return np.asarray(np.log(p) - np.log1p(-p))


def _linspace(spec: tuple[float, float, int]) -> Array:
    return np.linspace(spec[0], spec[1], spec[2])


def _discrepancy_on(grid: Array, scales: Array) -> Array:
    """Rows: a Student t with DISCREPANCY_DOF degrees of freedom and each scale on `grid`,
    normalised; scale 0 is a point mass at 0."""
    out = np.zeros((len(scales), len(grid)))
    for row, scale in enumerate(scales):
        if scale <= 0:
            out[row, int(np.argmin(np.abs(grid)))] = 1.0
        else:
            weights = (1 + (grid / scale) ** 2 / DISCREPANCY_DOF) ** (-(DISCREPANCY_DOF + 1) / 2)
            out[row] = weights / weights.sum()
    return out


def _quantiles(values: Array, weights: Array, probabilities: Sequence[float]) -> list[float]:
    """Weighted quantiles of a discrete distribution (values with their weights)."""
    order = np.argsort(values, kind="stable")
    sorted_values, cumulative = values[order], np.cumsum(weights[order])
    cumulative /= cumulative[-1]
    return [float(sorted_values[min(int(np.searchsorted(cumulative, p)), len(values) - 1)])
            for p in probabilities]


def _interval(values: Array, weights: Array) -> Interval:
    tail = (1 - LEVEL) / 2
    low, high = _quantiles(values.ravel(), weights.ravel(), (tail, 1 - tail))
    mean = float(np.sum(values * weights) / np.sum(weights))
    return Interval(mean, low, high)


def _entropy_bits(p: Array) -> Array:
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return np.asarray(terms.sum(axis=-1))


def _binned(rates: Array, weights: Array) -> tuple[Array, Array]:
    """A distribution of rates on INFORMATION_BINS bins, each at the mean rate of its bin:
    what follows from it depends on the rates' distribution only, and changes by far less
    than its last digit."""
    flat, mass = rates.ravel(), weights.ravel()
    bins = np.minimum((flat * INFORMATION_BINS).astype(int), INFORMATION_BINS - 1)
    binned = np.bincount(bins, mass, INFORMATION_BINS)
    keep = binned > 0
    return (np.bincount(bins, mass * flat, INFORMATION_BINS)[keep] / binned[keep],
            binned[keep] / binned[keep].sum())


def _binomials(rates: Array, games: int) -> Array:
    """[rate, wins]: the chance of each number of wins in `games` games at each rate."""
    ks = np.arange(games + 1)
    choose = np.array([math.comb(games, int(k)) for k in ks], dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(choose * np.power.outer(rates, ks) *
                          np.power.outer(1 - rates, games - ks))


def _information(rates: Array, weights: Array, games: int = NEXT_GAMES) -> float:
    """Bits the wins of `games` more games tell about the parameters (rates: the binned
    long-run rate's values, weights: their posterior): H[k] - E[H[k | parameters]]."""
    pmf = _binomials(rates, games)
    return float(_entropy_bits(weights @ pmf) - weights @ _entropy_bits(pmf))


class _Space:
    """The grids, and every table's skill at each point of the population's (mu, sigma)."""

    def __init__(self, grids: Grids) -> None:
        self.medians = (np.arange(grids.medians) + 0.5) / grids.medians
        self.spreads = _linspace(grids.spreads)
        self.taus = _linspace(grids.taus)
        self.deltas = _linspace(grids.deltas)
        self.zero = int(np.argmin(np.abs(self.deltas)))
        nodes, weights = np.polynomial.hermite_e.hermegauss(grids.nodes)
        self.node_weights = weights / weights.sum()
        mu = _logit(self.medians)
        # skills[i, j, k]: the skill at quadrature node k of the population (mu_i, sigma_j)
        self.skills = _logistic(mu[:, None, None] + self.spreads[None, :, None] *
                                nodes[None, None, :])
        self.delta_prior = _discrepancy_on(self.deltas, self.taus)  # [tau, delta]
        tau_prior = np.exp(-0.5 * (self.taus / TAU_SCALE) ** 2)
        # log prior over (median, spread, tau): uniform, uniform, half-normal
        self.log_prior = np.broadcast_to(
            np.log(tau_prior / tau_prior.sum()) - math.log(len(self.medians) *
                                                          len(self.spreads)),
            (len(self.medians), len(self.spreads), len(self.taus))).copy()
        self.quartile = 0.6744897501960817  # of a standard normal
        self.mu = mu

    def rates(self, curve: Curve) -> Array:
        """rates[i, j, d]: a game's win probability for the population (mu_i, sigma_j) at
        discrepancy delta_d, the table's skill summed over."""
        xs = np.linspace(0.0, 1.0, CURVE_POINTS)
        ys = np.clip(np.array([float(curve(float(x))) for x in xs]), RATE_FLOOR, 1 - RATE_FLOOR)
        base = _logit(np.interp(self.skills, xs, ys))  # [i, j, k]
        shifted = _logistic(base[:, :, None, :] + self.deltas[None, None, :, None])
        return np.asarray(shifted @ self.node_weights)


def _log_binomial(rates: Array, games: int, wins: int) -> Array:
    return np.asarray(wins * np.log(rates) + (games - wins) * np.log1p(-rates))


def _logsumexp(x: Array, axis: int) -> Array:
    top = np.max(x, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    return np.asarray(np.log(np.sum(np.exp(x - top), axis=axis)) + np.squeeze(top, axis=axis))


def fit(cells: Sequence[Cell], grids: Grids | None = None) -> PeopleFit:
    """The model's posterior from every cell (a cell without games is predicted, not fit)."""
    space = _Space(grids or Grids())
    rates = {(c.mission, c.players): space.rates(c.curve) for c in cells}
    with np.errstate(divide="ignore"):
        log_delta_prior = np.log(space.delta_prior)  # [t, d]
    # Each played mission: its games' log-likelihood over (mu, sigma, delta), then with delta
    # summed over its prior under each tau.
    likelihood: dict[str, Array] = {}
    for cell in cells:
        if cell.games:
            here = _log_binomial(rates[(cell.mission, cell.players)], cell.games, cell.wins)
            likelihood[cell.mission] = likelihood.get(cell.mission, 0.0) + here
    evidence = {m: _logsumexp(lik[:, :, None, :] + log_delta_prior[None, None, :, :], axis=3)
                for m, lik in likelihood.items()}  # [i, j, t]
    log_post = space.log_prior + sum(evidence.values(), np.zeros_like(space.log_prior))
    posterior = np.exp(log_post - log_post.max())
    posterior /= posterior.sum()  # [i, j, t]
    population = posterior.sum(axis=2)  # [i, j]

    def mission_weights(mission: str) -> Array:
        """The posterior over (mu, sigma, delta) of one mission: its own delta's posterior
        where people played it, its prior where they did not."""
        if mission not in likelihood:
            return np.asarray(np.einsum("ijt,td->ijd", posterior, space.delta_prior))
        joint = likelihood[mission][:, :, None, :] + log_delta_prior[None, None, :, :] - \
            evidence[mission][:, :, :, None]  # log q(delta | mu, sigma, tau)
        return np.asarray(np.einsum("ijt,ijtd->ijd", posterior, np.exp(joint)))

    prior_weights = mission_weights("")  # every mission people did not play
    weights = {m: mission_weights(m) if m in likelihood else prior_weights
               for m in dict.fromkeys(c.mission for c in cells)}
    predictions = []
    for cell in cells:
        here, w = rates[(cell.mission, cell.players)], weights[cell.mission]
        ladder = here[:, :, space.zero]
        values, mass = _binned(here, w)
        predictions.append(Prediction(cell.mission, cell.players, cell.games, cell.wins,
                                      _interval(here, w), _interval(ladder, population),
                                      _information(values, mass), tuple(values.tolist()),
                                      tuple(mass.tolist())))
    discrepancies = []
    for mission in likelihood:
        w = weights[mission]
        games = [c for c in cells if c.mission == mission]
        delta = np.broadcast_to(space.deltas, w.shape)
        discrepancies.append(Discrepancy(mission, sum(c.games for c in games),
                                         sum(c.wins for c in games), _interval(delta, w)))
    spread_at = np.broadcast_to(space.spreads[None, :], population.shape)
    low_q = _logistic(space.mu[:, None] - space.quartile * space.spreads[None, :])
    high_q = _logistic(space.mu[:, None] + space.quartile * space.spreads[None, :])
    return PeopleFit(
        games=sum(c.games for c in cells),
        skill=_interval(np.broadcast_to(space.medians[:, None], population.shape),
                        population),
        spread=_interval(spread_at, population),
        middle_half=(float(np.sum(low_q * population)), float(np.sum(high_q * population))),
        tau=_interval(np.broadcast_to(space.taus, posterior.shape), posterior),
        predictions=predictions, discrepancies=discrepancies)
