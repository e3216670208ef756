"""The printed game is the simulated game: the kit's components, counted once, are
what the engine deals and plays for every mission, and the build refuses a kit that falls
short (printing/components.py)."""

from __future__ import annotations

import dataclasses

import pytest

from synergy_forge.authoring.loading import read_campaign
from synergy_forge.printing.components import KitMismatch, check, components, mismatches
from synergy_forge.printing.kit import build_kit
from synergy_forge.resources import starter_campaign


@pytest.fixture(scope="module")
def starter():
    campaign = read_campaign(starter_campaign()).campaign
    assert campaign is not None
    return campaign


def test_the_starter_kit_holds_every_card_the_engine_deals_and_plays(starter):
    kit = build_kit(starter)
    assert mismatches(starter, kit) == []
    box = components(kit)
    assert box.number_values == (1, 1, 2, 2, 3, 3, 4, 4, 5, 5) and box.colours == 5
    assert box.specials == ("super", "hyper", "lives", "rounds") and box.track == (0, 7)
    assert box.own_goals == ("close-call",) and box.tokens == 2


def test_a_number_card_left_out_is_found_for_every_mission(starter):
    kit = build_kit(starter)
    kit["numbers"] = kit["numbers"][1:]  # one red 1 fewer
    found = mismatches(starter, kit)
    assert "each colour has the number cards [1, 2, 2, 3, 3, 4, 4, 5, 5], not" in found[0]
    assert sum("the engine deals red number cards the kit does not print: {1: 1}" in f
               for f in found) == len(starter.missions)
    with pytest.raises(KitMismatch, match="the kit does not hold the cards the game is "
                                          "played with: each colour"):
        check(starter, kit)


def test_a_campaign_goal_or_an_action_or_the_hyper_card_left_out_is_found(starter):
    kit = build_kit(starter)
    kit["goals"] = [c for c in kit["goals"] if c.front.data.id != "close-call"]
    kit["actions"] = kit["actions"][1:]
    kit["specials"] = [c for c in kit["specials"] if c.front.kind != "hyper"]
    found = mismatches(starter, kit)
    adds = [m.number for m in starter.missions if "close-call" in m.goals]
    assert adds and all(any(f.startswith(f"mission {n}: the engine deals red goal cards the kit "
                                          "does not print: close-call") for f in found)
                        for n in adds)
    assert any("are played but not printed" in f for f in found)
    hyper = [m.number for m in starter.missions if m.hyper]
    assert [f for f in found if "hyper card is played" in f] == [
        f"mission {n}: the hyper card is played but not printed" for n in hyper]


def test_a_mission_whose_lives_the_card_cannot_count_is_found(starter):
    mission = dataclasses.replace(starter.missions[0], lives=8)
    campaign = dataclasses.replace(starter, missions=(mission, *starter.missions[1:]))
    assert mismatches(campaign, build_kit(campaign)) == [
        "mission 1: 8 lives, which the lives card (0 to 7) cannot count"]


def test_the_build_refuses_a_kit_that_falls_short_before_drawing(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from synergy_forge.cli import main
    from synergy_forge.printing import build as render

    def short(campaign):
        kit = build_kit(campaign)
        kit["numbers"] = kit["numbers"][:-1]
        return kit

    monkeypatch.setattr(render, "build_kit", short)
    result = CliRunner().invoke(main, ["build", "--out", str(tmp_path / "o"), "--lang", "en",
                                       "--no-png", "--jobs", "1"])
    assert result.exit_code == 1, result.output
    assert "the kit does not hold the cards the game is played with" in result.output
    assert "purple number cards the kit does not print: {5: 1}" in result.output
    assert not list((tmp_path / "o").rglob("*.pdf"))
