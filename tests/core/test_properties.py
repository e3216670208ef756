"""Properties every verdict has, whatever the cards (hypothesis)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from support.strategies import examples, rotate, tables

from synergy_forge.core.cards import Action
from synergy_forge.core.referee import LossReason, SeatPlay, Table, judge


# Example counts (derandomized, strategies.examples): lowered where the count is not the point;
# each test still fails on the bugs it is about (seat-dependent neighbours or super card, a
# broken equal or unique, a lost challenge or hyper card not losing, ignored seats counted:
# tried as mutations of the referee when the counts were set; the last test's hyper card
# needed 60 examples).
@examples(30)
@given(tables(), st.integers(1, 4))
def test_rotating_the_seats_rotates_the_verdict(rulebook, table, k):
    n = table.players
    before = judge(table, rulebook)
    after = judge(rotate(table, k), rulebook)
    for seat in before.seats:
        moved = after.seats[(seat.seat + k) % n]
        assert (moved.sum, moved.goal, moved.met, moved.counted, moved.violations) == \
            (seat.sum, seat.goal, seat.met, seat.counted, seat.violations)
    assert (after.success, after.failures, after.lost_reasons) == \
        (before.success, before.failures, before.lost_reasons)


@examples(20)
@given(tables(actions=False))
def test_equal_and_unique_are_complements(rulebook, table):
    # With nobody ignored, every seat meets exactly one of equal and unique.
    def with_goal(goal):
        plays = tuple(SeatPlay(p.first, p.second, goal) for p in table.plays)
        return Table(plays, tuple(c for c in table.challenges if "goals" not in c),
                     table.allowed_failures, colors=table.colors)

    equal = judge(with_goal("equal"), rulebook)
    unique = judge(with_goal("unique"), rulebook)
    for a, b in zip(equal.seats, unique.seats, strict=True):
        assert a.met != b.met


@examples(80)
@given(tables())
def test_a_constraint_violation_always_loses_the_mission_and_failures_count_only_counted_seats(
        rulebook, table):
    # Two properties of the same verdict, checked on the same tables (they were two tests,
    # each drawing its own).
    verdict = judge(table, rulebook)
    broken = any(s.violations for s in verdict.seats)
    assert (LossReason.CHALLENGE in verdict.lost_reasons) == broken
    assert verdict.mission_lost == (broken or LossReason.HYPER in verdict.lost_reasons)
    ignored = {u.seat for u in table.actions if u.card is Action.J}
    assert verdict.failures == sum(
        1 for s in verdict.seats if not s.met and s.seat not in ignored
    )
    assert all(s.counted == (s.seat not in ignored) for s in verdict.seats)
