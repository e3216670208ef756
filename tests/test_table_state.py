"""The tables' state file (synergy_forge/table/store.py): every decision written before the seat
is answered, a table read back at the decision it stopped with the same links, the schema's
versions, a file that is not ours or is in use refused; and `synergy-forge table` killed
(`kill -9`) in the middle of a game and started again, which resumes it."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import stat
import time

import pytest
from tablekit import make_table, people

from synergy_forge.authoring.gamelog import replay, write_log
from synergy_forge.errors import CannotRun
from synergy_forge.table.model import GameTable
from synergy_forge.table.session import Wanted, open_tables, resume
from synergy_forge.table.store import MIGRATIONS, VERSION, StateError, Store
from synergy_forge.table.view import PERSON

SEED = 4_417_093_221


def first_legal(table: GameTable, seats: list[int] | None = None) -> bool:
    """Each seat in `seats` (default: every person's) that may choose takes its first legal
    choice; False when none could."""
    moved = False
    for seat in seats if seats is not None else table.people:
        legal = table.view(seat)["legal"]
        if legal:
            table.choose(seat, legal[0]["id"])
            moved = True
    return moved


def without_version(view: dict) -> dict:
    return {**view, "version": None}


def played(table: GameTable) -> list[dict]:
    """The table's game played to its end, people taking their first legal choice."""
    while not table.game.over:
        assert first_legal(table)
    assert table.records is not None
    return table.records


def test_a_table_read_back_is_at_the_decision_it_stopped_with_the_same_links(tmp_path):
    path = tmp_path / "state.sqlite3"
    store = Store(path)
    table = make_table("5", people(3), seed=SEED, store=store)
    for _ in range(5):
        first_legal(table)
    first_legal(table, [0])  # a step half made: seat 0's card is face down
    assert table.chosen and list(table.chosen) == [0]
    views = {seat: without_version(table.view(seat)) for seat in range(3)}
    keys, host, watch = dict(table.keys), table.host, table.watch
    store.close()

    again = Store(path)
    [row] = again.open_tables()
    resumed = resume(again, row)
    assert (resumed.keys, resumed.host, resumed.watch) == (keys, host, watch)
    assert {seat: without_version(resumed.view(seat)) for seat in range(3)} == views
    assert resumed.view(0)["laid"] is not None and resumed.view(0)["legal"] == []
    # Played on to the end, it is the game played without the stop.
    records = played(resumed)
    reference = played(make_table("5", people(3), seed=SEED))
    assert records == reference
    assert replay(write_log(records).splitlines()).outcome == resumed.game.outcome
    again.close()


def test_each_decision_is_in_the_file_before_the_seat_is_answered(tmp_path):
    path = tmp_path / "state.sqlite3"
    store = Store(path)
    table = make_table("5", people(3), seed=SEED, store=store)
    reader = sqlite3.connect(path)  # another connection: what a new process would read
    for made in range(1, 8):
        seat = next(s for s in range(3) if table.view(s)["legal"])
        table.choose(seat, table.view(seat)["legal"][0]["id"])
        assert reader.execute("SELECT count(*) FROM decisions").fetchone()[0] == made
    reader.close()
    store.close()


def test_a_refused_choice_writes_nothing(tmp_path):
    store = Store(tmp_path / "state.sqlite3")
    table = make_table("5", people(3), seed=SEED, store=store)
    with pytest.raises(Exception, match="not a legal choice"):
        table.choose(0, "g1.r1.s0.first-number.red:9")
    assert store.decisions(table.id, 1) == []
    store.close()


def test_the_file_is_its_owners_alone_and_one_server_uses_it(tmp_path):
    path = tmp_path / "state.sqlite3"
    store = Store(path)
    make_table("5", people(3), store=store)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600  # it holds every seat's token
    with pytest.raises(CannotRun, match="in use by another `synergy-forge table`"):
        Store(path)
    store.close()
    Store(path).close()  # free again once the first is closed


def test_a_file_that_is_not_a_state_file_is_refused(tmp_path):
    path = tmp_path / "notes.sqlite3"
    path.write_text("my notes\n" * 100)
    with pytest.raises(StateError, match="not a state file of synergy-forge tables"):
        Store(path)
    assert path.read_text() == "my notes\n" * 100  # untouched


def test_a_file_of_a_later_version_is_refused(tmp_path):
    path = tmp_path / "state.sqlite3"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {VERSION + 1}")
    db.close()
    with pytest.raises(StateError, match=f"state format {VERSION + 1}"):
        Store(path)


def test_each_migration_brings_a_file_up_to_date_keeping_its_tables(tmp_path):
    """A file left at each earlier version, holding a table, is migrated when opened: the
    table is resumed as it was."""
    for version in range(1, VERSION + 1):
        path = tmp_path / f"v{version}.sqlite3"
        store = Store(path)
        table = make_table("5", people(3), seed=SEED, store=store)
        first_legal(table)
        views = {seat: without_version(table.view(seat)) for seat in range(3)}
        store.close()
        # Back to `version`: what an earlier synergy-forge would have left (the later
        # migrations only add).
        db = sqlite3.connect(path)
        later = [name for (name,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")]
        db.close()
        assert {"tables", "seats", "games", "decisions"} <= set(later)
        db = sqlite3.connect(path)
        db.execute(f"PRAGMA user_version = {version}")
        for script in MIGRATIONS[version:]:
            for statement in script.split(";"):
                name = statement.split("CREATE TABLE")[-1].split("(")[0].strip()
                if "CREATE TABLE" in statement:
                    db.execute(f"DROP TABLE {name}")
        db.commit()
        db.close()
        store = Store(path)
        assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == VERSION
        [row] = store.open_tables()
        resumed = resume(store, row)
        assert {seat: without_version(resumed.view(seat)) for seat in range(3)} == views
        store.close()


def test_an_idle_table_is_ended_not_resumed_and_the_same_command_resumes(tmp_path):
    store = Store(tmp_path / "state.sqlite3")
    opened = []

    def wanted(mission: str) -> Wanted:
        def open_(s: Store) -> GameTable:
            table = make_table(mission, people(3), seed=SEED, store=s)
            opened.append(table)
            return table
        return Wanted({"5": "short-hand", "12": "stairway"}[mission], (PERSON,) * 3, open_)

    first = open_tables(store, 3600, lambda finished: None, wanted("5"))
    assert first.new is not None and not first.resumed
    first_legal(first.new)
    # The same command again: its table is resumed, no other opened.
    second = open_tables(store, 3600, lambda finished: None, wanted("5"))
    assert second.new is None and [t.id for t in second.resumed] == [first.new.id]
    # Another mission: opened beside it.
    third = open_tables(store, 3600, lambda finished: None, wanted("12"))
    assert third.new is not None and len(third.resumed) == 1
    # Unused for longer than the limit: ended, said, never resumed again.
    store.touch(first.new.id, 0)  # never goes back: touch keeps the latest
    with store._transaction() as db:
        db.execute("UPDATE tables SET touched = 0 WHERE id = ?", (first.new.id,))
    fourth = open_tables(store, 3600, lambda finished: None, None)
    assert [row.id for row in fourth.ended] == [first.new.id]
    assert first.new.id not in [t.id for t in fourth.resumed]
    assert first.new.id not in [row.id for row in store.open_tables()]
    store.close()


def test_a_game_over_whose_log_was_not_written_is_logged_at_the_restart(tmp_path):
    store = Store(tmp_path / "state.sqlite3")
    table = make_table("5", people(3), seed=SEED, store=store)
    played(table)
    with store._transaction() as db:  # the server was killed before it wrote the log
        db.execute("UPDATE games SET logged = 0")
    ended = []
    opened = open_tables(store, None, ended.append, None)
    assert not opened.tables  # nothing to resume: its game was over
    assert len(ended) == 1 and ended[0].records == table.records
    assert store.open_tables() == []  # and the table is ended
    store.close()


# -- the command, killed and started again ---------------------------------------------------

def test_table_killed_mid_game_resumes_where_it_was_with_the_same_links(tmp_path):
    from test_table_cli import TableProcess, choose, get

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
    reference = played(make_table("5", people(3), seed=77))
    assert records == reference
