"""What a seat may see of a game: OpenSpiel's observer, kept apart from the state it reads.

`Game.observe(seat)` hands a bot an `Observation`, an immutable value that reaches no hidden
card, no deck order and not the seed; only the oracle, which cheats by design, is handed the
`Omniscient` view of `Game.observe_all()`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from synergy_forge.core.actions import ActionUse
from synergy_forge.core.cards import Action, GoalCard, NumberCard
from synergy_forge.core.mission import Mission
from synergy_forge.core.referee import Arrangement
from synergy_forge.core.rules import Rulebook

if TYPE_CHECKING:
    from synergy_forge.core.engine import Game, Setup


class Observation(NamedTuple):
    """What one seat can see, as an immutable value: its own hands, everything face up, and
    public counts. Every field is a tuple, a frozenset, a number or an immutable object (the
    mission and the rulebook are read-only too), so a bot can change nothing through it; it
    holds no other seat's hidden card, no deck order and not the seed that dealt them."""

    seat: int
    hand: tuple[NumberCard, ...]
    goal_hand: tuple[GoalCard, ...]
    mission: Mission
    players: int
    colors: tuple[str, ...]
    rulebook: Rulebook
    #: the round's cards as they lie after passing and the actions so far (R4, R13)
    placed: Arrangement
    seconds: tuple[NumberCard | None, ...]
    discards: tuple[tuple[NumberCard | GoalCard, ...], ...]
    actions_used: tuple[ActionUse, ...]
    actions_available: frozenset[Action]
    #: per seat, how many number cards and goal cards are in its hands and left in its decks
    hand_numbers: tuple[int, ...]
    hand_goals: tuple[int, ...]
    deck_numbers: tuple[int, ...]
    deck_goals: tuple[int, ...]
    lives: int
    rounds_won: int
    round_number: int
    super_seat: int | None
    hyper_seat: int | None

    @property
    def table(self) -> tuple[tuple[NumberCard | None, GoalCard | None, NumberCard | None], ...]:
        """Per seat, the face-up (first number, goal, second number) lying in front of it now."""
        placed, seconds = self.placed, self.seconds
        return tuple((placed.firsts[i], placed.goals[i], seconds[i])
                     for i in range(self.players))

    @property
    def deltas(self) -> tuple[int, ...]:
        return self.placed.deltas

    @property
    def hand_sizes(self) -> tuple[tuple[int, int], ...]:
        """Per seat, (number cards, goal cards) in its hands."""
        return tuple(zip(self.hand_numbers, self.hand_goals, strict=True))

    @property
    def deck_sizes(self) -> tuple[tuple[int, int], ...]:
        """Per seat, (number cards, goal cards) left in its decks."""
        return tuple(zip(self.deck_numbers, self.deck_goals, strict=True))

    def snapshot(self) -> dict[str, Any]:
        """Everything this seat can see, as one comparable value."""
        names = ("seat", "players", "colors", "hand", "goal_hand", "deck_sizes", "hand_sizes",
                 "discards", "table", "deltas", "actions_used", "actions_available", "lives",
                 "rounds_won", "round_number", "super_seat", "hyper_seat")
        return {name: getattr(self, name) for name in names}


class Omniscient(NamedTuple):
    """Everything in play, every hand included: what the oracle bot sees (`observe_all`)."""

    setup: Setup
    hands: tuple[tuple[NumberCard, ...], ...]
    goal_hands: tuple[tuple[GoalCard, ...], ...]
    #: the round's plays so far, as laid down (before passing and actions)
    firsts: tuple[NumberCard | None, ...]
    goals_played: tuple[GoalCard | None, ...]
    super_seat: int | None
    hyper_seat: int | None
    round_number: int
    #: every seat's own observation (the face-up cards, lives, rounds, actions: all public)
    views: tuple[Observation, ...] = ()


def public_view(game: Game) -> Observation:
    """What every seat of `game` sees alike; `Game.observe` fills in the seat and its own
    hands (the view is shared by every seat until the next choice is applied)."""
    return Observation(
        seat=-1, hand=(), goal_hand=(), mission=game.mission, players=game.players,
        colors=game.colors, rulebook=game.rulebook, placed=game.arrangement(),
        seconds=tuple(game.seconds), discards=tuple(game.discards),
        actions_used=game.actions, actions_available=game.available,
        hand_numbers=tuple(map(len, game.hands)), hand_goals=tuple(map(len, game.goal_hands)),
        deck_numbers=tuple(map(len, game.decks)), deck_goals=tuple(map(len, game.goal_decks)),
        lives=game.lives, rounds_won=game.rounds_won, round_number=game.round_number,
        super_seat=game.super_seat, hyper_seat=game.hyper_seat)


def omniscient_view(game: Game) -> Omniscient:
    """Everything in `game`, every hand included: the oracle's view."""
    return Omniscient(
        setup=game.setup, hands=tuple(game.hands), goal_hands=tuple(game.goal_hands),
        firsts=tuple(game.firsts), goals_played=tuple(game.goals_played),
        super_seat=game.super_seat, hyper_seat=game.hyper_seat,
        round_number=game.round_number,
        views=tuple(game.observe(i) for i in range(game.players)))
