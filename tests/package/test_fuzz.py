"""No input, however broken, escapes the loader or the validator as an exception."""

from __future__ import annotations

import contextlib
import copy
import functools
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from support.files import invoke_within
from support.strategies import (
    FOLDER_EVENTS,
    PRINTING_COMMANDS,
    TABLE_MOVES,
    UNWRITABLE,
    campaign_patterns,
    campaign_writes,
    changed_ids,
    connection_floods,
    failing_rules,
    folder_entries,
    header_forgeries,
    hostile_findings,
    out_races,
    scheduler_addresses,
    seeds,
    yaml_numbers,
)
from support.tables import game_table, people

from synergy_forge.authoring.gamelog import game_from_header
from synergy_forge.authoring.loading import read_campaign
from synergy_forge.authoring.schema import validator
from synergy_forge.cli import main
from synergy_forge.core.cards import CHALLENGE_IDS, GOAL_IDS
from synergy_forge.core.playhash import play_hash
from synergy_forge.resources import starter_campaign
from synergy_forge.table.model import Refused
from synergy_forge.workspace.validate import validate_file

scalars = st.none() | st.booleans() | st.integers(-10, 100) | st.floats(allow_nan=False) | \
    st.text(max_size=12)
KEYS = ["id", "number", "title", "stars", "rounds", "lives", "players", "hand", "order",
        "allowed_failures", "challenges", "actions", "goals", "super", "hyper", "flavor", "en",
        "fr", "numbers", "seats", "goal", "kind", "rule", "name", "text", "missions", "3", "4"]
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(KEYS) | st.text(max_size=5), inner, max_size=6),
    max_leaves=20,
)
# SYNERGY_FUZZ_EXAMPLES sets the number of documents per test (docs/fuzzing.md): the loader's
# tests below take 25 times as many (300 at the default: a few ms each, in-process), the
# structures 8 times (96: each is validated against its schema, some 25 ms), derandomized at
# the default.
FUZZ_EXAMPLES = int(os.environ.get("SYNERGY_FUZZ_EXAMPLES", "12"))
FUZZ = settings(max_examples=25 * FUZZ_EXAMPLES, deadline=None, derandomize=FUZZ_EXAMPLES < 50,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@FUZZ
@given(st.binary(max_size=400))
def test_any_bytes(tmp_path, raw):
    path = tmp_path / "m.yaml"
    path.write_bytes(raw)
    diagnostics = validate_file(path).diagnostics
    assert all(d.line >= 1 and d.column >= 1 for d in diagnostics)


@settings(FUZZ, max_examples=8 * FUZZ_EXAMPLES)
@given(values, st.sampled_from(["mission.yaml", "round.yaml", "goal.yaml", "x.json"]))
def test_any_structure(tmp_path, data, name):
    path = tmp_path / name
    text = json.dumps(data) if name.endswith(".json") else yaml.safe_dump(data)
    path.write_text(text, encoding="utf-8")
    validate_file(path)


@FUZZ
@given(st.text(alphabet="[]{}:,-&*!|>'\"#\n ab1", max_size=200))
def test_yaml_punctuation(tmp_path, text):
    path = tmp_path / "p.yaml"
    path.write_text(text, encoding="utf-8")
    validate_file(path)


def test_huge_and_deep_files(tmp_path):
    deep = tmp_path / "deep.yaml"
    deep.write_text("[" * 200_000)
    assert validate_file(deep).diagnostics[0].check == "yaml"
    big = tmp_path / "big.yaml"
    with open(big, "wb") as handle:
        handle.truncate(100 * 1024 * 1024)  # 100 MB, sparse: read only up to the cap
    assert "larger than" in validate_file(big).diagnostics[0].message
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("a: &a [1, 1]\nb: &b [*a, *a]\nc: &c [*b, *b]\n")
    assert "aliases" in validate_file(bomb).diagnostics[0].message


# --- Every command, on documents generated from the schemas ----------------------------
#
# hypothesis-jsonschema draws documents that pass each schema (the inlined schema the
# validator itself uses); some are then made realistic (built-in goal and challenge ids, so
# that the referee and the engine run) and some are broken in one place (a float for a whole
# number, a boolean, a missing or extra field, a huge number, deep nesting). Each document is
# handed to the commands in-process; none may end in an internal error (exit 3) or raise.
# SYNERGY_FUZZ_EXAMPLES sets the number of documents per test (docs/fuzzing.md); a deadline
# per document catches a hang or a runaway rule.

COMMANDS = settings(
    max_examples=FUZZ_EXAMPLES, deadline=timedelta(seconds=20), derandomize=FUZZ_EXAMPLES < 50,
    suppress_health_check=list(HealthCheck),
)
HOSTILE = st.sampled_from([1.0, 2.5, True, False, None, "3", "", 10**30, -1, [], {},
                           [[[[[[1]]]]]], float("inf"), "x" * 300])


@functools.cache
def from_kind(kind: str, part: str = "") -> st.SearchStrategy[Any]:
    """One strategy per schema, made once: hypothesis-jsonschema canonicalises and merges the
    whole schema when a new strategy is first drawn from (about a quarter of a second for a
    mission), and `document` asked for a new one at every example. A strategy is a
    description, not a state: the same one draws the same documents from the same choices."""
    return from_schema(validator(kind, part).schema)


@pytest.fixture(scope="module", autouse=True)
def object_properties_made_once() -> Any:
    """hypothesis-jsonschema draws an object property by property, and for each property it
    makes that property's strategy again (merged_as_strategies: merging, canonicalising and
    compiling its subschema), at every draw: two thirds of drawing a round. Here the strategy
    made for the same subschemas is kept and used again for this module's tests. A strategy
    is a description, not a state: the same documents are drawn (checked, before and after,
    on the 12 examples of rounds, missions and goals: the same hash of every document)."""
    from hypothesis_jsonschema import _from_schema

    original = _from_schema.merged_as_strategies
    made: dict[tuple[str, Any], st.SearchStrategy[Any]] = {}

    def merged_as_strategies(schemas: list, alphabet: Any,
                             custom_formats: Any = None) -> st.SearchStrategy[Any]:
        if custom_formats is not None:  # never here (from_kind gives none): not kept
            return original(schemas, alphabet=alphabet, custom_formats=custom_formats)
        key = (json.dumps(schemas, sort_keys=True), alphabet)
        if key not in made:
            made[key] = original(schemas, alphabet=alphabet, custom_formats=None)
        return made[key]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_from_schema, "merged_as_strategies", merged_as_strategies)
        yield


def paths_of(data: Any, path: tuple = ()) -> list[tuple]:
    """Every place in a JSON document, the root included."""
    found = [path]
    if isinstance(data, dict):
        for key, value in data.items():
            found += paths_of(value, (*path, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            found += paths_of(value, (*path, i))
    return found


def broken(draw: Any, data: Any) -> Any:
    """`data` with one place replaced by a hostile value, removed, or given an extra field."""
    data = copy.deepcopy(data)
    path = draw(st.sampled_from(paths_of(data)))
    if not path:
        return draw(HOSTILE)
    parent = data
    for part in path[:-1]:
        parent = parent[part]
    how = draw(st.sampled_from(["replace", "remove", "extra"]))
    if how == "remove":
        del parent[path[-1]]
    elif how == "extra" and isinstance(parent, dict):
        parent["injected"] = draw(HOSTILE)
    else:
        parent[path[-1]] = draw(HOSTILE)
    return data


def realistic(draw: Any, data: dict) -> dict:
    """Built-in ids in place of random ones, so the referee and the engine are reached."""
    if "goals" in data:
        data["goals"] = draw(st.lists(st.sampled_from(GOAL_IDS), min_size=1, max_size=7,
                                      unique=True))
    if "challenges" in data:
        data["challenges"] = draw(st.lists(st.sampled_from(CHALLENGE_IDS), max_size=3,
                                           unique=True))
    for seat in data.get("seats", []):
        seat["goal"] = draw(st.sampled_from(GOAL_IDS))
        seat["numbers"] = [c if isinstance(c, int) else c.get("value", 1)
                           for c in seat["numbers"]]
    data.pop("colors", None) if "seats" in data else None
    return data


def document(draw: Any, kind: str) -> Any:
    data = draw(from_kind(kind))
    if draw(st.booleans()):
        data = realistic(draw, data)
    if draw(st.booleans()):
        data = broken(draw, data)
    return data


def invoke(*args: Any) -> Any:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code in (0, 1, 2), (args, result.output, result.exception)
    assert "internal error" not in result.output, (args, result.output)
    if not isinstance(result.exception, SystemExit | type(None)):
        raise result.exception
    return result


def written(data: Any, name: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="fuzz-"))
    path = folder / name
    text = json.dumps(data, ensure_ascii=False) if name.endswith(".json") else \
        yaml.safe_dump(data, allow_unicode=True)
    path.write_text(text, encoding="utf-8")
    return path


@COMMANDS
@given(st.data(), st.sampled_from(["m.json", "m.yaml"]))
@pytest.mark.slow
def test_generated_missions_through_validate_play_and_playtest(data, name):
    mission = data.draw(st.composite(lambda draw: document(draw, "mission"))())
    path = written(mission, name)
    try:
        if invoke("validate", path).exit_code == 0:
            players = mission.get("players", [3, 4, 5])[0]
            invoke("play", path, "--players", players, "--seed", "1", "--bots", "random",
                   "--quiet")
            invoke("playtest", path, "--games", "2", "--bots", "random,coop", "--jobs", "1",
                   "--json")
    finally:
        shutil.rmtree(path.parent)


@COMMANDS
@given(st.data())
@pytest.mark.slow
def test_generated_rounds_through_judge(data):
    table = data.draw(st.composite(lambda draw: document(draw, "round"))())
    path = written(table, "r.json")
    try:
        invoke("judge", path)
        invoke("judge", "--json", "--data-rules", path)
    finally:
        shutil.rmtree(path.parent)


RULE_TOKENS = st.sampled_from([
    "sum", "others", "sums", "distinct", "left", "right", "value", "first", "second", "1",
    "1000", "1001", "2.5", "+", "-", "*", "**", "/", "//", "%", "==", "<", ">=", "in",
    "not", "and", "or", "is", "none", "odd", "if", "else", "(", ")", "[", "]", ",", "|",
    "length", "abs", "max", "sort", "'x'", "~", ".", "range", "lipsum", "(", "10 ** 4301",
])


@COMMANDS
@given(st.data(), st.sampled_from(["goal", "challenge"]))
@pytest.mark.slow
def test_generated_definitions_through_validate(data, kind):
    definition = data.draw(from_kind(kind))
    if data.draw(st.booleans()):
        definition["rule"] = " ".join(data.draw(st.lists(RULE_TOKENS, max_size=25)))
    if data.draw(st.booleans()):
        definition = broken(data.draw, definition)
    path = written(definition, "d.yaml")
    try:
        invoke("validate", path)
    finally:
        shutil.rmtree(path.parent)


@pytest.fixture(scope="module")
def game_log(tmp_path_factory):
    log = tmp_path_factory.mktemp("log") / "g.jsonl"
    invoke("play", "20", "--players", "3", "--seed", "7", "--bots", "random", "--log", log)
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


@COMMANDS
@given(st.data())
@pytest.mark.slow
def test_tampered_and_generated_logs_through_replay(game_log, data):
    records = copy.deepcopy(game_log)
    how = data.draw(st.sampled_from(["break", "generate", "drop", "swap"]))
    index = data.draw(st.integers(0, len(records) - 1))
    if how == "break":
        records[index] = broken(data.draw, records[index])
    elif how == "generate":
        part = data.draw(st.sampled_from(["game", "decision", "end"]))
        records[index] = data.draw(from_kind("gamelog", part))
    elif how == "drop":
        del records[index]
    else:
        other = data.draw(st.integers(0, len(records) - 1))
        records[index], records[other] = records[other], records[index]
    path = written(None, "g.jsonl")
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    try:
        result = invoke("replay", path)
        if records != game_log:
            # A changed log replays only if it is still a game the engine accepts throughout:
            # never when a record is no longer in the schema's shape.
            assert result.exit_code != 2, result.output
    finally:
        shutil.rmtree(path.parent)


# --- Hostile paths, numbers, headers and outputs, one strategy per class -------------------

@pytest.fixture(scope="module")
def starter_copy(tmp_path_factory):
    """The starter campaign with the two missions that use its own challenge (19) and goal
    (21), found through the `challenges` and `goals` patterns drawn: what is drawn is read from
    campaign.yaml before any mission, and validating the other 28 missions at every example was
    most of its CPU."""
    return small_starter(tmp_path_factory.mktemp("campaign") / "c", ("19", "21"))


@COMMANDS
@given(st.lists(campaign_patterns(), min_size=1, max_size=3),
       st.sampled_from(["missions", "goals", "challenges"]))
@pytest.mark.slow
def test_campaign_patterns_through_validate(starter_copy, patterns, key):
    """Class 1: any path or pattern in campaign.yaml is a located error or files found."""
    path = starter_copy / "campaign.yaml"
    original = path.read_text(encoding="utf-8")
    data = yaml.safe_load(original)
    data[key] = [f"{key}/*.yaml", *patterns]
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    try:
        result = invoke("validate", starter_copy)
        assert result.exit_code in (0, 1), result.output
    finally:
        path.write_text(original, encoding="utf-8")


@pytest.fixture(scope="module")
def places(tmp_path_factory, game_log):
    folder = tmp_path_factory.mktemp("places")
    (folder / "file").write_text("x")
    os.mkfifo(folder / "fifo")
    (folder / "stream").symlink_to("/proc/self/fd/1")
    log = folder / "g.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in game_log), encoding="utf-8")
    return {"dir": str(folder), "file": str(folder / "file"), "log": str(log),
            "fifo": str(folder / "fifo"), "stream": str(folder / "stream"),
            "starter": str(starter_campaign()),
            "round": str(Path(__file__).parents[2] / "missions/rounds/crossed-goals.yaml")}


@settings(COMMANDS, max_examples=max(4, FUZZ_EXAMPLES // 2))
@given(PRINTING_COMMANDS, UNWRITABLE)
@pytest.mark.slow
def test_output_that_cannot_be_written_is_exit_2(places, command, where):
    """Class 3: a command whose stdout is a full disk, or `play --log` to a place that cannot
    be written, ends with exit 2 and one line."""
    args = [a.format(**places) for a in command]
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "synergy_forge", *args], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    assert done.returncode == 2, (args, done.stderr)
    assert done.stderr.strip().splitlines()[-1:] == [
        "synergy-forge: error: cannot write the output: No space left on device"], done.stderr
    result = invoke("play", "1", "--quiet", "--log", where.format(**places))
    if where != "{dir}/" + "z" * 250:
        assert result.exit_code == 2, result.output
        assert ".tmp" not in result.output, result.output
    assert (Path(places["dir"]) / "stream").is_symlink()
    assert stat.S_ISFIFO(os.lstat(places["fifo"]).st_mode)


@COMMANDS
@given(yaml_numbers(), st.sampled_from(["rounds", "number", "stars", "lives"]))
def test_yaml_numbers_through_validate(tmp_path, number, field):
    """Class 2: any number YAML 1.1 can write, in any whole-number field, is read or refused
    with a located error, at once."""
    fields = {"id": "m", "number": "1", "title": "M", "stars": "1", "rounds": "3", "lives": "2"}
    fields[field] = number
    path = written(None, "m.yaml")
    path.write_text("".join(f"{k}: {v}\n" for k, v in fields.items()), encoding="utf-8")
    try:
        result = invoke("validate", path)
        line = list(fields).index(field) + 1
        if result.exit_code:
            assert "m.yaml:" in result.output
        if "[number]" in result.output:
            assert f"m.yaml:{line}:" in result.output
    finally:
        shutil.rmtree(path.parent)


@COMMANDS
@given(seeds, st.sampled_from(["1", "20"]))
@pytest.mark.slow
def test_every_game_play_accepts_replays(tmp_path_factory, seed, mission):
    """Class 4: a seed `play` takes gives a log `replay` takes; any other is a usage error."""
    log = tmp_path_factory.mktemp("seed") / "g.jsonl"
    played = invoke("play", mission, "--quiet", "--seed", seed, "--bots", "random", "--log", log)
    if played.exit_code == 0:
        assert invoke("replay", log).exit_code == 0
    else:
        assert played.exit_code == 2 and "--seed" in played.output, played.output


@settings(FUZZ, max_examples=FUZZ_EXAMPLES)
@given(st.data(), st.integers(0, 2**32))
def test_a_table_takes_exactly_the_ids_of_the_view_now(data, seed):
    """Class stale ids: whatever id a seat sends (one of its view now, one it was shown in an
    earlier state of this game or of an earlier game at the table, or one of those changed),
    the table takes it exactly when it is one of the seat's legal choices now, and an id shown
    in another state never is (after "again", rounds count from 1 again); any other is refused
    with 409 and changes nothing."""
    table = game_table("30", people(3), seed=seed)  # super, hyper and four action cards
    shown: dict[str, tuple[int, int]] = {}  # id -> (game at the table, decisions applied)
    for _ in range(80):
        if table.game.over:
            table.again(seed=data.draw(st.integers(0, 2**32)))
        now = (table.number, len(table.recorder.records))
        seat = data.draw(st.integers(0, 2))
        before = table.view_json(seat)
        legal = [item["id"] for item in json.loads(before)["legal"]]
        for choice in legal:
            assert shown.setdefault(choice, now) == now, f"{choice} was shown before"
        move = data.draw(TABLE_MOVES)
        if move == "legal" and legal:
            sent = data.draw(st.sampled_from(legal))
        elif move == "seen" and shown:
            sent = data.draw(st.sampled_from(sorted(shown)))
        elif shown:
            sent = data.draw(changed_ids(data.draw(st.sampled_from(sorted(shown)))))
        else:
            continue
        try:
            table.choose(seat, sent)
        except Refused as refused:
            assert refused.status == 409 and sent not in legal, (sent, refused.message)
            assert table.view_json(seat) == before  # refused: nothing changed
        else:
            assert sent in legal and shown[sent] == now, sent


@pytest.fixture(scope="module")
def campaign_goal_log(tmp_path_factory):
    log = tmp_path_factory.mktemp("log21") / "g.jsonl"
    invoke("play", "21", "--players", "4", "--seed", "5", "--bots", "random", "--log", log)
    return log.read_text(encoding="utf-8").splitlines()


@COMMANDS
@given(st.data())
def test_forged_headers_of_a_starter_mission_are_refused(campaign_goal_log, data):
    """Class 5: a log naming a starter mission replays confirmed only when its header plays
    as that mission does (stars, titles, texts may differ: core.playhash); a forgery that
    names no known mission is replayed as self-contained, never confirmed."""
    header = json.loads(campaign_goal_log[0])
    forged = data.draw(header_forgeries(header))
    path = written(None, "g.jsonl")
    path.write_text("\n".join([json.dumps(forged), *campaign_goal_log[1:]]) + "\n",
                    encoding="utf-8")
    try:
        result = invoke("replay", path)
        if forged != header and result.exit_code == 0:
            if "self-contained: mission not verified" in result.output:
                assert forged["mission"]["id"] != header["mission"]["id"], result.output
            else:  # confirmed: the forgery changed nothing of play
                game = game_from_header(forged).game
                starter = read_campaign(starter_campaign()).campaign
                assert play_hash(game.mission, game.rulebook) == play_hash(
                    starter.mission(header["mission"]["id"]), starter.rulebook), forged
    finally:
        shutil.rmtree(path.parent)


MISSION_TEXT = "id: m\nnumber: 1\ntitle: M\nstars: 1\nrounds: 3\nlives: 2\n"


@settings(COMMANDS, max_examples=max(4, FUZZ_EXAMPLES // 2))
@given(folder_entries())
@pytest.mark.slow
def test_folder_walks_skip_what_is_not_a_regular_file(entries):
    """Class 6: a folder holding FIFOs and odd links is validated at once, each skipped."""
    root = Path(tempfile.mkdtemp(prefix="fuzz-walk-"))
    try:
        for relative, kind in entries:
            path = root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            if kind in ("mission", "yaml"):
                path.write_text(MISSION_TEXT if kind == "mission" else "a: 1\n")
            elif kind == "fifo":
                os.mkfifo(path)
            elif kind == "broken-link":
                path.symlink_to(root / "nowhere")
            elif kind == "loop-link":
                path.symlink_to(path)
            elif kind == "parent-link":
                path.symlink_to(path.parent)
            else:
                path.mkdir()
        # In this process: a process of its own for each of the six folders was 0.4 s of CPU
        # each, to start and import; a hang (a FIFO opened) still fails the test (Hang).
        done = invoke_within("validate", root)
        assert done.exit_code in (0, 1, 2), done.stderr
        assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    finally:
        shutil.rmtree(root)


@COMMANDS
@given(scheduler_addresses())
def test_scheduler_addresses_are_checked_before_anything_connects(address):
    """Class 7: an address is refused in one line, or is tcp://HOST:PORT and then a local
    port with no Dask behind it is refused within the connect timeout."""
    from synergy_forge.sim.executors import Dask, ExecutorError, executor_for, probe_scheduler

    try:
        executor = executor_for(address, None)
    except ExecutorError as exc:
        assert "\n" not in str(exc) and "scheduler address" in str(exc)
        return
    assert isinstance(executor, Dask)
    assert re.fullmatch(r"tcp://(\[[^]]+\]|[^:/\s]+):\d+", executor.address), executor.address
    if executor.address.rsplit(":", 1)[0] in ("tcp://127.0.0.1", "tcp://localhost",
                                              "tcp://[::1]"):
        try:  # refused at once, or in a second at most; a Dask of another test may answer
            probe_scheduler(executor.address, 1.0)
        except ExecutorError as exc:
            assert "\n" not in str(exc)


def small_starter(folder: Path, keep: tuple[str, ...]) -> Path:
    shutil.copytree(starter_campaign(), folder)
    for path in (folder / "missions").glob("*.yaml"):
        if not path.name.startswith(keep):
            path.unlink()
    return folder


def eventually(condition: Any, timeout: float = 60.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)  # the conditions are cheap (a studio's state: half a millisecond)


@settings(COMMANDS, max_examples=max(2, FUZZ_EXAMPLES // 4))
@given(FOLDER_EVENTS)
@pytest.mark.slow
def test_the_studio_follows_its_folder_through_anything(monkeypatch, events):
    """Class 8: whatever happens to the campaign folder, once it is back the studio shows
    what it holds, and goes on watching it."""
    import threading

    from synergy_forge.studio.model import CardPreview, Studio, watch
    from synergy_forge.workspace import watch as watcher_module

    # The mission cards are not drawn (WeasyPrint, at every reload): only the missions'
    # titles are read here (test_studio draws the cards, and draws them again after edits).
    monkeypatch.setattr(CardPreview, "render", lambda self, html, dpi: (b"", []))
    # The watcher looks for its folder (gone, back, another) every 50 ms, not every 0.5 s:
    # the same steps, taken without a core idle for a second each time the folder goes.
    monkeypatch.setattr(watcher_module, "RECHECK", 0.05)

    root = Path(tempfile.mkdtemp(prefix="fuzz-studio-"))
    folder = small_starter(root / "camp", ("01",))
    studio = Studio(folder, "en")
    watcher = threading.Thread(target=watch, args=(studio,), daemon=True)
    watcher.start()
    try:
        for event in events:
            if event == "delete" and folder.is_dir():
                shutil.rmtree(folder)
            elif event == "create" and not folder.exists():
                small_starter(folder, ("01",))
            elif event == "edit" and folder.is_dir():
                (folder / "missions" / "01-first-notes.yaml").write_text("id: [\n")
            elif event == "file-in-its-place" and not folder.exists():
                folder.write_text("not a folder")
            elif event == "move-away" and folder.exists() and not (root / "away").exists():
                folder.rename(root / "away")
            elif event == "move-back" and (root / "away").exists() and not folder.exists():
                (root / "away").rename(folder)
        if folder.is_file():
            folder.unlink()
        if folder.exists():
            shutil.rmtree(folder)
        small_starter(folder, ("01", "02"))
        titles = lambda: [m["title"] for m in studio.state()["missions"]]  # noqa: E731
        eventually(lambda: titles() == ["First notes", "Warm-up"])
        (folder / "missions" / "02-warm-up.yaml").unlink()
        eventually(lambda: titles() == ["First notes"])
    finally:
        studio.stopping.set()
        watcher.join(10)
        shutil.rmtree(root)


# No deadline: every batch plays the whole skill ladder, at the loaded machine's pace.
@settings(COMMANDS, max_examples=max(2, FUZZ_EXAMPLES // 4), deadline=None)
@given(rule=failing_rules())
@pytest.mark.slow
def test_the_studio_estimator_records_failing_games_instead_of_retrying(rule, monkeypatch):
    """Class 8: a campaign rule failing in some games is a diagnostic; each failing batch is
    asked for once, the others go on. Games run in threads here (the same loop)."""
    import threading
    from collections import Counter
    from concurrent.futures import ThreadPoolExecutor

    from synergy_forge.sim import playtest
    from synergy_forge.studio import model

    asked: Counter[int] = Counter()

    class Threads(ThreadPoolExecutor):
        def __init__(self, max_workers: int, mp_context: Any = None,
                     initializer: Any = None) -> None:
            super().__init__(max_workers)

        def submit(self, fn: Any, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
            asked[args[3]] += 1
            return super().submit(fn, *args, **kwargs)

    monkeypatch.setattr(model, "ProcessPoolExecutor", Threads)
    # One game a batch (each plays every table of the skill ladder, in threads here): the
    # failing count fails in its first game, and a five-seat game under a sandboxed rule takes
    # seconds.
    monkeypatch.setattr(model, "BATCH", 1)

    def ends(mission: Any, rulebook: Any, colors: Any, players: int,
             seeds: Any) -> playtest.LadderTally:
        # The ladder's two ends, not every table: what is tested is which batches are asked
        # for again.
        return playtest.LadderTally(players, {k: playtest.play_batch(
            mission, rulebook, colors, players, playtest.STAR_BOT, seeds, experts=k)
            for k in (0, players)})

    monkeypatch.setattr(model, "play_tables", ends)
    # The mission card's two faces are not drawn (WeasyPrint, most of an example's CPU): the
    # estimator never reads them (test_studio draws them).
    monkeypatch.setattr(model.CardPreview, "render", lambda self, html, dpi: (b"", []))
    root = Path(tempfile.mkdtemp(prefix="fuzz-estimate-"))
    folder = small_starter(root / "camp", ("21",))
    goal = folder / "goals" / "close-call.yaml"
    goal.write_text(re.sub(r"(?m)^rule: .*$", f'rule: "{rule}"', goal.read_text()))
    # One round to win and one life, not four and three: the counts that do not fail play
    # whole games, a quarter as long; the failing count still fails in its first game (the
    # bots' plans judge the goal on every table they weigh).
    # Two player counts, not three: the one the rule fails for and the cheapest other (three
    # players, or four when the rule fails for three). A five-seat batch that does not fail
    # plays whole games of the expert under a sandboxed rule, two thirds of this test's CPU;
    # one count going on beside the failing one shows the estimator going on as well as two.
    failing = int(re.match(r"\(sums\|length\) != (\d)", rule)[1])  # failing_rules' form
    counts = sorted({failing, 4 if failing == 3 else 3})
    (mission_file,) = (folder / "missions").glob("21-*.yaml")
    mission_file.write_text(mission_file.read_text().replace("rounds: 4", "rounds: 1")
                            .replace("lives: 3", f"lives: 1\nplayers: {counts}"))
    studio = model.Studio(folder, "en")
    studio.reload()
    assert studio.snapshot.entries[0].mission.players == tuple(counts)
    studio.clients = 1
    estimator = threading.Thread(target=studio.estimate_forever, daemon=True)
    estimator.start()
    # One batch at a time (jobs=1), the counts in turn: after two turns a failing count asked
    # again would show (it has no game counted: the fewest, asked first), and every other count
    # has gone on.
    rounds = 2 * len(studio.snapshot.entries[0].mission.players)
    try:
        eventually(lambda: sum(asked.values()) >= rounds)
    finally:
        studio.stopping.set()
        estimator.join(30)
    assert studio.failed, rule
    failed = {players for _, players in studio.failed}
    for players in studio.snapshot.entries[0].mission.players:
        assert asked[players] == 1 if players in failed else asked[players] >= 2, (rule, asked)
    (mission,) = studio.state()["missions"]
    assert mission["errors"] == len(studio.failed)


@pytest.fixture(scope="module")
def built_kit(tmp_path_factory, starter_kit):
    """A one-mission starter copy built once, from the starter kit's cache (conftest.py): its
    decks and their PNGs are not drawn again."""
    root = tmp_path_factory.mktemp("race")
    folder = small_starter(root / "camp", ("01",))
    out = root / "out"
    shutil.copytree(starter_kit / ".cache", out / ".cache")
    invoke("build", folder, "--out", out, "--jobs", "1", "--lang", "en")
    return folder, out


@settings(COMMANDS, max_examples=max(2, FUZZ_EXAMPLES // 4))
@given(race=out_races())
def test_nothing_outside_out_is_written_or_deleted_whatever_happens_to_its_folders(
        built_kit, race, monkeypatch):
    """Class 10: a folder of OUT replaced mid-build (a link out of it, a file, a FIFO) ends
    the build with exit 2 or leaves it unharmed; nothing outside OUT changes."""
    from synergy_forge.printing import build as build_module

    folder, out = built_kit
    swapped, after, by = race
    outside = Path(tempfile.mkdtemp(prefix="fuzz-outside-"))
    (outside / "keep.txt").write_text("not the build's")
    moved = outside.parent / (outside.name + "-moved")
    original, calls = build_module._assemble, []

    def assemble(*args: Any, **kwargs: Any) -> Any:
        if len(calls) == after and (out / swapped).is_dir():
            shutil.move(out / swapped, moved)
            if by == "link":
                (out / swapped).symlink_to(outside, target_is_directory=True)
            elif by == "link-to-file":
                (out / swapped).symlink_to(outside / "keep.txt")
            elif by == "file":
                (out / swapped).write_text("x")
            else:
                os.mkfifo(out / swapped)
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(build_module, "_assemble", assemble)
    before = sorted((p.name, p.stat().st_mtime_ns) for p in outside.iterdir())
    try:
        result = invoke("build", folder, "--out", out, "--jobs", "1", "--lang", "en")
        assert result.exit_code in (0, 2), result.output
        assert sorted((p.name, p.stat().st_mtime_ns) for p in outside.iterdir()) == before
    finally:
        if (out / swapped).is_symlink() or ((out / swapped).exists() and \
                not (out / swapped).is_dir()):
            (out / swapped).unlink()
        if moved.exists():
            shutil.rmtree(out / swapped, ignore_errors=True)
            shutil.move(moved, out / swapped)
        shutil.rmtree(outside)


@settings(COMMANDS, max_examples=max(6, FUZZ_EXAMPLES))
@given(campaign_writes())
def test_nothing_outside_the_campaign_nor_a_users_file_is_written(case):
    """Class 11: `schemas --update` and `new campaign .` in a folder whose .synergy/schemas/
    holds links out of the campaign, the user's files, FIFOs: exit 0 or 2 in one line; a file
    outside the campaign and every file not of ours stay as they were; on exit 0 each copy is
    this synergy-forge's schema."""
    from synergy_forge.authoring.scaffold import shipped_schemas, write_campaign

    command, targets = case
    root = Path(tempfile.mkdtemp(prefix="fuzz-writes-"))
    try:
        outside = root / "outside.txt"
        outside.write_text("the user's\n")
        campaign = root / "c"
        schemas = campaign / ".synergy" / "schemas"
        if command == "schemas":
            write_campaign(campaign, ("en",))
            for name in targets:
                (schemas / name).unlink()
        else:
            schemas.mkdir(parents=True)
        shipped = shipped_schemas()
        kept: dict[Path, bytes] = {}
        for name, what in targets.items():
            path = schemas / name
            if what in ("ours", "old"):
                path.write_bytes(shipped[name] if what == "ours" else
                                 shipped[name].replace(b'"title"', b'"old": 1, "title"', 1))
            elif what == "user":
                path.write_text("mine\n")
                kept[path] = b"mine\n"
            elif what == "link-out":
                path.symlink_to(outside)
            elif what == "dangling-out":
                path.symlink_to(root / "nowhere.json")
            elif what == "link-in":
                (campaign / "inside.json").write_bytes(shipped[name])
                path.symlink_to(campaign / "inside.json")
            elif what == "fifo":
                os.mkfifo(path)
            elif what == "folder":
                path.mkdir()
        args = ("schemas", "--update", campaign) if command == "schemas" else \
            ("new", "campaign", campaign)
        done = invoke_within(*args)
        assert done.exit_code in (0, 2), done.output
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr
        assert outside.read_text() == "the user's\n"
        assert not (root / "nowhere.json").exists()
        for path, data in kept.items():
            assert path.read_bytes() == data
        if done.exit_code == 0:
            for name in targets:
                assert (schemas / name).read_bytes() == shipped[name], name
        else:
            assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    finally:
        shutil.rmtree(root)


@settings(COMMANDS, max_examples=max(4, FUZZ_EXAMPLES // 2))
@given(hostile_findings())
def test_many_findings_and_invisible_characters_answer_in_a_screenful(case):
    """Class 12: a mission whose list holds up to 30,000 wrong items, and perhaps a direction
    control or another invisible character in its title: validate exits 1 within its
    deadline, in at most MAX_REPEATED lines per kind of finding and one count, and never
    prints the invisible character."""
    from synergy_forge.authoring.diagnostics import MAX_REPEATED

    field, count, char = case
    root = Path(tempfile.mkdtemp(prefix="fuzz-findings-"))
    try:
        mission = root / "m.yaml"
        items = ",".join(["1.5"] * count)
        mission.write_text(f"id: m\nnumber: 1\ntitle: 'Night{char} shift'\nstars: 1\n"
                           f"rounds: 3\nlives: 2\n{field}: [{items}]\n")
        done = invoke_within("validate", mission, seconds=60)
        assert done.exit_code in (0, 1), done.output
        lines = done.stdout.splitlines()
        assert len(lines) <= 2 * MAX_REPEATED + 4, len(lines)
        if char:
            assert done.exit_code == 1 and "invisible formatting character" in done.stdout
        assert not any(c in done.output for c in "\u202e\u202d\u202a\u2066\u2067\u2069\u200b")
    finally:
        shutil.rmtree(root)


FLOOD_SENDS = {"nothing": b"", "half": b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n",
               "garbage": b"\x00\xffnot http at all\r\n\r\n",
               "request": b"GET /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"}


@settings(COMMANDS, max_examples=max(3, FUZZ_EXAMPLES // 4),
          deadline=timedelta(seconds=90))
@given(connection_floods())
@pytest.mark.slow
def test_no_flood_of_connections_starves_a_seat(flood):
    """Class 13: whatever one client opens and sends, at whatever open-file limit, the seat's
    page answers from another address meanwhile and after, and the server's stderr stays a
    few lines (no traceback, no line per connection or request)."""
    from support.web_limits import hold, seat_page, stderr_lines, table

    files, count, source, sends = flood
    with table(files) as (link, port, process):
        held = hold(port, count, source)
        try:
            for sock in held:
                with contextlib.suppress(OSError):
                    sock.sendall(FLOOD_SENDS[sends])
            assert seat_page(link) == 200
        finally:
            for sock in held:
                sock.close()
        assert seat_page(link) == 200
        lines = stderr_lines(process)
    assert not any("Traceback" in line for line in lines), lines[:10]
    assert len(lines) <= 3, lines[:10]
