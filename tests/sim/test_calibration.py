"""playtest --human: people's games from logs, replayed against their campaign, through one
model of people across its missions (sim.people; the model's own checks: test_people.py)."""

from __future__ import annotations

import json
import re
import shutil

from click.testing import CliRunner

from synergy_forge.cli import main
from synergy_forge.cli.output import HTML_REPORT
from synergy_forge.resources import starter_campaign


def _campaign(tmp_path, keep=("01-first-notes.yaml", "03-quiet-room.yaml")):
    """The starter campaign cut to a few missions: every mission is played on the ladder."""
    camp = tmp_path / "camp"
    shutil.copytree(starter_campaign(), camp)
    for path in (camp / "missions").iterdir():
        if path.name not in keep:
            path.unlink()
    return camp


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


def test_human_logs_fit_one_model_over_every_mission_of_the_campaign(tmp_path):
    """Issue 40 item 6: a prediction for every mission and player count, played or not."""
    camp = _campaign(tmp_path)
    folder = _logs(tmp_path, range(1, 5), people=2)
    args = ["playtest", str(camp), "--human", str(folder), "--games", "4", "--jobs", "1"]
    result = CliRunner().invoke(main, [*args, "--json"])
    assert result.exit_code == 0, result.output
    people = json.loads(result.stdout)["people"]
    cells = {(m["id"], m["players"]): m for m in people["missions"]}
    assert set(cells) == {(m, p) for m in ("first-notes", "quiet-room") for p in (3, 4, 5)}
    played = cells[("first-notes", 3)]
    assert played["games"] == 4 and played["people_seats"] == 8 and played["number"] == 1
    assert 0 <= played["wins"] <= 4 and len(played["logs"]) == 4
    for cell in cells.values():
        predicted = cell["predicted"]
        assert 0 <= predicted["low"] <= predicted["win_rate"] <= predicted["high"] <= 1
        assert [r["skill"] for r in cell["ladder"]] == [0.0, 0.25, 0.5, 0.75, 1.0]
        assert [t["experts"] for t in cell["tables"]] == list(range(cell["players"] + 1))
        assert cell["games"] == 0 or cell is played
    population = people["population"]
    assert 0 <= population["low"] <= population["skill"] <= population["high"] <= 1
    assert people["games"] == 4 and people["level"] == 0.9
    assert [d["id"] for d in people["discrepancies"]] == ["first-notes"]
    # Each mission once, at the count its games would teach the most.
    assert sorted(n["id"] for n in people["next"]) == ["first-notes", "quiet-room"]
    assert all(n["information_bits"] >= 0 for n in people["next"])
    # The text says the same in words; the HTML page is a report --html may replace.
    page = tmp_path / "people.html"
    text = CliRunner().invoke(main, [*args, "--html", str(page)])
    assert text.exit_code == 0, text.output
    assert "people: a typical table plays at skill" in text.stdout
    assert "1 First notes: 3p " in text.stdout and "playtest next" in text.stdout
    html = page.read_bytes()
    assert html.startswith(HTML_REPORT.start) and b"A quiet room" in html


def test_human_logs_without_people_and_bad_logs(tmp_path):
    camp = _campaign(tmp_path, keep=("01-first-notes.yaml",))
    folder = _logs(tmp_path, [1], people=0)
    result = CliRunner().invoke(main, ["playtest", str(camp), "--human", str(folder),
                                       "--games", "2", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert "1 game(s) without a person left out" in result.stdout
    assert "no game with a person in these logs" in result.stdout
    # A log the engine disagrees with: a located error, no traceback.
    bad = folder / "game-1.jsonl"
    lines = bad.read_text().splitlines(keepends=True)
    bad.write_text("".join(lines[:3]))
    broken = CliRunner().invoke(main, ["playtest", str(camp), "--human", str(folder)])
    assert broken.exit_code == 1, broken.output
    assert f"{bad}:" in broken.output and "Traceback" not in broken.output
    empty = tmp_path / "empty"
    empty.mkdir()
    none = CliRunner().invoke(main, ["playtest", str(camp), "--human", str(empty)])
    assert none.exit_code == 2 and "no *.jsonl game log" in none.output


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


def test_people_who_keep_losing_where_even_novices_win_contradict_the_ladder(tmp_path):
    camp = tmp_path / "camp"
    assert CliRunner().invoke(main, ["new", "campaign", str(camp)]).exit_code == 0
    (camp / "goals" / "even-keel.yaml").write_text(EVEN_KEEL)
    (camp / "missions" / "02-easy.yaml").write_text(EASY)
    folder = tmp_path / "logs"
    folder.mkdir()
    for seed in (1, 2, 4, 8, 12, 15, 22, 25):  # random bots lose these: people's losses
        path = folder / f"game-{seed}.jsonl"
        CliRunner().invoke(main, ["play", str(camp / "missions" / "02-easy.yaml"), "--players",
                                  "3", "--seed", str(seed), "--bots", "random", "--log",
                                  str(path), "--quiet"])
        lines = path.read_text().splitlines(keepends=True)
        assert json.loads(lines[-1])["result"] == "lost"
        header = json.loads(lines[0])
        header["bots"] = ["person"] * 3
        path.write_text(json.dumps(header) + "\n" + "".join(lines[1:]))
    args = ["playtest", str(camp), "--human", str(folder), "--games", "20", "--jobs", "1"]
    result = CliRunner().invoke(main, [*args, "--json"])
    assert result.exit_code == 0, result.output
    people = json.loads(result.stdout)["people"]
    (easy,) = [m for m in people["missions"] if m["id"] == "easy"]
    assert easy["ladder"][0]["win_rate"] > 0.5  # even a table of novices wins most games
    (found,) = people["discrepancies"]
    assert found["id"] == "easy" and found["contradicts"] and found["high"] < 0
    assert easy["predicted"]["win_rate"] < easy["ladder_only"]["win_rate"]
    text = CliRunner().invoke(main, args)
    assert "2 Easy: people win less often than the ladder says at their skill (0 of 8" \
        in text.stdout


def test_human_logs_follow_play_not_stars_or_titles(tmp_path):
    """A re-rated, re-titled mission keeps its people's games; one whose
    play changed since is named, left out, and counted apart only when asked."""
    folder = _logs(tmp_path, [1, 2], people=2)
    campaign = _campaign(tmp_path, keep=("01-first-notes.yaml",))
    mission = campaign / "missions" / "01-first-notes.yaml"
    original = mission.read_text(encoding="utf-8")
    rerated = re.sub(r"^stars: .*$", "stars: 5", original, flags=re.M)
    assert rerated != original
    mission.write_text(rerated.replace('{en: "First notes"', '{en: "Opening notes"'),
                       encoding="utf-8")
    args = ["playtest", str(campaign), "--human", str(folder), "--games", "2", "--jobs", "1"]
    result = CliRunner().invoke(main, [*args, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    found = [m for m in report["people"]["missions"] if m["games"]]
    assert [(m["title"], m["players"], m["games"]) for m in found] == [("Opening notes", 3, 2)]
    assert report["changed"] == []

    mission.write_text(original.replace("lives: 3", "lives: 2"), encoding="utf-8")
    text = CliRunner().invoke(main, args)
    assert text.exit_code == 0, text.output
    assert "2 log(s) of a mission whose play changed since, left out" in text.stdout
    assert f"{folder / 'game-1.jsonl'}: 1 first-notes: lives 3 → 2" in text.stdout
    report = json.loads(CliRunner().invoke(main, [*args, "--json"]).stdout)
    assert report["people"]["games"] == 0
    assert report["changed"][0]["changes"] == [{"subject": "mission", "id": "first-notes",
                                                "key": "lives", "log": 3, "campaign": 2}]
    counted = json.loads(CliRunner().invoke(main, [*args, "--json", "--include-changed"]).stdout)
    apart = [m for m in counted["people"]["missions"] if not m["in_campaign"]]
    assert [(m["id"], m["players"], m["games"]) for m in apart] == [("first-notes", 3, 2)]
    assert counted["changed"][0]["included"] is True
