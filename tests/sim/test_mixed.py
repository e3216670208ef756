"""Pieces of the expert seated beside novices (sim/mixed.py), checked alone: the chances it
weighs are those of their definitions, to the bit (a reply breaks ties on them)."""

from __future__ import annotations

import itertools

import numpy as np

from synergy_forge.core.cards import NumberCard
from synergy_forge.sim import mixed
from synergy_forge.sim.convention import Rules
from synergy_forge.sim.model import MissionModel


def _reference_exactly(chances, seats, most):
    """P(exactly c of `seats` miss), c <= most, seat by seat from one certain row."""
    most = min(most, len(seats))
    shape = np.broadcast_shapes(*(chances[p].shape for p in seats))
    exactly = np.zeros((most + 1, *shape), dtype=np.float32)
    exactly[0] = 1.0
    for p in seats:
        missed = exactly[:-1] * (np.float32(1) - chances[p])
        exactly *= chances[p]
        exactly[1:] += missed
    return list(exactly)


def test_the_misses_counted_are_those_of_the_seat_by_seat_tally_to_the_bit():
    rng = np.random.default_rng(3)
    for seats, most in [([0], 1), ([0, 1, 2], 1), ([0, 1, 2, 3], 2), ([2, 0, 3], 3)]:
        chances = [rng.random((3, 4, 5), dtype=np.float32) for _ in range(4)]
        got = mixed._exactly(chances, seats, most)
        want = _reference_exactly(chances, seats, most)
        assert len(got) == len(want)
        for a, b in zip(got, want, strict=True):
            assert a.tobytes() == b.tobytes()
    # Seats whose chances lie on different axes are tallied on the grid of them all.
    chances = [rng.random((3, 1), dtype=np.float32), rng.random((1, 5), dtype=np.float32)]
    for a, b in zip(mixed._exactly(chances, [0, 1], 1),
                    _reference_exactly(chances, [0, 1], 1), strict=True):
        assert a.tobytes() == b.tobytes()


def test_a_share_read_from_the_byte_table_is_the_share_counted_to_the_bit():
    rng = np.random.default_rng(5)
    met = rng.integers(0, 256, size=(6, 7), dtype=np.uint8)
    for mask, size in [(0b1, 1), (0b1011, 3), (0b11110000, 4), (0xFF, 8)]:
        counted = mixed._ONES[met & mask] / np.float32(size)
        looked_up = mixed._share(mixed._BYTES, mask, size)[met]
        assert looked_up.dtype == np.float32
        assert looked_up.tobytes() == counted.tobytes()


def test_the_novices_joint_sums_are_remembered_per_hands_and_first_cards(rulebook):
    rules = Rules(rulebook, (), ("equal",), 3, 1, 0, None, None, False)
    red = tuple(NumberCard(v, "red") for v in (1, 2, 2, 4))
    blue = tuple(NumberCard(v, "blue") for v in (3, 5))
    hands = (red, (), blue)
    firsts = (None, None, NumberCard(1, "blue"))
    model = MissionModel()
    found = mixed._novices(model, rules, hands, firsts, (0, 0, 0), frozenset({0, 2}))
    assert found is not None
    rows, weights, totals = found
    spread = [mixed.novice_sums(model, rulebook, (), red, None, 0),
              mixed.novice_sums(model, rulebook, (), blue, NumberCard(1, "blue"), 0)]
    want_rows, want_weights = mixed._joint(spread)
    assert rows.tolist() == want_rows.tolist()
    assert weights.tobytes() == want_weights.tobytes()
    assert totals == set(itertools.chain.from_iterable(spread))
    assert mixed._novices(model, rules, hands, firsts, (0, 0, 0), frozenset({0, 2})) is found
    # A novice with no legal pair: no joint sums (the reply is not computed).
    assert mixed._novices(model, rules, ((NumberCard(1, "red"),), (), blue), firsts,
                          (0, 0, 0), frozenset({0, 2})) is None
