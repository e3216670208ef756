"""A finished game reviewed: for every decision in order, the table's chance of winning just
before it and just after it, as the seat that made it could know them (docs/table.md, "The
review").

What a seat knows is what was public then and its own hands. Every chance is the share of
games won among `rollouts` games played on from that point with the expert at every seat
(sim.expert), each in a world the seat could not tell from the real one: the cards nobody had
shown dealt again at random, each seat's from the cards it could still hold (its hand's unseen
cards and its deck together, R2; cards that came to its hand in view, taken back or taken
from a row, stay there, R12, R17). Before: the seat plays as the expert would; after: as it
did. Both play the same worlds with the same bots, so their difference is what the choice
did, not the luck of the deals; a choice the expert would have made changes nothing.

The other seats' choices of a step everyone makes at once are not known to the seat: in the
rollouts they are the expert's, in every world. Deterministic for a seed: each rollout's world
and bots come from the seed, the decision's index and the rollout's.

Rollouts are played in tens until each chance's standard error is at most `PRECISION` (or
`rollouts` are played): a game already won or lost stops after twenty, an open one plays them
all; each decision says how many it played and its chances' standard errors. Every rollout of
a review shares one mission model (sim.model: memos of public facts only, so sharing changes
no choice, only the time), and a decision's review needs nothing of the decisions after it, so
a table reviews each step while the game goes on (table/review.py).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple, TypeVar

from synergy_forge.core.cards import GoalCard, NumberCard
from synergy_forge.core.choices import Choice, Decision, DecisionKind
from synergy_forge.core.engine import Game
from synergy_forge.core.records import Outcome
from synergy_forge.pool import run_units
from synergy_forge.sim.bots import SeatMemories, make_bot
from synergy_forge.sim.model import MissionModel

_Card = TypeVar("_Card", NumberCard, GoalCard)

#: Rollouts per chance at most, unless told: a chance's standard error is then at most 0.05;
#: the difference made by a choice, played over the same worlds, is closer than that.
ROLLOUTS = 100
#: Rollouts are played BATCH at a time until both chances' standard errors are at most
#: PRECISION (0: always `rollouts`); at least MIN_ROLLOUTS, so that a chance of 0 or 1 is seen
#: in enough worlds to be believed.
BATCH = 10
PRECISION = 0.05
MIN_ROLLOUTS = 20
#: How many of the costliest decisions are marked, and the least a mark costs.
MARKED = 3
MARK_FROM = 0.10
#: The bot whose convention every seat follows in the rollouts.
REVIEW_BOT = "expert"


@dataclass(frozen=True)
class Reviewed:
    """One decision of the game and the table's chance of winning, as its seat could know
    it, before and after it (`cost`: how much the choice lowered it; negative: raised)."""

    index: int
    round: int
    seat: int
    kind: DecisionKind
    choice: Choice
    expert: Choice  # what the expert would have chosen there
    win_before: float
    win_after: float
    rollouts: int  # played for each chance
    se_before: float  # each chance's standard error, and that of the choice's cost
    se_after: float
    se_cost: float
    marked: bool = False

    @property
    def cost(self) -> float:
        return self.win_before - self.win_after


@dataclass(frozen=True)
class Review:
    """Every decision of a game reviewed, in the order they were made (`rollouts`: at most,
    per chance; `precision`: the standard error at which a decision stops sooner)."""

    decisions: tuple[Reviewed, ...]
    rollouts: int
    seed: int
    won: bool
    precision: float = PRECISION


class _Known:
    """Per seat, the number cards in its hand that every seat saw come there (taken back,
    taken from a row, its first card back by B): they are not dealt again."""

    def __init__(self, players: int) -> None:
        self.cards: list[Counter[NumberCard]] = [Counter() for _ in range(players)]

    def after(self, before: Game, after: Game) -> _Known:
        """What is known after a step: cards gone from a hand are no longer known to be
        there; cards come, other than the one drawn from the deck (unseen), were seen coming."""
        known = _Known(after.players)
        for seat in range(after.players):
            old, new = Counter(before.hands[seat]), Counter(after.hands[seat])
            came = new - old
            if len(after.decks[seat]) < len(before.decks[seat]):
                came -= Counter([before.decks[seat][-1]])
            known.cards[seat] = (self.cards[seat] - (old - new)) + came
        return known


def world(game: Game, seat: int, known: _Known, laid: Mapping[int, Choice],
          rng: random.Random) -> Game:
    """`game` with every card `seat` has not seen dealt again at random (see the module's
    docstring): its own hands stay, its decks are shuffled, every other seat's unseen hand
    cards and deck are shuffled together and dealt as many to the hand as it held. A card
    `laid` from a hand in this step stays in that hand."""
    hands, goal_hands = list(game.hands), list(game.goal_hands)
    decks, goal_decks = list(game.decks), list(game.goal_decks)
    for other in range(game.players):
        if other == seat:
            decks[other] = _shuffled(decks[other], rng)
            goal_decks[other] = _shuffled(goal_decks[other], rng)
            continue
        card = laid.get(other)
        held = Counter(hands[other])
        shown = (known.cards[other] + Counter([card] if isinstance(card, NumberCard) else [])
                 ) & held
        unseen = list((held - shown).elements())
        pool = _shuffled((*unseen, *decks[other]), rng)
        hands[other] = (*shown.elements(), *pool[:len(unseen)])
        decks[other] = pool[len(unseen):]
        goal = [card] if isinstance(card, GoalCard) else []
        unseen_goals = list((Counter(goal_hands[other]) - Counter(goal)).elements())
        goals = _shuffled((*unseen_goals, *goal_decks[other]), rng)
        size = len(unseen_goals)
        goal_hands[other], goal_decks[other] = (*goal, *goals[:size]), goals[size:]
    return game.redealt(hands, goal_hands, decks, goal_decks)


def _shuffled(cards: Sequence[_Card], rng: random.Random) -> tuple[_Card, ...]:
    order: list[_Card] = sorted(cards)  # whatever order they were held in: only the seed decides
    rng.shuffle(order)
    return tuple(order)


class Memos(NamedTuple):
    """What the bots of a review's rollouts remember (sim.bots, sim.model): caches only, shared
    by every rollout, so the same choices come sooner."""

    memories: SeatMemories
    model: MissionModel

    @classmethod
    def new(cls) -> Memos:
        return cls(SeatMemories(), MissionModel())


def _play_on(game: Game, made: dict[int, Choice], seed: int, memos: Memos) -> bool:
    """Play `game` to its end with the expert at every seat, the pending decisions of the
    seats in `made` taken as it says; whether the table won."""
    bots = [make_bot(REVIEW_BOT, seed, s, memories=memos.memories, model=memos.model)
            for s in range(game.players)]
    while not game.over:
        game.apply([made[d.seat] if d.seat in made else
                    bots[d.seat].choose(game.observe(d.seat), d) for d in game.pending()])
        made = {}
    assert game.outcome is not None
    return game.outcome.won


class Chances(NamedTuple):
    """A decision's rollouts: the expert's choice, how many were played, and the games won
    with the expert's choice and with the seat's, and where only one of them won."""

    expert: Choice
    played: int
    won_before: int
    won_after: int
    split: int  # rollouts where one choice won and the other lost

    def standard_errors(self) -> tuple[float, float, float]:
        """Of each chance (its games won plus one in its games plus two, so that a chance of
        0 or 1 still has an interval: Agresti-Coull's centre), and of the cost (paired)."""
        n = max(self.played, 1)
        before, after = ((won + 1) / (n + 2) for won in (self.won_before, self.won_after))
        cost = (self.won_before - self.won_after) / n
        return (math.sqrt(before * (1 - before) / n), math.sqrt(after * (1 - after) / n),
                math.sqrt(max(self.split / n - cost * cost, 0.0) / n))


def chances(game: Game, decision: Decision, choice: Choice, laid: dict[int, Choice],
            known: _Known, rollouts: int, seed: int, memos: Memos,
            precision: float = PRECISION) -> Chances:
    """The expert's choice for `decision` in `game`, and the games won over the rollouts with
    it and with `choice`, the choices `laid` before it in this step as they were, as
    `decision`'s seat could know them (the module's docstring): BATCH rollouts at a time
    until both chances' standard errors are at most `precision`, at most `rollouts`."""
    seat = decision.seat
    expert = make_bot(REVIEW_BOT, seed, seat, memories=memos.memories,
                      model=memos.model).choose(game.observe(seat), decision)
    found = Chances(expert, 0, 0, 0, 0)
    while found.played < rollouts:
        won_before = won_after = split = 0
        batch = range(found.played, min(found.played + BATCH, rollouts))
        for n in batch:
            rng = random.Random(f"{seed}:{n}")
            there = world(game, seat, known, laid, rng)
            if there.over:  # a world where another seat has no legal second card (R9): lost
                continue
            bots_seed = rng.getrandbits(63)
            before = _play_on(there.copy(), {**laid, seat: expert}, bots_seed, memos)
            after = before if choice == expert else \
                _play_on(there, {**laid, seat: choice}, bots_seed, memos)
            won_before += before
            won_after += after
            split += before != after
        found = Chances(expert, found.played + len(batch), found.won_before + won_before,
                        found.won_after + won_after, found.split + split)
        if found.played >= MIN_ROLLOUTS and \
                max(found.standard_errors()[:2]) <= precision:
            break
    return found


class Position(NamedTuple):
    """A decision where it was made: the game as it stood (before its step), what the seats
    before it in a step everyone makes at once had `laid`, the cards seen coming to hands."""

    at: int  # the decision's index in the game
    game: Game
    decision: Decision
    choice: Choice
    laid: dict[int, Choice]
    known: _Known


def positions(game: Game, steps: Sequence[Sequence[Choice]], ends: bool = True
              ) -> list[Position]:
    """Every decision of the game dealt as `game` (not yet played) and played by `steps`: per
    step, the choices of its pending decisions in order (a game log's decisions). Raises
    ValueError when a step's choices are not the game's decisions' (a log replays before it
    is reviewed), or, with `ends`, the game does not end with them (without: the steps of a
    game still being played)."""
    game = game.copy()
    known = _Known(game.players)
    found: list[Position] = []
    for step in steps:
        decisions = game.pending()
        if len(step) != len(decisions):
            raise ValueError(f"{len(decisions)} decision(s) are due, got {len(step)}")
        laid: dict[int, Choice] = {}
        for decision, choice in zip(decisions, step, strict=True):
            found.append(Position(len(found), game, decision, choice, dict(laid), known))
            laid[decision.seat] = choice
        was, game = game, game.copy()
        game.apply(list(step))
        known = known.after(was, game)
    if ends and not game.over:
        raise ValueError("the game does not end with these decisions")
    return found


def review_position(position: Position, rollouts: int, seed: int,
                    memos: Memos | None = None, precision: float = PRECISION) -> Reviewed:
    """One decision reviewed (unmarked)."""
    game, decision = position.game, position.decision
    found = chances(game, decision, position.choice, position.laid, position.known, rollouts,
                    _seed(seed, position.at), memos or Memos.new(), precision)
    n = max(found.played, 1)
    se_before, se_after, se_cost = found.standard_errors()
    return Reviewed(position.at, game.round_number, decision.seat, decision.kind,
                    position.choice, found.expert, found.won_before / n, found.won_after / n,
                    found.played, se_before, se_after, se_cost)


def _review_share(shared: tuple[Game, Sequence[Sequence[Choice]], int, int, float],
                  first: int, every: int) -> list[Reviewed]:
    """A worker's share of a review: every `every`-th decision from `first`."""
    game, steps, rollouts, seed, precision = shared
    memos = Memos.new()
    return [review_position(p, rollouts, seed, memos, precision)
            for p in positions(game, steps)[first::every]]


def review(game: Game, steps: Sequence[Sequence[Choice]], rollouts: int = ROLLOUTS,
           seed: int = 0, jobs: int = 1,
           progress: Callable[[int, int], None] | None = None,
           precision: float = PRECISION) -> Review:
    """Review the game dealt as `game` and played by `steps` (see `positions`), on `jobs`
    processes (forked: a rulebook's native rules do not pickle); the same for a seed
    whatever `jobs`. `progress(done, total)` is told as decisions are reviewed."""
    found = positions(game, steps)
    total = len(found)
    reviewed: list[Reviewed] = []
    if jobs <= 1:
        memos = Memos.new()
        for position in found:
            reviewed.append(review_position(position, rollouts, seed, memos, precision))
            if progress is not None:
                progress(len(reviewed), total)
    else:
        shares = min(total, 4 * jobs)  # interleaved: early decisions cost the most
        for _, share in run_units(_review_share,
                                  (game, list(map(list, steps)), rollouts, seed, precision),
                                  [(first, shares) for first in range(shares)], jobs):
            reviewed += share
            if progress is not None:
                progress(len(reviewed), total)
        reviewed.sort(key=lambda r: r.index)
    return assembled(reviewed, rollouts, seed, ended(game, steps).won, precision)


def ended(game: Game, steps: Sequence[Sequence[Choice]]) -> Outcome:
    """The outcome of the game dealt as `game` and played by `steps` (which end it)."""
    end = game.copy()
    for step in steps:
        end.apply(list(step))
    assert end.outcome is not None  # positions() checked it ends
    return end.outcome


def assembled(reviewed: Sequence[Reviewed], rollouts: int, seed: int, won: bool,
              precision: float = PRECISION) -> Review:
    """Every decision of a game, reviewed one by one (in any order, on any process), as
    the game's review: in order, the costliest marked."""
    ordered = sorted(reviewed, key=lambda r: r.index)
    return Review(_marked(ordered), rollouts, seed, won, precision)


def _seed(seed: int, index: int) -> int:
    return random.Random(f"review:{seed}:{index}").getrandbits(63)


def _marked(reviewed: Sequence[Reviewed]) -> tuple[Reviewed, ...]:
    """The MARKED costliest decisions marked, those that cost at least MARK_FROM."""
    costly = sorted((r for r in reviewed if r.cost >= MARK_FROM - 1e-9),
                    key=lambda r: (-r.cost, r.index))[:MARKED]
    chosen = {r.index for r in costly}
    return tuple(replace(r, marked=r.index in chosen) for r in reviewed)
