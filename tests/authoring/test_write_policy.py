"""One write policy for every file a command writes into a campaign (fileio.write_inside): never
through a link out of the campaign (a cloned repository can carry one), never over a file that
is not an earlier output of that kind; the kit never inside the campaign's own folders; --out
relative to the campaign, so that a bare `build` works in any folder below it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.files import run

from synergy_forge import fileio


@pytest.fixture
def campaign(tmp_path) -> Path:
    made = run("new", "campaign", "c", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    return tmp_path / "c"


@pytest.fixture
def notes(tmp_path) -> Path:
    """A file of the user's outside the campaign, which no command may change."""
    path = tmp_path / "notes.txt"
    path.write_text("my notes\n")
    return path


def stale(campaign: Path, name: str = "mission.schema.json") -> Path:
    """The campaign's copy of a schema made stale, as an older synergy-forge wrote it."""
    copy = campaign / ".synergy" / "schemas" / name
    copy.write_text(copy.read_text().replace('"title"', '"old": 1, "title"', 1))
    return copy


def test_schemas_update_never_writes_through_a_link_out_of_the_campaign(campaign, notes):
    copy = stale(campaign)
    copy.unlink()
    copy.symlink_to(notes)
    updated = run("schemas", "--update", cwd=campaign)
    assert updated.returncode == 2, updated.stdout + updated.stderr
    assert "leads out of" in updated.stderr and "nothing was written" in updated.stderr
    assert "Traceback" not in updated.stderr
    assert notes.read_text() == "my notes\n" and copy.is_symlink()


def test_schemas_update_never_writes_over_a_file_that_is_not_a_schema(campaign):
    copy = campaign / ".synergy" / "schemas" / "goal.schema.json"
    copy.write_text("my notes, kept here by mistake\n")
    updated = run("schemas", "--update", cwd=campaign)
    assert updated.returncode == 2
    assert "exists and is not a schema of synergy-forge" in updated.stderr
    assert copy.read_text() == "my notes, kept here by mistake\n"


def test_schemas_update_replaces_an_older_copy(campaign):
    copy = stale(campaign)
    assert run("schemas", "--update", cwd=campaign).returncode == 0
    assert '"old": 1' not in copy.read_text()


@pytest.mark.parametrize("how", ["file", "link"])
def test_new_campaign_writes_nothing_over_a_file_or_through_a_link(tmp_path, notes, how):
    folder = tmp_path / "repo"
    (folder / ".synergy" / "schemas").mkdir(parents=True)
    copy = folder / ".synergy" / "schemas" / "campaign.schema.json"
    if how == "link":
        copy.symlink_to(notes)
    else:
        copy.write_text("mine\n")
    made = run("new", "campaign", ".", cwd=folder)
    assert made.returncode == 2, made.stdout
    assert "nothing was written" in made.stderr and "Traceback" not in made.stderr
    assert notes.read_text() == "my notes\n"
    assert not (folder / "campaign.yaml").exists()  # all or nothing
    assert how == "link" or copy.read_text() == "mine\n"


def test_new_mission_never_makes_a_file_out_of_the_campaign_through_a_dangling_link(
        campaign, tmp_path):
    away = tmp_path / "away"
    away.mkdir()
    link = campaign / "missions" / "02-second.yaml"
    link.symlink_to(away / "made.yaml")  # dangling: the file it names is not there yet
    made = run("new", "mission", "missions/02-second.yaml", cwd=campaign)
    assert made.returncode == 2, made.stdout
    assert not (away / "made.yaml").exists()
    made = run("new", "mission", "missions/02-second.yaml", "--force", cwd=campaign)
    assert made.returncode == 2 and "leads out of" in made.stderr
    assert not (away / "made.yaml").exists()


def test_new_mission_never_writes_into_a_linked_folder_out_of_the_campaign(campaign, tmp_path):
    away = tmp_path / "away"
    away.mkdir()
    (campaign / "more").symlink_to(away)
    made = run("new", "mission", "more/03-third.yaml", cwd=campaign)
    assert made.returncode == 2 and "leads out of" in made.stderr
    assert list(away.iterdir()) == []


def test_a_link_inside_the_campaign_is_fine(campaign):
    (campaign / "drafts").mkdir()
    (campaign / "more").symlink_to(campaign / "drafts")
    assert fileio.outside_problem(campaign, campaign / "more" / "x.yaml") is None
    made = run("new", "mission", "more/03-third.yaml", cwd=campaign)
    assert made.returncode == 0, made.stderr
    assert (campaign / "drafts" / "03-third.yaml").is_file()


def test_the_games_log_never_leaves_the_campaign_through_a_link(campaign, tmp_path):
    """The table adds each finished game's log to games/ of its campaign (fileio.write_inside):
    a games/ that is a link out of the campaign is refused in one line, play goes on."""
    from synergy_forge.fileio import write_inside

    away = tmp_path / "away"
    away.mkdir()
    (campaign / "games").symlink_to(away)
    with pytest.raises(Exception, match="leads out of"):
        write_inside(campaign, campaign / "games" / "g.jsonl", "{}\n")
    assert list(away.iterdir()) == []


def test_the_kit_is_never_written_in_a_campaign_folder_named_as_a_language(tmp_path):
    """`build en --out .` for a campaign in a folder named `en` would put OUT/en/ (the English
    kit) inside the campaign: refused before anything is written."""
    assert run("new", "campaign", "en", cwd=tmp_path).returncode == 0
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    built = run("build", "en", "--out", ".", "--lang", "en", "--jobs", "1", cwd=tmp_path)
    assert built.returncode == 2, built.stdout + built.stderr
    assert "holds the campaign's own files" in built.stderr
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_a_bare_build_in_a_subfolder_builds_into_the_campaigns_output(campaign, monkeypatch):
    """docs/ci.md: every command works in any folder below the campaign. `build` with no
    --out writes output/ of the campaign, whichever folder it runs in."""
    import synergy_forge.workspace.build as kit

    seen: list[Path] = []

    def print_kit(check, out_dir, *args, **kwargs):
        seen.append(out_dir)
        raise SystemExit(0)

    monkeypatch.setattr(kit, "print_kit", print_kit)
    (campaign / "goals" / "sub").mkdir()
    for folder in (campaign / "missions", campaign / "goals" / "sub", campaign):
        seen.clear()
        run("build", "--jobs", "1", cwd=folder)
        assert [Path(os.path.abspath(folder / p)) for p in seen] == \
            [Path(os.path.abspath(campaign / "output"))], folder


def test_new_campaign_in_a_repository_keeps_its_own_gitignore_and_workflows(tmp_path):
    """A repository with its own .gitignore, workflow or pre-commit configuration: those stay
    as they are, and the campaign's other files are written."""
    (tmp_path / ".gitignore").write_text("node_modules/\n")
    (tmp_path / ".pre-commit-config.yaml").write_text("repos: []\n")
    made = run("new", "campaign", ".", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert (tmp_path / ".gitignore").read_text() == "node_modules/\n"
    assert (tmp_path / ".pre-commit-config.yaml").read_text() == "repos: []\n"
    assert (tmp_path / ".github" / "workflows" / "missions.yml").is_file()
    assert (tmp_path / "rounds" / "close-call.yaml").is_file()
