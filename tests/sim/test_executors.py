"""Executors: the same playtest, byte for byte, on one process, the local pool and a real Dask
cluster; lost workers cost a retry, never a wrong or missing result; workers die with their
parent."""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from synergy_forge.authoring.loading import read_campaign
from synergy_forge.cli import main
from synergy_forge.pool import WorkerLost, run_units
from synergy_forge.resources import starter_campaign
from synergy_forge.sim import playtest as pt
from synergy_forge.sim.executors import Dask, LocalPool, executor_for

ROOT = Path(__file__).resolve().parents[2]
MISSION = str(starter_campaign() / "missions" / "05-short-hand.yaml")


def _square_once_killed(shared, index):
    # The first time unit 3 runs, its worker is killed as by `kill -9` from outside.
    marker = Path(shared) / f"killed-{index}"
    if index == 3 and not marker.exists():
        marker.write_text("")
        os.kill(os.getpid(), signal.SIGKILL)
    return index * index


def _always_killed(shared, index):
    if index == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    return index


def test_pool_runs_again_the_units_of_a_killed_worker_and_yields_each_once(tmp_path):
    results = list(run_units(_square_once_killed, str(tmp_path), [(i,) for i in range(8)],
                             jobs=2))
    assert sorted(i for i, _ in results) == list(range(8))
    assert dict(results) == {i: i * i for i in range(8)}
    assert (tmp_path / "killed-3").exists()


def test_pool_reports_a_unit_that_kills_every_worker_as_worker_lost():
    with pytest.raises(WorkerLost, match="died 3 times"):
        list(run_units(_always_killed, None, [(i,) for i in range(4)], jobs=2))


def test_pool_workers_stop_when_their_parent_is_killed(tmp_path):
    # The parent starts two workers that would run for a minute, writes their pids, waits.
    script = textwrap.dedent(f"""
        import os, sys, time
        sys.path.insert(0, {str(ROOT)!r})
        from synergy_forge.pool import run_units
        from tests.sim.test_executors import _sleep_forever
        for _ in run_units(_sleep_forever, {str(tmp_path)!r}, [(0,), (1,)], jobs=2):
            pass
    """)
    parent = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT)
    try:
        deadline = time.monotonic() + 60
        while len(list(tmp_path.glob("worker-*"))) < 2:
            assert time.monotonic() < deadline, "the workers never started"
            time.sleep(0.1)
        workers = [int(p.name.split("-")[1]) for p in tmp_path.glob("worker-*")]
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 5
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(pid) for pid in workers)
    finally:
        parent.kill()


def test_a_worker_whose_parent_exited_before_its_start_stops_at_once():
    # A command interrupted just as it forks a worker exits before the worker's initializer
    # runs. Not yet reaped by its own parent, it is a zombie, which kill(pid, 0) still finds:
    # the worker took it for alive and waited for work for ever, holding the command's output
    # open (a Ctrl-C that hung). The zombie here: a process that exited and is not waited for.
    command = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        deadline = time.monotonic() + 60
        while _alive(command.pid):
            assert time.monotonic() < deadline, "the command did not exit"
            time.sleep(0.02)
        worker = subprocess.run(
            [sys.executable, "-c", "import time; from synergy_forge.pool import _follow_parent; "
             f"_follow_parent({command.pid}); time.sleep(30)"],
            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
        assert worker.returncode == 1
    finally:
        command.wait()


def _sleep_forever(folder, index):
    (Path(folder) / f"worker-{os.getpid()}").write_text("")
    time.sleep(60)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A killed child of a dead parent is reaped by init; until then it is a zombie, not running.
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.fixture(scope="module")
def sources():
    # Two missions, one plain and one with a challenge and an action card (what a mission
    # sends to the workers), each at 3, 4 and 5 players: mission 1 plays in a third of the
    # time of missions 2 and 5, which had nothing of their own to send.
    campaign = read_campaign(starter_campaign()).campaign
    return [pt.Playable(campaign.mission(n), campaign.rulebook, campaign.colors)
            for n in (1, 13)]


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    import dask
    from distributed.utils import get_mp_context

    # Worker processes forked from a fork server that has imported Dask and the playtest
    # once, as Dask's own test suite starts them, not spawned: a spawned worker imports them
    # again, some 1.4 s of CPU for each of the three started here (two, and the nanny's
    # replacement for the one killed). They are processes of their own either way. Dask's
    # statistical profiler (a thread sampling every thread's stack every 10 ms, for the
    # dashboard's profile page, which nothing here shows) is off: it was half of an idle
    # worker's CPU and samples the games being played; the work and its results are the same.
    # A process has one fork server, and its preload is the one set when it started: a build
    # run earlier in this test process (its own server preloads WeasyPrint) would hand its
    # server to these workers, and this one would hand Dask's to the builds after (each of
    # their workers then imported WeasyPrint, some 1.2 s). The cluster gets a server of its
    # own, stopped with it, as each command has in use.
    _stop_fork_server()
    with dask.config.set({"distributed.worker.multiprocessing-method": "forkserver",
                          "distributed.worker.profile.enabled": False}):
        get_mp_context().set_forkserver_preload(["distributed", "synergy_forge.sim.playtest"])
        try:
            with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                          host="127.0.0.1", dashboard_address=None,
                                          silence_logs=50) as local:
                yield local
        finally:
            _stop_fork_server()


def _stop_fork_server() -> None:
    """Stop this process's fork server, if one runs (multiprocessing's own tests do it so);
    the next user starts another, with its own preload."""
    from multiprocessing import forkserver

    forkserver._forkserver._stop()


#: Games per mission and player count in the runs compared: three units of each cell (chunks of
#: 2), so the order in which units come back matters. What is compared is the order in which
#: tallies are added, not the games themselves: 6 games a cell prove it as 15 and 30 did (the
#: same 18 units a run: what the executors split, send, retry and gather), at two fifths of
#: the CPU of 15.
GAMES = 6
CHUNK = 2


def _report(cells) -> str:
    from synergy_forge.reporting.playtest import playtest_to_json

    result = pt.PlaytestResult(GAMES, 4, ("coop",), cells, pt.estimates(cells))
    return json.dumps(playtest_to_json(result), indent=2)


@pytest.fixture(scope="module")
def alone(sources):
    """The report of the compared runs played on one process (made once for the module)."""
    return _report(pt.run(sources, ["coop"], None, GAMES, seed=4, chunk=CHUNK,
                          executor=LocalPool(1)))


@pytest.mark.slow
def test_playtest_json_is_the_same_on_one_process_any_pool_and_a_cluster(sources, cluster,
                                                                         alone):
    def play(executor):
        return _report(pt.run(sources, ["coop"], None, GAMES, seed=4, chunk=CHUNK,
                              executor=executor))

    assert play(LocalPool(2)) == alone
    assert play(LocalPool(3)) == alone
    assert play(Dask(cluster.scheduler_address)) == alone


@pytest.mark.slow
def test_a_cluster_worker_killed_mid_run_costs_a_retry_not_a_result(sources, cluster, alone):
    address = cluster.scheduler_address
    from distributed import Client

    with Client(address, set_as_default=False) as client:
        pids = list(client.run(os.getpid).values())
    killed = []

    def kill_one_worker(games: int) -> None:
        if not killed:  # after the first unit: the others are queued or running
            os.kill(pids[0], signal.SIGKILL)
            killed.append(pids[0])

    # Units of 1 game: 36 of them, most still queued or running when the worker is killed.
    cells = pt.run(sources, ["coop"], None, GAMES, seed=4, chunk=1, progress=kill_one_worker,
                   executor=Dask(address))
    assert killed
    assert [c.tally.games for c in cells] == [GAMES] * len(cells)
    # The one-process report (chunks of 2): the cells do not depend on how the games are
    # split into units (the test above proves it for executors; seeds are per game).
    assert _report(cells) == alone
    # The nanny starts a new worker in place of the killed one.
    with Client(address, set_as_default=False) as client:
        client.wait_for_workers(2, timeout=30)


def test_playtest_command_on_a_scheduler_prints_the_same_json(cluster, monkeypatch):
    runner = CliRunner()
    # At three players: what is compared is the command's JSON wherever it ran (the test
    # above compares every player count, executor by executor).
    args = ["playtest", MISSION, "--games", "20", "--players", "3", "--bots", "coop", "--json"]
    alone = runner.invoke(main, [*args, "--jobs", "1"])
    on_cluster = runner.invoke(main, [*args, "--scheduler", cluster.scheduler_address])
    assert alone.exit_code == 0 and on_cluster.exit_code == 0, on_cluster.output
    assert on_cluster.stdout == alone.stdout
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", cluster.scheduler_address)
    assert isinstance(executor_for(None, None), Dask)
    assert runner.invoke(main, args).stdout == alone.stdout


def test_an_unreachable_scheduler_is_a_clear_error_not_a_traceback(monkeypatch):
    from synergy_forge.sim import executors

    monkeypatch.setattr(executors, "executor_for", lambda address, jobs: Dask(address, 2.0))
    result = CliRunner().invoke(main, ["playtest", MISSION, "--games", "5", "--bots", "coop",
                                       "--scheduler", "tcp://127.0.0.1:9"])
    assert result.exit_code == 2
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in result.output
    assert "Traceback" not in result.output and "bug" not in result.output


SHORT = """\
id: {id}
number: {number}
title: Short
stars: {stars}
players: [3]
rounds: {rounds}
lives: 1
hand: {{numbers: 6, goals: 4}}
allowed_failures: 1
"""

def short_campaign(folder: Path) -> Path:
    """A campaign of two SHORT missions at 4 stars: in two rounds (tune agrees) and in one
    (tune adds a round)."""
    (folder / "missions").mkdir(parents=True)
    (folder / "campaign.yaml").write_text("name: Test\nmissions: [missions/*.yaml]\n")
    for number, rounds in ((1, 2), (2, 1)):
        (folder / "missions" / f"0{number}.yaml").write_text(
            SHORT.format(id=f"short-{number}", number=number, stars=4, rounds=rounds))
    return folder


@pytest.mark.slow
def test_tune_on_a_campaign_finds_the_same_changes_on_a_cluster_as_on_one_process(tmp_path,
                                                                                    cluster):
    import re

    # One mission that agrees, one that changes, at few games: the searches are the same
    # code whatever their length. The one that changes is too easy for 4 stars by a round:
    # eight settings played (the original, the far end, batches of candidates), then the
    # answer checked as playtest plays it.
    short_campaign(tmp_path)
    runner = CliRunner()
    args = ["tune", str(tmp_path), "--games", "40"]
    alone = runner.invoke(main, [*args, "--jobs", "1"])
    on_cluster = runner.invoke(main, [*args, "--scheduler", cluster.scheduler_address])
    assert alone.exit_code == on_cluster.exit_code, on_cluster.output

    def timeless(text: str) -> str:
        return re.sub(r"games in [0-9.]+ s", "games in - s", text)

    # The reports (stdout); the progress lines on stderr count games as they come back.
    assert timeless(on_cluster.stdout) == timeless(alone.stdout)
    assert alone.stdout.count("change:") >= 1 and "agrees" in alone.stdout


class _Recording(LocalPool):
    """The local pool, keeping what is sent to the workers: the shared value once per session,
    then every batch of units (playtest runs one session, a batch per level of the ladder)."""

    sent = b""

    def map(self, work, shared, units):
        self.sent += pickle.dumps((shared, units))
        return super().map(work, shared, units)

    def session(self, work, shared):
        self.sent += pickle.dumps(shared)
        inner, recording = super().session(work, shared), self

        class Recorded:
            def __enter__(self):
                self.running = inner.__enter__()
                return self

            def __exit__(self, *exc):
                return inner.__exit__(*exc)

            def run(self, units):
                recording.sent += pickle.dumps(list(units))
                return self.running.run(units)

        return Recorded()


def test_only_mission_values_and_seeds_travel_to_workers_never_a_file_path(sources):
    executor = _Recording(1)
    cells = pt.run(sources, ["coop"], [3], 4, seed=4, executor=executor)
    assert all(s.mission.source for s in sources)  # the files they were read from
    for subject in sources:
        assert subject.mission.source.encode() not in executor.sent
        assert Path(subject.mission.source).name.encode() not in executor.sent
    assert [c.mission.source for c in cells] == [s.mission.source for s in sources]


@pytest.mark.slow
def test_playtest_command_survives_a_killed_pool_worker_with_the_same_json():
    psutil = pytest.importorskip("psutil")
    # Two units of the pool's 50 games, one for each worker: the killed worker's unit is run
    # again while the other worker has work of its own. At three players only: two more player
    # counts were four more units of the same kind (and 9 s of CPU). Mission 1, whose games
    # take a third of mission 5's: the unit killed is run again whatever it plays.
    first = str(starter_campaign() / "missions" / "01-first-notes.yaml")
    args = ["playtest", first, "--games", "100", "--players", "3", "--bots", "coop", "--json"]
    expected = CliRunner().invoke(main, [*args, "--jobs", "1"]).stdout
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = subprocess.Popen([sys.executable, "-m", "synergy_forge", *args, "--jobs", "2"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                               env=env)
    try:
        deadline = time.monotonic() + 60
        while not (workers := psutil.Process(command.pid).children()):
            assert time.monotonic() < deadline and command.poll() is None, "no worker started"
            time.sleep(0.02)
        workers[0].send_signal(signal.SIGKILL)
        out, err = command.communicate(timeout=300)
    finally:
        command.kill()
    assert command.returncode == 0, err
    assert out.decode() == expected
    assert b"This is a bug" not in err


def _batches(client) -> set[str]:
    """The batches whose work units are on the cluster's workers (executors.Dask names each
    unit unit-INDEX-BATCH)."""
    return {key.rsplit("-", 1)[1] for keys in client.processing().values() for key in keys
            if isinstance(key, str) and key.startswith("unit-")}


@pytest.mark.slow
def test_ctrl_c_on_a_cluster_exits_130_without_waiting_for_the_work(cluster, tmp_path):
    # The module's last test on its cluster (test_interrupt had a cluster of its own for it):
    # the workers play on the units cancelled here until they end, or the cluster closes.
    # (Imported here: test_pool_workers_stop_when_their_parent_is_killed's child imports this
    # module as tests.sim.test_executors.)
    # tune of a campaign plays several missions at once, in threads: they stop too, long
    # before the minutes their games would take. Ctrl-C comes once the command's units are on
    # the workers (for tune, those of two missions at least), not after a fixed time for which
    # the workers would play on (seconds of CPU, more than its start on a loaded host). The
    # campaign is two SHORT missions, as many as the threads to stop need: their search
    # would take minutes at 4,000 games (a command that waited for its work fails), in units
    # of one round of three players. The starter's missions 1 and 2 at every player count
    # were 1.4 s of the workers' CPU, and as much wall, before the second mission's units
    # reached the workers and Ctrl-C came.
    from distributed import Client
    from support.processes import ctrl_c, start

    campaign = short_campaign(tmp_path / "campaign")
    address = cluster.scheduler_address
    with Client(address, set_as_default=False) as client:
        for args, batches in (
            (["playtest", MISSION, "--games", "4000", "--bots", "coop"], 1),
            (["tune", str(campaign), "--games", "4000"], 2),
        ):
            earlier = _batches(client)  # a previous command's, cancelled
            process = start(*args, "--scheduler", address)
            deadline = time.monotonic() + 60
            while len(_batches(client) - earlier) < batches:
                assert time.monotonic() < deadline and process.poll() is None, \
                    process.communicate() if process.poll() is not None else "no work"
                time.sleep(0.05)
            assert process.poll() is None, process.communicate()
            _, err = ctrl_c(process)
            assert process.returncode == 130, err
            assert "Traceback" not in err and err.strip().endswith("interrupted"), err
