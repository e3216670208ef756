"""The review of a finished game (sim/review.py): each decision's chance of winning before and
after it, as its seat could know it, by rollouts with the expert at every seat, in tens until
its standard error is small enough; the same made step by step during play.

The worlds a seat cannot tell apart keep everything it saw (its hands, every card face up,
the cards that came to a hand in view, R17) and deal the rest again; the chances they give
agree with the expert's own win rate over fresh deals (the law of total probability at the
first decision, where nothing but a seat's own hand is known); a choice the expert would
make costs nothing; the review is the same for a seed whatever the number of processes.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from synergy_forge.authoring.gamelog import Recorder
from synergy_forge.authoring.loading import read_mission_file
from synergy_forge.core.cards import NumberCard
from synergy_forge.core.choices import DecisionKind
from synergy_forge.core.engine import Game
from synergy_forge.reporting.review import (
    review_decision,
    review_records,
    reviewed_from_json,
    reviewed_json,
    reviewed_records,
)
from synergy_forge.sim.bots import make_bot
from synergy_forge.sim.play import play
from synergy_forge.sim.review import (
    MIN_ROLLOUTS,
    PRECISION,
    Memos,
    positions,
    review,
    review_position,
    world,
)

#: A deck mission (R2: hands of 4 of 10 cards) of one round and one life, which the expert
#: wins about 60% of the time at 3 players: written for this check, tuned by nobody.
ONE_CHANCE = """\
id: one-chance
number: 1
title: {en: "One chance"}
stars: 3
rounds: 1
lives: 1
hand: {numbers: 4, goals: 2}
allowed_failures: {3: 0, 4: 1, 5: 1}
challenges: [minimum-5]
"""
#: Three rounds, three lives, actions: take-backs (R17) and cards moved by actions.
LONGER = """\
id: longer
number: 2
title: {en: "Longer"}
stars: 2
rounds: 3
lives: 3
hand: {numbers: 5, goals: 3}
allowed_failures: {3: 1, 4: 1, 5: 2}
actions: [B, F, A]
"""


def _mission(tmp_path: Path, text: str):
    path = tmp_path / "mission.yaml"
    path.write_text(text, encoding="utf-8")
    return read_mission_file(path)


def _played(found, seed: int, bots: str = "coop", players: int = 3):
    """A game of `found` dealt by `seed`, and its steps as `bots` at every seat played it."""
    game = Game(found.mission, players, seed, found.rulebook, found.colors)
    playing, steps = game.copy(), []
    seated = [make_bot(bots, seed, seat) for seat in range(players)]
    while not playing.over:
        step = [seated[d.seat].choose(playing.observe(d.seat), d) for d in playing.pending()]
        steps.append(step)
        playing.apply(step)
    return game, steps


def test_worlds_keep_what_the_seat_saw_R2_R17(tmp_path):
    found = _mission(tmp_path, LONGER)
    game, steps = _played(found, 5)
    rng = random.Random(1)
    moved = 0
    for position in positions(game, steps):
        there, seat = position.game, position.decision.seat
        other = world(there, seat, position.known, position.laid, rng)
        assert other.observe(seat) == there.observe(seat)  # nothing the seat sees changes
        for j in range(there.players):
            assert Counter(other.hands[j]) + Counter(other.decks[j]) == \
                Counter(there.hands[j]) + Counter(there.decks[j])
            assert len(other.hands[j]) == len(there.hands[j])
            assert Counter(other.goal_hands[j]) + Counter(other.goal_decks[j]) == \
                Counter(there.goal_hands[j]) + Counter(there.goal_decks[j])
            assert not position.known.cards[j] - Counter(other.hands[j])  # seen: still there
            laid = position.laid.get(j)
            if isinstance(laid, NumberCard) and position.decision.kind in (
                    DecisionKind.FIRST_NUMBER, DecisionKind.SECOND_NUMBER):
                assert laid in other.hands[j]
            moved += j != seat and other.hands[j] != there.hands[j]
    assert moved  # other seats' unseen cards were dealt again


def test_the_experts_own_choice_costs_nothing(tmp_path):
    found = _mission(tmp_path, ONE_CHANCE)
    game, steps = _played(found, 3, bots="expert")
    reviewed = review(game, steps, rollouts=8, seed=2)
    assert reviewed.decisions
    for item in reviewed.decisions:
        assert item.expert == item.choice and item.win_before == item.win_after
        assert not item.marked


@pytest.mark.slow
def test_chances_agree_with_the_experts_win_rate_over_many_deals(tmp_path):
    """At the first decision a seat knows only its own hand, so the chance the review gives,
    averaged over deals, is the expert's win rate (the law of total probability). One rollout
    per deal, 300 deals, against 300 games the expert plays: a bias in the worlds (a seat's
    hand known to the others, cards dealt from the wrong pool) moves the mean."""
    found = _mission(tmp_path, ONE_CHANCE)
    deals = 300
    estimated = []
    for seed in range(deals):
        game, steps = _played(found, seed, bots="random")
        first = positions(game, steps)[0]
        estimated.append(review_position(first, rollouts=1, seed=seed).win_before)
    played = [play(Game(found.mission, 3, 10_000 + seed, found.rulebook, found.colors),
                   ["expert"] * 3).outcome.won for seed in range(deals)]
    mean, rate = sum(estimated) / deals, sum(played) / deals
    spread = (2 * 0.25 / deals) ** 0.5  # the difference's standard error at most
    assert 0.3 < rate < 0.9  # the check needs a mission neither side always wins
    assert abs(mean - rate) < 4 * spread, (mean, rate)


def test_a_losing_choice_is_marked_and_the_chart_falls_with_it(tmp_path):
    found = _mission(tmp_path, ONE_CHANCE)
    for seed in range(40):
        game, steps = _played(found, seed, bots="random")
        reviewed = review(game, steps, rollouts=12, seed=0)
        if not reviewed.won and any(item.marked for item in reviewed.decisions):
            break
    else:
        pytest.fail("no random game lost with a costly decision in 40 deals")
    marked = [item for item in reviewed.decisions if item.marked]
    assert all(item.cost >= 0.1 for item in marked)
    assert max(item.cost for item in reviewed.decisions) == max(item.cost for item in marked)
    assert reviewed.decisions[-1].win_after == 0.0  # the game was lost: no world wins it


@pytest.mark.slow
def test_the_same_review_for_a_seed_whatever_the_processes(tmp_path):
    found = _mission(tmp_path, LONGER)
    game, steps = _played(found, 8)
    alone = review(game, steps, rollouts=3, seed=7)
    assert review(game, steps, rollouts=3, seed=7, jobs=2) == alone
    assert review(game, steps, rollouts=3, seed=8) != alone


def test_a_decided_chance_stops_early_an_open_one_plays_every_rollout(tmp_path):
    """Rollouts come in tens until each chance's standard error is at most PRECISION: a
    chance of 0 or 1 after MIN_ROLLOUTS stops there, with an interval still above 0;
    precision 0 plays every rollout; the figures of the first rollouts do not change."""
    found = _mission(tmp_path, LONGER)
    game, steps = _played(found, 8, bots="random")
    found_positions = positions(game, steps)
    last = review_position(found_positions[-1], rollouts=60, seed=1)
    assert last.win_after in (0.0, 1.0) and last.rollouts == MIN_ROLLOUTS
    assert 0 < last.se_after <= PRECISION
    first = found_positions[0]
    every = review_position(first, rollouts=60, seed=1, precision=0)
    assert every.rollouts == 60
    sooner = review_position(first, rollouts=60, seed=1)
    assert sooner.rollouts in range(MIN_ROLLOUTS, 61, 10)
    assert max(sooner.se_before, sooner.se_after) <= PRECISION or sooner.rollouts == 60
    capped = review_position(first, rollouts=sooner.rollouts, seed=1, precision=0)
    assert (capped.win_before, capped.win_after) == (sooner.win_before, sooner.win_after)


def test_a_game_reviewed_step_by_step_while_played_is_its_whole_review(tmp_path):
    """What a table does during play (table/review.py): each decision reviewed from the log as
    it stood after its step, assembled at the end, is the review of the finished log."""
    found = _mission(tmp_path, LONGER)
    game, steps = _played(found, 8)
    recorder = Recorder(game, ["coop"] * 3)
    playing, made, reviewed = game.copy(), 0, []
    memos = Memos.new()
    for step in steps:
        for decision, choice in zip(playing.pending(), step, strict=True):
            recorder(playing, decision, choice)
        playing.apply(step)
        so_far = [dict(r) for r in recorder.records]  # the table's log after the step
        for index in range(made, len(so_far) - 1):
            data = reviewed_json(review_decision(so_far, index, 6, 0, memos))
            reviewed.append(reviewed_from_json(json.loads(json.dumps(data))))
        made = len(so_far) - 1
    records = recorder.finish(playing)
    stepwise, whole = reviewed_records(records, reviewed, 6, 0), review_records(records, 6, 0)
    assert stepwise.review == whole.review and stepwise.by == whole.by
