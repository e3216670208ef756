"""`replay` verifies, it does not trust: every tampered log the fuzzing
campaign found confirmed is refused at its first bad line, and the log is read as a stream."""

from __future__ import annotations

import itertools
import json
import shutil

import pytest
from click.testing import CliRunner

from synergy_forge.authoring import gamelog
from synergy_forge.authoring.gamelog import MAX_LINE, ReplayError, replay
from synergy_forge.cli import main
from synergy_forge.resources import starter_campaign


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def lines(tmp_path_factory):
    """A lost game of mission 22 (the super card, H and F), as its log's lines."""
    log = tmp_path_factory.mktemp("log") / "g.jsonl"
    result = run("play", "22", "--players", "4", "--seed", "3", "--bots", "random", "--log", log)
    assert result.exit_code == 0, result.output
    return log.read_text(encoding="utf-8").splitlines()


def refused(lines, line, words):
    with pytest.raises(ReplayError) as caught:
        replay(lines)
    assert caught.value.line == line, caught.value
    assert words in caught.value.message, caught.value
    return caught.value


def changed(lines, index, change):
    record = json.loads(lines[index])
    change(record)
    return [*lines[:index], json.dumps(record), *lines[index + 1:]]


def first(lines, kind):
    return next(i for i, text in enumerate(lines) if f'"kind":"{kind}"' in text)


def test_the_untouched_log_replays(lines):
    assert replay(lines).outcome is not None


def test_a_header_cannot_redefine_the_built_in_goals(lines):
    def forge(header):
        header["definitions"] = [{"id": gid, "name": gid, "text": gid, "rule": "true"}
                                 for gid in header["mission"]["goals"]]
    refused(changed(lines, 0, forge), 1, "is a built-in id; a log cannot redefine it")


def test_the_header_mission_is_checked_as_validate_checks_a_file(lines):
    def forge(header):
        header["mission"]["rounds"] = 50
        header["mission"]["challenges"] = ["goals-left", "goals-right"]
    refused(changed(lines, 0, forge), 1, "the mission is not valid")


@pytest.mark.parametrize(("change", "words"), [
    (lambda h: h.update(format=99), "log format 99 is not one this version reads"),
    (lambda h: h.update(definitions=5), "'definitions' must be a list"),
    (lambda h: h.update(players=4.0), "4.0 is not a whole number: write 4"),
    (lambda h: h.update(seed="3"), "'seed' must be a whole number"),
    (lambda h: h.update(injected=1), "unknown field 'injected'"),
    (lambda h: h.pop("colors"), "missing the required field 'colors'"),
    (lambda h: h["mission"].update(lives=True), "'mission.lives' must be a whole number"),
    (lambda h: (h["mission"]["goals"].__setitem__(-1, "mine"), h.update(definitions=[
        {"id": "mine", "name": "M", "text": "M", "rule": "lipsum() == 1"}])),
     "unknown variable 'lipsum'"),
])
def test_a_forged_game_record_is_refused_at_line_1(lines, change, words):
    refused(changed(lines, 0, change), 1, words)


@pytest.mark.parametrize(("change", "words"), [
    (lambda r: r.update(round=99), "the engine asks for seat"),
    (lambda r: r.update(seat=(r["seat"] + 1) % 4), "the engine asks for seat"),
    (lambda r: r.update(injected=True), "unknown field 'injected'"),
    (lambda r: r.pop("choice"), "missing the required field 'choice'"),
    (lambda r: r.update(round=str(r["round"])), "'round' must be a whole number"),
    (lambda r: r.update(round=float(r["round"])), "is not a whole number"),
    (lambda r: r.update(seat=bool(r["seat"])), "'seat' must be a whole number"),
    (lambda r: r["choice"].update(value=5.9), "'choice"),
    (lambda r: r["choice"].update(value=True), "'choice"),
    (lambda r: r.update(choice=None), "the choice cannot be read"),
    (lambda r: r.update(choice=r["choice"]["value"]), "the choice cannot be read"),
])
def test_a_forged_decision_is_refused_at_its_line(lines, change, words):
    index = first(lines, "first-number")
    refused(changed(lines, index, change), index + 1, words)


def test_a_missing_action_choice_is_not_a_pass(lines):
    index = first(lines, "action")
    refused(changed(lines, index, lambda r: r.pop("choice")), index + 1, "'choice'")


def test_an_end_record_that_disagrees_is_named(lines):
    flip = {"won": "lost", "lost": "won"}
    forged = changed(lines, len(lines) - 1, lambda r: r.update(result=flip[r["result"]]))
    refused(forged, len(lines), "the log says")
    refused([*lines, lines[-1]], len(lines) + 1, "records after the end of the game")


def test_a_truncated_log_says_what_is_missing(lines):
    refused(lines[:5], 6, "the log ends early: expected seat")
    error = refused(lines[:-1], len(lines), "the log has no end record; the engine finished")
    assert "None" not in error.message
    refused([*lines[:5], lines[5][: len(lines[5]) // 2]], 6, "not JSON")
    refused([*lines[:-1], lines[5]], len(lines), "expected the end record, found a record of "
            "type 'decision'")


@pytest.mark.parametrize(("text", "words"), [
    ('{"type": "game", "seed": Infinity}', "Infinity is not a number JSON allows"),
    ("[" * 100_000, "nested too deeply"),
    ('{"type": "game", "type": "game"}', "appears twice"),
    ("{}", "the first record must be the game record"),
    ("1" * 5000, "not valid JSON"),
])
def test_a_hostile_first_line_is_an_error_at_line_1(text, words):
    refused([text], 1, words)


def test_the_log_is_read_as_a_stream(lines):
    # Endless logs: the first bad line ends the replay; nothing more is read.
    refused(itertools.repeat("{}"), 1, "the first record must be the game record")
    refused(itertools.chain(lines[:1], itertools.repeat("{}")), 2, "expected seat")


def test_the_command_reads_a_bounded_line_at_a_time(tmp_path, lines):
    huge = tmp_path / "huge.jsonl"
    with open(huge, "w") as handle:
        handle.write(lines[0] + "\n")
        handle.write(" " * (MAX_LINE + 10) + "\n")
    result = run("replay", huge)
    assert result.exit_code == 2  # a line that cannot be read
    assert "huge.jsonl:2:1: error: the line is longer than 256 KiB" in result.output
    zeros = tmp_path / "zeros.jsonl"
    with open(zeros, "wb") as handle:
        handle.truncate(50 * 1024 * 1024)  # 50 MB of NULs, sparse
    result = run("replay", zeros)
    assert result.exit_code == 2 and "zeros.jsonl:1:1: error: the line is longer" in \
        result.output


def test_unreadable_logs_exit_2(tmp_path):
    assert run("replay", "/dev/zero").exit_code == 2
    assert run("replay", tmp_path / "missing.jsonl").exit_code == 2
    assert run("replay", tmp_path).exit_code == 2


def test_a_log_with_a_byte_order_mark_replays_as_validate_reads_one(tmp_path, lines):
    log = tmp_path / "bom.jsonl"
    log.write_bytes(b"\xef\xbb\xbf" + ("\n".join(lines) + "\n").encode("utf-8"))
    result = run("replay", log)
    assert result.exit_code == 0, result.output


# --- A log is confirmed only against the mission and definitions it names -----------------

def play_log(tmp_path, *args):
    log = tmp_path / "g.jsonl"
    result = run("play", *args, "--bots", "random", "--quiet", "--log", log)
    assert result.exit_code == 0, result.output
    return log.read_text(encoding="utf-8").splitlines()


def replayed(tmp_path, lines, *options):
    log = tmp_path / "forged.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return run("replay", log, *options)


def test_a_starter_log_is_confirmed_against_the_starter_campaign(tmp_path, lines):
    result = replayed(tmp_path, lines)
    assert result.exit_code == 0, result.output
    assert "(same outcome as recorded; mission the-captain as in the starter campaign)" in \
        result.output


def test_forged_rounds_are_refused_at_the_header(tmp_path, lines):
    """The issue's forgery: a lost game with only the header's rounds lowered (the rounds'
    decisions cut to match) replayed "Won"."""
    header = json.loads(lines[0])
    played = max(json.loads(line)["round"] for line in lines[1:-1])
    assert played >= 2
    header["mission"]["rounds"] = played - 1
    cut = [json.dumps(header), *(line for line in lines[1:-1]
                                 if json.loads(line)["round"] < played)]
    end = json.loads(lines[-1])
    end.update(result="won", reason=None, rounds_played=played - 1, rounds_won=played - 1)
    result = replayed(tmp_path, [*cut, json.dumps(end)])
    assert result.exit_code == 1, result.output
    assert ":1:1: error: the log's mission the-captain is not the one in the starter campaign's" \
        in result.output
    assert f"its rounds is {played - 1}, the mission's" in result.output


def test_a_goal_redefined_under_the_same_id_is_refused_at_the_header(tmp_path):
    lines = play_log(tmp_path, "21", "--seed", "5")
    header = json.loads(lines[0])
    (mine,) = [d for d in header["definitions"] if d["id"] == "close-call"]
    mine["rule"] = "true"  # same id, name and text: every round a success for this goal
    result = replayed(tmp_path, [json.dumps(header), *lines[1:]])
    assert result.exit_code == 1, result.output
    assert "the log's 'close-call' is not the starter campaign's: its rule is" in result.output
    header["definitions"] = []
    result = replayed(tmp_path, [json.dumps(header), *lines[1:]])
    assert result.exit_code == 1 and "leaves out the starter campaign's definition" in \
        result.output


def test_a_log_of_another_campaign_is_self_contained_unless_its_campaign_is_given(
        tmp_path, monkeypatch):
    campaign = tmp_path / "c"
    shutil.copytree(starter_campaign(), campaign)
    mission = campaign / "missions" / "21-close-calls.yaml"
    mission.write_text(mission.read_text(encoding="utf-8").replace(
        "id: close-calls", "id: my-close-calls"), encoding="utf-8")
    lines = play_log(tmp_path, mission, "--seed", "2")
    result = replayed(tmp_path, lines)
    assert result.exit_code == 0, result.output
    assert "self-contained: mission not verified" in result.output
    result = replayed(tmp_path, lines, "--campaign", campaign)
    assert result.exit_code == 0 and "mission my-close-calls as in campaign" in result.output
    monkeypatch.chdir(campaign / "missions")  # the campaign replay runs in, as play finds it
    result = replayed(tmp_path, lines)
    assert result.exit_code == 0 and "mission my-close-calls as in campaign" in result.output
    monkeypatch.chdir(tmp_path)
    goal = campaign / "goals" / "close-call.yaml"
    goal.write_text(goal.read_text(encoding="utf-8").replace("sum - 1", "sum - 2"),
                    encoding="utf-8")
    result = replayed(tmp_path, lines, "--campaign", campaign)
    assert result.exit_code == 1 and "the log's 'close-call' is not campaign" in result.output


def test_unused_definitions_are_refused_before_they_cost_anything(tmp_path, lines,
                                                                 monkeypatch):
    header = json.loads(lines[0])
    header["definitions"] = [{"id": f"unused-{i}", "name": "U", "text": "U",
                              "rule": " and ".join(["sum > value"] * 40)} for i in range(64)]
    def checked(*args, **kwargs):
        raise AssertionError("a definition was checked")  # 23.6 s for these 64, before

    monkeypatch.setattr(gamelog, "definition_from", checked)
    result = replayed(tmp_path, [json.dumps(header), *lines[1:]])
    assert result.exit_code == 1, result.output
    assert "definition 1 (unused-0) is not a goal or challenge of mission the-captain" in \
        result.output


# --- What is compared is what changes play -------------------------------------------------

def test_a_log_of_a_mission_only_re_rated_re_titled_or_reordered_is_confirmed(tmp_path):
    """Stars, title, flavour, comments, key order and the goal deck's order change no game:
    the log of the mission before still replays as that mission (its deal from its own
    order), confirmed."""
    lines = play_log(tmp_path, "21", "--seed", "4")
    campaign = tmp_path / "c"
    shutil.copytree(starter_campaign(), campaign)
    mission = campaign / "missions" / "21-close-calls.yaml"
    text = mission.read_text(encoding="utf-8")
    for old, new in [("stars: 3", "stars: 5"), ('{en: "Close calls"', '{en: "Near misses"'),
                     ("goals: [one-higher, one-lower, equal, close-call,",
                      "goals: [close-call, equal, one-lower, one-higher,"),
                     ("rounds: 4\nlives: 3", "lives: 3  # harder?\nrounds: 4")]:
        assert old in text
        text = text.replace(old, new)
    mission.write_text(text, encoding="utf-8")
    goal = campaign / "goals" / "close-call.yaml"
    goal.write_text(goal.read_text(encoding="utf-8").replace(
        "Be exactly 1 away", "Be just 1 away"), encoding="utf-8")
    result = replayed(tmp_path, lines, "--campaign", campaign)
    assert result.exit_code == 0, result.output
    assert "mission close-calls as in campaign" in result.output


def test_a_log_whose_mission_plays_otherwise_now_is_refused_naming_the_change(tmp_path):
    lines = play_log(tmp_path, "21", "--seed", "4")
    campaign = tmp_path / "c"
    shutil.copytree(starter_campaign(), campaign)
    mission = campaign / "missions" / "21-close-calls.yaml"
    mission.write_text(mission.read_text(encoding="utf-8").replace(
        "actions: [F, G]", "actions: [F]"), encoding="utf-8")
    result = replayed(tmp_path, lines, "--campaign", campaign)
    assert result.exit_code == 1, result.output
    assert 'its actions is ["F", "G"], the mission\'s ["F"]' in result.output
