"""Every error in one run: a mistake never hides another, nor causes a false one."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from support.files import validate_files

from synergy_forge.cli import main
from synergy_forge.core.rulelang import RuleKind, rule_problems

CAMPAIGN = "name: {en: C}\nmissions: [missions/*.yaml]\ngoals: [goals/*.yaml]\n"


def check(tmp_path: Path, files: dict[str, str], target: str) -> list[tuple]:
    report = validate_files(tmp_path, files, [Path(target)])
    return [(d.file, d.line, d.column, str(d.severity), d.check, d.message)
            for d in report.diagnostics]


def mission(mid: str, number: int, extra: str = "") -> str:
    return f"id: {mid}\nnumber: {number}\ntitle: T\nstars: 1\nrounds: 3\nlives: 3\n{extra}"


def test_a_schema_error_an_unknown_challenge_and_an_unknown_field_are_three_diagnostics(
        tmp_path):
    text = mission("m", 1, "actions: [F, K]\nchallenges: [maximun-7]\nlivez: 2\n")
    got = check(tmp_path, {"m.yaml": text}, "m.yaml")
    assert [(line, column, c) for _, line, column, _, c, _ in got] == [
        (7, 14, "schema.enum"),  # K is not an action card
        (8, 14, "mission.unknown-challenge"),
        (9, 1, "schema.additionalProperties"),
    ]
    assert "unknown challenge 'maximun-7' (did you mean 'maximum-7'?)" in got[1][5]
    assert "unknown field 'livez' (did you mean 'lives'?)" in got[2][5]


def test_a_mission_with_an_error_still_counts_for_ids_and_numbering(tmp_path):
    files = {
        "c/campaign.yaml": CAMPAIGN.replace("goals: [goals/*.yaml]\n", ""),
        "c/missions/1.yaml": mission("one", 1),
        "c/missions/2.yaml": mission("two", 2, "stars: 9\n".replace("stars", "starz")),
        "c/missions/3.yaml": mission("three", 3),
        "c/missions/4.yaml": mission("two", 4),
    }
    got = check(tmp_path, files, "c")
    assert [(f, c) for f, _, _, _, c, _ in got] == [
        ("c/missions/2.yaml", "schema.additionalProperties"),
        ("c/missions/4.yaml", "campaign.duplicate-id"),  # 'two' is taken by the broken 2.yaml
    ]
    assert not any("is missing" in m for *_, m in got)


def test_a_goal_whose_rule_does_not_compile_has_an_error_where_it_is_used(tmp_path):
    files = {
        "c/campaign.yaml": CAMPAIGN,
        "c/goals/top-dog.yaml": "id: top-dog\nname: Top dog\ntext: Be the highest.\n"
                                "rule: \"sum == (distinct | max\"\n",
        "c/missions/1.yaml": mission("one", 1, "goals: [equal, unique, between, one-higher, "
                                     "top-dog]\n"),
    }
    got = check(tmp_path, files, "c")
    assert [(f, line, c) for f, line, _, _, c, _ in got] == [
        ("c/goals/top-dog.yaml", 1, "goal.symbol"),  # independent of the rule: said as well
        ("c/goals/top-dog.yaml", 4, "definition.rule"),
        ("c/missions/1.yaml", 7, "mission.broken-definition"),
    ]
    assert got[-1][5] == "goal 'top-dog' has an error (c/goals/top-dog.yaml:4)"
    assert not any("unknown goal" in m for *_, m in got)
    # The same when the mission file alone is checked, as an editor or pre-commit does.
    alone = check(tmp_path, {}, "c/missions/1.yaml")
    assert [m for *_, m in alone] == ["goal 'top-dog' has an error (c/goals/top-dog.yaml:4)"]


def test_a_rule_syntax_error_quotes_the_users_own_expression_with_a_caret(tmp_path):
    # The problem says where in the user's own text (the diagnostic quotes it with a caret).
    (problem,) = rule_problems(RuleKind.GOAL, "sum == (distinct | max")
    assert problem == "the rule does not compile: unexpected end of the rule, expected ')'"
    assert problem.offset == len("sum == (distinct | max")
    (problem,) = rule_problems(RuleKind.GOAL, "sum in others )")
    assert "}" not in problem  # the rule is not wrapped in {{ (...) }} any more
    assert problem.offset == len("sum in others ")
    (problem,) = rule_problems(RuleKind.CONSTRAINT, "sum >> 2")
    assert problem.endswith("unexpected '>'") and problem.offset == len("sum >")
    files = {"g.yaml": "id: top-dog\nname: Top dog\ntext: Be the highest.\n"
                       "rule: \"sum == (distinct | max\"\n"}
    ((*_, message),) = check(tmp_path, files, "g.yaml")
    assert message.endswith("\n    sum == (distinct | max\n                          ^")


def test_a_rule_cannot_close_the_expression_it_is_compiled_in():
    (problem,) = rule_problems(RuleKind.GOAL, "sum }} {{ 3")
    assert problem == "'}}' is not allowed in a rule" and problem.offset == len("sum ")


YAML_MISTAKES = {
    # name: (text, (line, column), the words of the fix)
    "tab": ("id: a\nhand:\n\tnumbers: 3\n", (3, 1), "a tab in the indentation: YAML indents "
            "with spaces only; replace the tab with spaces"),
    "colon-in-value": ("id: a\ntitle: Colon: the sequel\n", (2, 13), "the value of 'title' "
                       "holds ': ', which YAML reads as another key; put the value in quotes: "
                       "title: \"Colon: the sequel\""),
    "indentation": ("hand:\n    numbers: 3\n  goals: 2\n", (3, 3), "this line starts at "
                    "column 3 but line 2 above it at column 5: keys of one mapping must line "
                    "up"),
    "dash": ("challenges:\n  - even\n  -uneven\nlives: 3\n", (3, 3), "'-uneven' needs a space "
             "after the dash to be a list item: write '- uneven'"),
    "colon": ("id: a\nlives:3\nrounds: 2\n", (2, 6), "'lives:3' needs a space after the "
              "colon: write 'lives: 3'"),
    "quote": ("id: a\ntitle: 'Crossed\nlives: 3\n", (2, 8), "this quoted text is never "
              "closed"),
}


@pytest.mark.parametrize("case", sorted(YAML_MISTAKES))
def test_a_yaml_mistake_is_located_and_told_with_its_usual_fix(tmp_path, case):
    text, (line, column), words = YAML_MISTAKES[case]
    (got,) = check(tmp_path, {"m.yaml": text}, "m.yaml")
    assert got[1:3] == (line, column) and got[4] == "yaml", got
    assert got[5].startswith(words), got[5]
    assert "\n" not in got[5]


#: Broken YAML and the place a person fixes it: the `{`, `[` or quote never closed (where the
#: parser began reading it, not the line where it noticed), the escape, the line that lacks its
#: ':', the tab. "was" is where the reader pointed before, for the rows it got wrong.
YAML_PLACES = [
    # (text, "LINE:COLUMN: the start of the message")
    ('id: a\ntitle: {en: "The gap", fr: "Le fossé"\nstars: 1\n',  # was 3:1
     "2:8: error: this mapping in { } is never closed: add the closing }"),
    ('id: a\ntitle: {en: "The gap", fr: "Le fossé"\n',  # was 3:1, at the end of the file
     "2:8: error: this mapping in { } is never closed"),
    ("name: C\nmissions: [missions/*.yaml\ngoals: [goals/*.yaml]\n",  # was 3:6
     "2:11: error: this list in [ ] is never closed: add the closing ]"),
    ("name: C\nmissions: [missions/*.yaml",  # was 3:1, no line break at the end
     "2:11: error: this list in [ ] is never closed"),
    ("players:\n  - [3, 4\n  - [5]\n",  # was 3:5
     "2:5: error: this list in [ ] is never closed"),
    ("hand:\n  numbers: [3, 4\n  goals: 7\n",  # was 3:8
     "2:12: error: this list in [ ] is never closed"),
    ('text: "a\n\tb"\nhand: {numbers: 10\ngoals: 7\n',  # was 2:1 "a tab", a tab in quotes
     "3:7: error: this mapping in { } is never closed"),
    ("hand: {numbers: 10 goals: 7}\n",  # was 1:25, the ':' after goals
     "1:20: error: a mapping in { } is not closed, or two items lack a comma between"),
    ("title: {en: Colon: the sequel}\n",  # was 1:18
     "1:13: error: a mapping in { } is not closed, or two items lack a comma between, or a "
     "value holds ': ' (put it in quotes)"),
    ('title: {en: "The gap"\n       fr: "Le fossé"}\n',  # a comma missing at a line's end
     "2:8: error: a mapping in { } is not closed, or two items lack a comma between"),
    ("x: {a: [1, 2}\n", "1:13: error: a list in [ ] is not closed"),
    ('id: a\ntitle: "C:\\Users\\me"\n',  # was "never closed", at the opening quote
     "2:11: error: an escape YAML does not know"),
    ("id: a\ntitle: 'Crossed\nlives: 3\n", "2:8: error: this quoted text is never closed"),
    ("id: a\ntitle The gap\nlives: 3\n",  # was 3:1 "could not find expected ':'"
     "2:1: error: a ':' is missing after the key on this line"),
    ("hand:\n  numbers: 3\n  goals 7\nlives: 3\n",  # was 4:1, "keys must line up"
     "3:3: error: a ':' is missing after the key on this line"),
    ("id: a\nlives:3\n", "2:6: error: 'lives:3' needs a space after the colon"),
    ("hand:\n  numbers: 3\n  \tgoals: 7\n", "3:3: error: a tab in the indentation"),
    ("id: a\nlives: 3\nlives: 4\n",  # the place was right: the message says the first
     "3:1: error: the key 'lives' appears twice (first on line 2)"),
    ("id: a\ntitle: é\u0007\n",  # was 2:10: libyaml counts in bytes
     "2:9: error: the file holds a control character (U+0007)"),
]


@pytest.mark.parametrize(("text", "place"), YAML_PLACES)
def test_broken_yaml_is_located_where_a_person_fixes_it(text, place):
    from synergy_forge.authoring.diagnostics import InvalidInput
    from synergy_forge.authoring.yamlfile import parse_document

    with pytest.raises(InvalidInput) as raised:
        parse_document(text.encode(), "m.yaml")
    (diagnostic,) = raised.value.diagnostics
    assert str(diagnostic).startswith(f"m.yaml:{place}"), str(diagnostic)


def test_a_file_not_utf8_is_located_in_characters_as_an_editor_counts_them():
    from synergy_forge.authoring.diagnostics import InvalidInput
    from synergy_forge.authoring.yamlfile import parse_document

    with pytest.raises(InvalidInput) as raised:  # was 2:14: é, è and the BOM counted in bytes
        parse_document("\ufeffid: a\ntitle: é è \xff\n".encode().replace(b"\xc3\xbf", b"\xff"),
                       "m.yaml")
    assert str(raised.value).startswith("m.yaml:2:12: error: the file is not UTF-8 text")


def test_an_unclosed_bracket_in_a_new_campaign_is_told_at_the_bracket(tmp_path):
    """The user trial: a '}' left out of a mission's title, a ']' out of campaign.yaml's
    missions; validate named the line after each (6:8 and 5:11 were 7:1 and 6:1)."""
    import contextlib

    with contextlib.chdir(tmp_path):
        assert CliRunner().invoke(main, ["new", "campaign", "camp"]).exit_code == 0
        mission = Path("camp/missions/01-my-first-mission.yaml")
        lines = mission.read_text(encoding="utf-8").split("\n")
        assert lines[5].startswith("title: {") and lines[5].endswith("}")
        lines[5] = lines[5][:-1]
        mission.write_text("\n".join(lines), encoding="utf-8")
        campaign = Path("camp/campaign.yaml")
        lines = campaign.read_text(encoding="utf-8").split("\n")
        assert lines[4].startswith("missions: [missions/*.yaml]")
        lines[4] = lines[4].replace("[missions/*.yaml]", "[missions/*.yaml")
        campaign.write_text("\n".join(lines), encoding="utf-8")
    with contextlib.chdir(tmp_path / "camp"):
        result = CliRunner().invoke(main, ["validate"], catch_exceptions=False)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[:2] == [
        "campaign.yaml:5:11: error: this list in [ ] is never closed: add the closing ] [yaml]",
        "missions/01-my-first-mission.yaml:6:8: error: this mapping in { } is never closed: "
        "add the closing } [yaml]",
    ]


def test_a_list_written_without_the_space_after_the_dash_is_told_so(tmp_path):
    text = mission("m", 1, "challenges:\n  -even\n")
    (got,) = check(tmp_path, {"m.yaml": text}, "m.yaml")
    assert got[4] == "schema.type"
    assert got[5].endswith("(a list item needs a space after the dash: '- item')")


def test_a_mistake_in_campaign_yaml_does_not_hide_the_missions_checks(tmp_path):
    files = {
        "c/campaign.yaml": "nmae: {en: C}\nmissions: [missions/*.yaml]\n",
        "c/missions/1.yaml": mission("one", 1, "challenges: [maximun-7]\n"),
    }
    got = check(tmp_path, files, "c")
    assert [(f, c) for f, _, _, _, c, _ in got] == [
        ("c/campaign.yaml", "schema.required"),  # 'name' (line 1, column 1)
        ("c/campaign.yaml", "schema.additionalProperties"),  # 'nmae'
        ("c/missions/1.yaml", "mission.unknown-challenge"),
    ]


def test_a_quoted_rule_keeps_the_check_id_on_the_located_line():
    from synergy_forge.authoring.diagnostics import Diagnostic, Severity

    (problem,) = rule_problems(RuleKind.GOAL, "sum in others )")
    quoted = f"{problem}\n    sum in others )\n    {' ' * problem.offset}^"  # as rule_diagnostic
    text = str(Diagnostic("g.yaml", 4, 7, Severity.ERROR, quoted, "definition.rule"))
    assert text.splitlines() == [
        "g.yaml:4:7: error: the rule does not compile: unexpected ')' [definition.rule]",
        "    sum in others )",
        "                  ^",
    ]


def test_one_validate_run_shows_every_independent_finding_of_a_campaign(tmp_path):
    """A campaign with every kind of finding: a too-long goal symbol, a goal rule that fails
    on some table, an unsatisfiable mission, too many lives, a flavour text and a rules block
    that cannot fit, a missing French title and action cards that cannot be printed two to a
    card; one run tells all of them."""
    import contextlib
    import os

    def run(*args: str, cwd: Path) -> Result:
        # In this process, from `cwd` (two interpreters' starts less): what is checked is what
        # one validate run reports, the same in a process of its own (test_discovery and
        # test_repository run `validate` as the real program).
        with contextlib.chdir(cwd):
            result = CliRunner().invoke(main, list(args))
        assert result.exception is None or isinstance(result.exception, SystemExit), \
            result.exception
        return result

    made = run("new", "campaign", "c", cwd=tmp_path)
    assert made.exit_code == 0, made.stderr
    camp = tmp_path / "c"
    goal = camp / "goals" / "close-call.yaml"
    goal.write_text(goal.read_text().replace('symbol: "±1"', 'symbol: "±1234"').replace(
        'rule: "(sum - 1) in others or (sum + 1) in others"', 'rule: "distinct[3] == sum"'))
    first = camp / "missions" / "01-my-first-mission.yaml"
    text = first.read_text()
    first.write_text(text.replace("challenges: []", "challenges: [one-is-six, even, uneven]")
                     .replace('fr: "Ma première mission"', "")
                     .replace("lives: 3", "lives: 9")
                     .replace("trust each other.", "trust each other. " * 14)
                     .replace("actions: []", "actions: [A, B, C, D, E, F, G, H, I, J]")
                     + "goals: [close-call, unique, equal, one-higher, one-lower]\n")
    challenge = camp / "challenges" / "odd-sum.yaml"
    long = "Your sum must be odd. " + "An odd sum is one odd card and one even card. " * 14
    challenge.write_text(challenge.read_text().replace('en: "Your sum must be odd."',
                                                       f'en: "{long.strip()}"'))
    second = camp / "missions" / "02-crowded.yaml"
    second.write_text(text.replace("my-first-mission", "crowded").replace("number: 1",
                      "number: 2").replace("challenges: []", "challenges: [minimum-5, "
                                           "odd-sum, no-doubles]"))
    result = run("validate", cwd=camp)
    assert result.exit_code == 1
    checks = {line.rsplit("[", 1)[-1].rstrip("]") for line in result.stdout.splitlines()
              if line.endswith("]")}
    assert {"schema.maxLength", "definition.rule-fails", "mission.unsatisfiable",
            "mission.lives", "text.fit", "text.missing-language", "campaign.action-cards",
            "mission.broken-definition"} <= checks, result.stdout
    # The rules block that cannot fit is said of the mission without errors, at its field.
    assert any(line.startswith(os.path.join("missions", "02-crowded.yaml")) and "[text.fit]"
               in line for line in result.stdout.splitlines()), result.stdout
    # The clash is the pair that clashes, not every challenge of the mission.
    assert "keep both even and uneven: every round would lose" in result.stdout


def test_a_mission_file_that_cannot_be_read_makes_no_number_missing(tmp_path):
    """A YAML error in mission 2 also gave "mission 2 is missing"; the file may hold
    that number, so gaps are told only when every mission's number is known."""
    files = {
        "c/campaign.yaml": CAMPAIGN.replace("goals: [goals/*.yaml]\n", ""),
        "c/missions/1.yaml": mission("one", 1),
        "c/missions/2.yaml": mission("two", 2).replace("lives: 3", "lives: [3"),
        "c/missions/3.yaml": mission("three", 3),
    }
    got = check(tmp_path, files, "c")
    assert [(f, c) for f, _, _, _, c, _ in got] == [("c/missions/2.yaml", "yaml")]


def _campaign(tmp_path: Path) -> Path:
    with_cwd = CliRunner()
    import contextlib

    with contextlib.chdir(tmp_path):
        assert with_cwd.invoke(main, ["new", "campaign", "c"]).exit_code == 0
    return tmp_path / "c"


def _validate(camp: Path) -> Result:
    import contextlib

    with contextlib.chdir(camp):
        return CliRunner().invoke(main, ["validate"])


def test_too_many_rounds_do_not_hide_too_many_lives_nor_the_cards_fit(tmp_path):
    """R23: rounds: 8 and lives: 9 are two errors, told together, and the mission's rules
    block that cannot fit on its card is told with them (issue 43: only the rounds were)."""
    camp = _campaign(tmp_path)
    challenge = camp / "challenges" / "odd-sum.yaml"
    long = "Your sum must be odd. " + "An odd sum is one odd card and one even card. " * 14
    challenge.write_text(challenge.read_text().replace('en: "Your sum must be odd."',
                                                       f'en: "{long.strip()}"'))
    first = camp / "missions" / "01-my-first-mission.yaml"
    first.write_text(first.read_text().replace("rounds: 2 ", "rounds: 8 ")
                     .replace("lives: 3 ", "lives: 9 ")
                     .replace("challenges: []", "challenges: [minimum-5, odd-sum, no-doubles]"))
    result = _validate(camp)
    assert result.exit_code == 1
    checks = [line.rsplit("[", 1)[-1].rstrip("]") for line in result.stdout.splitlines()
              if line.startswith(str(Path("missions") / "01-my-first-mission.yaml"))]
    assert {"mission.rounds", "mission.lives", "text.fit"} <= set(checks), result.stdout


def test_a_file_of_many_wrong_items_shows_the_first_and_counts_the_rest(tmp_path):
    """A hostile file (a list of thousands of wrong items) answers in a screenful: the first
    MAX_REPEATED errors, then one saying how many more (counted up to schema.COUNTED)."""
    from synergy_forge.authoring.diagnostics import MAX_REPEATED

    camp = _campaign(tmp_path)
    first = camp / "missions" / "01-my-first-mission.yaml"
    first.write_text(first.read_text().replace(
        "challenges: []", "challenges: [" + ",".join(["1"] * 5_000) + "]"))
    result = _validate(camp)
    assert result.exit_code == 1
    lines = [line for line in result.stdout.splitlines() if "01-my-first-mission" in line]
    assert len(lines) == MAX_REPEATED + 1, lines[:3]
    # 5,000 items of the wrong type, and the list too long for the schema: one more
    assert lines[-1].endswith(f"and {5_001 - MAX_REPEATED:,} more schema error(s) in this "
                              f"file (the first {MAX_REPEATED} are shown) [schema.more]")


@pytest.mark.parametrize("char", ["\u202e", "\u2066", "\u200b", "\u200f", "\u2060", "\ufeff"])
def test_direction_controls_and_invisible_characters_are_refused_where_they_are(tmp_path,
                                                                                char):
    """An unclosed right-to-left override in a title passed validate, printed the title
    mirrored and ran on in the terminal: every such character is an error at its line and
    column, in any text of any file (a comment too)."""
    camp = _campaign(tmp_path)
    first = camp / "missions" / "01-my-first-mission.yaml"
    text = first.read_text()
    at = text.index("My first mission")
    first.write_text(text[:at] + char + text[at:])
    line = text[:at].count("\n") + 1
    column = at - text[:at].rfind("\n")
    result = _validate(camp)
    assert result.exit_code == 1
    where = f"{Path('missions') / '01-my-first-mission.yaml'}:{line}:{column}: error: an " \
        f"invisible formatting character (U+{ord(char):04X}"
    assert where in result.stdout, result.stdout
    assert char not in result.stdout
    goal = camp / "goals" / "close-call.yaml"
    goal.write_text("# a note " + char + "\n" + goal.read_text())
    assert "close-call.yaml:1:10: error: an invisible formatting character" in \
        _validate(camp).stdout


def test_the_invisible_characters_are_unicodes_format_characters():
    """INVISIBLE is Unicode's Cf less the joiners some scripts' words need, as far as this
    Python's Unicode knows them."""
    import sys
    import unicodedata

    from synergy_forge.authoring.yamlfile import INVISIBLE

    found = {chr(c) for c in range(sys.maxunicode + 1) if INVISIBLE.match(chr(c))}
    formats = {chr(c) for c in range(sys.maxunicode + 1)
               if unicodedata.category(chr(c)) == "Cf"} - {"\u200c", "\u200d"}
    assert formats <= found
    # the others are format characters of a later Unicode, unassigned in this one
    assert all(unicodedata.category(c) == "Cn" for c in found - formats)
