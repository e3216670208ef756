"""tune: the closest setting in a star band, found with few games, the same on any executor,
written into the designer's file without losing a comment."""

from __future__ import annotations

import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from synergy_forge.authoring.edit import (
    EditError,
    candidate_problems,
    edit_mission_text,
    rewrite_mission,
)
from synergy_forge.authoring.loading import mission_from_data, read_mission_file
from synergy_forge.authoring.yamlfile import parse_document
from synergy_forge.cli import main
from synergy_forge.core.cards import Action
from synergy_forge.core.mission import Mission
from synergy_forge.sim import playtest as pt
from synergy_forge.sim.executors import LocalPool
from synergy_forge.sim.knobs import Setting, grid_size
from synergy_forge.sim.tune import TargetFit, band, first_look, reserve, tables, tune

COLORS = ("red", "yellow", "green", "blue", "purple")
SHORT = Mission(id="short", number=1, title={"en": "Short"}, stars=1, rounds=3, lives=3,
                players=(3,), allowed_failures={3: 1}, hand_numbers=6, hand_goals=4)
#: Games per setting: few, as tune is built to need (its sequential tests stop early).
GAMES = 40
#: What the search tests tune: SHORT in one round and one life, 2 or 3 stars and so too easy
#: for 4. Its games are short, so its search (eight settings, rounds 1 -> 2 found in the
#: first batch) is cheap and exercises the same: the original played in full, the far end,
#: a batch of candidates, sequential stops, and the tuned file verified as playtest plays it.
ONE_ROUND = replace(SHORT, rounds=1, lives=1)
TARGET = 4


@pytest.fixture(scope="module")
def tuned(rulebook):
    return tune(ONE_ROUND, rulebook, COLORS, TARGET, games=GAMES, executor=LocalPool(1))


@pytest.mark.slow
def test_tune_proposes_a_setting_in_the_band_that_playtest_then_agrees_with(rulebook, tuned):
    assert tuned.original.fit is TargetFit.TOO_EASY
    assert tuned.proposal is not None and tuned.proposal.fit is TargetFit.IN_BAND
    mission = tuned.tuned
    assert mission is not None and mission.stars == TARGET
    low, high = band(TARGET)
    # Accepted only with its whole range inside the band, on tune's own games.
    reading = tuned.proposal.reading
    assert reading.skill_low is not None and reading.skill_high is not None
    assert low <= reading.skill_low and reading.skill_high < high
    # The very games `playtest --seed 1 --players 3 --check` plays (its default 100, the
    # same seeds): it agrees, and it is the estimate tune reports under "after:".
    cells = pt.run([pt.Playable(mission, rulebook, COLORS)], ["expert"], [3], 100, seed=1,
                   jobs=1)
    [estimate] = pt.estimates(cells)
    assert not estimate.fails_check
    assert tuned.proposal.verified is not None
    assert estimate.skill == tuned.proposal.verified.skill
    assert estimate.expert == tuned.proposal.verified.expert
    # On other deals the tuned mission still rates its stars: its range was inside the band,
    # not a point inside with the range across a bound.
    for seed in (2, 3):
        cells = pt.run([pt.Playable(mission, rulebook, COLORS)], ["expert"], [3], 100,
                       seed=seed, jobs=1)
        [again] = pt.estimates(cells)
        assert again.fewest <= TARGET <= again.most, (seed, again.reading)


def test_tune_moves_every_knob_towards_harder_for_a_mission_that_is_too_easy(tuned):
    before, after = tuned.original.setting, tuned.proposal.setting
    assert after.rounds >= before.rounds and after.lives <= before.lives
    assert after.hand_numbers <= before.hand_numbers and after.hand_goals <= before.hand_goals
    assert dict(after.allowed_failures)[3] <= dict(before.allowed_failures)[3]
    assert before.changes(after)


def test_tune_spends_far_fewer_games_than_a_grid_over_the_same_knobs(tuned):
    per_setting = tables(tuned.counts)  # every setting plays each table of the ladder
    assert tuned.games * 4 <= grid_size(ONE_ROUND) * GAMES * per_setting
    # Sequential tests: a setting clearly outside the band stops at its first look (25 games
    # per table), before the full number of games (the verification of the answer aside).
    assert tuned.games < tuned.tried * GAMES * per_setting + 3 * 100 * per_setting


@pytest.mark.slow
def test_tune_gives_the_same_answer_on_one_process_and_on_the_pool(rulebook):
    # The search of the tests above, on one process and on two.
    alone = tune(ONE_ROUND, rulebook, COLORS, TARGET, games=GAMES, executor=LocalPool(1))
    again = tune(ONE_ROUND, rulebook, COLORS, TARGET, games=GAMES, executor=LocalPool(2))
    assert alone.proposal is not alone.original and alone.tried > 1
    assert again.proposal.setting == alone.proposal.setting
    assert again.games == alone.games
    assert again.proposal.tally == alone.proposal.tally


def test_tune_leaves_a_mission_already_in_its_band_as_it_is(rulebook, tuned):
    result = tune(tuned.tuned, rulebook, COLORS, TARGET, games=GAMES, executor=LocalPool(1))
    assert result.proposal is result.original
    assert result.tried == 1


def test_a_candidate_must_pass_validate_checks(rulebook):
    assert candidate_problems(SHORT, rulebook) == []
    too_long = replace(SHORT, rounds=8)  # R23: at most 7 rounds
    assert any(d.check == "mission.rounds" for d in candidate_problems(too_long, rulebook))
    never_fails = replace(SHORT, allowed_failures={3: 3})
    assert any(d.check == "mission.allowed-failures"
               for d in candidate_problems(never_fails, rulebook))


FILE = """\
# yaml-language-server: $schema=../schemas/mission.schema.json
id: short   # the id stays
number: 1
title: {en: "Short"}
stars: 1

rounds: 3      # three to win
lives: 3
hand: {numbers: 6, goals: 4}
allowed_failures: 1   # one may miss
flavor:
  en: "Text."
"""

def _read(text: str) -> Mission:
    return mission_from_data(parse_document(text.encode(), "m.yaml").data)


def test_edit_changes_only_the_values_and_keeps_comments_order_and_layout():
    before = _read(FILE)
    after = replace(before, stars=3, rounds=5, hand_numbers=5,
                    allowed_failures={3: 0, 4: 1, 5: 1})
    out = edit_mission_text(FILE, "m.yaml", before, after)
    assert out == FILE.replace("stars: 1", "stars: 3").replace("rounds: 3 ", "rounds: 5 ") \
        .replace("numbers: 6", "numbers: 5") \
        .replace("allowed_failures: 1 ", "allowed_failures: {3: 0, 4: 1, 5: 1} ")
    assert _read(out) == replace(after, source="")


def test_edit_adds_missing_keys_after_their_neighbours_and_edits_block_collections():
    text = textwrap.dedent("""\
        id: short
        number: 1
        title: Short
        stars: 2
        rounds: 3
        lives: 3
        hand:
          goals: 4   # fewer goals
        challenges: [minimum-5]
        actions:
          - F
          - H
        """)
    before = _read(text)
    after = replace(before, hand_numbers=8, allowed_failures={3: 1, 4: 1, 5: 1},
                    actions=(Action.F, Action.H, Action.D))
    out = edit_mission_text(text, "m.yaml", before, after)
    assert "  numbers: 8\n  goals: 4   # fewer goals\nallowed_failures: 1\nchallenges" in out
    assert out.endswith("actions:\n  - F\n  - H\n  - D\n")
    assert _read(out) == after
    removed = replace(before, actions=(Action.H,), lives=2)
    out = edit_mission_text(text, "m.yaml", before, removed)
    assert out.endswith("actions:\n  - H\n") and "lives: 2\n" in out
    assert _read(out) == removed


def test_edit_refuses_a_file_written_as_one_flow_mapping_rather_than_guess():
    text = "{id: short, number: 1, title: Short, stars: 2, rounds: 3, lives: 3}\n"
    before = _read(text)
    with pytest.raises(EditError):
        edit_mission_text(text, "m.yaml", before, replace(before, actions=(Action.F,)))
    # Values already in the file are still changed in place.
    assert "rounds: 4" in edit_mission_text(text, "m.yaml", before, replace(before, rounds=4))


def test_write_mission_is_atomic_in_place_and_keeps_the_file_mode(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text(FILE)
    path.chmod(0o600)
    before = _read(FILE)
    rewrite_mission(path, FILE, before, replace(before, lives=2))
    assert "lives: 2\n" in path.read_text() and "# one may miss" in path.read_text()
    assert path.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["m.yaml"]


#: docs/scale.md, whose examples of tune's report the CLI tests below hold to what tune prints.
SCALE = (Path(__file__).resolve().parents[2] / "docs" / "scale.md").read_text(
    encoding="utf-8")


def _shape(line: str) -> str:
    """A report line without its figures, the stars they give and a one-point range."""
    import re

    line = re.sub(r"\d+(?:[.,]\d+)*", "N", line)
    return re.sub(r"(between N and N stars|N stars?)", "STARS", line).replace(" [N, N]", "")


def _campaign(tmp_path: Path, missions: dict[str, str]) -> Path:
    (tmp_path / "campaign.yaml").write_text(
        "name: Test\nmissions: [missions/*.yaml]\ngoals: [goals/*.yaml]\n")
    (tmp_path / "goals").mkdir()
    (tmp_path / "goals" / "always.yaml").write_text(
        'id: always\nname: Always\ntext: "Any sum will do."\nrule: "sum >= 0"\n')
    (tmp_path / "missions").mkdir()
    for name, text in missions.items():
        (tmp_path / "missions" / name).write_text(text)
    return tmp_path


EASY = """\
id: easy
number: 1
title: Easy   # every goal is met
stars: 1
players: [3]
rounds: 1
lives: 1
goals: [always]
"""


def test_tune_cli_says_a_band_out_of_reach_clearly_and_exits_1(tmp_path):
    folder = _campaign(tmp_path, {"01-easy.yaml": EASY})
    path = folder / "missions" / "01-easy.yaml"
    result = CliRunner().invoke(main, ["tune", str(path), "--stars", "3", "--games", "50",
                                       "--jobs", "1", "--write"])
    assert result.exit_code == 1, result.output
    assert "at most 1 star with these challenges; the closest is" in result.output
    assert path.read_text() == EASY  # nothing written
    # docs/scale.md shows this very line (the far end plays one batch, whatever --games).
    [shown] = [line for line in SCALE.splitlines() if "with these challenges; the" in line]
    assert shown.strip() in result.output


def test_tune_never_plays_more_games_than_its_budget(rulebook, tuned):
    # Every game at every level of the ladder counts. A batch is played only if it fits: the
    # search stopped short of the budget (it once played the batch that crossed it, and a
    # batch of four candidates at three player counts is 1,500 games).
    for budget in (first_look([3], GAMES), 400, tuned.games - 1):
        short = tune(ONE_ROUND, rulebook, COLORS, TARGET, games=GAMES, budget=budget,
                     executor=LocalPool(1))
        assert short.games <= budget, (budget, short.games)
        # Either the budget ran out, or (a batch it could not pay for left out) an answer was
        # found all the same; never an answer that was not checked as playtest would.
        assert short.exhausted or (short.proposal is not None and short.proposal.checked)
        # A setting counts as played once it has played a game.
        assert short.tried <= -(-short.games // (first_look([3], GAMES) - reserve([3])))


def test_tune_cli_refuses_a_budget_that_cannot_pay_for_a_first_look(tmp_path):
    folder = _campaign(tmp_path, {"01-easy.yaml": EASY})
    result = CliRunner().invoke(main, ["tune", str(folder / "missions" / "01-easy.yaml"),
                                       "--stars", "3", "--budget", "399", "--jobs", "1"])
    assert result.exit_code == 2, result.output
    assert "399 games cannot pay for a first look at a mission: 400 games (25 at each table " \
        "of the skill ladder, n + 1 tables at n players, and up to 300 to check an answer " \
        "as playtest does)" in result.output


@pytest.mark.slow
def test_tune_cli_writes_the_change_and_playtest_check_then_passes(tmp_path):
    # One round and one life, to 4 stars: the search of the tests above (rounds 1 -> 2), now
    # from the command line, written into the file.
    path = tmp_path / "short.yaml"
    path.write_text(FILE.replace("number: 1", "number: 1\nplayers: [3]")
                    .replace("rounds: 3      # three to win", "rounds: 1      # one to win")
                    .replace("lives: 3", "lives: 1"))
    runner = CliRunner()
    result = runner.invoke(main, ["tune", str(path), "--stars", str(TARGET), "--games",
                                  str(GAMES), "--jobs", "1", "--write"])
    assert result.exit_code == 0, result.output
    assert "-stars: 1" in result.output and f"+stars: {TARGET}" in result.output
    assert "written to" in result.output and "search:" in result.output
    assert "# one to win" in path.read_text()
    mission = read_mission_file(path).mission
    assert mission.stars == TARGET
    # The confirm line plays the very games of the figure under "after:": tune
    # verified the tuned file as a default playtest plays it (the same seeds and counts), so
    # the command prints exactly that figure, and its --check passes.
    import re
    import shlex

    confirm = next(line.split("confirm: ", 1)[1] for line in result.output.splitlines()
                   if "confirm: " in line)
    after = re.search(r"after: +(.*) \((needs skill [^;]*); experts \d+%, (\d+) games\)",
                      result.output)
    assert after, result.output
    args = shlex.split(confirm)
    assert args[:2] == ["synergy-forge", "playtest"] and "--check" in args
    check = runner.invoke(main, [*args[1:], "--jobs", "1"])
    assert check.exit_code == 0, check.output
    assert after.group(1) in check.output and after.group(2) in check.output, \
        (result.output, check.output)
    assert args[args.index("--games") + 1] == "100"
    # docs/scale.md's example (a minute and a half of games) says what this run says, in the
    # same words and with the same command to confirm it.
    start = SCALE.index("$ synergy-forge tune ")
    example = SCALE[start:SCALE.index("```", start)].splitlines()
    for label in ("  before: ", "  after:  ", "  search: "):
        [documented] = [_shape(line) for line in example if line.startswith(label)]
        assert documented in map(_shape, result.output.splitlines()), documented
    documented = next(line for line in example if "confirm" in line).split(": ", 1)[1]
    assert [a for a in shlex.split(documented) if a.startswith("-")] == \
        [a for a in args if a.startswith("-")]


def test_tune_cli_on_a_campaign_tunes_only_missions_that_disagree(tmp_path):
    agreeing = EASY
    wrong = EASY.replace("id: easy", "id: wrong").replace("number: 1", "number: 2") \
        .replace("stars: 1", "stars: 4")
    folder = _campaign(tmp_path, {"01-easy.yaml": agreeing, "02-wrong.yaml": wrong})
    result = CliRunner().invoke(main, ["tune", str(folder), "--games", "50", "--jobs", "1"])
    assert result.exit_code == 1  # "wrong" cannot reach 4 stars: every goal is met
    assert "agrees: nothing to change at 1 star" in result.output
    assert "1 of 2 missions at their stars with the changes above; 1 cannot reach them" \
        in result.output
    assert "  1 Easy: 1★ agrees\n  2 Easy: 4★: out of reach (1 star at best)" in result.output
    bad = CliRunner().invoke(main, ["tune", str(folder), "--stars", "2"])
    assert bad.exit_code == 2 and "--stars" in bad.output


def test_setting_changes_name_every_knob_that_moved():
    before = Setting.of(SHORT)
    after = replace(before, rounds=4, actions=(Action.F,))
    assert before.changes(after) == [("rounds", 3, 4), ("action cards", "none", "F")]


def test_candidates_come_nearest_first_and_an_action_card_costs_two_steps():
    from synergy_forge.sim.knobs import candidates as _candidates

    mission = replace(SHORT, actions=(Action.F,))
    found = list(_candidates(mission, harder=True, with_actions=True))
    distances = [c[0] for c in found]
    assert distances == sorted(distances) and distances[0] == 0
    for distance, offsets, variant, setting in found:
        assert distance == sum(offsets) + (2 if variant else 0)
        assert len(set(setting.actions) ^ {Action.F}) == (1 if variant else 0)
        # Towards harder only: never more lives, failures or cards than the original.
        assert setting.lives <= 3 and setting.hand_numbers <= 6 and setting.rounds >= 3
    assert {tuple(s.actions) for *_, s in found} >= {(), (Action.F,), (Action.F, Action.A)}


@pytest.mark.parametrize("harder", [False, True])
def test_tune_never_names_a_setting_validate_would_warn_about(rulebook, harder):
    """On a five-goal-card deck the far end was `lives 2 -> 7`, which validate warns
    about (R23: only deck - rounds + 1 lives can ever be lost); neither the far end nor any
    candidate may earn a warning the mission did not have."""
    from synergy_forge.sim.knobs import candidates as _candidates
    from synergy_forge.sim.knobs import extreme_setting

    five = replace(SHORT, goals=("equal", "unique", "between", "one-higher", "one-lower"),
                   hand_goals=5, rounds=3, lives=2)
    assert not candidate_problems(five, rulebook, warnings=True)
    far = extreme_setting(five, harder)
    assert not candidate_problems(far.apply(five, 3), rulebook, warnings=True), far
    if not harder:
        assert far.rounds == 1 and far.lives == 5
    for _, _, _, setting in _candidates(five, harder, False):
        assert not [d for d in candidate_problems(setting.apply(five, 3), rulebook,
                                                  warnings=True)
                    if d.check == "mission.lives"], setting
