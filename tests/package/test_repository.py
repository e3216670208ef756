"""A missions repository laid out as docs/ci.md shows passes its own documented checks.

The repository is built with `new campaign .`, the workflow and pre-commit files are taken from
docs/ci.md as written, next to a README and an mkdocs.yml; then the workflow's command and the
pre-commit hook (through `pre-commit try-repo`, with the hook's own defaults) run on it.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.files import run

from synergy_forge.cli import main

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
       "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}


def documented(first_line: str) -> str:
    """The code block of docs/ci.md that starts with `first_line`."""
    for block in re.findall(r"```[a-z]*\n(.*?)```", DOC, re.S):
        if block.startswith(first_line):
            return block
    raise AssertionError(f"docs/ci.md has no block starting with {first_line!r}")


def synergy_forge(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "synergy_forge", *args], cwd=cwd, env=ENV,
                          capture_output=True, text=True, timeout=300)



@pytest.fixture
def repository(tmp_path: Path) -> Path:
    repo = tmp_path / "my-missions"
    repo.mkdir()
    # `new campaign .` in this process (an interpreter's start less for every test): it lays
    # the repository out; what is tested are the commands the tests then run on it.
    with contextlib.chdir(repo):
        made = CliRunner().invoke(main, ["new", "campaign", "."])
    assert made.exit_code == 0, made.output
    # `new` wrote the workflow and the pre-commit configuration as docs/ci.md shows them.
    workflow = repo / ".github" / "workflows" / "missions.yml"
    assert workflow.read_text(encoding="utf-8") == documented("# .github/workflows/missions.yml")
    assert (repo / ".pre-commit-config.yaml").read_text(encoding="utf-8") == \
        documented("# .pre-commit-config.yaml")
    (repo / ".github" / "dependabot.yml").write_text("version: 2\nupdates: []\n")
    (repo / "mkdocs.yml").write_text("site_name: My missions\nnav:\n  - Home: index.md\n")
    (repo / "README.md").write_text("# My missions\n")
    (repo / "docs").mkdir()
    (repo / "docs" / "notes.yaml").write_text("ideas:\n  - a mission with no hands\n")
    return repo


def test_new_campaign_writes_the_documented_layout_and_nothing_else(tmp_path):
    """docs/ci.md's tree is what `new campaign .` writes, file for file (README.md and
    mkdocs.yml stand for the user's own files); its .gitignore keeps the kit out of git."""
    tree = next(block for block in re.findall(r"```\n(.*?)```", DOC, re.S)
                if block.startswith("my-missions/"))
    shown = {re.split(r"\s{2,}", line.split("── ", 1)[1])[0].rstrip("/")
             for line in tree.splitlines()[1:]} - {"README.md", "mkdocs.yml"}
    with contextlib.chdir(tmp_path):
        assert CliRunner().invoke(main, ["new", "campaign", "."]).exit_code == 0
    written = {str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()}
    schemas = {p for p in written if p.startswith(".synergy/schemas/")}
    assert schemas and written - schemas == shown - {".synergy/schemas"}
    assert "output/" in (tmp_path / ".gitignore").read_text().splitlines()


def test_the_documented_workflow_command_passes_on_the_documented_layout(repository):
    workflow = (repository / ".github" / "workflows" / "missions.yml").read_text()
    command = next(line.split("run:", 1)[1].strip() for line in workflow.splitlines()
                   if "run: synergy-forge validate" in line)
    args = shlex.split(command)[1:]
    result = synergy_forge(*args, cwd=repository)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""  # no annotation at all
    # What it skipped, in this process (the workflow's own command ran as the real program).
    verbose = run("validate", "--verbose", ".", cwd=repository)
    assert "5 files checked: 0 error(s), 0 warning(s)\n" in verbose.stdout
    for skipped in (".github/", ".pre-commit-config.yaml", "mkdocs.yml",
                    os.path.join("docs", "notes.yaml")):
        assert f"skipped {skipped}" in verbose.stderr, verbose.stderr


def test_a_mistake_in_a_mission_of_that_layout_is_annotated_at_its_line(repository):
    mission = repository / "missions" / "01-my-first-mission.yaml"
    mission.write_text(mission.read_text().replace("lives: 3", "livez: 3"))
    result = run("validate", "--format", "github", ".", cwd=repository)
    assert result.returncode == 1
    assert result.stdout.startswith(f"::error file={os.path.join('missions', mission.name)},")
    assert "unknown field 'livez' (did you mean 'lives'?)" in result.stdout


def test_a_named_file_is_checked_even_where_a_walk_would_skip_it(repository):
    result = run("validate", "docs/notes.yaml", cwd=repository)
    assert result.returncode == 1
    assert "is missing the required field" in result.stdout


def test_the_project_root_is_checked_without_reading_action_cards_as_missions():
    result = run("validate", ".", cwd=ROOT)
    assert result.returncode == 0, result.stdout[-3000:]


def test_the_documented_versions_are_the_packages_tag():
    from synergy_forge import __version__

    tag = f"v{__version__}"
    assert f"rev: {tag}\n" in documented("# .pre-commit-config.yaml")
    assert f'pip install "git+SYNERGY_FORGE_GIT@{tag}"' in \
        documented("# .github/workflows/missions.yml")


@pytest.mark.slow
def test_the_documented_pre_commit_set_up_passes_then_fails_at_the_line(repository, tmp_path):
    """docs/ci.md as written, in a throwaway repository: synergy-forge from a local path at a
    version tag (a clone of this checkout, tagged as `make tag` does)."""
    from synergy_forge import __version__

    pre_commit = shutil.which("pre-commit", path=str(Path(sys.executable).parent)) or \
        shutil.which("pre-commit")
    if pre_commit is None:
        pytest.skip("pre-commit is not installed (pip install 'synergy-forge[test]')")
    if shutil.which("git") is None:
        pytest.skip("pre-commit needs git")
    if not (ROOT / ".git").exists():
        pytest.skip("the hook is set up from a git repository; this is not a checkout")
    home = tmp_path / "pre-commit-home"
    env = {**ENV, "PRE_COMMIT_HOME": str(home)}
    # The hook runs the synergy-forge that pre-commit builds from the tagged clone and installs
    # in its own environment, never this checkout. Its dependencies (numpy, lxml, WeasyPrint...)
    # are the ones this test run has, as in test_wheel: pip finds them on PYTHONPATH, installs
    # nothing but synergy-forge, and builds it with the hatchling installed here. Unpacking
    # 200 MB of dependencies again was three quarters of the test's CPU (14 s of 19), and
    # checked only that pip can install packages (`make` installs the same ones).
    # (pip reads an option's variable as its value: PIP_NO_BUILD_ISOLATION=0 is
    # --no-build-isolation.) No package index is asked, so none is needed.
    env["PYTHONPATH"] = sysconfig.get_paths()["purelib"]
    env.update(PIP_NO_BUILD_ISOLATION="0", PIP_NO_INDEX="1", PIP_NO_COMPILE="0")
    source = tmp_path / "synergy-forge"
    # Without a working tree: pre-commit fetches the tag from it, never reads its files (a
    # checkout was most of the clone's time).
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(ROOT), str(source)], check=True,
                   env=env)
    subprocess.run(["git", "tag", "-a", f"v{__version__}", "-m", "release"], cwd=source,
                   check=True, env=env)
    config = repository / ".pre-commit-config.yaml"
    config.write_text(config.read_text().replace("SYNERGY_FORGE_GIT", str(source)))
    subprocess.run(["git", "init", "-q"], cwd=repository, check=True, env=env)
    subprocess.run(["git", "add", "-A"], cwd=repository, check=True, env=env)

    def hook() -> subprocess.CompletedProcess:
        return subprocess.run([pre_commit, "run", "--all-files"], cwd=repository, env=env,
                              capture_output=True, text=True, timeout=900)

    result = hook()
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    assert re.search(r"synergy-forge validate\.+Passed", output), output[-3000:]
    # Installed from the clone into the hook's environment (the one found first on its path;
    # this checkout's editable install is not on PYTHONPATH's folder).
    assert list(home.glob("repo*/py_env-*/lib/python*/site-packages/synergy_forge/cli/group.py"))
    mission = repository / "missions" / "01-my-first-mission.yaml"
    mission.write_text(mission.read_text().replace("lives: 3", "livez: 3"))
    failed = hook()
    assert failed.returncode == 1
    assert f"{os.path.join('missions', mission.name)}:10:1: error: unknown field 'livez'" in \
        failed.stdout, failed.stdout[-3000:]


def test_a_folder_with_no_synergy_file_says_so_rather_than_passing_silently(tmp_path):
    (tmp_path / "notes.yaml").write_text("id: x\n")
    result = run("validate", ".", cwd=tmp_path)
    assert result.returncode == 2  # nothing to check is a usage error
    assert "no Synergy file found (1 skipped; --verbose lists them)" in result.stderr


def test_make_clean_removes_what_make_demo_wrote(tmp_path):
    """`make demo` writes output/<lang>/ (the kit), output/.cache, output/.written.json,
    output/.lock (build --out output) and output/playtest.html (playtest --html): `make clean`
    removes all of it and the venv, keeping output/.gitkeep (it left the kit and the report)."""
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    out = tmp_path / "output"
    for folder in ("en/png", "fr/png", ".cache/templates", ".tmp", ".venv-like"):
        (out / folder).mkdir(parents=True)
    for name in (".gitkeep", "playtest.html", ".written.json", ".lock", "en/kit.pdf",
                 "en/png/a.png", "fr/kit.pdf", ".cache/templates/x"):
        (out / name).write_text("x")
    (tmp_path / ".venv").mkdir()
    done = subprocess.run(["make", "clean"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert [p.name for p in out.iterdir()] == [".gitkeep"]
    assert not (tmp_path / ".venv").exists()
