"""`play` and `replay` as a newcomer uses them."""

from __future__ import annotations

import json

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
    # A mission with validate's errors: 1, as from validate and build (issue 22).
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
