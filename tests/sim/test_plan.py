"""The ladder's plan (sim.plan): which tables get more games, and when a rating is left as it
stands. Games are drawn here from known table rates, not played."""

from __future__ import annotations

import random

from synergy_forge.core.mission import Mission
from synergy_forge.sim import plan as plan_module
from synergy_forge.sim.ladder import Curve, PooledCurve, read
from synergy_forge.sim.plan import LadderPlan, hopeless
from synergy_forge.sim.tables import Tally

MISSION = Mission("plan", 1, {"en": "Plan"}, 3, rounds=1, lives=1)


def _play(plan: LadderPlan, rates: dict[int, list[float]], seed: int) -> LadderPlan:
    """Plays the plan to its end, each table's games won with its rate in `rates`."""
    rng = random.Random(seed)
    while wanted := plan.next():
        for count, table, more in wanted:
            assert isinstance(table, int)
            wins = sum(rng.random() < rates[count][table] for _ in range(more))
            plan.add(count, table, Tally(games=more, wins=wins))
    return plan


def _spent(rates: dict[int, list[float]], seeds: range) -> list[tuple[int, bool]]:
    """Per seed: the games the plan played, and whether its rating came out settled."""
    (count,) = rates
    out = []
    for seed in seeds:
        plan = _play(LadderPlan(MISSION, (count,), 100, False), rates, seed)
        out.append((plan.spent(count), read(plan.curve(count)).decisive))
    return out


def test_a_mission_on_a_band_edge_stops_before_its_games_are_spent(monkeypatch):
    # W(s) = s + 0.1 at 3 players: the skill needed is 0.4, on the edge of 2 and 3 stars.
    on_edge = {3: [0.1 + k / 3 for k in range(4)]}
    given_up = _spent(on_edge, range(10))
    monkeypatch.setattr(plan_module, "FUTILE", 0.0)
    to_the_end = _spent(on_edge, range(10))
    assert [d for _, d in given_up] == [d for _, d in to_the_end], "the same ratings settle"
    assert sum(g for g, _ in given_up) < 0.85 * sum(g for g, _ in to_the_end)
    cap = 3 * 100
    assert all(g < cap for g, settled in given_up if not settled)
    assert any(g == cap for g, settled in to_the_end if not settled)


def test_a_mission_inside_a_band_gets_the_games_that_settle_it(monkeypatch):
    # Skills needed 0.5 (W(s) = s at 3 players) and 0.52 (at 4), inside the 3-star band:
    # the first games leave their ranges over an edge, more settle them.
    for rates in ({3: [k / 3 for k in range(4)]}, {4: [0.0, 0.2, 0.45, 0.8, 1.0]}):
        found = _spent(rates, range(10))
        monkeypatch.setattr(plan_module, "FUTILE", 0.0)
        assert found == _spent(rates, range(10)), "no rating is given up that games settle"
        monkeypatch.undo()
        assert sum(settled for _, settled in found) >= 9


def test_nothing_is_given_up_while_a_table_that_counts_is_not_played():
    ends = Curve(3, [10, 0, 0, 20], [20, 0, 0, 20])
    reading = read(ends)
    assert not reading.decisive
    assert not hopeless(reading, ends, {3: 0})


def test_the_least_variance_never_exceeds_the_variance_now():
    rng = random.Random(3)
    for _ in range(200):
        players = rng.randint(3, 5)
        games = [rng.randint(1, 80) for _ in range(players + 1)]
        curve = Curve(players, [rng.randint(0, g) for g in games], games)
        pooled = PooledCurve([curve, curve])
        for skill in (0.1, 0.3, 0.5, 0.8):
            assert curve.least_variance(skill, {}) <= curve.variance(skill) * (1 + 1e-9)
            more = {players: rng.randint(1, 300)}
            assert curve.least_variance(skill, more) < curve.least_variance(skill, {})
            assert pooled.least_variance(skill, {}) <= pooled.variance(skill) * (1 + 1e-9)
