"""`synergy-forge judge` as a user runs it: verdicts exit 0, bad files exit 2 with locations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from synergy_forge.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "missions" / "rounds").glob("*.yaml"))


def run(*args: str):
    return CliRunner().invoke(main, list(args))


#: The verdicts of the bundled rounds, worked out by hand from docs/rules.md: round result,
#: failures, allowed failures, mission lost, and each seat's goal met.
VERDICTS = {
    # Goals pass right (R4); D and F change the table before the third card (R13): only
    # seat 0 misses, within the one allowed failure; the super holder, seat 1, meets its goal.
    "crossed-goals.yaml": ("success", 1, 1, False, [False, True, True, True]),
    # Seat 4 uses J (R14): its goal is ignored, so two counted failures against one allowed;
    # the hyper holder, seat 2, meets its goal, so the round fails but the mission goes on.
    "hyper-stakes.yaml": ("failure", 2, 1, False, [False, False, True, True, False]),
    # The rulebook's example: seat 1 misses one-higher, the one allowed failure.
    "rulebook-example.yaml": ("success", 1, 1, False, [True, False, True]),
}


def test_every_bundled_round_has_a_known_verdict():
    assert sorted(VERDICTS) == [p.name for p in EXAMPLES]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_bundled_rounds_are_judged(path):
    result = run("judge", str(path))
    assert result.exit_code == 0, result.output
    outcome, failures, allowed, lost, met = VERDICTS[path.name]
    plural = "" if failures == 1 else "s"
    assert f"Round: {outcome} ({failures} failure{plural}, {allowed} allowed" in result.output
    verdict = json.loads(run("judge", "--json", str(path)).output)
    assert (verdict["round"], verdict["failures"], verdict["allowed_failures"],
            verdict["mission_lost"]) == (outcome, failures, allowed, lost)
    assert [seat["success"] for seat in verdict["seats"]] == met


def test_json_output_has_the_documented_fields():
    result = run("judge", "--json", str(ROOT / "missions/rounds/rulebook-example.yaml"))
    assert result.exit_code == 0
    verdict = json.loads(result.output)
    assert verdict["round"] == "success"
    assert (verdict["failures"], verdict["allowed_failures"]) == (1, 1)
    assert verdict["mission_lost"] is False and verdict["lost_reasons"] == []
    seat = verdict["seats"][1]
    assert set(seat) == {"seat", "goal", "sum", "counted", "success", "violations", "explanation"}
    assert seat["explanation"] == "seat 1, yellow: 5 + 5 = 10; goal one-higher; " \
        "others' sums 4, 5; missed"


def test_json_output_of_a_round_that_cannot_be_judged_is_an_error_object(tmp_path):
    """A script reading `judge --json` always gets JSON: each verdict, then one error object
    for each file that cannot be judged, with its located diagnostics (exit 2)."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("seats:\n  - numbers: [2, 4]\n    goal: nope\n")
    good = ROOT / "missions/rounds/rulebook-example.yaml"
    result = CliRunner().invoke(main, ["judge", "--json", str(bad), str(good)])
    assert result.exit_code == 2
    verdict, error = (json.loads(line) for line in result.stdout.splitlines())
    assert verdict["round"] == "success"
    assert error["file"] == str(bad) and error["error"] == "the round cannot be judged"
    assert {(d["line"], d["check"]) for d in error["diagnostics"]} == {
        (2, "schema.minItems"), (3, "round.rules")}


def test_text_output_reads_like_the_table():
    result = run("judge", str(ROOT / "missions/rounds/crossed-goals.yaml"))
    assert "seat 1, yellow: 3 + 3 = 6; goal second-highest; distinct sums 7, 6; met" \
        in result.output
    assert "seat 3, blue: 2 (1+1) + 5 = 7" in result.output


def test_data_rules_give_the_same_verdict():
    path = str(ROOT / "missions/rounds/hyper-stakes.yaml")
    assert run("judge", "--json", path).output == run("judge", "--json", "--data-rules",
                                                      path).output


BAD = {
    "syntax.yaml": ("seats: [\n", ["syntax.yaml:2:1: error: YAML syntax"]),
    "empty.yaml": ("", ["empty.yaml:1:1: error: the file must be a mapping"]),
    "list.json": ("[1, 2]", ["list.json:1:1: error: the file must be a mapping"]),
    "range.yaml": (
        "seats:\n  - {numbers: [3, 7], goal: equal}\n  - {numbers: [1, 1], goal: equal}\n"
        "  - {numbers: [1, 1], goal: equal}\n",
        ["range.yaml:2:19: error: 'seats[0].numbers[1]' must be at most 5, got 7"],
    ),
    "two-seats.yaml": (
        "seats:\n  - {numbers: [3, 2], goal: equal}\n  - {numbers: [1, 1], goal: equal}\n",
        ["two-seats.yaml:2:3: error: 'seats' needs at least 3 item(s), got 2"],
    ),
    "unknown.yaml": (
        "challenges: [minimum-6]\nseats:\n  - {numbers: [3, 2], goal: equals}\n"
        "  - {numbers: [1, 1], goal: equal}\n  - {numbers: [1, 1], goal: equal}\n",
        ["unknown.yaml:1:14: error: unknown challenge 'minimum-6'",
         "unknown.yaml:3:29: error: unknown goal 'equals'"],
    ),
    "actions.yaml": (
        "hyper: 2\nseats:\n  - {numbers: [3, 2], goal: equal}\n  - {numbers: [1, 1], goal: equal}\n"
        "  - {numbers: [1, 1], goal: equal}\nactions:\n  - {card: J, seat: 2}\n"
        "  - {card: F, seat: 0, target: 3}\n  - {card: G, seat: 0, target: 1}\n"
        "  - {card: F, seat: 1, target: 1}\n",
        ["actions.yaml:7:5: error: seat 2 holds the hyper card and may not use J (R15)",
         "actions.yaml:8:32: error: target 3 is not a seat (0 to 2)",
         "actions.yaml:9:5: error: seat 0 already used action F; one action per seat (R12)",
         "actions.yaml:10:5: error: action F is used twice"],
    ),
    # S9: tables no real round can produce, each refused at the offending card.
    "copies.yaml": (
        "seats:\n  - {numbers: [5, 5], goal: equal}\n"
        "  - {numbers: [{value: 5, color: red}, 1], goal: equal}\n"
        "  - {numbers: [1, 1], goal: equal}\n",
        ["copies.yaml:3:16: error: red 5 is on the table 3 times; red has only 2 of them"],
    ),
    "copies-b.yaml": (
        "seats:\n  - {numbers: [4, 4], goal: equal}\n  - {numbers: [3, 1], goal: equal}\n"
        "  - {numbers: [1, 1], goal: equal}\nactions:\n"
        "  - {card: B, seat: 1, with: {value: 4, color: red}}\n",
        ["copies-b.yaml:6:30: error: red 4 is on the table 3 times; red has only 2 of them"],
    ),
    "colour.yaml": (
        "seats:\n  - {numbers: [3, {value: 2, color: purple}], goal: equal}\n"
        "  - {numbers: [1, 1], goal: equal}\n  - {numbers: [1, 1], goal: equal}\n",
        ["colour.yaml:2:19: error: purple 2 is of a colour nobody plays at this table "
         "(red, yellow, green)"],
    ),
    "foreign.yaml": (
        "seats:\n  - {numbers: [{value: 2, color: yellow}, 3], goal: equal}\n"
        "  - {numbers: [{value: 2, color: green}, 1], goal: equal}\n"
        "  - {numbers: [1, 1], goal: equal}\n",
        ["foreign.yaml:3:16: error: seat 1 cannot hold green 2: the one I of a mission swaps"],
    ),
    "swapped.yaml": (
        "seats:\n  - {numbers: [{value: 2, color: yellow}, 3], goal: equal}\n"
        "  - {numbers: [2, 1], goal: equal}\n  - {numbers: [1, 1], goal: equal}\n"
        "actions:\n  - {card: I, seat: 2, seats: [0, 1]}\n",
        ["swapped.yaml:2:16: error: seat 0 cannot hold yellow 2: number cards change seats only "
         "through I"],
    ),
    "alias.yaml": ("a: &x 1\nseats: *x\n", ["alias.yaml:1:4: error: anchors and aliases"]),
    "duplicate.yaml": ("seats: []\nseats: []\n", ["duplicate.yaml:2:1: error: the key 'seats'"]),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_files_exit_2_with_located_errors(tmp_path, name):
    text, expected = BAD[name]
    (tmp_path / name).write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["judge", str(tmp_path / name)])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == len(expected)
    for line, start in zip(lines, expected, strict=True):
        assert line.startswith(f"{tmp_path}/{start}")


def test_binary_and_missing_files(tmp_path):
    (tmp_path / "noise.yaml").write_bytes(bytes(range(256)) * 4)
    result = run("judge", str(tmp_path / "noise.yaml"), str(tmp_path / "missing.yaml"))
    assert result.exit_code == 2
    assert "noise.yaml:2:118: error: the file is not UTF-8" in result.output
    assert "missing.yaml:1:1: error: cannot read" in result.output
