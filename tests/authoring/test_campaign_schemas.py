"""Schema lines that survive a clone: `new campaign` keeps the schemas in the
campaign (.synergy/schemas/), its files name them by relative paths, `new mission` inside a
campaign does the same, and `schemas --update` refreshes the copy and the lines."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.files import run

from synergy_forge.resources import schemas_dir

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
       "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
LINE = re.compile(r"# yaml-language-server: \$schema=(\S+)\n")


def program(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The real program, started from `cwd`."""
    return subprocess.run([sys.executable, "-m", "synergy_forge", *args], cwd=cwd, env=ENV,
                          capture_output=True, text=True, timeout=300)



def schema_lines(folder: Path) -> dict[Path, Path]:
    """Each YAML file's schema, as its first line names it, resolved from the file."""
    found = {}
    for path in folder.rglob("*.yaml"):
        if any(part.startswith(".") for part in path.relative_to(folder).parts):
            continue  # .git, and the tools' own (.pre-commit-config.yaml)
        match = LINE.match(path.read_text(encoding="utf-8"))
        assert match, f"{path} has no schema line"
        assert not os.path.isabs(match.group(1)) and "/synergy_forge/" not in match.group(1)
        found[path] = (path.parent / match.group(1)).resolve()
    return found


def stale(copy: Path) -> Path:
    """`copy` as an older synergy-forge wrote it: a schema of ours, with another field."""
    copy.write_text(copy.read_text().replace('"title"', '"old": 1, "title"', 1))
    return copy


@pytest.fixture
def clone(tmp_path) -> Path:
    origin = tmp_path / "my-missions"
    origin.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=origin, check=True, env=ENV)
    made = run("new", "campaign", ".", cwd=origin)
    assert made.returncode == 0, made.stderr
    assert "wrote .synergy/schemas/ (8 schemas" in made.stdout
    assert run("new", "mission", "missions/02-second.yaml", cwd=origin).returncode == 0
    subprocess.run(["git", "add", "-A"], cwd=origin, check=True, env=ENV)
    subprocess.run(["git", "commit", "-qm", "start"], cwd=origin, check=True, env=ENV)
    elsewhere = tmp_path / "elsewhere" / "checkout"
    subprocess.run(["git", "clone", "-q", str(origin), str(elsewhere)], check=True, env=ENV)
    return elsewhere


def test_every_schema_line_of_a_cloned_campaign_names_the_campaigns_own_schemas(clone):
    lines = schema_lines(clone)
    assert len(lines) == 6  # campaign, two missions, a challenge, a goal, a round
    for path, schema in lines.items():
        assert schema.is_file(), f"{path}: {schema} does not exist in the clone"
        assert schema.parent == (clone / ".synergy" / "schemas").resolve()
        assert schema.read_bytes() == (schemas_dir() / schema.name).read_bytes()
    assert lines[clone / "missions" / "02-second.yaml"].name == "mission.schema.json"
    checked = run("schemas", cwd=clone / "missions")
    assert checked.returncode == 0 and "up to date" in checked.stdout, checked.stderr


def test_schemas_update_refreshes_an_old_copy_and_mends_a_machine_bound_line(clone):
    stale(clone / ".synergy" / "schemas" / "mission.schema.json")
    mission = clone / "missions" / "02-second.yaml"
    text = mission.read_text()
    mission.write_text("# yaml-language-server: $schema=../../../wheelinst/synergy_forge/"
                       "schemas/mission.schema.json\n" + text.split("\n", 1)[1])
    validated = run("validate", cwd=clone)
    assert validated.returncode == 0  # a warning only
    assert "[campaign.schemas]" in validated.stdout and "schemas --update" in validated.stdout
    checked = run("schemas", cwd=clone)
    assert checked.returncode == 1
    assert "differ from synergy-forge" in checked.stdout and "02-second.yaml:1:1" in \
        checked.stdout
    updated = run("schemas", "--update", cwd=clone)
    assert updated.returncode == 0, updated.stderr
    assert mission.read_text() == text  # the line as `new` wrote it, the rest untouched
    assert run("schemas", cwd=clone).returncode == 0
    assert "[campaign.schemas]" not in run("validate", cwd=clone).stdout


def test_schemas_outside_a_campaign_is_a_usage_error(tmp_path):
    result = program("schemas", cwd=tmp_path)
    assert result.returncode == 2 and "no campaign.yaml in this folder or above" in \
        result.stderr


def test_schemas_update_changes_no_read_only_file_and_writes_nothing_then(clone):
    """The schema lines are the designer's files, changed in place as `tune --write` changes
    a mission: a read-only one (chmod a-w: even root is refused) stops the update before
    anything is written; a byte-order mark and Windows line ends are kept."""
    copy = stale(clone / ".synergy" / "schemas" / "mission.schema.json")
    old = copy.read_text()
    mission = clone / "missions" / "02-second.yaml"
    text = mission.read_text()
    moved = "# yaml-language-server: $schema=../elsewhere/mission.schema.json\n" + \
        text.split("\n", 1)[1]
    mission.write_text(moved)
    mission.chmod(0o444)
    updated = run("schemas", "--update", cwd=clone)
    assert updated.returncode == 2 and "02-second.yaml: is read-only; nothing was written" in \
        updated.stderr, updated.stderr
    assert mission.read_text() == moved and copy.read_text() == old
    mission.chmod(0o644)
    mission.write_bytes(b"\xef\xbb\xbf" + moved.replace("\n", "\r\n").encode())
    assert run("schemas", "--update", cwd=clone).returncode == 0
    assert mission.read_bytes() == b"\xef\xbb\xbf" + text.split("\n", 1)[0].encode() + b"\n" + \
        text.split("\n", 1)[1].replace("\n", "\r\n").encode()
