"""The workspace layer: a campaign found and read once, whatever asks for it; missions by number
or id through one function, whose error names the numbers there are; one registry of file
kinds."""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from synergy_forge.authoring import yamlfile
from synergy_forge.authoring.loading import Reading
from synergy_forge.cli import main
from synergy_forge.resources import schemas_dir, starter_campaign
from synergy_forge.workspace import campaign, kinds
from synergy_forge.workspace.campaign import UnknownMission, Workspace, numbers_text
from synergy_forge.workspace.play import mission_file, mission_to_play
from synergy_forge.workspace.snapshot import read_snapshot
from synergy_forge.workspace.validate import validate_paths


def counting(monkeypatch, module, name: str) -> list[object]:
    """Every first argument `module.name` is called with, from now on."""
    calls: list[object] = []
    original = getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(args[0])
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_mission_numbers_are_said_as_runs():
    assert numbers_text([1, 2, 3, 4]) == "1 to 4"
    assert numbers_text([5, 1, 2, 7, 8, 9, 12]) == "1, 2, 5, 7 to 9, 12"
    assert numbers_text([]) == "none"


def test_a_mission_not_found_names_the_numbers_there_are(tmp_path):
    with contextlib.chdir(tmp_path):
        with pytest.raises(UnknownMission, match=r"nor a mission number or id of the bundled "
                                                 r"starter campaign \(its mission numbers: 1 "
                                                 r"to 30\)"):
            mission_file("31", [].append)
        result = CliRunner().invoke(main, ["play", "31"])
    assert result.exit_code == 2
    assert "Invalid value for 'MISSION': 31: no such file" in result.output
    assert result.output.rstrip().endswith("(its mission numbers: 1 to 30)")


def test_a_mistyped_id_gets_a_suggestion_and_the_campaign_is_named_by_its_file(tmp_path):
    """Issue 43: "… of the campaign in ." named nothing, and a mistyped id got no
    suggestion."""
    with contextlib.chdir(tmp_path):
        assert CliRunner().invoke(main, ["new", "campaign", "c"]).exit_code == 0
    with contextlib.chdir(tmp_path / "c" / "missions"):
        result = CliRunner().invoke(main, ["play", "my-frist-mission"])
        assert result.exit_code == 2
        assert "my-frist-mission: no such file, nor a mission number or id of the campaign of " \
            f"{os.path.join('..', 'campaign.yaml')} (did you mean 'my-first-mission'?) (its " \
            "mission numbers: 1)" in result.output, result.output
        with pytest.raises(UnknownMission, match=r"has no mission 'my-frist-mision' \(did you mean "
                                                 r"'my-first-mission'\?\)"):
            mission_to_play("..", "my-frist-mision", [].append)


def test_play_and_the_table_find_a_mission_by_the_same_function(tmp_path):
    """By number or by id, from the current campaign or from its folder: the same file,
    read with the same campaign."""
    said: list[str] = []
    with contextlib.chdir(starter_campaign()):
        by_number = mission_file("12", said.append)
        by_id = mission_file("stairway", said.append)
        by_folder = mission_to_play(".", "12", said.append).file
    assert by_number.mission == by_id.mission == by_folder.mission
    assert by_number.rulebook.challenges.keys() == by_folder.rulebook.challenges.keys()
    assert by_number.colors == by_folder.colors and by_number.actions == by_folder.actions
    with pytest.raises(UnknownMission, match=r"has no mission 'x' \(numbers 1 to 30\)"):
        mission_to_play(str(starter_campaign()), "x", said.append)


def test_a_campaign_is_read_once_however_many_of_its_files_are_validated(monkeypatch):
    """Before, each mission file named on the command line read its campaign again."""
    reads = counting(monkeypatch, campaign, "read_campaign")
    missions = sorted((starter_campaign() / "missions").glob("*.yaml"))[:6]
    report = validate_paths(missions)
    assert report.files == 6 and report.errors == 0
    assert len(reads) == 1


def test_validate_reads_each_file_of_a_campaign_once(monkeypatch):
    reads = counting(monkeypatch, yamlfile, "open_regular")
    reads += counting(monkeypatch, kinds, "open_regular")
    report = validate_paths([starter_campaign()])
    assert report.errors == 0
    read = [Path(p).resolve() for p in reads]
    assert len(read) == len(set(read)) and len(read) >= report.files


def test_the_studio_reads_a_broken_campaign_once(tmp_path, monkeypatch):
    """A campaign with an error: its missions are shown each on its own, from the documents
    read with the campaign, not read again."""
    import shutil

    folder = tmp_path / "camp"
    shutil.copytree(starter_campaign(), folder)
    for mission in sorted((folder / "missions").glob("*.yaml"))[2:]:
        mission.unlink()
    (folder / "missions" / "09-broken.yaml").write_text("id: broken\nnumber: 9\n")
    reads = counting(monkeypatch, yamlfile, "open_regular")
    snapshot = read_snapshot(folder, None)
    assert [e.mission is not None for e in snapshot.entries] == [True, True, False]
    # Its goals and challenges are read again alone (what a campaign with errors is read
    # with); its missions are not.
    missions = [Path(p).name for p in reads if Path(p).parent.name == "missions"]
    assert sorted(missions) == ["01-first-notes.yaml", "02-warm-up.yaml", "09-broken.yaml"]


def test_a_workspace_reads_each_reading_once(monkeypatch):
    reads = counting(monkeypatch, campaign, "read_campaign")
    workspace = Workspace(starter_campaign())
    for _ in range(3):
        workspace.read()
        workspace.read(Reading.CONTEXT)
        assert workspace.sources[0].name == ".synergy"
    assert len(reads) == 2


def test_every_kind_with_a_schema_is_in_the_registry_and_its_schema_line():
    shipped = {p.name.removesuffix(".schema.json") for p in schemas_dir().glob("*.schema.json")}
    names = {kind.name for kind in kinds.KINDS}
    assert names == shipped - {"common", "gamelog"}
    for name in names:
        line = f"# yaml-language-server: $schema=../.synergy/schemas/{name}.schema.json"
        match = kinds.SCHEMA_LINE.match(line)
        assert match and match.group(2) == name
        assert kinds.declared_kind(f'{{"$schema": "x/{name}.schema.json"}}') is kinds.BY_NAME[name]
    assert kinds.declared_kind("# $schema=x/gamelog.schema.json") is None
    assert set(kinds.LAYOUT_FOLDERS) == {kind.folder for kind in kinds.KINDS if kind.folder}


@pytest.mark.parametrize(("path", "text", "kind"), [
    ("campaign.yaml", "name: x\n", "campaign"),
    ("x/rounds/r.yaml", "id: r\n", "round"),
    ("x/missions/r.yaml", "seats: []\n", "round"),
    ("x/missions/m.yaml", "id: m\n", "mission"),
    ("x/goals/g.yaml", "kind: sum\n", "goal"),
    ("x/g.yaml", "rule: sum > 1\n", "goal"),
    ("x/c.yaml", "kind: sum\nrule: x\n", "challenge"),
    ("x/c.yaml", "missions: []\n", "campaign"),
    ("x/a.yaml", "# yaml-language-server: $schema=s/action.schema.json\nA: {}\n", "action"),
    ("x/m.yaml", "title: x\n", "mission"),
])
def test_a_files_kind_is_its_schema_line_then_its_folder_then_its_keys(path, text, kind):
    doc = yamlfile.parse_document(text.encode(), path)
    assert kinds.kind_of(Path(path), doc).name == kind


def test_the_registrys_folders_are_what_build_refuses_to_write_into(tmp_path):
    workspace = Workspace(starter_campaign())
    refused = {p.name for p in workspace.sources}
    assert refused >= {".synergy", *kinds.LAYOUT_FOLDERS}
    assert all(re.fullmatch(r"[a-z.]+", name) for name in refused)


def _reading(result) -> tuple:
    """A reading's outcome as a comparable value: the campaign (by its repr: rulebooks compare
    by identity), the diagnostics, what broke."""
    return (repr(result.campaign), sorted(result.diagnostics), sorted(result.broken.items()),
            sorted(result.documents))


def test_a_workspace_read_again_reads_only_what_changed_and_finds_what_a_fresh_read_finds(
        tmp_path, monkeypatch):
    """The studio and build --watch read their campaign again after every save through
    Workspace.again(): a file whose bytes did not change is neither parsed nor checked again,
    and each reading is the one a fresh Workspace gives."""
    import shutil

    from synergy_forge.authoring import kept, loading

    folder = tmp_path / "camp"
    shutil.copytree(starter_campaign(), folder)
    for mission in sorted((folder / "missions").glob("*.yaml"))[4:]:
        mission.unlink()
    parsed = counting(monkeypatch, kept, "parse_document")
    checked = counting(monkeypatch, kept, "check_mission")
    workspace = Workspace(folder).again()
    first = _reading(workspace.read())
    assert len(parsed) == 4 + 3 + 1 and len(checked) == 4  # the missions, goals, campaign
    parsed.clear(), checked.clear()

    def again() -> tuple:
        """The next reading, checked against a fresh one (whose own calls are not counted)."""
        nonlocal workspace
        workspace = workspace.again()
        warm = _reading(workspace.read())
        counts = len(parsed), len(checked)
        assert warm == _reading(Workspace(folder).read())
        del parsed[counts[0]:], checked[counts[1]:]
        return warm

    assert again() == first and (parsed, checked) == ([], [])
    # One mission's title: that file alone is parsed and checked again.
    mission = folder / "missions" / "02-warm-up.yaml"
    text = mission.read_text(encoding="utf-8")
    mission.write_text(text.replace('en: "Warm-up"', 'en: "Cool-down"'), encoding="utf-8")
    assert again() != first
    assert [d.file for d in checked] == [loading.display(mission)]
    assert parsed == [mission.read_bytes()]  # parse_document's first argument: the bytes
    parsed.clear(), checked.clear()
    # A mistake in it, then mended: located as a fresh read locates it.
    mission.write_text(text.replace("rounds: ", "rounds: [", 1), encoding="utf-8")
    assert any(d.file.endswith("02-warm-up.yaml") for d in again()[1])
    mission.write_text(text, encoding="utf-8")
    assert again() == first
    # A goal's rule changed: every mission is checked again against the new rulebook, each
    # file parsed once still.
    parsed.clear(), checked.clear()
    goal = folder / "goals" / "close-call.yaml"
    goal.write_text(re.sub(r"(?m)^rule: .*$", 'rule: "sum >= 1"', goal.read_text()),
                    encoding="utf-8")
    assert again()[0] != first[0]
    assert len(checked) == 4 and parsed == [goal.read_bytes()]
    # A goal broken: named as broken (what missions using it are told), as a fresh read does.
    goal.write_text(re.sub(r"(?m)^rule: .*$", 'rule: "sum >>> 1"', goal.read_text()),
                    encoding="utf-8")
    assert [key for key, _ in again()[2]] == [("goal", "close-call")]
