"""The smaller things a new user met in issue 22's trial, each held by a test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from synergy_forge.cli import main


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_play_says_when_goals_were_passed_so_played_and_scored_goals_agree():
    result = run("play", "6", "--seed", "2", "--players", "4")  # Pass it right
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    played = next(i for i, line in enumerate(lines) if line.startswith("  played:"))
    assert lines[played + 1].startswith("  goals-right: every goal card passes to the right "
                                        "(R4); now seat 0 ")
    goals = [part.split(", ")[1] for part in lines[played].split(" | ")]
    assert f"now seat 0 {goals[1]}, seat 1 {goals[2]}, seat 2 {goals[3]}, seat 3 {goals[0]}" \
        in lines[played + 1]


@pytest.mark.slow
def test_replay_names_the_rule_a_refused_second_number_card_breaks(tmp_path):
    log = tmp_path / "game.jsonl"
    assert run("play", "10", "--seed", "3", "--quiet", "--log", str(log)).exit_code == 0
    lines = log.read_text().splitlines()
    seen = set()
    for number, line in enumerate(lines):
        record = json.loads(line)
        if record.get("kind") != "second-number" or record["round"] != 1:
            continue
        if seen == {"R9", "hand"}:
            # Both refusals named already (by the first seat's forgeries): every other seat's
            # card is refused by the same two checks, and each forgery costs a replay (0.1 s;
            # all four seats were 20 replays).
            break
        for value, color in [*((v, record["choice"]["color"]) for v in range(1, 6)),
                             (1, "purple")]:  # nobody at this table plays purple
            forged = dict(record, choice={"value": value, "color": color})
            if forged == record:
                continue
            path = tmp_path / f"forged-{number}-{value}-{color}.jsonl"
            path.write_text("\n".join([*lines[:number], json.dumps(forged), *lines[number + 1:]])
                            + "\n")
            result = run("replay", str(path))
            assert result.exit_code == 1
            if f"{path}:{number + 1}:1: error: illegal: seat {record['seat']} cannot choose" \
                    in result.output:
                assert result.output.rstrip().endswith((
                    "for second-number (R9: the card must keep every challenge)",
                    "for second-number (the card must be in your hand)")), result.output
                seen.add("R9" if "R9" in result.output else "hand")
    assert seen == {"R9", "hand"}  # mission 10's challenges refuse some cards in the hand


def test_a_campaign_with_errors_exits_1_from_every_command_given_it(tmp_path):
    import shutil

    from synergy_forge.resources import starter_campaign

    broken = tmp_path / "broken"
    shutil.copytree(starter_campaign(), broken)
    mission = broken / "missions" / "08-heavy-lifting.yaml"
    mission.write_text(mission.read_text().replace("minimum-5", "minimum-6"))
    for args in (["validate", str(broken)], ["build", str(broken), "--out", str(tmp_path / "o")],
                 ["playtest", str(broken), "--games", "1"], ["tune", str(broken)],
                 ["play", str(mission)]):
        result = run(*args)
        assert result.exit_code == 1, (args, result.output)
        assert "unknown challenge 'minimum-6' (did you mean 'minimum-5'?)" in result.output, args


def test_a_goal_symbol_that_is_a_colours_symbol_is_warned_about(tmp_path):
    from workspace import validate_files

    goal = ("id: peak\nname: Peak\nsymbol: '{}'\ntext: Be the highest.\n"
            "rule: '(sum - 1) in others'\n")
    campaign = "name: C\nmissions: [missions/*.yaml]\ngoals: [goals/*.yaml]\n"
    mission = "id: m\nnumber: 1\ntitle: M\nstars: 1\nrounds: 2\nlives: 3\n"
    said = {}
    for name, symbol in (("equal", "▲"), ("within", "▲1"), ("other", "+1")):
        report = validate_files(tmp_path / name, {
            "c/campaign.yaml": campaign, "c/missions/m.yaml": mission,
            "c/goals/peak.yaml": goal.format(symbol)}, [Path("c")])
        said[symbol] = [d.message for d in report.diagnostics if d.check == "goal.symbol"]
    assert said["+1"] == [] and said["▲1"] and said["▲"] == [
        "'▲' is the symbol of the second colour (yellow unless renamed): on that colour's card "
        "it would read '▲ ▲'; choose another"]


def test_the_rulebook_lists_only_the_campaign_goals_the_kit_prints(tmp_path):
    """A campaign goal no mission adds to its goal deck is not printed; the rulebook neither
    counts nor lists it (issue 22: "10 goal cards of this campaign", 5 printed)."""
    import shutil

    from synergy_forge.authoring.loading import read_campaign
    from synergy_forge.cardtext.i18n import Translator
    from synergy_forge.printing.html import html_for
    from synergy_forge.printing.jobs import Job, Options
    from synergy_forge.resources import starter_campaign

    folder = tmp_path / "camp"
    shutil.copytree(starter_campaign(), folder)
    spare = folder / "goals" / "spare.yaml"
    spare.write_text((folder / "goals" / "close-call.yaml").read_text().replace(
        "id: close-call", "id: spare-goal").replace("Close call", "Spare goal"))
    campaign = read_campaign(folder).campaign
    assert campaign is not None and "spare-goal" in campaign.rulebook.goals
    html, _ = html_for(Job("rulebook", "en"), campaign, Options(png=False), Translator("en"))
    assert "Spare goal" not in html and "Close call" in html
    assert "5 goal cards of this campaign" in html
