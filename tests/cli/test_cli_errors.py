"""Errors and exit codes, as a user and a CI job see them: every error of the package carries
its exit code (README "Exit codes"), the CLI maps them in one place, parameter types name the
option they refuse, and GitHub annotations are escaped."""

from __future__ import annotations

import importlib
import json
import os
import re
from pathlib import Path
from unittest import mock

import click
import pytest
from click.testing import CliRunner

from synergy_forge.authoring.diagnostics import Diagnostic, HasErrors, InvalidInput, Severity
from synergy_forge.authoring.edit import EditError
from synergy_forge.authoring.gamelog import ReplayError, UnreadableLog, replay_log
from synergy_forge.cli import main
from synergy_forge.cli.exits import exit_code
from synergy_forge.cli.params import BOTS, CARD_SIZE, PLAYER_COUNTS
from synergy_forge.core.choices import IllegalChoice
from synergy_forge.core.referee import IllegalRound, Problem
from synergy_forge.core.rulelang import RuleError
from synergy_forge.errors import (
    CannotRun,
    CannotWrite,
    ChangedMeanwhile,
    CheckFailed,
    NoCampaign,
    SynergyForgeError,
)
from synergy_forge.reporting.validation import annotation, escape_data, escape_property
from synergy_forge.resources import starter_campaign

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize(("error", "code"), [
    (InvalidInput([]), 2),
    (HasErrors([]), 1),
    (RuleError("the rule does not compile", "goals/x.yaml:4"), 2),
    (IllegalRound([Problem(("seats", 0), "no such card")]), 2),
    (IllegalChoice("seat 1 cannot play that", "R9"), 1),
    (ReplayError(4, "the engine asks seat 1"), 1),
    (UnreadableLog(5, "not JSON"), 2),
    (CheckFailed(), 1),
    (CannotWrite("out/x.pdf", "cannot write: Permission denied"), 2),
    (ChangedMeanwhile("m.yaml"), 1),
    (EditError("m.yaml: a layout this editor does not change"), 1),
    (NoCampaign("x/campaign.yaml: no campaign"), 2),
    (CannotRun("cannot listen"), 2),
])
def test_every_error_is_a_synergy_forge_error_and_the_cli_gives_its_exit_code(error, code):
    assert isinstance(error, SynergyForgeError)
    assert exit_code(error) == code


@pytest.mark.parametrize(("error", "code"), [
    (KeyboardInterrupt(), 130), (BrokenPipeError(), 141), (FileNotFoundError(), 2),
    (ValueError("a bug"), 3)])
def test_what_is_not_an_error_of_ours_has_its_exit_code_in_the_same_table(error, code):
    assert exit_code(error) == code


def test_no_layer_below_the_cli_carries_an_exit_code():
    """The numbers are the command line's (cli/exits.py): an error type says what went
    wrong, and nothing else in the package names an exit code."""
    import ast

    import synergy_forge

    package = Path(synergy_forge.__file__).parent
    found = []
    for path in sorted(package.rglob("*.py")):
        if path.parent.name == "cli" or path.parent.parent.name == "cli":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            name = node.attr if isinstance(node, ast.Attribute) else \
                node.id if isinstance(node, ast.Name) else getattr(node, "arg", None)
            if isinstance(name, str) and (name == "exit_code" or name.startswith("EXIT_")):
                found.append(f"{path.relative_to(package)}:{node.lineno}")
    assert found == [] or all(f.startswith("__main__.py") for f in found), found


def test_layer_errors_stay_value_errors_for_their_callers():
    assert issubclass(RuleError, ValueError) and issubclass(IllegalRound, ValueError)
    assert issubclass(IllegalChoice, ValueError)


# -- replay: any unreadable line exits 2, the first disagreeing record exits 1 ---------------

@pytest.fixture(scope="module")
def game_log(tmp_path_factory) -> list[str]:
    log = tmp_path_factory.mktemp("log") / "game.jsonl"
    assert run("play", "12", "--seed", "2", "--bots", "random", "--log", str(log)).exit_code == 0
    return log.read_text().splitlines()


def replay_lines(tmp_path: Path, lines: list[str]):
    path = tmp_path / "g.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return run("replay", str(path)), str(path)


def test_replay_exits_2_for_a_line_that_is_not_json_past_the_first(tmp_path, game_log):
    lines = list(game_log)
    lines[4] = "{not json"
    result, path = replay_lines(tmp_path, lines)
    assert result.exit_code == 2
    assert result.output == f"{path}:5:2: error: not JSON: expecting property name enclosed " \
        "in double quotes\n"


def test_a_log_cut_off_mid_line_is_located_where_json_stopped(tmp_path, game_log):
    """The user trial: a log cut off inside a string said `49:1: error: not JSON: Unterminated
    string starting at (column 48)`; the place goes in the location, once, for every reader
    of a log (replay, playtest --human)."""
    last = game_log[-2]
    quote = last.index('"kind":"') + len('"kind":')  # the string the cut leaves open
    lines = [*game_log[:-2], last[: quote + 4]]
    result, path = replay_lines(tmp_path, lines)
    said = f"{path}:{len(lines)}:{quote + 1}: error: not JSON: unterminated string\n"
    assert result.exit_code == 2 and result.output == said
    human = run("playtest", str(starter_campaign()), "--human", path)
    assert human.exit_code == 2 and human.stderr == said
    # A line that is not UTF-8, at the first byte that is not, counted in characters.
    Path(path).write_bytes(("\n".join(game_log[:3]) + '\n{"type":"é').encode() + b"\xff\n")
    result = run("replay", path)
    assert result.exit_code == 2
    assert result.output == f"{path}:4:11: error: the line is not UTF-8 text\n"


def test_replay_exits_2_for_a_line_that_is_not_utf8(tmp_path, game_log):
    path = tmp_path / "g.jsonl"
    path.write_bytes(("\n".join(game_log[:3]) + "\n").encode() + b"\xff\xfe\n")
    result = run("replay", str(path))
    assert result.exit_code == 2 and f"{path}:4:1: error: the line is not UTF-8" in result.output


def test_replay_exits_1_for_a_record_that_reads_but_is_not_the_game(tmp_path, game_log):
    lines = list(game_log)
    lines[2] = "[1, 2]"  # JSON, but not a decision record
    result, path = replay_lines(tmp_path, lines)
    assert result.exit_code == 1 and result.output.startswith(f"{path}:3:1: error: ")
    index = next(i for i, line in enumerate(game_log) if '"first-number"' in line)
    record = json.loads(game_log[index])
    record["choice"] = {"colour": "red"}
    lines = list(game_log)
    lines[index] = json.dumps(record)
    result, path = replay_lines(tmp_path, lines)
    assert result.exit_code == 1 and result.output.startswith(f"{path}:{index + 1}:1: error: ")


def test_replay_exits_1_for_the_first_disagreeing_record(tmp_path, game_log):
    lines = list(game_log)
    end = json.loads(lines[-1])
    end["rounds_won"] += 1
    lines[-1] = json.dumps(end)
    result, path = replay_lines(tmp_path, lines)
    assert result.exit_code == 1
    assert result.output.startswith(f"{path}:{len(lines)}:1: error: the log says")
    truncated, _ = replay_lines(tmp_path, game_log[:-1])
    assert truncated.exit_code == 1 and "the log has no end record" in truncated.output


def test_replay_error_has_structured_fields(game_log):
    """A log with a record after its end: replay_log raises a ReplayError whose fields name
    the file, the first bad line and what is wrong, and whose message is built from them."""
    lines = [*game_log, game_log[-1]]
    with pytest.raises(ReplayError) as caught:
        replay_log(lines, "g.jsonl")
    error = caught.value
    assert (error.file, error.line, error.message) == ("g.jsonl", len(lines),
                                                       "records after the end of the game")
    assert error.format_message() == \
        f"g.jsonl:{len(lines)}:1: error: records after the end of the game"


def test_replay_of_a_missing_file_exits_2(tmp_path):
    result = run("replay", str(tmp_path / "nope.jsonl"))
    assert result.exit_code == 2
    assert f"{tmp_path / 'nope.jsonl'}:1:1: error: cannot read the log" in result.output


# -- the one mapping of errors to exit codes -----------------------------------------------

def test_a_synergy_forge_error_exits_with_its_code_and_message():
    with mock.patch("synergy_forge.workspace.validate.validate_paths",
                    side_effect=CannotWrite("x.json", "cannot write: Disk full")):
        result = run("validate", ".")
    assert result.exit_code == 2 and result.output == "x.json: cannot write: Disk full\n"


def test_a_bug_is_an_internal_error_exit_3_without_traceback():
    with mock.patch("synergy_forge.workspace.validate.validate_paths",
                    side_effect=ZeroDivisionError("oops")):
        result = run("validate")
    assert result.exit_code == 3
    assert "internal error: ZeroDivisionError: oops" in result.output
    assert "Traceback" not in result.output


def test_every_command_is_found_and_listed():
    """Every module of cli/commands is a command that `--help` lists and that answers its own
    `--help`; the group lists nothing else."""
    modules = {p.stem for p in (ROOT / "synergy_forge/cli/commands").glob("*.py")
               if not p.stem.startswith("_")}
    assert {"build", "judge", "new", "play", "playtest", "replay", "schemas", "studio", "table",
            "tune", "validate"} <= modules
    help_text = run("--help").output
    listed = help_text.split("Commands:\n", 1)[1].splitlines()
    assert {line.split()[0] for line in listed if line.strip()} == modules
    for name in sorted(modules):
        assert run(name, "--help").exit_code == 0, name
    assert run("nonsense").exit_code == 2


# -- exit codes per command (README "Exit codes") ------------------------------------------

def test_validate_exit_codes(tmp_path):
    assert run("validate").exit_code == 0
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: x\n")
    assert run("validate", str(bad)).exit_code == 1
    assert run("validate", str(tmp_path / "missing.yaml")).exit_code == 2


def test_judge_exit_codes(tmp_path):
    assert run("judge", str(ROOT / "missions/rounds/rulebook-example.yaml")).exit_code == 0
    bad = tmp_path / "round.yaml"
    bad.write_text("seats: []\n")
    result = run("judge", str(bad))
    assert result.exit_code == 2 and f"{bad}:1:" in result.output
    assert run("judge").exit_code == 2


def test_play_exit_codes():
    assert run("play", "1", "--seed", "1", "--quiet").exit_code == 0
    assert run("play", "99").exit_code == 2
    wrong_count = run("play", "1", "--bots", "coop,random", "--players", "4")
    assert wrong_count.exit_code == 2 and "'--bots'" in wrong_count.output


def test_playtest_exit_codes(tmp_path):
    mission = str(starter_campaign() / "missions" / "01-first-notes.yaml")
    assert run("playtest", mission, "--games", "2", "--players", "3", "--bots",
               "coop").exit_code == 0
    assert run("playtest", str(tmp_path)).exit_code == 2  # a folder without campaign.yaml
    assert run("playtest", mission, "--players", "6").exit_code == 2


def test_a_file_that_cannot_be_read_is_an_error_of_validate_and_exit_2_where_it_is_needed(
        tmp_path):
    """validate lists a file it cannot read among its errors, located (exit 1); a command
    that needs the file it is given exits 2; the README's table says both."""
    (tmp_path / "latin1.yaml").write_bytes(b"id: caf\xe9\n")
    (tmp_path / "huge.yaml").write_bytes(b"#" * (2 * 1024 * 1024 + 1))
    unreadable = [tmp_path / "latin1.yaml", tmp_path / "huge.yaml", Path(os.devnull)]
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo.yaml")
        unreadable.append(tmp_path / "fifo.yaml")
    for path in unreadable:
        checked = run("validate", str(path))
        assert checked.exit_code == 1 and f"{path}:1:" in checked.output, checked.output
        assert run("play", str(path)).exit_code == 2
        assert run("judge", str(path)).exit_code == 2
    rows = {line.split("|")[1].strip(): line
            for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
            if re.match(r"\| \d \|", line)}
    assert "`validate` finds errors (a file it cannot read is one of them" in rows["1"]
    assert "a file named on the command line that cannot be read" in rows["2"]
    assert "to every command but `validate`" in rows["2"]


def test_new_exit_codes(tmp_path):
    assert run("new", "mission", str(tmp_path / "m.yaml")).exit_code == 0
    again = run("new", "mission", str(tmp_path / "m.yaml"))
    assert again.exit_code == 2 and f"{tmp_path / 'm.yaml'}: already exists" in again.output


# -- parameter types: one parser each, errors name the option -------------------------------

@pytest.mark.parametrize(("text", "counts"), [
    ("all", None), ("3", (3,)), ("3,4,5", (3, 4, 5)), ("5, 3", (3, 5)), ("4,4", (4,)),
])
def test_player_counts_parse(text, counts):
    assert PLAYER_COUNTS.convert(text, None, None) == counts


@pytest.mark.parametrize("text", ["6", "2", "3,7", "three", "", "3,,4"])
def test_player_counts_refuse(text):
    with pytest.raises(click.BadParameter):
        PLAYER_COUNTS.convert(text, None, None)


def test_bots_and_card_size_parse():
    assert BOTS.convert("coop, oracle", None, None) == ("coop", "oracle")
    size = CARD_SIZE.convert("63x88", None, None)
    assert (size.width, size.height) == (63.0, 88.0)


@pytest.mark.parametrize(("args", "option"), [
    (["playtest", "--players", "6"], "'--players'"),
    (["playtest", "--bots", "coop,clever"], "'--bots'"),
    (["play", "1", "--bots", "clever"], "'--bots'"),
    (["build", "--card-size", "63by88"], "'--card-size'"),
    (["build", "--card-size", "200x300"], "'--card-size'"),
])
def test_a_refused_value_names_its_option(args, option):
    result = run(*args)
    assert result.exit_code == 2
    assert f"Invalid value for {option}" in result.output


def test_playtest_takes_a_list_of_player_counts():
    mission = str(starter_campaign() / "missions" / "01-first-notes.yaml")
    result = run("playtest", mission, "--games", "2", "--players", "3,5", "--bots", "coop",
                 "--json")
    assert result.exit_code == 0, result.output
    cells = json.loads(result.stdout)["missions"][0]["results"]
    assert [c["players"] for c in cells] == [3, 5]


# -- GitHub annotations (workflow commands) ------------------------------------------------

def test_github_escapes_messages_and_properties():
    assert escape_data("100% sure\r\nnext") == "100%25 sure%0D%0Anext"
    assert escape_property("a,b:c.yaml") == "a%2Cb%3Ac.yaml"
    assert escape_property("50%,x") == "50%25%2Cx"
    line = annotation(Diagnostic("dir,1/a,b:c.yaml", 3, 7, Severity.ERROR,
                                 "two lines\nand 5% more: ok, fine", "schema.type"))
    assert line == ("::error file=dir%2C1/a%2Cb%3Ac.yaml,line=3,col=7,title=schema.type::"
                    "two lines%0Aand 5%25 more: ok, fine")


def test_validate_github_format_escapes_a_file_name(tmp_path):
    bad = tmp_path / "a,b:c.yaml"
    bad.write_text("id: x\n")
    result = run("validate", "--format", "github", str(bad))
    assert result.exit_code == 1
    escaped = str(bad).replace(":", "%3A").replace(",", "%2C")
    assert result.output.startswith(f"::error file={escaped},line=1,col=1,")


def test_every_registered_reporter_exists():
    from synergy_forge.reporting.formats import REPORTERS

    for kind, reporters in REPORTERS.items():
        for name, reporter in reporters.items():
            module = importlib.import_module(f"synergy_forge.reporting.{reporter.module}")
            assert callable(getattr(module, reporter.function)), (kind, name)


def test_format_choices_come_from_the_registry_and_json_is_the_same_as_format_json():
    from synergy_forge.reporting.formats import formats

    assert formats("validate") == ("text", "json", "github")
    assert formats("judge") == ("text", "json")
    assert formats("playtest") == ("text", "json", "html")
    round_file = str(ROOT / "missions/rounds/rulebook-example.yaml")
    assert run("judge", "--json", round_file).output == \
        run("judge", "--format", "json", round_file).output
    assert "[text|json]" in run("judge", "--help").output
    mission = str(starter_campaign() / "missions" / "01-first-notes.yaml")
    page = run("playtest", mission, "--games", "2", "--players", "3", "--bots", "coop",
               "--format", "html")
    assert page.exit_code == 0 and page.output.startswith("<!DOCTYPE html>")


def test_an_output_that_cannot_be_written_exits_2_and_names_it(tmp_path):
    (tmp_path / "file").write_text("mine\n")
    log = tmp_path / "file" / "game.jsonl"  # a folder that is a file
    result = run("play", "1", "--seed", "1", "--quiet", "--log", str(log))
    assert result.exit_code == 2 and f"{tmp_path / 'file'}: already exists" in result.output
    assert "--force" not in result.output and "Traceback" not in result.output
    assert (tmp_path / "file").read_text() == "mine\n"


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
