"""The print-and-play kit as data: every card a group needs, front and back, by group."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from synergy_forge.core.cards import GOAL_IDS, NUMBER_VALUES, Action, NumberCard
from synergy_forge.core.mission import Campaign

GROUPS = ("missions", "goals", "numbers", "actions", "specials")
#: Each colour also has a symbol, so that nobody needs to tell colours apart (by position).
SYMBOLS = ("●", "▲", "■", "◆", "★")
INKS = ("#d7263d", "#f2b701", "#2e9e44", "#1b6fc2", "#7b3fa0")


@dataclass(frozen=True)
class Face:
    """One side of a card: which template draws it and with what."""

    kind: str  # mission, goal, number, action, super, hyper, lives, rounds, back
    key: str  # a file-name-safe name, unique within its group
    data: Any = None
    color: int | None = None  # colour index, for colour decks
    source: str = ""  # the user file the text comes from, for overflow reports


@dataclass(frozen=True)
class Card:
    group: str
    front: Face
    back: Face


def _back(deck: str, color: int | None = None) -> Face:
    key = f"back-{deck}" + (f"-{color}" if color is not None else "")
    return Face("back", key, deck, color)


def build_kit(campaign: Campaign) -> dict[str, list[Card]]:
    """Every card of the kit, by group, in print order."""
    kit: dict[str, list[Card]] = {g: [] for g in GROUPS}
    missions = list(campaign.missions)
    faces = [Face("mission", f"mission-{m.number:02d}", m, source=m.source) for m in missions]
    # The rulebook's convention: mission 2k-1 on the front, 2k on the back.
    for k in range(0, len(faces), 2):
        back = faces[k + 1] if k + 1 < len(faces) else _back("mission")
        kit["missions"].append(Card("missions", faces[k], back))
    goal_ids = list(GOAL_IDS)
    for m in missions:
        goal_ids += [g for g in m.goals if g not in goal_ids]
    for c in range(len(campaign.colors)):
        for goal_id in goal_ids:
            definition = campaign.rulebook.goal(goal_id)
            kit["goals"].append(Card("goals", Face("goal", f"goal-{c}-{goal_id}", definition, c,
                                                   definition.origin.split(":")[0]),
                                     _back("goal", c)))
    for c, color in enumerate(campaign.colors):
        for i, value in enumerate(NUMBER_VALUES):
            card = NumberCard(value, color)
            kit["numbers"].append(Card("numbers", Face("number", f"number-{c}-{i}", card, c),
                                       _back("number", c)))
    actions = list(Action)
    for k in range(0, len(actions), 2):
        front, reverse = actions[k], actions[k + 1]
        kit["actions"].append(Card("actions", Face("action", f"action-{front}", front),
                                   Face("action", f"action-{reverse}", reverse)))
    for kind in ("super", "hyper", "lives", "rounds"):
        kit["specials"].append(Card("specials", Face(kind, kind), _back(kind)))
    return kit
