"""The physical components of Synergy, as values (docs/rules.md, "Components" and "Ids")."""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

DEFAULT_COLORS: tuple[str, ...] = ("red", "yellow", "green", "blue", "purple")
#: Each colour's symbol, printed beside its colour so that nobody needs to tell colours apart
#: (by position: the first colour's is ●, whatever the campaign names it).
COLOR_SYMBOLS: tuple[str, ...] = ("●", "▲", "■", "◆", "★")

#: The ten number cards of one colour: two copies of each value.
NUMBER_VALUES: tuple[int, ...] = (1, 1, 2, 2, 3, 3, 4, 4, 5, 5)

GOAL_IDS: tuple[str, ...] = (
    "one-higher",
    "one-lower",
    "equal",
    "unique",
    "between",
    "second-highest",
    "second-lowest",
)

CHALLENGE_IDS: tuple[str, ...] = (
    "goals-right",
    "goals-left",
    "uneven",
    "even",
    "low-to-high",
    "high-to-low",
    "minimum-5",
    "maximum-7",
    "no-doubles",
    "double-plus-3",
    "one-is-six",
    "five-is-ten",
    "difference",
)

#: The values a number card shows, lowest first (each twice per colour: NUMBER_VALUES).
CARD_VALUES: tuple[int, ...] = tuple(sorted(set(NUMBER_VALUES)))

MIN_PLAYERS = 3
MAX_PLAYERS = 5
#: Every player count a mission may be for.
PLAYER_COUNTS: tuple[int, ...] = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))
#: R23: a seat plays one goal card a round and has seven.
MAX_ROUNDS = 7


class Action(StrEnum):
    """The ten action cards; what each does is in docs/rules.md "Action cards" and R12–R15."""

    A = "A"
    B = "B"
    C = "C"
    D = "D"
    E = "E"
    F = "F"
    G = "G"
    H = "H"
    I = "I"  # noqa: E741 - the card is printed "I"
    J = "J"


class Order(StrEnum):
    """The play order of a round's three cards (R3)."""

    NUMBER_GOAL_NUMBER = "number-goal-number"
    GOAL_NUMBER_NUMBER = "goal-number-number"


class NumberCard(NamedTuple):
    """A printed number card. The two copies of a value in one colour are the same card.

    A NamedTuple rather than a frozen dataclass: cards are hashed, compared and sorted in the
    engine's inner loop, and a tuple does that in C (ordered by value, then colour).
    """

    value: int
    color: str

    def __str__(self) -> str:
        return f"{self.color} {self.value}"


class GoalCard(NamedTuple):
    """A printed goal card: a goal in a colour (a NamedTuple for the reason NumberCard is)."""

    goal: str
    color: str

    def __str__(self) -> str:
        return f"{self.color} {self.goal}"


def pair_action_cards(used_together: list[frozenset[Action]]) -> list[tuple[Action, Action]] | None:
    """Two action cards a physical card, so that no mission uses both faces of one card.

    `used_together` holds each mission's action cards. The pairing is the first one in
    alphabetical order (A with the first letter it may share a card with, and so on), so the
    same missions give the same sheets; None when no pairing exists.
    """
    apart = {(a, b) for used in used_together for a in used for b in used if a != b}
    order = list(Action)

    def pairs(left: list[Action]) -> list[tuple[Action, Action]] | None:
        if not left:
            return []
        first, rest = left[0], left[1:]
        for other in rest:
            if (first, other) not in apart:
                tail = pairs([a for a in rest if a != other])
                if tail is not None:
                    return [(first, other), *tail]
        return None

    return pairs(order)
