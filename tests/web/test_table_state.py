"""The tables' state file (synergy_forge/table/store.py): every decision written before the seat
is answered, a table read back at the decision it stopped with the same links, the schema's
versions, a file that is not ours or is in use refused; the tables a server resumes, ends or
opens. (`synergy-forge table` killed in the middle of a game and started again:
tests/cli/test_table_cli.py.)"""

from __future__ import annotations

import os
import sqlite3
import stat

import pytest
from support.tables import first_legal, game_table, people, played

from synergy_forge.authoring.gamelog import replay, write_log
from synergy_forge.errors import CannotRun
from synergy_forge.table.model import GameTable
from synergy_forge.table.session import Wanted, open_tables, resume
from synergy_forge.table.store import MIGRATIONS, VERSION, StateError, Store
from synergy_forge.table.view import PERSON

SEED = 4_417_093_221


def without_version(view: dict) -> dict:
    return {**view, "version": None}


def test_a_table_read_back_is_at_the_decision_it_stopped_with_the_same_links(tmp_path):
    path = tmp_path / "state.sqlite3"
    store = Store(path)
    table = game_table("5", people(3), seed=SEED, store=store)
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
    # A page open before the stop takes the resumed table's views as newer than its own (the
    # trial's pages, after a kill -9, kept the old view for good).
    assert resumed.view(0)["version"] > table.view(0)["version"]
    # Played on to the end, it is the game played without the stop.
    records = played(resumed)
    reference = played(game_table("5", people(3), seed=SEED))
    assert records == reference
    assert replay(write_log(records).splitlines()).outcome == resumed.game.outcome
    again.close()


def test_each_decision_is_in_the_file_before_the_seat_is_answered(tmp_path):
    path = tmp_path / "state.sqlite3"
    store = Store(path)
    table = game_table("5", people(3), seed=SEED, store=store)
    reader = sqlite3.connect(path)  # another connection: what a new process would read
    for made in range(1, 8):
        seat = next(s for s in range(3) if table.view(s)["legal"])
        table.choose(seat, table.view(seat)["legal"][0]["id"])
        assert reader.execute("SELECT count(*) FROM decisions").fetchone()[0] == made
    reader.close()
    store.close()


def test_a_refused_choice_writes_nothing(tmp_path):
    store = Store(tmp_path / "state.sqlite3")
    table = game_table("5", people(3), seed=SEED, store=store)
    with pytest.raises(Exception, match="not a legal choice"):
        table.choose(0, "g1.r1.s0.first-number.red:9")
    assert store.decisions(table.id, 1) == []
    store.close()


def test_the_file_is_its_owners_alone_and_one_server_uses_it(tmp_path):
    path = tmp_path / "state.sqlite3"
    store = Store(path)
    game_table("5", people(3), store=store)
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
        table = game_table("5", people(3), seed=SEED, store=store)
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
            table = game_table(mission, people(3), seed=SEED, store=s)
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
    table = game_table("5", people(3), seed=SEED, store=store)
    played(table)
    with store._transaction() as db:  # the server was killed before it wrote the log
        db.execute("UPDATE games SET logged = 0")
    ended = []
    opened = open_tables(store, None, ended.append, None)
    assert not opened.tables  # nothing to resume: its game was over
    assert len(ended) == 1 and ended[0].records == table.records
    assert store.open_tables() == []  # and the table is ended
    store.close()
