"""Bots: players that see only their own observation and answer one decision at a time.

A bot is any object with `choose(observation, decision) -> choice`. Adding one is one class
and one line in BOTS.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from itertools import chain, product
from typing import Any, Protocol

from synergy_forge.cards import NUMBER_VALUES, Action, NumberCard
from synergy_forge.chances import Support, success_chances
from synergy_forge.engine import Decision, DecisionKind, GoalCard, Observation
from synergy_forge.referee import arrange, seat_sum


class Bot(Protocol):
    name: str

    def choose(self, observation: Observation, decision: Decision) -> Any: ...


class RandomBot:
    """Uniform over the legal choices."""

    name = "random"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, observation: Observation, decision: Decision) -> Any:
        return self.rng.choice(decision.choices)


_EACH_VALUE = tuple(Counter(NUMBER_VALUES).items())

#: Beyond this many combinations of the other seats' sums, estimate by sampling.
EXACT_LIMIT = 2000
SAMPLES = 200
AFFINITY_SAMPLES = 300


class GreedyBot:
    """Plays for its own goal only: each choice maximises the chance that this seat meets it.

    The other seats' sums are modelled from what is face up: a card not yet played is any of
    that colour's unseen cards (all ten, less those in discard rows, on the table and in this
    seat's hand), each equally likely, keeping the challenges. The chance is exact when the
    combinations are few, else estimated from samples drawn from the bot's own generator.
    """

    name = "greedy"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

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
            return max(decision.choices, key=lambda c: (c.value, c.color))
        return self.rng.choice(decision.choices)

    # -- the model of the others -----------------------------------------------------------

    def _unseen(self, obs: Observation, table: Any = None) -> dict[str, dict[int, int]]:
        """Per colour, how many cards of each value this seat cannot see anywhere (all ten of a
        colour, less those in discard rows, on the table and in this seat's hand)."""
        unseen = {color: dict(_EACH_VALUE) for color in obs.colors}
        table = obs.table if table is None else table
        for card in chain(chain.from_iterable(obs.discards), chain.from_iterable(table),
                          obs.hand):
            if type(card) is NumberCard:
                counts = unseen.get(card.color)
                if counts is not None and counts.get(card.value, 0) > 0:
                    counts[card.value] -= 1
        return unseen

    def _other_sums(self, obs: Observation) -> list[Counter]:
        """Per other seat, a distribution (Counter of weights) of its sum."""
        plan = obs.rulebook.plan(obs.mission.challenges)
        table, deltas = obs.table, obs.deltas
        unseen = self._unseen(obs)
        out: list[Counter] = []
        for seat in range(obs.players):
            if seat == obs.seat:
                continue
            first, _, second = table[seat]
            pool = [NumberCard(v, obs.colors[seat])
                    for v, k in unseen[obs.colors[seat]].items() for _ in range(k)]
            dist: Counter = Counter()
            if first is not None and second is not None:
                dist[seat_sum(plan, first, second, deltas[seat])[4]] = 1
            elif first is not None:
                for card in pool or [first]:
                    e = seat_sum(plan, first, card, deltas[seat])
                    if not e[6]:
                        dist[e[4]] += 1
            else:
                for i, a in enumerate(pool):
                    for j, b in enumerate(pool):
                        if i != j:
                            e = seat_sum(plan, a, b, 0)
                            if not e[6]:
                                dist[e[4]] += 1
            if not dist:  # nothing legal is left to them: any sum of the pool
                dist[0] = 1
            out.append(dist)
        return out

    def _chances(self, obs: Observation, own_sums: set[int], goals: set[str],
                 dists: list[Counter] | None = None) -> dict[tuple[str, int], float]:
        """P(goal met | own sum) for every goal and own sum asked, by the goal's own rule."""
        dists = dists if dists is not None else self._other_sums(obs)
        checks = obs.rulebook.goal_checks
        seat, n = obs.seat, obs.players
        others_seats = [s for s in range(n) if s != seat]
        left_index = others_seats.index((seat + 1) % n)
        right_index = others_seats.index((seat - 1) % n)
        supports = [list(d.items()) for d in dists]
        combos = 1
        for s in supports:
            combos *= len(s)
        if combos <= EXACT_LIMIT:
            weighted = []
            for picks in product(*supports):
                weight = 1.0
                for _, w in picks:
                    weight *= w
                weighted.append(([v for v, _ in picks], weight))
        else:
            weighted = []
            for _ in range(SAMPLES):
                values = [self.rng.choices([v for v, _ in s], [w for _, w in s])[0]
                          for s in supports]
                weighted.append((values, 1.0))
        total = sum(w for _, w in weighted)
        result = {}
        for goal in goals:
            check = checks[goal]
            for own in own_sums:
                met = 0.0
                for others, weight in weighted:
                    everyone = [*others, own]
                    if check(own, others, everyone, sorted(set(everyone)),
                             others[left_index], others[right_index]):
                        met += weight
                result[(goal, own)] = met / total
        return result

    # -- decisions ---------------------------------------------------------------------------

    def _plan_sums(self, obs: Observation, first: NumberCard, delta: int,
                   hand: list[NumberCard]) -> list[int]:
        """The sums this seat could reach with `first` and a card of `hand`, keeping R9."""
        pairs = obs.rulebook.memo.get(("pair-sums", obs.mission.challenges))
        if pairs is None:
            pairs = obs.rulebook.memo[("pair-sums", obs.mission.challenges)] = {}
        sums = []
        for card in set(hand):
            total = pairs.get((first, card, delta), False)
            if total is False:
                e = seat_sum(obs.rulebook.plan(obs.mission.challenges), first, card, delta)
                total = pairs[(first, card, delta)] = None if e[6] else e[4]
            if total is not None:
                sums.append(total)
        return sums

    def _affinity(self, obs: Observation) -> dict[tuple[str, int], float]:
        """P(goal met | own sum) against other seats playing any two cards of their colour.

        Estimated once per mission and player count from a fixed sample (so every bot and
        every process gets the same table) and kept on the rulebook: the first card and the
        goal card are chosen before the others' goals are known, where only this prior helps.
        """
        key = ("affinity", obs.mission.challenges, obs.mission.goals, obs.players)
        table = obs.rulebook.memo.get(key)
        if table is not None:
            return table
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
        table = {}
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
        obs.rulebook.memo[key] = table
        return table

    def _first(self, obs: Observation, decision: Decision) -> NumberCard:
        hand = obs.hand
        goals = frozenset(g.goal for g in obs.goal_hand)
        table_goal = obs.table[obs.seat][1]
        if table_goal is not None:  # goal-number-number: the goal is already known
            goals = frozenset({table_goal.goal})
        if self._passing(obs):
            goals = frozenset(obs.mission.goals)  # the goal to meet will come from a neighbour
        # A pure function of the hand and the goals: remembered across games.
        key = ("first-scores", obs.mission.challenges, obs.mission.goals, obs.players, goals,
               hand)
        scores = obs.rulebook.memo.get(key)
        if scores is None:
            affinity = self._affinity(obs)
            best = {}  # own sum -> its chance for the most hopeful goal
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
            obs.rulebook.memo[key] = scores
        return self._pick(decision.choices, scores.__getitem__)

    def _passing(self, obs: Observation) -> bool:
        return bool(obs.mission.challenges) and \
            bool(obs.rulebook.plan(obs.mission.challenges).direction)

    def _goal(self, obs: Observation, decision: Decision) -> GoalCard:
        if self._passing(obs):
            return self.rng.choice(decision.choices)  # R4: not the goal this seat must meet
        first = obs.table[obs.seat][0]
        delta = obs.deltas[obs.seat]
        key = ("goal-scores", obs.mission.challenges, obs.mission.goals, obs.players, first,
               delta, obs.hand)
        scores = obs.rulebook.memo.get(key)
        if scores is None:
            affinity = self._affinity(obs)
            if first is None:  # goal-number-number: for the best pair still possible
                sums = {x for f in set(obs.hand) for x in self._plan_sums(
                    obs, f, 0, [c for c in obs.hand if c != f])}
            else:
                sums = set(self._plan_sums(obs, first, delta, list(obs.hand)))
            scores = {g: max((affinity.get((g, x), 0.0) for x in sums), default=0.0)
                      for g in set(obs.mission.goals)}
            obs.rulebook.memo[key] = scores
        return self._pick(decision.choices, lambda g: scores.get(g.goal, 0.0))

    def _second(self, obs: Observation, decision: Decision) -> NumberCard:
        first, goal, _ = obs.table[obs.seat]
        plan = obs.rulebook.plan(obs.mission.challenges)
        delta = obs.deltas[obs.seat]
        sums = {c: seat_sum(plan, first, c, delta)[4] for c in decision.choices}
        chances = self._chances(obs, set(sums.values()), {goal.goal})
        return self._pick(decision.choices, lambda c: chances[(goal.goal, sums[c])])

    def _action(self, obs: Observation, decision: Decision) -> Any:
        """Use an action on its own cards when it raises its own chance by a clear margin."""
        table = obs.table
        hand = list(obs.hand)
        dists = self._other_sums(obs)

        def best(use: Any) -> float:
            used = [*obs.actions_used, use] if use is not None else list(obs.actions_used)
            firsts = [t[0] for t in table]
            goals = [t[1] for t in table]
            placed = arrange(firsts, goals, used[len(obs.actions_used):])
            first, goal = placed.firsts[obs.seat], placed.goals[obs.seat]
            delta = obs.deltas[obs.seat] + placed.deltas[obs.seat]
            own_hand = list(hand)
            if use is not None and use.card is Action.B:
                delta = 0  # S2: changes leave with the card
                own_hand.remove(use.replacement)
                own_hand.append(table[obs.seat][0])
            sums = set(self._plan_sums(obs, first, delta, own_hand))
            if not sums:
                return 0.0
            chances = self._chances(obs, sums, {goal.goal}, dists)
            return max(chances[(goal.goal, s)] for s in sums)

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
    """Plays for the group: its last card and its action maximise the chance that the ROUND
    succeeds (allowed failures, the super card and the hyper card included).

    That chance is exact over what it cannot see: every legal second card each other seat could
    still hold (by elimination, each equally likely) is weighed, and each complete table is
    judged by the referee's own goal stage (`referee.evaluate_goals`). Its first card and goal
    card are chosen as the greedy bot does, since the others' goals are still unknown then.
    """

    name = "coop"

    def choose(self, observation: Observation, decision: Decision) -> Any:
        if len(decision.choices) == 1:
            return decision.choices[0]
        if decision.kind is DecisionKind.SECOND_NUMBER:
            chances = self.round_chances(observation, list(decision.choices))
            return self._pick(decision.choices, lambda c: chances[c])
        if decision.kind is DecisionKind.ACTION:
            return self._coop_action(observation, decision)
        return super().choose(observation, decision)

    def round_chances(self, obs: Observation, mine: list[NumberCard],
                      extra_failures: int = 0) -> dict[NumberCard, float]:
        """P(round succeeds and the mission goes on | this seat plays each card of `mine`)."""
        plan = obs.rulebook.plan(obs.mission.challenges)
        table, deltas, n, me = obs.table, obs.deltas, obs.players, obs.seat
        hand = obs.hand
        unseen = self._unseen(obs, table)
        # What the others can tell of this seat's sums: its own hand is unseen to them.
        mine_unseen = unseen[obs.colors[me]]
        for card in hand:
            if card.color == obs.colors[me]:
                mine_unseen[card.value] = mine_unseen.get(card.value, 0) + 1
        supports = [_support(obs.rulebook, obs.mission.challenges, table[seat][0], deltas[seat],
                             obs.colors[seat], unseen[obs.colors[seat]]) for seat in range(n)]
        own = {c: seat_sum(plan, table[me][0], c, deltas[me])[4] for c in mine}
        ignored = frozenset(u.seat for u in obs.actions_used if u.card is Action.J)
        allowed = obs.mission.failures_allowed(n) + extra_failures + sum(
            1 for u in obs.actions_used if u.card is Action.H)
        by_sum = success_chances(obs.rulebook, [t[1].goal for t in table], ignored, allowed,
                                 obs.super_seat, obs.hyper_seat, me, supports,
                                 sorted(set(own.values())))
        return {card: by_sum[s] for card, s in own.items()}

    def _coop_action(self, obs: Observation, decision: Decision) -> Any:
        """H when the round is more likely lost than won; else an action on its own cards that
        raises the round's chance clearly."""
        hand = list(obs.hand)
        h = next((u for u in decision.choices[1:] if u.card is Action.H), None)
        if h is None or not hand:
            return None
        base = max(self.round_chances(obs, hand).values())
        if base < 0.5 and \
                max(self.round_chances(obs, hand, extra_failures=1).values()) > base + 0.15:
            return h
        return None


def _support(rulebook: Any, challenges: tuple[str, ...], first: NumberCard, delta: int,
             color: str, unseen: dict[int, int]) -> Support:
    """How many of a seat's possible second cards give each sum, keeping the challenges."""
    key = ("support", challenges, first, delta, color, tuple(unseen.items()))
    support = rulebook.memo.get(key)
    if support is None:
        plan = rulebook.plan(challenges)
        weights: dict[int, float] = {}
        for value, count in unseen.items():
            e = seat_sum(plan, first, NumberCard(value, color), delta)
            if count > 0 and not e[6]:
                weights[e[4]] = weights.get(e[4], 0.0) + count
        support = Support.of(weights or {0: 1.0})  # nothing legal left: R9 ends the mission
        rulebook.memo[key] = support
    return support


class OracleBot:
    """CHEATS: sees every hand and plays the joint play that best serves the group.

    An upper bound on what any group could reach, for the playtester's coordination gap. At
    the start of each round it searches (seat by seat, improving until nothing changes) for
    cards and goals that win the round, judging each candidate table with the referee; every
    seat reads the same plan.
    """

    name = "oracle"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, observation: Observation, decision: Decision) -> Any:
        if len(decision.choices) == 1:
            return decision.choices[0]
        game = observation._game  # the cheat: the whole game, hidden cards included
        kind = decision.kind
        if kind in (DecisionKind.FIRST_NUMBER, DecisionKind.GOAL, DecisionKind.SECOND_NUMBER):
            plan = _oracle_plan(game)
            first, goal, second = plan[decision.seat]
            wanted = {DecisionKind.FIRST_NUMBER: first, DecisionKind.GOAL: goal,
                      DecisionKind.SECOND_NUMBER: second}[kind]
            if wanted in decision.choices:
                return wanted
        if kind is DecisionKind.ACTION:
            return None
        if kind is DecisionKind.TAKE_BACK:
            return max(decision.choices)
        return self.rng.choice(decision.choices)


def _oracle_plan(game: Any) -> list[tuple[Any, Any, Any]]:
    """The round's joint play, computed once per round and shared by every oracle seat."""
    from synergy_forge.referee import SeatPlay, Table, settle

    key = ("oracle-plan", game.round_number)
    cached = getattr(game, "_oracle", None)
    if cached is not None and cached[0] == key:
        return cached[1]
    n = game.players
    plays_known = [(game.firsts[i], game.goals_played[i]) for i in range(n)]
    candidates = []
    for i in range(n):
        hand = sorted(set(game.hands[i]))
        goals = sorted(set(game.goal_hands[i]))
        firsts = [plays_known[i][0]] if plays_known[i][0] is not None else hand
        goal_options = [plays_known[i][1]] if plays_known[i][1] is not None else goals
        options = []
        for f in firsts:
            rest = list(game.hands[i])
            if plays_known[i][0] is None:
                rest.remove(f)
            for s in sorted(set(rest)):
                if game.plan.constraints and seat_sum(game.plan, f, s, 0)[6]:
                    continue
                for g in goal_options:
                    options.append((f, g, s))
        candidates.append(options or [(firsts[0], goal_options[0], sorted(set(game.hands[i]))[0]
                                       if game.hands[i] else firsts[0])])

    def score(choice: list[tuple[Any, Any, Any]]) -> tuple[int, int]:
        table = Table(tuple(SeatPlay(f, s, g.goal) for f, g, s in choice),
                      game.mission.challenges, game.allowed_failures, game.super_seat,
                      game.hyper_seat, (), game.colors)
        verdict = settle(table, game.rulebook)
        return (int(verdict.success and not verdict.lost_reasons), sum(verdict.met))

    current = [opts[0] for opts in candidates]
    best = score(current)
    for _ in range(4):
        improved = False
        for i in range(n):
            for option in candidates[i]:
                trial = [*current[:i], option, *current[i + 1:]]
                value = score(trial)
                if value > best:
                    best, current, improved = value, trial, True
            if best[0]:
                break
        if not improved or best[0]:
            break
    game._oracle = (key, current)
    return current


BOTS: dict[str, type] = {"random": RandomBot, "greedy": GreedyBot, "coop": CoopBot,
                         "oracle": OracleBot}


def make_bot(name: str, seed: int, seat: int) -> Bot:
    """A bot with its own generator, derived from the game's seed and its seat."""
    return BOTS[name](random.Random(f"{name}:{seed}:{seat}"))
