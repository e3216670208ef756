"""`synergy-forge table` as a user starts it: the links it prints, a game played to its end
through them, the logs it writes (which `replay` confirms), a game resumed after the command
was killed (`kill -9`), and every bad input as one line with its exit code."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.processes import TableProcess, choose, get
from support.tables import game_table, people, played

from synergy_forge.cli import main
from synergy_forge.resources import starter_campaign
from synergy_forge.table.view import PERSON

ROOT = Path(__file__).resolve().parents[2]
#: How long a test's player waits before asking for the view again: well under the seat's rate.
POLL = 0.1


def test_one_person_two_bots_play_to_the_end_and_the_logs_replay(tmp_path):
    log = tmp_path / "game.jsonl"
    games = tmp_path / "games"
    table = TableProcess("12", "--humans", "1", "--bots", "coop", "--pace", "0.05", "--seed",
                         "12", "--log", str(log), "--games", str(games))
    try:
        assert table.heading.startswith('Table for mission 12 "Stairway": 3 players '
                                        "(1 person, 2 bots)")
        assert list(table.links) == [0] and table.bots == {1: "coop", 2: "coop"}
        link = table.links[0]
        deadline = time.monotonic() + 120
        view = get(link)
        while view["outcome"] is None:
            assert time.monotonic() < deadline, "the game did not end"
            if view["legal"]:
                view = choose(link, view["legal"][-1]["id"])
            else:
                time.sleep(POLL)
                view = get(link)
        logged(games, "stairway-*.jsonl")
    finally:
        code, out, err = table.stop()
    assert code == 0, err
    assert "game over: " in out and f"log written to {log}" in out, out
    saved = list(games.glob("stairway-*.jsonl"))
    assert len(saved) == 1 and saved[0].read_text() == log.read_text()
    header = json.loads(log.read_text().splitlines()[0])
    assert header["bots"] == ["person", "coop", "coop"] and header["seed"] == 12
    replayed = CliRunner().invoke(main, ["replay", str(log)])
    assert replayed.exit_code == 0, replayed.output
    assert "same outcome as recorded" in replayed.output
    assert "Traceback" not in err


def logged(games: Path, pattern: str) -> None:
    """Wait until the finished game's log is in `games` (the table writes it there last, after
    the --log file), instead of for a fixed time."""
    deadline = time.monotonic() + 30
    while not list(games.glob(pattern)):
        assert time.monotonic() < deadline, f"no {pattern} in {games}"
        time.sleep(0.02)


def play_to_the_end(table: TableProcess, games: Path, pattern: str) -> tuple[int, str, str]:
    try:
        link = table.links[0]
        view = get(link)
        while view["outcome"] is None:
            if view["legal"]:
                view = choose(link, view["legal"][0]["id"])
            else:
                # While the bots think, ask at a page's pace: a loop asking as fast as it can
                # is over the seat's rate (20 a second, 60 at once) as soon as they take a
                # third of a second, which a loaded machine makes them take (429).
                time.sleep(POLL)
                view = get(link)
        logged(games, pattern)
    finally:
        result = table.stop()
    return result


@pytest.mark.slow
def test_a_campaign_keeps_its_games_in_its_games_folder(tmp_path):
    import shutil

    campaign = tmp_path / "camp"
    shutil.copytree(starter_campaign(), campaign)
    # Given the folder and --mission; then by number, run inside the campaign.
    code, out, _ = play_to_the_end(TableProcess(str(campaign), "--mission", "1", "--humans",
                                                "1", "--pace", "0", "--seed", "3",
                                                default_state=True),
                                   campaign / "games", "first-notes-*.jsonl")
    assert code == 0
    code, out, _ = play_to_the_end(TableProcess("2", "--humans", "1", "--pace", "0", "--seed",
                                                "3", cwd=campaign / "missions",
                                                default_state=True),
                                   campaign / "games", "warm-up-*.jsonl")
    assert code == 0
    assert len(list((campaign / "games").glob("first-notes-*.jsonl"))) == 1
    assert len(list((campaign / "games").glob("warm-up-*.jsonl"))) == 1, out
    # Its tables were kept in the campaign's own folder, out of its git.
    assert (campaign / ".synergy" / "tables.sqlite3").is_file()
    assert "tables.sqlite3*" in (campaign / ".synergy" / ".gitignore").read_text().splitlines()


def _free_port_in_use() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1)
    return sock


@pytest.mark.parametrize("args, message", [
    (["99"], "99: no such file, nor a mission number or id of the bundled starter campaign "
             "(its mission numbers: 1 to 30)"),
    (["5", "--port", "70000"], "'--port': 70000 is not in the range 0<=x<=65535"),
    (["5", "--port", "http"], "'--port': 'http' is not a valid integer"),
    (["5", "--humans", "4", "--players", "3"], "4 people cannot sit at a table of 3"),
    (["5", "--players", "6"], "'--players': 6 is not in the range 3<=x<=5"),
    (["5", "--humans", "1", "--bots", "nobody"], "unknown bot(s) nobody"),
    (["5", "--humans", "1", "--bots", "coop,coop,coop"], "give one bot or 2, one per bot seat"),
    (["5", "--mission", "2"], "--mission chooses a mission of a campaign folder"),
    ([str(starter_campaign())], "has 30 missions: choose one by its number or id (numbers 1 "
                                "to 30)"),
    ([str(starter_campaign()), "--mission", "31"], "has no mission '31' (numbers 1 to 30)"),
])
def test_bad_input_is_one_located_line_and_exit_2(args, message):
    result = CliRunner().invoke(main, ["table", *args, "--no-browser"])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_a_port_in_use_is_one_line_and_exit_2():
    busy = _free_port_in_use()
    try:
        port = busy.getsockname()[1]
        result = CliRunner().invoke(main, ["table", "5", "--port", str(port), "--no-browser"])
    finally:
        busy.close()
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1] == (
        f"synergy-forge: error: cannot listen on 127.0.0.1:{port}: Address already in use")


def test_every_interface_is_a_choice_said_aloud_and_each_link_has_its_qr_code_on_a_terminal():
    """A table on every interface says so (a warning on stderr) and prints links to this
    machine's address, not 0.0.0.0. Under a terminal, it prints each person's link as a QR
    code too (phones scan it); the code is the link's, as segno draws it. (One table for
    both: each was a command of its own.)"""
    import io
    import pty

    import segno

    leader, follower = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "synergy_forge", "table", "5", "--humans", "2", "--host",
         "0.0.0.0", "--port", "0", "--no-browser"], stdout=follower, stderr=subprocess.PIPE,
        env=env)
    os.close(follower)
    text = b""
    deadline = time.monotonic() + 30
    try:
        while b"Who can join" not in text or not text.endswith(b"\n"):
            assert time.monotonic() < deadline, text.decode(errors="replace")
            text += os.read(leader, 65536)
        process.send_signal(signal.SIGINT)
        # A margin for a loaded host; the server stops at once when idle.
        err = process.communicate(timeout=60)[1].decode()
    finally:  # never leave a server listening on every interface behind a failed test
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(leader)
    assert "\nwarning: listening on 0.0.0.0: anyone on your network" in "\n" + err
    lines = text.decode().replace("\r\n", "\n")
    # Said plainly: who can join, and how.
    assert "Who can join: anyone on this machine's networks" in lines
    assert "unless your router forwards this port" in lines
    links = re.findall(r"^seat \d: (http://\S+)$", lines, flags=re.MULTILINE)
    assert len(links) == 2 and not any("0.0.0.0" in link for link in links)
    for link in links:
        drawn = io.StringIO()
        segno.make(link, error="l").terminal(out=drawn, compact=True, border=2)
        assert f"{link}\n{drawn.getvalue()}" in lines


def test_a_campaign_with_errors_exits_1_with_them_as_every_command(tmp_path):
    import shutil

    campaign = tmp_path / "c"
    shutil.copytree(starter_campaign(), campaign)
    rule = campaign / "challenges" / "threes-are-zero.yaml"
    rule.write_text(rule.read_text().replace('rule: "0 if value == 3 else value"',
                                             'rule: "value / 2"'))
    for args in ([str(campaign), "--mission", "19"],
                 [str(campaign / "missions" / "19-dim-lights.yaml")]):
        result = CliRunner().invoke(main, ["table", *args, "--no-browser"])
        assert result.exit_code == 1, result.output
        assert "threes-are-zero.yaml:9:" in result.output and "Traceback" not in result.output


# -- the command, killed and started again ---------------------------------------------------

def test_table_killed_mid_game_resumes_where_it_was_with_the_same_links(tmp_path):
    state = tmp_path / "state.sqlite3"
    games = tmp_path / "games"
    args = ("5", "--players", "3", "--seed", "77", "--state", str(state), "--games", str(games))
    with socket.socket() as probe:  # a port free now, the same for both: the same links
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    first = TableProcess(*args, cwd=tmp_path, port=port)
    try:
        links = first.links
        assert len(links) == 3
        for _ in range(6):  # a few steps, then one half made
            for seat in range(3):
                view = get(links[seat])
                if view["legal"]:
                    choose(links[seat], view["legal"][0]["id"])
        view = get(links[0])
        choose(links[0], view["legal"][0]["id"])
        before = {seat: get(links[seat]) for seat in range(3)}
    finally:
        first.process.send_signal(signal.SIGKILL)
        first.process.wait(timeout=20)
    assert first.process.returncode == -signal.SIGKILL

    second = TableProcess(*args, cwd=tmp_path, port=port)
    try:
        assert "resumed in round" in second.heading
        assert second.links == links and second.host == first.host
        after = {seat: get(links[seat]) for seat in range(3)}
        for seat in range(3):
            a, b = after[seat], before[seat]
            for view in (a, b):  # who has a page open is not the game
                view["version"] = None
                for s in view["table"]["seats"]:
                    s["connected"] = None
            assert a == b
        view = get(links[0])
        while view["outcome"] is None:
            for seat in range(3):
                view = get(links[seat])
                if view["legal"]:
                    view = choose(links[seat], view["legal"][0]["id"])
        deadline = time.monotonic() + 30
        while not list(games.glob("short-hand-*.jsonl")):
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        code, out, err = second.stop()
    assert code == 0, err
    assert "game over: " in out and "log written to" in out, out
    [log] = games.glob("short-hand-*.jsonl")
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert records[0]["seed"] == 77 and records[0]["bots"] == [PERSON] * 3
    assert all(r["by"] == PERSON for r in records if r["type"] == "decision")
    # The same game as one played without the kill, choice for choice.
    reference = played(game_table("5", people(3), seed=77))
    assert records == reference
