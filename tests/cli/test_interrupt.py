"""Ctrl-C, as a terminal sends it (SIGINT to every process of the command): pooled commands exit
130 at once, with no worker's traceback, no hang and no worker left running, whenever it
comes. (On a Dask cluster too: test_executors, on its cluster. The studio, which runs until
Ctrl-C, exits 0: test_studio.)"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from support.processes import HANG, ctrl_c, start

from synergy_forge.resources import starter_campaign

ROOT = Path(__file__).resolve().parents[2]
MISSION = str(starter_campaign() / "missions" / "05-short-hand.yaml")


def left_running(group: int) -> list[int]:
    """The processes of a process group still alive (zombies waiting for init do not run)."""
    alive = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except (FileNotFoundError, ProcessLookupError, IndexError):
                continue
            if int(fields[2]) == group and fields[0] != "Z":
                alive.append(int(entry))
    return alive


def cpu_seconds(process: subprocess.Popen[str]) -> float:
    """The CPU time the command has used so far (its user and system time, in ticks)."""
    try:
        fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


#: CPU seconds after which the interpreter's own start is over and the program runs: that
#: start (site, runpy: 0.02 s) ends in Python's own traceback on Ctrl-C, which no program
#: can change; importing the command line then takes some 0.07 s more. CPU time, unlike
#: the time elapsed, does not grow with the machine's load.
STARTED = 0.04


def workers_of(process: subprocess.Popen[str]) -> list[str]:
    """The pids of the processes the command has started (its pool's workers), from the
    kernel's list of each of its threads' children: one read a thread, no walk of /proc."""
    found = []
    for children in Path(f"/proc/{process.pid}/task").glob("*/children"):
        with contextlib.suppress(OSError):
            found += children.read_text().split()
    return found


@pytest.mark.slow
def test_ctrl_c_at_random_moments_of_pooled_commands_is_clean():
    # playtest and tune on two worker processes, interrupted in each part of their run: twice
    # while the program starts (at a random moment of each half of the 0.5 s after the
    # interpreter's own start: the imports, the campaign read), once as soon as its workers
    # exist (being forked, their initializer running), and once at a random moment of their
    # games. The parts are found by watching the command, not guessed from fixed times: on a
    # loaded machine the workers start seconds late, and 12 tries at fixed times from 0.05 s
    # to 2.5 s (three times the CPU) interrupted most commands before they had any.
    rng = random.Random(25)
    commands = [
        ["playtest", MISSION, "--games", "200", "--bots", "coop", "--jobs", "2"],
        ["tune", MISSION, "--stars", "3", "--games", "100", "--jobs", "2"],
    ]
    moments = [("starting", 0, 0.25), ("starting", 0.25, 0.5), ("forking", 0, 0),
               ("playing", 0.05, 0.5)]
    for args in commands:
        for part, low, high in moments:
            delay = rng.uniform(low, high)
            process = start(*args)
            deadline = time.monotonic() + 60
            while not (workers_of(process) if part != "starting"
                       else cpu_seconds(process) >= STARTED) and process.poll() is None:
                assert time.monotonic() < deadline, f"{args[0]} is not {part}"
                time.sleep(0.005)
            time.sleep(delay)
            finished = process.poll() is not None
            _, err = ctrl_c(process)
            said = f"{args[0]} {part}, +{delay:.2f} s: exit {process.returncode}\n{err}"
            assert "Traceback" not in err and "Exception ignored" not in err, said
            assert process.returncode == (0 if finished else 130), said
            deadline = time.monotonic() + 5
            while left_running(process.pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert not left_running(process.pid), said


def test_commands_the_tests_start_get_ctrl_c_as_from_a_terminal():
    # Even when the test run itself was started in the background, ignoring SIGINT
    # (conftest.py): a server the tests stop with Ctrl-C must not ignore it.
    shown = subprocess.run([sys.executable, "-c", "import signal; "
                            "print(signal.getsignal(signal.SIGINT))"],
                           capture_output=True, text=True, timeout=HANG).stdout
    assert "default_int_handler" in shown, shown


def test_ctrl_c_while_the_main_thread_holds_the_state_lock_stops_without_waiting_for_it():
    # The handler runs in the main thread between two of its bytecodes: in the studio, while
    # it drew a page's state under the lock its stop takes (a hang, one Ctrl-C in eight).
    import uvicorn
    from starlette.applications import Starlette

    from synergy_forge.web.server import _Server

    lock, stopped = threading.Lock(), threading.Event()

    def on_exit() -> None:
        if lock.acquire(timeout=5):
            lock.release()
            stopped.set()

    server = _Server(uvicorn.Config(Starlette()), on_exit)
    with lock:
        started = time.monotonic()
        server.handle_exit(signal.SIGINT, None)
        assert time.monotonic() - started < 2  # not waiting for the lock it holds
    assert stopped.wait(5) and server.should_exit
