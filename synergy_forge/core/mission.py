"""Missions and campaigns as values (docs/mission-format.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

from synergy_forge.core.cards import DEFAULT_COLORS, GOAL_IDS, PLAYER_COUNTS, Action, Order
from synergy_forge.core.rules import ActionText, Rulebook

#: A mission's printed difficulty, in stars: from the easiest to the hardest.
FEWEST_STARS, MOST_STARS = 1, 5


def median_stars(per_count: Mapping[int, int]) -> int:
    """The one rating of stars declared per player count: their median, the higher of the
    middle two for two counts (a rating never promises an easier game than most tables
    get)."""
    values = sorted(per_count.values())
    return values[len(values) // 2]


@dataclass(frozen=True, slots=True)
class Mission:
    """One mission card. Immutable, its mappings included (read-only views): every seat's
    observation shows it, and the playtester plays thousands of games with one."""

    id: str
    number: int
    title: Mapping[str, str]
    #: the printed difficulty; with stars per player count, their median (median_stars)
    stars: int
    rounds: int
    lives: int
    players: tuple[int, ...] = PLAYER_COUNTS
    hand_numbers: int = 10
    hand_goals: int = 7
    order: Order = Order.NUMBER_GOAL_NUMBER
    #: players who may miss their goal in a round, per player count
    allowed_failures: Mapping[int, int] = field(
        default_factory=lambda: dict.fromkeys(PLAYER_COUNTS, 0))
    #: the stars per player count where the file declares them so; empty where it declares one
    #: number for every count. It holds only with `stars` its median: a mission made with
    #: other stars (tune's `replace(mission, stars=3)`) has those at every count.
    stars_per_count: Mapping[int, int] = field(default_factory=dict)
    challenges: tuple[str, ...] = ()
    actions: tuple[Action, ...] = ()
    #: the goal cards of each player's goal deck (default the seven of docs/rules.md)
    goals: tuple[str, ...] = GOAL_IDS
    super: bool = False
    hyper: bool = False
    flavor: Mapping[str, str] = field(default_factory=dict)
    #: the file it was read from, for messages ("" when built in code)
    source: str = ""

    def __post_init__(self) -> None:
        if self.stars_per_count and median_stars(self.stars_per_count) != self.stars:
            object.__setattr__(self, "stars_per_count", {})
        for name in _MAPPINGS:
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))

    def __reduce__(self) -> tuple[Any, ...]:
        # Read-only views cannot be pickled: a mission travels to a worker as plain dicts.
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        for name in _MAPPINGS:
            values[name] = dict(values[name])
        return (_mission, (values,))

    def failures_allowed(self, players: int) -> int:
        return self.allowed_failures[players]

    def stars_at(self, players: int) -> int:
        """The stars declared for `players` (the one rating for a count without its own)."""
        return self.stars_per_count.get(players, self.stars)

    def label(self, language: str = "en") -> str:
        return self.title.get(language) or self.title.get("en") or self.id


_MAPPINGS = ("title", "allowed_failures", "stars_per_count", "flavor")


def _mission(values: dict[str, Any]) -> Mission:
    return Mission(**values)


@dataclass(frozen=True)
class Campaign:
    """A folder of missions, with the goals and challenges they may use."""

    name: Mapping[str, str]
    missions: tuple[Mission, ...]
    rulebook: Rulebook
    languages: tuple[str, ...] = ("en",)
    colors: tuple[str, ...] = DEFAULT_COLORS
    source: str = ""
    #: the action cards' names and texts, as printed
    actions: Mapping[Action, ActionText] = field(default_factory=dict)

    def mission(self, key: str | int) -> Mission:
        for mission in self.missions:
            if mission.id == key or str(mission.number) == str(key):
                return mission
        raise KeyError(key)
