"""Commands given no campaign use the one they run in, as git finds its repository:
the campaign.yaml of the current folder or the nearest one above it, said on stderr; the
bundled starter campaign only when there is none, and they say so too."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.files import run

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def program(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The real program, started from `cwd`."""
    return subprocess.run([sys.executable, "-m", "synergy_forge", *args], cwd=cwd, env=ENV,
                          capture_output=True, text=True, timeout=300)



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
    from synergy_forge.authoring.loading import find_campaign

    (tmp_path / "campaign.yaml").write_text("name: outer\n")
    inner = tmp_path / "sub" / "inner"
    (inner / "missions").mkdir(parents=True)
    (inner / "campaign.yaml").write_text("name: inner\n")
    assert find_campaign(inner / "missions") == inner.resolve()
    assert find_campaign(tmp_path / "sub") == tmp_path.resolve()


def test_a_file_deep_in_a_campaign_finds_it_and_the_search_ends_at_the_repositorys_root(
        tmp_path):
    from synergy_forge.authoring.loading import find_campaign

    (tmp_path / "campaign.yaml").write_text("name: outer\n")
    deep = tmp_path / "missions" / "drafts" / "old" / "more"
    deep.mkdir(parents=True)
    assert find_campaign(deep / "m.yaml") == tmp_path.resolve()  # four folders up
    (tmp_path / "missions" / "drafts" / ".git").mkdir()  # a repository of its own
    assert find_campaign(deep / "m.yaml") is None
    with contextlib.chdir(deep):
        assert find_campaign(Path("m.yaml")) is None
        assert find_campaign(Path(".")) is None


@pytest.fixture
def the_gap(tmp_path) -> Path:
    """A new campaign's mission made in missions/ by its bare name, playing the campaign's
    own challenge and goal card."""
    assert run("new", "campaign", ".", cwd=tmp_path).returncode == 0
    assert run("new", "mission", "missions/02-the-gap.yaml", cwd=tmp_path).returncode == 0
    mission = tmp_path / "missions" / "02-the-gap.yaml"
    text = mission.read_text()
    mission.write_text(text.replace("challenges: []", "challenges: [odd-sum]")
                       + "goals: [close-call, unique, equal, between, one-higher, one-lower, "
                         "second-highest]\n")
    return tmp_path


@pytest.mark.parametrize("args", [
    ("validate", "02-the-gap.yaml"),
    ("validate", "."),
    ("play", "02-the-gap.yaml", "--quiet", "--seed", "3"),
    ("playtest", "02-the-gap.yaml", "--games", "2", "--bots", "random", "--players", "3",
     "--jobs", "1"),
    ("tune", "02-the-gap.yaml", "--budget", "400", "--games", "25", "--players", "3",
     "--jobs", "1"),
], ids=lambda args: " ".join(args[:2]))
def test_a_file_named_by_its_bare_name_is_read_with_its_campaigns_definitions(the_gap, args):
    result = run(*args, cwd=the_gap / "missions")
    # tune may find no answer in so small a budget (exit 1): what counts is that it read
    # the mission with its campaign's definitions and played it.
    assert result.returncode == (1 if "search:" in result.stdout and args[0] == "tune"
                                 and "agrees" not in result.stdout else 0), \
        result.stdout + result.stderr
    assert "unknown" not in result.stdout + result.stderr


def test_a_mission_made_by_its_bare_name_in_missions_joins_the_campaign(the_gap):
    made = run("new", "mission", "03-the-end.yaml", cwd=the_gap / "missions")
    assert made.returncode == 0, made.stderr
    text = (the_gap / "missions" / "03-the-end.yaml").read_text()
    # numbered after the campaign's missions, in its languages, naming its copy of the schemas
    assert "number: 3 " in text and 'fr: "The end"' in text
    assert text.startswith("# yaml-language-server: $schema=../.synergy/schemas/mission.")
    # the comment's own command works as written
    assert "#   synergy-forge validate 03-the-end.yaml" in text
    assert run("validate", "03-the-end.yaml", cwd=the_gap / "missions").returncode == 0


def test_a_round_named_by_its_bare_name_is_validated_as_judge_reads_it(the_gap):
    (the_gap / "rounds").mkdir(exist_ok=True)  # `new campaign` makes it, with a round
    (the_gap / "rounds" / "first.yaml").write_text(
        "seats:\n  - {numbers: [1, 2], goal: close-call}\n  - {numbers: [2, 2], goal: unique}"
        "\n  - {numbers: [3, 1], goal: equal}\nchallenges: [odd-sum]\n")
    checked = run("validate", "first.yaml", cwd=the_gap / "rounds")
    assert checked.returncode == 0, checked.stdout
    judged = run("judge", "first.yaml", cwd=the_gap / "rounds")
    assert judged.returncode == 0 and "goal close-call" in judged.stdout, judged.stderr


def test_a_folder_inside_a_campaign_given_as_one_means_that_campaign_and_says_so(campaign,
                                                                                 tmp_path):
    built = run("build", ".", "--out", str(tmp_path / "out"), "--jobs", "1", "--no-png",
                cwd=campaign / "missions")
    assert built.returncode == 1  # the campaign's own mistake, not "cannot read the file"
    assert "cannot read" not in built.stderr and "maximun-7" in built.stderr
    assert ". has no campaign.yaml: using the campaign of ../campaign.yaml" in built.stderr
    played = run("playtest", ".", "--games", "2", cwd=campaign / "goals")
    assert played.returncode == 1 and "maximun-7" in played.stderr
    assert "using the campaign of ../campaign.yaml" in played.stderr


def test_a_folder_in_no_campaign_given_as_one_is_refused(tmp_path):
    for args in (("build", "--out", str(tmp_path / "out")), ("playtest",), ("tune",),
                 ("schemas",)):
        result = run(*args, str(tmp_path), cwd=tmp_path)
        assert result.returncode == 2, (args, result.stderr)
        assert "no campaign here" in result.stderr and "Traceback" not in result.stderr
