"""A table: one game of the engine, its seats (people by secret token, bots), and the log.

People choose through the API, one seat each; bots choose in a thread of the table's own, at a
pace a person can follow. Choices of a simultaneous step are held face down until every seat's
is in, then given to the engine together, which checks each again (`Game.apply`). Every
change bumps the table's version, which wakes the open pages' event streams.
"""

from __future__ import annotations

import json
import secrets
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from synergy_forge.authoring.gamelog import Recorder, decision_record
from synergy_forge.core.cards import Action
from synergy_forge.core.choices import Choice, Decision, IllegalChoice, StaleChoice, StateId
from synergy_forge.core.engine import Game
from synergy_forge.core.mission import Mission
from synergy_forge.core.rules import ActionText, Rulebook
from synergy_forge.sim.bots import SeatMemories, make_bot, view_for
from synergy_forge.table.view import (
    PERSON,
    mission_card,
    outcome,
    own_view,
    public_view,
    round_summary,
)
from synergy_forge.web.server import Changes

#: Bots of every table share memories per seat (sim.bots): one bot thinks at a time.
_BOTS_THINKING = threading.Lock()


class Refused(Exception):
    """A choice the table does not take: `status` is the HTTP status (409: not now or not
    legal; 422: not a choice at all), the message says why in a player's words."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


class Finished(NamedTuple):
    """A game played to its end at a table: the game, its whole log, its number there."""

    game: Game
    records: list[dict[str, Any]]
    number: int


class GameTable:
    """One mission played by people and bots; `seats[i]` is PERSON or a bot's name."""

    def __init__(self, mission: Mission, rulebook: Rulebook, colors: Sequence[str],
                 players: int, seed: int, seats: Sequence[str], *,
                 actions: Mapping[Action, ActionText] | None = None, pace: float = 1.0,
                 on_end: Callable[[Finished], None] | None = None) -> None:
        if len(seats) != players:
            raise ValueError(f"{players} players need {players} seats, got {len(seats)}")
        self.game = Game(mission, players, seed, rulebook, colors)
        self.seats = tuple(seats)
        #: seat -> its secret (unguessable: 192 random bits), people's seats only
        self.tokens = {seat: secrets.token_urlsafe(24)
                       for seat, kind in enumerate(self.seats) if kind == PERSON}
        self.memories = SeatMemories()  # the bots', kept across this table's games
        self.bots = {seat: make_bot(kind, seed, seat, memories=self.memories)
                     for seat, kind in enumerate(self.seats) if kind != PERSON}
        self.pace = pace
        self.on_end = on_end
        self.recorder = Recorder(self.game, self.seats)
        self.records: list[dict[str, Any]] | None = None  # the whole log, once finished
        self.lock = threading.Lock()
        self._bots_due = threading.Condition(self.lock)
        self.changes = Changes()
        self.stopping = threading.Event()
        self.chosen: dict[int, Choice] = {}  # this step's choices so far, face down
        self.rounds: list[dict[str, Any]] = []
        self.card = mission_card(mission, players, self.game.allowed_failures, rulebook,
                                 actions or {})
        self._public: tuple[int, str] | None = None
        self._told = False  # on_end called
        self.number = 1  # of the games played at this table, this one
        self.result: dict[str, Any] | None = None  # the outcome as the view gives it

    @property
    def people(self) -> list[int]:
        return [seat for seat, kind in enumerate(self.seats) if kind == PERSON]

    # -- what a seat sees -----------------------------------------------------------------

    def _decision(self, seat: int) -> Decision | None:
        return next((d for d in self.game.pending() if d.seat == seat), None)

    def view_json(self, seat: int) -> str:
        """The seat's view (docs/table.md) as JSON text: its own part, then the public part,
        encoded once per change for every seat."""
        with self.lock:
            game, version = self.game, self.changes.version
            seen = game.observe(seat)
            if self._public is None or self._public[0] != version:
                public = public_view(seen, self.seats, game.pending(), self.chosen, self.card,
                                     self.rounds, game.outcome)
                public["game"] = self.number
                self._public = (version, json.dumps(public, ensure_ascii=False,
                                                    separators=(",", ":")))
            own = own_view(seen, game.state, self.seats, self._decision(seat),
                           self.chosen.get(seat), seat in self.chosen, self.result, version)
            public_text = self._public[1]
        text = json.dumps(own, ensure_ascii=False, separators=(",", ":"))
        return f'{text[:-1]},"table":{public_text}}}'

    def view(self, seat: int) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.view_json(seat))
        return data

    # -- choosing -------------------------------------------------------------------------

    def choose(self, seat: int, choice: str) -> None:
        """Take `seat`'s choice (a legal item's id), or raise Refused; nothing changes then.
        The engine reads the id (`Game.choice_of`): one made for an earlier step or an
        earlier game at this table is refused as such."""
        with self.lock:
            game = self.game
            if game.over:
                raise Refused(409, "the game is over")
            if self._decision(seat) is None:
                raise Refused(409, "it is not your turn")
            if seat in self.chosen:
                raise Refused(409, "you have already chosen; waiting for the other players")
            try:
                made = game.choice_of(seat, choice)
            except StaleChoice as exc:
                raise Refused(409, f"{exc.message}: ask the seat's view for its legal "
                              "choices now") from None
            except IllegalChoice:
                raise Refused(409, f"{choice[:80]!r} is not a legal choice now: ask the seat's "
                              "view for its legal choices") from None
            self._take(seat, made, game.state)
        self._after_change()

    def _take(self, seat: int, choice: Choice, state: StateId) -> None:
        """Lay `seat`'s choice, made in `state`, face down; when every pending decision has
        one, the engine applies them all (and checks each again, and the state). Called with
        the lock held."""
        self.chosen[seat] = choice
        game = self.game
        pending = game.pending()
        if all(d.seat in self.chosen for d in pending):
            choices = [self.chosen[d.seat] for d in pending]
            # Each record holds the game's position before its decision: made before apply.
            records = [decision_record(game, d, c) for d, c in zip(pending, choices, strict=True)]
            before = len(game.history)
            game.apply(choices, state)
            self.recorder.records += records
            self.chosen = {}
            for record in game.history[before:]:
                self.rounds.append(round_summary(game, record))
            if game.over:
                self.records = self.recorder.finish(game)
                self.result = outcome(game)
        self.changes.publish()
        self._bots_due.notify_all()

    def _after_change(self) -> None:
        """Outside the lock: the end of the game is told once (the log is written then),
        with the game as it ended, whatever happens at the table meanwhile."""
        finished = None
        with self.lock:
            if self.records is not None and not self._told:
                self._told = True
                finished = Finished(self.game, self.records, self.number)
        if finished is not None and self.on_end is not None:
            self.on_end(finished)

    def again(self, seed: int | None = None) -> None:
        """Deal the same mission again at the same seats, once the game is over (its log is
        kept: on_end had it); raises Refused before then."""
        with self.lock:
            if not self.game.over:
                raise Refused(409, "the game is not over")
            setup = self.game.setup
            seed = secrets.randbits(63) if seed is None else seed
            self.game = Game(setup.mission, setup.players, seed, setup.rulebook, setup.colors,
                             number=self.number + 1)
            self.bots = {s: make_bot(kind, seed, s, memories=self.memories)
                         for s, kind in enumerate(self.seats)
                         if kind != PERSON}
            self.recorder = Recorder(self.game, self.seats)
            self.records, self.chosen, self.rounds, self._told = None, {}, [], False
            self.result = None
            self.number += 1
            self.changes.publish()
            self._bots_due.notify_all()

    # -- bots -----------------------------------------------------------------------------

    def _bot_decisions(self) -> list[Decision]:
        return [d for d in self.game.pending() if d.seat in self.bots and d.seat not in
                self.chosen]

    def run_bots(self) -> None:
        """Play the bots' seats until the table stops (runs in a thread):
        each decision waits `pace` seconds first, so people can follow."""
        while not self.stopping.is_set():
            with self.lock:
                due = self._bot_decisions()
                if not due:  # people's turn, or the game is over (it may be dealt again)
                    self._bots_due.wait(timeout=1.0)
                    continue
                state = self.game.state
            if self.stopping.wait(self.pace):
                return
            with self.lock:
                if self.game.state != state:
                    continue
                asked = [(d, view_for(self.bots[d.seat], self.game, d.seat))
                         for d in self._bot_decisions()]
            # What a bot sees is an immutable value: it thinks without holding the table.
            try:
                with _BOTS_THINKING:
                    made = [(d, self.bots[d.seat].choose(seen, d)) for d, seen in asked]
            except Exception as exc:  # our mistake: say so; the people's pages still work
                print(f"synergy-forge table: internal error in a bot: {type(exc).__name__}: "
                      f"{exc}; this is a bug, please report it", file=sys.stderr)
                return
            with self.lock:
                if self.game.state == state:  # else the game moved on while they thought
                    for decision, choice in made:
                        if decision.seat not in self.chosen:
                            self._take(decision.seat, choice, state)
            self._after_change()

    def stop(self) -> None:
        self.stopping.set()
        with self.lock:
            self._bots_due.notify_all()
        self.changes.close()

