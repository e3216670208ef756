"""`play` and `replay` as a newcomer uses them."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from synergy_forge.cli import main


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_play_a_bundled_mission_save_and_replay(tmp_path):
    log = tmp_path / "game.jsonl"
    result = run("play", "22", "--players", "5", "--seed", "11", "--log", str(log))
    assert result.exit_code == 0, result.output
    assert 'Mission 22 "The captain": 5 players, seed 11' in result.output
    assert "Round 1" in result.output and "played: seat 0 red:" in result.output
    last = result.output.strip().splitlines()[-2:]
    assert any(line == "Won" or line.startswith("Lost: ") for line in last)
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert records[0]["type"] == "game" and records[0]["seed"] == 11
    assert records[-1]["type"] == "end"
    again = run("replay", str(log))
    assert again.exit_code == 0 and "same outcome as recorded" in again.output


def test_same_seed_same_story():
    first = run("play", "thin-ice", "--seed", "5", "--bots", "random")
    assert first.exit_code == 0
    assert first.output == run("play", "thin-ice", "--seed", "5", "--bots", "random").output


def test_play_refuses_bad_input(tmp_path):
    assert run("play", "99").exit_code == 2
    assert run("play", "1", "--bots", "clever").exit_code == 2
    bad = tmp_path / "m.yaml"
    bad.write_text("id: x\n")
    result = run("play", str(bad))
    # A mission with validate's errors: 1, as from validate and build.
    assert result.exit_code == 1 and "m.yaml:1:1: error:" in result.output
    assert "Traceback" not in result.output


def test_replay_names_the_first_bad_record(tmp_path):
    log = tmp_path / "g.jsonl"
    run("play", "12", "--seed", "2", "--bots", "random", "--log", str(log))
    lines = log.read_text().splitlines()
    record = json.loads(lines[3])
    record["seat"] = (record["seat"] + 1) % 4
    lines[3] = json.dumps(record)
    (tmp_path / "bad.jsonl").write_text("\n".join(lines) + "\n")
    result = run("replay", str(tmp_path / "bad.jsonl"))
    assert result.exit_code == 1 and "bad.jsonl:4:1: error:" in result.output
    # A line that cannot be read (not JSON) or a file that cannot be read at all exits 2; a
    # log whose lines read but are not the game (empty, or records the engine refuses), 1.
    (tmp_path / "junk.jsonl").write_text("not json\n")
    result = run("replay", str(tmp_path / "junk.jsonl"))
    assert result.exit_code == 2 and "junk.jsonl:1:1: error: not JSON" in result.output
    (tmp_path / "empty.jsonl").write_text("")
    result = run("replay", str(tmp_path / "empty.jsonl"))
    assert result.exit_code == 1 and "the log is empty" in result.output
    assert run("replay", str(tmp_path / "missing.jsonl")).exit_code == 2
    assert run("replay", str(tmp_path)).exit_code == 2


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
