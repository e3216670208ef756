"""The one notation for what a game asks and what a seat answers (python-chess's `Move`).

A `Decision` is asked of one seat; its `kind` says which type every one of its `choices` is
(`CHOICE_TYPES`): a seat for the super and hyper cards (R24), a number card, a goal card, or an
action use or none (R12). Each choice has two written forms:

- its text, short and unique among a decision's choices (as `Move.uci()`): `seat1`, `red:3`,
  `red:equal`, `none`, `F.target=2`, `E.seats=0-2`, `B.with=red:3`, `C.take=red:1.take=red:4`;
  `parse_choice` reads it back (as `Move.from_uci`) and refuses anything but that exact text;
- its JSON value, the game log's (`choice_json`, `choice_from_json`): a seat number, a card
  `{value, color}` or `{goal, color}`, an action use `{card, seat, ...}`, or null.

A `StateId` names the state a decision is asked in: the game (its number in the series its
dealer plays, such as a table's games), the round and the step (decisions applied since the
deal). A choice's id, `choice_id`, is that state, the decision's kind and the choice's text
(`g2.r1.s3.first-number.red:3`), so a choice made for an earlier state or an earlier game is
told from one made now by the engine itself (`Game.choice_of`), not by each front end.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any, NamedTuple, TypeAlias, cast

from synergy_forge.core.actions import ActionUse
from synergy_forge.core.cards import Action, GoalCard, NumberCard
from synergy_forge.errors import WrongInput


class DecisionKind(StrEnum):
    SUPER = "super"  # the group gives the super card to a seat (R24); asked of seat 0
    HYPER = "hyper"  # likewise the hyper card
    FIRST_NUMBER = "first-number"
    GOAL = "goal"
    ACTION = "action"  # None (no action) or an ActionUse
    SECOND_NUMBER = "second-number"
    TAKE_BACK = "take-back"  # which played number card returns to the hand (R17)


#: A choice of any decision: which one a decision takes is its kind's (CHOICE_TYPES).
Choice: TypeAlias = "int | NumberCard | GoalCard | ActionUse | None"

#: The types of each kind's choices: a seat (int), a card, or an action use or none.
CHOICE_TYPES: Mapping[DecisionKind, tuple[type, ...]] = MappingProxyType({
    DecisionKind.SUPER: (int,),
    DecisionKind.HYPER: (int,),
    DecisionKind.FIRST_NUMBER: (NumberCard,),
    DecisionKind.GOAL: (GoalCard,),
    DecisionKind.ACTION: (ActionUse, type(None)),
    DecisionKind.SECOND_NUMBER: (NumberCard,),
    DecisionKind.TAKE_BACK: (NumberCard,),
})


@dataclass(frozen=True, slots=True)
class Decision:
    """What the engine asks of one seat: its legal choices, each of its kind's type (the
    typed views below give them as that type)."""

    kind: DecisionKind
    seat: int
    choices: tuple[Choice, ...]

    @property
    def seats(self) -> tuple[int, ...]:
        """A super or hyper decision's choices."""
        assert self.kind in (DecisionKind.SUPER, DecisionKind.HYPER)
        return cast("tuple[int, ...]", self.choices)

    @property
    def cards(self) -> tuple[NumberCard, ...]:
        """A first-number, second-number or take-back decision's choices."""
        assert CHOICE_TYPES[self.kind] == (NumberCard,)
        return cast("tuple[NumberCard, ...]", self.choices)

    @property
    def goal_cards(self) -> tuple[GoalCard, ...]:
        """A goal decision's choices."""
        assert self.kind is DecisionKind.GOAL
        return cast("tuple[GoalCard, ...]", self.choices)

    @property
    def uses(self) -> tuple[ActionUse | None, ...]:
        """An action decision's choices: None (no action) first, then each use."""
        assert self.kind is DecisionKind.ACTION
        return cast("tuple[ActionUse | None, ...]", self.choices)


class NotationError(ValueError):
    """A text or JSON value that is no choice of the kind asked (or no choice id)."""


class IllegalChoice(WrongInput, ValueError):
    """A choice the rules do not allow; `rule` names the ruling or decision it breaks."""

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(f"{message} ({rule})")
        self.rule = rule


class StaleChoice(IllegalChoice):
    """A choice made for another state of the game (an earlier step or round) or for another
    game of the series: `made` is the state it names, `now` the game's."""

    def __init__(self, made: StateId, now: StateId) -> None:
        if made.game != now.game:
            message = f"the choice was made in game {made.game}, and this is game {now.game}"
        else:
            message = (f"the choice was made for round {made.round}, step {made.step}, and "
                       f"the game is now at round {now.round}, step {now.step}")
        super().__init__(message, "a choice answers the decision asked now")
        self.made, self.now, self.message = made, now, message


class StateId(NamedTuple):
    """The state a decision is asked in: the game's number in its series, the round (0 before
    round 1: the super and hyper cards) and the step (decisions applied since the deal).
    Written `g2.r1.s3`."""

    game: int
    round: int
    step: int

    def __str__(self) -> str:
        return f"g{self.game}.r{self.round}.s{self.step}"


# -- the text of a choice --------------------------------------------------------------------

def _card_text(card: NumberCard) -> str:
    return f"{card.color}:{card.value}"


def choice_text(choice: Choice) -> str:
    """The choice's text, unique among its decision's choices (see the module's docstring)."""
    if choice is None:
        return "none"
    if isinstance(choice, NumberCard):
        return _card_text(choice)
    if isinstance(choice, GoalCard):
        return f"{choice.color}:{choice.goal}"
    if isinstance(choice, ActionUse):
        parts = [str(choice.card)]
        if choice.target is not None:
            parts.append(f"target={choice.target}")
        if choice.other is not None:
            parts.append(f"other={choice.other}")
        if choice.seats is not None:
            parts.append(f"seats={choice.seats[0]}-{choice.seats[1]}")
        if choice.replacement is not None:
            parts.append(f"with={_card_text(choice.replacement)}")
        parts += [f"take={_card_text(taken)}" for taken in choice.cards or ()]
        return ".".join(parts)
    if isinstance(choice, int) and not isinstance(choice, bool):
        return f"seat{choice}"
    raise TypeError(f"{choice!r} is no choice")


def _number(text: str, what: str) -> int:
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        raise NotationError(f"{what} is a number, not {text[:20]!r}")
    return int(text)


#: A colour's or a goal's id (the schemas' slug).
_SLUG = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


def _slug(text: str, what: str) -> str:
    if not _SLUG.fullmatch(text):
        raise NotationError(f"{what} is lower-case letters, digits and hyphens, not "
                            f"{text[:40]!r}")
    return text


def _parse_card(text: str) -> NumberCard:
    color, sep, value = text.rpartition(":")
    if not sep:
        raise NotationError(f"a number card is written colour:value, not {text[:40]!r}")
    return NumberCard(_number(value, "a card's value"), _slug(color, "a colour"))


def _parse_use(seat: int, text: str) -> ActionUse:
    letter, *fields = text.split(".")
    if letter not in Action.__members__:
        raise NotationError(f"an action is none or a card A to J, not {letter[:20]!r}")
    found: dict[str, Any] = {}
    taken: list[NumberCard] = []
    for field in fields:
        key, sep, value = field.partition("=")
        if not sep or key not in ("target", "other", "seats", "with", "take") or \
                (key in found and key != "take"):
            raise NotationError(f"{field[:40]!r} is not target=, other=, seats=, with= or "
                                "take=, once each (take= may repeat)")
        if key in ("target", "other"):
            found[key] = _number(value, key)
        elif key == "seats":
            a, _, b = value.partition("-")
            found[key] = (_number(a, "a seat"), _number(b, "a seat"))
        elif key == "with":
            found["replacement"] = _parse_card(value)
        else:
            taken.append(_parse_card(value))
    return ActionUse(Action(letter), seat, cards=tuple(taken) if taken else None, **found)


def parse_choice(kind: DecisionKind, seat: int, text: str) -> Choice:
    """The choice `text` writes for a `kind` decision of `seat` (an action's user is the
    seat asked). Only the exact text `choice_text` gives is read; raises NotationError."""
    choice: Choice
    if kind in (DecisionKind.SUPER, DecisionKind.HYPER):
        if not text.startswith("seat"):
            raise NotationError(f"a {kind} choice is a seat, seatN, not {text[:40]!r}")
        choice = _number(text[4:], "a seat")
    elif kind is DecisionKind.GOAL:
        color, sep, goal = text.partition(":")
        if not sep:
            raise NotationError(f"a goal card is written colour:goal, not {text[:40]!r}")
        choice = GoalCard(_slug(goal, "a goal"), _slug(color, "a colour"))
    elif kind is DecisionKind.ACTION:
        choice = None if text == "none" else _parse_use(seat, text)
    else:
        choice = _parse_card(text)
    if choice_text(choice) != text:
        raise NotationError(f"{text[:40]!r} is not written as a {kind} choice is "
                            f"({choice_text(choice)[:40]!r})")
    return choice


# -- the JSON value of a choice (the game log's) ---------------------------------------------

def card_json(card: NumberCard) -> dict[str, Any]:
    return {"value": card.value, "color": card.color}


def use_json(use: ActionUse, card: Callable[[NumberCard], Any] = card_json) -> dict[str, Any]:
    """An action use as JSON data, each number card it names written by `card` (the table's
    page writes its own cards in the same shape)."""
    data: dict[str, Any] = {"card": str(use.card), "seat": use.seat}
    if use.target is not None:
        data["target"] = use.target
    if use.other is not None:
        data["other"] = use.other
    if use.seats is not None:
        data["seats"] = list(use.seats)
    if use.replacement is not None:
        data["with"] = card(use.replacement)
    if use.cards is not None:
        data["cards"] = [card(c) for c in use.cards]
    return data


def choice_json(choice: Choice) -> Any:
    """The choice as JSON data: a seat, a card, an action use, or null."""
    if choice is None or isinstance(choice, int):
        return choice
    if isinstance(choice, NumberCard):
        return card_json(choice)
    if isinstance(choice, GoalCard):
        return {"goal": choice.goal, "color": choice.color}
    return use_json(choice)


def _whole(data: Any) -> bool:
    return isinstance(data, int) and not isinstance(data, bool)


def _card_from_json(data: Any, what: str) -> NumberCard:
    if not isinstance(data, dict) or set(data) != {"value", "color"} or \
            not _whole(data["value"]) or not isinstance(data["color"], str):
        raise NotationError(f"{what} is a number card {{value, color}}")
    return NumberCard(data["value"], data["color"])


def _seat_from_json(data: Any, what: str) -> int:
    if not _whole(data):
        raise NotationError(f"{what} is a seat number")
    return int(data)


def _use_from_json(data: Any) -> ActionUse:
    if not isinstance(data, dict) or "card" not in data or "seat" not in data or \
            not set(data) <= {"card", "seat", "target", "other", "seats", "with", "cards"}:
        raise NotationError("an action choice is an action use {card, seat, ...} or null")
    if data["card"] not in Action.__members__:
        raise NotationError("an action use's card is one of A to J")
    seats = data.get("seats")
    if seats is not None and (not isinstance(seats, list) or len(seats) != 2):
        raise NotationError("an action use's seats are two seat numbers")
    cards = data.get("cards")
    if cards is not None and not isinstance(cards, list):
        raise NotationError("an action use's cards are a list of number cards")
    return ActionUse(
        Action(data["card"]), _seat_from_json(data["seat"], "its seat"),
        target=None if "target" not in data else _seat_from_json(data["target"], "target"),
        other=None if "other" not in data else _seat_from_json(data["other"], "other"),
        seats=None if seats is None else (_seat_from_json(seats[0], "each of seats"),
                                          _seat_from_json(seats[1], "each of seats")),
        replacement=None if "with" not in data else _card_from_json(data["with"], "'with'"),
        cards=None if cards is None else tuple(_card_from_json(c, "each of 'cards'")
                                               for c in cards))


def choice_from_json(kind: DecisionKind, data: Any) -> Choice:
    """A `kind` choice back from its JSON data; raises NotationError for another shape."""
    if kind in (DecisionKind.SUPER, DecisionKind.HYPER):
        return _seat_from_json(data, f"a {kind} choice")
    if kind is DecisionKind.GOAL:
        if not isinstance(data, dict) or set(data) != {"goal", "color"} or \
                not isinstance(data["goal"], str) or not isinstance(data["color"], str):
            raise NotationError("a goal choice is a goal card {goal, color}")
        return GoalCard(data["goal"], data["color"])
    if kind is DecisionKind.ACTION:
        return None if data is None else _use_from_json(data)
    return _card_from_json(data, f"a {kind} choice")


# -- choice ids: the state, the kind, the choice ---------------------------------------------

def choice_id(state: StateId, kind: DecisionKind, choice: Choice) -> str:
    """`g2.r1.s3.first-number.red:3`: a seat has one decision per state, so the id names one
    choice of one decision in one state of one game."""
    return f"{state}.{kind}.{choice_text(choice)}"


def parse_choice_id(text: str) -> tuple[StateId, DecisionKind, str]:
    """(state, kind, the choice's text) of a choice id; raises NotationError."""
    parts = text.split(".", 4)
    if len(parts) != 5:
        raise NotationError(f"{text[:80]!r} is not a choice id (g1.r1.s0.KIND.CHOICE)")
    game, round_, step, kind, rest = parts
    numbers = []
    for part, letter in ((game, "g"), (round_, "r"), (step, "s")):
        if not part.startswith(letter):
            raise NotationError(f"{text[:80]!r} is not a choice id (g1.r1.s0.KIND.CHOICE)")
        numbers.append(_number(part[1:], "a state's part"))
    if kind not in {k.value for k in DecisionKind}:
        raise NotationError(f"{kind[:40]!r} is no kind of decision")
    state = StateId(*numbers)
    if str(state) != ".".join(parts[:3]):
        raise NotationError(f"{text[:80]!r} is not a choice id (g1.r1.s0.KIND.CHOICE)")
    return state, DecisionKind(kind), rest


def read_choice_id(text: str, now: StateId) -> tuple[DecisionKind, str]:
    """(kind, the choice's text) of a choice id made in the state `now`. Raises StaleChoice
    for an id of another state, IllegalChoice for no choice id at all."""
    try:
        made, kind, written = parse_choice_id(text)
    except NotationError as exc:
        raise IllegalChoice(str(exc), "a choice id is g1.r1.s0.KIND.CHOICE") from None
    if made != now:
        raise StaleChoice(made, now)
    return kind, written
