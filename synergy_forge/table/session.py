"""Opening a server's tables from its state file: every table whose game is unfinished resumed
where it stopped, unless nobody had used it for longer than the idle limit (it is ended
instead), and the table asked for opened beside them, unless it is one of them (the same
command started again resumes its game rather than dealing another). A table whose game was
over is ended, its log written first if the server stopped before it was.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from synergy_forge.authoring.gamelog import game_from_header
from synergy_forge.errors import SynergyForgeError
from synergy_forge.table.model import Finished, GameTable, Played
from synergy_forge.table.store import Store, TableRow
from synergy_forge.table.view import mission_label, outcome_of_record


@dataclass(frozen=True)
class Wanted:
    """The table a command asks for: its mission, who sits at each seat, and how to deal its
    first game."""

    mission_id: str
    seats: tuple[str, ...]
    deal: Callable[[Store], GameTable]

    def is_(self, row: TableRow) -> bool:
        """Whether `row` is this table: the same mission now, the same seats."""
        last = row.games[-1].header
        return last["mission"]["id"] == self.mission_id and \
            tuple(s.seated for s in row.seats) == self.seats


@dataclass
class Opened:
    """A server's tables: those resumed, the one opened anew (if any), the idle ones ended,
    and those that could not be read again (with why)."""

    resumed: list[GameTable] = field(default_factory=list)
    new: GameTable | None = None
    ended: list[TableRow] = field(default_factory=list)
    broken: list[tuple[TableRow, str]] = field(default_factory=list)

    @property
    def tables(self) -> list[GameTable]:
        return [*self.resumed, *([self.new] if self.new is not None else [])]


def open_tables(store: Store, idle: float | None, on_end: Callable[[Finished], None],
                wanted: Wanted | None) -> Opened:
    """Resume the store's unfinished tables (ending those unused for `idle` seconds), then
    open `wanted` unless it is one of them."""
    opened = Opened()
    now = time.time()
    same = False
    for row in store.open_tables():
        if not row.games:
            store.end_table(row.id)  # opened, never dealt: nothing to resume
            continue
        last = row.games[-1]
        if last.result is not None:  # its game was over: nothing to resume, but its log
            if not last.logged:
                with contextlib.suppress(ValueError, KeyError, SynergyForgeError):
                    done = resume(store, row, on_end)
                    done.tell_end()
                    done.end()  # nobody can reach it: its review is not made
            store.end_table(row.id)
            continue
        if idle is not None and now - row.touched > idle:
            store.end_table(row.id)
            opened.ended.append(row)
            continue
        try:
            table = resume(store, row, on_end)
        except (ValueError, KeyError, SynergyForgeError) as exc:
            opened.broken.append((row, str(exc)))
            continue
        opened.resumed.append(table)
        same = same or (wanted is not None and wanted.is_(row))
    if wanted is not None and not same:
        opened.new = wanted.deal(store)
    return opened


def resume(store: Store, row: TableRow, on_end: Callable[[Finished], None] | None = None
           ) -> GameTable:
    """The table `row` of `store` as it was: the same links, its last game at the decision it
    stopped (the choices of a step not yet complete laid face down again), its earlier games
    in the evening's list. Raises ValueError (or the log's ReplayError) when the store's game
    is not one the engine plays (a file changed by hand)."""
    last = row.games[-1]
    setup = game_from_header(last.header).game.setup
    table = GameTable(setup.mission, setup.rulebook, setup.colors, setup.players, setup.seed,
                      [s.seated for s in row.seats], on_end=on_end, store=store,
                      options=row.options, stored=row)
    for game in row.games[:-1]:
        if game.result is not None:
            mission = game_from_header(game.header).game.mission
            table.played.append(Played(game.number, mission_label(mission),
                                       outcome_of_record(game.result)))
    table.take_stored(store.decisions(row.id, last.number), last.logged)
    return table
