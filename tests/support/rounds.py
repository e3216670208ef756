"""A round's table for the referee, written as its seats' plays."""

from __future__ import annotations

from synergy_forge.core.actions import ActionUse
from synergy_forge.core.cards import DEFAULT_COLORS, Action, NumberCard
from synergy_forge.core.referee import SeatPlay, Table


def make_table(*seats: tuple, actions: tuple = (), **options) -> Table:
    """make_table((3, 2, "equal"), (4, 1, "unique"), ...): each seat plays in its own colour."""
    plays = []
    for i, (first, second, goal) in enumerate(seats):
        color = DEFAULT_COLORS[i]
        plays.append(SeatPlay(NumberCard(first, color) if isinstance(first, int) else first,
                              NumberCard(second, color) if isinstance(second, int) else second,
                              goal))
    uses = tuple(ActionUse(Action(a[0]), *a[1:]) if isinstance(a, tuple) else a for a in actions)
    return Table(tuple(plays), actions=uses, colors=DEFAULT_COLORS[: len(seats)], **options)
