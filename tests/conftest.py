from __future__ import annotations

import pytest

from synergy_forge.authoring.definitions import standard_rulebook
from synergy_forge.core.cards import DEFAULT_COLORS, Action, NumberCard
from synergy_forge.core.referee import ActionUse, SeatPlay, Table
from synergy_forge.core.rules import Rulebook


@pytest.fixture(scope="session")
def rulebook() -> Rulebook:
    return standard_rulebook(native=True)


@pytest.fixture(scope="session")
def data_rulebook() -> Rulebook:
    return standard_rulebook(native=False)


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
