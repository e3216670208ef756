"""The expert at a mixed table: the convention among experts, a best response to novices.

Who sits where is public at a real table: people know who is new. So an expert seated beside
novices (the skill ladder's mixed tables, sim.ladder) knows which seats follow the convention
and which play at random (sim.novice), and plans for that. An expert that planned as if every
seat followed the plan (sim.expert alone) counted on a novice landing on one card; a
constraint challenge narrows a novice's legal cards, so taking one away made the novice miss
the plan more often, and a mission without the constraint rated harder than with it.

Where every hand is counted from the face-up cards (`expert.public_hands`), every expert
computes the same reply (`reply`: public facts, fixed tie-breaks, a fixed sample) and plays
its part of it:
- a novice's sum is a distribution: its first card as it lies, else any card of its hand that
  has a legal card 3 (as sim.novice picks), then any legal card 3, each equally likely; the
  goal it gives is any distinct goal card of its goal hand, equally likely;
- the experts choose together, for each of them, a sum (the pair that reaches it keeping the
  best hand, as the convention's `pair_options`) and the goals they give, to maximise the chance
  that the round succeeds (allowed failures, the super and hyper cards: R16) over the novices'
  sums and goals, every table of sums weighed exactly (the goals met on each read from a table
  per mission, worked out by the goals' grid rules, sim.chances), plus a hundredth of what the
  hands left are worth for later rounds (`policy.LATER`, as the deck policy weighs them: an
  expert that misses its goal in a won round keeps no card, R17). On chance alone, experts let
  themselves miss wherever failures were allowed, and spent hands until a later round had no
  legal card 3: a failure more allowed then rated a mission harder.
Each of card 1, the goal and card 3 asks again with what lies on the table, so card 3 is an
exact best response to every first card and goal. The goals are chosen by coordinate ascent,
position by position, committing to the sums with them; at card 1 they are not chosen yet
(they will be, seeing every first card), so each expert's goal is weighed as any of its goal
cards: card 1 keeps open the sums that serve many goals. Where the novices' joint sums are
many (card 1 beside several novices) a fixed stratified sample of them stands for all; where
the experts' are, they too are chosen by coordinate ascent, seat by seat.

With no novice at the table the expert is sim.expert's, move for move; so is every decision
where the reply is not computed (hands not counted, a goal the grid cannot run) and the action
step, the take-back and the super and hyper cards.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from synergy_forge.core.cards import GoalCard, NumberCard, Order
from synergy_forge.core.choices import Decision, DecisionKind
from synergy_forge.core.observation import Observation
from synergy_forge.core.rules import Rulebook
from synergy_forge.sim.chances import Grid, grid_rules
from synergy_forge.sim.convention import Rules, goal_ease, pair_options
from synergy_forge.sim.expert import ExpertBot, public_hands, rules_of
from synergy_forge.sim.grid import NotOnGrid, Unsettled
from synergy_forge.sim.model import MissionModel
from synergy_forge.sim.policy import LATER

#: A novice's name in a table's seating (sim.ladder's NOVICE, sim.bots' key).
NOVICE = "novice"
#: Tables of sums weighed at once, at most: beyond, the experts' sums are found seat by seat.
GRID_LIMIT = 8000
#: The novices' joint sums are all weighed up to this many, else SAMPLE of them stand for all.
NOVICE_LIMIT = 729
SAMPLE = 128
#: Passes of a coordinate ascent (goals, or the experts' sums), at most.
PASSES = 3
#: Worths this close are equal (single floats): the tie goes to the hands kept.
TIE = 1e-6
#: A table of goals met is kept up to this many cells (seats x tables of sums).
TABLE_LIMIT = 2_000_000

_UNKNOWN: Any = object()
#: How many bits are set in a byte: of a set of goals, how many are met.
_ONES = np.array([bin(b).count("1") for b in range(256)], dtype=np.float32)
#: Every byte: `_share` of it is a look-up table of the share met per byte of goals met.
_BYTES = np.arange(256, dtype=np.uint8)
#: The fixed draws of the novices' sample: per draw, per seat, a uniform number (stratified:
#: each seat's SAMPLE numbers fall one in each SAMPLE-th of [0, 1)).
_DRAWS = np.array([[(k + 0.5) / SAMPLE for k in random.Random(seat).sample(range(SAMPLE), SAMPLE)]
                   for seat in range(8)]).T

#: A reply: per seat, (first, goal card, second) for an expert, None for a novice.
Reply = tuple[tuple[NumberCard, GoalCard | None, NumberCard] | None, ...]


class MixedExpertBot(ExpertBot):
    """The expert, told who sits where: a best response to the novices (module docstring)."""

    name = "expert"

    def __init__(self, rng: random.Random, memory: Any = None,
                 model: MissionModel | None = None) -> None:
        super().__init__(rng, memory, model)
        self.novices: frozenset[int] = frozenset()

    def seated(self, names: Sequence[str]) -> None:
        """Who sits where, public at a table (sim.play tells every bot): the seats named
        novice play at random."""
        self.novices = frozenset(i for i, name in enumerate(names) if name == NOVICE)

    def play(self, obs: Observation, decision: Decision) -> Any:
        part = _PART.get(decision.kind)
        if self.novices and part is not None:
            found = reply(self.model, obs, self.novices)
            mine = None if found is None else found[obs.seat]
            if mine is not None and mine[part] in decision.choices:
                return mine[part]
        return super().play(obs, decision)


_PART = {DecisionKind.FIRST_NUMBER: 0, DecisionKind.GOAL: 1, DecisionKind.SECOND_NUMBER: 2}


def reply(model: MissionModel, obs: Observation, novices: frozenset[int]) -> Reply | None:
    """The experts' best response to the novices for the rest of the round (the module's
    docstring), or None where it is not computed.

    Where goal cards are left in decks, no seat knows another's goal hand: the experts agree
    on their sums from public facts alone (every seat's goals any of its unseen ones, this
    seat's too), and then each chooses its own goal, from its own hand, for those sums."""
    known = public_hands(model, obs)
    if known is None:
        return None
    hands, pools, goals_known = known
    rules = rules_of(model, obs)
    placed = obs.placed
    n = rules.players
    # Card 1 of number-goal-number: the goals are chosen at card 2, seeing every first card.
    opening = obs.mission.order is Order.NUMBER_GOAL_NUMBER and \
        all(f is None for f in placed.firsts)
    round_ = (rules, hands, placed.firsts, placed.deltas, placed.goals, placed.ignored, novices)
    choosing = frozenset() if opening or not goals_known else frozenset(
        p for p in range(n) if placed.goals[p] is None
        and (p - rules.direction) % n not in novices)
    found = _cached(model, round_, pools, choosing, ())
    me = obs.seat
    lands = (me + rules.direction) % n
    if goals_known or opening or found is None or placed.goals[lands] is not None:
        return found
    mine = found[me]
    assert mine is not None
    own = (*pools[:me], obs.goal_hand, *pools[me + 1:])
    settled = tuple((j, (play[0], play[2])) for j, play in enumerate(found) if play)
    chosen = _cached(model, round_, own, frozenset({lands}), settled)
    own_play = None if chosen is None else chosen[me]
    goal = None if own_play is None else own_play[1]
    return (*found[:me], (mine[0], goal, mine[2]), *found[me + 1:])


def _cached(model: MissionModel, round_: tuple[Any, ...],
            goal_hands: tuple[tuple[GoalCard, ...], ...], choosing: frozenset[int],
            settled: tuple[tuple[int, Any], ...]) -> Reply | None:
    key = (round_, goal_hands, choosing, settled)
    found = model.mixed_replies.get(key, _UNKNOWN)
    if found is _UNKNOWN:
        try:
            rules, hands, firsts, deltas, goals, ignored, novices = round_
            found = _reply(model, rules, hands, firsts, deltas, goals, ignored, novices,
                           goal_hands, choosing, dict(settled))
        except (Unsettled, NotOnGrid):  # a campaign's goal the grid cannot settle
            found = None
        model.mixed_replies.remember(key, found)
    return found


def novice_sums(model: MissionModel, rulebook: Rulebook, challenges: tuple[str, ...],
                hand: Sequence[NumberCard], first: NumberCard | None,
                delta: int) -> dict[int, float]:
    """A novice's sum and its chance: its first card as it lies (else any card of its hand
    with a legal card 3, as sim.novice picks), then any legal card 3, each equally likely."""
    pairs = model.pairs(rulebook, challenges)
    shares = []
    for f in [first] if first is not None else sorted(set(hand)):
        rest = list(hand)
        if first is None:
            rest.remove(f)
        sums = []
        for s in sorted(set(rest)):
            total, broken = pairs[f, s, delta if first is not None else 0]
            if not broken:
                sums.append(total)
        if sums:
            shares.append(sums)
    out: dict[int, float] = {}
    for sums in shares:
        for total in sums:
            out[total] = out.get(total, 0.0) + 1.0 / (len(sums) * len(shares))
    return out


def _novices(model: MissionModel, rules: Rules, hands: tuple[tuple[NumberCard, ...], ...],
             firsts: tuple[NumberCard | None, ...], deltas: tuple[int, ...],
             novices: frozenset[int]) -> tuple[np.ndarray, np.ndarray, set[int]] | None:
    """The novices' joint sums and their chances (`_joint`) and every sum among them; None
    when a novice has no legal pair. Remembered: a round's replies ask it again and again."""
    seats = sorted(novices)
    key = (rules.rulebook, rules.challenges, tuple((hands[j], firsts[j], deltas[j])
                                                   for j in seats))
    found = model.mixed_novices.get(key, _UNKNOWN)
    if found is _UNKNOWN:
        spread = [novice_sums(model, rules.rulebook, rules.challenges, hands[j], firsts[j],
                              deltas[j]) for j in seats]
        if all(spread):
            rows, weights = _joint(spread)
            found = (rows, weights, {int(v) for v in np.unique(rows)})
        else:
            found = None
        model.mixed_novices.remember(key, found)
    return found


def _joint(sums: list[dict[int, float]]) -> tuple[np.ndarray, np.ndarray]:
    """The novices' joint sums (a row per table, a column per novice) and each row's chance:
    every combination while they are few, else SAMPLE rows drawn by the fixed stratified
    draws, each as likely."""
    axes = [sorted(s) for s in sums]
    if int(np.prod([len(a) for a in axes])) <= NOVICE_LIMIT:
        rows = np.array(list(itertools.product(*axes)), dtype=np.int64).reshape(-1, len(axes))
        chance: Any = np.ones(())
        for s, axis in zip(sums, axes, strict=True):  # in itertools.product's order
            chance = np.multiply.outer(chance, [s[v] for v in axis])
        return rows, chance.reshape(-1) / chance.sum()
    columns = []
    for j, (s, axis) in enumerate(zip(sums, axes, strict=True)):
        cumulative = np.cumsum([s[v] for v in axis])
        at = np.searchsorted(cumulative / cumulative[-1], _DRAWS[:, j], side="right")
        columns.append(np.asarray(axis)[np.minimum(at, len(axis) - 1)])
    return np.stack(columns, axis=1), np.full(SAMPLE, 1.0 / SAMPLE)


def _reply(model: MissionModel, rules: Rules, hands: tuple[tuple[NumberCard, ...], ...],
           firsts: tuple[NumberCard | None, ...], deltas: tuple[int, ...],
           goals: tuple[GoalCard | None, ...], ignored: frozenset[int], novices: frozenset[int],
           goal_hands: tuple[tuple[GoalCard, ...], ...], choosing: frozenset[int],
           settled: dict[int, tuple[NumberCard, NumberCard]]) -> Reply | None:
    """The reply: goals searched at the positions `choosing` (the others' any of
    `goal_hands`), the sums of the experts in `settled` as given (their (first, second))."""
    n, rulebook = rules.players, rules.rulebook
    experts = [j for j in range(n) if j not in novices]
    options = {j: tuple(o for o in pair_options(model, rules, hands[j], firsts[j], deltas[j])
                        if j not in settled or (o.first, o.second) == settled[j])
               for j in experts}
    joint = _novices(model, rules, hands, firsts, deltas, novices)
    if not all(options.values()) or joint is None:
        return None  # a seat has no legal pair: the mission is lost whatever is played
    rows, weights, novice_totals = joint
    # Which goal may lie at each position: the one lying there, a goal an expert chooses, or
    # any of the owner's (R4: the owner of position p plays the goal that lands there).
    ease = goal_ease(model, rules)
    owner = [(p - rules.direction) % n for p in range(n)]
    chosen: dict[int, tuple[GoalCard, ...]] = {}  # position -> the goals its expert may give
    anyof: dict[int, tuple[GoalCard, ...]] = {}  # position -> its goal, any of these
    for p in range(n):
        lying = goals[p]
        if lying is not None:
            anyof[p] = (lying,)
            continue
        distinct = {g.goal: g for g in sorted(goal_hands[owner[p]])}
        if not distinct:
            return None
        # The hardest first, as the plan's (spent while it works, the easy ones kept).
        cards = tuple(sorted(distinct.values(), key=lambda g: (ease.get(g.goal, 0.0), g.goal)))
        if p in choosing:
            chosen[p] = cards
        else:
            anyof[p] = cards
    universe = tuple(sorted(set(rules.goals) | {g.goal for cards in
                                                 (*chosen.values(), *anyof.values())
                                                 for g in cards}))
    if any(grid_rules(model, rulebook).get(g) is None for g in universe):
        return None
    table = _met_table(model, rulebook, universe, n, ignored,
                       {o.sum for found in options.values() for o in found} | novice_totals)
    if table is None:
        return None
    bit = {g: 1 << k for k, g in enumerate(universe)}
    counted = [p not in ignored for p in range(n)]
    must = {s for s in (rules.super_seat, rules.hyper_seat) if s is not None}
    kept_of = {j: np.array([o.kept for o in options[j]]) for j in experts}
    lost_of = {j: np.array([o.lost for o in options[j]]) for j in experts}
    # Each seat's sums as places in the table of goals met (base: the sums it covers), the
    # place of a table being sum(seat j's place x base ** (n - 1 - j)) (`_met_table`).
    base = len(table[0])
    weight = [base ** (n - 1 - j) for j in range(n)]
    places = {j: np.searchsorted(table[0], [o.sum for o in options[j]]) * weight[j]
              for j in experts}
    k = len(experts)
    # The novices' part of every table's place, along the rows' axis (after the experts').
    novice_place: Any = 0
    for c, j in enumerate(sorted(novices)):
        novice_place = novice_place + np.searchsorted(table[0], rows[:, c]) * weight[j]
    novice_place = np.asarray(novice_place).reshape([1] * k + [-1])
    every = {j: np.arange(len(options[j])) for j in experts}
    # Of the goals that may lie at a position not chosen, which (bits) and how many.
    anyof_mask = {p: (sum(bit[g.goal] for g in cards), len(cards)) for p, cards in anyof.items()}
    # A view of the grid: per expert, None (every option on its axis) or the one option
    # weighed. The goals met on the view last weighed, each position's share of them per
    # goals, the hands kept per view and the worths per (view, goals): the coordinate ascent
    # asks the same views again and again, changing one goal or one seat at a time.
    grids: dict[tuple[int | None, ...], np.ndarray] = {}
    shares: dict[tuple[int, int, int], np.ndarray] = {}
    kepts: dict[tuple[int | None, ...], np.ndarray] = {}
    worths: dict[tuple[Any, ...], np.ndarray] = {}
    # Per (goals as bits, how many): the share met of each byte of goals met (`_share`).
    lookups: dict[tuple[int, int], np.ndarray] = {}

    def axes(view: tuple[int | None, ...]) -> dict[int, np.ndarray]:
        return {j: every[j] if v is None else every[j][v:v + 1]
                for j, v in zip(experts, view, strict=True)}

    def lookup(mask: int, size: int) -> np.ndarray:
        found = lookups.get((mask, size))
        if found is None:
            found = lookups[(mask, size)] = _share(_BYTES, mask, size)
        return found

    def chances(view: tuple[int | None, ...], pick: dict[int, int], free: int | None
                ) -> list[np.ndarray]:
        """P(the seat at each position meets its goal) over the grid `view` of the experts'
        options, whose last axis is the novices' rows; goals as `pick` says, and every goal
        of position `free` along one more axis."""
        met = grids.get(view)
        if met is None:
            grids.clear()
            shares.clear()
            index = axes(view)
            place: Any = 0
            for i, j in enumerate(experts):
                at = places[j][index[j]]
                place = place + at.reshape([len(at) if m == i else 1 for m in range(k)] + [1])
            met = grids[view] = table[1][:, place + novice_place]
        small = met.dtype == np.uint8  # a byte per table: each share is a look-up

        def share(p: int, mask: int, size: int) -> np.ndarray:
            found = shares.get((p, mask, size))
            if found is None:
                found = shares[(p, mask, size)] = \
                    lookup(mask, size)[met[p]] if small else _share(met[p], mask, size)
            return found

        out = []
        for p in range(n):
            if p == free:
                if small:  # every goal's share at once, along the last axis
                    every_goal = np.stack([lookup(bit[g.goal], 1) for g in chosen[p]], -1)
                    out.append(every_goal[met[p]])
                else:
                    out.append(np.stack([share(p, bit[g.goal], 1) for g in chosen[p]], -1))
                continue
            if p in chosen:
                mask, size = bit[chosen[p][pick[p]].goal], 1
            else:
                mask, size = anyof_mask[p]
            out.append(share(p, mask, size))
        return out

    def values(view: tuple[int | None, ...], pick: dict[int, int], free: int | None = None
               ) -> np.ndarray:
        """The worth of the experts' options (and per goal of `free`, last axis), the
        novices' rows weighed out: P(the round succeeds), plus LATER times each expert's
        hand left, the hand it keeps less what it loses when the round is won without its
        goal (R17: it takes no card back), that chance taken as P(it misses) x P(won)."""
        if free is None and chosen:
            # Read off a weighing with a goal free (the ascent's, or one made here): every
            # worth then comes out of the same sums, and the ascent's first and last
            # weighings are the ones it makes anyway.
            for p in chosen:
                found = worths.get((view, p, *(-1 if q == p else g for q, g in pick.items())))
                if found is not None:
                    return found[..., pick[p]]
            p = next(iter(chosen))
            return values(view, pick, p)[..., pick[p]]
        key = (view, free, *(-1 if p == free else g for p, g in pick.items()))
        found = worths.get(key)
        if found is not None:
            return found
        met = chances(view, pick, free)
        chance = _succeeds(met, counted, must, rules.allowed, free)
        # P(won, j missing) is taken as P(j misses) x P(won): one DP, not one per expert.
        index = axes(view)
        lost: Any = 0.0  # along the experts' axes only (the rows' weights sum to 1)
        lost_free: Any = 0.0  # the free position's own, along the goals' axis too
        for i, j in enumerate(experts):
            if counted[j]:
                shape = [len(index[j]) if m == i else 1 for m in range(k)]
                spent = kept_of[j][index[j]] - lost_of[j][index[j]]
                if j != free:
                    lost = lost + spent.reshape([*shape, 1]) * (1 - met[j])
                else:  # the goals' axis, after the rows'
                    lost_free = spent.reshape([*shape, 1, 1]) * (1 - met[j])
        if free is not None:
            lost = np.asarray(lost)[..., None] + lost_free
        success = chance * (1 - LATER * lost)
        kept = kept_on(view)
        if free is None:
            found = success @ weights + LATER * kept
        else:
            found = np.einsum("...rg,r->...g", success, weights) + LATER * kept[..., None]
        worths[key] = found
        return found

    def kept_on(view: tuple[int | None, ...]) -> np.ndarray:
        """The experts' hands kept, summed, over the grid `view` (the experts' axes)."""
        found = kepts.get(view)
        if found is None:
            found = np.zeros([len(options[j]) if v is None else 1
                              for j, v in zip(experts, view, strict=True)])
            for i, (j, v) in enumerate(zip(experts, view, strict=True)):
                axis = kept_of[j] if v is None else kept_of[j][v:v + 1]
                found = found + axis.reshape([len(axis) if m == i else 1 for m in range(k)])
            kepts[view] = found
        return found

    def best(value: np.ndarray, view: tuple[int | None, ...]
             ) -> tuple[tuple[float, float], tuple[int, ...]]:
        """The experts' options (places on `view`'s axes) with the best worth (`values`),
        then the best hands kept, then the first: ((worth, kept), their places on the axes)."""
        kept = kept_on(view)
        top = float(value.max())
        flat = int(np.argmax(np.where(value >= top - TIE, kept, -np.inf)))
        at = np.unravel_index(flat, value.shape)
        return (round(top, 6), float(kept[at])), tuple(int(i) for i in at)

    # Coordinate ascent: the goals position by position, and where the experts' sums are too
    # many to weigh at once, each expert's sum too (from the hands they keep best). It stops
    # once every coordinate has been tried since the last move, or after PASSES rounds of
    # them.
    exhaustive = int(np.prod([len(options[j]) for j in experts])) * len(rows) <= GRID_LIMIT
    choice = {j: int(np.argmax(kept_of[j])) for j in experts}
    pick = {p: 0 for p in chosen}

    def now() -> tuple[int | None, ...]:
        return tuple(None if exhaustive else choice[j] for j in experts)

    score = best(values(now(), pick), now())[0]
    coordinates = [*([] if exhaustive else experts), *(-1 - p for p in chosen)]
    still = tried = 0
    while still < len(coordinates) and tried < PASSES * len(coordinates):
        coordinate = coordinates[tried % len(coordinates)]
        tried += 1
        moved = False
        if coordinate >= 0:  # an expert's sum: its whole axis, the others' as chosen
            j = coordinate
            view = tuple(None if i == j else choice[i] for i in experts)
            trial, at = best(values(view, pick), view)
            if trial > score:
                score, choice[j], moved = trial, at[experts.index(j)], True
        else:  # the goal given at position p
            p = -1 - coordinate
            by_goal = values(now(), pick, p)
            # Each goal's `best`, all at once: its top worth, and the best hands kept there.
            flat = by_goal.reshape(-1, by_goal.shape[-1])
            tops = flat.max(axis=0)
            kept = np.broadcast_to(kept_on(now()).reshape(-1, 1), flat.shape)
            keeps = np.where(flat >= tops - TIE, kept, -np.inf).max(axis=0)
            for g, (top, keep) in enumerate(zip(tops.tolist(), keeps.tolist(), strict=True)):
                trial = (round(top, 6), keep)
                if trial > score:
                    score, pick[p], moved = trial, g, True
        still = 0 if moved else still + 1
    if exhaustive:
        _, at = best(values(now(), pick), now())
        choice = {j: at[i] for i, j in enumerate(experts)}
    out: list[tuple[NumberCard, GoalCard | None, NumberCard] | None] = [None] * n
    for j in experts:
        option = options[j][choice[j]]
        lands = (j + rules.direction) % n
        out[j] = (option.first, chosen[lands][pick[lands]] if lands in chosen else None,
                  option.second)
    return tuple(out)


def _share(met: np.ndarray, mask: int, size: int) -> np.ndarray:
    """Of `size` goals (bits `mask`), the share met on each table (single floats)."""
    if met.dtype == np.uint8:
        return np.asarray(_ONES[met & mask] / np.float32(size))
    count: Any = sum(((met & (1 << b)) > 0).astype(np.float32) for b in range(32)
                     if mask >> b & 1)
    return np.asarray(count / np.float32(size))


def _succeeds(chances: list[np.ndarray], counted: list[bool], must: set[int],
              allowed: int, free: int | None = None) -> np.ndarray:
    """P(at most `allowed` counted seats miss their goal and the `must` seats meet theirs),
    each seat meeting its goal independently with its chance (R16). With `free`, that
    position's chances have one more axis (a goal each) and so has the answer: the others
    are tallied once, and the answer is linear in the free position's chance."""
    if free is not None and not counted[free]:
        return _succeeds(chances, counted, must, allowed)[..., None]
    seats = [p for p in range(len(chances)) if counted[p] and p != free]
    out: Any = np.float32(1.0)
    for p in seats:
        if p in must:
            out = out * chances[p]
    others = [p for p in seats if p not in must]
    if free is None or free in must:
        if allowed < len(others):
            out = out * sum(_exactly(chances, others, allowed), np.float32(0.0))
        return out if free is None else out[..., None] * chances[free]
    # P(at most `allowed` misses) = P(others: at most allowed - 1) + met x P(exactly allowed)
    exactly = _exactly(chances, others, allowed)
    below = sum(exactly[:allowed], np.float32(0.0))
    at = exactly[allowed] if allowed < len(exactly) else np.float32(0.0)
    return np.asarray(out * below)[..., None] + np.asarray(out * at)[..., None] * chances[free]


def _exactly(chances: list[np.ndarray], seats: list[int], most: int) -> list[Any]:
    """Per c <= `most` (and c <= how many `seats`), P(exactly c of `seats` miss their goal),
    each independently."""
    if most == 0:  # every one met: the product
        met_all: Any = np.float32(1.0)
        for p in seats:
            met_all = met_all * chances[p]
        return [met_all]
    if not seats:
        return [np.float32(1.0)]
    most = min(most, len(seats))
    shapes = {chances[p].shape for p in seats}
    shape = shapes.pop() if len(shapes) == 1 else np.broadcast_shapes(*shapes)
    # P(exactly c misses so far), one row per c <= most: after the first seat, its chance
    # to meet and to miss.
    exactly = np.zeros((most + 1, *shape), dtype=np.float32)
    first = chances[seats[0]]
    exactly[0] = first
    exactly[1] = np.float32(1) - first
    for p in seats[1:]:
        met = chances[p]
        missed = exactly[:-1] * (np.float32(1) - met)
        exactly *= met
        exactly[1:] += missed
    return list(exactly)


def _met_table(model: MissionModel, rulebook: Rulebook, universe: tuple[str, ...], n: int,
               ignored: frozenset[int], wanted: set[int]
               ) -> tuple[tuple[int, ...], np.ndarray] | None:
    """The sums covered and, per seat, the goals of `universe` met (bits) on every table of
    them (flattened, the first seat's sum the most significant): kept per mission and player
    count, made again with more sums when one not covered comes. None: too many sums."""
    key = (rulebook, universe, n, ignored)
    found = model.mixed_met.get(key)
    if found is not None and wanted <= set(found[0]):
        return found
    values = tuple(sorted(wanted | set(found[0] if found else ())))
    if len(values) ** n * n > TABLE_LIMIT:  # more sums than a table is kept for
        values = tuple(sorted(wanted))
        if len(values) ** n * n > TABLE_LIMIT:
            return None
    shape = (len(values),) * n
    dtype = np.uint8 if len(universe) <= 8 else np.uint32
    met = np.zeros((n, *shape), dtype=dtype)
    for k, goal in enumerate(universe):
        grid = Grid(grid_rules(model, rulebook), (goal,) * n, ignored, [values] * n)
        for p in range(n):
            met[p] |= np.left_shift(np.broadcast_to(grid.met(p), shape).astype(dtype),
                                    k, dtype=dtype)
    return model.mixed_met.remember(key, (values, met.reshape(n, -1)))
