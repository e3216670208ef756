"""No internal error on any input: the cases the fuzzing campaign found end
in a located error and exit 1 or 2, never "This is a bug" (exit 3) and never a hang."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from click.testing import CliRunner

from synergy_forge.cli import main
from synergy_forge.resources import starter_campaign


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def campaign(tmp_path):
    folder = tmp_path / "c"
    shutil.copytree(starter_campaign(), folder)
    return folder


@pytest.mark.parametrize("rule", ["value / 2", "none", "true", "value * 1000 + 1"])
def test_a_failing_campaign_rule_is_a_diagnostic_in_the_normal_report(campaign, rule):
    path = campaign / "challenges" / "threes-are-zero.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('rule: "0 if value == 3 else value"', f'rule: "{rule}"'),
                    encoding="utf-8")
    result = run("validate", campaign, "--format", "json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    checks = {(d["file"].rsplit("/", 1)[-1], d["check"]) for d in report["diagnostics"]}
    assert ("threes-are-zero.yaml", "definition.rule-fails") in checks
    assert ("19-dim-lights.yaml", "mission.rule-fails") in checks
    assert all(d["line"] >= 1 and d["column"] >= 1 for d in report["diagnostics"])
    for command in (["play", campaign / "missions" / "19-dim-lights.yaml", "--seed", "1"],
                    ["playtest", campaign, "--games", "1"]):
        result = run(*command)
        # The campaign's errors, said as validate says them, and its exit code.
        assert result.exit_code == 1 and "threes-are-zero.yaml:9:" in result.output, command


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
@pytest.mark.parametrize("command", [["validate"], ["judge"], ["replay"], ["play"],
                                     ["playtest"]])
def test_a_fifo_is_refused_without_blocking(tmp_path, command):
    fifo = tmp_path / "m.yaml"
    os.mkfifo(fifo)  # nobody writes: reading it would block for ever
    result = run(*command, fifo)
    assert result.exit_code in (1, 2), result.output
    assert "not a regular file" in result.output


def test_validate_with_nothing_to_check_is_a_usage_error(tmp_path):
    result = run("validate", tmp_path)
    assert result.exit_code == 2 and "no Synergy file found" in result.output
    (tmp_path / "notes.txt").write_text("not a mission")
    assert run("validate", tmp_path).exit_code == 2


def test_a_rule_giving_a_huge_number_is_refused_before_play(campaign):
    path = campaign / "challenges" / "threes-are-zero.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('rule: "0 if value == 3 else value"',
                                 'rule: "value * 10 ** 20"'), encoding="utf-8")
    result = run("play", campaign / "missions" / "19-dim-lights.yaml", "--seed", "1")
    assert result.exit_code == 1 and "a power may only be a literal 0 to 3" in result.output
