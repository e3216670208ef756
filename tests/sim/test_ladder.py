"""The skill ladder's arithmetic (sim.ladder): mixed tables, the monotone fit, reading the skill.

Games are not played here: the curves are made from wins and games, as the playtester's
tallies give them; tests/sim/test_difficulty.py plays them.
"""

from __future__ import annotations

import itertools
import math
import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from synergy_forge.sim.ladder import (
    EXPERT,
    NOVICE,
    Curve,
    PooledCurve,
    crossing,
    isotonic,
    read,
    seating,
    stars_for,
    weights,
)

SKILLS = [i / 40 for i in range(41)]


@st.composite
def tables(draw: st.DrawFn) -> tuple[int, list[int], list[int]]:
    players = draw(st.integers(3, 5))
    games = [draw(st.integers(0, 60)) for _ in range(players + 1)]
    wins = [draw(st.integers(0, g)) for g in games]
    return players, wins, games


def test_a_table_of_skill_s_has_each_number_of_experts_binomially():
    for players in (3, 4, 5):
        for skill in SKILLS:
            w = weights(players, skill)
            assert math.isclose(sum(w), 1.0)
            assert math.isclose(sum(k * p for k, p in enumerate(w)), players * skill)
    assert weights(4, 0.0) == (1.0, 0.0, 0.0, 0.0, 0.0)
    assert weights(4, 1.0) == (0.0, 0.0, 0.0, 0.0, 1.0)


def test_each_table_s_experts_include_those_of_the_table_with_one_fewer():
    for seed in range(50):
        for players in (3, 4, 5):
            seats = [{i for i, role in enumerate(seating(seed, players, k)) if role == EXPERT}
                     for k in range(players + 1)]
            assert [len(s) for s in seats] == list(range(players + 1))
            assert all(seats[k] < seats[k + 1] for k in range(players))
            assert set(seating(seed, players, 0)) == {NOVICE}
    # The expert's seats move from game to game: no seat is always the expert.
    assert len({seating(seed, 4, 1) for seed in range(40)}) == 4


@given(st.lists(st.tuples(st.floats(0, 1), st.integers(1, 50)), min_size=1, max_size=8))
def test_the_isotonic_fit_never_falls_and_keeps_the_weighted_mean(points):
    rates, games = [p for p, _ in points], [g for _, g in points]
    fitted = isotonic(rates, games)
    assert all(a <= b + 1e-12 for a, b in itertools.pairwise(fitted))
    total = sum(g for g in games)
    assert math.isclose(sum(f * g for f, g in zip(fitted, games, strict=True)) / total,
                        sum(r * g for r, g in zip(rates, games, strict=True)) / total)
    if all(a <= b for a, b in itertools.pairwise(rates)):
        assert fitted == pytest.approx(tuple(rates))


@settings(max_examples=200)
@given(tables())
def test_the_win_rate_never_falls_as_skill_rises_whatever_the_games_say(table):
    players, wins, games = table
    if not any(games):
        return
    curve = Curve(players, wins, games)
    rates = [curve.rate(s) for s in SKILLS]
    assert all(a <= b + 1e-9 for a, b in itertools.pairwise(rates))
    for s in SKILLS:
        low, high = curve.bounds(s)
        assert 0.0 <= low <= curve.rate(s) + 1e-9 and curve.rate(s) - 1e-9 <= high <= 1.0


def test_a_raw_fall_beyond_the_intervals_is_reported_and_fitted_away():
    curve = Curve(4, [90, 20, 60, 80, 100], [100, 100, 100, 100, 100])
    falls = curve.violations()
    assert {(v.fewer, v.more) for v in falls} == {(0, 1), (0, 2)}  # 80 of 100: within
    assert curve.fitted[0] == curve.fitted[1] == pytest.approx(0.55)
    assert Curve(4, [10, 20, 60, 80, 100], [100] * 5).violations() == []


def test_the_skill_needed_is_where_the_curve_crosses_the_target():
    # Two tables of three: novices never win, experts always: W(s) = s^3 crosses 0.5 at 0.794.
    curve = Curve(3, [0, 0, 0, 100], [100, 100, 100, 100])
    assert crossing(curve.rate) == pytest.approx(0.5 ** (1 / 3), abs=1e-6)
    assert crossing(Curve(3, [60, 70, 80, 100], [100] * 4).rate) == 0.0
    assert crossing(Curve(3, [0, 0, 10, 30], [100] * 4).rate) is None
    assert stars_for(None) == 5 and stars_for(0.0) == 1 and stars_for(0.2) == 2


def test_a_rating_is_settled_when_its_whole_range_lies_in_one_band():
    sure = read(Curve(4, [0, 0, 0, 0, 2000], [2000] * 5))  # W(s) = s^4: 0.84
    assert sure.decisive and sure.stars == 5 and sure.edges == ()
    unsure = read(Curve(4, [0, 1, 2, 3, 4], [4] * 5))  # W(s) = s: 0.5, but from 4 games a table
    assert not unsure.decisive and unsure.fewest < unsure.most
    assert unsure.edges and all(unsure.skill_low < e <= unsure.skill_high for e in unsure.edges)


def test_tables_not_played_count_as_anything_between_their_played_neighbours():
    # Only the two ends played: novices win 80% of 200 games, so every table wins at least
    # about that often, and the mission is one star whatever the mixed tables would say.
    ends = Curve(4, [160, 0, 0, 0, 200], [200, 0, 0, 0, 200])
    assert read(ends).decisive and read(ends).stars == 1
    low, high = ends.bounds(0.5)
    assert low > 0.7 and high > 0.95
    # Experts who win 10% of 200 games: no table of any skill wins half its games.
    beyond = Curve(4, [0, 0, 0, 0, 20], [200, 0, 0, 0, 200])
    assert read(beyond).decisive and read(beyond).skill is None


def test_the_pooled_curve_is_the_mean_of_the_player_counts():
    three = Curve(3, [0, 10, 50, 90], [100] * 4)
    five = Curve(5, [0, 0, 20, 40, 80, 100], [100] * 6)
    pooled = PooledCurve([three, five])
    for s in SKILLS:
        assert pooled.rate(s) == pytest.approx((three.rate(s) + five.rate(s)) / 2)
        low, high = pooled.bounds(s)
        assert low <= pooled.rate(s) <= high
    # Pooling narrows the interval: the two counts' games add up.
    assert pooled.bounds(0.5)[1] - pooled.bounds(0.5)[0] < \
        three.bounds(0.5)[1] - three.bounds(0.5)[0]


@settings(max_examples=100)
@given(tables(), st.integers(0, 5), st.integers(1, 20))
# A table pooled with a larger one below it: its raw variance fell faster than the pooled
# rate rose, and the upper bound fell (variances are now taken at the fitted rates).
@example(table=(5, [0, 0, 4, 0, 0, 0], [0, 0, 5, 54, 0, 0]), which=2, extra=1)
def test_more_wins_at_any_table_never_raise_the_skill_needed(table, which, extra):
    players, wins, games = table
    which %= players + 1
    if not games[which] or not any(games):
        return
    more = list(wins)
    more[which] = min(games[which], wins[which] + extra)
    before, after = read(Curve(players, wins, games)), read(Curve(players, more, games))
    for a, b in ((before.skill, after.skill), (before.skill_low, after.skill_low),
                 (before.skill_high, after.skill_high)):
        assert (b if b is not None else 2.0) <= (a if a is not None else 2.0) + 1e-9


def test_seating_is_the_same_for_the_same_seed_on_any_machine():
    # A string seed to random.Random hashes with SHA-512: stable across runs and platforms.
    assert seating(12345, 5, 2) == seating(12345, 5, 2)
    rng = random.Random("seats:12345")
    order = list(range(5))
    rng.shuffle(order)
    assert {i for i, r in enumerate(seating(12345, 5, 2)) if r == EXPERT} == set(order[:2])
