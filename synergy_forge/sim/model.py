"""The mission model: what the bots work out about the public facts of the missions they play,
held by whoever plays them and freed with it.

Every bot of a game is handed the same `MissionModel` by its owner: a batch of a playtest
(`tables.play_batch`, or the ladder's tables of one mission and player count, `estimate.
play_tables`), a table of people (`table.model.GameTable`, for all its games), or `play.play`
for one game. Each of its memos (synergy_forge.core.memo) remembers answers of a pure function
of public facts (the rulebook, the challenges, the cards face up, the hands every seat can
count) and sometimes of the cards asked about, so emptying it changes no result, only the time;
and nothing in it is reachable from an observation, so no bot can change it for another seat
through what it is shown. A bot's memory of its own hands is another thing, private to its
seat (`bots.SeatMemories`).

The keys still name the facts they depend on (the rulebook, the challenges, ...): one model may
serve several missions or settings (a tune's trials) and stays right.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from synergy_forge.core.cards import NumberCard
from synergy_forge.core.memo import Memo
from synergy_forge.core.referee import PairSums
from synergy_forge.core.rules import ChallengePlan, Rulebook

if TYPE_CHECKING:
    import numpy as np

    from synergy_forge.sim.chances import Support
    from synergy_forge.sim.grid import GridRule
    from synergy_forge.sim.policy import MetGrid, Opening


class MissionModel:
    """The memos of every bot and of what they ask (chances, the convention), one object.

    The sizes bound each memo (a full memo starts again empty); the comments say what each
    holds and for whom. Made empty; filled as the games ask."""

    def __init__(self) -> None:
        # -- the rules as the bots ask about them -----------------------------------------
        #: each challenge set's pairs' sums and plan (R5–R9), per (rulebook, challenges)
        self._pairs: dict[tuple[Rulebook, tuple[str, ...]], PairSums] = {}

        # -- chances (sim.chances): of public facts only ----------------------------------
        #: each goal's grid rule per rulebook (read-only mappings)
        self.grid_rules: Memo[Rulebook, Mapping[str, GridRule | None]] = Memo(64)
        #: the grids of the last rounds (a round needs one or two)
        self.grids: Memo[tuple[Any, ...], Any] = Memo(64)
        #: per question about a round, its answer table by table
        self.tables: Memo[tuple[Any, ...], dict[tuple[int, ...], bool]] = Memo(4096)
        #: the answers to the last questions asked, which come back (the ladder's tables deal
        #: the same hands); callers are handed copies
        self.answers: Memo[tuple[Any, ...], dict[int, float]] = Memo(4096)

        # -- the greedy bot (sim.greedy) --------------------------------------------------
        #: every seat's possible sums given the face-up cards, per public facts
        self.public_supports: Memo[tuple[Any, ...], tuple[Support, ...]] = Memo(1000)
        #: one seat's possible sums, per its first card and its colour's unseen cards
        self.supports: Memo[tuple[Any, ...], Support] = Memo(50_000)
        #: P(goal met | own sum) against random pairs, per mission and player count
        self.affinity: Memo[tuple[Any, ...], dict[tuple[str, int], float]] = Memo(256)
        #: the legal sums of a first card with each of a few cards (asked about the same few
        #: sets of cards again and again; it answers only whoever asks about those cards)
        self.legal_sums: Memo[tuple[Any, ...], frozenset[int]] = Memo(20_000)

        # -- the coop bot (sim.coop) ------------------------------------------------------
        #: the opening convention per mission and player count
        self.openings: Memo[tuple[Any, ...], Any] = Memo(256)
        #: a seat's best opening scores per the public facts and the cards it holds
        #: (read-only mappings)
        self.best_openings: Memo[tuple[Any, ...], Mapping[Any, float]] = Memo(16_384)

        # -- the expert (sim.expert) ------------------------------------------------------
        #: every seat's hands as counted from the cards face up, per public facts
        self.counted: Memo[tuple[Any, ...], Any] = Memo(4096)
        #: a colour's number and goal cards with their copies, per (mission's goals, colour)
        self.colour_cards: Memo[tuple[Any, ...], Any] = Memo(256)
        #: the chain of card-3 searches of a round, per public facts
        self.chains: Memo[tuple[Any, ...], Any] = Memo(1024)

        # -- the expert's policy where hands are hidden (sim.belief, sim.policy) -----------
        #: the opening policy of a round, per the public facts it depends on
        self.opening_policies: Memo[tuple[Any, ...], Opening | None] = Memo(256)
        #: the hands of a size a pool may deal, with their ways, per (pool, size)
        self.dealt: Memo[tuple[Any, ...], tuple[tuple[tuple[Any, ...], int], ...]] = Memo(4096)
        #: the policy for card 2 of a round, per public facts
        self.replies: Memo[tuple[Any, ...], Opening | None] = Memo(1024)
        #: the chain of card-3 searches over the opening's posterior, per public facts
        self.posterior_chains: Memo[tuple[Any, ...],
                                    tuple[dict[int, float], ...] | None] = Memo(1024)
        #: where each goal is met on a grid of sums, per (rulebook, goals, player count): on
        #: the widest grid asked about, cut for each round (its arrays are only read)
        self.met_grids: Memo[tuple[Any, ...], MetGrid] = Memo(8)

        # -- the expert seated beside novices (sim.mixed) ----------------------------------
        #: a round's reply to the novices, per public facts (every expert of the table asks
        #: the same; where goals are in decks, the asking seat's own goal hand too)
        self.mixed_replies: Memo[tuple[Any, ...], Any] = Memo(4096)
        #: the novices' joint sums and their chances, per the novices' hands and first cards
        #: (its arrays are only read)
        self.mixed_novices: Memo[tuple[Any, ...], Any] = Memo(4096)
        #: per (rulebook, goals, players, ignored seats): the sums covered, and per seat and
        #: table of those sums the goals met there as bits (its arrays are only read)
        self.mixed_met: Memo[tuple[Any, ...], tuple[tuple[int, ...], np.ndarray]] = Memo(8)

        # -- the table convention (sim.convention) ----------------------------------------
        #: the plan of a round, per (rules, round state)
        self.round_plans: Memo[tuple[Any, ...], Any] = Memo(4096)
        #: what a hand is worth for the rounds to come
        self.hand_values: Memo[tuple[Any, ...], float] = Memo(100_000)
        #: how often each goal is met at a table of random legal pairs
        self.goal_ease: Memo[tuple[Any, ...], dict[str, float]] = Memo(256)
        #: a seat's possible sums with the pair that leaves the best hand
        self.options: Memo[tuple[Any, ...], Any] = Memo(20_000)
        #: per (rulebook, goal ids, ignored seats), per table of sums: who meets which goal;
        #: a mission's games come back to a few thousand tables, each judged by many plans
        self.goals_met: Memo[tuple[Any, ...], Memo[tuple[int, ...], tuple[int, ...]]] = Memo(8)
        #: per seat's choices of goal (as bits), the first met of each set met there
        self.first_met: Memo[tuple[int, ...], Any] = Memo(4096)

    def __reduce__(self) -> tuple[type[MissionModel], tuple[()]]:
        """A model travels empty (to a worker, with its playable): each process works out
        its own, and nothing it remembers is ever sent."""
        return (MissionModel, ())

    def plan(self, rulebook: Rulebook, challenges: tuple[str, ...]) -> ChallengePlan:
        """The plan of `challenges` (`Rulebook.plan`), made once."""
        return self.pairs(rulebook, challenges).plan

    def pairs(self, rulebook: Rulebook, challenges: tuple[str, ...]) -> PairSums:
        """The sums of pairs of cards under `challenges`, each worked out once."""
        found = self._pairs.get((rulebook, challenges))
        if found is None:
            found = self._pairs[(rulebook, challenges)] = PairSums(rulebook.plan(challenges))
        return found

    def pair_sum(self, rulebook: Rulebook, challenges: tuple[str, ...], first: NumberCard,
                 second: NumberCard, delta: int = 0) -> tuple[int, bool]:
        """(sum, a challenge broken) of one seat's two cards (R5–R9), worked out once."""
        found = self._pairs.get((rulebook, challenges))  # the hot path: one call, two look-ups
        if found is None:
            found = self.pairs(rulebook, challenges)
        return found[first, second, delta]
