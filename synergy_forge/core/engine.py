"""The game engine: a whole mission, from setup to won or lost (RULES.md R1–R24).

A `Game` is a state machine. `pending()` says whose decisions are due and what the legal
choices are; `apply()` takes one choice per pending decision, checks each is legal, and moves
the game on to the next decisions (or its end). Simultaneous plays (cards 1, 2 and 3, taking a
card back) are all collected before any is revealed; the action step asks seats one by one in
seat order (R12). Rounds are settled by the same referee as `judge` (`referee.settle`), and
actions move cards through the same `referee.arrange`.

The engine holds no global state and draws randomness only from the `random.Random(seed)` it
was given. Its internals are mutable for speed; what a seat sees is an `Observation`.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations
from typing import Any, NamedTuple

from synergy_forge.core.cards import DEFAULT_COLORS, NUMBER_VALUES, Action, NumberCard, Order
from synergy_forge.core.mission import Mission
from synergy_forge.core.referee import (
    ActionUse,
    Arrangement,
    LossReason,
    SeatPlay,
    Table,
    Verdict,
    arrange,
    pair_sum,
    settle,
)
from synergy_forge.core.rules import Rulebook
from synergy_forge.errors import WrongInput


class GoalCard(NamedTuple):
    """A printed goal card: a goal in a colour (a NamedTuple for the reason NumberCard is)."""

    goal: str
    color: str

    def __str__(self) -> str:
        return f"{self.color} {self.goal}"


class DecisionKind(StrEnum):
    SUPER = "super"  # the group gives the super card to a seat (R24); asked of seat 0
    HYPER = "hyper"  # likewise the hyper card
    FIRST_NUMBER = "first-number"
    GOAL = "goal"
    ACTION = "action"  # None (no action) or an ActionUse
    SECOND_NUMBER = "second-number"
    TAKE_BACK = "take-back"  # which played number card returns to the hand (R17)


@dataclass(frozen=True, slots=True)
class Decision:
    kind: DecisionKind
    seat: int
    choices: tuple[Any, ...]


class IllegalChoice(WrongInput, ValueError):
    """A choice the rules do not allow; `rule` names the ruling or decision it breaks."""

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(f"{message} ({rule})")
        self.rule = rule


@dataclass(frozen=True, slots=True)
class Outcome:
    won: bool
    reason: LossReason | None
    rounds_won: int
    lives: int
    rounds_played: int

    def __str__(self) -> str:
        return "Won" if self.won else f"Lost: {LOSS_TEXT[self.reason]}"  # type: ignore[index]


LOSS_TEXT = {
    LossReason.LIVES: "the last life was lost",
    LossReason.HYPER: "the hyper card's holder missed its goal",
    LossReason.CHALLENGE: "a player could not keep a challenge",
    LossReason.NUMBERS: "a player had fewer than two number cards",
    LossReason.GOALS: "a player had no goal card left",
}


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """What happened in one round, for narration and statistics."""

    number: int
    table: Table
    verdict: Verdict
    lives_after: int
    rounds_won_after: int


class _Phase(StrEnum):
    SUPER = "super"
    HYPER = "hyper"
    CARD1 = "card1"
    CARD2 = "card2"
    ACTIONS = "actions"
    CARD3 = "card3"
    TAKE_BACK = "take-back"
    OVER = "over"


def _distinct(cards: Sequence[Any]) -> tuple[Any, ...]:
    """The different cards among `cards`, in a fixed order (cards are tuples)."""
    return tuple(sorted(set(cards)))


class Game:
    """One mission played by `players` seats."""

    def __init__(self, mission: Mission, players: int, seed: int, rulebook: Rulebook,
                 colors: Sequence[str] = DEFAULT_COLORS) -> None:
        if players not in mission.players:
            raise ValueError(f"mission {mission.id} is for {mission.players} players, "
                             f"not {players}")
        if len(colors) < players:
            raise ValueError(f"{players} players need {players} colours, got {len(colors)}")
        self.mission = mission
        self.players = players
        self.seed = seed
        self.rulebook = rulebook
        self.colors = tuple(colors[:players])
        self.plan = rulebook.plan(mission.challenges)
        self.allowed_failures = mission.failures_allowed(players)
        rng = random.Random(seed)
        # R2: every seat shuffles its own number and goal cards into two decks and draws.
        self.hands: list[list[NumberCard]] = []
        self.goal_hands: list[list[GoalCard]] = []
        self.decks: list[list[NumberCard]] = []
        self.goal_decks: list[list[GoalCard]] = []
        for color in self.colors:
            numbers = [NumberCard(v, color) for v in NUMBER_VALUES]
            goals = [GoalCard(g, color) for g in mission.goals]
            rng.shuffle(numbers)
            rng.shuffle(goals)
            self.hands.append(numbers[: mission.hand_numbers])
            self.decks.append(numbers[mission.hand_numbers:])
            self.goal_hands.append(goals[: mission.hand_goals])
            self.goal_decks.append(goals[mission.hand_goals:])
        self.discards: list[list[NumberCard | GoalCard]] = [[] for _ in range(players)]
        self.available: set[Action] = set(mission.actions)
        self.super_seat: int | None = None
        self.hyper_seat: int | None = None
        self.lives = mission.lives
        self.rounds_won = 0
        self.round_number = 0
        self.history: list[RoundRecord] = []
        self.outcome: Outcome | None = None
        self._pending: list[Decision] | None = None
        self._action_list: list[ActionUse] = []
        self._new_round_table()
        self._phase = _Phase.SUPER
        self._skip_automatic()

    # -- the table of the current round -------------------------------------------------------

    def _new_round_table(self) -> None:
        n = self.players
        self.firsts: list[NumberCard | None] = [None] * n
        self.goals_played: list[GoalCard | None] = [None] * n
        self.seconds: list[NumberCard | None] = [None] * n
        self.actions: list[ActionUse] = []
        self._arrangement: Arrangement | None = None
        self._action_seat = 0
        self._takers: tuple[int, ...] = ()
        self.last_verdict: Verdict | None = None

    def arrangement(self) -> Arrangement:
        """Where the round's cards lie now, after passing and the actions so far (R4, R13)."""
        if self._arrangement is None:
            self._arrangement = arrange(self.firsts, self.goals_played, self.actions,
                                        self.plan.direction)
        return self._arrangement

    @property
    def over(self) -> bool:
        return self.outcome is not None

    # -- decisions ----------------------------------------------------------------------------

    def pending(self) -> list[Decision]:
        """The decisions due now: one per seat for simultaneous steps, else one."""
        if self._pending is None:
            self._pending = self._decisions()
        return self._pending

    def _decisions(self) -> list[Decision]:
        phase, n = self._phase, self.players
        if phase is _Phase.SUPER or phase is _Phase.HYPER:
            kind = DecisionKind.SUPER if phase is _Phase.SUPER else DecisionKind.HYPER
            return [Decision(kind, 0, tuple(range(n)))]
        if phase is _Phase.CARD1 or phase is _Phase.CARD2:
            goal_first = self.mission.order is Order.GOAL_NUMBER_NUMBER
            goal_now = goal_first == (phase is _Phase.CARD1)
            if goal_now:
                return [Decision(DecisionKind.GOAL, i, _distinct(self.goal_hands[i]))
                        for i in range(n)]
            return [Decision(DecisionKind.FIRST_NUMBER, i, _distinct(self.hands[i]))
                    for i in range(n)]
        if phase is _Phase.ACTIONS:
            seat = self._action_seat
            return [Decision(DecisionKind.ACTION, seat, (None, *self._action_list))]
        if phase is _Phase.CARD3:
            return [Decision(DecisionKind.SECOND_NUMBER, i, choices)
                    for i, choices in enumerate(self._seconds_legal)]
        if phase is _Phase.TAKE_BACK:
            placed = self.arrangement()
            return [Decision(DecisionKind.TAKE_BACK, i,
                             _distinct([placed.firsts[i], self.seconds[i]]))
                    for i in self._takers]
        return []

    def second_choices(self, seat: int) -> tuple[NumberCard, ...]:
        """Hand cards that keep every constraint with the first card as it lies now (R9)."""
        placed = self.arrangement()
        first, delta = placed.firsts[seat], placed.deltas[seat]
        hand = _distinct(self.hands[seat])
        if not self.plan.constraints:
            return hand
        challenges, rulebook = self.mission.challenges, self.rulebook
        return tuple(card for card in hand
                     if not pair_sum(rulebook, challenges, first, card, delta)[1])

    def action_choices(self, seat: int) -> list[ActionUse]:
        """Every legal use of an available action card by `seat` now (R12–R15)."""
        if not self.available or any(use.seat == seat for use in self.actions):
            return []  # R12: one action per seat per round
        n = self.players
        holder = seat in (self.super_seat, self.hyper_seat)
        out: list[ActionUse] = []
        for card in sorted(self.available):
            if card is Action.A:
                numbers_in_row = _distinct([c for c in self.discards[seat]
                                            if isinstance(c, NumberCard)])
                out += [ActionUse(card, seat, cards=(c,)) for c in numbers_in_row]
            elif card is Action.C:
                row = sorted(c for c in self.discards[seat] if isinstance(c, NumberCard))
                pairs = sorted(set(combinations(row, 2)))
                out += [ActionUse(card, seat, cards=pair) for pair in pairs]
            elif card is Action.B:
                out += [ActionUse(card, seat, replacement=c) for c in _distinct(self.hands[seat])]
            elif card is Action.D:
                out += [ActionUse(card, seat, other=t) for t in range(n) if t != seat]
            elif card in (Action.E, Action.I):
                out += [ActionUse(card, seat, seats=(a, b)) for a, b in combinations(range(n), 2)]
            elif card in (Action.F, Action.G):
                out += [ActionUse(card, seat, target=t) for t in range(n)]
            elif card in (Action.H, Action.J) and not holder:  # R15
                out.append(ActionUse(card, seat))
        return out

    def apply(self, choices: Sequence[Any]) -> None:
        """Make the pending decisions, one choice each in the order `pending()` gave them."""
        decisions = self.pending()
        self._pending = None
        if len(choices) != len(decisions):
            raise IllegalChoice(f"{len(decisions)} decision(s) are due, got {len(choices)}",
                                "engine")
        for decision, choice in zip(decisions, choices, strict=True):
            if choice not in decision.choices:
                raise IllegalChoice(_refusal(decision, choice), _rule_of(decision))
        phase = self._phase
        if phase is _Phase.SUPER:
            self.super_seat = choices[0]
            self._phase = _Phase.HYPER
        elif phase is _Phase.HYPER:
            self.hyper_seat = choices[0]
            self._start_round()
        elif phase is _Phase.CARD1 or phase is _Phase.CARD2:
            for decision, choice in zip(decisions, choices, strict=True):
                if decision.kind is DecisionKind.GOAL:
                    self.goal_hands[decision.seat].remove(choice)
                    self.goals_played[decision.seat] = choice
                else:
                    self.hands[decision.seat].remove(choice)
                    self.firsts[decision.seat] = choice
            self._arrangement = None
            self._phase = _Phase.CARD2 if phase is _Phase.CARD1 else _Phase.ACTIONS
            if self._phase is _Phase.ACTIONS:
                self._action_seat = 0
        elif phase is _Phase.ACTIONS:
            if choices[0] is not None:
                self._use_action(choices[0])
            self._action_seat += 1
        elif phase is _Phase.CARD3:
            for decision, choice in zip(decisions, choices, strict=True):
                self.hands[decision.seat].remove(choice)
                self.seconds[decision.seat] = choice
            self._evaluate()
        elif phase is _Phase.TAKE_BACK:
            kept = dict(zip(self._takers, choices, strict=True))
            self._clean_up(kept)
        self._skip_automatic()

    # -- the steps that need no decision ------------------------------------------------------

    def _skip_automatic(self) -> None:
        while True:
            if self._phase is _Phase.HYPER and not self.mission.hyper:
                self._start_round()
                continue
            if self._phase is _Phase.SUPER and not self.mission.super:
                self._phase = _Phase.HYPER
                continue
            if self._phase is _Phase.ACTIONS:
                while self._action_seat < self.players:
                    self._action_list = self.action_choices(self._action_seat)
                    if self._action_list:
                        break
                    self._action_seat += 1
                else:
                    self._phase = _Phase.CARD3
                    continue
            if self._phase is _Phase.CARD3:
                self._seconds_legal = [self.second_choices(i) for i in range(self.players)]
                if not all(self._seconds_legal):
                    self._end(False, LossReason.CHALLENGE)  # R9: a seat has no legal card
            return

    def _start_round(self) -> None:
        # R21, R22: a seat needs two number cards and a goal card to play a round.
        if any(len(h) < 2 for h in self.hands):
            self._end(False, LossReason.NUMBERS)
            return
        if any(not g for g in self.goal_hands):
            self._end(False, LossReason.GOALS)
            return
        self.round_number += 1
        self._new_round_table()
        self._phase = _Phase.CARD1

    def _use_action(self, use: ActionUse) -> None:
        self.available.discard(use.card)
        seat = use.seat
        for card in use.cards or ():  # A and C: back from the discard row to the hand
            self.discards[seat].remove(card)
            self.hands[seat].append(card)
        if use.card is Action.B:
            on_table = self.arrangement().firsts[seat]
            self.hands[seat].remove(use.replacement)  # type: ignore[arg-type]
            self.hands[seat].append(on_table)
        self.actions.append(use)
        self._arrangement = None

    def _evaluate(self) -> None:
        plays = tuple(
            SeatPlay(self.firsts[i], self.seconds[i], self.goals_played[i].goal)  # type: ignore
            for i in range(self.players)
        )
        table = Table(plays, self.mission.challenges, self.allowed_failures, self.super_seat,
                      self.hyper_seat, tuple(self.actions), self.colors)
        verdict = settle(table, self.rulebook)
        self.last_verdict = verdict
        if verdict.success:
            self.rounds_won += 1  # R17: the rounds card advances
        else:
            self.lives -= 1
        self.history.append(RoundRecord(self.round_number, table, verdict, self.lives,
                                        self.rounds_won))
        if verdict.lost_reasons:  # R16: the hyper holder missed; R9
            self._end(False, verdict.lost_reasons[0])
            return
        if self.lives <= 0:  # R21
            self._end(False, LossReason.LIVES)
            return
        if self.rounds_won >= self.mission.rounds:  # R20
            self._end(True, None)
            return
        # R17: who takes a number card back.
        if verdict.success:
            self._takers = tuple(i for i in range(self.players)
                                 if not verdict.counted[i] or verdict.met[i])
        else:
            self._takers = tuple(range(self.players))
        if self._takers:
            self._phase = _Phase.TAKE_BACK
        else:
            self._clean_up({})

    def _clean_up(self, kept: dict[int, NumberCard]) -> None:
        # R17, R18: each seat clears the cards lying in front of it now.
        placed = self.arrangement()
        for i in range(self.players):
            cards: list[NumberCard | GoalCard] = [placed.firsts[i], self.seconds[i]]
            if i in kept:
                cards.remove(kept[i])
                self.hands[i].append(kept[i])
            cards.append(placed.goals[i])
            self.discards[i].extend(cards)
        self._new_round_table()
        # R19: draw one of each, if the deck has any.
        for i in range(self.players):
            if self.decks[i]:
                self.hands[i].append(self.decks[i].pop())
            if self.goal_decks[i]:
                self.goal_hands[i].append(self.goal_decks[i].pop())
        self._start_round()

    def _end(self, won: bool, reason: LossReason | None) -> None:
        self.outcome = Outcome(won, reason, self.rounds_won, self.lives, self.round_number)
        self._phase = _Phase.OVER

    # -- what a seat may see ------------------------------------------------------------------

    def observe(self, seat: int) -> Observation:
        return Observation(self, seat)

    def cards_of(self, color: str) -> Iterator[tuple[str, NumberCard | GoalCard]]:
        """Every card of one colour with where it is (for conservation checks and tests)."""
        placed = self.arrangement()
        for i in range(self.players):
            places = (("hand", self.hands[i]), ("goal hand", self.goal_hands[i]),
                      ("deck", self.decks[i]), ("goal deck", self.goal_decks[i]),
                      ("discards", self.discards[i]),
                      ("table", (placed.firsts[i], placed.goals[i], self.seconds[i])))
            for name, cards in places:
                for card in cards:
                    if card is not None and card.color == color:
                        yield f"seat {i} {name}", card


def _rule_of(decision: Decision) -> str:
    return {
        DecisionKind.SECOND_NUMBER: "R9: the card must keep every challenge",
        DecisionKind.ACTION: "R12-R15: action cards",
        DecisionKind.TAKE_BACK: "R17: take back one of your two number cards",
    }.get(decision.kind, "the card must be in your hand")


def _refusal(decision: Decision, choice: Any) -> str:
    return f"seat {decision.seat} cannot choose {choice!r} for {decision.kind}"


class Observation:
    """What one seat can see: its own hand, everything face up, and public counts.

    A read-only view on the game; every property returns a fresh immutable value. Nothing here
    shows another seat's hand or deck order.
    """

    __slots__ = ("_game", "seat")

    def __init__(self, game: Game, seat: int) -> None:
        self._game = game
        self.seat = seat

    @property
    def mission(self) -> Mission:
        return self._game.mission

    @property
    def players(self) -> int:
        return self._game.players

    @property
    def colors(self) -> tuple[str, ...]:
        return self._game.colors

    @property
    def rulebook(self) -> Rulebook:
        return self._game.rulebook

    @property
    def hand(self) -> tuple[NumberCard, ...]:
        return tuple(sorted(self._game.hands[self.seat]))

    @property
    def goal_hand(self) -> tuple[GoalCard, ...]:
        return tuple(sorted(self._game.goal_hands[self.seat]))

    @property
    def deck_sizes(self) -> tuple[tuple[int, int], ...]:
        g = self._game
        return tuple((len(g.decks[i]), len(g.goal_decks[i])) for i in range(g.players))

    @property
    def hand_sizes(self) -> tuple[tuple[int, int], ...]:
        g = self._game
        return tuple((len(g.hands[i]), len(g.goal_hands[i])) for i in range(g.players))

    @property
    def discards(self) -> tuple[tuple[NumberCard | GoalCard, ...], ...]:
        return tuple(tuple(row) for row in self._game.discards)

    @property
    def table(self) -> tuple[tuple[NumberCard | None, GoalCard | None, NumberCard | None], ...]:
        """Per seat, the face-up (first number, goal, second number) lying in front of it now."""
        g = self._game
        placed = g.arrangement()
        return tuple((placed.firsts[i], placed.goals[i], g.seconds[i])
                     for i in range(g.players))

    @property
    def deltas(self) -> tuple[int, ...]:
        return self._game.arrangement().deltas

    @property
    def actions_used(self) -> tuple[ActionUse, ...]:
        return tuple(self._game.actions)

    @property
    def actions_available(self) -> frozenset[Action]:
        return frozenset(self._game.available)

    @property
    def lives(self) -> int:
        return self._game.lives

    @property
    def rounds_won(self) -> int:
        return self._game.rounds_won

    @property
    def round_number(self) -> int:
        return self._game.round_number

    @property
    def super_seat(self) -> int | None:
        return self._game.super_seat

    @property
    def hyper_seat(self) -> int | None:
        return self._game.hyper_seat

    def snapshot(self) -> dict[str, Any]:
        """Everything this seat can see, as one comparable value."""
        names = ("seat", "players", "colors", "hand", "goal_hand", "deck_sizes", "hand_sizes",
                 "discards", "table", "deltas", "actions_used", "actions_available", "lives",
                 "rounds_won", "round_number", "super_seat", "hyper_seat")
        return {name: getattr(self, name) for name in names}
