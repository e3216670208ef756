"""Hardening: each class of hostile input the second fuzzing run found ends
in its documented exit code, in one line, at once, with no traceback. One test (or one
parametrized test) per class; tests/package/test_fuzz.py draws many more inputs of each class."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.files import deadline, invoke_within

from synergy_forge.authoring.paths import pattern_problem
from synergy_forge.cli import main
from synergy_forge.fileio import write_atomic
from synergy_forge.resources import starter_campaign


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def one_line_error(result, code: int) -> str:
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output
    return result.output


def small_campaign(folder: Path, keep: tuple[str, ...] = ("01", "02")) -> Path:
    """The starter campaign copied to FOLDER with only the missions whose files start with
    one of KEEP."""
    shutil.copytree(starter_campaign(), folder)
    for path in (folder / "missions").glob("*.yaml"):
        if not path.name.startswith(keep):
            path.unlink()
    return folder


@pytest.fixture
def campaign(tmp_path):
    """A starter copy with one mission (its goals, challenges and campaign.yaml whole): what
    these tests break is in campaign.yaml or beside the missions, and every command read all
    thirty missions before it answered (four commands for each pattern of `goals`)."""
    return small_campaign(tmp_path / "c", keep=("01",))


# --- 1. One path policy for the paths and patterns of campaign.yaml -----------------------

HOSTILE_PATTERNS = {
    "/etc/*.yaml": "absolute path",
    "~/goals/*.yaml": "absolute path",
    "missions/**a": "'**' must be a whole part",
    "/".join(["a"] * 250) + "/*.yaml": "at most 32",
    "x" * 300 + ".yaml": "longer than 255 bytes",
    "../elsewhere/*.yaml": "out of the campaign folder",
    "goals/" + "y" * 2000: "at most 1024",
}


@pytest.mark.parametrize("pattern", HOSTILE_PATTERNS)
@pytest.mark.parametrize("key", ["missions", "goals", "challenges"])
def test_a_pattern_outside_the_policy_is_a_located_error_in_campaign_yaml(campaign, key,
                                                                          pattern):
    path = campaign / "campaign.yaml"
    lines = path.read_text(encoding="utf-8").splitlines()
    number = next(i for i, line in enumerate(lines, 1) if line.startswith(f"{key}:"))
    lines[number - 1] = f'{key}: [{key}/*.yaml, "{pattern}"]'
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    commands = [["validate", campaign]]
    if key == "goals":  # every command reads campaigns through the same loader
        commands += [["playtest", campaign, "--games", "1"], ["tune", campaign, "--games", "25"],
                     ["build", campaign, "--out", campaign.parent / "out"]]
    for command in commands:
        # A campaign with errors is exit 1 for every command (the same as build).
        output = one_line_error(run(*command), 1)
        column = len(f"{key}: [{key}/*.yaml, ") + 1
        assert f"campaign.yaml:{number}:{column}:" in output, command
        assert HOSTILE_PATTERNS[pattern] in output


def test_a_link_out_of_the_campaign_is_refused(campaign, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    shutil.copy(campaign / "goals" / next(p.name for p in (campaign / "goals").iterdir()),
                outside / "x.yaml")
    (campaign / "goals" / "link.yaml").symlink_to(outside / "x.yaml")
    output = one_line_error(run("validate", campaign), 1)
    assert "goals/link.yaml leads out of the campaign folder through a link" in output


def test_the_policy_accepts_what_campaigns_write():
    for pattern in ("missions/*.yaml", "goals/**/*.yaml", "./missions/01.yaml", "a/b/c/[0-9]*",
                    "missions/é.yaml"):
        assert pattern_problem(pattern) is None, pattern


def test_long_names_are_answered_in_one_line(tmp_path, monkeypatch):
    # Back where it was after the test: a build names its campaign's files relative to the
    # working folder (in its HTML, hence its cache keys), and `built` below starts from the
    # starter kit's cache, built from where pytest started.
    monkeypatch.chdir(tmp_path)
    long = "a" * 300
    for command in (["play", long], ["validate", long], ["play", f"{long}/m.yaml"]):
        one_line_error(run(*command), 2)
    # A legal name of 250 bytes: its temporary file's name must be legal too.
    result = run("play", "1", "--quiet", "--log", "b" * 250)
    assert result.exit_code == 0, result.output
    assert (tmp_path / ("b" * 250)).stat().st_size > 0
    assert [p.name for p in tmp_path.iterdir()] == ["b" * 250]


def test_a_write_error_names_the_users_file_not_the_temporary_one(tmp_path, monkeypatch):
    def full(source, target):
        raise OSError(28, "No space left on device", source)

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(OSError) as raised:
        write_atomic(tmp_path / "log.jsonl", "x")
    assert raised.value.filename == str(tmp_path / "log.jsonl")
    assert list(tmp_path.iterdir()) == []


# --- 3. Output that cannot be written: exit 2 everywhere ---------------------------------

@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("command", [["play", "1", "--seed", "1", "--bots", "random"],
                                     # A report of one file: the campaign's thirty were a
                                     # third of this case's time, for the same report.
                                     ["validate", "FIRST"], ["--help"],
                                     # One mission at one player count (the whole starter
                                     # campaign's ladder cost 20 s): what it prints is a report.
                                     ["playtest", "FIRST", "--games", "1", "--players", "3",
                                      "--format", "json"]])
def test_stdout_on_a_full_disk_is_exit_2(command):
    first = starter_campaign() / "missions" / "01-first-notes.yaml"
    args = [str(first) if a == "FIRST" else a for a in command]
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "synergy_forge", *args], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1:] == [
        "synergy-forge: error: cannot write the output: No space left on device"]


@pytest.mark.parametrize("kind", ["fifo", "stream", "folder"])
def test_an_atomic_write_never_replaces_what_is_not_a_regular_file(tmp_path, kind):
    target = tmp_path / kind
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "stream":
        target.symlink_to("/proc/self/fd/1")  # as /dev/stdout is
    else:
        target.mkdir()
    with pytest.raises(OSError) as raised:
        write_atomic(target, "x")
    assert raised.value.filename == str(target)
    assert target.is_symlink() if kind == "stream" else target.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [kind]


# --- 2. YAML numbers: only decimal whole numbers of bounded length are converted -----------

@pytest.mark.parametrize(("value", "words"), [
    ("0x1F", "hexadecimal number in YAML; whole numbers are decimal: write 31"),
    ("017", "an octal number in YAML; whole numbers are decimal: write 15"),
    ("0b101", "a binary number in YAML; whole numbers are decimal: write 5"),
    ("!!int 0x10", "write 16"),
    ("1:30", "base-60 number"),
    ("1:30.5", "base-60 number"),
    ("0x" + "f" * 4000, "a number of 4002 characters"),
    ("1" + ":1" * 1_000_000, "a number of 2000001 characters"),  # minutes in PyYAML
    ("9" * 30, "a number of 30 characters"),
])
def test_a_number_outside_decimal_whole_numbers_is_a_located_error(tmp_path, value, words):
    path = tmp_path / "m.yaml"
    path.write_text(f"id: m\nnumber: 1\ntitle: M\nstars: 1\nlives: 2\nrounds: {value}\n")
    output = one_line_error(run("validate", path), 1)
    assert "m.yaml:6:9: error: " in output and words in output
    assert "[number]" in output


def test_decimal_numbers_still_read_as_numbers(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text("id: m\nnumber: 1\ntitle: M\nstars: 1\nlives: 2\nrounds: 1_0\n")
    assert "at most 7 rounds" in run("validate", path).output


# --- 4. One number policy: every seed play takes is one a log holds -----------------------

def test_the_seed_range_is_the_log_formats():
    import json

    from synergy_forge.core.engine import MAX_SEED, MIN_SEED
    from synergy_forge.resources import schemas_dir

    schema = json.loads((schemas_dir() / "gamelog.schema.json").read_text(encoding="utf-8"))
    seed = next(v["properties"]["seed"] for v in schema["$defs"].values()
                if "seed" in v.get("properties", {}))
    assert (seed["minimum"], seed["maximum"]) == (MIN_SEED, MAX_SEED)


@pytest.mark.parametrize("seed", [2**63 - 1, -(2**63)])
def test_a_game_played_at_the_ends_of_the_seed_range_replays(tmp_path, seed):
    log = tmp_path / "g.jsonl"
    assert run("play", "1", "--quiet", "--seed", seed, "--log", log).exit_code == 0
    assert run("replay", log).exit_code == 0


@pytest.mark.parametrize("command", ["play 1", "playtest", "tune 1"])
@pytest.mark.parametrize("seed", [2**63, -(2**63) - 1, 10**30])
def test_a_seed_out_of_the_range_is_a_usage_error(command, seed):
    output = one_line_error(run(*command.split(), "--seed", seed), 2)
    assert "Invalid value for '--seed'" in output


# --- 6. Folder walks skip what is not a regular file, with a note --------------------------

def synergy_forge(*args, timeout=60):
    """The command in a process of its own, so that a hang fails the test instead of it."""
    return subprocess.run([sys.executable, "-m", "synergy_forge", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_fifos_among_a_campaigns_files_are_skipped_with_a_note(campaign):
    os.mkfifo(campaign / "missions" / "99-pipe.yaml")  # matched by missions/*.yaml
    os.mkfifo(campaign / "notes.yaml")  # met by the folder walk
    (campaign / "rounds").mkdir()
    os.mkfifo(campaign / "rounds" / "r.yaml")
    done = invoke_within("validate", campaign.parent, "--verbose")
    assert done.exit_code == 0, done.stderr
    assert "99-pipe.yaml is not a regular file (a FIFO, socket or device); skipped" in \
        done.stdout
    assert "r.yaml: not a regular file" in done.stderr
    assert "notes.yaml: not a regular file" in done.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_in_a_new_campaign_ends_validate_and_schemas_at_once(tmp_path):
    """A campaign made by `new campaign` has its copy of the schemas, whose check reads the
    first line of each of the campaign's YAML files: a FIFO among them was opened and waited
    on for ever."""
    campaign = tmp_path / "c"
    assert run("new", "campaign", campaign).exit_code == 0
    os.mkfifo(campaign / "missions" / "05-fifo.yaml")
    done = invoke_within("validate", campaign, seconds=30)
    assert done.exit_code == 0 and "05-fifo.yaml is not a regular file" in done.stdout
    assert invoke_within("schemas", campaign, seconds=30).exit_code == 0
    copy = campaign / ".synergy" / "schemas" / "goal.schema.json"
    copy.unlink()
    os.mkfifo(copy)  # in place of a schema's copy
    checked = invoke_within("schemas", campaign, seconds=30)
    assert checked.exit_code == 1 and "missing: goal.schema.json" in checked.stdout
    updated = invoke_within("schemas", "--update", campaign, seconds=30)
    assert updated.exit_code == 2 and "not a regular file" in updated.stderr
    assert stat.S_ISFIFO(os.lstat(copy).st_mode)  # left as it was


# --- 7. Dask scheduler addresses: checked before connecting, a timeout that always applies -

MISSION = str(starter_campaign() / "missions" / "05-short-hand.yaml")


def playtest_on(address: str, alone: bool, timeout: float) -> tuple[int, str]:
    """`playtest MISSION --scheduler ADDRESS`: its exit code and stderr. `alone`: as a user
    runs it, in a process of its own (a hang fails the test); else in this process, the same
    command without an interpreter's start (one case of each kind is run alone)."""
    args = ["playtest", MISSION, "--games", "2", "--scheduler", address]
    if alone:
        done = synergy_forge(*args, timeout=timeout)
        return done.returncode, done.stderr
    result = CliRunner().invoke(main, args)
    return result.exit_code, result.stderr


@pytest.mark.parametrize(("address", "words"), [
    ("foo", "names no host and port"), ("tcp://", "names no host and port"),
    ("inproc://x", "the inproc:// scheme is not supported"),
    ("file:///tmp", "the file:// scheme is not supported"),
    ("ucx://1.2.3.4:1", "the ucx:// scheme is not supported"),
    ("tls://1.2.3.4:8786", "the tls:// scheme is not supported"),
    ("tcp://127.0.0.1:99999", "the port must be a number from 1 to 65535"),
    ("tcp://127.0.0.1:http", "the port must be a number from 1 to 65535"),
])
def test_a_scheduler_address_that_is_not_one_is_refused_before_connecting(address, words):
    code, err = playtest_on(address, alone=address == "foo", timeout=30)
    assert code == 2, err
    (line,) = err.strip().splitlines()
    assert line.startswith(f"synergy-forge: error: scheduler address {address!r}")
    assert line.endswith(f"{words}; give tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786")


def test_scheduler_addresses_are_normalised():
    from synergy_forge.sim.executors import scheduler_address

    assert scheduler_address("127.0.0.1:8786") == "tcp://127.0.0.1:8786"
    assert scheduler_address(" TCP://host:1/ ") == "tcp://host:1"
    assert scheduler_address("tcp://[::1]:8786") == "tcp://[::1]:8786"


class Server:
    """A TCP service on 127.0.0.1 that is not Dask: silent until asked (as a web server is),
    or sending a banner (as SSH does), or closing at once."""

    def __init__(self, behaviour: str) -> None:
        import socket
        import threading

        self.socket = socket.create_server(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        self.behaviour, self.open = behaviour, []
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self) -> None:
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            self.open.append(connection)
            if self.behaviour == "banner":
                connection.sendall(b"SSH-2.0-OpenSSH_9.0\r\n")
            elif self.behaviour == "close":
                connection.close()

    def close(self) -> None:
        for connection in self.open:
            connection.close()
        self.socket.close()


#: The silent service's case waits this long, not the product's 5 s (executors.Dask's
#: connect_timeout, its default for every command): the same probe, timed out the same way,
#: its message naming the timeout it used; five seconds of a core idle were this test's wall.
SHORT_WAIT = 0.5


@pytest.mark.parametrize(("behaviour", "words"), [
    ("silent", f"did not answer within {SHORT_WAIT:g} s: not a Dask scheduler"),
    ("banner", "is not a Dask scheduler (it answered something else)"),
    ("close", "closed the connection: not a Dask scheduler"),
])
@pytest.mark.slow
def test_a_service_that_is_not_dask_is_a_one_line_error_within_seconds(behaviour, words,
                                                                       monkeypatch):
    from synergy_forge.sim import executors

    server = Server(behaviour)
    address = f"tcp://127.0.0.1:{server.port}"
    try:
        if behaviour == "silent":
            # In this process, the command's executor given the shorter timeout the product's
            # Dask takes (as test_executors' unreachable scheduler): the timeout must apply, and
            # a hang still fails the test (workspace.deadline: SIGALRM ends a waiting recv).
            monkeypatch.setattr(executors, "executor_for", lambda scheduler, jobs: executors.Dask(
                executors.scheduler_address(scheduler), connect_timeout=SHORT_WAIT))
            with deadline(30):
                code, err = playtest_on(address, alone=False, timeout=30)
        else:
            # One of them as a user runs it, in a process of its own: at once, no wait.
            code, err = playtest_on(address, alone=behaviour == "banner", timeout=60)
    finally:
        server.close()
    assert code == 2, err
    assert err.strip().splitlines()[-1] == \
        f"synergy-forge: error: tcp://127.0.0.1:{server.port} {words}" + \
        (" (is it the dashboard's port? the scheduler's is usually 8786)"
         if behaviour == "silent" else "")
    assert "Traceback" not in err and "MemoryError" not in err


# --- 8. The studio: its watcher outlives its folder; a failing rule is a diagnostic --------

def wait_until(condition, timeout: float = 60.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)  # the conditions are cheap (a studio's state: half a millisecond)


@pytest.mark.slow
def test_the_studio_watches_its_folder_again_when_it_is_deleted_and_made_again(tmp_path,
                                                                               monkeypatch):
    import threading

    from synergy_forge.studio.model import CardPreview, Studio, watch
    from synergy_forge.workspace import watch as watcher_module

    # The mission card is not drawn (WeasyPrint, at every reload): only the missions' titles
    # are read here (test_studio draws the cards, and draws them again after edits).
    monkeypatch.setattr(CardPreview, "render", lambda self, html, dpi: (b"", []))
    # The watcher looks for its folder (gone, back, another) every 50 ms, not every 0.5 s:
    # the same steps, taken without a core idle for a second each time the folder goes.
    monkeypatch.setattr(watcher_module, "RECHECK", 0.05)

    folder = small_campaign(tmp_path / "camp")
    studio = Studio(folder, "en")
    watcher = threading.Thread(target=watch, args=(studio,), daemon=True)
    watcher.start()
    try:
        def titles():
            return [m["title"] for m in studio.state()["missions"]]

        wait_until(lambda: titles() == ["First notes", "Warm-up"])
        shutil.rmtree(folder)
        wait_until(lambda: not titles() and any(
            "campaign.yaml" in p["where"] for p in studio.state()["problems"]))
        small_campaign(folder)
        wait_until(lambda: titles() == ["First notes", "Warm-up"])
        mission = folder / "missions" / "01-first-notes.yaml"
        mission.write_text(mission.read_text(encoding="utf-8").replace(
            'en: "First notes"', 'en: "Second notes"'), encoding="utf-8")
        wait_until(lambda: titles() == ["Second notes", "Warm-up"])  # watched again
    finally:
        studio.stopping.set()
        watcher.join(10)
    assert not watcher.is_alive()


#: Passes validate (its search never meets a four-player table with such a sum) and fails in
#: every four-player game.
FAILS_WITH_FOUR = "(sums|length) != 4 or sum not in [4, 6, 9, 10, 11, 12] or others[9] > 0"


def test_a_rule_failing_in_every_four_player_game_is_a_diagnostic_not_retried(tmp_path,
                                                                              monkeypatch):
    import threading

    from synergy_forge.studio import model
    from synergy_forge.studio.model import Studio

    # The mission card is not drawn (WeasyPrint): only the mission's diagnostics are read.
    monkeypatch.setattr(model.CardPreview, "render", lambda self, html, dpi: (b"", []))
    # Batches of one game: the three-player batch that comes first (the fewest games, the
    # lowest count) is a game per level of the ladder, not 20; the four-player one fails in its
    # first game anyway.
    monkeypatch.setattr(model, "BATCH", 1)
    folder = small_campaign(tmp_path / "camp", keep=("21",))
    goal = folder / "goals" / "close-call.yaml"
    text = goal.read_text(encoding="utf-8")
    goal.write_text(re.sub(r"(?m)^rule: .*$", f'rule: "{FAILS_WITH_FOUR}"', text),
                    encoding="utf-8")
    assert run("validate", folder).exit_code == 0
    studio = Studio(folder, "en")
    studio.reload()
    studio.clients = 1  # a page is open
    estimator = threading.Thread(target=studio.estimate_forever, daemon=True)
    estimator.start()
    try:
        wait_until(lambda: any(players == 4 for _, players in studio.failed), timeout=120)
    finally:
        studio.stopping.set()
        estimator.join(30)
    (mission,) = studio.state()["missions"]
    failing = [d for d in mission["diagnostics"] if d["check"] == "mission.rule-fails"]
    assert [d["where"].rsplit("/", 1)[-1].split(":")[0] for d in failing] == ["close-call.yaml"]
    assert failing[0]["message"].startswith("fails in 4-player games: the rule")
    assert mission["errors"] == 1
    with studio.lock:  # never asked for again while the files stay as they are
        assert all(batch is None or batch[2] != 4
                   for batch in [studio._next_batch() for _ in range(3)])


# --- 10. The build writes and deletes nothing outside --out, whatever happens meanwhile ----

@pytest.fixture(scope="module")
def built(request, tmp_path_factory, starter_kit):
    """The bundled starter campaign's English kit, PNGs and all, built once: later builds run
    on its warm cache. It starts from the starter kit's cache (conftest.py: the same campaign,
    read from the same files, from the folder pytest started in: a mission card's HTML names
    its file relative to the working folder): nothing is drawn or rasterised, the outputs are
    only placed (a two-mission starter copy drew 7 pieces of 24). The campaign is only read:
    what these tests break is under OUT."""
    out = tmp_path_factory.mktemp("race") / "out"
    shutil.copytree(starter_kit / ".cache", out / ".cache")
    folder = starter_campaign()
    with contextlib.chdir(request.config.invocation_params.dir):
        result = run("build", folder, "--out", out, "--jobs", "1", "--lang", "en")
    assert result.exit_code == 0, result.output
    return folder, out


def swap_for_a_link(folder: Path, outside: Path) -> None:
    """`folder` moved to `outside` and a link to it left in its place, as an attacker (or a
    careless script) could do while a build runs."""
    shutil.move(folder, outside)
    (outside / "keep.txt").write_text("not the build's")
    folder.symlink_to(outside, target_is_directory=True)


@pytest.mark.parametrize("swapped", [".cache", "en", "en/png"])
def test_a_folder_of_out_swapped_for_a_link_mid_build_is_refused(built, tmp_path, swapped,
                                                                  monkeypatch):
    from synergy_forge.printing import build as build_module

    folder, out = built
    outside = tmp_path / "elsewhere"
    original = build_module._assemble
    calls = []

    before: dict[Path, int] = {}

    def assemble(*args, **kwargs):
        if not calls:
            swap_for_a_link(out / swapped, outside)
            before.update({p: p.stat().st_mtime_ns for p in outside.rglob("*")})
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(build_module, "_assemble", assemble)
    try:
        result = run("build", folder, "--out", out, "--jobs", "1", "--lang", "en")
        assert result.exit_code == 2, result.output
        (line,) = [x for x in result.output.splitlines() if "error" in x] or [result.output]
        assert str(out / swapped) in line and "not a folder any more" in line
        assert "None" not in line and "Traceback" not in result.output
        # Nothing written, nothing deleted there.
        assert {p: p.stat().st_mtime_ns for p in outside.rglob("*")} == before
    finally:
        (out / swapped).unlink()
        shutil.move(outside, out / swapped)
        (out / swapped / "keep.txt").unlink()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_fifos_in_the_cache_do_not_hang_the_next_build(built, request):
    folder, out = built
    cache = out / ".cache"
    # Three drawn pieces' entries: the smallest, the quickest to draw again (the first three
    # by name could be a deck's eight faces each).
    entries = sorted((p for p in cache.iterdir() if p.suffix == ".json"),
                     key=lambda p: p.with_suffix(".pdf").stat().st_size)[:3]
    for path in entries:
        path.unlink()
        os.mkfifo(path)  # nobody writes: a plain read would wait for ever
    os.mkfifo(cache / "stray")
    with contextlib.chdir(request.config.invocation_params.dir):  # as `built` (its cache keys)
        done = invoke_within("build", folder, "--out", out, "--jobs", "1", "--lang", "en",
                             seconds=300)
    assert done.exit_code == 0, done.stderr
    assert all(path.is_file() for path in entries)
    assert not (cache / "stray").exists()
