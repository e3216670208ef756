"""The tables' state on disk: every table, seat link, game and decision in one SQLite file, so
that `table` started again resumes every unfinished game where it stopped (docs/table.md).

Each decision is one transaction, committed before the seat is answered: a `kill -9` loses at
most the decision being made. The file is in WAL mode with `synchronous=NORMAL`, which keeps
every committed transaction through a crash of the process (a power cut may lose the last
ones). The schema's version is SQLite's `user_version`; `MIGRATIONS[i]` takes a file of
version i to version i + 1, each in one transaction, so a file written by an earlier version
is brought up to date when it is opened, and one written by a later version is refused.

The file holds every seat's secret token and each game's seed: it is created readable by its
owner only. One server at a time uses it (an exclusive lock on STATE.lock, released by the
system when the process ends, however it ends).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from synergy_forge.errors import CannotRun, UnreadableInput

#: What each migration runs, in order: MIGRATIONS[i] takes version i to i + 1.
MIGRATIONS: tuple[str, ...] = (
    # 1: tables, their seats (by secret token), their games (the game log's first record and
    # the mission card the pages show) and every decision, in the order it was made.
    """
    CREATE TABLE tables (
        id INTEGER PRIMARY KEY,
        host TEXT NOT NULL UNIQUE,
        watch TEXT NOT NULL UNIQUE,
        options TEXT NOT NULL,
        opened REAL NOT NULL,
        touched REAL NOT NULL,
        ended REAL
    );
    CREATE TABLE seats (
        table_id INTEGER NOT NULL REFERENCES tables(id),
        seat INTEGER NOT NULL,
        token TEXT NOT NULL UNIQUE,
        seated TEXT NOT NULL,
        player TEXT NOT NULL,
        PRIMARY KEY (table_id, seat)
    );
    CREATE TABLE games (
        table_id INTEGER NOT NULL REFERENCES tables(id),
        number INTEGER NOT NULL,
        header TEXT NOT NULL,
        card TEXT NOT NULL,
        started REAL NOT NULL,
        ended REAL,
        result TEXT,
        logged INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (table_id, number)
    );
    CREATE TABLE decisions (
        table_id INTEGER NOT NULL,
        game INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        state TEXT NOT NULL,
        seat INTEGER NOT NULL,
        kind TEXT NOT NULL,
        choice TEXT NOT NULL,
        by TEXT NOT NULL,
        made REAL NOT NULL,
        PRIMARY KEY (table_id, game, seq),
        FOREIGN KEY (table_id, game) REFERENCES games(table_id, number)
    );
    """,
    # 2: each decision of a game reviewed while it is played (table/review.py), kept so that
    # a restart does not review it again: the review's settings, its reviewed decision.
    """
    CREATE TABLE reviews (
        table_id INTEGER NOT NULL,
        game INTEGER NOT NULL,
        idx INTEGER NOT NULL,
        settings TEXT NOT NULL,
        reviewed TEXT NOT NULL,
        PRIMARY KEY (table_id, game, idx),
        FOREIGN KEY (table_id, game) REFERENCES games(table_id, number)
    );
    """,
)
VERSION = len(MIGRATIONS)


class StateError(UnreadableInput):
    """The state file cannot be used: not SQLite, written by a later version, unreadable."""


@dataclass(frozen=True)
class SeatRow:
    seat: int
    token: str
    seated: str  # who sat down: PERSON or a bot's name
    player: str  # who plays it now


@dataclass(frozen=True)
class DecisionRow:
    seq: int
    state: str
    seat: int
    kind: str
    choice: Any  # the game log's JSON value
    by: str


@dataclass(frozen=True)
class GameRow:
    number: int
    header: dict[str, Any]
    card: dict[str, Any]
    result: dict[str, Any] | None  # the log's end record, once over
    logged: bool


@dataclass(frozen=True)
class TableRow:
    """A table as the file keeps it: its links, options, seats and games (the last one is
    the one being played, or the last finished)."""

    id: int
    host: str
    watch: str
    options: dict[str, Any]
    touched: float
    seats: list[SeatRow]
    games: list[GameRow]


class Store:
    """One state file (or ":memory:", which keeps nothing), shared by every table of a server
    and its threads: each call is one transaction, under one lock."""

    def __init__(self, path: Path | str) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._held: int | None = None  # the lock file's descriptor
        memory = str(path) == ":memory:"
        if not memory:
            self._take_lock(Path(path))
        try:
            if not memory:
                _create_private(Path(path))
            self._db = sqlite3.connect(str(path), check_same_thread=False,
                                       isolation_level=None)
            self._db.execute("PRAGMA foreign_keys = ON")
            self._db.execute("PRAGMA busy_timeout = 5000")
            if not memory:
                self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = NORMAL")
            migrate(self._db, str(path))
        except sqlite3.DatabaseError as exc:
            self.close()
            raise StateError(f"{path}: not a state file of synergy-forge tables ({exc}); "
                             "give another --state FILE") from None
        except BaseException:
            self.close()
            raise

    def _take_lock(self, path: Path) -> None:
        import fcntl

        lock = path.with_name(path.name + ".lock")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise StateError(f"{path}: cannot open the state file: "
                             f"{exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise CannotRun(f"{path} is in use by another `synergy-forge table`: stop it "
                            "first, or give another --state FILE") from None
        self._held = fd

    def close(self) -> None:
        db = getattr(self, "_db", None)
        if db is not None:
            with contextlib.suppress(sqlite3.Error):
                db.close()
            self._db = None  # type: ignore[assignment]
        if self._held is not None:
            os.close(self._held)  # the lock goes with it
            self._held = None

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    # -- writing ----------------------------------------------------------------------------

    def new_table(self, host: str, watch: str, options: dict[str, Any],
                  seats: Sequence[SeatRow]) -> int:
        now = time.time()
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT INTO tables (host, watch, options, opened, touched) VALUES (?,?,?,?,?)",
                (host, watch, _dump(options), now, now))
            table_id = cursor.lastrowid
            assert table_id is not None
            db.executemany("INSERT INTO seats VALUES (?,?,?,?,?)",
                           [(table_id, s.seat, s.token, s.seated, s.player) for s in seats])
        return table_id

    def new_game(self, table_id: int, number: int, header: dict[str, Any],
                 card: dict[str, Any]) -> None:
        now = time.time()
        with self._transaction() as db:
            db.execute("INSERT INTO games (table_id, number, header, card, started) "
                       "VALUES (?,?,?,?,?)", (table_id, number, _dump(header), _dump(card), now))
            db.execute("UPDATE tables SET touched = ? WHERE id = ?", (now, table_id))

    def add_decision(self, table_id: int, game: int, seq: int, state: str, seat: int,
                     kind: str, choice: Any, by: str) -> None:
        """One decision, in a transaction of its own."""
        now = time.time()
        with self._transaction() as db:
            db.execute("INSERT INTO decisions VALUES (?,?,?,?,?,?,?,?,?)",
                       (table_id, game, seq, state, seat, kind, _dump(choice), by, now))
            db.execute("UPDATE tables SET touched = ? WHERE id = ?", (now, table_id))

    def finish_game(self, table_id: int, game: int, result: dict[str, Any]) -> None:
        with self._transaction() as db:
            db.execute("UPDATE games SET ended = ?, result = ? WHERE table_id = ? AND number = ?",
                       (time.time(), _dump(result), table_id, game))

    def logged(self, table_id: int, game: int) -> None:
        with self._transaction() as db:
            db.execute("UPDATE games SET logged = 1 WHERE table_id = ? AND number = ?",
                       (table_id, game))

    def set_player(self, table_id: int, seat: int, player: str) -> None:
        with self._transaction() as db:
            db.execute("UPDATE seats SET player = ? WHERE table_id = ? AND seat = ?",
                       (player, table_id, seat))

    def set_options(self, table_id: int, options: dict[str, Any]) -> None:
        with self._transaction() as db:
            db.execute("UPDATE tables SET options = ? WHERE id = ?", (_dump(options), table_id))

    def touch(self, table_id: int, when: float) -> None:
        with self._transaction() as db:
            db.execute("UPDATE tables SET touched = max(touched, ?) WHERE id = ?",
                       (when, table_id))

    def add_review(self, table_id: int, game: int, index: int, settings: str,
                   reviewed: dict[str, Any]) -> None:
        """A decision reviewed, with the review's `settings` (its rollouts and seed)."""
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO reviews VALUES (?,?,?,?,?)",
                       (table_id, game, index, settings, _dump(reviewed)))

    def end_table(self, table_id: int) -> None:
        with self._transaction() as db:
            db.execute("UPDATE tables SET ended = ? WHERE id = ? AND ended IS NULL",
                       (time.time(), table_id))

    # -- reading ----------------------------------------------------------------------------

    def open_tables(self) -> list[TableRow]:
        """Every table not ended, oldest first, with its seats and games."""
        with self._lock:
            db = self._db
            rows = db.execute("SELECT id, host, watch, options, touched FROM tables "
                              "WHERE ended IS NULL ORDER BY id").fetchall()
            found = []
            for table_id, host, watch, options, touched in rows:
                seats = [SeatRow(*row) for row in db.execute(
                    "SELECT seat, token, seated, player FROM seats WHERE table_id = ? "
                    "ORDER BY seat", (table_id,))]
                games = [GameRow(number, json.loads(header), json.loads(card),
                                 None if result is None else json.loads(result), bool(logged))
                         for number, header, card, result, logged in db.execute(
                             "SELECT number, header, card, result, logged FROM games "
                             "WHERE table_id = ? ORDER BY number", (table_id,))]
                found.append(TableRow(table_id, host, watch, json.loads(options), touched,
                                      seats, games))
        return found

    def decisions(self, table_id: int, game: int) -> list[DecisionRow]:
        with self._lock:
            return [DecisionRow(seq, state, seat, kind, json.loads(choice), by)
                    for seq, state, seat, kind, choice, by in self._db.execute(
                        "SELECT seq, state, seat, kind, choice, by FROM decisions "
                        "WHERE table_id = ? AND game = ? ORDER BY seq", (table_id, game))]


    def reviews(self, table_id: int, game: int, settings: str) -> list[dict[str, Any]]:
        """The game's decisions reviewed with these `settings`, in order."""
        with self._lock:
            return [json.loads(reviewed) for (reviewed,) in self._db.execute(
                "SELECT reviewed FROM reviews WHERE table_id = ? AND game = ? AND settings = ? "
                "ORDER BY idx", (table_id, game, settings))]


def new_token() -> str:
    """A secret link's token: 192 random bits (`secrets`), unguessable."""
    return secrets.token_urlsafe(24)


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _create_private(path: Path) -> None:
    """The file, created readable and writable by its owner only (it holds every seat's
    token); an existing file is left as it is. SQLite gives its -wal and -shm files the
    database's permissions."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise StateError(f"{path}: cannot open the state file: {exc.strerror or exc}") from None
    os.close(fd)


def migrate(db: sqlite3.Connection, name: str) -> None:
    """Bring the file to VERSION, one migration (one transaction) at a time; a file of a later
    version is refused (StateError): this version cannot know what it holds."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > VERSION:
        raise StateError(f"{name}: written by a later synergy-forge (state format {version}, "
                         f"this version reads up to {VERSION}); upgrade, or give another "
                         "--state FILE")
    for index in range(version, VERSION):
        db.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(MIGRATIONS[index]):
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {index + 1}")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")


def _statements(script: str) -> list[str]:
    """A migration's statements, one by one (executescript would commit on its own)."""
    return [part.strip() for part in script.split(";") if part.strip()]
