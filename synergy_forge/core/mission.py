"""Missions and campaigns as values (../shared/MISSION-FORMAT.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from synergy_forge.core.cards import DEFAULT_COLORS, GOAL_IDS, Action, Order
from synergy_forge.core.rules import ActionText, Rulebook


@dataclass(frozen=True)
class Mission:
    """One mission card."""

    id: str
    number: int
    title: Mapping[str, str]
    stars: int
    rounds: int
    lives: int
    players: tuple[int, ...] = (3, 4, 5)
    hand_numbers: int = 10
    hand_goals: int = 7
    order: Order = Order.NUMBER_GOAL_NUMBER
    #: players who may miss their goal in a round, per player count
    allowed_failures: Mapping[int, int] = field(default_factory=lambda: {3: 0, 4: 0, 5: 0})
    challenges: tuple[str, ...] = ()
    actions: tuple[Action, ...] = ()
    #: the goal cards of each player's goal deck (default the seven of RULES.md)
    goals: tuple[str, ...] = GOAL_IDS
    super: bool = False
    hyper: bool = False
    flavor: Mapping[str, str] = field(default_factory=dict)
    #: the file it was read from, for messages ("" when built in code)
    source: str = ""

    def failures_allowed(self, players: int) -> int:
        return self.allowed_failures[players]

    def label(self, language: str = "en") -> str:
        return self.title.get(language) or self.title.get("en") or self.id


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
