"""Bots: players that see only their own observation and answer one decision at a time.

A bot is any object with `choose(observation, decision) -> choice`. Adding one is one class
and one line in BOTS. What it is shown is what its `sees` says: "seat" (the default) its
seat's `Observation`; "nothing" (the random bot, which reads nothing) None; "all"
`Game.observe_all()`, every hand: the oracle's cheat, said aloud.

What a bot works out is remembered in two kinds of memo (synergy_forge.core.memo), neither
reachable from any observation: a bot's own memory (`Bot.memory`: scores of its own hands,
private to its seat, kept across games for speed), and this module's memos of pure functions of
public facts (the priors of a mission, the sums a seat can still make given the face-up cards),
which every seat may share because they hold nothing hidden.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import chain
from typing import Any, Protocol

import numpy as np

from synergy_forge.core.cards import NUMBER_VALUES, Action, NumberCard
from synergy_forge.core.engine import Decision, DecisionKind, Game, GoalCard
from synergy_forge.core.memo import Memo
from synergy_forge.core.observation import Observation, Omniscient
from synergy_forge.core.referee import (
    arrange,
    pair_sum,
    seat_sum,
)
from synergy_forge.core.rules import Rulebook
from synergy_forge.sim.chances import Support, _grid_rules, goal_chances, success_chances
from synergy_forge.sim.convention import best_action, plan_round
from synergy_forge.sim.expert import ExpertBot, keep_card, round_state, rules_of
from synergy_forge.sim.grid import Many, NotOnGrid, Unsettled


class Bot(Protocol):
    name: str

    def choose(self, observation: Any, decision: Decision) -> Any: ...


#: What a bot is shown (`sees`), when it does not say: its seat's observation.
SEES_SEAT = "seat"


class RandomBot:
    """Uniform over the legal choices."""

    name = "random"
    sees = "nothing"  # it reads nothing: building its observation would only cost time

    def __init__(self, rng: random.Random, memory: ScoreMemory | None = None) -> None:
        self.rng = rng

    def choose(self, observation: Observation, decision: Decision) -> Any:
        return self.rng.choice(decision.choices)


_EACH_VALUE = tuple(Counter(NUMBER_VALUES).items())

AFFINITY_SAMPLES = 300

#: A memory of one seat's own scores, by (rulebook, challenges, goals, players, ..., hand).
ScoreMemory = Memo[tuple[Any, ...], dict[Any, float]]
#: Entries a bot's memory keeps: one per hand and goals seen (about 1 kB each).
MEMORY_SIZE = 4096

# Memos of public facts, shared by every seat (see the module's docstring).
_PUBLIC_SUPPORTS: Memo[tuple[Any, ...], tuple[Support, ...]] = Memo(1000)
_SUPPORTS: Memo[tuple[Any, ...], Support] = Memo(50_000)
_AFFINITY: Memo[tuple[Any, ...], dict[tuple[str, int], float]] = Memo(256)


class GreedyBot:
    """Plays for its own goal only: each choice maximises the chance that this seat meets it.

    The other seats' sums are modelled from what is face up: a card not yet played is any of
    that colour's unseen cards (all ten, less those in discard rows and on the table), each
    equally likely, keeping the challenges. The chance is exact (synergy_forge.sim.chances).
    """

    name = "greedy"

    def __init__(self, rng: random.Random, memory: ScoreMemory | None = None) -> None:
        self.rng = rng
        self.memory: ScoreMemory = Memo(MEMORY_SIZE) if memory is None else memory

    def _pick(self, choices: Any, score: Callable[[Any], float]) -> Any:
        """The best-scoring choice; ties broken by the bot's own generator."""
        scored = [(score(c), c) for c in choices]
        top = max(s for s, _ in scored)
        return self.rng.choice([c for s, c in scored if s >= top - 1e-9])

    def choose(self, observation: Observation, decision: Decision) -> Any:
        kind = decision.kind
        if len(decision.choices) == 1:
            return decision.choices[0]
        if kind is DecisionKind.FIRST_NUMBER:
            return self._first(observation, decision)
        if kind is DecisionKind.GOAL:
            return self._goal(observation, decision)
        if kind is DecisionKind.SECOND_NUMBER:
            return self._second(observation, decision)
        if kind is DecisionKind.ACTION:
            return self._action(observation, decision)
        if kind is DecisionKind.TAKE_BACK:
            return _keep(observation, decision.choices)
        return self.rng.choice(decision.choices)

    # -- the model of the others -----------------------------------------------------------

    def _supports(self, obs: Observation, table: Any,
                  deltas: tuple[int, ...]) -> tuple[Support, ...]:
        """What each seat's sum may be, seen from here: a second card not yet played is any
        of that colour's unseen cards, each equally likely, that keeps the challenges (R9).

        Another seat's hand is unseen, and so is this seat's to the others: every seat's
        possible sums follow from the face-up cards alone (and so are shared by all the seats
        of a round), except when this seat holds a card of another seat's colour (taken from a
        discard row), which it alone can rule out.
        """
        rulebook, challenges, colors = obs.rulebook, obs.mission.challenges, obs.colors
        foreign = [c for c in obs.hand if c.color != colors[obs.seat]]
        discards = obs.discards
        key = (rulebook, challenges, colors, discards, table, deltas)
        supports = None if foreign else _PUBLIC_SUPPORTS.get(key)
        if supports is None:
            unseen = _unseen(colors, chain(chain.from_iterable(discards),
                                           chain.from_iterable(table), foreign))
            supports = tuple(_support(rulebook, challenges, table[seat][0], deltas[seat],
                                      colors[seat], unseen[colors[seat]])
                             for seat in range(obs.players))
            if not foreign:  # what its own hand rules out stays with this seat
                _PUBLIC_SUPPORTS.remember(key, supports)
        return supports

    def _goal_chances(self, obs: Observation, goals: Sequence[str],
                      own_sums: set[int]) -> dict[int, float]:
        """P(this seat meets its goal | each own sum), the goals on the table being `goals`."""
        table = obs.table
        ignored = frozenset(u.seat for u in obs.actions_used if u.card is Action.J)
        return goal_chances(obs.rulebook, goals, ignored, obs.seat,
                            self._supports(obs, table, obs.deltas), sorted(own_sums))

    # -- decisions ---------------------------------------------------------------------------

    def _plan_sums(self, obs: Observation, first: NumberCard, delta: int,
                   hand: list[NumberCard]) -> list[int]:
        """The sums this seat could reach with `first` and a card of `hand`, keeping R9."""
        sums = []
        for card in set(hand):
            total, broken = _pair(obs, first, card, delta)
            if not broken:
                sums.append(total)
        return sums

    def _affinity(self, obs: Observation) -> dict[tuple[str, int], float]:
        """P(goal met | own sum) against other seats playing any two cards of their colour.

        Estimated once per mission and player count from a fixed sample (so every bot and
        every process gets the same table) and shared by every seat (public facts only): the
        first card and the goal card are chosen before the others' goals are known, where only
        this prior helps.
        """
        key = (obs.rulebook, obs.mission.challenges, obs.mission.goals, obs.players)
        found = _AFFINITY.get(key)
        if found is not None:
            return found
        plan = obs.rulebook.plan(obs.mission.challenges)
        pair_sums = []
        cards = [NumberCard(v, "x") for v in NUMBER_VALUES]
        for i, a in enumerate(cards):
            for j, b in enumerate(cards):
                if i != j:
                    e = seat_sum(plan, a, b, 0)
                    if not e[6]:
                        pair_sums.append(e[4])
        pair_sums = pair_sums or [0]
        rng = random.Random(0)
        samples = [[rng.choice(pair_sums) for _ in range(obs.players - 1)]
                   for _ in range(AFFINITY_SAMPLES)]
        checks = obs.rulebook.goal_checks
        own_range = sorted(set(pair_sums) | set(range(0, 16)))
        table: dict[tuple[str, int], float] = {}
        for goal in set(obs.mission.goals):
            check = checks[goal]
            for own in own_range:
                met = 0
                for others in samples:
                    everyone = [*others, own]
                    if check(own, others, everyone, sorted(set(everyone)), others[0],
                             others[-1]):
                        met += 1
                table[(goal, own)] = met / len(samples)
        return _AFFINITY.remember(key, table)

    def _first(self, obs: Observation, decision: Decision) -> NumberCard:
        hand = obs.hand
        goals = frozenset(g.goal for g in obs.goal_hand)
        table_goal = obs.table[obs.seat][1]
        if table_goal is not None:  # goal-number-number: the goal is already known
            goals = frozenset({table_goal.goal})
        if self._passing(obs):
            goals = frozenset(obs.mission.goals)  # the goal to meet will come from a neighbour
        # A pure function of the hand and the goals: remembered across games, by this seat only.
        key = ("first", obs.rulebook, obs.mission.challenges, obs.mission.goals, obs.players,
               goals, hand)
        scores = self.memory.get(key)
        if scores is None:
            affinity = self._affinity(obs)
            best: dict[int, float] = {}  # own sum -> its chance for the most hopeful goal
            scores = {}
            for first in set(hand):
                rest = list(hand)
                rest.remove(first)
                top = 0.0
                for x in self._plan_sums(obs, first, 0, rest):
                    chance = best.get(x)
                    if chance is None:
                        chance = best[x] = max(affinity.get((g, x), 0.0) for g in goals)
                    top = max(top, chance)
                scores[first] = top
            self.memory.remember(key, scores)
        return self._pick(decision.choices, scores.__getitem__)

    def _passing(self, obs: Observation) -> bool:
        return bool(obs.mission.challenges) and \
            bool(obs.rulebook.plan(obs.mission.challenges).direction)

    def _goal(self, obs: Observation, decision: Decision) -> GoalCard:
        if self._passing(obs):
            return self.rng.choice(decision.choices)  # R4: not the goal this seat must meet
        first = obs.table[obs.seat][0]
        delta = obs.deltas[obs.seat]
        key = ("goal", obs.rulebook, obs.mission.challenges, obs.mission.goals, obs.players,
               first, delta, obs.hand)
        scores = self.memory.get(key)
        if scores is None:
            affinity = self._affinity(obs)
            if first is None:  # goal-number-number: for the best pair still possible
                sums = {x for f in set(obs.hand) for x in self._plan_sums(
                    obs, f, 0, [c for c in obs.hand if c != f])}
            else:
                sums = set(self._plan_sums(obs, first, delta, list(obs.hand)))
            scores = self.memory.remember(
                key, {g: max((affinity.get((g, x), 0.0) for x in sums), default=0.0)
                      for g in set(obs.mission.goals)})
        return self._pick(decision.choices, lambda g: scores.get(g.goal, 0.0))

    def _second(self, obs: Observation, decision: Decision) -> NumberCard:
        placed = obs.placed  # at card 3, every first card and goal lies on the table
        first = placed.firsts[obs.seat]
        delta = obs.deltas[obs.seat]
        sums = {c: _pair(obs, first, c, delta)[0] for c in decision.choices}
        chances = self._goal_chances(obs, [g.goal for g in placed.goals], set(sums.values()))
        return self._pick(decision.choices, lambda c: chances[sums[c]])

    def _action(self, obs: Observation, decision: Decision) -> Any:
        """Use an action on its own cards when it raises its own chance by a clear margin."""
        table = obs.table
        hand = list(obs.hand)

        def best(use: Any) -> float:
            used = [*obs.actions_used, use] if use is not None else list(obs.actions_used)
            firsts = [t[0] for t in table]
            goals = [t[1] for t in table]
            placed = arrange(firsts, goals, used[len(obs.actions_used):])
            first = placed.firsts[obs.seat]
            delta = obs.deltas[obs.seat] + placed.deltas[obs.seat]
            own_hand = list(hand)
            if use is not None and use.card is Action.B:
                delta = 0  # S2: changes leave with the card
                own_hand.remove(use.replacement)
                own_hand.append(obs.placed.firsts[obs.seat])
            sums = set(self._plan_sums(obs, first, delta, own_hand))
            if not sums:
                return 0.0
            return max(self._goal_chances(obs, [g.goal for g in placed.goals], sums).values())

        relevant: list[Callable[[Any], bool]] = [
            lambda u: u.card in (Action.F, Action.G) and u.target == obs.seat,
            lambda u: u.card in (Action.B, Action.D),
        ]
        candidates = [u for u in decision.choices[1:] if any(r(u) for r in relevant)]
        if not candidates:
            return None
        baseline = best(None)
        scored = max(candidates, key=best)
        return scored if best(scored) >= baseline + 0.15 else None


class CoopBot(GreedyBot):
    """Plays for the group: every choice serves the ROUND (allowed failures, the super card and
    the hyper card included), and the seats follow one table convention so that they do not all
    take the same "best" play together.

    - First card and goal card: the others' goals are unknown then, so every seat follows a
      convention computed from public facts alone (the mission and the player count, `_Opening`):
      seat by seat in seat order, the goal and sum that best serve the seats before it, each
      seat's own choice then weighed against that plan. Without it every seat, modelling the
      others as random, would open with the same pair and goal (all "unique" on the same sum,
      all missing). When goals pass (R4), the goal given is the one the convention wants for
      the seat it lands on, of those this seat holds.
    - Last card: exact over what it cannot see: every legal second card each other seat could
      still hold (by elimination, each equally likely) is weighed, and every possible table is
      judged by the goals' own rules (synergy_forge.sim.chances).
    - Actions: H when the round is more likely lost than won; otherwise an action on its own
      cards that clearly raises its chance (as the greedy bot does).
    - Take-back (R17): the card that leaves the most legal pairs for the rounds to come.
    """

    name = "coop"

    def choose(self, observation: Observation, decision: Decision) -> Any:
        if len(decision.choices) == 1:
            return decision.choices[0]
        kind = decision.kind
        if kind is DecisionKind.SECOND_NUMBER:
            chances = self.round_chances(observation, list(decision.choices))
            return self._pick(decision.choices, lambda c: chances[c])
        if kind is DecisionKind.ACTION:
            return self._coop_action(observation, decision)
        if kind is DecisionKind.FIRST_NUMBER:
            return self._opening_first(observation, decision)
        if kind is DecisionKind.GOAL:
            return self._opening_goal(observation, decision)
        return super().choose(observation, decision)

    def _opening_scores(self, obs: Observation, first: NumberCard | None,
                        goals: Sequence[str]) -> dict[tuple[NumberCard, str], float]:
        """(first card, goal) -> the convention's score of this seat's best pair with them."""
        opening = _opening(obs)
        weights = _weights(obs)
        me = obs.seat
        hand = list(obs.hand)
        firsts = [first] if first is not None else sorted(set(hand))
        scores: dict[tuple[NumberCard, str], float] = {}
        for f in firsts:
            rest = list(hand)
            if first is None:
                rest.remove(f)
            sums = set(self._plan_sums(obs, f, obs.deltas[me] if first is not None else 0,
                                       rest))
            for g in set(goals):
                scores[(f, g)] = max((opening.score(me, g, x, weights) for x in sums),
                                     default=-1.0)
        return scores

    def _opening_first(self, obs: Observation, decision: Decision) -> NumberCard:
        table_goal = obs.table[obs.seat][1]
        if table_goal is not None:  # goal-number-number: the goal is already down
            goals: Sequence[str] = [table_goal.goal]
        elif self._passing(obs):  # the goal to meet comes from a neighbour: any of the deck's
            goals = obs.mission.goals
        else:
            goals = [g.goal for g in obs.goal_hand]
        scores = self._opening_scores(obs, None, goals)
        best: dict[NumberCard, float] = {}
        for (f, _), value in scores.items():
            best[f] = max(best.get(f, -1.0), value)
        return self._pick(decision.choices, lambda c: best.get(c, -1.0))

    def _opening_goal(self, obs: Observation, decision: Decision) -> GoalCard:
        me = obs.seat
        if self._passing(obs):
            # R4: the goal lands on a neighbour; give the one the convention wants there.
            n = obs.players
            lands = arrange(list(range(n)), list(range(n)), (),
                            obs.rulebook.plan(obs.mission.challenges).direction).goals
            to = lands.index(me)
            opening, weights = _opening(obs), _weights(obs)
            support = self._supports(obs, obs.table, obs.deltas)[to] \
                if obs.table[to][0] is not None else None
            sums = support.sums if support is not None else opening.sums
            return self._pick(decision.choices, lambda g: max(
                opening.score(to, g.goal, x, weights) for x in sums))
        first = obs.table[me][0]
        scores = self._opening_scores(obs, first, [g.goal for g in obs.goal_hand])
        best: dict[str, float] = {}
        for (_, g), value in scores.items():
            best[g] = max(best.get(g, -1.0), value)
        return self._pick(decision.choices, lambda g: best.get(g.goal, -1.0))

    def round_chances(self, obs: Observation, mine: list[NumberCard],
                      extra_failures: int = 0) -> dict[NumberCard, float]:
        """P(round succeeds and the mission goes on | this seat plays each card of `mine`)."""
        table, deltas, n, me = obs.table, obs.deltas, obs.players, obs.seat
        supports = self._supports(obs, table, deltas)
        placed = obs.placed  # after card 2, every first card and goal lies on the table
        own = {c: _pair(obs, placed.firsts[me], c, deltas[me])[0] for c in mine}
        ignored = frozenset(u.seat for u in obs.actions_used if u.card is Action.J)
        allowed = obs.mission.failures_allowed(n) + extra_failures + sum(
            1 for u in obs.actions_used if u.card is Action.H)
        by_sum = success_chances(obs.rulebook, [g.goal for g in placed.goals], ignored, allowed,
                                 obs.super_seat, obs.hyper_seat, me, supports,
                                 sorted(set(own.values())))
        return {card: by_sum[s] for card, s in own.items()}

    def _coop_action(self, obs: Observation, decision: Decision) -> Any:
        """H when the round is more likely lost than won; else an action on its own cards that
        raises its chance clearly (the greedy bot's)."""
        hand = list(obs.hand)
        h = next((u for u in decision.choices[1:] if u.card is Action.H), None)
        if h is not None and hand:
            base = max(self.round_chances(obs, hand).values())
            if base < 0.5 and \
                    max(self.round_chances(obs, hand, extra_failures=1).values()) > base + 0.15:
                return h
        return self._action(obs, decision)


#: How often the opening convention expects another seat to reach its planned sum (else any
#: sum its colour can make): the plan is made before anyone sees a hand.
FOLLOWS = 0.7
OPENING_SAMPLES = 240


class _Opening:
    """The table's opening convention for one mission and player count, from public facts only:
    seat by seat in seat order, the (goal, sum) that maximises how many of the seats so far meet
    their goals, the later seats taken as playing any pair. `score` weighs one seat's
    candidate (goal, sum) against the whole plan: how many seats meet their goals (the super
    and hyper seats counted again), each other seat at its planned sum FOLLOWS of the time."""

    def __init__(self, rulebook: Rulebook, challenges: tuple[str, ...], goals: tuple[str, ...],
                 players: int) -> None:
        plan = rulebook.plan(challenges)
        cards = [NumberCard(v, "x") for v in NUMBER_VALUES]
        pair_sums = []
        for i, a in enumerate(cards):
            for j, b in enumerate(cards):
                if i != j:
                    e = seat_sum(plan, a, b, 0)
                    if not e[6]:
                        pair_sums.append(e[4])
        pair_sums = pair_sums or [0]
        self.sums = tuple(sorted(set(pair_sums)))
        self.goals = tuple(sorted(set(goals)))
        self.checks = rulebook.goal_checks
        self.rules = _grid_rules(rulebook)
        n = self.players = players
        rng = random.Random(0)
        self.random = np.array([[rng.choice(pair_sums) for _ in range(n)]
                                for _ in range(OPENING_SAMPLES)], dtype=np.int64)
        self.follows = np.array([[rng.random() < FOLLOWS for _ in range(n)]
                                 for _ in range(OPENING_SAMPLES)])
        self.plan: list[tuple[str, int]] = []
        for k in range(n):
            best: tuple[float, str, int] | None = None
            for g in self.goals:
                for x in self.sums:
                    value = float(self._met(k, g, x, upto=k).sum())
                    if best is None or value > best[0] + 1e-9:
                        best = (value, g, x)
            assert best is not None
            self.plan.append((best[1], best[2]))
        self._scores: dict[tuple[int, str, int], np.ndarray] = {}

    def _met(self, seat: int, goal: str, own: int, upto: int | None = None) -> np.ndarray:
        """Per seat, the share of sampled tables on which it meets its goal, `seat` playing
        `goal` at `own`; with `upto`, only the seats up to it count, those before it at
        their planned sums and those after it at any sum (not yet planned)."""
        n, planned = self.players, self.plan
        columns = []
        for j in range(n):
            if j == seat:
                columns.append(np.full(OPENING_SAMPLES, own, dtype=np.int64))
            elif upto is not None:
                columns.append(np.full(OPENING_SAMPLES, planned[j][1], dtype=np.int64)
                               if j < upto else self.random[:, j])
            else:
                columns.append(np.where(self.follows[:, j], planned[j][1], self.random[:, j]))
        counted = n if upto is None else upto + 1
        met = np.zeros(n)
        everyone = Many(columns)
        for i in range(counted):
            goal_i = goal if i == seat else planned[i][0]
            rule = self.rules.get(goal_i)
            answer = None
            if rule is not None:
                try:
                    answer = rule(columns[i], Many(columns[:i] + columns[i + 1:]), everyone,
                                  columns[(i + 1) % n], columns[i - 1])
                except (Unsettled, NotOnGrid):
                    answer = None
            if answer is not None:
                met[i] = float(np.mean(np.broadcast_to(answer, (OPENING_SAMPLES,))))
                continue
            check = self.checks[goal_i]  # a rule the grid cannot run: table by table
            for row in range(OPENING_SAMPLES):
                sums = [int(c[row]) for c in columns]
                met[i] += bool(check(sums[i], sums[:i] + sums[i + 1:], sums,
                                     sorted(set(sums)), sums[(i + 1) % n], sums[i - 1]))
            met[i] /= OPENING_SAMPLES
        return met

    def score(self, seat: int, goal: str, own: int, weights: tuple[float, ...]) -> float:
        key = (seat, goal, own)
        met = self._scores.get(key)
        if met is None:
            met = self._scores[key] = self._met(seat, goal, own)
        return float(np.dot(met, weights))


_OPENINGS: Memo[tuple[Any, ...], _Opening] = Memo(256)


def _opening(obs: Observation) -> _Opening:
    """The opening convention of this mission and player count (public facts, shared)."""
    key = (obs.rulebook, obs.mission.challenges, obs.mission.goals, obs.players)
    found = _OPENINGS.get(key)
    if found is None:
        found = _OPENINGS.remember(key, _Opening(obs.rulebook, obs.mission.challenges,
                                                 obs.mission.goals, obs.players))
    return found


def _weights(obs: Observation) -> tuple[float, ...]:
    """Each seat's weight in the opening's score: the super and hyper seats count again."""
    return tuple(1.0 + (i == obs.super_seat) + (i == obs.hyper_seat)
                 for i in range(obs.players))


def _keep(obs: Observation, choices: Sequence[NumberCard]) -> NumberCard:
    """R17: the card to take back that leaves the most legal pairs in the hand for later
    rounds (the higher card on a tie)."""
    def pairs(card: NumberCard) -> tuple[int, int, str]:
        hand = [*obs.hand, card]
        legal = sum(1 for i, a in enumerate(hand) for j, b in enumerate(hand)
                    if i != j and not _pair(obs, a, b, 0)[1])
        return legal, card.value, card.color
    return max(choices, key=pairs)


def _pair(obs: Observation, first: NumberCard, second: NumberCard,
          delta: int) -> tuple[int, bool]:
    return pair_sum(obs.rulebook, obs.mission.challenges, first, second, delta)


def _unseen(colors: tuple[str, ...], seen: Any) -> dict[str, dict[int, int]]:
    """Per colour, how many cards of each value are not among `seen`."""
    unseen = {color: dict(_EACH_VALUE) for color in colors}
    for card in seen:
        if type(card) is NumberCard:
            counts = unseen.get(card.color)
            if counts is not None and counts.get(card.value, 0) > 0:
                counts[card.value] -= 1
    return unseen


def _support(rulebook: Rulebook, challenges: tuple[str, ...], first: NumberCard, delta: int,
             color: str, unseen: dict[int, int]) -> Support:
    """How many of a seat's possible second cards give each sum, keeping the challenges."""
    key = (rulebook, challenges, first, delta, color, tuple(unseen.items()))
    support = _SUPPORTS.get(key)
    if support is None:
        weights: dict[int, float] = {}
        for value, count in unseen.items():
            total, broken = pair_sum(rulebook, challenges, first, NumberCard(value, color), delta)
            if count > 0 and not broken:
                weights[total] = weights.get(total, 0.0) + count
        # nothing legal left: R9 ends the mission
        support = _SUPPORTS.remember(key, Support.of(weights or {0: 1.0}))
    return support


class OracleBot:
    """CHEATS: sees every hand and plays the table convention on the true hands.

    The ceiling the playtester compares the honest bots to: the expert's plan
    (synergy_forge.sim.convention), with every hand read rather than counted, so it has at
    least the expert's information and plays the same joint plan where the expert can count
    every hand. Like the expert, it plans each round for the rounds after it (the hands it
    leaves), uses an action card, in seat order (R12), when one turns a lost round into a won
    one, and takes back the card that leaves the most legal sums (R17).
    """

    name = "oracle"
    #: The cheat, said aloud: this bot is handed `Game.observe_all()`, every hand included.
    sees = "all"

    def __init__(self, rng: random.Random, memory: ScoreMemory | None = None) -> None:
        self.rng = rng

    def choose(self, observation: Omniscient, decision: Decision) -> Any:
        if len(decision.choices) == 1:
            return decision.choices[0]
        kind = decision.kind
        if kind is DecisionKind.SUPER or kind is DecisionKind.HYPER:
            return decision.choices[0]
        view = observation.views[decision.seat]
        rules = rules_of(view)
        if kind is DecisionKind.TAKE_BACK:
            return keep_card(rules, view.hand, decision.choices)
        state = round_state(view, tuple(tuple(sorted(h)) for h in observation.hands),
                            tuple(tuple(sorted(h)) for h in observation.goal_hands))
        if kind is DecisionKind.ACTION:
            return best_action(rules, state, decision.choices, view.discards)
        plan = plan_round(rules, state)
        if plan is not None:
            first, goal, second = plan.plays[decision.seat]
            wanted = {DecisionKind.FIRST_NUMBER: first, DecisionKind.GOAL: goal,
                      DecisionKind.SECOND_NUMBER: second}.get(kind)
            if wanted in decision.choices:
                return wanted
        return decision.choices[0]  # no legal pair for some seat: R9 ends the mission anyway


BOTS: dict[str, type] = {"random": RandomBot, "greedy": GreedyBot, "coop": CoopBot,
                         "expert": ExpertBot, "oracle": OracleBot}

# The memory of the bot of each kind at each seat, kept from one game to the next (a hand
# seen in one game comes back in the next), each private to its seat.
_MEMORIES: dict[tuple[str, int], ScoreMemory] = {}


def make_bot(name: str, seed: int, seat: int, *, skill: float | None = None) -> Bot:
    """A bot with its own generator, derived from the game's seed and its seat, and its
    seat's memory. `skill` goes to the bots that take one (the expert), and only to them."""
    memory = _MEMORIES.get((name, seat))
    if memory is None:
        memory = _MEMORIES[(name, seat)] = Memo(MEMORY_SIZE)
    kind = BOTS[name]
    rng = random.Random(f"{name}:{seed}:{seat}")
    bot: Bot = kind(rng, memory) if skill is None or not getattr(kind, "skilled", False) \
        else kind(rng, memory, skill=skill)
    return bot


def view_for(bot: Bot, game: Game, seat: int) -> Observation | Omniscient | None:
    """What `bot` at `seat` is shown, as its `sees` says: its observation, nothing, or
    everything (the oracle)."""
    sees = getattr(bot, "sees", SEES_SEAT)
    if sees == SEES_SEAT:
        return game.observe(seat)
    return game.observe_all() if sees == "all" else None
