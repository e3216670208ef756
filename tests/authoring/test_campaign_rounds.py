"""Rounds belong to campaigns: `judge` and `validate` read a round file with the
goals, challenges and colours of the campaign it sits in (or `judge --campaign DIR`), and a
round's every problem shows in one run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.files import run

from synergy_forge.resources import starter_campaign

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
CLOSE_CALL = """\
seats:
  - {numbers: [1, 2], goal: close-call}
  - {numbers: [2, 2], goal: unique}
  - {numbers: [3, 1], goal: equal}
challenges: [odd-sum]
"""

def program(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The real program, started from `cwd`."""
    return subprocess.run([sys.executable, "-m", "synergy_forge", *args], cwd=cwd, env=ENV,
                          capture_output=True, text=True, timeout=300)



@pytest.fixture
def campaign(tmp_path) -> Path:
    folder = tmp_path / "starter"
    shutil.copytree(starter_campaign(), folder)
    (folder / "rounds").mkdir()
    (folder / "rounds" / "close.yaml").write_text(CLOSE_CALL)
    return folder


def test_judge_reads_a_round_with_the_starter_campaigns_own_goal_and_challenge(campaign):
    result = program("judge", "rounds/close.yaml", cwd=campaign)
    assert result.returncode == 0, result.stderr
    assert "seat 0, red: 1 + 2 = 3; goal close-call; others' sums 4, 4; met" in result.stdout
    assert "breaks odd-sum" in result.stdout
    assert "using the campaign of ./campaign.yaml" in result.stderr


def test_judge_campaign_option_names_the_campaign_of_a_round_elsewhere(campaign, tmp_path):
    (tmp_path / "close.yaml").write_text(CLOSE_CALL)
    alone = run("judge", "close.yaml", cwd=tmp_path)
    assert alone.returncode == 2 and "unknown goal 'close-call'" in alone.stderr
    given = run("judge", "--campaign", str(campaign), "close.yaml", cwd=tmp_path)
    assert given.returncode == 0, given.stderr
    assert "goal close-call" in given.stdout and "using" not in given.stderr


def test_validate_checks_a_campaigns_rounds_with_its_definitions(campaign):
    clean = run("validate", cwd=campaign)
    assert clean.returncode == 0, clean.stdout
    (campaign / "rounds" / "typo.yaml").write_text(CLOSE_CALL.replace("close-call", "close-cal"))
    result = run("validate", cwd=campaign)
    assert result.returncode == 1
    assert f"{os.path.join('rounds', 'typo.yaml')}:2:" in result.stdout
    assert "unknown goal 'close-cal'" in result.stdout
    assert "close.yaml" not in result.stdout


def test_a_round_using_a_broken_campaign_goal_hears_it_has_an_error(campaign):
    goal = campaign / "goals" / "close-call.yaml"
    goal.write_text(goal.read_text().replace("rule: ", "rule: sum +* 1 ==  # ", 1))
    result = run("judge", "rounds/close.yaml", cwd=campaign)
    assert result.returncode == 2
    assert "goal 'close-call' has an error (goals/close-call.yaml:" in result.stderr
    assert "unknown goal" not in result.stderr
    assert result.stderr.count("[definition.rule]") == 1  # the definition's own error, once


def test_a_round_shows_its_schema_and_rules_errors_in_one_run(tmp_path):
    # R15 (a super holder using H), R12 (two actions for one seat), an unknown field and a
    # colour count that does not match: all in one run.
    (tmp_path / "round.yaml").write_text("""\
seats:
  - {numbers: [1, 2], goal: unique}
  - {numbers: [2, 2], goal: unique}
  - {numbers: [3, 1], goal: equal}
super: 0
colors: [red, yellow, green, blue]
tabel: 3
actions:
  - {card: H, seat: 0}
  - {card: F, seat: 1, target: 1}
  - {card: G, seat: 1, target: 2}
""")
    result = run("judge", "round.yaml", cwd=tmp_path)
    assert result.returncode == 2
    for expected in ("tabel", "[round.colors]", "(R15)", "(R12)"):
        assert expected in result.stderr, result.stderr


def test_a_round_whose_seats_have_schema_errors_still_hears_of_its_unknown_goal(campaign):
    # The seats cannot be set out to the rules (a 7, a seat with one number), yet the goal
    # and challenge ids they name are checked in the same run, with a suggestion as for a
    # mission.
    (campaign / "rounds" / "typo.yaml").write_text("""\
seats:
  - {numbers: [2, 7], goal: close-cal}
  - {numbers: [3], goal: unique}
  - {numbers: [3, 1], goal: equal}
challenges: [od-sum]
actions: [{card: Z, seat: 5}]
""")
    result = run("judge", "rounds/typo.yaml", cwd=campaign)
    assert result.returncode == 2
    errors = [line for line in result.stderr.splitlines() if ": error: " in line]
    assert len(errors) == 6, result.stderr  # four schema errors, two unknown ids
    assert "typo.yaml:2:29: error: unknown goal 'close-cal' (did you mean 'close-call'?); " \
        "expected one of " in result.stderr
    assert "typo.yaml:5:14: error: unknown challenge 'od-sum' (did you mean 'odd-sum'?)" \
        in result.stderr
    # A goal the schema refuses is said once, by the schema.
    (campaign / "rounds" / "typo.yaml").write_text(CLOSE_CALL.replace(
        "goal: close-call", "goal: Close-Call").replace("[1, 2]", "[1]"))
    refused = run("judge", "rounds/typo.yaml", cwd=campaign)
    assert refused.returncode == 2
    assert "unknown goal" not in refused.stderr and "Close-Call" in refused.stderr


def test_judge_suggests_the_goal_a_round_misspelt_as_validate_does_for_a_mission(campaign):
    (campaign / "rounds" / "close.yaml").write_text(CLOSE_CALL.replace("close-call",
                                                                       "close-cal"))
    result = run("judge", "rounds/close.yaml", cwd=campaign)
    assert result.returncode == 2
    assert "unknown goal 'close-cal' (did you mean 'close-call'?)" in result.stderr
