"""The public belief over hidden hands, and the round's policy every seat computes from it.

Where hands are dealt from decks (R2) no seat can count the others' hands, but every seat can
count which cards are still unseen, and so every hand each seat may hold: each deal of its
colour's unseen number cards (and goal cards) with its public hand size, weighted by how many
ways it can be dealt (R2: each deal equally likely). A *type* is one such hand.

`opening` answers, from public facts only, for every seat and every type it may hold, the
first card, the goal card and the second card it means to play: a joint policy of the round,
found by a chain of best responses (as SPARTA searches in Hanabi). It starts from a blueprint
(each seat any of its sums and any of its goals, equally likely); seat 0 best-responds to the
others, seat 1 to seat 0's answer and the others, and so on round the table, twice. Each
answer is exact over the others' types (the chance that the round succeeds, per sum and goal,
on a grid of every seat's possible sums; synergy_forge.sim.chances), so each link can only raise
the round's chance. A seat then plays its own part by looking up its own hand: every seat
computes the same policy, so each one knows what every type of every other seat plays.

Once card 1 and the goal lie face up, the policy says which types could have played them (the
posterior): `card3_chances` searches the last card over those, each seat's planned second card
the blueprint. A seat that did not follow the policy (a casual move at a lower skill) is
believed to hold any hand with the cards it showed.

The policy itself, and the chain that finds it, are synergy_forge.sim.policy's. Everything here
is a pure function of public facts: what it remembers, the mission model (sim.model) holds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from itertools import chain
from math import comb
from typing import Any

import numpy as np

from synergy_forge.core.cards import NUMBER_VALUES, Action, GoalCard, NumberCard, Order
from synergy_forge.core.observation import Observation
from synergy_forge.sim.chances import Support, grid_rules, success_chances
from synergy_forge.sim.convention import Rules, pair_options
from synergy_forge.sim.grid import NotOnGrid, Unsettled
from synergy_forge.sim.model import MissionModel
from synergy_forge.sim.policy import REPLY_PASSES, Opening, Solver, Type

_EACH_VALUE = Counter(NUMBER_VALUES)
#: What a memo's `get` gives for facts it does not hold (None is a value it holds).
_UNKNOWN: Any = object()


def dealt(model: MissionModel, pool: Sequence[tuple[Any, int]],
           size: int) -> tuple[tuple[tuple[Any, ...], int], ...]:
    """Every hand of `size` cards from `pool` ((item, copies) pairs, in order): per hand, how
    many of each item it holds, and its number of ways (R2: each deal equally likely)."""
    key = (tuple(pool), size)
    found = model.dealt.get(key)
    if found is not None:
        return found
    out: list[tuple[tuple[Any, ...], int]] = []

    def walk(i: int, left: int, held: tuple[int, ...], ways: int) -> None:
        if i == len(pool):
            if left == 0:
                out.append((held, ways))
            return
        copies = pool[i][1]
        for k in range(min(copies, left) + 1):
            walk(i + 1, left - k, (*held, k), ways * comb(copies, k))

    walk(0, size, (), 1)
    return model.dealt.remember(key, tuple(out))


def _start_facts(model: MissionModel, obs: Observation) -> tuple[Any, ...] | None:
    """The public facts the round's opening depends on, as they were when the round began
    (each seat's hand sizes before it played this round); None where the opening does not
    apply: a number card may have moved to another colour's seat (I in an earlier round), or
    an action this round changed the hands (A, B, C) or what was played (D, E, I)."""
    mission = obs.mission
    if Action.I in mission.actions and Action.I not in obs.actions_available and \
            all(u.card is not Action.I for u in obs.actions_used):
        return None
    if any(u.card in (Action.A, Action.B, Action.C, Action.D, Action.E, Action.I)
           for u in obs.actions_used):
        return None
    n, placed = obs.players, obs.placed
    direction = model.plan(obs.rulebook, mission.challenges).direction
    numbers = tuple(obs.hand_numbers[j] + (placed.firsts[j] is not None)
                    + (obs.seconds[j] is not None) for j in range(n))
    goals = tuple(obs.hand_goals[j] + (placed.goals[(j + direction) % n] is not None)
                  for j in range(n))
    rules = Rules(obs.rulebook, mission.challenges, mission.goals, n, direction,
                  mission.failures_allowed(n), obs.super_seat, obs.hyper_seat,
                  obs.rounds_won + 1 >= mission.rounds)
    return (rules, obs.colors, obs.discards, numbers, goals, obs.deck_numbers, obs.deck_goals)


def opening(model: MissionModel, obs: Observation) -> Opening | None:
    """The round's opening policy (see the module's docstring), or None where it does not
    apply (see `_start_facts`) or a goal's rule cannot run on the grid."""
    facts = _start_facts(model, obs)
    if facts is None:
        return None
    found = model.opening_policies.get(facts, _UNKNOWN)
    if found is not _UNKNOWN:
        return found
    return model.opening_policies.remember(facts, _opening(model, *facts))


def reply(model: MissionModel, obs: Observation) -> Opening | None:
    """The round's policy for card 2, once every seat's card 1 lies face up (its first number
    card, or its goal card when the goal comes first, R3): the opening's posterior (the
    hands each seat may hold, given what it showed and the opening) is searched again as the
    opening is, each seat's card 1 now fixed. None where the opening does not apply or card 1
    is not on the table."""
    policy = opening(model, obs)
    if policy is None:
        return None
    placed = obs.placed
    goal_first = obs.mission.order is Order.GOAL_NUMBER_NUMBER
    shown = tuple(g.goal if g is not None else None for g in placed.goals) if goal_first \
        else tuple(f.value if f is not None else None for f in placed.firsts)
    if None in shown or any(f is not None and f.color != obs.colors[j]
                            for j, f in enumerate(placed.firsts)):
        return None
    key = (_start_facts(model, obs), goal_first, shown)
    found = model.replies.get(key, _UNKNOWN)
    if found is not _UNKNOWN:
        return found
    return model.replies.remember(key, _reply(model, policy, obs.colors, goal_first, shown))


def _reply(model: MissionModel, policy: Opening, colors: tuple[str, ...], goal_first: bool,
           shown: tuple[Any, ...]) -> Opening | None:
    first = policy.solver
    rules, n = first.rules, first.n
    values = sorted(_EACH_VALUE)
    seat_options: list[list[Any]] = []
    goal_types: list[tuple[tuple[tuple[str, ...], int], ...]] = []
    type_ways: list[np.ndarray] = []
    for j in range(n):
        goals, rows = policy.plays[j]
        hs = np.arange(rows.shape[0])[:, None]
        ways = first.type_ways[j]
        held = first.number_types[j]
        if goal_first:
            # The goal seat j played lies in front of seat pos[j].
            g = shown[first.pos[j]]
            k = first.goal_at.get(g)
            posterior = ways * (goals == k) if k is not None else np.zeros_like(ways)
            if not posterior.any():  # it left the opening: any hand holding that goal
                posterior = ways * first.masks[j][:, k][None, :] if k is not None else ways
            per_hand, weights = [], []
            for h, counts in enumerate(held):
                weight = posterior[h].sum()
                if weight > 0:
                    per_hand.append((counts, weight, first.options[j][h]))
                    weights.append(weight)
            seat_options.append(per_hand)
            goal_types.append((((g,), 1),))
            type_ways.append(np.array(weights).reshape(-1, 1))
        else:
            f = shown[j]
            at = values.index(f)
            posterior = ways * (first.firsts[j][hs, rows] == f)
            if not posterior.any():  # it left the opening: any hand holding that card
                posterior = ways * np.array([c[at] > 0 for c in held])[:, None]
            per_hand, kept_rows = [], []
            cards = [NumberCard(v, colors[j]) for v in values]
            for h in np.flatnonzero(posterior.any(axis=1)).tolist():
                counts = held[h]
                left = list(counts)
                left[at] -= 1
                hand = tuple(card for card, c in zip(cards, left, strict=True)
                             for _ in range(c))
                found = pair_options(model, rules, hand, cards[at], 0)
                if found:  # else no legal card 3 (R9): the mission is lost
                    per_hand.append((counts, 0, found))
                    kept_rows.append(h)
            seat_options.append(per_hand)
            goal_types.append(first.goal_types[j])
            type_ways.append(posterior[kept_rows])
        if not seat_options[-1]:
            return None
    universe = tuple(sorted({g for seat in goal_types for held_goals, _ in seat
                             for g in held_goals}))
    axes = [tuple(sorted({o.sum for _, _, found in seat_options[j] for o in found}))
            for j in range(n)]
    try:
        return Solver(model, rules, universe, axes, seat_options, goal_types, type_ways,
                      goal_played=goal_first).solve(REPLY_PASSES)
    except (Unsettled, NotOnGrid):
        return None


def _opening(model: MissionModel, rules: Rules, colors: tuple[str, ...],
             discards: tuple[tuple[Any, ...], ...], numbers: tuple[int, ...],
             goals: tuple[int, ...], deck_numbers: tuple[int, ...],
             deck_goals: tuple[int, ...]) -> Opening | None:
    n = rules.players
    seen = Counter(chain.from_iterable(discards))
    goal_copies = Counter(rules.goals)
    values = sorted(_EACH_VALUE)
    # Per seat: its number hands (value counts, ways) and goal hands (distinct goals, ways).
    number_types, goal_types = [], []
    for j in range(n):
        color = colors[j]
        pool = [(v, _EACH_VALUE[v] - seen[NumberCard(v, color)]) for v in values]
        hands = dealt(model, pool, numbers[j])
        goal_pool = [(g, goal_copies[g] - seen[GoalCard(g, color)])
                     for g in sorted(goal_copies)]
        goal_hands = dealt(model, goal_pool, goals[j])
        if not hands or not goal_hands or numbers[j] < 2 or goals[j] < 1:
            return None  # R21: this seat cannot play a round
        number_types.append(hands)
        goal_types.append(tuple((tuple(g for (g, _), k in zip(goal_pool, held, strict=True)
                                       if k), ways) for held, ways in goal_hands))
    universe = tuple(sorted({g for seat in goal_types for held, _ in seat for g in held}))
    on_grid = grid_rules(model, rules.rulebook)
    if any(on_grid.get(g) is None for g in universe):
        return None  # a campaign's goal the grid cannot run: the coop bot's opening
    # Per seat, per number hand: its options (per sum, the pair leaving the best hand).
    seat_options = []
    for j in range(n):
        color = colors[j]
        per_hand = []
        cards = [NumberCard(v, color) for v in values]
        for held, ways in number_types[j]:
            hand = tuple(card for card, k in zip(cards, held, strict=True) for _ in range(k))
            found = pair_options(model, rules, hand, None, 0)
            if found:  # else no legal pair (R9): the mission is lost whatever is played
                per_hand.append((held, ways, found))
        if not per_hand:
            return None
        seat_options.append(per_hand)
    axes = [tuple(sorted({o.sum for _, _, found in seat_options[j] for o in found}))
            for j in range(n)]
    try:
        return Solver(model, rules, universe, axes, seat_options, goal_types).solve()
    except (Unsettled, NotOnGrid):  # a rule left unsettled on some table: the coop bot's
        return None


def own_type(model: MissionModel, obs: Observation) -> Type | None:
    """This seat's type as the round began: its hands, with the cards it played this round
    back in them; None when it holds a card of another colour."""
    me, placed = obs.seat, obs.placed
    color = obs.colors[me]
    cards = list(obs.hand)
    if placed.firsts[me] is not None:
        cards.append(placed.firsts[me])
    if any(c.color != color for c in cards):
        return None
    counts = Counter(c.value for c in cards)
    direction = model.plan(obs.rulebook, obs.mission.challenges).direction
    goal_cards = list(obs.goal_hand)
    played = placed.goals[(me + direction) % obs.players]
    if played is not None:
        goal_cards.append(played)
    return (tuple(counts[v] for v in sorted(_EACH_VALUE)),
            tuple(sorted({g.goal for g in goal_cards})))


def planned(model: MissionModel, obs: Observation) -> tuple[int, str, int] | None:
    """This seat's part of the round's policy: (first value, goal id, second value), by the
    reply once every card 1 is on the table, else by the opening."""
    policy = reply(model, obs) or opening(model, obs)
    mine = own_type(model, obs)
    if policy is None or mine is None:
        return None
    return policy.play(obs.seat, mine)


def card3_chances(model: MissionModel, obs: Observation) -> tuple[dict[int, float], ...] | None:
    """Card 3 as a chain of searches over the posterior: per seat, P(the round succeeds | its
    sum), when the seats before it (in seat order) play their searched card and those after
    it their planned second card, each from every hand the opening says it may hold after
    what it showed. None where the opening does not apply."""
    policy = reply(model, obs) or opening(model, obs)
    if policy is None:
        return None
    placed, n = obs.placed, obs.players
    key = (_start_facts(model, obs), placed, obs.mission.failures_allowed(n))
    found = model.posterior_chains.get(key, _UNKNOWN)
    if found is not _UNKNOWN:
        return found
    return model.posterior_chains.remember(key, _card3(model, obs, policy))


def _card3(model: MissionModel, obs: Observation,
           policy: Opening) -> tuple[dict[int, float], ...] | None:
    n, colors = obs.players, obs.colors
    placed = obs.placed
    pairs = model.pairs(obs.rulebook, obs.mission.challenges)
    direction = pairs.plan.direction
    unseen = unseen_numbers(obs)  # for a seat that did not follow the opening
    legal: list[dict[int, int]] = []  # per seat: card value -> its sum, for legal cards
    uniform: list[Support] = []
    deals: list[list[tuple[frozenset[int], int | None, float]]] = []
    for j in range(n):
        first = placed.firsts[j]
        if first is None or first.color != colors[j]:
            return None
        pool = unseen[colors[j]]
        found = legal_sums(pool, colors[j], first, placed.deltas[j],
                           lambda *cards_and_delta: pairs[cards_and_delta])
        if found is None:
            return None
        legal.append(found[0])
        uniform.append(found[1])
        goal = placed.goals[(j + direction) % n]
        shown = policy.shown(j, first.value, goal.goal) if goal is not None else None
        if shown:
            deals.append([(held, second, ways) for (held, second), ways in shown.items()])
        else:  # it did not follow the opening: any hand of its colour's unseen cards
            size = obs.hand_numbers[j]
            items = [(v, pool[v]) for v in sorted(pool) if pool[v] > 0]
            deals.append([(frozenset(v for (v, _), k in zip(items, held, strict=True) if k),
                           None, ways) for held, ways in dealt(model, items, size)])

    def played(j: int, chance: dict[int, float] | None) -> Support | None:
        """Seat j's sum when each hand plays its planned card (`chance` None: where the plan
        is kept and legal; else by the uniform blueprint) or its best card by `chance`."""
        sums = legal[j]
        axis = uniform[j].sums
        weights = dict.fromkeys(axis, 0.0)
        fallback = chance if chance is not None else seat_chances(model, obs, j, uniform, axis)
        order = sorted(sums, key=lambda v: (fallback[sums[v]], v), reverse=True)
        for held, second, ways in deals[j]:
            if chance is None and second is not None and second in held and second in sums:
                weights[sums[second]] += ways
                continue
            for v in order:
                if v in held:
                    weights[sums[v]] += ways
                    break
        return Support.of(weights) if any(weights.values()) else None

    return search_chain(model, obs, uniform, played, lambda j: played(j, None))


def unseen_numbers(obs: Observation) -> dict[str, Counter[int]]:
    """Each seat colour's number cards that no one has seen: not discarded, not face up."""
    unseen = {color: Counter(_EACH_VALUE) for color in obs.colors}
    for card in chain(chain.from_iterable(obs.discards), obs.placed.firsts, obs.seconds):
        if isinstance(card, NumberCard) and card.color in unseen:
            unseen[card.color][card.value] -= 1
    return unseen


def legal_sums(pool: Counter[int], color: str, first: NumberCard | None, delta: int,
               pair: Callable[[NumberCard | None, NumberCard, int], tuple[int, bool]]
               ) -> tuple[dict[int, int], Support] | None:
    """For each unseen card of `pool` that keeps the pair legal after `first` (`pair`: the
    pair's sum, and whether it breaks a challenge), its sum; and those sums weighted by how
    many such cards are unseen. None when no card is legal."""
    sums: dict[int, int] = {}
    for value in sorted(v for v, k in pool.items() if k > 0):
        total, broken = pair(first, NumberCard(value, color), delta)
        if not broken:
            sums[value] = total
    weights: dict[int, float] = {}
    for value, total in sums.items():
        weights[total] = weights.get(total, 0.0) + pool[value]
    return (sums, Support.of(weights)) if weights else None


def seat_chances(model: MissionModel, obs: Observation, j: int, supports: Sequence[Support],
                 axis: Sequence[int]) -> dict[int, float]:
    """P(the round succeeds | seat j's sum), for each sum on `axis`, the other seats' sums
    distributed by `supports`."""
    placed = obs.placed
    return success_chances(model, obs.rulebook, tuple(g.goal for g in placed.goals),
                           placed.ignored,
                           obs.mission.failures_allowed(obs.players) + placed.extra_failures,
                           obs.super_seat, obs.hyper_seat, j, supports, axis,
                           remember=False)


def search_chain(model: MissionModel, obs: Observation, uniform: Sequence[Support],
                 played: Callable[[int, dict[int, float]], Support | None],
                 first: Callable[[int], Support | None] | None = None
                 ) -> tuple[dict[int, float], ...] | None:
    """Card 3's chain of searches (SPARTA's): seat 0 best-responds to every other seat's first
    play, seat 1 to seat 0's search and the others' first play, and so on, so that each link
    can only raise the round's chance. `played(j, chance)`: seat j's sum when each hand it may
    hold plays its best legal card by `chance`; `first(j)`: seat j's sum before the search
    (None: its best card against the others' `uniform` sums). Per seat, the chances it
    searched with; None when some seat has no legal card in any hand."""
    plays: list[Support] = []
    for j in range(obs.players):
        blueprint = first(j) if first is not None \
            else played(j, seat_chances(model, obs, j, uniform, uniform[j].sums))
        if blueprint is None:
            return None
        plays.append(blueprint)
    tables = []
    for j in range(obs.players):
        chance = seat_chances(model, obs, j, plays, uniform[j].sums)
        tables.append(chance)
        searched = played(j, chance)
        if searched is None:
            return None
        plays[j] = searched
    return tuple(tables)
