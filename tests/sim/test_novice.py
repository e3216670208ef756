"""The novice, the skill ladder's floor (sim.novice): random legal play that never loses the
mission at once by its own hand, with seats that differ."""

from __future__ import annotations

from collections import Counter

from synergy_forge.core.choices import DecisionKind
from synergy_forge.core.engine import Game
from synergy_forge.core.mission import Mission
from synergy_forge.core.referee import seat_sum
from synergy_forge.sim.bots import make_bot
from synergy_forge.sim.playtest import game_seed, play_batch

COLORS = ("red", "yellow", "green", "blue", "purple")
#: R9: high-to-low with minimum-5 leaves few legal pairs: a careless first card (a 1 or a 2
#: with nothing lower to follow) loses the mission at the third card.
NARROW = Mission(id="narrow", number=1, title={"en": "Narrow"}, stars=3, rounds=3, lives=3,
                 allowed_failures={3: 2, 4: 3, 5: 4}, challenges=("high-to-low", "minimum-5"))


def _first_cards_that_finish(game: Game, seat: int) -> set:
    hand = game.hands[seat]
    out = set()
    for first in set(hand):
        rest = list(hand)
        rest.remove(first)
        if any(not seat_sum(game.plan, first, second)[6] for second in rest):
            out.add(first)
    return out


def test_the_novice_never_plays_a_first_card_that_leaves_it_no_legal_third_R9(rulebook):
    checked = 0
    for seed in range(30):
        game = Game(NARROW, 4, seed, rulebook, COLORS)
        bots = [make_bot("novice", seed, s) for s in range(4)]
        while not game.over:
            decisions = game.pending()
            choices = [bots[d.seat].choose(game.observe(d.seat), d) for d in decisions]
            for d, choice in zip(decisions, choices, strict=True):
                if d.kind is DecisionKind.FIRST_NUMBER:
                    safe = _first_cards_that_finish(game, d.seat)
                    if safe:
                        assert choice in safe, (seed, d.seat, choice, safe)
                        checked += 1
            game.apply(choices)
    assert checked > 100


def test_novices_never_lose_to_a_challenge_where_random_play_does(rulebook):
    seeds = [game_seed(1, NARROW.id, 4, i) for i in range(60)]
    novice = play_batch(NARROW, rulebook, COLORS, 4, "novice", seeds)
    random = play_batch(NARROW, rulebook, COLORS, 4, "random", seeds)
    assert random.losses["challenge"] > 10  # random play does lose this way here
    assert novice.losses["challenge"] == 0
    assert novice.wins >= random.wins


def test_the_seats_of_a_novices_table_do_not_move_as_one(rulebook):
    # Every seat holds the same values with a full hand: a shared prior would have every seat
    # open with the same card. Each novice draws from its own generator.
    openings = Counter()
    for seed in range(20):
        game = Game(NARROW, 4, seed, rulebook, COLORS)
        decisions = game.pending()
        while decisions[0].kind is not DecisionKind.FIRST_NUMBER:
            game.apply([d.choices[0] for d in decisions])
            decisions = game.pending()
        firsts = {make_bot("novice", seed, d.seat).choose(game.observe(d.seat), d).value
                  for d in decisions}
        openings[len(firsts)] += 1
    assert openings[1] < 5  # all four the same value in few games, not in all
