"""The round referee against docs/rules.md: every ruling that concerns one round, by id."""

from __future__ import annotations

import pytest
from support.rounds import make_table

from synergy_forge.core.actions import ActionUse
from synergy_forge.core.cards import Action, NumberCard
from synergy_forge.core.referee import IllegalRound, LossReason, judge


def met(verdict):
    return [s.met for s in verdict.seats]


def test_rulebook_worked_example(rulebook):
    # Players 1 and 3 succeed: 3 is one below 1, 1 is second-lowest; 2 misses "one higher".
    v = judge(make_table((3, 2, "second-lowest"), (5, 5, "one-higher"), (1, 3, "one-lower"),
                         allowed_failures=1), rulebook)
    assert met(v) == [True, False, True]
    assert v.failures == 1 and v.success and not v.mission_lost


def test_r11_second_highest_with_tied_top(rulebook):
    # Rulebook: Daniel has 7, Vicky and Irene 8 each: Daniel is second highest.
    v = judge(make_table((3, 4, "second-highest"), (4, 4, "unique"), (5, 3, "unique")), rulebook)
    assert v.seats[0].met


def test_r11_both_second_highest_and_second_lowest(rulebook):
    # Sums 8, 8, 5, 3, 3: the 5 is both.
    seats = [(4, 4, "equal"), (5, 3, "equal"), (2, 3, "second-highest"), (1, 2, "equal"),
             (2, 1, "equal")]
    v = judge(make_table(*seats), rulebook)
    assert v.seats[2].met
    seats[2] = (2, 3, "second-lowest")
    assert judge(make_table(*seats), rulebook).seats[2].met


def test_r11_fewer_than_two_distinct_sums_fails(rulebook):
    v = judge(make_table((2, 2, "second-highest"), (1, 3, "second-lowest"), (3, 1, "equal")),
              rulebook)
    assert met(v) == [False, False, True]


@pytest.mark.parametrize(("challenge", "expected"), [
    ("goals-right", ["equal", "unique", "between"]),  # seat i gets seat i+1's goal
    ("goals-left", ["unique", "between", "equal"]),  # seat i gets seat i-1's goal
])
def test_r4_goal_passing(rulebook, challenge, expected):
    v = judge(make_table((1, 1, "between"), (2, 2, "equal"), (3, 3, "unique"),
                         challenges=(challenge,)), rulebook)
    assert [s.goal for s in v.seats] == expected


def test_r4_both_directions_are_illegal(rulebook):
    with pytest.raises(IllegalRound, match="R4"):
        judge(make_table((1, 1, "equal"), (2, 2, "equal"), (3, 3, "equal"),
                         challenges=("goals-left", "goals-right")), rulebook)


def test_r5_actions_may_make_zero_and_six(rulebook):
    v = judge(make_table((1, 2, "unique"), (5, 1, "unique"), (3, 3, "unique"),
                         actions=(("G", 0, 0), ("F", 1, 1))), rulebook)
    assert v.seats[0].first_effective == 0 and v.seats[0].sum == 2
    assert v.seats[1].first_effective == 6 and v.seats[1].sum == 7


def test_r6_one_is_six_counts_but_stays_odd(rulebook):
    v = judge(make_table((4, 1, "unique"), (2, 2, "unique"), (3, 3, "unique"),
                         challenges=("one-is-six", "uneven")), rulebook)
    assert v.seats[0].sum == 10
    assert v.seats[0].violations == ()  # the 1 is still uneven
    assert v.seats[1].violations == ("uneven",)


def test_r6_comparisons_use_counted_value(rulebook):
    # Under one-is-six a 1 then a 5 is high-to-low, not low-to-high.
    v = judge(make_table((1, 5, "unique"), (2, 3, "unique"), (3, 4, "unique"),
                         challenges=("one-is-six", "high-to-low")), rulebook)
    assert v.seats[0].violations == ()
    assert v.seats[1].violations == ("high-to-low",)


def test_r7_difference_then_double_then_five(rulebook):
    # Difference: identical 4s give 0, +3 for double-plus-3 = 3.
    v = judge(make_table((4, 4, "unique"), (5, 1, "unique"), (1, 1, "unique"),
                         challenges=("difference", "double-plus-3", "five-is-ten")), rulebook)
    assert [s.sum for s in v.seats] == [3, 4, 3]
    # Without difference: 1 + 1 = 2, +3 = 5, which becomes 10 (b before c).
    v = judge(make_table((1, 1, "unique"), (2, 3, "unique"), (4, 4, "unique"),
                         challenges=("five-is-ten", "double-plus-3")), rulebook)
    assert [s.sum for s in v.seats] == [10, 10, 11]


def test_r7_identical_needs_same_colour(rulebook):
    other = NumberCard(3, "green")  # seat 2's card, come to seat 0 through an earlier I (S9)
    v = judge(make_table((3, other, "unique"), (3, 3, "unique"), (1, 1, "unique"),
                         challenges=("double-plus-3",)), rulebook)
    assert [s.sum for s in v.seats] == [6, 9, 5]


# Seats 1 and 2 play (1, 4) and (3, 4): both break "uneven" (4 is even) and "high-to-low"
# (4 is higher), so the round is lost to the challenge whatever seat 0 plays; under the other
# challenges it is lost exactly when seat 0 breaks it.
@pytest.mark.parametrize(("challenge", "cards", "broken", "lost"), [
    ("uneven", (2, 3), False, True), ("uneven", (3, 2), True, True),
    ("even", (3, 4), False, False), ("even", (4, 5), True, True),
    ("low-to-high", (2, 3), False, False), ("low-to-high", (3, 3), True, True),
    ("high-to-low", (3, 2), False, True), ("high-to-low", (3, 3), True, True),
    ("minimum-5", (2, 3), False, False), ("minimum-5", (2, 2), True, True),
    ("maximum-7", (3, 4), False, False), ("maximum-7", (4, 4), True, True),
    ("no-doubles", (3, 4), False, False), ("no-doubles", (4, 4), True, True),
])
def test_r8_r9_constraints_and_the_mission_lost(rulebook, challenge, cards, broken, lost):
    v = judge(make_table((*cards, "unique"), (1, 4, "unique"), (3, 4, "unique"),
                         challenges=(challenge,)), rulebook)
    assert (challenge in v.seats[0].violations) is broken
    assert (LossReason.CHALLENGE in v.lost_reasons) is lost


def test_r8_minimum_uses_final_sum(rulebook):
    # 1 + 1 = 2 identical, +3 = 5: meets minimum-5 through the sum rule.
    v = judge(make_table((1, 1, "unique"), (3, 4, "unique"), (5, 4, "unique"),
                         challenges=("double-plus-3", "minimum-5")), rulebook)
    assert v.seats[0].violations == ()


def test_r10_between_neighbours_and_j(rulebook):
    v = judge(make_table((1, 1, "unique"), (2, 2, "between"), (3, 3, "unique")), rulebook)
    assert v.seats[1].met
    # Four seats, seat 3 ignored: seat 0's neighbours are seat 1 (left) and seat 2 (right).
    v = judge(make_table((2, 2, "between"), (1, 2, "unique"), (3, 3, "unique"), (1, 1, "unique"),
                         actions=(("J", 3),)), rulebook)
    assert (v.seats[0].left, v.seats[0].right) == (3, 6) and v.seats[0].met
    # Three seats, one ignored: both nearest counted seats are the same seat: fails.
    v = judge(make_table((2, 2, "between"), (1, 2, "unique"), (3, 3, "unique"),
                         actions=(("J", 2),)), rulebook)
    assert v.seats[0].left is None and not v.seats[0].met


def test_r12_one_action_per_seat_and_card_once(rulebook):
    with pytest.raises(IllegalRound, match="R12"):
        judge(make_table((1, 1, "equal"), (2, 2, "equal"), (3, 3, "equal"),
                         actions=(("H", 0), ("F", 0, 1))), rulebook)
    with pytest.raises(IllegalRound, match="used twice"):
        judge(make_table((1, 1, "equal"), (2, 2, "equal"), (3, 3, "equal"),
                         actions=(("F", 0, 1), ("F", 1, 1))), rulebook)


def test_r12_actions_resolve_in_order(rulebook):
    # F on seat 0's card, then I swaps it to seat 1: the +1 travels with the card (R13).
    v = judge(make_table((1, 1, "unique"), (4, 1, "unique"), (3, 3, "unique"),
                         actions=(("F", 2, 0), ActionUse(Action.I, 1, seats=(0, 1)))), rulebook)
    assert [s.first_effective for s in v.seats] == [4, 2, 3]
    # The other order: the swap first, then +1 to what is now seat 0's card.
    v = judge(make_table((1, 1, "unique"), (4, 1, "unique"), (3, 3, "unique"),
                         actions=(ActionUse(Action.I, 1, seats=(0, 1)), ("F", 2, 0))), rulebook)
    assert [s.first_effective for s in v.seats] == [5, 1, 3]


def test_r13_b_replaces_the_first_card(rulebook):
    v = judge(make_table((1, 4, "unique"), (2, 2, "unique"), (3, 3, "unique"),
                         actions=(ActionUse(Action.B, 0, replacement=NumberCard(5, "red")),)),
              rulebook)
    assert v.seats[0].sum == 9


def test_r13_d_and_e_act_after_passing(rulebook):
    v = judge(make_table((1, 1, "between"), (2, 2, "equal"), (3, 3, "unique"),
                         challenges=("goals-right",),
                         actions=(ActionUse(Action.D, 0, other=2),
                                  ActionUse(Action.E, 1, seats=(0, 1)))), rulebook)
    # After passing: equal, unique, between; D 0<->2: between, unique, equal; E 0<->1.
    assert [s.goal for s in v.seats] == ["unique", "between", "equal"]


def test_r14_j_is_invisible_and_not_counted(rulebook):
    v = judge(make_table((2, 2, "equal"), (1, 3, "unique"), (3, 3, "unique"),
                         actions=(("J", 1),)), rulebook)
    assert not v.seats[1].counted
    assert not v.seats[0].met  # seat 1's 4 is invisible to seat 0
    assert v.failures == 1  # seat 1 (which missed unique) does not count


def test_r15_super_and_hyper_holders_may_not_use_h_or_j(rulebook):
    for card, holder in (("H", "super_seat"), ("J", "hyper_seat")):
        with pytest.raises(IllegalRound, match="R15"):
            judge(make_table((1, 1, "equal"), (2, 2, "equal"), (3, 3, "equal"),
                             actions=((card, 0),), **{holder: 0}), rulebook)


def test_r16_super_holder_must_succeed(rulebook):
    v = judge(make_table((1, 1, "equal"), (2, 2, "unique"), (3, 3, "unique"),
                         allowed_failures=1, super_seat=0), rulebook)
    assert v.failures == 1 and not v.success


def test_r16_h_allows_one_more_failure(rulebook):
    seats = ((1, 1, "equal"), (2, 2, "unique"), (3, 3, "unique"))
    assert not judge(make_table(*seats), rulebook).success
    v = judge(make_table(*seats, actions=(("H", 2),)), rulebook)
    assert v.success and v.allowed_failures == 1


def test_r16_hyper_miss_loses_even_a_successful_round(rulebook):
    v = judge(make_table((1, 1, "equal"), (2, 2, "unique"), (3, 3, "unique"),
                         allowed_failures=1, hyper_seat=0), rulebook)
    assert v.success and v.lost_reasons == (LossReason.HYPER,)


def test_unknown_ids_and_bad_seats_are_reported(rulebook):
    with pytest.raises(IllegalRound) as caught:
        judge(make_table((1, 1, "equall"), (2, 2, "unique"), (3, 3, "unique"),
                         challenges=("minimum-6",), super_seat=7,
                         actions=(("F", 0, 9),)), rulebook)
    wheres = {p.where for p in caught.value.problems}
    assert wheres == {("seats", 0, "goal"), ("challenges", 0), ("super",),
                      ("actions", 0, "target")}


def _problems(table, rulebook):
    with pytest.raises(IllegalRound) as caught:
        judge(table, rulebook)
    return [(p.where, p.message) for p in caught.value.problems]


def test_s9_no_more_copies_of_a_card_than_its_colour_has(rulebook):
    red5 = NumberCard(5, "red")
    found = _problems(make_table((5, 5, "equal"), (red5, 1, "equal"), (1, 1, "equal")), rulebook)
    assert found == [(("seats", 1, "numbers", 0),
                      "red 5 is on the table 3 times; red has only 2 of them")]


def test_s9_the_b_replacement_counts_as_a_copy(rulebook):
    red4 = NumberCard(4, "red")
    found = _problems(make_table((4, 4, "equal"), (3, 1, "equal"), (1, 1, "equal"),
                                 actions=(ActionUse(Action.B, 1, replacement=red4),)), rulebook)
    assert [where for where, _ in found] == [("actions", 0, "with")]


def test_s9_a_b_user_may_replay_the_card_b_returned(rulebook):
    # Red 5 played, B takes the other red 5 from the hand, the first comes back as card 3.
    red5 = NumberCard(5, "red")
    v = judge(make_table((5, 5, "equal"), (3, 1, "equal"), (1, 1, "equal"),
                         actions=(ActionUse(Action.B, 0, replacement=red5),)), rulebook)
    assert v.seats[0].sum == 10


def test_s9_a_colour_nobody_at_the_table_plays_is_refused(rulebook):
    found = _problems(make_table((3, NumberCard(2, "purple"), "equal"), (1, 1, "equal"),
                                 (1, 1, "equal")), rulebook)
    assert [where for where, _ in found] == [("seats", 0, "numbers", 1)]
    assert "nobody plays" in found[0][1]


def test_s9_another_seats_card_only_through_one_swap(rulebook):
    yellow2, green2, red4 = NumberCard(2, "yellow"), NumberCard(2, "green"), NumberCard(4, "red")
    # Seats 0 and 1 hold each other's cards: one I in an earlier round did that.
    judge(make_table((yellow2, 3, "equal"), (red4, 1, "equal"), (1, 1, "equal")), rulebook)
    # A third seat's colour as well: more than one I.
    found = _problems(make_table((yellow2, 3, "equal"), (green2, 1, "equal"), (1, 1, "equal")),
                      rulebook)
    assert [where for where, _ in found] == [("seats", 1, "numbers", 0)]
    # Two cards of other colours at one seat.
    found = _problems(make_table((yellow2, NumberCard(3, "yellow"), "equal"), (4, 1, "equal"),
                                 (1, 1, "equal")), rulebook)
    assert [where for where, _ in found] == [("seats", 0, "numbers", 1)]
    # I used in this very round: it was not used before, so nobody holds another's card yet.
    found = _problems(make_table((yellow2, 3, "equal"), (2, 1, "equal"), (1, 1, "equal"),
                                 actions=(ActionUse(Action.I, 2, seats=(0, 1)),)), rulebook)
    assert [where for where, _ in found] == [("seats", 0, "numbers", 0)]
