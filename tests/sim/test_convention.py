"""The table convention (sim/convention.py): a plan is the same whatever the memos hold; a
campaign's goal rule that fails on some table fails a plan exactly where the plan's own order
of checks reaches it, no sooner (the goals met on a table are remembered for every goal at
once, so the memo asks rules the plan would not have asked); an action the plan tries lays the
round out as the engine plays it.
"""

from __future__ import annotations

import random

import pytest

from synergy_forge.authoring.definitions import standard_rulebook
from synergy_forge.authoring.loading import read_campaign
from synergy_forge.core.actions import ActionUse
from synergy_forge.core.cards import Action, GoalCard, NumberCard
from synergy_forge.core.choices import DecisionKind
from synergy_forge.core.engine import Game
from synergy_forge.core.rulelang import RuleError, RuleKind, compile_rule
from synergy_forge.core.rules import Definition
from synergy_forge.resources import starter_campaign
from synergy_forge.sim import convention
from synergy_forge.sim.expert import round_state
from synergy_forge.sim.model import MissionModel
from synergy_forge.sim.playtest import game_seed, play_batch

#: Fails (a division by zero) where the seat's sum is 6.
FRAGILE = "12 // (sum - 6) > 0"


def _fragile_rulebook():
    return standard_rulebook().extended([Definition(
        "fragile", RuleKind.GOAL, {"en": "fragile"}, {"en": ""}, rule=FRAGILE,
        check=compile_rule(RuleKind.GOAL, FRAGILE))])


def _round(sums: tuple[int, int, int]) -> convention.RoundState:
    """Three seats with one card left each, first cards played: one table of `sums`. Seat 0
    chooses between 'equal' and 'fragile' (both of ease 0: 'equal' is asked first); seats 1
    and 2 have 'unique' in front of them."""
    colors = ("red", "yellow", "green")
    firsts = tuple(NumberCard(s // 2, c) for s, c in zip(sums, colors, strict=True))
    hands = tuple((NumberCard(s - s // 2, c),) for s, c in zip(sums, colors, strict=True))
    goal_hands = ((GoalCard("equal", "red"), GoalCard("fragile", "red")), (), ())
    goals = (None, GoalCard("unique", "yellow"), GoalCard("unique", "green"))
    return convention.RoundState(hands, goal_hands, firsts, (0, 0, 0), goals, frozenset())


def test_a_failing_goal_rule_fails_a_plan_only_where_the_plan_asks_it():
    rules = convention.Rules(_fragile_rulebook(), (), (), 3, 0, 1, None, None, True)
    # 6, 6, 8: seat 0 meets 'equal' first and is never asked 'fragile' (which fails on 6).
    plan = convention.plan_round(MissionModel(), rules, _round((6, 6, 8)))
    assert plan is not None and plan.won
    assert plan.plays[0][1] == GoalCard("equal", "red")
    # 6, 7, 8: 'equal' is missed, so 'fragile' is asked of the 6: the rule's failure surfaces.
    with pytest.raises(RuleError):
        convention.plan_round(MissionModel(), rules, _round((6, 7, 8)))


@pytest.mark.parametrize("number", [21, 22, 25])  # a campaign's own goal; H and F; B and J
@pytest.mark.slow
def test_a_plan_is_the_same_from_empty_memos(number, monkeypatch):
    campaign = read_campaign(starter_campaign()).campaign
    mission = campaign.mission(number)
    asked: list[tuple[convention.Rules, convention.RoundState]] = []
    plan_round = convention.plan_round

    def recorded(model, rules, state):
        asked.append((rules, state))
        return plan_round(model, rules, state)

    monkeypatch.setattr(convention, "plan_round", recorded)
    model = MissionModel()  # the games' own, warm at the end
    for players in (3, 5):
        seeds = [game_seed(1, mission.id, players, i) for i in range(3)]
        play_batch(mission, campaign.rulebook, campaign.colors, players, "expert", seeds,
                   model=model)
    monkeypatch.undo()
    assert asked
    warm = [convention.plan_round(model, rules, state) for rules, state in asked]
    for (rules, state), plan in list(zip(asked, warm, strict=True))[::7]:
        assert convention.plan_round(MissionModel(), rules, state) == plan


def test_a_failing_goal_rule_fails_a_plan_on_a_table_the_search_could_pass_over():
    """The exhaustive search passes over a table whose bound cannot beat the won table it
    holds, without looking up its goals, only where every check answers on every table (the
    native ones): a campaign's rule that fails there still fails the plan, as the plan's own
    order of checks reaches it."""
    rules = convention.Rules(_fragile_rulebook(), (), (), 3, 0, 1, None, None, True)
    colors = ("red", "yellow", "green")
    # Seat 0 sums 5 or 6 (first card 3, then 2 or 3); seats 1 and 2 sum 8 and 9. In the last
    # round every hand is worth 0, so (5, 8, 9), won first, bounds (6, 8, 9): 'equal' is
    # missed there, so 'fragile' is asked of the 6.
    state = convention.RoundState(
        ((NumberCard(2, "red"), NumberCard(3, "red")), (NumberCard(4, "yellow"),),
         (NumberCard(5, "green"),)),
        ((GoalCard("equal", "red"), GoalCard("fragile", "red")), (), ()),
        tuple(NumberCard(v, c) for v, c in zip((3, 4, 4), colors, strict=True)), (0, 0, 0),
        (None, GoalCard("unique", "yellow"), GoalCard("unique", "green")), frozenset())
    with pytest.raises(RuleError):
        convention.plan_round(MissionModel(), rules, state)
    # The same round with seat 0's 3 gone is won, on (5, 8, 9) alone.
    alone = convention.RoundState(((NumberCard(2, "red"),), *state.hands[1:]),
                                  *[getattr(state, f) for f in
                                    ("goal_hands", "firsts", "deltas", "goals", "ignored")])
    plan = convention.plan_round(MissionModel(), rules, alone)
    assert plan is not None and plan.won


def test_a_failing_goal_rule_fails_a_plan_where_the_ascent_scores_it():
    """Above EXHAUSTIVE_LIMIT tables the plan is a coordinate ascent, which leaves unscored a
    vector whose bound cannot beat the won vector it holds only where every check answers on
    every table: with a campaign's rule that fails, every vector it walks is scored, and the
    first on which the plan's order asks the failing rule fails the plan."""
    colors = ("red", "yellow", "green", "blue", "purple")
    rules = convention.Rules(_fragile_rulebook(), (), (), 5, 0, 5, None, None, True)
    # Four sums a seat, 4**5 tables: seat 0 2, 3, 6 or 7, the others 3 to 6. Every table is
    # won (5 failures allowed) and worth 0 (the last round): from the start, (2, 3, 3, 3, 3),
    # every other vector is bounded by its value; (6, 3, 3, 3, 3), walked first, misses
    # 'equal', so 'fragile' is asked of the 6.
    hands = ((1, 2, 5, 6), *[(2, 3, 4, 5)] * 4)
    state = convention.RoundState(
        tuple(tuple(NumberCard(v, c) for v in hand) for hand, c in zip(hands, colors,
                                                                        strict=True)),
        ((GoalCard("equal", "red"), GoalCard("fragile", "red")), (), (), (), ()),
        tuple(NumberCard(1, c) for c in colors), (0,) * 5,
        (None, *[GoalCard("unique", c) for c in colors[1:]]), frozenset())
    assert convention.EXHAUSTIVE_LIMIT < 4 ** 5
    with pytest.raises(RuleError):
        convention.plan_round(MissionModel(), rules, state)


def test_an_action_the_plan_tries_lays_the_round_out_as_the_engine_plays_it():
    """The bots try each action use on the round as they believe it (`after_action`); with the
    true hands, that is exactly what the engine makes of it (R13): the first cards, F and G's
    changes, the goal cards, the J users and the user's hand. Every use of every action card,
    in random games of the starter missions that have them."""
    campaign = read_campaign(starter_campaign()).campaign
    tried = set()
    for mission in campaign.missions:
        if not mission.actions:
            continue
        for seed in range(4):
            game = Game(mission, 4 if 4 in mission.players else mission.players[0], seed,
                        campaign.rulebook, campaign.colors)
            rng = random.Random(seed)
            while not game.over:
                decisions = game.pending()
                if decisions[0].kind is DecisionKind.ACTION:
                    seat = decisions[0].seat
                    state = round_state(game.observe(seat), tuple(game.hands),
                                        tuple(game.goal_hands))
                    for use in decisions[0].choices:
                        if not isinstance(use, ActionUse):
                            continue
                        tried.add(use.card)
                        after = convention.after_action(state, use, game.discards)
                        twin = game.copy()
                        twin.apply([use])
                        placed = twin.arrangement()
                        assert (after.firsts, after.deltas, after.goals, after.ignored) == (
                            placed.firsts, placed.deltas, placed.goals, placed.ignored), use
                        assert sorted(after.hands[seat]) == sorted(twin.hands[seat]), use
                game.apply([rng.choice(d.choices) for d in decisions])
    assert tried == set(Action)


def _reference_hand_value(model, rules, hand):
    """A hand's value (`convention.hand_value`) as defined: over every ordered pair of two of
    its cards (a card held twice makes its pair with itself twice over)."""
    sums, pairs = set(), 0
    for i, a in enumerate(hand):
        for j, b in enumerate(hand):
            if i != j:
                total, broken = model.pair_sum(rules.rulebook, rules.challenges, a, b)
                if not broken:
                    sums.add(total)
                    pairs += 1
    return convention.DEAD_HAND if not pairs else len(sums) + 0.02 * pairs


def _reference_options(model, rules, hand, first, delta):
    """A seat's options (`convention.pair_options`) as defined: per sum, the pair that keeps
    the best hand, each hand left valued afresh."""
    by_sum = {}
    for f in [first] if first is not None else sorted(set(hand)):
        rest = list(hand)
        if first is None:
            rest.remove(f)
        for s in sorted(set(rest)):
            total, broken = model.pair_sum(rules.rulebook, rules.challenges, f, s,
                                           delta if first else 0)
            if broken:
                continue
            left = list(rest)
            left.remove(s)
            kept = lost = 0.0
            if not rules.last_round:
                kept = max(_reference_hand_value(model, rules, [*left, f]),
                           _reference_hand_value(model, rules, [*left, s]))
                lost = _reference_hand_value(model, rules, left)
            if total not in by_sum or kept > by_sum[total].kept:
                by_sum[total] = convention._Option(f, s, total, kept, lost)
    return tuple(by_sum[t] for t in sorted(by_sum))


@pytest.mark.parametrize("challenges", [(), ("maximum-7",), ("no-doubles", "even")])
def test_hand_values_and_options_are_those_of_every_pair_of_cards(rulebook, challenges):
    """A hand's value counts each pair of cards once per way the hand holds it, and a seat's
    options value each hand left once: the same numbers as pair by pair (R9, R17)."""
    rng = random.Random(7)
    cards = [NumberCard(v, c) for v in (1, 2, 3, 4, 5) for c in ("red", "red", "blue")]
    model = MissionModel()
    for last_round in (False, True):
        rules = convention.Rules(rulebook, challenges, ("equal",), 3, 1, 0, None, None,
                                 last_round)
        for _ in range(60):
            hand = tuple(sorted(rng.sample(cards, rng.randint(0, 8))))
            assert convention.hand_value(model, rules, hand) == \
                _reference_hand_value(model, rules, hand)
            first = rng.choice([None, None, rng.choice(cards)])
            delta = rng.choice([0, 0, 1, -1]) if first is not None else 0
            assert convention._seat_options(model, rules, hand, first, delta) == \
                _reference_options(model, rules, hand, first, delta)
