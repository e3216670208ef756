"""`validate`: every schema rule and semantic check points at the exact file, line and column."""

from __future__ import annotations

import json
from pathlib import Path
from unittest import mock

import pytest
from click.testing import CliRunner
from support.files import validate_files

from synergy_forge.authoring.definitions import standard_rulebook
from synergy_forge.authoring.loading import read_campaign
from synergy_forge.cli import main
from synergy_forge.core.cards import CHALLENGE_IDS, GOAL_IDS, Action, NumberCard
from synergy_forge.core.referee import SeatPlay, Table, judge
from synergy_forge.core.rulelang import RuleError
from synergy_forge.resources import schemas_dir, starter_campaign
from synergy_forge.workspace.validate import validate_paths

GOOD = """\
id: good
number: 1
title: Good
stars: 1
rounds: 3
lives: 3
"""

def found(tmp_path: Path, files: dict[str, str], target: str = ".") -> list[tuple]:
    # "." names the files written: a loose file is checked when named (a folder walk checks
    # only Synergy files, test_repository.py).
    targets = [Path(name) for name in files] if target == "." else [Path(target)]
    report = validate_files(tmp_path, files, targets)
    return [(d.file, d.line, d.column, str(d.severity), d.check) for d in report.diagnostics]


def test_a_good_mission_is_clean(tmp_path):
    assert found(tmp_path, {"m.yaml": GOOD}) == []


MISSION_CASES = {
    # name: (text to append or replace, expected (line, column, severity, check))
    "missing-field": (GOOD.replace("stars: 1\n", ""), (1, 1, "error", "schema.required")),
    "unknown-field": (GOOD + "live: 2\n", (7, 1, "error", "schema.additionalProperties")),
    "wrong-type": (GOOD.replace("rounds: 3", "rounds: three"), (5, 9, "error", "schema.type")),
    "out-of-range": (GOOD.replace("stars: 1", "stars: 6"), (4, 8, "error", "schema.maximum")),
    "bad-id": (GOOD.replace("id: good", "id: Good Mission"), (1, 5, "error", "schema.pattern")),
    "bad-enum": (GOOD + "order: number-number-goal\n", (7, 8, "error", "schema.enum")),
    "twice": (GOOD + "actions: [F, F]\n", (7, 10, "error", "schema.uniqueItems")),
    "bad-action": (GOOD + "actions: [K]\n", (7, 11, "error", "schema.enum")),
    "bad-failures": (GOOD + "allowed_failures: {6: 1}\n",
                     (7, 20, "error", "schema.enum")),
    "rounds": (GOOD.replace("rounds: 3", "rounds: 8"), (5, 9, "error", "mission.rounds")),
    "lives": (GOOD.replace("rounds: 3", "rounds: 6"), (6, 8, "warning", "mission.lives")),
    "failures-int": (GOOD + "allowed_failures: 3\n",
                     (7, 19, "error", "mission.allowed-failures")),
    "failures-map": (GOOD + "allowed_failures: {3: 0, 4: 4, 5: 1}\n",
                     (7, 29, "error", "mission.allowed-failures")),
    "failures-missing": (GOOD + "allowed_failures: {3: 0, 4: 1}\n",
                         (7, 19, "error", "mission.allowed-failures")),
    "failures-extra": (GOOD + "players: [3]\nallowed_failures: {3: 0, 5: 1}\n",
                       (8, 26, "warning", "mission.allowed-failures")),
    "unknown-challenge": (GOOD + "challenges: [minimum-5, maximum-8]\n",
                          (7, 25, "error", "mission.unknown-challenge")),
    "passing": (GOOD + "challenges: [goals-left, goals-right]\n",
                (7, 13, "error", "mission.passing")),
    "unsatisfiable": (GOOD + "challenges:\n  - low-to-high\n  - high-to-low\n",
                      (8, 3, "error", "mission.unsatisfiable")),
    "unsatisfiable-sums": (GOOD + "challenges: [minimum-5, maximum-7, no-doubles, even, "
                           "low-to-high, difference]\n", (7, 13, "error", "mission.unsatisfiable")),
    "unknown-goal": (GOOD + "goals: [equal, unique, between, one-higher, secnd-highest]\n",
                     (7, 45, "error", "mission.unknown-goal")),
    # R23: five goal cards, four rounds to win: one failed round can be afforded, not two.
    "lives-goal-deck": (GOOD.replace("rounds: 3", "rounds: 4") + "goals: [equal, unique, "
                        "between, one-higher, one-lower]\n", (6, 8, "warning", "mission.lives")),
    "hand": (GOOD + "goals: [equal, unique, between, one-higher, one-lower]\n"
             "hand: {goals: 6}\n", (8, 15, "error", "mission.hand")),
}


@pytest.mark.parametrize("case", sorted(MISSION_CASES))
def test_each_mission_check_is_located(tmp_path, case):
    text, (line, column, severity, check) = MISSION_CASES[case]
    assert found(tmp_path, {"m.yaml": text}) == [("m.yaml", line, column, severity, check)]


def test_yaml_problems_are_located(tmp_path):
    assert found(tmp_path, {"m.yaml": GOOD + "rounds: 4\n"}) == \
        [("m.yaml", 7, 1, "error", "yaml")]
    assert found(tmp_path / "n", {"n.yaml": "id: [\n"}) == [("n.yaml", 2, 1, "error", "yaml")]


CAMPAIGN = """\
name: {en: Test, fr: Essai}
languages: [en, fr]
missions: [missions/*.yaml]
challenges: [challenges/*.yaml]
goals: [goals/*.yaml]
"""


def mission(mid: str, number: int, extra: str = "", lives: int = 3) -> str:
    return (f"id: {mid}\nnumber: {number}\ntitle: {{en: T, fr: T}}\nstars: 1\nrounds: 3\n"
            f"lives: {lives}\n{extra}")


def test_campaign_checks(tmp_path):
    files = {
        "c/campaign.yaml": CAMPAIGN,
        "c/missions/a.yaml": mission("a", 1),
        "c/missions/b.yaml": mission("a", 1),
        "c/missions/d.yaml": mission("d", 4, "flavor: Only English\n"),
        "c/challenges/odd.yaml": "id: odd\nkind: constraint\nname: {en: Odd, fr: Impair}\n"
                                 "text: {en: Odd., fr: Impair.}\nrule: sum is odd\n",
        "c/challenges/bad.yaml": "id: bad\nkind: constraint\nname: Bad\ntext: Bad\n"
                                 "rule: sum > lefty\n",
        "c/goals/broken.yaml": "id: broken\nname: B\ntext: B\nrule: \"sum ==\"\n",
        "c/goals/equal.yaml": "id: equal\nname: {en: E, fr: E}\nsymbol: '='\n"
                              "text: {en: E, fr: E}\nrule: sum in others\n",
    }
    # A definition with an error still has its texts checked: one run, every finding.
    assert found(tmp_path, files, "c") == [
        ("c/challenges/bad.yaml", 3, 7, "warning", "text.missing-language"),
        ("c/challenges/bad.yaml", 4, 7, "warning", "text.missing-language"),
        ("c/challenges/bad.yaml", 5, 13, "error", "definition.rule"),
        ("c/goals/broken.yaml", 1, 5, "warning", "goal.symbol"),
        ("c/goals/broken.yaml", 2, 7, "warning", "text.missing-language"),
        ("c/goals/broken.yaml", 3, 7, "warning", "text.missing-language"),
        ("c/goals/broken.yaml", 4, 14, "error", "definition.rule"),  # the end of "sum =="
        ("c/goals/equal.yaml", 1, 5, "error", "definition.duplicate-id"),
        ("c/missions/b.yaml", 1, 5, "error", "campaign.duplicate-id"),
        ("c/missions/b.yaml", 2, 9, "error", "campaign.duplicate-number"),
        ("c/missions/d.yaml", 2, 9, "warning", "campaign.numbering"),
        ("c/missions/d.yaml", 7, 9, "warning", "text.missing-language"),
    ]


def test_campaign_file_patterns(tmp_path):
    text = CAMPAIGN.replace("missions: [missions/*.yaml]",
                            "missions: [missions/*.yaml, missions/a.yaml, nowhere/*.yaml]")
    files = {"c/campaign.yaml": text, "c/missions/a.yaml": mission("a", 1)}
    assert found(tmp_path, files, "c") == [
        ("c/campaign.yaml", 3, 29, "error", "campaign.duplicate-file"),
        ("c/campaign.yaml", 3, 46, "error", "campaign.missing-file"),
        ("c/campaign.yaml", 4, 14, "error", "campaign.missing-file"),
        ("c/campaign.yaml", 5, 9, "error", "campaign.missing-file"),
    ]


def test_a_mission_file_alone_uses_its_campaigns_own_challenges(tmp_path):
    files = {
        "c/campaign.yaml": CAMPAIGN.replace("goals: [goals/*.yaml]\n", ""),
        "c/missions/a.yaml": mission("a", 1, "challenges: [odd]\n"),
        "c/challenges/odd.yaml": "id: odd\nkind: constraint\nname: {en: Odd, fr: Impair}\n"
                                 "text: {en: Odd., fr: Impair.}\nrule: sum is odd\n",
    }
    assert found(tmp_path, files, "c/missions/a.yaml") == []


def test_the_bundled_campaign_is_clean_and_complete():
    report = validate_paths([starter_campaign()])
    assert report.diagnostics == [] and report.files == 34
    campaign = read_campaign(starter_campaign()).campaign
    assert [m.number for m in campaign.missions] == list(range(1, 31))
    used_challenges = {c for m in campaign.missions for c in m.challenges}
    assert set(CHALLENGE_IDS) <= used_challenges
    assert {a for m in campaign.missions for a in m.actions} == set(Action)
    own = [c for c in campaign.rulebook.challenges.values() if not c.builtin]
    assert len(own) >= 2 and any(not g.builtin for g in campaign.rulebook.goals.values())
    assert any(not campaign.rulebook.goals[g].builtin for m in campaign.missions for g in m.goals)
    for m in campaign.missions:
        assert set(m.title) == {"en", "fr"} and set(m.flavor) == {"en", "fr"}
    # Stars follow the playtester's estimates (docs/difficulty.md), so single missions may dip,
    # even the last (Full synergy: 4 stars, its range 0.74-0.79 of skill, once experts answer
    # novices), but the campaign climbs: each third is harder on average than the one before,
    # and the hardest missions close it.
    stars = [m.stars for m in campaign.missions]
    thirds = [sum(stars[i:i + 10]) / 10 for i in (0, 10, 20)]
    assert min(stars[:10]) == min(stars) and max(stars[-3:]) == max(stars) == 5
    assert thirds == sorted(thirds)
    first_super = min(m.number for m in campaign.missions if m.super)
    first_hyper = min(m.number for m in campaign.missions if m.hyper)
    first_action = min(m.number for m in campaign.missions if m.actions)
    assert 10 <= first_action < first_super < first_hyper


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_cli_formats_and_exit_codes(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(GOOD.replace("stars: 1", "stars: 9"))
    text = run("validate", str(bad))
    assert text.exit_code == 1
    assert f"{bad}:4:8: error: 'stars' must be at most 5, got 9 [schema.maximum]" in text.output
    as_json = json.loads(run("validate", "--format", "json", str(bad)).output)
    assert as_json["valid"] is False and as_json["errors"] == 1 and as_json["files"] == 1
    assert as_json["diagnostics"][0] == {
        "file": str(bad), "line": 4, "column": 8, "severity": "error",
        "message": "'stars' must be at most 5, got 9", "check": "schema.maximum"}
    github = run("validate", "--format", "github", str(bad)).output
    assert github.startswith(f"::error file={bad},line=4,col=8,title=schema.maximum::")
    assert run("validate").exit_code == 0
    assert run("validate", "--format", "xml").exit_code == 2


def test_new_files_validate_and_are_never_overwritten(tmp_path):
    target = tmp_path / "my-mission.yaml"
    assert run("new", "mission", str(target)).exit_code == 0
    assert run("validate", str(target)).exit_code == 0
    target.write_text("# my work\n")
    again = run("new", "mission", str(target))
    assert again.exit_code == 2 and "already exists" in again.output
    assert target.read_text() == "# my work\n"
    assert run("new", "campaign", str(tmp_path / "camp")).exit_code == 0
    result = run("validate", str(tmp_path / "camp"))
    assert result.exit_code == 0, result.output
    assert "0 error(s), 0 warning(s)" in result.output
    assert run("new", "campaign", str(tmp_path / "camp")).exit_code == 2


AWKWARD_NAMES = ["02 mission déjà.yaml", "ÉTÉ.yaml", "03.yaml", "My_Mission.yaml", "---.yaml",
                 "my mission.yaml", "🚀.yaml", "🚀 launch.yaml", "東京.yaml", "it's \"odd\".yaml",
                 "W" * 60 + ".yaml", "many words " * 20 + ".yaml"]


def test_a_new_mission_named_by_any_file_name_validates_beside_the_others(tmp_path):
    """The id comes from the file name by the schema's own pattern (accents dropped, other
    characters hyphens, cut until its title fits the card), the title from the name's own
    words where they are the id's with accents, and neither the id nor the
    number repeats one of the campaign's, even a mission's that has errors elsewhere."""
    import shlex

    camp = tmp_path / "camp"
    assert run("new", "campaign", str(camp)).exit_code == 0
    broken = camp / "missions" / "02-broken.yaml"
    broken.write_text(GOOD.replace("id: good", "id: night-shift").replace("number: 1",
                                                                          "number: 2")
                      .replace("title: Good", "title: {en: Night, fr: Nuit}")
                      .replace("stars: 1", "stars: 9"))
    for name in ["night shift.yaml", *AWKWARD_NAMES]:
        made = run("new", "mission", str(camp / "missions" / name))
        assert made.exit_code == 0, made.output
    broken.write_text(broken.read_text().replace("stars: 9", "stars: 1"))
    fields = {}
    for path in sorted((camp / "missions").glob("*.yaml")):
        lines = path.read_text(encoding="utf-8").splitlines()
        fields[path.name] = {line.split(":")[0]: line.split("#")[0].split(":", 1)[1].strip()
                             for line in lines if line.startswith(("id:", "number:", "title:"))}
        if path != broken:  # the comment's command, as a shell reads it
            assert shlex.split(lines[2].lstrip("#"))[2] == path.name
    assert fields["02 mission déjà.yaml"]["id"] == "mission-deja"
    # The title keeps the name's accents (the id cannot): what the designer typed.
    assert fields["02 mission déjà.yaml"]["title"] == '{en: "Mission déjà", fr: "Mission déjà"}'
    assert fields["ÉTÉ.yaml"]["id"] == "ete"
    assert fields["night shift.yaml"] == {"id": "night-shift-2", "number": "3",
                                          "title": '{en: "Night shift 2", fr: "Night shift 2"}'}
    assert len({f["id"] for f in fields.values()}) == len(fields)
    assert len({f["number"] for f in fields.values()}) == len(fields)
    checked = run("validate", str(camp))
    assert checked.exit_code == 0 and "0 error(s), 0 warning(s)" in checked.output, \
        checked.output


def test_a_new_campaign_refuses_languages_its_schema_refuses_and_writes_nothing(tmp_path):
    for given, said in [("EN", "'EN' is not a language code"), ("en,fr,en", "once"),
                        (",", "at least one")]:
        refused = run("new", "campaign", str(tmp_path / "camp"), "--languages", given)
        assert refused.exit_code == 2 and said in refused.output, refused.output
        assert not (tmp_path / "camp").exists()
    assert run("new", "campaign", str(tmp_path / "camp"), "--languages", "fr-CA").exit_code == 0


def test_a_rule_that_fails_on_some_table_is_an_error_at_its_line(tmp_path):
    files = {
        "c/campaign.yaml": CAMPAIGN,
        "c/missions/a.yaml": mission("a", 1, "goals: [equal, unique, past-the-end]\n",
                                     lives=1),
        "c/goals/past-the-end.yaml": "id: past-the-end\nname: {en: P, fr: P}\n"
                                     "text: {en: P, fr: P}\nrule: \"sum == distinct[3]\"\n"
                                     "symbol: P\n",
        "c/challenges/halves.yaml": "id: halves\nkind: value\nname: {en: H, fr: H}\n"
                                    "text: {en: H, fr: H}\nrule: \"value / 2\"\n",
    }
    # The missions naming the goal are not also told it does not exist.
    assert found(tmp_path, files, "c") == [
        ("c/challenges/halves.yaml", 5, 7, "error", "definition.rule-fails"),
        ("c/goals/past-the-end.yaml", 4, 7, "error", "definition.rule-fails"),
    ]
    output = run("validate", str(tmp_path / "c")).output
    assert "the rule 'sum == distinct[3]' fails for sum=0" in output
    assert "list object has no element 3" in output
    assert "a value rule must give a whole number from -1000 to 1000; 'value / 2' gave 0.0 " \
        "for value=0" in output


def test_a_rule_failing_in_play_is_a_located_error_not_a_crash(tmp_path):
    # The lint samples five-seat tables from a few sums only; this rule fails only when five
    # distinct sums include a 4, so it passes validation and fails in play.
    files = {
        "c/campaign.yaml": CAMPAIGN.replace("challenges: [challenges/*.yaml]\n", ""),
        "c/missions/a.yaml": mission("a", 1, "goals: [equal, unique, fragile]\n", lives=1),
        "c/goals/fragile.yaml": "id: fragile\nname: {en: F, fr: F}\ntext: {en: F, fr: F}\n"
                                "rule: \"sum in others or (distinct | length == 5 and "
                                "12 // (sum - 4) > 1)\"\nsymbol: F\n",
    }
    assert found(tmp_path, files, "c") == []
    campaign = read_campaign(tmp_path / "c").campaign
    colors = ("red", "yellow", "green", "blue", "purple")
    plays = [(1, 3), (2, 3), (2, 4), (3, 4), (4, 4)]  # sums 4, 5, 6, 7, 8
    goals = ["fragile", "unique", "unique", "unique", "unique"]
    table = Table(tuple(SeatPlay(NumberCard(a, color), NumberCard(b, color), goal)
                        for (a, b), color, goal in zip(plays, colors, goals, strict=True)),
                  colors=colors)
    with pytest.raises(RuleError, match=r"fragile.yaml:4: the rule .* fails for sum=4, .*"
                                        r"integer division or modulo by zero"):
        judge(table, campaign.rulebook)
    # Through the command line: one located line and exit 2, never a traceback. Modules that
    # bind `play` at import are imported first, so that none keeps the mock after this test.
    import synergy_forge.sim.playtest  # noqa: F401

    with mock.patch("synergy_forge.sim.play.play", side_effect=RuleError(
            "c/goals/fragile.yaml:4: the rule 'x' fails for sum=4: division by zero")):
        result = run("play", "1", "--players", "3")
    assert result.exit_code == 2, result.output
    assert "synergy-forge: error: c/goals/fragile.yaml:4: the rule 'x' fails" in result.output


def test_editors_are_offered_every_built_in_id_and_nothing_else():
    # yaml-language-server completes ids from the schemas' `examples` (docs/ci.md).
    common = json.loads((schemas_dir() / "common.schema.json").read_text(encoding="utf-8"))
    rulebook = standard_rulebook()
    assert common["$defs"]["challenge_id"]["examples"] == list(CHALLENGE_IDS)
    assert sorted(CHALLENGE_IDS) == sorted(rulebook.challenges)
    assert common["$defs"]["goal_id"]["examples"] == list(GOAL_IDS)
    assert sorted(GOAL_IDS) == sorted(rulebook.goals)


@pytest.mark.slow
def test_new_files_pass_validate_and_playtest_check_with_the_default_games(tmp_path):
    # A designer's first run: `new campaign`, then the checks the docs tell them to run.
    camp = tmp_path / "fresh"
    assert run("new", "campaign", str(camp)).exit_code == 0
    assert run("new", "mission", str(camp / "missions" / "02-second.yaml")).exit_code == 0
    second = (camp / "missions" / "02-second.yaml").read_text()
    # Named after its file, without the number `number` already holds.
    assert "\nid: second " in second and '\ntitle: {en: "Second", fr: "Second"}' in second
    assert "\nnumber: 2 " in second
    alone = tmp_path / "loose.yaml"
    assert run("new", "mission", str(alone)).exit_code == 0
    for target in (camp, alone):
        checked = run("validate", str(target))
        assert checked.exit_code == 0 and "0 error(s), 0 warning(s)" in checked.output
    # The three new missions are one mission: every line a game reads is the same, only the
    # names, the number and the comments differ. One of them is played at the default games
    # (a minute of CPU each), inside the campaign, with its definitions.
    named = ("id:", "number:", "title:", "flavor:", "#")

    def rules(path: Path) -> list[str]:
        return [line for line in path.read_text().splitlines() if not line.startswith(named)]

    first = camp / "missions" / "01-my-first-mission.yaml"
    assert rules(first) == rules(camp / "missions" / "02-second.yaml") == rules(alone)
    assert len(rules(first)) > 8
    # On this process: a pool's workers would each build the bots' tables again (2 s more);
    # the results are the same on any number of workers (test_executors).
    played = run("playtest", str(camp / "missions" / "02-second.yaml"), "--check", "--jobs",
                 "1")
    assert played.exit_code == 0, played.output
    assert "declared 2★): 2 stars" in played.output or "between 2 and" in played.output \
        or "and 2 stars" in played.output


def test_a_value_no_alternative_takes_is_described_by_the_kinds_it_may_be(tmp_path):
    """allowed_failures is a whole number or a mapping by player count; a list fits neither
    alternative's type, so the message names both kinds and what was found, at the value,
    instead of one alternative's complaint (schema._deepest; the schema fuzzer found this
    branch only in its deeper runs)."""
    from synergy_forge.workspace.validate import validate_file

    source = next((starter_campaign() / "missions").glob("01-*.yaml")).read_text()
    assert "allowed_failures: {3: 1, 4: 1, 5: 2}\n" in source
    path = tmp_path / "m.yaml"
    path.write_text(source.replace("allowed_failures: {3: 1, 4: 1, 5: 2}",
                                   "allowed_failures: [1]"), encoding="utf-8")
    diagnostics = validate_file(path).diagnostics
    assert [(d.line, d.column, d.check, d.message) for d in diagnostics] == [
        (8, 19, "schema.anyOf", "'allowed_failures' must be a whole number or a mapping "
                                "(key: value), got a list")]


def test_new_campaign_over_one_file_of_its_own_writes_none_of_the_others(tmp_path):
    """A folder that holds one of the files `new campaign` makes (not campaign.yaml): the
    file stays and nothing else is written, so the command can be run again elsewhere."""
    (tmp_path / "camp" / "goals").mkdir(parents=True)
    (tmp_path / "camp" / "goals" / "close-call.yaml").write_text("# my goal\n")
    result = run("new", "campaign", str(tmp_path / "camp"))
    assert result.exit_code == 2
    assert [str(p.relative_to(tmp_path)) for p in sorted(tmp_path.rglob("*"))] == \
        ["camp", "camp/goals", "camp/goals/close-call.yaml"]
    assert f"{tmp_path / 'camp' / 'goals' / 'close-call.yaml'}: already exists; nothing was " \
        "written (use another folder)" in result.output
    assert (tmp_path / "camp" / "goals" / "close-call.yaml").read_text() == "# my goal\n"


def test_a_goal_symbol_that_is_a_colours_symbol_is_warned_about(tmp_path):
    goal = ("id: peak\nname: Peak\nsymbol: '{}'\ntext: Be the highest.\n"
            "rule: '(sum - 1) in others'\n")
    campaign = "name: C\nmissions: [missions/*.yaml]\ngoals: [goals/*.yaml]\n"
    mission = "id: m\nnumber: 1\ntitle: M\nstars: 1\nrounds: 2\nlives: 3\n"
    said = {}
    for name, symbol in (("equal", "▲"), ("within", "▲1"), ("other", "+1")):
        report = validate_files(tmp_path / name, {
            "c/campaign.yaml": campaign, "c/missions/m.yaml": mission,
            "c/goals/peak.yaml": goal.format(symbol)}, [Path("c")])
        said[symbol] = [d.message for d in report.diagnostics if d.check == "goal.symbol"]
    assert said["+1"] == [] and said["▲1"] and said["▲"] == [
        "'▲' is the symbol of the second colour (yellow unless renamed): on that colour's card "
        "it would read '▲ ▲'; choose another"]
