"""The printed game is the simulated game: the kit's components, counted once (what the
rulebook's component list prints), and checked against what the engine deals and plays for
every mission of the campaign (what `build` refuses to print without).

For each mission the engine sets up a game at the mission's largest player count, in the
campaign's colours: every number and goal card it deals to any seat (hands and decks), the
action cards the mission lays out, the super and hyper cards it hands out and the lives and
rounds it counts must be cards the kit prints, as many as the engine uses.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from synergy_forge.core.cards import GOAL_IDS, NUMBER_VALUES, Action, GoalCard
from synergy_forge.core.engine import Game
from synergy_forge.core.mission import Campaign
from synergy_forge.errors import WrongInput
from synergy_forge.printing.kit import Card

#: The lives and rounds cards' track: every value from 0 to this (R23: at most seven rounds,
#: so at most seven lives can ever be lost).
TRACK_TOP = 7
#: The two coins (or tokens) of the players' own that mark the lives and the rounds.
TOKENS = 2


class KitMismatch(WrongInput):
    """The kit would not hold the cards the engine deals or plays for a mission (exit 1)."""


@dataclass(frozen=True)
class Components:
    """What is in the printed box, counted from the kit (printing.kit.build_kit)."""

    colours: int
    #: one colour's number cards, by value
    number_values: tuple[int, ...]
    numbers: int
    #: the base goal cards of one colour, and all colours'
    base_goals: int
    goal_cards: int
    #: the campaign's own goals printed (one card each in every colour), by id
    own_goals: tuple[str, ...]
    own_goal_cards: int
    missions: int
    mission_cards: int
    #: action cards: their letters, the physical cards, and whether two share a card
    actions: tuple[str, ...]
    action_cards: int
    paired: bool
    specials: tuple[str, ...]
    track: tuple[int, int] = (0, TRACK_TOP)
    tokens: int = TOKENS


def components(kit: dict[str, list[Card]]) -> Components:
    """The kit's components, as the rulebook lists them."""
    numbers = [c.front for c in kit["numbers"]]
    colours = len({f.color for f in numbers})
    first = min(f.color for f in numbers if f.color is not None) if numbers else 0
    goals = [c.front for c in kit["goals"]]
    own = tuple(dict.fromkeys(f.data.id for f in goals if f.data.id not in GOAL_IDS))
    letters = sorted(str(f.data) for c in kit["actions"] for f in (c.front, c.back)
                     if f.kind == "action")
    mission_faces = [f for c in kit["missions"] for f in (c.front, c.back)
                     if f.kind == "mission"]
    return Components(
        colours=colours,
        number_values=tuple(sorted(f.data.value for f in numbers if f.color == first)),
        numbers=len(numbers),
        base_goals=sum(1 for f in goals if f.data.id in GOAL_IDS and f.color == first),
        goal_cards=sum(1 for f in goals if f.data.id in GOAL_IDS),
        own_goals=own,
        own_goal_cards=sum(1 for f in goals if f.data.id in own),
        missions=len(mission_faces),
        mission_cards=len(kit["missions"]),
        actions=tuple(letters),
        action_cards=len(kit["actions"]),
        paired=any(c.back.kind == "action" for c in kit["actions"]),
        specials=tuple(c.front.kind for c in kit["specials"]))


def mismatches(campaign: Campaign, kit: dict[str, list[Card]]) -> list[str]:
    """Where the kit falls short of what the engine deals and plays: one sentence each,
    naming the mission; empty when the printed game is the simulated one."""
    found = []
    counted = components(kit)
    if counted.number_values != tuple(sorted(NUMBER_VALUES)):
        found.append(f"each colour has the number cards {list(counted.number_values)}, not "
                     f"{sorted(NUMBER_VALUES)}")
    if counted.base_goals != len(GOAL_IDS):
        found.append(f"each colour has {counted.base_goals} base goal cards, not "
                     f"{len(GOAL_IDS)}")
    printed_numbers: dict[int | None, Counter[int]] = {}
    for card in kit["numbers"]:
        printed_numbers.setdefault(card.front.color, Counter())[card.front.data.value] += 1
    printed_goals: dict[int | None, Counter[str]] = {}
    for card in kit["goals"]:
        printed_goals.setdefault(card.front.color, Counter())[card.front.data.id] += 1
    printed_missions = Counter(f.data.number for c in kit["missions"]
                               for f in (c.front, c.back) if f.kind == "mission")
    for mission in campaign.missions:
        where = f"mission {mission.number}"
        if printed_missions[mission.number] != 1:
            found.append(f"{where}: printed on {printed_missions[mission.number]} faces, "
                         "not one")
        players = max(mission.players)
        game = Game(mission, players, 0, campaign.rulebook, campaign.colors)
        for seat, colour in enumerate(campaign.colors[:players]):
            dealt = [card for _, card in game.cards_of(colour)]
            numbers = Counter(c.value for c in dealt if not isinstance(c, GoalCard))
            goals = Counter(c.goal for c in dealt if isinstance(c, GoalCard))
            short = numbers - printed_numbers.get(seat, Counter())
            if short:
                found.append(f"{where}: the engine deals {colour} number cards the kit does "
                             f"not print: {dict(sorted(short.items()))}")
            short_goals = goals - printed_goals.get(seat, Counter())
            if short_goals:
                found.append(f"{where}: the engine deals {colour} goal cards the kit does not "
                             f"print: {', '.join(sorted(short_goals))}")
        missing = [str(a) for a in mission.actions if str(a) not in counted.actions]
        if missing:
            found.append(f"{where}: action cards {', '.join(missing)} are played but not "
                         "printed")
        for special, used in (("super", mission.super), ("hyper", mission.hyper)):
            if used and special not in counted.specials:
                found.append(f"{where}: the {special} card is played but not printed")
        for track, value in (("lives", mission.lives), ("rounds", mission.rounds)):
            if track not in counted.specials or not 0 <= value <= TRACK_TOP:
                found.append(f"{where}: {value} {track}, which the {track} card (0 to "
                             f"{TRACK_TOP}) cannot count")
    if sorted(counted.actions) != sorted(str(a) for a in Action):
        found.append(f"the action cards printed are {', '.join(counted.actions)}, not A to J")
    return found


def check(campaign: Campaign, kit: dict[str, list[Card]]) -> None:
    """Raise KitMismatch when the kit falls short of what the engine deals and plays."""
    found = mismatches(campaign, kit)
    if found:
        raise KitMismatch("the kit does not hold the cards the game is played with: "
                          + "; ".join(found))
