"""Commands run as a terminal runs them: a process group of their own, Ctrl-C sent to all of it;
the table's command with the links it prints, and its API spoken to over them."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from support import ROOT

LINK = re.compile(r"^seat (\d+): (http://127\.0\.0\.1:\d+/seat/[A-Za-z0-9_-]{32})$")


def api(link: str) -> str:
    return link.replace("/seat/", "/api/seat/")


#: Longer than any clean exit takes, far shorter than the interrupted work would run.
HANG = 30


def start(*args: str) -> subprocess.Popen[str]:
    """The command in a process group of its own, as a shell starts it, with Ctrl-C's default
    action (a test run started in the background ignores SIGINT, and children inherit that)."""
    return subprocess.Popen(
        [sys.executable, "-m", "synergy_forge", *args], cwd=ROOT, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def ctrl_c(process: subprocess.Popen[str]) -> tuple[str, str]:
    """Ctrl-C to the whole command; its output once it has exited (a hang fails the test)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGINT)
    try:
        return process.communicate(timeout=HANG)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        _, err = process.communicate()
        pytest.fail(f"still running {HANG} s after Ctrl-C: {err[-2000:]}")


class TableProcess:
    """`synergy-forge table …` in a subprocess, its seat links read from its first lines."""

    def __init__(self, *args: str, cwd: Path | None = None, port: int = 0,
                 default_state: bool = False) -> None:
        import tempfile

        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
        # Never the repository: a finished game's log goes to games/ of the current folder.
        cwd = cwd or Path(tempfile.mkdtemp(prefix="table-"))
        # A state file of its own: the bundled campaign's default one is shared by every table
        # of this test process, and an earlier test's unfinished game would be resumed beside
        # this one (its links printed first). `default_state`: the test is about that file.
        if "--state" not in args and not default_state:
            state = Path(tempfile.mkdtemp(prefix="table-state-")) / "tables.sqlite3"
            args = (*args, "--state", str(state))
        # Each game is reviewed while it is played (table/review.py): with few rollouts, so
        # that the suite's tables do not share its cores with a hundred games per decision.
        if "--review-rollouts" not in args:
            args = (*args, "--review-rollouts", "4")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "synergy_forge", "table", *args, "--port", str(port),
             "--no-browser"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=env, cwd=cwd)
        assert self.process.stdout is not None
        self.heading = self.process.stdout.readline()
        assert self.heading.startswith("Table for mission"), \
            self.heading + (self.process.stderr.read() if self.process.stderr else "")
        self.links: dict[int, str] = {}
        self.bots: dict[int, str] = {}
        players = int(re.search(r": (\d) players", self.heading).group(1))
        self.host = self._line("host")
        self.watch = self._line("watch")
        for _ in range(players):
            line = self.process.stdout.readline().rstrip("\n")
            found = LINK.match(line)
            if found:
                self.links[int(found.group(1))] = found.group(2)
            else:
                bot = re.fullmatch(r"seat (\d+): bot (\S+)", line)
                assert bot, line
                self.bots[int(bot.group(1))] = bot.group(2)

    def _line(self, name: str) -> str:
        """The host's or spectators' link, from its line (`host: URL`)."""
        assert self.process.stdout is not None
        line = self.process.stdout.readline().rstrip("\n")
        found = re.fullmatch(rf"{name}: (http://127\.0\.0\.1:\d+/{name}/[A-Za-z0-9_-]{{32}})",
                             line)
        assert found, line
        return found.group(1)

    def stop(self) -> tuple[int, str, str]:
        self.process.send_signal(signal.SIGINT)
        try:
            out, err = self.process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise
        return self.process.returncode, out, err


def get(link: str) -> dict:
    with urllib.request.urlopen(api(link), timeout=10) as response:
        return json.load(response)


def choose(link: str, choice: str) -> dict:
    request = urllib.request.Request(api(link) + "/choose",
                                     data=json.dumps({"choice": choice}).encode(),
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)
