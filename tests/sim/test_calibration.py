"""playtest --human: people's games from logs, beside the skill ladder, and the skill that
best explains them."""

from __future__ import annotations

import json
from collections.abc import Callable

from click.testing import CliRunner

from synergy_forge.cli import main
from synergy_forge.resources import starter_campaign
from synergy_forge.sim.calibration import beyond, fit
from synergy_forge.sim.ladder import Curve


def _levels(rates: list[float]) -> Callable[[float], float]:
    """A ladder of four seats whose tables win these shares of 100 games each (0 to 4
    experts): its win rate over skill."""
    return Curve(4, [round(r * 100) for r in rates], [100] * 5).rate


def test_the_fitted_skill_is_where_the_ladder_wins_as_often_as_the_people():
    levels = _levels([0.1, 0.3, 0.5, 0.7, 0.9])  # W(s) = 0.1 + 0.8 s
    best, low, high = fit(levels, 50, 100)
    assert abs(best - 0.5) <= 0.011 and low < best < high
    # More games, a narrower range around the same skill.
    best4, low4, high4 = fit(levels, 200, 400)
    assert abs(best4 - 0.5) <= 0.011 and high4 - low4 < high - low
    # People who win more often than the expert are explained by the top of the ladder.
    assert fit(levels, 99, 100)[0] == 1.0
    assert fit(levels, 0, 100)[0] == 0.0
    assert fit(levels, 0, 0) is None


def _logs(tmp_path, seeds, people):
    folder = tmp_path / "logs"
    folder.mkdir()
    mission = str(starter_campaign() / "missions" / "01-first-notes.yaml")
    for seed in seeds:
        path = folder / f"game-{seed}.jsonl"
        played = CliRunner().invoke(main, ["play", mission, "--players", "3", "--seed",
                                           str(seed), "--bots", "greedy", "--log", str(path),
                                           "--quiet"])
        assert played.exit_code == 0, played.output
        lines = path.read_text().splitlines(keepends=True)
        header = json.loads(lines[0])
        header["bots"] = ["person"] * people + ["greedy"] * (3 - people)  # as the table writes
        path.write_text(json.dumps(header) + "\n" + "".join(lines[1:]))
    return folder


def test_human_logs_are_replayed_and_set_beside_the_estimate(tmp_path):
    folder = _logs(tmp_path, range(1, 5), people=2)
    result = CliRunner().invoke(main, ["playtest", "--human", str(folder), "--games", "10",
                                       "--jobs", "1", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    (found,) = report["calibrations"]
    assert found["id"] == "first-notes" and found["players"] == 3
    assert found["people"]["games"] == 4 and found["people"]["people_seats"] == 8
    assert [r["skill"] for r in found["estimate"]["rungs"]] == report["rungs"]
    assert 0.0 <= found["fitted_skill"] <= 1.0 and found["enough_games"] is False
    wins = found["people"]["wins"]
    assert found["people"]["ci_low"] <= wins / 4 <= found["people"]["ci_high"]
    # A file works as well as a folder; the text names the people's rate and the fit.
    text = CliRunner().invoke(main, ["playtest", "--human", str(folder / "game-1.jsonl"),
                                     "--games", "10", "--jobs", "1"])
    assert text.exit_code == 0, text.output
    assert "people: " in text.stdout and "best explained by skill" in text.stdout
    assert "only 1 game(s)" in text.stdout


def test_human_logs_without_people_and_bad_logs(tmp_path):
    folder = _logs(tmp_path, [1], people=0)
    result = CliRunner().invoke(main, ["playtest", "--human", str(folder), "--games", "5",
                                       "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert "1 game(s) without a person left out" in result.stdout
    assert "nothing to calibrate" in result.stdout
    # A log the engine disagrees with: a located error, no traceback.
    bad = folder / "game-1.jsonl"
    lines = bad.read_text().splitlines(keepends=True)
    bad.write_text("".join(lines[:3]))
    broken = CliRunner().invoke(main, ["playtest", "--human", str(folder)])
    assert broken.exit_code == 1, broken.output
    assert f"{bad}:" in broken.output and "Traceback" not in broken.output
    empty = tmp_path / "empty"
    empty.mkdir()
    none = CliRunner().invoke(main, ["playtest", "--human", str(empty)])
    assert none.exit_code == 2 and "no *.jsonl game log" in none.output


def test_a_flat_ladder_does_not_place_people_in_its_middle():
    everyone_wins = _levels([1.0, 1.0, 1.0, 1.0, 1.0])
    # Losing where every level wins: below the whole ladder, at its lowest skill, not 0.5.
    assert fit(everyone_wins, 0, 2)[0] == 0.0 and beyond(everyone_wins, 0, 2) == "below"
    # Winning where every level loses: above the whole ladder, at its top.
    no_one_wins = _levels([0.0, 0.0, 0.0, 0.0, 0.0])
    assert fit(no_one_wins, 2, 2)[0] == 1.0 and beyond(no_one_wins, 2, 2) == "above"
    # People who never win where novices never do: the least skill that explains them.
    assert fit(_levels([0.0, 0.0, 0.5, 1.0, 1.0]), 0, 2)[0] == 0.0
    assert beyond(_levels([0.1, 0.3, 0.5, 0.7, 0.9]), 50, 100) is None


EVEN_KEEL = """\
id: even-keel
name: {en: "Even keel"}
symbol: "2n"
text: {en: "Your sum is even."}
rule: "sum is even"
"""

EASY = """\
id: easy
number: 2
title: {en: "Easy"}
stars: 1
players: [3]
rounds: 1
lives: 3
hand: {numbers: 6, goals: 1}
allowed_failures: 1
actions: [F, H]
goals: [even-keel]
"""

def test_people_who_lose_where_every_level_wins_are_below_the_ladder_not_above_it(tmp_path):
    camp = tmp_path / "camp"
    assert CliRunner().invoke(main, ["new", "campaign", str(camp)]).exit_code == 0
    (camp / "goals" / "even-keel.yaml").write_text(EVEN_KEEL)
    (camp / "missions" / "02-easy.yaml").write_text(EASY)
    folder = tmp_path / "logs"
    folder.mkdir()
    for seed in (1, 2):  # random bots lose these two games: people's losses
        path = folder / f"game-{seed}.jsonl"
        CliRunner().invoke(main, ["play", str(camp / "missions" / "02-easy.yaml"), "--players",
                                  "3", "--seed", str(seed), "--bots", "random", "--log",
                                  str(path), "--quiet"])
        lines = path.read_text().splitlines(keepends=True)
        assert json.loads(lines[-1])["result"] == "lost"
        header = json.loads(lines[0])
        header["bots"] = ["person"] * 3
        path.write_text(json.dumps(header) + "\n" + "".join(lines[1:]))
    args = ["playtest", "--human", str(folder), "--games", "20", "--jobs", "1"]
    result = CliRunner().invoke(main, [*args, "--json"])
    assert result.exit_code == 0, result.output
    (found,) = json.loads(result.stdout)["calibrations"]
    # Even a table of novices wins most of its games here.
    assert found["estimate"]["rungs"][0]["win_rate"] > 0.5
    assert found["fitted_edge"] == "below" and found["fitted_skill"] == 0.0
    text = CliRunner().invoke(main, args)
    assert "below the ladder: they won less often than a table of novices (" in text.stdout
    assert "above" not in text.stdout


def test_human_logs_follow_play_not_stars_or_titles(tmp_path):
    """Issue 43 item 6: a re-rated, re-titled mission keeps its people's games; one whose
    play changed since is named, left out, and counted apart only when asked."""
    import shutil

    folder = _logs(tmp_path, [1, 2], people=2)
    campaign = tmp_path / "camp"
    shutil.copytree(starter_campaign(), campaign)
    mission = campaign / "missions" / "01-first-notes.yaml"
    original = mission.read_text(encoding="utf-8")
    mission.write_text(original.replace("stars: 1", "stars: 2").replace(
        '{en: "First notes"', '{en: "Opening notes"'), encoding="utf-8")
    args = ["playtest", str(campaign), "--human", str(folder), "--games", "5", "--jobs", "1"]
    result = CliRunner().invoke(main, [*args, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    (found,) = report["calibrations"]
    assert found["title"] == "Opening notes" and found["people"]["games"] == 2
    assert report["changed"] == []

    mission.write_text(original.replace("lives: 3", "lives: 2"), encoding="utf-8")
    text = CliRunner().invoke(main, args)
    assert text.exit_code == 0, text.output
    assert "2 log(s) of a mission whose play changed since, left out" in text.stdout
    assert f"{folder / 'game-1.jsonl'}: 1 first-notes: lives 3 → 2" in text.stdout
    assert "nothing to calibrate" in text.stdout
    report = json.loads(CliRunner().invoke(main, [*args, "--json"]).stdout)
    assert report["calibrations"] == []
    assert report["changed"][0]["changes"] == [{"subject": "mission", "id": "first-notes",
                                                "key": "lives", "log": 3, "campaign": 2}]
    counted = json.loads(CliRunner().invoke(main, [*args, "--json", "--include-changed"]).stdout)
    (found,) = counted["calibrations"]
    assert found["people"]["games"] == 2 and counted["changed"][0]["included"] is True
