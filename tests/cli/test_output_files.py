"""An output file the user names (`play --log`, `table --log`, `playtest --html`) is written
over nothing, an empty file or an earlier output of the same kind, never over anything else:
a mission, a goal, campaign.yaml, a folder, a FIFO stay as they were (one policy,
fileio.OutputKind)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from synergy_forge.cli import main
from synergy_forge.errors import CannotWrite
from synergy_forge.fileio import write_atomic
from synergy_forge.resources import starter_campaign

ROOT = Path(__file__).resolve().parents[2]
MISSION = "missions/01-my-first-mission.yaml"
PLAYTEST = ["playtest", MISSION, "--games", "2", "--players", "3", "--bots", "coop"]


def run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def campaign(tmp_path, monkeypatch) -> Path:
    """A campaign as `synergy-forge new campaign` makes it, the current folder."""
    assert run("new", "campaign", str(tmp_path / "c")).exit_code == 0
    monkeypatch.chdir(tmp_path / "c")
    return tmp_path / "c"


def files(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` with its bytes (links and FIFOs by what they are)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        mode = os.lstat(path).st_mode
        if stat.S_ISREG(mode):
            found[str(path.relative_to(folder))] = path.read_bytes()
        elif not stat.S_ISDIR(mode):
            found[str(path.relative_to(folder))] = stat.S_IFMT(mode).to_bytes(4, "big")
    return found


def refused(result, option: str, name: str, what: str) -> None:
    assert result.exit_code == 2, result.output
    assert f"Invalid value for '{option}': {name}: exists and is not {what}: nothing was " \
        "written" in result.output, result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("target", [MISSION, "goals/close-call.yaml", "campaign.yaml",
                                    "challenges/odd-sum.yaml",
                                    ".synergy/schemas/mission.schema.json"])
def test_play_log_never_replaces_a_file_of_the_campaign(campaign, target):
    before = files(campaign)
    result = run("play", "1", "--quiet", "--seed", "1", "--log", target)
    refused(result, "--log", target, "a game log of synergy-forge")
    assert files(campaign) == before  # the file's bytes, and no file left beside it


def test_playtest_html_never_replaces_a_file_of_the_campaign(campaign):
    before = files(campaign)
    result = run(*PLAYTEST, "--html", "goals/close-call.yaml")
    refused(result, "--html", "goals/close-call.yaml", "an HTML report of synergy-forge")
    result = run(*PLAYTEST, "--html", MISSION)
    refused(result, "--html", MISSION, "an HTML report of synergy-forge")
    assert files(campaign) == before


def test_table_log_is_refused_before_the_table_opens(campaign):
    """In a process of its own: a table that opened would serve until stopped."""
    before = files(campaign)
    done = subprocess.run([sys.executable, "-m", "synergy_forge", "table", MISSION, "--log",
                           "campaign.yaml", "--no-browser", "--port", "0"],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    refused(SimpleNamespace(exit_code=done.returncode, output=done.stdout + done.stderr),
            "--log", "campaign.yaml", "a game log of synergy-forge")
    assert "Table for mission" not in done.stdout
    assert files(campaign) == before


def test_a_log_is_not_a_report_nor_a_report_a_log(campaign):
    assert run("play", "1", "--quiet", "--seed", "1", "--log", "game.jsonl").exit_code == 0
    assert run(*PLAYTEST, "--html", "report.html").exit_code == 0
    before = files(campaign)
    refused(run(*PLAYTEST, "--html", "game.jsonl"), "--html", "game.jsonl",
            "an HTML report of synergy-forge")
    refused(run("play", "1", "--quiet", "--log", "report.html"), "--log", "report.html",
            "a game log of synergy-forge")
    assert files(campaign) == before


def test_a_previous_log_a_previous_report_and_an_empty_file_are_replaced(campaign):
    for seed in ("1", "2"):
        result = run("play", "1", "--quiet", "--seed", seed, "--log", "game.jsonl")
        assert result.exit_code == 0, result.output
        assert f'"seed":{seed},' in Path("game.jsonl").read_text()
    Path("empty.jsonl").touch()
    assert run("play", "1", "--quiet", "--log", "empty.jsonl").exit_code == 0
    assert Path("empty.jsonl").read_text().startswith('{"type":"game",')
    assert run(*PLAYTEST, "--html", "report.html").exit_code == 0
    fresh = Path("report.html").read_bytes()
    Path("report.html").write_bytes(fresh + b"<!-- an earlier report -->")
    result = run(*PLAYTEST, "--html", "report.html")
    assert result.exit_code == 0, result.output
    assert Path("report.html").read_bytes() == fresh


def test_a_link_is_judged_by_the_file_it_points_to(campaign):
    Path("latest.jsonl").symlink_to(MISSION)
    before = files(campaign)
    refused(run("play", "1", "--quiet", "--log", "latest.jsonl"), "--log", "latest.jsonl",
            "a game log of synergy-forge")
    assert files(campaign) == before
    assert run("play", "1", "--quiet", "--log", "game.jsonl").exit_code == 0
    Path("latest.jsonl").unlink()
    Path("latest.jsonl").symlink_to("game.jsonl")
    assert run("play", "1", "--quiet", "--seed", "9", "--log", "latest.jsonl").exit_code == 0
    assert Path("latest.jsonl").is_symlink() and '"seed":9,' in Path("game.jsonl").read_text()


def test_a_fifo_or_a_folder_is_refused_and_stays(campaign):
    os.mkfifo("fifo")
    result = run("play", "1", "--quiet", "--log", "fifo")
    assert result.exit_code == 2 and "fifo: not a regular file" in result.output
    assert stat.S_ISFIFO(os.lstat("fifo").st_mode)
    result = run(*PLAYTEST, "--html", "missions")
    assert result.exit_code == 2 and "is a directory" in result.output


def test_a_file_saved_at_the_name_during_the_run_is_not_replaced(tmp_path):
    """The write checks again at its last moment: a mission saved at the log's name while the
    game was played (or the table's FILE-2.jsonl of a game dealt again) stays."""
    from synergy_forge.cli.output import GAME_LOG

    mission = tmp_path / "m.yaml"
    mission.write_text("id: m\n")
    with pytest.raises(CannotWrite, match=r"m\.yaml: exists and is not a game log"):
        write_atomic(mission, '{"type":"game"}\n', kind=GAME_LOG)
    assert mission.read_text() == "id: m\n" and os.listdir(tmp_path) == ["m.yaml"]


def test_the_table_refuses_a_second_games_log_over_a_file_not_a_log(tmp_path, capsys):
    from synergy_forge.authoring.gamelog import Recorder
    from synergy_forge.authoring.loading import read_mission_file
    from synergy_forge.cli.commands.table import _save
    from synergy_forge.core.engine import Game
    from synergy_forge.sim.play import play

    found = read_mission_file(starter_campaign() / "missions" / "01-first-notes.yaml")
    game = Game(found.mission, 3, 1, found.rulebook, found.colors)
    recorder = Recorder(game, ["coop"] * 3)
    play(game, ["coop"] * 3, on_decision=recorder)
    (tmp_path / "game-2.jsonl").write_text("my notes\n")
    finished = SimpleNamespace(game=game, records=recorder.finish(game), number=2,
                               options={"log": str(tmp_path / "game.jsonl"),
                                        "games": str(tmp_path / "games")})
    _save(finished)  # type: ignore[arg-type]
    out = capsys.readouterr()
    assert f"{tmp_path / 'game-2.jsonl'}: exists and is not a game log" in out.err
    assert (tmp_path / "game-2.jsonl").read_text() == "my notes\n"
    assert len(list((tmp_path / "games").glob("*.jsonl"))) == 1  # the games folder still has it


def test_the_kinds_are_known_by_how_our_outputs_begin(campaign):
    """GAME_LOG and HTML_REPORT describe what `play --log` and `playtest --html` write."""
    from synergy_forge.cli.output import GAME_LOG, HTML_REPORT

    assert run("play", "1", "--quiet", "--log", "game.jsonl").exit_code == 0
    assert run(*PLAYTEST, "--html", "report.html").exit_code == 0
    assert Path("game.jsonl").read_bytes().startswith(GAME_LOG.start)
    assert Path("report.html").read_bytes().startswith(HTML_REPORT.start)
