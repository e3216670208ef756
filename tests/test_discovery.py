"""Commands given no campaign use the one they run in, as git finds its repository (issue 22):
the campaign.yaml of the current folder or the nearest one above it, said on stderr; the
bundled starter campaign only when there is none, and they say so too."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from synergy_forge.cli import main

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def program(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The real program, started from `cwd`."""
    return subprocess.run([sys.executable, "-m", "synergy_forge", *args], cwd=cwd, env=ENV,
                          capture_output=True, text=True, timeout=300)


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The command run in this process from `cwd` (an interpreter's start less each time),
    with its exit code and outputs as the program's: which campaign it finds from its folder
    is the same either way. (test_validate_inside_a_campaign_checks_that_campaign runs the
    real program.)"""
    with contextlib.chdir(cwd):
        result = CliRunner().invoke(main, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("my-missions")
    assert run("new", "campaign", ".", cwd=folder).returncode == 0
    mission = folder / "missions" / "01-my-first-mission.yaml"
    # A mistake the starter campaign does not have: validate must find it here.
    mission.write_text(mission.read_text().replace("challenges: []",
                                                   "challenges: [maximun-7]"))
    return folder


def test_validate_inside_a_campaign_checks_that_campaign(campaign):
    result = program("validate", cwd=campaign / "missions")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "unknown challenge 'maximun-7'" in result.stdout
    assert "using the campaign of ../campaign.yaml" in result.stderr


def test_playtest_and_play_inside_a_campaign_use_its_missions(campaign):
    mission = campaign / "missions" / "01-my-first-mission.yaml"
    text = mission.read_text()
    mission.write_text(text.replace("challenges: [maximun-7]", "challenges: []"))
    try:
        result = run("playtest", "--games", "2", "--bots", "random", "--players", "3",
                     "--jobs", "1", "--json", cwd=campaign / "goals")
        assert result.returncode == 0, result.stderr
        assert '"my-first-mission"' in result.stdout and '"first-notes"' not in result.stdout
        played = run("play", "my-first-mission", "--quiet", "--seed", "3", cwd=campaign)
        assert played.returncode == 0, played.stderr
        assert "using the campaign of ./campaign.yaml" in played.stderr
    finally:
        mission.write_text(text)


def test_build_inside_a_broken_campaign_reports_that_campaign(campaign, tmp_path):
    result = run("build", "--out", str(tmp_path / "out"), "--jobs", "1", "--no-png",
                 cwd=campaign / "missions")
    assert result.returncode == 1
    assert "maximun-7" in result.stderr and "using the campaign of ../campaign.yaml" in \
        result.stderr


def test_outside_any_campaign_the_starter_is_used_and_said(tmp_path):
    result = run("validate", cwd=tmp_path)
    assert result.returncode == 0, result.stdout
    assert "using the bundled starter campaign" in result.stderr


def test_a_campaign_named_on_the_command_line_is_used_without_a_word(campaign, tmp_path):
    result = run("validate", str(campaign / "goals"), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "using" not in result.stderr


def test_discovery_stops_at_the_nearest_campaign(tmp_path):
    from synergy_forge.cli.inputs import campaign_above

    (tmp_path / "campaign.yaml").write_text("name: outer\n")
    inner = tmp_path / "sub" / "inner"
    (inner / "missions").mkdir(parents=True)
    (inner / "campaign.yaml").write_text("name: inner\n")
    assert campaign_above(inner / "missions") == inner.resolve()
    assert campaign_above(tmp_path / "sub") == tmp_path.resolve()
