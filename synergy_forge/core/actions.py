"""The ten action cards as one table (docs/rules.md "Action cards", R12–R15): for each card, the
uses a seat may make of it, what a use does to the round on the table (R13), and what it does
to its user's hand. The engine lists and applies uses with it, the referee lays a round's cards
out with it, and the bots try uses on the rounds they plan with it: one definition of each card.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from itertools import combinations
from types import MappingProxyType
from typing import Any, NamedTuple

from synergy_forge.core.cards import Action, NumberCard


@dataclass(frozen=True, slots=True)
class ActionUse:
    """One action card used in the action step (R12, R13). Which fields matter depends on card."""

    card: Action
    seat: int
    target: int | None = None  # F, G: the seat whose first number card changes
    other: int | None = None  # D: the seat whose goal card is exchanged with the user's
    seats: tuple[int, int] | None = None  # E, I: the two seats whose cards are exchanged
    replacement: NumberCard | None = None  # B: the card from the user's hand
    cards: tuple[NumberCard, ...] | None = None  # A, C: the cards taken from the discard row


class Layout:
    """The round's cards as actions move them, per seat: the first number card (any object the
    caller moves: the engine's cards, a bot's), the change F and G made to it, the goal card
    in front of the seat; the J users; the failures H allows. Changed in place."""

    __slots__ = ("deltas", "extra_failures", "firsts", "goals", "ignored")

    def __init__(self, firsts: list[Any], goals: list[Any], deltas: list[int] | None = None,
                 ignored: set[int] | None = None) -> None:
        self.firsts, self.goals = firsts, goals
        self.deltas = [0] * len(firsts) if deltas is None else deltas
        self.ignored = set() if ignored is None else ignored
        self.extra_failures = 0


class Asked(NamedTuple):
    """What the uses a seat may make of a card depend on (R12–R15)."""

    seat: int
    players: int
    holder: bool  # the seat holds the super or hyper card (R15)
    hand: tuple[NumberCard, ...]  # its number cards, distinct, in order
    row: tuple[NumberCard, ...]  # the number cards in its discard row, sorted (repeats kept)


class ActionCard(NamedTuple):
    """One card's rules: its legal uses, in a fixed order; what a use does on the table; the
    user's hand after it, from its hand before and its first card as it lies (B)."""

    uses: Callable[[Action, Asked], list[ActionUse]]
    on_table: Callable[[Layout, ActionUse], None]
    on_hand: Callable[[tuple[NumberCard, ...], ActionUse, NumberCard], tuple[NumberCard, ...]]


# -- the uses a seat may make (R12–R15) -----------------------------------------------------

def _one_from_row(card: Action, asked: Asked) -> list[ActionUse]:  # A
    return [ActionUse(card, asked.seat, cards=(c,)) for c in sorted(set(asked.row))]


def _two_from_row(card: Action, asked: Asked) -> list[ActionUse]:  # C
    pairs = sorted(set(combinations(asked.row, 2)))
    return [ActionUse(card, asked.seat, cards=pair) for pair in pairs]


def _from_hand(card: Action, asked: Asked) -> list[ActionUse]:  # B
    return [ActionUse(card, asked.seat, replacement=c) for c in asked.hand]


def _another_seat(card: Action, asked: Asked) -> list[ActionUse]:  # D
    return [ActionUse(card, asked.seat, other=t) for t in range(asked.players) if t != asked.seat]


def _two_seats(card: Action, asked: Asked) -> list[ActionUse]:  # E, I
    return [ActionUse(card, asked.seat, seats=(a, b))
            for a, b in combinations(range(asked.players), 2)]


def _any_seat(card: Action, asked: Asked) -> list[ActionUse]:  # F, G
    return [ActionUse(card, asked.seat, target=t) for t in range(asked.players)]


def _not_a_holder(card: Action, asked: Asked) -> list[ActionUse]:  # H, J (R15)
    return [] if asked.holder else [ActionUse(card, asked.seat)]


# -- what a use does on the table (R13, R14, R16) --------------------------------------------
# Every use names what its card needs (the engine builds only such uses; `referee.
# table_problems` checks a round file's): the asserts say so to the type checker.

def _nothing(layout: Layout, use: ActionUse) -> None:  # A, C: the table does not change
    pass


def _raise(layout: Layout, use: ActionUse) -> None:  # F
    assert use.target is not None
    layout.deltas[use.target] += 1


def _lower(layout: Layout, use: ActionUse) -> None:  # G
    assert use.target is not None
    layout.deltas[use.target] -= 1


def _replace_first(layout: Layout, use: ActionUse) -> None:  # B
    layout.firsts[use.seat] = use.replacement
    layout.deltas[use.seat] = 0  # S2: F/G leave with the card


def _swap_firsts(layout: Layout, use: ActionUse) -> None:  # I
    assert use.seats is not None
    a, b = use.seats
    firsts, deltas = layout.firsts, layout.deltas
    firsts[a], firsts[b] = firsts[b], firsts[a]
    deltas[a], deltas[b] = deltas[b], deltas[a]  # S2: F/G travel with the card


def _swap_goal_with(layout: Layout, use: ActionUse) -> None:  # D
    assert use.other is not None
    goals, a, b = layout.goals, use.seat, use.other
    goals[a], goals[b] = goals[b], goals[a]


def _swap_goals(layout: Layout, use: ActionUse) -> None:  # E
    assert use.seats is not None
    goals, (a, b) = layout.goals, use.seats
    goals[a], goals[b] = goals[b], goals[a]


def _one_more_failure(layout: Layout, use: ActionUse) -> None:  # H (R16)
    layout.extra_failures += 1


def _leave_out(layout: Layout, use: ActionUse) -> None:  # J (R14)
    layout.ignored.add(use.seat)


# -- what a use does to its user's hand -------------------------------------------------------

def _same_hand(hand: tuple[NumberCard, ...], use: ActionUse,
               first: NumberCard) -> tuple[NumberCard, ...]:
    return hand


def _taken_from_row(hand: tuple[NumberCard, ...], use: ActionUse,
                    first: NumberCard) -> tuple[NumberCard, ...]:  # A, C
    assert use.cards is not None
    return (*hand, *use.cards)


def _exchanged(hand: tuple[NumberCard, ...], use: ActionUse,
               first: NumberCard) -> tuple[NumberCard, ...]:  # B: the first card comes back
    i = hand.index(use.replacement)
    return (*hand[:i], *hand[i + 1:], first)


#: Each action card's rules, one entry per card (docs/rules.md "Action cards").
ACTIONS: Mapping[Action, ActionCard] = MappingProxyType({
    Action.A: ActionCard(_one_from_row, _nothing, _taken_from_row),
    Action.B: ActionCard(_from_hand, _replace_first, _exchanged),
    Action.C: ActionCard(_two_from_row, _nothing, _taken_from_row),
    Action.D: ActionCard(_another_seat, _swap_goal_with, _same_hand),
    Action.E: ActionCard(_two_seats, _swap_goals, _same_hand),
    Action.F: ActionCard(_any_seat, _raise, _same_hand),
    Action.G: ActionCard(_any_seat, _lower, _same_hand),
    Action.H: ActionCard(_not_a_holder, _one_more_failure, _same_hand),
    Action.I: ActionCard(_two_seats, _swap_firsts, _same_hand),
    Action.J: ActionCard(_not_a_holder, _leave_out, _same_hand),
})


def lay_out(layout: Layout, actions: Any) -> Layout:
    """`layout` after every use of `actions`, in order (R12)."""
    for use in actions:
        ACTIONS[use.card].on_table(layout, use)
    return layout
