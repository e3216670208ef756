"""A mission's content hash (core.playhash): every field that changes play changes it, no
other field does, and it is the same on every run."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from synergy_forge.authoring.loading import read_campaign
from synergy_forge.core.cards import Action, Order
from synergy_forge.core.mission import Mission
from synergy_forge.core.playhash import PLAY_HASH_LENGTH, play_changes, play_data, play_hash
from synergy_forge.core.rulelang import RuleKind
from synergy_forge.core.rules import Definition, Rulebook
from synergy_forge.resources import starter_campaign


@pytest.fixture(scope="module")
def starter():
    return read_campaign(starter_campaign()).campaign


@pytest.fixture(scope="module")
def close_calls(starter):
    """Mission 21: built-in goals, the campaign's own close-call, actions F and G."""
    return starter.mission("close-calls")


def with_definition(rulebook: Rulebook, definition_id: str, **changes) -> Rulebook:
    old = rulebook.goals.get(definition_id) or rulebook.challenges[definition_id]
    return rulebook.extended([dataclasses.replace(old, **changes)])


# Each changes how the mission plays: the hash must change.
PLAY_CHANGES = {
    "players": {"players": (3, 4)},
    "rounds": {"rounds": 5},
    "lives": {"lives": 2},
    "hand numbers": {"hand_numbers": 9},
    "hand goals": {"hand_goals": 6},
    "order": {"order": Order.GOAL_NUMBER_NUMBER},
    "allowed failures at one count": {"allowed_failures": {3: 1, 4: 2, 5: 1}},
    "a challenge added": {"challenges": ("minimum-5",)},
    "an action added": {"actions": (Action.F, Action.G, Action.H)},
    "an action removed": {"actions": (Action.F,)},
    "a goal removed from the deck": {"goals": ("one-higher", "one-lower", "equal",
                                               "close-call", "between", "second-highest")},
    "a goal swapped": {"goals": ("one-higher", "one-lower", "equal", "unique", "between",
                                 "second-highest", "second-lowest")},
    "a goal twice": {"goals": ("one-higher", "one-lower", "equal", "close-call", "between",
                               "second-highest", "second-lowest", "equal")},
    "the super card": {"super": True},
    "the hyper card": {"hyper": True},
}


@pytest.mark.parametrize("change", PLAY_CHANGES.values(), ids=PLAY_CHANGES.keys())
def test_every_setting_that_changes_play_changes_the_hash(starter, close_calls, change):
    changed = dataclasses.replace(close_calls, **change)
    assert play_hash(changed, starter.rulebook) != play_hash(close_calls, starter.rulebook)
    assert play_changes(close_calls, starter.rulebook, changed, starter.rulebook)


# Each leaves play as it was: the hash must not change.
SAME_PLAY = {
    "id": {"id": "near-misses"},
    "number": {"number": 4},
    "title": {"title": {"en": "Near misses", "fr": "Presque"}},
    "declared stars": {"stars": 5},
    "declared stars per player count": {"stars": 2, "stars_per_count": {3: 2, 4: 3, 5: 2}},
    "flavour": {"flavor": {"en": "Another story."}},
    "file": {"source": "elsewhere/21.yaml"},
    "goal deck order": {"goals": ("second-lowest", "one-higher", "one-lower", "equal",
                                  "close-call", "between", "second-highest")},
    "action order": {"actions": (Action.G, Action.F)},
    "player count order": {"players": (5, 3, 4)},
    # at a count the mission is not played at, allowed failures say nothing
    "failures at an unplayed count": {"players": (3, 4),
                                      "allowed_failures": {3: 1, 4: 1, 5: 9}},
}


@pytest.mark.parametrize("change", SAME_PLAY.values(), ids=SAME_PLAY.keys())
def test_what_does_not_change_play_leaves_the_hash(starter, close_calls, change):
    base = close_calls
    if "allowed_failures" in change:  # compare with the same player counts
        base = dataclasses.replace(close_calls, players=change["players"])
    changed = dataclasses.replace(close_calls, **change)
    assert play_hash(changed, starter.rulebook) == play_hash(base, starter.rulebook)
    assert play_changes(base, starter.rulebook, changed, starter.rulebook) == []


@pytest.mark.parametrize("definition_id", ["close-call", "one-higher"])  # own, built-in
def test_a_goal_rule_changes_the_hash_its_words_do_not(starter, close_calls, definition_id):
    rulebook, before = starter.rulebook, play_hash(close_calls, starter.rulebook)
    ruled = with_definition(rulebook, definition_id, rule="sum > 3")
    assert play_hash(close_calls, ruled) != before
    (change,) = play_changes(close_calls, rulebook, close_calls, ruled)
    assert (change.subject, change.id, change.key, change.after) == \
        ("goal", definition_id, "rule", "sum > 3")
    reworded = with_definition(rulebook, definition_id, name={"en": "X"}, text={"en": "Y"},
                               symbol="?", origin="other.yaml:3", builtin=False)
    assert play_hash(close_calls, reworded) == before
    # Whitespace between a rule's tokens (a YAML block, spaces round operators) is not play.
    spaced = with_definition(rulebook, definition_id,
                             rule="  " + rulebook.goals[definition_id].rule.replace(" ", "\n ")
                             + "\n")
    assert play_hash(close_calls, spaced) == before


def test_a_challenge_kind_step_direction_and_rule_change_the_hash(starter):
    rulebook = starter.rulebook
    mission = dataclasses.replace(starter.mission(1), challenges=(
        "double-plus-3", "goals-left", "minimum-5"))
    before = play_hash(mission, rulebook)
    for definition_id, change in [("double-plus-3", {"step": 30}),
                                  ("goals-left", {"direction": -1}),
                                  ("minimum-5", {"rule": "sum >= 6"}),
                                  ("minimum-5", {"kind": RuleKind.VALUE})]:
        changed = with_definition(rulebook, definition_id, **change)
        assert play_hash(mission, changed) != before, (definition_id, change)
        found = play_changes(mission, rulebook, mission, changed)
        assert found and found[0].id == definition_id
    # Not its words.
    assert play_hash(mission, with_definition(rulebook, "minimum-5", text={"en": "?"})) == before


def _own(rule_id: str, kind: RuleKind, rule: str, step: int = 50) -> Definition:
    return Definition(rule_id, kind, {"en": rule_id}, {"en": rule_id}, rule, step=step)


def test_challenge_order_counts_only_where_it_changes_play(starter):
    """R7: value rules apply in the order listed and sum rules by step (equal steps in the
    order listed); constraints all hold at once."""
    rulebook = starter.rulebook.extended([
        _own("plus-one", RuleKind.VALUE, "value + 1"), _own("doubled", RuleKind.VALUE,
                                                            "value * 2"),
        _own("add-2", RuleKind.SUM, "sum + 2", step=20), _own("halve", RuleKind.SUM,
                                                               "sum // 2", step=20),
    ])
    base = starter.mission(1)

    def hashed(*challenges: str) -> str:
        return play_hash(dataclasses.replace(base, challenges=challenges), rulebook)

    assert hashed("minimum-5", "no-doubles") == hashed("no-doubles", "minimum-5")
    assert hashed("double-plus-3", "five-is-ten") == hashed("five-is-ten", "double-plus-3")
    assert hashed("plus-one", "doubled") != hashed("doubled", "plus-one")
    assert hashed("add-2", "halve") != hashed("halve", "add-2")
    mission = dataclasses.replace(base, challenges=("plus-one", "doubled"))
    swapped = dataclasses.replace(base, challenges=("doubled", "plus-one"))
    (change,) = play_changes(mission, rulebook, swapped, rulebook)
    assert change.key == "challenges" and change.after == ["doubled", "plus-one"]


def test_a_renamed_goal_with_the_same_rule_plays_the_same(starter, close_calls):
    renamed = _own("near-miss", RuleKind.GOAL, starter.rulebook.goals["close-call"].rule)
    rulebook = starter.rulebook.extended([renamed])
    deck = tuple("near-miss" if g == "close-call" else g for g in close_calls.goals)
    mission = dataclasses.replace(close_calls, goals=deck)
    assert play_hash(mission, rulebook) == play_hash(close_calls, starter.rulebook)


CAMPAIGN_FILES = {
    # comments, key order, quoting, flow or block style, file name: none is play
    "missions/21-close-calls.yaml": lambda text: "# a comment\n" + text.replace(
        "rounds: 4\nlives: 3\n", "lives: 3   # fewer?\nrounds: 4\n").replace(
        'title: {en: "Close calls", fr: "De justesse"}', "title:\n  en: Close calls\n"
        "  fr: De justesse").replace("stars: 3", "stars: 4"),
    "goals/close-call.yaml": lambda text: text.replace(
        'rule: "(sum - 1) in others or (sum + 1) in others"',
        "rule: >-\n  (sum - 1) in others\n  or (sum + 1) in others").replace(
        "Be exactly 1 away", "Be just 1 away"),
}


def test_the_hash_of_a_file_ignores_comments_key_order_texts_and_its_name(tmp_path, starter,
                                                                          close_calls):
    campaign = tmp_path / "c"
    shutil.copytree(starter_campaign(), campaign)
    for name, change in CAMPAIGN_FILES.items():
        path = campaign / name
        path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")
    (campaign / "missions" / "21-close-calls.yaml").rename(campaign / "missions" / "x.yaml")
    edited = read_campaign(campaign).campaign
    assert edited is not None
    mission = edited.mission("close-calls")
    assert mission.stars == 4 and mission.source != close_calls.source
    assert play_hash(mission, edited.rulebook) == play_hash(close_calls, starter.rulebook)


def test_the_hash_is_short_hex_and_the_same_in_another_process(starter, close_calls):
    found = play_hash(close_calls, starter.rulebook)
    assert len(found) == PLAY_HASH_LENGTH and set(found) <= set("0123456789abcdef")
    # Another interpreter, another hash seed: the same hash (no set or dict order in it).
    code = ("from synergy_forge.authoring.loading import read_campaign;"
            "from synergy_forge.core.playhash import play_hash;"
            "from synergy_forge.resources import starter_campaign;"
            "c = read_campaign(starter_campaign()).campaign;"
            "print(play_hash(c.mission('close-calls'), c.rulebook))")
    for seed in ("1", "2"):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin"}, check=True,
                             cwd=Path(__file__).parents[2])
        assert out.stdout.strip() == found
    # The data hashed are plain JSON values: nothing that prints differently elsewhere.
    data = play_data(close_calls, starter.rulebook)
    assert data["format"] == 1 and data["goals"][0]["kind"] == "goal"


def test_every_starter_mission_has_its_own_hash(starter):
    hashes = {play_hash(m, starter.rulebook) for m in starter.missions}
    assert len(hashes) == len(starter.missions)


def test_a_mission_built_in_code_hashes_like_one_read_from_a_file(starter):
    mission = starter.mission(1)
    rebuilt = Mission(**{f.name: getattr(mission, f.name)
                         for f in dataclasses.fields(mission)})
    assert play_hash(rebuilt, starter.rulebook) == play_hash(mission, starter.rulebook)


def test_a_published_hash_does_not_move():
    """Publish prints these: a change to what is hashed, or how, must bump PLAY_FORMAT (and
    then this figure) on purpose, never by accident."""
    from synergy_forge.authoring.definitions import standard_rulebook

    mission = Mission("pinned", 1, {"en": "Pinned"}, 2, rounds=3, lives=2,
                      challenges=("minimum-5", "goals-left"))
    assert play_hash(mission, standard_rulebook()) == "e7cf58e435cc9cd8"
