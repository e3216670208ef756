"""The game engine: a whole mission, from setup to won or lost (docs/rules.md R1–R24).

A `Game` is a state machine. `pending()` says whose decisions are due and what the legal
choices are; `apply()` takes one choice per pending decision, checks each is legal, and moves
the game on to the next decisions (or its end). Each state has an id (`state`: the game's
number in its series, the round, the step) and each choice an id in core's one notation
(`choices`), so a front end hands the engine the id it was shown and the engine refuses one
made for another state or game (`choice_of`, `apply(..., state)`). Simultaneous plays (cards
1, 2 and 3, taking a card back) are all collected before any is revealed; the action step asks
seats one by one in seat order (R12). Rounds are settled by the same referee as `judge`
(`referee.settle`), and actions move cards through the same `referee.arrange`.

A game is three things apart (OpenSpiel's split): its `Setup`, fixed at the start (mission,
player count, seed, rulebook, colours); its state, which `apply` moves on and `copy()` branches
cheaply (python-chess's `Board.copy()`: hands, decks and rows are tuples, shared until they
change); and what a seat may see, `observe(seat)`, an immutable `Observation` that reaches no
hidden card, no seed and nothing mutable (observation.py). Only the oracle, which cheats by
design, is handed `observe_all()`.

The engine holds no global state and draws randomness only from the `random.Random(seed)` it
was given.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from enum import StrEnum
from types import MappingProxyType
from typing import Any, NamedTuple, TypeVar

from synergy_forge.core.actions import ACTIONS, ActionUse, Asked
from synergy_forge.core.cards import (
    DEFAULT_COLORS,
    NUMBER_VALUES,
    Action,
    GoalCard,
    NumberCard,
    Order,
)
from synergy_forge.core.choices import (
    Choice,
    Decision,
    DecisionKind,
    IllegalChoice,
    NotationError,
    StaleChoice,
    StateId,
    choice_id,
    choice_text,
    parse_choice,
    read_choice_id,
)
from synergy_forge.core.mission import Mission
from synergy_forge.core.observation import Observation, Omniscient, omniscient_view, public_view
from synergy_forge.core.records import MAX_SEED as MAX_SEED
from synergy_forge.core.records import MIN_SEED as MIN_SEED
from synergy_forge.core.records import Outcome as Outcome
from synergy_forge.core.records import RoundRecord as RoundRecord
from synergy_forge.core.records import Setup as Setup
from synergy_forge.core.referee import (
    Arrangement,
    LossReason,
    PairSums,
    SeatPlay,
    Table,
    Verdict,
    arrange,
    settle,
)
from synergy_forge.core.rules import ChallengePlan, Rulebook

_T = TypeVar("_T")


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


def _without(cards: tuple[_T, ...], card: _T) -> tuple[_T, ...]:
    """`cards` less its first copy of `card` (hands are tuples: shared by copies of a game)."""
    i = cards.index(card)
    return cards[:i] + cards[i + 1:]


class Game:
    """One mission played by `players` seats: its setup and its state."""

    def __init__(self, mission: Mission, players: int, seed: int, rulebook: Rulebook,
                 colors: Sequence[str] = DEFAULT_COLORS, *, number: int = 1) -> None:
        if players not in mission.players:
            raise ValueError(f"mission {mission.id} is for {mission.players} players, "
                             f"not {players}")
        if len(colors) < players:
            raise ValueError(f"{players} players need {players} colours, got {len(colors)}")
        self.setup = Setup(mission, players, seed, rulebook, tuple(colors[:players]),
                           rulebook.plan(mission.challenges), mission.failures_allowed(players))
        #: this game's number in the series its dealer plays (a table's games: 1, 2, ...),
        #: so that a choice made for an earlier game is refused (`StateId`)
        self.number = number
        self.steps = 0  # decisions applied since the deal
        self._pairs = PairSums(self.setup.plan)  # R9's answers for this game and its copies
        rng = random.Random(seed)
        # R2: every seat shuffles its own number and goal cards into two decks and draws.
        # Hands, decks (drawn from the end) and rows are tuples: a copy of the game shares
        # them until they change.
        self.hands: list[tuple[NumberCard, ...]] = []
        self.goal_hands: list[tuple[GoalCard, ...]] = []
        self.decks: list[tuple[NumberCard, ...]] = []
        self.goal_decks: list[tuple[GoalCard, ...]] = []
        for color in self.colors:
            numbers = [NumberCard(v, color) for v in NUMBER_VALUES]
            goals = [GoalCard(g, color) for g in mission.goals]
            rng.shuffle(numbers)
            rng.shuffle(goals)
            self.hands.append(tuple(numbers[: mission.hand_numbers]))
            self.decks.append(tuple(numbers[mission.hand_numbers:]))
            self.goal_hands.append(tuple(goals[: mission.hand_goals]))
            self.goal_decks.append(tuple(goals[mission.hand_goals:]))
        self.discards: list[tuple[NumberCard | GoalCard, ...]] = [() for _ in range(players)]
        self.available: frozenset[Action] = frozenset(mission.actions)
        self.super_seat: int | None = None
        self.hyper_seat: int | None = None
        self.lives = mission.lives
        self.rounds_won = 0
        self.round_number = 0
        self.history: list[RoundRecord] = []
        self.outcome: Outcome | None = None
        self._pending: list[Decision] | None = None
        self._public: Observation | None = None
        self._action_list: tuple[ActionUse, ...] = ()
        self._seconds_legal: list[tuple[NumberCard, ...]] = []
        self._new_round_table()
        self._phase = _Phase.SUPER
        self._skip_automatic()

    # The setup's fields, read through: a game keeps them once, in `setup`.
    @property
    def mission(self) -> Mission:
        return self.setup.mission

    @property
    def players(self) -> int:
        return self.setup.players

    @property
    def seed(self) -> int:
        return self.setup.seed

    @property
    def rulebook(self) -> Rulebook:
        return self.setup.rulebook

    @property
    def colors(self) -> tuple[str, ...]:
        return self.setup.colors

    @property
    def plan(self) -> ChallengePlan:
        return self.setup.plan

    @property
    def allowed_failures(self) -> int:
        return self.setup.allowed_failures

    def copy(self) -> Game:
        """An independent game in the same state: applying a choice to one leaves the other
        as it was. Cheap (python-chess's `Board.copy()`): cards are immutable and hands, decks
        and rows tuples, so the only mutable values a game holds are its per-seat and
        per-round lists (of immutable items), each copied here; nothing else is shared that
        either game changes."""
        twin = object.__new__(Game)
        twin.__dict__.update({name: list(value) if isinstance(value, list) else value
                              for name, value in self.__dict__.items()})
        return twin

    def redealt(self, hands: Sequence[tuple[NumberCard, ...]],
                goal_hands: Sequence[tuple[GoalCard, ...]],
                decks: Sequence[tuple[NumberCard, ...]],
                goal_decks: Sequence[tuple[GoalCard, ...]]) -> Game:
        """A copy of this game with every seat's hands and decks as given: a world one seat
        cannot tell from this one (sim.review plays on from it). The decisions due are asked
        again of the new hands; a seat left with no legal second card loses the game (R9)."""
        twin = self.copy()
        twin.hands, twin.goal_hands = list(hands), list(goal_hands)
        twin.decks, twin.goal_decks = list(decks), list(goal_decks)
        twin._pending = None
        twin._public = None
        if twin._phase is _Phase.CARD3:
            twin._list_seconds()
        elif twin._phase is _Phase.ACTIONS:
            twin._action_list = twin.action_choices(twin._action_seat)
        return twin

    # -- the table of the current round -------------------------------------------------------

    def _new_round_table(self) -> None:
        n = self.players
        self.firsts: list[NumberCard | None] = [None] * n
        self.goals_played: list[GoalCard | None] = [None] * n
        self.seconds: list[NumberCard | None] = [None] * n
        self.actions: tuple[ActionUse, ...] = ()
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

    @property
    def state(self) -> StateId:
        """The state the pending decisions are asked in: this game, its round, its step."""
        return StateId(self.number, self.round_number, self.steps)

    # -- decisions ----------------------------------------------------------------------------

    def pending(self) -> list[Decision]:
        """The decisions due now: one per seat for simultaneous steps, else one."""
        if self._pending is None:
            self._pending = self._decisions()
        return self._pending

    def _decisions(self) -> list[Decision]:
        return _STEPS[self._phase].decisions(self)

    def _ask_holder(self) -> list[Decision]:  # SUPER, HYPER (R24): asked of seat 0
        kind = DecisionKind.SUPER if self._phase is _Phase.SUPER else DecisionKind.HYPER
        return [Decision(kind, 0, tuple(range(self.players)))]

    def _ask_card(self) -> list[Decision]:  # CARD1, CARD2: a goal or a first number (R5)
        goal_first = self.mission.order is Order.GOAL_NUMBER_NUMBER
        if goal_first == (self._phase is _Phase.CARD1):
            return [Decision(DecisionKind.GOAL, i, _distinct(hand))
                    for i, hand in enumerate(self.goal_hands)]
        return [Decision(DecisionKind.FIRST_NUMBER, i, _distinct(hand))
                for i, hand in enumerate(self.hands)]

    def _ask_action(self) -> list[Decision]:  # ACTIONS: one seat at a time (R12)
        return [Decision(DecisionKind.ACTION, self._action_seat, (None, *self._action_list))]

    def _ask_second(self) -> list[Decision]:  # CARD3
        return [Decision(DecisionKind.SECOND_NUMBER, i, choices)
                for i, choices in enumerate(self._seconds_legal)]

    def _ask_take_back(self) -> list[Decision]:  # TAKE_BACK (R17)
        placed = self.arrangement()
        return [Decision(DecisionKind.TAKE_BACK, i, _distinct([placed.firsts[i], self.seconds[i]]))
                for i in self._takers]

    def _ask_nothing(self) -> list[Decision]:  # OVER
        return []

    def second_choices(self, seat: int) -> tuple[NumberCard, ...]:
        """Hand cards that keep every constraint with the first card as it lies now (R9)."""
        placed = self.arrangement()
        first, delta = placed.firsts[seat], placed.deltas[seat]
        hand = _distinct(self.hands[seat])
        if not self.plan.constraints:
            return hand
        return tuple(card for card in hand if not self._pairs[first, card, delta][1])

    def action_choices(self, seat: int) -> tuple[ActionUse, ...]:
        """Every legal use of an available action card by `seat` now (R12–R15), card by card
        in alphabetical order (`actions.ACTIONS`)."""
        if not self.available or any(use.seat == seat for use in self.actions):
            return ()  # R12: one action per seat per round
        asked = Asked(seat, self.players, seat in (self.super_seat, self.hyper_seat),
                      _distinct(self.hands[seat]),
                      tuple(sorted(c for c in self.discards[seat] if isinstance(c, NumberCard))))
        return tuple(use for card in sorted(self.available)
                     for use in ACTIONS[card].uses(card, asked))

    def refusal(self, decision: Decision, choice: Choice, shown: str | None = None
                ) -> IllegalChoice:
        """Why `choice` (written `shown`, default its text) is not one of `decision`'s: the
        error, naming the rule it breaks (a second number card in the hand that breaks a
        challenge: R9; one not in the hand: the hand)."""
        rule = _rule_of(decision)
        if decision.kind is DecisionKind.SECOND_NUMBER and choice not in self.hands[decision.seat]:
            rule = "the card must be in your hand"
        if shown is None:
            try:
                shown = choice_text(choice)
            except TypeError:  # not even a choice's type: a bot's mistake, say what it was
                shown = repr(choice)
        return IllegalChoice(_refusal(decision, shown), rule)

    def choice_id(self, decision: Decision, choice: Choice) -> str:
        """The id of `choice` of a pending `decision` in this state (`choices.choice_id`)."""
        return choice_id(self.state, decision.kind, choice)

    def choice_of(self, seat: int, text: str) -> Choice:
        """The choice a choice id (`choice_id`) names for `seat`'s pending decision. Raises
        StaleChoice for an id of another state or game, IllegalChoice for one that is no legal
        choice of that decision (or when the seat has none)."""
        kind, written = read_choice_id(text, self.state)
        decision = next((d for d in self.pending() if d.seat == seat), None)
        if decision is None or kind is not decision.kind:
            raise IllegalChoice(f"seat {seat} is asked for its {decision.kind} choice, not a "
                                f"{kind} choice" if decision else f"seat {seat} has no decision "
                                "to make now", "the engine")
        try:
            choice = parse_choice(kind, seat, written)
        except NotationError as exc:
            raise IllegalChoice(str(exc), _rule_of(decision)) from None
        if choice not in decision.choices:
            raise self.refusal(decision, choice)
        return choice

    def apply(self, choices: Sequence[Choice], state: StateId | None = None) -> None:
        """Make the pending decisions, one choice each in the order `pending()` gave them;
        with `state`, only in that state (else StaleChoice: the choices were made for
        another)."""
        if state is not None and state != self.state:
            raise StaleChoice(state, self.state)
        decisions = self.pending()
        if len(choices) != len(decisions):
            raise IllegalChoice(f"{len(decisions)} decision(s) are due, got {len(choices)}",
                                "engine")
        for decision, choice in zip(decisions, choices, strict=True):
            if choice not in decision.choices:
                raise self.refusal(decision, choice)
        self._pending = None
        self._public = None
        if decisions:
            self.steps += 1
        _STEPS[self._phase].apply(self, decisions, choices)
        self._skip_automatic()

    def _take_super(self, decisions: list[Decision], choices: Sequence[Any]) -> None:
        self.super_seat = choices[0]
        self._phase = _Phase.HYPER

    def _take_hyper(self, decisions: list[Decision], choices: Sequence[Any]) -> None:
        self.hyper_seat = choices[0]
        self._start_round()

    def _take_card(self, decisions: list[Decision], choices: Sequence[Any]) -> None:
        for decision, choice in zip(decisions, choices, strict=True):
            seat = decision.seat
            if decision.kind is DecisionKind.GOAL:
                self.goal_hands[seat] = _without(self.goal_hands[seat], choice)
                self.goals_played[seat] = choice
            else:
                self.hands[seat] = _without(self.hands[seat], choice)
                self.firsts[seat] = choice
        self._arrangement = None
        if self._phase is _Phase.CARD1:
            self._phase = _Phase.CARD2
        else:
            self._phase, self._action_seat = _Phase.ACTIONS, 0

    def _take_action(self, decisions: list[Decision], choices: Sequence[Any]) -> None:
        if choices[0] is not None:
            self._use_action(choices[0])
        self._action_seat += 1

    def _take_second(self, decisions: list[Decision], choices: Sequence[Any]) -> None:
        for decision, choice in zip(decisions, choices, strict=True):
            self.hands[decision.seat] = _without(self.hands[decision.seat], choice)
            self.seconds[decision.seat] = choice
        self._evaluate()

    def _take_back(self, decisions: list[Decision], choices: Sequence[Any]) -> None:
        self._clean_up(dict(zip(self._takers, choices, strict=True)))

    # -- the steps that need no decision ------------------------------------------------------

    def _skip_automatic(self) -> None:
        """Run the phases that need no decision until one needs one (or the game is over)."""
        while _STEPS[self._phase].automatic(self):
            pass

    def _skip_super(self) -> bool:  # SUPER: a mission without the super card (R24)
        if self.mission.super:
            return False
        self._phase = _Phase.HYPER
        return True

    def _skip_hyper(self) -> bool:  # HYPER: likewise the hyper card
        if self.mission.hyper:
            return False
        self._start_round()
        return True

    def _skip_actionless(self) -> bool:  # ACTIONS: seats with no legal action pass (R12)
        while self._action_seat < self.players:
            self._action_list = self.action_choices(self._action_seat)
            if self._action_list:
                return False
            self._action_seat += 1
        self._phase = _Phase.CARD3
        return True

    def _list_seconds(self) -> bool:  # CARD3
        self._seconds_legal = [self.second_choices(i) for i in range(self.players)]
        if not all(self._seconds_legal):
            self._end(False, LossReason.CHALLENGE)  # R9: a seat has no legal card
        return False

    def _wait(self) -> bool:  # a phase that always asks
        return False

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
        self.available = self.available - {use.card}
        seat = use.seat
        for card in use.cards or ():  # A and C: out of the discard row (into the hand below)
            self.discards[seat] = _without(self.discards[seat], card)
        self.hands[seat] = ACTIONS[use.card].on_hand(self.hands[seat], use,
                                                     self.arrangement().firsts[seat])
        self.actions = (*self.actions, use)
        self._arrangement = None

    def _evaluate(self) -> None:
        plays = []
        for first, second, goal in zip(self.firsts, self.seconds, self.goals_played,
                                       strict=True):
            assert first is not None and second is not None and goal is not None
            plays.append(SeatPlay(first, second, goal.goal))
        table = Table(tuple(plays), self.mission.challenges, self.allowed_failures,
                      self.super_seat, self.hyper_seat, self.actions, self.colors)
        verdict = settle(table, self.rulebook, self.plan)
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
            second = self.seconds[i]
            assert second is not None  # a round is cleared after card 3
            cards: list[NumberCard | GoalCard] = [placed.firsts[i], second]
            if i in kept:
                cards.remove(kept[i])
                self.hands[i] += (kept[i],)
            cards.append(placed.goals[i])
            self.discards[i] = (*self.discards[i], *cards)
        self._new_round_table()
        # R19: draw one of each, if the deck has any.
        for i in range(self.players):
            deck = self.decks[i]
            if deck:
                self.hands[i] += (deck[-1],)
                self.decks[i] = deck[:-1]
            goals = self.goal_decks[i]
            if goals:
                self.goal_hands[i] += (goals[-1],)
                self.goal_decks[i] = goals[:-1]
        self._start_round()

    def _end(self, won: bool, reason: LossReason | None) -> None:
        self.outcome = Outcome(won, reason, self.rounds_won, self.lives, self.round_number)
        self._phase = _Phase.OVER

    # -- what a seat may see ------------------------------------------------------------------

    def observe(self, seat: int) -> Observation:
        """What `seat` sees now, as a value: its own hands and everything face up."""
        public = self._public
        if public is None:  # the same for every seat until the next apply()
            public = self._public = public_view(self)
        # The seat and its hands are an observation's first three fields; the public view's
        # others follow as they are (a plain call: namedtuple's _replace costs twice as much).
        return Observation(seat, tuple(sorted(self.hands[seat])),
                           tuple(sorted(self.goal_hands[seat])), *public[3:])

    def observe_all(self) -> Omniscient:
        """Everything, hidden hands included: for the oracle bot, which cheats by design and
        says so. No ordinary bot is handed this."""
        return omniscient_view(self)

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


def _refusal(decision: Decision, shown: str) -> str:
    return f"seat {decision.seat} cannot choose {shown} for {decision.kind}"


class _Step(NamedTuple):
    """What the engine does in one phase: the decisions it asks, how it takes their choices,
    and what it does before asking (True: it moved on to another phase without asking)."""

    decisions: Callable[[Game], list[Decision]]
    apply: Callable[[Game, list[Decision], Sequence[Any]], None]
    automatic: Callable[[Game], bool]


def _nothing_to_take(game: Game, decisions: list[Decision], choices: Sequence[Any]) -> None:
    """A game over asks nothing: apply([]) leaves it as it is (and refuses any choice)."""


#: One handler per phase, in the order a round runs them.
_STEPS: Mapping[_Phase, _Step] = MappingProxyType({
    _Phase.SUPER: _Step(Game._ask_holder, Game._take_super, Game._skip_super),
    _Phase.HYPER: _Step(Game._ask_holder, Game._take_hyper, Game._skip_hyper),
    _Phase.CARD1: _Step(Game._ask_card, Game._take_card, Game._wait),
    _Phase.CARD2: _Step(Game._ask_card, Game._take_card, Game._wait),
    _Phase.ACTIONS: _Step(Game._ask_action, Game._take_action, Game._skip_actionless),
    _Phase.CARD3: _Step(Game._ask_second, Game._take_second, Game._list_seconds),
    _Phase.TAKE_BACK: _Step(Game._ask_take_back, Game._take_back, Game._wait),
    _Phase.OVER: _Step(Game._ask_nothing, _nothing_to_take, Game._wait),
})
