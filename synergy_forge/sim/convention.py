"""The table convention: one deterministic joint plan for a round, from the hands it is given.

Synergy forbids talking, but nothing forbids every seat from running the same computation on
the same facts. Given every seat's hand (counted from the face-up cards by the expert, read by
the oracle), `plan_round` returns, for every seat, the first card, goal card and second card that
make the round succeed, and among those the plan that leaves the best hands for later rounds.
Ties are broken in a fixed order and the search's restarts come from a fixed generator, so two
seats that call it with the same facts get the same plan: the table coordinates without a word
(a hat-guessing convention, in Hanabi's terms).

`best_action` asks the same of the action step (R12, R13): the action use of one seat that
turns a lost round into a won one, if there is one; actions are spent only then, since each is
used once a mission.

What a plan is worth later is a heuristic of the hands it leaves (`hand_value`): how many
different sums a hand can still make while keeping the challenges (R9), so that a seat keeps
the card that leaves legal pairs for the rounds to come (mission 9's `maximum-7`).
Everything here is a pure function of its arguments; what it remembers is kept in the mission
model it is handed (sim.model).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import product
from operator import getitem
from typing import Any, NamedTuple

import numpy as np

from synergy_forge.core.actions import ACTIONS, ActionUse, Layout, lay_out
from synergy_forge.core.cards import Action, GoalCard, NumberCard
from synergy_forge.core.choices import Decision, DecisionKind
from synergy_forge.core.memo import Memo
from synergy_forge.core.native import INFALLIBLE
from synergy_forge.core.referee import colour_pair_sums, round_succeeds
from synergy_forge.core.rules import Rulebook
from synergy_forge.sim.chances import grid_rules
from synergy_forge.sim.grid import GridRule, Many, NotOnGrid, Unsettled
from synergy_forge.sim.model import MissionModel
from synergy_forge.sim.search import ascend

#: Above this many sum vectors, the plan is searched by coordinate ascent, not exhaustively.
EXHAUSTIVE_LIMIT = 800
#: The value of a hand that cannot play another round (R21, R9): the mission would be lost.
DEAD_HAND = -100.0

#: What a memo's `get` gives for a key it does not hold, where None is a value it holds.
_UNKNOWN: Any = object()
#: Tables remembered per (rulebook, goal ids, ignored seats) (the model's `goals_met`).
TABLES_PER_GOALS = 50_000


#: What a table of sums gives a plan: (won, per seat whether it keeps a card (None: every seat
#: does), the goals' cost, per seat the first goal it meets in its order (-1: none)).
_Outcome = tuple[bool, "tuple[bool, ...] | None", float, tuple[int, ...]]
#: A seat's goal check's arguments: (sum, others, sums, distinct, left, right).
_View = tuple[int, list[int], list[int], list[int], "int | None", "int | None"]


@dataclass(frozen=True, slots=True)
class Rules:
    """The facts of a mission a plan depends on (all public)."""

    rulebook: Rulebook
    challenges: tuple[str, ...]
    goals: tuple[str, ...]  # the mission's goal ids (for the goals' ease)
    players: int
    direction: int  # goal passing (R4)
    allowed: int  # failures allowed this round, H included
    super_seat: int | None
    hyper_seat: int | None
    last_round: bool  # winning this round wins the mission: later rounds do not matter


@dataclass(frozen=True, slots=True)
class RoundState:
    """A round as far as it has gone, and every seat's hands (as the caller believes them)."""

    hands: tuple[tuple[NumberCard, ...], ...]
    goal_hands: tuple[tuple[Any, ...], ...]  # GoalCard values (anything with .goal)
    firsts: tuple[NumberCard | None, ...]  # as they lie now (after I, B); None: not played
    deltas: tuple[int, ...]  # F and G on each first card (R5)
    goals: tuple[Any, ...]  # goal cards lying in front of each seat now; None: not played
    ignored: frozenset[int]  # J users (R14)


@dataclass(frozen=True, slots=True)
class Plan:
    """Per seat, (first, goal card, second); `won`: the round succeeds if everyone follows."""

    plays: tuple[tuple[NumberCard | None, Any, NumberCard], ...]
    won: bool
    value: float


def hand_value(model: MissionModel, rules: Rules, hand: Sequence[NumberCard]) -> float:
    """What a hand is worth for the rounds to come: the different sums it can make keeping
    the challenges (R9), a little for every legal pair, and DEAD_HAND when no pair is legal."""
    key = (rules.rulebook, rules.challenges, tuple(sorted(hand)))
    found = model.hand_values.get(key)
    if found is not None:
        return found
    # Every ordered pair of two of its cards: a card's copies are the same card, so each pair
    # of cards is asked once and counted as often as the hand holds it.
    copies = Counter(key[2])
    sum_of = model.pairs(rules.rulebook, rules.challenges)
    sums: set[int] = set()
    pairs = 0
    for a, ways_a in copies.items():
        for b, ways_b in copies.items():
            ways = ways_a * (ways_b - 1 if a == b else ways_b)
            if ways:
                total, broken = sum_of[a, b, 0]
                if not broken:
                    sums.add(total)
                    pairs += ways
    value = DEAD_HAND if not pairs else len(sums) + 0.02 * pairs
    return model.hand_values.remember(key, value)


def goal_ease(model: MissionModel, rules: Rules) -> dict[str, float]:
    """How often each goal is met at a table of random legal pairs (a fixed sample): the
    plan spends the hardest goal that works now and keeps the easy ones."""
    key = (rules.rulebook, rules.challenges, rules.goals, rules.players)
    found = model.goal_ease.get(key)
    if found is not None:
        return found
    sums = colour_pair_sums(model.plan(rules.rulebook, rules.challenges)) or [0]
    rng = random.Random(0)
    checks = rules.rulebook.goal_checks
    n = rules.players
    # Every goal is weighed on the same 200 tables (the generator seeded alike for each).
    tables = [[rng.choice(sums) for _ in range(n)] for _ in range(200)]
    ease = {}
    for goal in sorted(set(rules.goals)):
        met = _met_on_grid(grid_rules(model, rules.rulebook).get(goal), tables)
        if met is None:  # a rule the grid cannot run (or not settled here): table by table
            met = 0
            for table in tables:
                own, others = table[0], table[1:]
                met += bool(checks[goal](own, others, table, sorted(set(table)), table[1],
                                         table[-1]))
        ease[goal] = met / 200
    return model.goal_ease.remember(key, ease)


def _met_on_grid(rule: GridRule | None, tables: list[list[int]]) -> int | None:
    """On how many `tables` seat 0 meets a goal with this grid rule (its left neighbour seat
    1, its right the last seat), all tables at once; None when the grid cannot say."""
    if rule is None:
        return None
    columns = list(np.array(tables, dtype=np.int64).T)
    try:
        met = rule(columns[0], Many(columns[1:]), Many(columns), columns[1], columns[-1])
    except (Unsettled, NotOnGrid):
        return None
    return int(np.broadcast_to(met, (len(tables),)).sum())


class _Option(NamedTuple):
    """One way a seat may reach a sum: its cards and what its hand is worth afterwards."""

    first: NumberCard
    second: NumberCard
    sum: int
    kept: float  # hand value if it meets its goal
    lost: float  # hand value if it fails


def pair_options(model: MissionModel, rules: Rules, hand: tuple[NumberCard, ...],
                 first: NumberCard | None, delta: int) -> tuple[_Option, ...]:
    """A seat's possible sums, each with the pair that leaves the best hand (sorted)."""
    # A seat's hand and first card stay as they are for most of a round's replans.
    key = (rules.rulebook, rules.challenges, rules.last_round, hand, first, delta)
    found = model.options.get(key)
    if found is None:
        found = model.options.remember(key, _seat_options(model, rules, hand, first, delta))
    return found


def _seat_options(model: MissionModel, rules: Rules, hand: tuple[NumberCard, ...],
                  first: NumberCard | None, delta: int) -> tuple[_Option, ...]:
    by_sum: dict[int, _Option] = {}
    pairs = model.pairs(rules.rulebook, rules.challenges)
    # The hands left are the hand less one card or two, each left by several pairs: each is
    # valued once here (`hand_value`'s own memo costs a sort and a hash a look-up).
    less: dict[tuple[NumberCard, ...], float] = {}

    def worth_less(*cards: NumberCard) -> float:
        """The value of `hand` less one copy of each of `cards` (in order)."""
        found = less.get(cards)
        if found is None:
            left = list(hand)
            for card in cards:
                left.remove(card)
            found = less[cards] = hand_value(model, rules, left)
        return found

    firsts = [first] if first is not None else sorted(set(hand))
    for f in firsts:
        rest = list(hand)
        if first is None:
            rest.remove(f)
        for s in sorted(set(rest)):
            total, broken = pairs[f, s, delta if first else 0]
            if broken:
                continue
            if rules.last_round:
                kept = lost = 0.0
            elif first is None:
                # R17: a seat that meets its goal takes one of its two cards back; the plan
                # keeps the better one (as the take-back will).
                kept = max(worth_less(s), worth_less(f))
                lost = worth_less(*((f, s) if f <= s else (s, f)))
            else:  # the first card lies on the table: the hand holds only s of the two
                left = list(rest)
                left.remove(s)
                kept = max(hand_value(model, rules, [*left, f]), worth_less())
                lost = worth_less(s)
            option = by_sum.get(total)
            if option is None or kept > option.kept:
                by_sum[total] = _Option(f, s, total, kept, lost)
    return tuple(by_sum[t] for t in sorted(by_sum))


def plan_round(model: MissionModel, rules: Rules, state: RoundState) -> Plan | None:
    """The convention's plan for the rest of the round, or None when some seat has no legal
    pair left (R9: the mission is lost whatever is played)."""
    key = (rules, state)
    # One look-up, not two: a round state's hash is worked out afresh at every call.
    found = model.round_plans.get(key, _UNKNOWN)
    if found is not _UNKNOWN:
        return found
    return model.round_plans.remember(key, _plan(model, rules, state))


def _plan(model: MissionModel, rules: Rules, state: RoundState) -> Plan | None:
    n = rules.players
    options = [pair_options(model, rules, state.hands[i], state.firsts[i], state.deltas[i])
               for i in range(n)]
    if not all(options):
        return None
    checks = rules.rulebook.goal_checks
    ease = goal_ease(model, rules)
    # Which goals may lie in front of each seat: the one there, or those of the seat whose
    # card will land there (R4).
    owner = [(p - rules.direction) % n for p in range(n)]
    placed = [g is not None for g in state.goals]
    choices: list[list[Any]] = []
    for p in range(n):
        if placed[p]:
            choices.append([state.goals[p]])
        else:
            hand = state.goal_hands[owner[p]]
            # Distinct goals, the hardest first: met with it, the plan spends it (ties: id).
            distinct = {g.goal: g for g in sorted(hand)}
            choices.append(sorted(distinct.values(), key=lambda g: (ease.get(g.goal, 0.0),
                                                                    g.goal)))
    ignored = state.ignored
    counted = [i not in ignored for i in range(n)]
    neighbours: list[tuple[int | None, int | None]] = []
    for i in range(n):
        left = next((j % n for j in range(i + 1, i + n) if counted[j % n]), None)
        right = next((j % n for j in range(i - 1, i - n, -1) if counted[j % n]), None)
        neighbours.append((left, right) if left is not None and right is not None
                          and left != right else (None, None))
    # Per seat: each goal that may lie there with its check, and what spending it costs (a
    # little for the goals kept: an easy goal spent now is missed later).
    tests = [[(checks[g.goal], g, 0.0 if placed[p] else 0.01 * ease.get(g.goal, 0.0))
              for g in choices[p]] for p in range(n)]
    allowed, super_seat, hyper_seat = rules.allowed, rules.super_seat, rules.hyper_seat
    seats = range(n)
    # Which goals a table of sums meets depends on nothing the hands or this round add: a
    # mission's few thousand tables are checked once and read by every plan after (`_met`).
    universe = tuple(sorted({g.goal for seat in choices for g in seat}
                            | {g for g in rules.goals if g in checks}))
    facts = (rules.rulebook, universe, ignored)
    known = model.goals_met.get(facts)
    if known is None:
        known = model.goals_met.remember(facts, Memo(TABLES_PER_GOALS))
    get = known.get
    # The built-in goals' native checks answer on every table; a campaign's rule may fail.
    infallible = all(checks[g] in INFALLIBLE for g in universe)
    # Per seat: the first of its choices met, from the goals met there (`_FirstMet`); then,
    # indexed by that (-1, none met: the last entry), what it costs, whether the seat counts
    # as a failure, and whether it keeps a card if the round is won (R17: the seats that met
    # their goal and J users keep one, the others lose both; in a lost round all keep one).
    at = {g: k for k, g in enumerate(universe)}
    firsts = [_first_met_of(model, tuple([1 << at[g.goal] for g in seat]))
              for seat in choices]
    costs = [[spent for _, _, spent in tests[p]] + [tests[p][0][2]] for p in seats]
    fails = [[0] * len(tests[p]) + [int(counted[p])] for p in seats]
    keeps_of = [[True] * len(tests[p]) + [not counted[p]] for p in seats]
    outcomes: dict[tuple[int, ...], _Outcome] = {}  # per goals met at each seat
    by_first: dict[tuple[int, ...], _Outcome] = {}  # per first goal met at each seat

    def judged(met: tuple[int, ...], sums: tuple[int, ...]) -> _Outcome:
        """What the table gives: the round won or not, who keeps a card (None: every seat),
        what the goals spent cost, and the first goal each seat meets in its choices."""
        if met:
            first_met = tuple(map(getitem, firsts, met))
        else:  # a check fails on this table: ask in the plan's order, to fail alike
            first_met = _first_met(tests, counted, neighbours, sums)
        found = by_first.get(first_met)
        if found is None:
            found = by_first[first_met] = settled(first_met)
        if met:
            outcomes[met] = found
        return found

    def settled(first_met: tuple[int, ...]) -> _Outcome:
        cost = sum(map(getitem, costs, first_met))
        failures = sum(map(getitem, fails, first_met))
        won = bool(round_succeeds(failures, allowed,
                                  True if super_seat is None else first_met[super_seat] >= 0,
                                  True if hyper_seat is None else first_met[hyper_seat] >= 0))
        keeps = tuple(map(getitem, keeps_of, first_met)) if won else None
        return won, None if keeps is None or all(keeps) else keeps, cost, first_met

    sum_of = [tuple(o.sum for o in seat) for seat in options]
    kept_of = [tuple(o.kept for o in seat) for seat in options]
    lost_of = [tuple(o.lost for o in seat) for seat in options]
    sizes = [len(o) for o in options]
    total = 1
    for size in sizes:
        total *= size
    if total <= EXHAUSTIVE_LIMIT:
        # Every table in `product`'s order, keeping the first best one (as `max` would). A
        # seat's options have distinct sums, so its sums stand for its options.
        best: _Outcome | None = None
        best_sums: tuple[int, ...] = ()
        best_won, best_value = False, 0.0
        for sums, kepts, losts in zip(product(*sum_of), product(*kept_of), product(*lost_of),
                                      strict=True):
            bound = sum(kepts)
            # Its value is at most `bound` (a goal costs >= 0, and a hand is worth no less
            # with one card more: every pair of the smaller is one of the larger, so lost <=
            # kept), so it cannot beat the won table found: where no check can fail, the
            # goals met there need not even be known.
            bounded = best_won and bound <= best_value
            if bounded and infallible:
                continue
            met = get(sums)
            if met is None:
                met = known.remember(sums, _met(checks, universe, counted, neighbours, sums))
            if bounded and met:
                continue  # (a table a check fails on, met == (), is still judged: the plan
                # then fails where it always did)
            found = outcomes.get(met)
            if found is None:
                found = judged(met, sums)
            won = found[0]
            if best is not None and won is not best_won and not won:
                continue  # a lost round after a won one: its value cannot matter
            keeps = found[1]
            if keeps is None:
                value = bound - found[2]
            else:
                value = sum([k if keep else lost
                             for k, lost, keep in zip(kepts, losts, keeps, strict=True)]) - found[2]
            if best is None or won is not best_won or value > best_value:
                best, best_sums, best_won, best_value = found, sums, won, value
        assert best is not None
        chosen = tuple(sum_of[i].index(s) for i, s in enumerate(best_sums))
        first_met = best[3]
    else:
        seen: dict[tuple[int, ...], tuple[bool, float]] = {}
        met_at: dict[tuple[int, ...], tuple[int, ...]] = {}

        def score(vector: tuple[int, ...]) -> tuple[bool, float]:
            result = seen.get(vector)
            if result is None:
                # map(getitem, ...) walks the seats in C: the same sums, added in seat order.
                sums = tuple(map(getitem, sum_of, vector))
                met = get(sums)
                if met is None:
                    met = known.remember(sums, _met(checks, universe, counted, neighbours,
                                                    sums))
                found = outcomes.get(met)
                if found is None:
                    found = judged(met, sums)
                won, keeps, cost, met_at[vector] = found
                if keeps is None:
                    value = sum(map(getitem, kept_of, vector))
                else:
                    value = sum([kept_of[i][c] if keeps[i] else lost_of[i][c]
                                 for i, c in enumerate(vector)])
                result = seen[vector] = (won, value - cost)
            return result

        chosen = ascend(sizes, score, kept_of, bounded=infallible)
        (best_won, best_value), first_met = seen[chosen], met_at[chosen]
    goal_for = [choices[p][k if k >= 0 else 0] for p, k in enumerate(first_met)]
    plays = []
    # Seat i plays the goal card that lands at position (i + direction) % n.
    for i in range(n):
        option = options[i][chosen[i]]
        plays.append((option.first, goal_for[(i + rules.direction) % n], option.second))
    return Plan(tuple(plays), best_won, best_value)


def _met(checks: Any, universe: tuple[str, ...], counted: list[bool],
         neighbours: list[tuple[int | None, int | None]],
         sums: tuple[int, ...]) -> tuple[int, ...]:
    """Per seat, the goals of `universe` it meets on the table `sums` (R10, R14), as bits (goal
    g: bit g); () when a check fails on it (a campaign's rule that fails on some input: the
    plan then asks in its own order, and fails where the referee would)."""
    tests = [checks[g] for g in universe]
    met = []
    try:
        for view in _views(counted, neighbours, sums):
            seat = 0
            for g, check in enumerate(tests):
                if check(*view):
                    seat |= 1 << g
            met.append(seat)
    except Exception:  # a campaign's rule (RuleError): _first_met raises it where it should
        return ()
    return tuple(met)


def _first_met_of(model: MissionModel, bits: tuple[int, ...]) -> _FirstMet:
    """The `_FirstMet` of a seat's choices (their bits, in order), shared by every plan."""
    found: _FirstMet | None = model.first_met.get(bits)
    if found is None:
        found = model.first_met.remember(bits, _FirstMet(bits))
    return found


class _FirstMet(dict[int, int]):
    """A seat's choices of goal (their bits, in order): per set of goals met there, the first
    of its choices among them (-1: none), worked out when first asked."""

    __slots__ = ("bits",)

    def __init__(self, bits: tuple[int, ...]) -> None:
        super().__init__()
        self.bits = bits

    def __missing__(self, met: int) -> int:
        first = next((k for k, bit in enumerate(self.bits) if met & bit), -1)
        self[met] = first
        return first


def _views(counted: list[bool], neighbours: list[tuple[int | None, int | None]],
           sums: tuple[int, ...]) -> list[_View]:
    """Per seat, the arguments of its goal check on the table `sums` (R10; R14 when some seat
    is ignored)."""
    table = list(sums)
    n = len(table)
    if all(counted):  # every seat counted: the neighbours are the next seats
        distinct = sorted(set(table))
        return [(table[p], table[:p] + table[p + 1:], table, distinct, table[(p + 1) % n],
                 table[p - 1]) for p in range(n)]
    counted_sums = [table[i] for i in range(n) if counted[i]]
    distinct = sorted(set(counted_sums))
    views: list[_View] = []
    for p, own in enumerate(table):
        if counted[p]:
            others = list(counted_sums)
            others.remove(own)
            everyone, dist = counted_sums, distinct
        else:
            others, everyone = counted_sums, [*counted_sums, own]
            dist = sorted(set(everyone))
        left_seat, right_seat = neighbours[p]
        left = table[left_seat] if left_seat is not None else None
        right = table[right_seat] if right_seat is not None else None
        views.append((own, others, everyone, dist, left, right))
    return views


def _first_met(tests: list[list[tuple[Any, Any, float]]], counted: list[bool],
               neighbours: list[tuple[int | None, int | None]],
               sums: tuple[int, ...]) -> tuple[int, ...]:
    """Per seat, the first of its goals it meets (-1: none), asked in the plan's order."""
    first_met = [-1] * len(sums)
    for p, view in enumerate(_views(counted, neighbours, sums)):
        for k, (check, _, _) in enumerate(tests[p]):
            if check(*view):
                first_met[p] = k
                break
    return tuple(first_met)


def after_action(state: RoundState, use: ActionUse,
                 discards: Sequence[Sequence[Any]]) -> RoundState:
    """The round as it would lie after `use`, the user's hand included (R13: each card's
    entry in `actions.ACTIONS`, as the engine plays it). H's failure allowed is the plan's
    `Rules.allowed` (`best_action`)."""
    laid = lay_out(Layout(list(state.firsts), list(state.goals), list(state.deltas),
                          set(state.ignored)), (use,))
    hands = list(state.hands)
    first = state.firsts[use.seat]
    assert first is not None  # the action step comes after card 1 (R3)
    hands[use.seat] = ACTIONS[use.card].on_hand(hands[use.seat], use, first)
    return replace(state, hands=tuple(hands), firsts=tuple(laid.firsts),
                   deltas=tuple(laid.deltas), goals=tuple(laid.goals),
                   ignored=frozenset(laid.ignored))


def planned_card(model: MissionModel, rules: Rules, state: RoundState,
                 decision: Decision) -> NumberCard | GoalCard | None:
    """The card the convention's plan lays for `decision` (a first number, a goal, a second
    number), when it is one of the decision's choices; None when there is no plan (some seat
    has no legal pair: R9 ends the mission whatever is played) or it is not."""
    plan = plan_round(model, rules, state)
    if plan is None:
        return None
    first, goal, second = plan.plays[decision.seat]
    wanted = {DecisionKind.FIRST_NUMBER: first, DecisionKind.GOAL: goal,
              DecisionKind.SECOND_NUMBER: second}.get(decision.kind)
    return wanted if wanted is not None and wanted in decision.choices else None


def best_action(model: MissionModel, rules: Rules, state: RoundState,
                uses: Sequence[ActionUse | None],
                discards: Sequence[Sequence[Any]] = ()) -> ActionUse | None:
    """The use (or None) the convention takes: none when the round is won without one (an
    action is used once a mission), else the use that wins it and leaves the best hands."""
    plan = plan_round(model, rules, state)
    if plan is None or plan.won:
        return None
    best: tuple[float, int] | None = None
    chosen: ActionUse | None = None
    for index, use in enumerate(uses):
        if use is None:
            continue
        trial_rules = replace(rules, allowed=rules.allowed + 1) if use.card is Action.H \
            else rules
        trial = plan_round(model, trial_rules, after_action(state, use, discards))
        if trial is None or not trial.won:
            continue
        # Prefer the use that leaves the best hands; then the earlier one (a fixed order).
        rank = (trial.value, -index)
        if best is None or rank > best:
            best, chosen = rank, use
    return chosen
