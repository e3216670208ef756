"""A game as setup, state and observers: what a bot can reach, what it can change, and copy().

A bot is handed an `Observation`; the oracle alone is handed `observe_all()`. Two walks over
everything an observation reaches prove what decisions.md promises: one by attributes and
container items (what a bot can write to), one by the interpreter's own references
(`gc.get_referents`, closures and cells included: what a bot can read). Both stop at code:
modules, classes, functions' globals and enum members are the program, which a bot can import
anyway; they hold no game. Perft counts (python-chess's `perft`) pin the engine's rules of
play: the number of distinct legal decision sequences from fixed deals to a fixed depth.
"""

from __future__ import annotations

import enum
import functools
import gc
import random
import sys
import types
from collections.abc import Iterator, Mapping
from itertools import product
from pathlib import Path

import pytest

from synergy_forge.authoring.definitions import standard_rulebook
from synergy_forge.authoring.loading import read_campaign
from synergy_forge.authoring.roundfile import read_round
from synergy_forge.core.cards import Action, GoalCard, NumberCard, Order
from synergy_forge.core.engine import Game
from synergy_forge.core.mission import Mission
from synergy_forge.core.observation import Observation
from synergy_forge.core.referee import judge
from synergy_forge.resources import starter_campaign
from synergy_forge.sim.bots import GreedyBot, SeatMemories, make_bot
from synergy_forge.sim.play import play

ROUNDS = Path(__file__).resolve().parents[2] / "missions" / "rounds"
SEED = 987_654_321_987  # large enough that no other number in play equals it


@pytest.fixture(scope="module")
def campaign():
    return read_campaign(starter_campaign()).campaign


_CODE = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
         types.MethodType, types.CodeType, enum.Enum, functools._lru_cache_wrapper)
_ATOMS = (str, bytes, int, float, complex, bool, type(None))


def _module_dicts() -> set[int]:
    return {id(vars(m)) for m in list(sys.modules.values()) if m is not None}


def by_attributes(root: object) -> Iterator[object]:
    """Every object reachable from `root` by attributes (slots included) and container items,
    stopping at code and at atoms: what a bot can try to write to."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, _ATOMS):
            continue
        seen.add(id(obj))
        yield obj
        if isinstance(obj, _CODE):
            continue
        if isinstance(obj, Mapping):
            stack += [*obj.keys(), *obj.values()]
        elif isinstance(obj, list | tuple | set | frozenset):
            stack += list(obj)
        stack += list(getattr(obj, "__dict__", {}).values())
        for cls in type(obj).__mro__:
            for name in getattr(cls, "__slots__", ()):
                if hasattr(obj, name):
                    stack.append(getattr(obj, name))


def by_references(root: object) -> Iterator[object]:
    """Every object the interpreter says `root` reaches (closures, cells, the lru caches of
    compiled rules...), stopping at code namespaces: what a bot can read."""
    modules = _module_dicts()
    seen: set[int] = set()
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        yield obj
        if isinstance(obj, type | types.ModuleType | enum.Enum) or id(obj) in modules:
            continue
        if isinstance(obj, types.FunctionType):  # its globals are its module's: code
            stack += [obj.__code__, *(c.cell_contents for c in obj.__closure__ or ()
                                      if _filled(c))]
            stack += [obj.__defaults__, obj.__kwdefaults__]
            continue
        stack += gc.get_referents(obj)


def _filled(cell: types.CellType) -> bool:
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:
        return False
    return True


class HostileBot:
    """Plays the first legal choice, after trying to write to everything its observation
    reaches: every attribute set, every mapping and list emptied or added to."""

    name = "hostile"

    def __init__(self) -> None:
        self.attempts = self.successes = 0

    def choose(self, observation: Observation, decision) -> object:
        for obj in list(by_attributes(observation)):
            if isinstance(obj, _CODE):
                continue
            for name in [*getattr(obj, "__dict__", {}), *_slots(obj), "hacked"]:
                self._try(lambda o=obj, n=name: setattr(o, n, None))
            if isinstance(obj, Mapping):
                for key in list(obj):
                    self._try(lambda o=obj, k=key: o.__setitem__(k, lambda *a: True))
                self._try(lambda o=obj: o.clear())
            for method in ("clear", "append", "add", "pop", "popitem"):
                if callable(getattr(obj, method, None)) and not isinstance(obj, _CODE):
                    self._try(lambda o=obj, m=method: getattr(o, m)(*(
                        (None,) if m in ("append", "add") else ())))
        return decision.choices[0]

    def _try(self, write) -> None:
        self.attempts += 1
        try:
            write()
        except Exception:  # refused: read-only, frozen or immutable
            return
        self.successes += 1


def _slots(obj: object) -> list[str]:
    return [n for cls in type(obj).__mro__ for n in getattr(cls, "__slots__", ())
            if n != "__weakref__"]


class FirstChoice:
    name = "first"

    def choose(self, observation, decision):
        return decision.choices[0]


def _drive(game: Game, seats: list) -> Game:
    while not game.over:
        decisions = game.pending()
        game.apply([seats[d.seat].choose(game.observe(d.seat), d) for d in decisions])
    return game


def _story(game: Game) -> list:
    return [(r.table, r.verdict) for r in game.history] + [game.outcome]


def test_a_hostile_bot_changes_nothing_it_can_reach(campaign):
    mission = campaign.mission(30)  # passing, no-doubles, actions A to D: much to reach
    judged = {p.name: judge(read_round(p, campaign.rulebook), campaign.rulebook)
              for p in sorted(ROUNDS.glob("*.yaml"))}
    other = play(Game(campaign.mission(20), 4, 3, campaign.rulebook), ["greedy"] * 4)
    calm = _drive(Game(mission, 4, 5, campaign.rulebook), [FirstChoice(), *[FirstChoice()] * 3])

    hostile = HostileBot()
    game = _drive(Game(mission, 4, 5, campaign.rulebook),
                  [hostile, FirstChoice(), FirstChoice(), FirstChoice()])
    assert hostile.attempts > 1000 and hostile.successes == 0  # every write refused
    # Its own game went exactly as a calm one.
    assert _story(game) == _story(calm)
    # Other games, before and after, and later judgements in this process: unchanged.
    again = play(Game(campaign.mission(20), 4, 3, campaign.rulebook), ["greedy"] * 4)
    assert _story(again) == _story(other)
    assert {p.name: judge(read_round(p, campaign.rulebook), campaign.rulebook)
            for p in sorted(ROUNDS.glob("*.yaml"))} == judged
    # What a rulebook says cannot be replaced either (the one-line attack).
    rulebook = standard_rulebook()
    with pytest.raises(TypeError):
        rulebook.goal_checks["unique"] = lambda *a: True  # type: ignore[index]
    with pytest.raises(AttributeError):
        rulebook.goal_checks = {}  # type: ignore[misc]
    assert not hasattr(rulebook, "memo")


def _hidden(game: Game, seat: int) -> tuple[set[int], set[object]]:
    """The identities of `seat`'s hidden cards (hands and decks), and those of their values
    that no card this seat's neighbours can see has."""
    cards = [*game.hands[seat], *game.goal_hands[seat], *game.decks[seat],
             *game.goal_decks[seat]]
    return {id(c) for c in cards}, set(cards)


@pytest.mark.parametrize("number", [24, 30])
def test_no_seat_reaches_another_seats_hidden_cards_or_the_seed(campaign, number):
    game = Game(campaign.mission(number), 4, SEED, campaign.rulebook)
    bots = [make_bot("coop", SEED, seat) for seat in range(4)]
    checked = 0
    while not game.over:
        decisions = game.pending()
        for d in decisions:
            observation = game.observe(d.seat)
            for other in range(4):
                if other == d.seat:
                    continue
                ids, values = _hidden(game, other)
                visible = set()  # the same cards face up or in this seat's own hands
                for obj in by_references(observation):
                    assert id(obj) not in ids, (d.seat, other, obj)
                    assert obj != SEED or type(obj) is not int, (d.seat, obj)
                    if isinstance(obj, NumberCard | GoalCard):
                        visible.add(obj)
                # A value seen is another copy of it (two of each number), never the card.
                own = set(observation.hand) | set(observation.goal_hand)
                table = {c for row in observation.discards for c in row} | \
                    {c for t in observation.table for c in t if c is not None}
                assert visible & values <= own | table, (d.seat, other)
                checked += 1
        game.apply([bots[d.seat].choose(game.observe(d.seat), d) for d in decisions])
    assert checked > 20


def test_observations_are_values_not_views(campaign):
    game = Game(campaign.mission(12), 3, 4, campaign.rulebook)
    rng = random.Random(0)
    game.apply([rng.choice(d.choices) for d in game.pending()])
    seen = game.observe(1)
    before = seen.snapshot()
    while not game.over:
        game.apply([rng.choice(d.choices) for d in game.pending()])
    assert seen.snapshot() == before  # the game moved on; what seat 1 was shown did not
    assert not any(isinstance(obj, Game) for obj in by_references(seen))


def test_bots_remember_privately_per_seat(campaign):
    kept = SeatMemories()  # owned by whoever plays the games (here: this test), not a module
    play(Game(campaign.mission(9), 3, 2, campaign.rulebook), ["greedy"] * 3, memories=kept)
    memories = [make_bot("greedy", 7, seat, memories=kept).memory for seat in range(3)]
    assert all(memories) and len({id(m) for m in memories}) == 3
    # Seat 0's memory holds seat 0's colour only: no other seat's hand is kept in it.
    for seat, memory in enumerate(memories):
        hands = [key[-1] for key in memory if key[0] == "first"]
        assert hands and {c.color for hand in hands for c in hand} == {("red", "yellow",
                                                                        "green")[seat]}
    # A bot made on its own (no seat) has a memory of its own.
    assert GreedyBot(random.Random(0)).memory is not memories[0]
    # Nothing is kept for the next player of games who does not hand the memories over.
    assert not make_bot("greedy", 7, 0).memory


# -- copy() and perft ----------------------------------------------------------------------

def perft(game: Game, depth: int) -> list[int]:
    """Distinct legal decision sequences of 1, 2, ... `depth` steps (a simultaneous step is one
    step: every combination of the seats' choices); a game that ends sooner counts once.

    All depths in one walk of the tree to `depth`: perft(d) is the sum of the children's
    perft(d - 1), so each node passes up its children's counts shifted by one step, rather
    than the tree being walked again for every depth (which cost 2.5 times as much)."""
    if game.over:
        return [1] * depth
    counts = [0] * depth
    for choices in product(*(d.choices for d in game.pending())):
        counts[0] += 1
        if depth > 1:
            child = game.copy()
            child.apply(list(choices))
            for i, below in enumerate(perft(child, depth - 1), start=1):
                counts[i] += below
    return counts


def _small(order: Order, **options) -> Mission:
    return Mission(id=f"perft-{order}", number=1, title={"en": "Perft"}, stars=1, rounds=2,
                   lives=2, players=(3,), hand_numbers=3, hand_goals=2, order=order, **options)


#: mission, seed, counts for depths 1, 2, ...: written down once from this engine. Checked by
#: hand where small: seat 0 gives the super (or hyper) card to one of 3 seats (3); without
#: them, the three seats' first cards, each of its hand's distinct cards (27 = 3 x 3 x 3).
PERFT = {
    "ngn-challenge-actions": (
        _small(Order.NUMBER_GOAL_NUMBER, challenges=("low-to-high",),
               actions=(Action.F, Action.B), super=True), 1,
        (3, 54, 432, 2376, 9072, 21384, 30408)),
    "gnn-challenge-actions": (
        _small(Order.GOAL_NUMBER_NUMBER, challenges=("even",), actions=(Action.D, Action.I),
               hyper=True), 2,
        (3, 24, 648, 3888, 14904, 33696, 37504)),
    "ngn-passing": (
        _small(Order.NUMBER_GOAL_NUMBER, challenges=("goals-left", "double-plus-3"),
               actions=(Action.H, Action.J)), 3,
        (27, 216, 648, 1512, 5832, 39744)),
}


def _replayed(mission: Mission, seed: int, path: tuple) -> Game:
    game = Game(mission, 3, seed, standard_rulebook())
    for choices in path:
        game.apply(list(choices))
    return game


def perft_by_replay(mission: Mission, seed: int, depth: int, path: tuple = ()) -> int:
    """The same count without copy(): every sequence played again from the deal."""
    game = _replayed(mission, seed, path)
    if depth == 0 or game.over:
        return 1
    return sum(perft_by_replay(mission, seed, depth - 1, (*path, choices))
               for choices in product(*(d.choices for d in game.pending())))


@pytest.mark.parametrize("name", sorted(PERFT))
def test_perft_golden_counts(name):
    mission, seed, counts = PERFT[name]
    game = Game(mission, 3, seed, standard_rulebook())
    assert tuple(perft(game, len(counts))) == counts
    assert not game.history and game.round_number <= 1  # counting moved only the copies


@pytest.mark.parametrize("name", sorted(PERFT))
def test_copy_branches_exactly_as_replaying_from_the_deal(name):
    mission, seed, counts = PERFT[name]
    assert perft_by_replay(mission, seed, 4) == counts[3]


def test_a_copy_is_independent_both_ways(campaign):
    game = Game(campaign.mission(30), 4, 11, campaign.rulebook)
    rng = random.Random(3)
    for _ in range(12):
        game.apply([rng.choice(d.choices) for d in game.pending()])
    views = [game.observe(s).snapshot() for s in range(4)]
    twin = game.copy()
    replay_rng = random.Random(5)
    while not twin.over:
        twin.apply([replay_rng.choice(d.choices) for d in twin.pending()])
    assert [game.observe(s).snapshot() for s in range(4)] == views  # the original waited
    # ... and plays on exactly as if it had never been copied.
    branch = game.copy()
    for g in (game, branch):
        moves = random.Random(9)
        while not g.over:
            g.apply([moves.choice(d.choices) for d in g.pending()])
    assert _story(game) == _story(branch)
    assert list(game.cards_of("red")) == list(branch.cards_of("red"))
