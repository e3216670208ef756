"""The print-and-play kit as data: every card a group needs, front and back, by group."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from synergy_forge.cardtext.mission import goal_changes
from synergy_forge.core.cards import (
    COLOR_SYMBOLS,
    GOAL_IDS,
    NUMBER_VALUES,
    Action,
    NumberCard,
    pair_action_cards,
)
from synergy_forge.core.mission import Campaign
from synergy_forge.core.referee import SeatPlay, Table, settle

GROUPS = ("missions", "goals", "numbers", "actions", "specials")
#: Each colour also has a symbol, so that nobody needs to tell colours apart (by position).
SYMBOLS = COLOR_SYMBOLS
#: Each colour's ink: the band of its number and goal cards and its backs.
INKS = ("#d7263d", "#f2b701", "#2e9e44", "#1b6fc2", "#7b3fa0")
NEUTRAL_INK = "#2b2d42"
PAPER = "#fbfaf7"
DARK = "#1d1d1f"
WHITE = "#ffffff"
#: WCAG AA for normal text; every text of the kit is held to it (large text would need 3:1).
AA = 4.5


@dataclass(frozen=True)
class Face:
    """One side of a card: which template draws it and with what."""

    kind: str  # mission, goal, number, action, super, hyper, lives, rounds, back
    key: str  # a file-name-safe name, unique within its group
    data: Any = None
    color: int | None = None  # colour index, for colour decks
    source: str = ""  # the user file the text comes from, for overflow reports
    #: goal cards of a campaign's own goal: the numbers of the missions that add it
    missions: tuple[int, ...] = ()


@dataclass(frozen=True)
class Card:
    group: str
    front: Face
    back: Face


def _channel(value: int) -> float:
    c = value / 255
    return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4


def luminance(colour: str) -> float:
    """WCAG relative luminance of a #rrggbb colour."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * _channel(r) + 0.7152 * _channel(g) + 0.0722 * _channel(b)


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two #rrggbb colours, from 1 to 21."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def on(background: str) -> str:
    """White or near-black, whichever reads better on `background`."""
    return WHITE if contrast(WHITE, background) >= contrast(DARK, background) else DARK


@lru_cache(maxsize=256)  # asked for every coloured card's face (hundreds a build); few inks
def text_ink(ink: str, background: str = PAPER, ratio: float = AA + 0.1) -> str:
    """`ink` darkened just enough to be read as text on `background` (WCAG AA)."""
    r, g, b = (int(ink[i:i + 2], 16) for i in (1, 3, 5))
    for step in range(0, 101):
        k = 1 - step / 100
        colour = f"#{round(r * k):02x}{round(g * k):02x}{round(b * k):02x}"
        if contrast(colour, background) >= ratio:
            return colour
    return "#000000"


def colours(index: int | None) -> dict[str, str]:
    """The CSS colours of a card of colour `index` (None: neutral): --ink fills bands and
    backs, --on-ink is text on them, --ink-text is the colour as text on the card's paper,
    --shade the second colour of a back's pattern, --tint the ink saver's light ink, and
    --tint-text the colour as text on that tint (the ink saver's bands and back stripes: text
    in --ink-text there was 3.4 to 4.2 to 1, under WCAG AA)."""
    ink = INKS[index] if index is not None else NEUTRAL_INK
    light = tint(ink)
    return {"ink": ink, "on-ink": on(ink), "ink-text": text_ink(ink), "paper": PAPER,
            "shade": shade(ink), "tint": light, "tint-text": text_ink(ink, light)}


def tint(ink: str, k: float = 0.22) -> str:
    """`ink` at `k` of its strength on the paper: the ink saver's light version of it."""
    ink_rgb = [int(ink[i:i + 2], 16) for i in (1, 3, 5)]
    paper = [int(PAPER[i:i + 2], 16) for i in (1, 3, 5)]
    r, g, b = (round(p + (c - p) * k) for c, p in zip(ink_rgb, paper, strict=True))
    return f"#{r:02x}{g:02x}{b:02x}"


def shade(ink: str, k: float = 0.82) -> str:
    """`ink` darkened a little: the second colour of a back's pattern."""
    r, g, b = (int(ink[i:i + 2], 16) for i in (1, 3, 5))
    return f"#{round(r * k):02x}{round(g * k):02x}{round(b * k):02x}"


def _back(deck: str, color: int | None = None) -> Face:
    key = f"back-{deck}" + (f"-{color}" if color is not None else "")
    return Face("back", key, deck, color)


def action_pairs(campaign: Campaign) -> list[tuple[Action, Action]] | None:
    """The action cards two to a physical card, none with two actions a mission uses
    together; None when the campaign's missions leave no such pairing (printed one a card)."""
    return pair_action_cards([frozenset(m.actions) for m in campaign.missions])


def build_kit(campaign: Campaign) -> dict[str, list[Card]]:
    """Every card of the kit, by group, in print order."""
    kit: dict[str, list[Card]] = {g: [] for g in GROUPS}
    missions = list(campaign.missions)
    faces = [Face("mission", f"mission-{m.number:02d}", m, source=m.source) for m in missions]
    # The rulebook's convention: mission 2k-1 on the front, 2k on the back.
    for k in range(0, len(faces), 2):
        back = faces[k + 1] if k + 1 < len(faces) else _back("mission")
        kit["missions"].append(Card("missions", faces[k], back))
    # Each colour's base set is the seven goals of docs/rules.md; a campaign's own goal follows,
    # in every colour, marked with the missions that add it to the goal deck.
    added: dict[str, list[int]] = {}
    for m in missions:
        for g in goal_changes(m)[1]:
            added.setdefault(g, []).append(m.number)
    for goal_ids in (list(GOAL_IDS), list(added)):
        for c in range(len(campaign.colors)):
            for goal_id in goal_ids:
                definition = campaign.rulebook.goal(goal_id)
                goal = Face("goal", f"goal-{c}-{goal_id}", definition, c,
                            definition.origin.split(":")[0], tuple(added.get(goal_id, ())))
                kit["goals"].append(Card("goals", goal, _back("goal", c)))
    for c, color in enumerate(campaign.colors):
        for i, value in enumerate(NUMBER_VALUES):
            card = NumberCard(value, color)
            kit["numbers"].append(Card("numbers", Face("number", f"number-{c}-{i}", card, c),
                                       _back("number", c)))
    pairs = action_pairs(campaign)
    if pairs is None:
        for action in Action:
            kit["actions"].append(Card("actions", Face("action", f"action-{action}", action),
                                       _back("action")))
    else:
        for first, second in pairs:
            kit["actions"].append(Card("actions", Face("action", f"action-{first}", first),
                                       Face("action", f"action-{second}", second)))
    for kind in ("super", "hyper", "lives", "rounds"):
        kit["specials"].append(Card("specials", Face(kind, kind), _back(kind)))
    return kit


@dataclass(frozen=True)
class ExampleSeat:
    color: int
    first: int
    second: int
    goal: Any  # the goal's Definition
    total: int
    met: bool


def example_round(campaign: Campaign) -> tuple[list[ExampleSeat], bool]:
    """The rulebook's worked example (missions/rounds/rulebook-example.yaml): three players,
    no challenge, one failure allowed; the seats and whether the round is won, as the referee
    settles it."""
    chosen = ((3, 2, "second-lowest"), (5, 5, "one-higher"), (1, 3, "one-lower"))
    colors = campaign.colors
    table = Table(tuple(SeatPlay(NumberCard(a, colors[i]), NumberCard(b, colors[i]), goal)
                        for i, (a, b, goal) in enumerate(chosen)), allowed_failures=1,
                  colors=colors)
    verdict = settle(table, campaign.rulebook)
    seats = [ExampleSeat(i, a, b, campaign.rulebook.goal(goal), verdict.sums[i], verdict.met[i])
             for i, (a, b, goal) in enumerate(chosen)]
    return seats, verdict.success
