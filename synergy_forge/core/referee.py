"""The round referee: one pure function from the cards on the table to a verdict.

Everything here follows docs/rules.md; comments name the ruling they implement. The game
engine, `judge` on the command line and the playtester all settle rounds through `judge`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple, overload

from synergy_forge.core.actions import ActionUse, Layout, lay_out
from synergy_forge.core.cards import (
    CARD_VALUES,
    DEFAULT_COLORS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUMBER_VALUES,
    Action,
    NumberCard,
)
from synergy_forge.core.rulelang import RuleKind, suggest
from synergy_forge.core.rules import ChallengePlan, Rulebook
from synergy_forge.errors import UnreadableInput


@dataclass(frozen=True, slots=True)
class SeatPlay:
    """What one seat laid down: its two number cards in the order played, and its goal card."""

    first: NumberCard
    second: NumberCard
    goal: str


@dataclass(frozen=True)
class Table:
    """A round at the moment of evaluation, before passing and actions are applied."""

    plays: tuple[SeatPlay, ...]
    challenges: tuple[str, ...] = ()
    allowed_failures: int = 0
    super_seat: int | None = None
    hyper_seat: int | None = None
    actions: tuple[ActionUse, ...] = ()
    colors: tuple[str, ...] = DEFAULT_COLORS

    @property
    def players(self) -> int:
        return len(self.plays)


class LossReason(StrEnum):
    """Why a mission ends lost at once (R21)."""

    HYPER = "hyper"  # the hyper holder missed its goal (R16)
    CHALLENGE = "challenge"  # a seat did not live up to a constraint (R9)
    LIVES = "lives"  # the last life was lost (R21)
    NUMBERS = "numbers"  # a seat cannot play two number cards (R21)
    GOALS = "goals"  # a seat has no goal card (R22)


@dataclass(frozen=True, slots=True)
class SeatVerdict:
    """How one seat fared. `first`/`second` are effective values (R5); `counted_*` per R6."""

    seat: int
    first: NumberCard
    second: NumberCard
    first_effective: int
    second_effective: int
    counted_first: int
    counted_second: int
    sum: int
    goal: str
    counted: bool
    met: bool  # the seat met its goal; a round succeeds (Verdict.success)
    violations: tuple[str, ...]
    left: int | None
    right: int | None


class Verdict(NamedTuple):
    """The referee's decision on a round.

    An immutable tuple rather than a frozen dataclass: the playtester builds millions of them,
    and a tuple is four times cheaper to build. Per-seat facts are parallel tuples; `seats`
    assembles them into SeatVerdict values for readers.
    """

    success: bool
    failures: int
    allowed_failures: int
    lost_reasons: tuple[LossReason, ...]
    sums: tuple[int, ...]
    met: tuple[bool, ...]
    goals: tuple[str, ...]
    counted: tuple[bool, ...]
    violations: tuple[tuple[str, ...], ...]
    table: Table
    #: per seat: (first card, second card, e1, e2, c1, c2)
    cards: tuple[tuple[NumberCard, NumberCard, int, int, int, int], ...] = ()
    #: per seat: the (left, right) neighbour sums its goal saw (R10)
    neighbours: tuple[tuple[int | None, int | None], ...] = ()

    @property
    def mission_lost(self) -> bool:
        return bool(self.lost_reasons)

    @property
    def seats(self) -> tuple[SeatVerdict, ...]:
        return tuple(
            SeatVerdict(i, f, s, e1, e2, c1, c2, self.sums[i], self.goals[i], self.counted[i],
                        self.met[i], self.violations[i], left, right)
            for i, ((f, s, e1, e2, c1, c2), (left, right)) in enumerate(
                zip(self.cards, self.neighbours, strict=True))
        )

    def counted_sums(self, excluding: int | None = None) -> list[int]:
        return [t for i, t in enumerate(self.sums) if self.counted[i] and i != excluding]


class IllegalRound(UnreadableInput, ValueError):
    """A table no real round can produce: the problems say where, by action index or seat.
    Unreadable input: such a table cannot be judged."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        super().__init__("; ".join(p.message for p in problems))
        self.problems = tuple(problems)


@dataclass(frozen=True, slots=True)
class Problem:
    """One reason a table is illegal. `where` is a path into the round file, e.g. ("actions", 1)."""

    where: tuple[str | int, ...]
    message: str


_ACTION_FIELDS = {
    Action.F: "target",
    Action.G: "target",
    Action.D: "other",
    Action.E: "seats",
    Action.I: "seats",
    Action.B: "replacement",
}


def table_problems(table: Table, rulebook: Rulebook) -> list[Problem]:
    """Everything that makes `table` impossible under docs/rules.md; empty for a legal table."""
    n = table.players
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        return [Problem(("seats",), f"a round has 3 to 5 seats, this one has {n}")]
    problems: list[Problem] = []
    if table.super_seat is not None or table.hyper_seat is not None:
        problems += _not_a_seat(table.super_seat, n, ("super",), "super holder")
        problems += _not_a_seat(table.hyper_seat, n, ("hyper",), "hyper holder")
    if table.allowed_failures < 0:
        problems.append(Problem(("allowed_failures",), "allowed failures cannot be negative"))
    problems += _play_problems(table, rulebook)
    problems += _challenge_problems(table, rulebook)
    problems += _card_problems(table)
    for k, use in enumerate(table.actions):
        problems += _action_problems(table, k, use)
    return problems


def _not_a_seat(value: int | None, players: int, where: tuple[str | int, ...],
                what: str) -> list[Problem]:
    if value is not None and not 0 <= value < players:
        return [Problem(where, f"{what} {value} is not a seat (0 to {players - 1})")]
    return []


def unknown(kind: str, ident: str, known: Mapping[str, object]) -> str | None:
    """The words for a goal or challenge id the rulebook lacks ("unknown goal 'close-cal'
    (did you mean 'close-call'?); expected one of …"), None for one it knows."""
    if ident in known:
        return None
    return (f"unknown {kind} {ident!r}{suggest(ident, sorted(known))}; expected one of "
            f"{', '.join(sorted(known))}")


def _play_problems(table: Table, rulebook: Rulebook) -> list[Problem]:
    """Goals the rulebook does not know, number cards no deck holds."""
    problems: list[Problem] = []
    goals = rulebook.goals
    for i, play in enumerate(table.plays):
        if (message := unknown("goal", play.goal, goals)) is not None:
            problems.append(Problem(("seats", i, "goal"), message))
        for j, card in enumerate((play.first, play.second)):
            if card.value not in CARD_VALUES:
                problems.append(Problem(("seats", i, "numbers", j), f"a number card is "
                                        f"{CARD_VALUES[0]} to {CARD_VALUES[-1]}, not {card.value}"))
    return problems


def _challenge_problems(table: Table, rulebook: Rulebook) -> list[Problem]:
    """Challenges unknown, listed twice, or passing goals both ways (R4)."""
    problems: list[Problem] = []
    challenges = rulebook.challenges
    passing = 0
    for i, cid in enumerate(table.challenges):
        if (message := unknown("challenge", cid, challenges)) is not None:
            problems.append(Problem(("challenges", i), message))
        elif cid in table.challenges[:i]:
            problems.append(Problem(("challenges", i), f"challenge {cid!r} is listed twice"))
        elif challenges[cid].kind is RuleKind.PASSING:
            passing += 1
    if passing > 1:
        problems.append(
            Problem(("challenges",), "goals cannot pass both left and right in one round (R4)")
        )
    return problems


def _action_problems(table: Table, k: int, use: ActionUse) -> list[Problem]:
    """What is wrong with the round's `k`th use of an action card: a card or a seat used
    twice (R12), a holder using H or J (R15), or the seats and cards it names."""
    where: tuple[str | int, ...] = ("actions", k)
    problems = _not_a_seat(use.seat, table.players, (*where, "seat"), "action user")
    earlier = table.actions[:k]
    if any(other.card is use.card for other in earlier):  # each card once per mission
        problems.append(Problem(where, f"action {use.card} is used twice"))
    first = next((other for other in earlier if other.seat == use.seat), None)
    if first is not None:  # R12
        problems.append(
            Problem(where, f"seat {use.seat} already used action "
                    f"{first.card}; one action per seat (R12)")
        )
    holders = {table.super_seat: "super", table.hyper_seat: "hyper"}
    if use.card in (Action.H, Action.J) and use.seat in holders:  # R15
        problems.append(
            Problem(where, f"seat {use.seat} holds the {holders[use.seat]} card and may "
                    f"not use {use.card} (R15)")
        )
    return problems + _named_problems(table.players, where, use)


def _named_problems(players: int, where: tuple[str | int, ...], use: ActionUse
                    ) -> list[Problem]:
    """The seats and cards an action use must name, and names that are not seats."""
    problems: list[Problem] = []
    needed = _ACTION_FIELDS.get(use.card)
    if needed == "target":
        if use.target is None:
            problems.append(Problem(where, f"action {use.card} needs a 'target' seat"))
        problems += _not_a_seat(use.target, players, (*where, "target"), "target")
    elif needed == "other":
        if use.other is None:
            problems.append(Problem(where, "action D needs an 'other' seat"))
        elif use.other == use.seat:
            problems.append(Problem((*where, "other"), "D exchanges with another seat"))
        problems += _not_a_seat(use.other, players, (*where, "other"), "other seat")
    elif needed == "seats":
        if use.seats is None:
            problems.append(Problem(where, f"action {use.card} needs two 'seats'"))
        else:
            for j, s in enumerate(use.seats):
                problems += _not_a_seat(s, players, (*where, "seats", j), "seat")
            if use.seats[0] == use.seats[1]:
                problems.append(Problem((*where, "seats"), "exchange two different seats"))
    elif needed == "replacement" and use.replacement is None:
        problems.append(Problem(where, "action B needs the card 'with' which to exchange"))
    return problems


#: How many copies of each value one colour's number cards hold (docs/rules.md "Components").
_COPIES = Counter(NUMBER_VALUES)


def _card_problems(table: Table) -> list[Problem]:
    """The number cards no real round can show: a colour nobody at this table plays, more
    copies of a card than its colour has, a card of another seat's colour that could not have
    reached this seat (S9)."""
    # The usual round: every seat plays two cards of its own colour and nobody uses B. Then
    # each colour shows two cards at most and all is possible.
    if all(play.first.color == color and play.second.color == color
           for play, color in zip(table.plays, table.colors, strict=False)) and \
            not any(use.card is Action.B for use in table.actions):
        return []
    problems: list[Problem] = []
    colors = table.colors[: table.players]
    owner = {color: seat for seat, color in enumerate(colors)}
    swapped = any(use.card is Action.I for use in table.actions)
    seen: Counter[NumberCard] = Counter()
    foreign: dict[int, int] = {}  # seat -> the seat whose colour it holds (S9)
    for seat, card, where in _round_cards(table):
        if card.color not in owner:
            playing = ", ".join(colors)
            problems.append(Problem(where, f"{card} is of a colour nobody plays at this table "
                                    f"({playing})"))
            continue
        seen[card] += 1
        copies = _COPIES.get(card.value)
        if copies and seen[card] > copies:
            problems.append(Problem(where, f"{card} is on the table {seen[card]} times; "
                                    f"{card.color} has only {copies} of them"))
        source = owner[card.color]
        if source == seat:
            continue
        if swapped:
            problems.append(Problem(where, f"seat {seat} cannot hold {card}: number cards "
                                    "change seats only through I, once a mission, and I is "
                                    "used in this round (S9)"))
        elif seat in foreign:
            problems.append(Problem(where, f"seat {seat} cannot hold a second card of another "
                                    "seat's colour: the one I of a mission moves one card to "
                                    "it (S9)"))
        elif any(other not in (seat, source) or (other == source and were != seat)
                 for other, were in foreign.items()):
            problems.append(Problem(where, f"seat {seat} cannot hold {card}: the one I of a "
                                    "mission swaps the cards of two seats only (S9)"))
        else:
            foreign[seat] = source
    return problems


def _round_cards(table: Table) -> list[tuple[int, NumberCard, tuple[str | int, ...]]]:
    """Every physical number card of the round: the seat holding it, the card, and where the
    round file names it. A B user may play as card 3 the first card B returned to its hand
    (R13): then it is one card."""
    b_user = {use.seat: k for k, use in enumerate(table.actions)
              if use.card is Action.B and use.replacement is not None}
    cards: list[tuple[int, NumberCard, tuple[str | int, ...]]] = []
    for i, play in enumerate(table.plays):
        cards.append((i, play.first, ("seats", i, "numbers", 0)))
        if not (i in b_user and play.second == play.first):
            cards.append((i, play.second, ("seats", i, "numbers", 1)))
        replacement = table.actions[b_user[i]].replacement if i in b_user else None
        if replacement is not None:
            cards.append((i, replacement, ("actions", b_user[i], "with")))
    return cards


def judge(table: Table, rulebook: Rulebook) -> Verdict:
    """Settle one round. Raises IllegalRound when `table` breaks the rules of play itself."""
    problems = table_problems(table, rulebook)
    if problems:
        raise IllegalRound(problems)
    return settle(table, rulebook)


@dataclass(frozen=True, slots=True)
class Arrangement:
    """The table after goal passing and the action step: what lies in front of each seat."""

    firsts: tuple[Any, ...]  # each seat's first number card (after B and I)
    deltas: tuple[int, ...]  # F and G on that card (R5, S2)
    goals: tuple[Any, ...]  # the goal card each seat must meet (after R4, D, E)
    ignored: frozenset[int]  # J users (R14)
    extra_failures: int  # one per H (R16)


def arrange(firsts: Sequence[Any], goals: Sequence[Any], actions: Sequence[ActionUse],
            direction: int = 0) -> Arrangement:
    """Pass the goal cards (R4), then resolve the actions in order (R12, R13).

    The referee, the game engine and the bots all call this; what each card does is its entry
    in `actions.ACTIONS`. `firsts` and `goals` may be any objects (the engine passes its
    physical cards); they are only moved between seats.
    """
    laid = _laid_out(list(firsts), list(goals), actions, direction)
    return Arrangement(tuple(laid.firsts), tuple(laid.deltas), tuple(laid.goals),
                       frozenset(laid.ignored), laid.extra_failures)


def _laid_out(firsts: list[Any], goals: list[Any], actions: Sequence[ActionUse],
              direction: int) -> Layout:
    """R4's passing, then each action's effect (`actions.ACTIONS`), on these lists."""
    if direction:
        k = -direction % len(firsts)
        goals[:] = goals[k:] + goals[:k]
    return lay_out(Layout(firsts, goals), actions)


def seat_sum(plan: ChallengePlan, first: NumberCard, second: NumberCard,
             delta: int = 0) -> tuple[int, int, int, int, int, bool, tuple[str, ...]]:
    """R5–R9 for one seat: (e1, e2, c1, c2, sum, identical, constraints broken)."""
    e1 = first.value + delta
    e2 = second.value
    c1, c2 = e1, e2
    for rule in plan.value_rules:
        c1 = rule(c1)
        c2 = rule(c2)
    total = c1 + c2 if plan.combine is None else plan.combine(c1, c2)
    identical = e1 == e2 and first.color == second.color
    for rule in plan.sum_rules:
        total = rule(total, c1, c2, identical)
    broken: tuple[str, ...] = ()
    for cid, check in plan.constraints:  # R8, R9
        if not check(c1, c2, e1, e2, total, identical):
            broken += (cid,)
    return e1, e2, c1, c2, total, identical, broken


def colour_pair_sums(plan: ChallengePlan) -> list[int]:
    """The sum of every way a seat may lay two of its colour's ten number cards (first, then
    second; each copy apart, so a sum comes as often as its pairs are dealt) that keeps the
    challenges (R5–R9): what a seat makes when nothing else is known of its hand. Empty when
    no pair keeps them."""
    cards = [NumberCard(v, "x") for v in NUMBER_VALUES]
    sums = []
    for i, a in enumerate(cards):
        for j, b in enumerate(cards):
            if i != j:
                e = seat_sum(plan, a, b, 0)
                if not e[6]:
                    sums.append(e[4])
    return sums


class PairSums(dict[tuple[NumberCard, NumberCard, int], tuple[int, bool]]):
    """Per (first card, second card, change to the first), (sum, a challenge broken) under
    one plan (R5–R9), each worked out the first time it is asked: `pairs[first, second,
    delta]`. Held by whoever asks about the same few pairs game after game (a game's R9
    check, the bots' mission model); bounded by the cards there are (25 x 25 pairs, a few
    changes)."""

    __slots__ = ("plan",)

    def __init__(self, plan: ChallengePlan) -> None:
        super().__init__()
        self.plan = plan

    def __missing__(self, key: tuple[NumberCard, NumberCard, int]) -> tuple[int, bool]:
        e = seat_sum(self.plan, *key)
        found = self[key] = (e[4], bool(e[6]))
        return found


@overload
def round_succeeds(failures: int, allowed: int, super_met: bool = True,
                   hyper_met: bool = True) -> bool: ...
@overload
def round_succeeds(failures: Any, allowed: int, super_met: Any = True,
                   hyper_met: Any = True) -> Any: ...
def round_succeeds(failures: Any, allowed: int, super_met: Any = True,
                   hyper_met: Any = True) -> Any:
    """R16, the one definition: the round succeeds when at most `allowed` counted seats failed
    (H included) and the super holder met its goal. With `hyper_met`, also that the mission
    goes on, which a hyper holder's miss ends whatever the round's result (R16, R21): what the
    bots and the oracle play for.

    Over bools for one table; over numpy's boolean arrays for a grid of possible tables
    (`sim.chances`), one verdict per table: hence `&` rather than `and`.
    """
    return (failures <= allowed) & super_met & hyper_met


def neighbour_seats(i: int, counted: Sequence[bool]) -> tuple[int | None, int | None]:
    """The nearest counted seats to the left and right of seat i (R10, R14)."""
    n = len(counted)
    left = next((j % n for j in range(i + 1, i + n) if counted[j % n]), None)
    right = next((j % n for j in range(i - 1, i - n, -1) if counted[j % n]), None)
    return left, right


def evaluate_goals(goal_checks: Mapping[str, Callable[..., Any]], goals: Sequence[str],
                   sums: list[int], ignored: set[int] | frozenset[int],
                   ) -> tuple[list[bool], list[tuple[int | None, int | None]], int]:
    """Which seats meet their goal: (met, (left, right) seen per seat, counted failures).

    "Others" are the other counted seats (R14); neighbours skip ignored seats (R10). Shared by
    `settle` and the bots that weigh possible tables.
    """
    n = len(sums)
    met = [False] * n
    neighbours: list[tuple[int | None, int | None]] = [(None, None)] * n
    failures = 0
    left: int | None
    right: int | None
    if not ignored:
        distinct = sorted(set(sums))
        for i in range(n):
            own = sums[i]
            left, right = sums[(i + 1) % n], sums[i - 1]
            ok = goal_checks[goals[i]](own, sums[:i] + sums[i + 1:], sums, distinct, left, right)
            met[i] = ok
            if not ok:
                failures += 1
            neighbours[i] = (left, right)
        return met, neighbours, failures
    counted = [i not in ignored for i in range(n)]
    counted_sums = [sums[i] for i in range(n) if counted[i]]
    for i in range(n):
        own = sums[i]
        if counted[i]:
            others = counted_sums.copy()
            others.remove(own)
            everyone = counted_sums
        else:
            others, everyone = counted_sums, [*counted_sums, own]
        left = right = None
        left_seat, right_seat = neighbour_seats(i, counted)
        if left_seat is not None and right_seat is not None and left_seat != right_seat:
            left, right = sums[left_seat], sums[right_seat]
        ok = goal_checks[goals[i]](own, others, everyone, sorted(set(everyone)), left, right)
        met[i] = ok
        if counted[i] and not ok:
            failures += 1
        neighbours[i] = (left, right)
    return met, neighbours, failures


def settle(table: Table, rulebook: Rulebook, plan: ChallengePlan | None = None) -> Verdict:
    """`judge` without the legality checks, for callers that only build legal tables; `plan`
    is the table's challenges' (`Rulebook.plan`), given by a caller that holds it.

    Written for speed (the playtester's inner loop); tests/core/test_properties.py and the
    rulings tests hold it to docs/rules.md.
    """
    plays = table.plays
    n = len(plays)
    if plan is None:
        plan = rulebook.plan(table.challenges)
    goals = [p.goal for p in plays]
    firsts = [p.first for p in plays]
    if table.actions or plan.direction:
        laid = _laid_out(firsts, goals, table.actions, plan.direction)
        deltas, ignored, extra_failures = laid.deltas, laid.ignored, laid.extra_failures
    else:
        deltas, ignored, extra_failures = [0] * n, set(), 0

    # R5–R9, seat by seat.
    sums = [0] * n
    cards: list[tuple[NumberCard, NumberCard, int, int, int, int]] = []
    violations: list[tuple[str, ...]] = [()] * n
    broken_any = False
    for i in range(n):
        first, second = firsts[i], plays[i].second
        e1, e2, c1, c2, sums[i], _, broken = seat_sum(plan, first, second, deltas[i])
        if broken:
            violations[i] = broken
            broken_any = True
        cards.append((first, second, e1, e2, c1, c2))

    met, neighbours, failures = evaluate_goals(rulebook.goal_checks, goals, sums, ignored)
    counted = tuple(i not in ignored for i in range(n))

    allowed = table.allowed_failures + extra_failures
    super_seat = table.super_seat
    success = round_succeeds(failures, allowed,
                             True if super_seat is None else bool(met[super_seat]))
    reasons: tuple[LossReason, ...] = ()
    if table.hyper_seat is not None and not met[table.hyper_seat]:
        reasons = (LossReason.HYPER,)
    if broken_any:
        reasons += (LossReason.CHALLENGE,)
    return Verdict(success, failures, allowed, reasons, tuple(sums), tuple(met), tuple(goals),
                   counted, tuple(violations), table, tuple(cards), tuple(neighbours))
