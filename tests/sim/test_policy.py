"""The round's policy over hidden hands (sim/policy.py): its faster pieces against the plain
computations they stand for, on deck missions written for the check (bench/hidden/)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from synergy_forge.authoring.loading import read_campaign
from synergy_forge.core.cards import NUMBER_VALUES
from synergy_forge.core.engine import Game
from synergy_forge.sim import belief, policy
from synergy_forge.sim.chances import grid_rules
from synergy_forge.sim.model import MissionModel
from synergy_forge.sim.policy import MetGrid, Solver, cut, met_grid

HIDDEN = read_campaign(Path(__file__).resolve().parents[2] / "bench" / "hidden").campaign
#: (mission, players, seed) of the openings checked.
CASES = [("quiet-deal", 3, 1), ("narrow-passage", 3, 1), ("goals-in-the-deck", 4, 2),
         ("late-goals", 5, 3)]


def _observation(mission_id: str, players: int, seed: int):
    mission = next(m for m in HIDDEN.missions if m.id == mission_id)
    game = Game(mission, players, seed, HIDDEN.rulebook, HIDDEN.colors)
    return game.observe(0)


def _solvers(monkeypatch, case: tuple[str, int, int], count: int) -> list[Solver]:
    """`count` solvers of the case's opening, each as `solve` would be handed it."""
    made: list[Solver] = []
    monkeypatch.setattr(Solver, "solve", lambda self, passes=None: made.append(self))
    obs = _observation(*case)
    for _ in range(count):
        model = MissionModel()
        facts = belief._start_facts(model, obs)
        assert facts is not None
        belief._opening(model, *facts)
    monkeypatch.undo()
    assert len(made) == count
    return made


def test_a_grid_cut_from_a_wider_one_is_that_grid_worked_out_alone():
    # R10: a goal's rule reads only the table's sums, so each table is met alike on any grid.
    rng = np.random.default_rng(5)
    on_grid = grid_rules(MissionModel(), HIDDEN.rulebook)
    universe = tuple(sorted(g for g in HIDDEN.rulebook.goals if on_grid[g] is not None))
    for players in (3, 4, 5):
        model = MissionModel()
        wide = tuple(tuple(range(2, 11)) for _ in range(players))
        for _ in range(4):
            axes = tuple(tuple(sorted(rng.choice(a, rng.integers(1, len(a) + 1), replace=False)))
                         for a in wide)
            alone = MetGrid(model, HIDDEN.rulebook, universe, axes)
            met_grid(model, HIDDEN.rulebook, universe, axes)
            met_grid(model, HIDDEN.rulebook, universe, wide)  # the model's grid widens
            found = met_grid(model, HIDDEN.rulebook, universe, axes)
            assert found.axes == wide
            at = [np.searchsorted(w, a) for a, w in zip(axes, found.axes, strict=True)]
            assert np.array_equal(cut(found.stacks, at, lead=2), alone.stacks)
            for p in range(players):
                kinds = cut(found.kinds[p], at)
                assert np.array_equal(np.moveaxis(found.sets[p][kinds], -1, 0),
                                      alone.stacks[p])


@pytest.mark.parametrize("case", CASES)
def test_met_chance_is_the_sum_over_the_goals_it_stands_for(monkeypatch, case):
    solver = _solvers(monkeypatch, case, 1)[0]
    rng = np.random.default_rng(7)
    for p in range(solver.n):
        o = solver.owner[p]
        stacks = cut(solver.met.stacks[p], solver.at, lead=1).astype(float)
        for _ in range(5):
            weights = rng.random((solver.shape[o], len(solver.universe)))
            weights[rng.random(weights.shape) < 0.5] = 0.0
            marginal = weights.sum(axis=1, keepdims=True)
            given = np.divide(weights, marginal, out=np.zeros_like(weights), where=marginal > 0)
            view = [1] * (solver.n + 1)
            view[0], view[o + 1] = len(solver.universe), solver.shape[o]
            plain = (given.T.reshape(view) * stacks).sum(axis=0)
            assert np.array_equal(solver.met_chance(p, weights), plain)


def _plain_solve(solver: Solver, passes: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The chain of best responses pass after pass, until a pass changes no seat's play."""
    n = solver.n
    weights = [solver.blueprint(j) for j in range(n)]
    chances = [solver.met_chance(p, weights[solver.owner[p]]) for p in range(n)]
    plays: list[tuple[np.ndarray, np.ndarray]] = [(np.empty(0), np.empty(0))] * n
    for _ in range(passes):
        changed = False
        for i in range(n):
            weights[i], play = solver.respond(i, solver.table(i, chances, weights))
            chances[solver.pos[i]] = solver.met_chance(solver.pos[i], weights[i])
            changed = changed or plays[i][0].shape != play[0].shape or not (
                np.array_equal(plays[i][0], play[0]) and np.array_equal(plays[i][1], play[1]))
            plays[i] = play
        if not changed:
            break
    return plays


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("passes", [1, 2, policy.PASSES, 8])
def test_the_chain_stops_early_only_where_every_answer_would_repeat(monkeypatch, case, passes):
    plain, solver = _solvers(monkeypatch, case, 2)
    expected = _plain_solve(plain, passes)
    found = solver.solve(passes)
    for (goal, row), (want_goal, want_row) in zip(found.plays, expected, strict=True):
        assert np.array_equal(goal, want_goal) and np.array_equal(row, want_row)


@pytest.mark.parametrize("case", CASES)
def test_shown_holds_every_type_that_shows_the_cards(case):
    # R2: the types of a seat that show card 1 and the goal, each with its ways.
    opening = belief.opening(MissionModel(), _observation(*case))
    assert opening is not None
    solver = opening.solver
    values = sorted(set(NUMBER_VALUES))
    checked = 0
    for seat in range(solver.n):
        goals, rows = opening.plays[seat]
        hs = np.arange(rows.shape[0])[:, None]
        firsts = solver.firsts[seat][hs, rows]
        seconds = solver.seconds[seat][hs, rows]
        for first in values:
            for goal in solver.universe:
                plain: dict[tuple[frozenset[int], int], float] = {}
                k = solver.goal_at[goal]
                for h, g in zip(*np.nonzero((goals == k) & (firsts == first)), strict=True):
                    held = list(solver.number_types[seat][h])
                    held[values.index(first)] -= 1
                    kept = frozenset(v for v, c in zip(values, held, strict=True) if c)
                    at = (kept, int(seconds[h, g]))
                    plain[at] = plain.get(at, 0.0) + float(solver.type_ways[seat][h, g])
                found = opening.shown(seat, first, goal)
                assert list(found.items()) == list(plain.items())
                checked += bool(plain)
    assert checked >= 10
