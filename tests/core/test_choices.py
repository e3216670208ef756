"""The one notation for choices (core/choices.py), as python-chess holds `Move.uci()`: every
choice's text and JSON value read back to that choice, ids unique within a decision and pinned
over whole trees of play (perft-style), a choice made for another state or game refused by the
engine itself, and the game logs written before the notation replayed record for record."""

from __future__ import annotations

import hashlib
import json
import random
from itertools import product
from pathlib import Path

import pytest

from synergy_forge.authoring.definitions import standard_rulebook
from synergy_forge.authoring.gamelog import replay, write_log
from synergy_forge.authoring.loading import read_campaign
from synergy_forge.core.actions import ActionUse
from synergy_forge.core.cards import Action, GoalCard, NumberCard, Order
from synergy_forge.core.choices import (
    Decision,
    DecisionKind,
    IllegalChoice,
    NotationError,
    StaleChoice,
    StateId,
    choice_from_json,
    choice_id,
    choice_json,
    choice_text,
    parse_choice,
    parse_choice_id,
)
from synergy_forge.core.engine import Game
from synergy_forge.core.mission import Mission
from synergy_forge.resources import starter_campaign

LOGS = Path(__file__).resolve().parents[1] / "references" / "logs"
K = DecisionKind


@pytest.fixture(scope="module")
def campaign():
    return read_campaign(starter_campaign()).campaign


#: (kind, seat, choice, its text, its JSON): the notation as docs/table.md shows it.
EXAMPLES = [
    (K.SUPER, 0, 1, "seat1", 1),
    (K.HYPER, 0, 0, "seat0", 0),
    (K.FIRST_NUMBER, 2, NumberCard(3, "red"), "red:3", {"value": 3, "color": "red"}),
    (K.TAKE_BACK, 1, NumberCard(5, "light-blue"), "light-blue:5",
     {"value": 5, "color": "light-blue"}),
    (K.GOAL, 0, GoalCard("one-higher", "light-blue"), "light-blue:one-higher",
     {"goal": "one-higher", "color": "light-blue"}),
    (K.ACTION, 1, None, "none", None),
    (K.ACTION, 1, ActionUse(Action.F, 1, target=2), "F.target=2",
     {"card": "F", "seat": 1, "target": 2}),
    (K.ACTION, 0, ActionUse(Action.D, 0, other=2), "D.other=2",
     {"card": "D", "seat": 0, "other": 2}),
    (K.ACTION, 3, ActionUse(Action.E, 3, seats=(0, 2)), "E.seats=0-2",
     {"card": "E", "seat": 3, "seats": [0, 2]}),
    (K.ACTION, 0, ActionUse(Action.B, 0, replacement=NumberCard(3, "red")), "B.with=red:3",
     {"card": "B", "seat": 0, "with": {"value": 3, "color": "red"}}),
    (K.ACTION, 2, ActionUse(Action.C, 2, cards=(NumberCard(1, "red"), NumberCard(4, "red"))),
     "C.take=red:1.take=red:4",
     {"card": "C", "seat": 2, "cards": [{"value": 1, "color": "red"},
                                        {"value": 4, "color": "red"}]}),
    (K.ACTION, 1, ActionUse(Action.H, 1), "H", {"card": "H", "seat": 1}),
]


@pytest.mark.parametrize("kind, seat, choice, text, data", EXAMPLES)
def test_each_kind_is_written_and_read_back(kind, seat, choice, text, data):
    assert choice_text(choice) == text
    assert parse_choice(kind, seat, text) == choice
    assert choice_json(choice) == data
    assert choice_from_json(kind, json.loads(json.dumps(data))) == choice


@pytest.mark.parametrize("kind, text", [
    (K.FIRST_NUMBER, "red:03"), (K.FIRST_NUMBER, "red-3"), (K.FIRST_NUMBER, "red:"),
    (K.FIRST_NUMBER, "red:+3"), (K.FIRST_NUMBER, "red:٣"), (K.SUPER, "seat01"),
    (K.SUPER, "1"), (K.SUPER, "seat"), (K.GOAL, "red-equal"), (K.ACTION, "None"),
    (K.ACTION, "F.target=2.target=3"), (K.ACTION, "F.target2"), (K.ACTION, "K"),
    (K.ACTION, "E.seats=0"), (K.ACTION, "B.with=red3"), (K.ACTION, "none.x"),
    (K.ACTION, "F.seat=1"), (K.TAKE_BACK, "red:9" * 3),
])
def test_only_the_exact_text_is_read(kind, text):
    with pytest.raises(NotationError):
        parse_choice(kind, 0, text)


@pytest.mark.parametrize("kind, data", [
    (K.SUPER, True), (K.SUPER, "1"), (K.SUPER, 1.0), (K.GOAL, {"goal": "equal"}),
    (K.FIRST_NUMBER, {"value": "3", "color": "red"}), (K.FIRST_NUMBER, [3, "red"]),
    (K.ACTION, {"card": "K", "seat": 0}), (K.ACTION, {"card": "E", "seat": 0, "seats": [1]}),
    (K.ACTION, {"card": "F", "seat": 0, "aim": 1}), (K.ACTION, "none"),
])
def test_a_json_value_of_another_shape_is_refused(kind, data):
    with pytest.raises(NotationError):
        choice_from_json(kind, data)


def test_choice_ids_name_the_state():
    state = StateId(2, 1, 3)
    assert str(state) == "g2.r1.s3"
    text = choice_id(state, K.ACTION, ActionUse(Action.B, 0, replacement=NumberCard(3, "red")))
    assert text == "g2.r1.s3.action.B.with=red:3"
    assert parse_choice_id(text) == (state, K.ACTION, "B.with=red:3")
    for wrong in ("2.1.3.action.none", "g2.r1.action.none", "g02.r1.s3.action.none",
                  "g2.r1.s3.act.none", "g2.r1.s3", "x" * 900):
        with pytest.raises(NotationError):
            parse_choice_id(wrong)


def _checked(game: Game, decision: Decision) -> list[str]:
    """Every choice of `decision` written and read back, as text, as JSON and through the
    engine's own reading of its id; the ids, which must all differ."""
    ids = []
    for choice in decision.choices:
        assert isinstance(choice, (int, NumberCard, GoalCard, ActionUse, type(None)))
        text = choice_text(choice)
        assert parse_choice(decision.kind, decision.seat, text) == choice
        assert choice_from_json(decision.kind, json.loads(json.dumps(choice_json(choice)))) \
            == choice
        ids.append(game.choice_id(decision, choice))
        assert game.choice_of(decision.seat, ids[-1]) == choice
    assert len(set(ids)) == len(ids), ids
    return ids


def test_every_choice_of_every_starter_mission_reads_back(campaign):
    """Random games of every starter mission at every player count: every action card, the
    super and hyper cards, take-backs, both orders of play."""
    kinds = set()
    for mission in campaign.missions:
        for players in mission.players:
            game = Game(mission, players, 7 * players + mission.number, campaign.rulebook,
                        campaign.colors)
            rng = random.Random(mission.number)
            while not game.over:
                decisions = game.pending()
                for decision in decisions:
                    _checked(game, decision)
                    kinds.add(decision.kind)
                    for choice in decision.choices:
                        if isinstance(choice, ActionUse):
                            kinds.add(choice.card)
                game.apply([rng.choice(d.choices) for d in decisions])
    assert kinds >= set(DecisionKind) | set(Action)


def _small(order: Order, **options) -> Mission:
    return Mission(id=f"notation-{order}", number=1, title={"en": "Notation"}, stars=1,
                   rounds=2, lives=2, players=(3,), hand_numbers=3, hand_goals=2, order=order,
                   **options)


#: mission, seed, depth, distinct id sequences per depth (the perft counts of the same
#: deals, test_observation.PERFT), and a digest of every id met: written down once, so that
#: neither the choices nor their written form can drift.
TREES = {
    "ngn": (_small(Order.NUMBER_GOAL_NUMBER, challenges=("low-to-high",),
                   actions=(Action.F, Action.B), super=True), 1, 4,
            (3, 54, 432, 2376),
            "962839e54661edcb0b2774afde77cb0b3bbb22b04e51ed32a3acef0acafc6a82"),
    "gnn": (_small(Order.GOAL_NUMBER_NUMBER, challenges=("even",),
                   actions=(Action.D, Action.I), hyper=True), 2, 4,
            (3, 24, 648, 3888),
            "447e83c6b8698dc6c47ee6e9532800cae05a7d36913c6a18ac257443a4192e8a"),
}


def _walk(game: Game, level: int, counts: list[int], digest: hashlib._Hash) -> None:
    """Every sequence of steps from `game` to depth len(counts), counted at each level, each
    step's ids (one per seat asked) fed to `digest`."""
    if level == len(counts) or game.over:
        return
    decisions = game.pending()
    ids = [_checked(game, d) for d in decisions]
    for picks in product(*(range(len(d.choices)) for d in decisions)):
        digest.update(("|".join(ids[i][k] for i, k in enumerate(picks)) + "\n").encode())
        counts[level] += 1
        child = game.copy()
        child.apply([d.choices[k] for d, k in zip(decisions, picks, strict=True)],
                    game.state)
        _walk(child, level + 1, counts, digest)


@pytest.mark.parametrize("name", sorted(TREES))
def test_id_trees_golden(name):
    mission, seed, depth, expected, golden = TREES[name]
    game = Game(mission, 3, seed, standard_rulebook())
    counts = [0] * depth
    digest = hashlib.sha256()
    _walk(game, 0, counts, digest)
    assert tuple(counts) == expected
    assert digest.hexdigest() == golden


def test_the_engine_refuses_a_choice_of_another_state(campaign):
    mission = campaign.mission(30)
    game = Game(mission, 3, 5, campaign.rulebook, campaign.colors)
    first = game.pending()[0]  # the super card, before round 1 (R24)
    old = game.choice_id(first, first.choices[1])
    assert old == "g1.r0.s0.super.seat1"
    game.apply([first.choices[1]], game.state)
    decision = game.pending()[0]  # the hyper card: the same seat, the same choices
    with pytest.raises(StaleChoice, match=r"round 0, step 0, and the game is now at round 0, "
                                          r"step 1"):
        game.choice_of(0, old)
    with pytest.raises(StaleChoice):
        game.apply([decision.choices[1]], StateId(1, 0, 0))
    assert game.pending() == [decision] and game.steps == 1  # refused: nothing changed
    # The next game of the series: the same deal, the same step, another game.
    again = Game(mission, 3, 5, campaign.rulebook, campaign.colors, number=2)
    with pytest.raises(StaleChoice, match="made in game 1, and this is game 2"):
        again.choice_of(0, old)
    assert again.choice_of(0, "g2.r0.s0.super.seat1") == 1
    for wrong, words in (("g1.r0.s1.first-number.red:3", "hyper choice, not a first-number"),
                         ("g1.r0.s1.hyper.seat7", "cannot choose seat7"),
                         ("g1.r0.s1.hyper.seat-1", "is a number"),
                         ("first-number.red:3", "not a choice id")):
        with pytest.raises(IllegalChoice, match=words):
            game.choice_of(0, wrong)
    with pytest.raises(IllegalChoice, match="seat 1 has no decision"):
        game.choice_of(1, "g1.r0.s1.hyper.seat1")


@pytest.mark.parametrize("log", sorted(LOGS.glob("*.jsonl")), ids=lambda p: p.stem)
def test_logs_written_before_replay_record_for_record(log):
    """Logs written by the code before this notation (format 1, every action card, the super
    and hyper cards): each replays, and each decision's choice read and written again is the
    record's, so the log written now is the same bytes."""
    text = log.read_text(encoding="utf-8")
    game = replay(text.splitlines(keepends=True), log.name)
    assert game.over
    records = [json.loads(line) for line in text.splitlines()]
    for record in records:
        if record["type"] == "decision":
            kind = DecisionKind(record["kind"])
            choice = choice_from_json(kind, record["choice"])
            assert choice_json(choice) == record["choice"]
            assert parse_choice(kind, record["seat"], choice_text(choice)) == choice
    assert write_log(records) == text
