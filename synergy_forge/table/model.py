"""A table: its games of the engine, one after the other (a rematch, the campaign's next
mission), its seats (each reached by a secret token; played by a person or a bot, as the
host says), its host and spectators' links, and the log of every decision, with who made it.

People choose through the API, one seat each; bots choose in a thread of the table's own, at a
pace a person can follow. Choices of a simultaneous step are held face down until every seat's
is in, then given to the engine together, which checks each again (`Game.apply`). Every
change bumps the table's version, which wakes the open pages' event streams.

With a `Store`, every decision is written (one transaction) before it is taken, so a table
read back (`session.resume`) is at the decision it stopped, face-down choices included.
"""

from __future__ import annotations

import json
import secrets
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from synergy_forge.authoring.gamelog import (
    Recorder,
    decision_record,
    outcome_record,
    who_played,
)
from synergy_forge.core.cards import Action
from synergy_forge.core.choices import (
    Choice,
    Decision,
    DecisionKind,
    IllegalChoice,
    StaleChoice,
    StateId,
    choice_from_json,
    choice_json,
)
from synergy_forge.core.engine import Game
from synergy_forge.core.mission import Mission
from synergy_forge.core.rulelang import RuleError
from synergy_forge.core.rules import ActionText, Rulebook
from synergy_forge.sim.bots import BOTS, Bot, SeatMemories, make_bot, view_for
from synergy_forge.sim.model import MissionModel
from synergy_forge.table import pages
from synergy_forge.table.presence import Presence
from synergy_forge.table.review import REVIEWER, Reviewing, new_review
from synergy_forge.table.store import DecisionRow, SeatRow, Store, TableRow, new_token
from synergy_forge.table.view import (
    PERSON,
    RULE_FAILED,
    broken_outcome,
    mission_card,
    mission_label,
    outcome,
    printed_actions,
    round_summary,
)
from synergy_forge.web.server import Changes

#: One bot thinks at a time, whatever its table: they share the cores with people's pages.
_BOTS_THINKING = threading.Lock()
#: The bot that plays a seat whose person is away, unless the host names another.
AWAY_BOT = "expert"
#: How often a table's last use is written to its state file at most (seconds): its decisions
#: are written anyway; this is for pages only looked at, so that a table in use is not ended
#: as idle when the server starts again.
TOUCH_EVERY = 60.0


class Refused(Exception):
    """A choice the table does not take: `status` is the HTTP status (409: not now or not
    legal; 422: not a choice at all), the message says why in a player's words."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


class Finished(NamedTuple):
    """A game played to its end at a table: the game, its whole log, its number there, and
    the table's options (where its logs go)."""

    game: Game
    records: list[dict[str, Any]]
    number: int
    options: Mapping[str, Any]


class Played(NamedTuple):
    """A finished game of a table, for the host's list of the evening."""

    number: int
    mission: dict[str, Any]  # id, number, title
    outcome: dict[str, Any]


class GameTable:
    """Missions played by people and bots, one game after another, at the same seats.

    `seats[i]` is who sat at seat i when the table opened (PERSON or a bot's name);
    `players[i]` who plays it now (the host may hand a person's seat to a bot and back)."""

    def __init__(self, mission: Mission, rulebook: Rulebook, colors: Sequence[str],
                 players: int, seed: int, seats: Sequence[str], *,
                 actions: Mapping[Action, ActionText] | None = None,
                 campaign: Mapping[str, str] | None = None, pace: float = 1.0,
                 on_end: Callable[[Finished], None] | None = None,
                 store: Store | None = None, options: Mapping[str, Any] | None = None,
                 stored: TableRow | None = None) -> None:
        """A new table, written to `store`; or, with `stored`, that table of `store` again
        (its links, options and who plays each seat; its last game dealt, to which
        `take_stored` gives its decisions: `session.resume`). `campaign` is its campaign's
        name by language, the pages' title (kept in the options: a resumed table has it)."""
        if len(seats) != players:
            raise ValueError(f"{players} players need {players} seats, got {len(seats)}")
        self.seats = tuple(seats)
        self.on_end = on_end
        self.store = store
        self.memories, self.mission_model = SeatMemories(), MissionModel()  # the bots', kept
        self.lock = threading.Lock()
        self._bots_due = threading.Condition(self.lock)
        self.changes = Changes()
        self.stopping = threading.Event()
        self.ended = False
        self.played: list[Played] = []
        self.reviewing: Reviewing | None = None  # of the last finished game
        self.last: tuple[int, list[dict[str, Any]]] | None = None  # that game: number, log
        self.presence = Presence(len(seats))
        self._written = time.time()  # when the table's last use was written to the store
        self.options: dict[str, Any] = {"pace": pace, "away": None, "away_bot": AWAY_BOT,
                                        "campaign_name": dict(campaign or {}),
                                        **(options or {})}
        number, card, header = 1, None, None
        if stored is None:
            self.keys = {seat: new_token() for seat in range(players)}  # every seat's secret
            self.host, self.watch = new_token(), new_token()
            self.players = list(self.seats)
            self.id = 0 if store is None else store.new_table(
                self.host, self.watch, self.options,
                [SeatRow(seat, self.keys[seat], kind, kind) for seat, kind in enumerate(seats)])
        else:
            self.id, self.host, self.watch = stored.id, stored.host, stored.watch
            self.keys = {s.seat: s.token for s in stored.seats}
            self.players = [s.player for s in stored.seats]
            # Pages open before the restart hold older versions: above them, else every page
            self.changes.version = int(time.time() * 1000)  # takes new views for late old ones
            last = stored.games[-1]
            number, card, header = last.number, last.card, last.header
        game = Game(mission, players, seed, rulebook, colors, number=number)
        self._deal(game, card or mission_card(mission, players, game.allowed_failures,
                                              rulebook, actions or {}, self.campaign_name),
                   header)

    # -- dealing --------------------------------------------------------------------------

    def _deal(self, game: Game, card: dict[str, Any],
              stored: dict[str, Any] | None = None) -> None:
        """Start `game` at this table, with the mission card the pages show, and write it to
        the store; `stored`: its log's first record as the store has it (resuming). Lock
        held, or during construction."""
        self.game = game
        self.card = card
        self._bots: dict[tuple[int, str], Bot] = {}
        self.recorder = Recorder(game, self.players)
        if stored is not None:
            self.recorder.records[0] = stored
        self.records: list[dict[str, Any]] | None = None  # the whole log, once finished
        self.chosen: dict[int, Choice] = {}  # this step's choices so far, face down
        self._by: dict[int, str] = {}  # who made each of them
        self._seq = 0  # decisions taken in this game, face down ones included
        self.rounds: list[dict[str, Any]] = []
        #: the part every page shares, encoded once per change: (version, JSON text)
        self.public_cache: tuple[int, str] | None = None
        self._told = False  # on_end called
        self.result: dict[str, Any] | None = None  # the outcome as the view gives it
        #: a campaign rule that failed in play ("FILE:LINE: the rule … fails for …"): the
        #: game cannot go on, and every page is told why (RuleError)
        self.broken: str | None = None
        if self.store is not None and stored is None:
            self.store.new_game(self.id, game.number, self.recorder.records[0], card)
        self.review = new_review(game.number, self.options, self.store, self.id,
                                 printed_actions(card))  # in play

    @property
    def number(self) -> int:
        """The game's number at this table: 1, then 2 after a rematch, ..."""
        return self.game.number

    @property
    def campaign_name(self) -> dict[str, str]:
        """The campaign's name by language ({} outside a campaign): the pages' title."""
        return dict(self.options.get("campaign_name") or {})

    @property
    def tokens(self) -> dict[int, str]:
        """The secret of every seat a person plays: those are the links people are given."""
        return {seat: self.keys[seat] for seat, kind in enumerate(self.players)
                if kind == PERSON}

    @property
    def people(self) -> list[int]:
        return [seat for seat, kind in enumerate(self.players) if kind == PERSON]

    def player_of(self, seat: int) -> str:
        """Who decides for `seat` now: PERSON, the bot the host gave it, or the away bot."""
        player = self.players[seat]
        if player == PERSON and seat in self.presence.away:
            return str(self.options["away_bot"])
        return player

    # -- what a seat sees -----------------------------------------------------------------

    def pending(self) -> list[Decision]:
        """The decisions due now: none once a rule failed (the game cannot ask them)."""
        return [] if self.broken is not None else self.game.pending()

    @property
    def over(self) -> bool:
        """The game is over: played to its end, or stopped by a rule that failed."""
        return self.game.over or self.broken is not None

    def decision(self, seat: int) -> Decision | None:
        return next((d for d in self.pending() if d.seat == seat), None)

    def view_json(self, seat: int) -> str:
        """The seat's view (docs/table.md) as JSON text (table.pages)."""
        return pages.seat_json(self, seat)

    def view(self, seat: int) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.view_json(seat))
        return data

    def watch_json(self) -> str:
        """What a spectator sees, as JSON text (table.pages)."""
        return pages.watch_json(self)

    def host_json(self, base: str) -> str:
        """What the host sees, its links at `base`, as JSON text (table.pages)."""
        return pages.host_json(self, base)

    # -- people at the table --------------------------------------------------------------

    @property
    def touched(self) -> float:
        """When the table was last used (time.monotonic)."""
        return self.presence.touched

    def seen(self, seat: int | None = None) -> None:
        """A request of one of the table's links (`seat`'s, or the host's or spectators'):
        the table is in use, and the seat's person is here."""
        with self.lock:
            self.presence.seen(seat)
            back = seat in self.presence.away
        if back:
            self.check_away()
        if self.store is not None and time.time() - self._written > TOUCH_EVERY:
            self._written = time.time()
            self.store.touch(self.id, self._written)

    def connect(self, seat: int, opened: bool) -> None:
        """A page of `seat` opened (or closed) its event stream."""
        with self.lock:
            if self.presence.page(seat, opened):
                self._changed()
        self.check_away()

    def check_away(self) -> None:
        """Who is away (the host's limit, `options["away"]`: a bot plays their seat until they
        are back), published when it changes."""
        with self.lock:
            if self.presence.check(self.options.get("away"), self.people):
                self._changed()

    def _changed(self) -> None:
        """Wake the pages and the bots (lock held)."""
        self.changes.publish()
        self._bots_due.notify_all()

    # -- choosing -------------------------------------------------------------------------

    def choose(self, seat: int, choice: str) -> None:
        """Take `seat`'s choice (a legal item's id), or raise Refused; nothing changes then.
        The engine reads the id (`Game.choice_of`): one made for an earlier step or an
        earlier game at this table is refused as such."""
        with self.lock:
            game = self.game
            if self.ended:
                raise Refused(409, "the table has ended")
            if self.over:
                raise Refused(409, "the game is over")
            if self.players[seat] != PERSON:
                raise Refused(409, f"the host has given this seat to bot {self.players[seat]}"
                              "; ask them to give it back")
            if self.decision(seat) is None:
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
            self._take(seat, made, game.state, PERSON)
        self.tell_end()

    def _take(self, seat: int, choice: Choice, state: StateId, by: str) -> None:
        """Lay `seat`'s choice, made in `state` by `by`, face down (written to the store
        first); when every pending decision has one, the engine applies them all (and checks
        each again, and the state). Called with the lock held."""
        game = self.game
        decision = self.decision(seat)
        assert decision is not None
        if self.store is not None:
            self.store.add_decision(self.id, game.number, self._seq, str(state), seat,
                                    str(decision.kind), choice_json(choice), by)
        self._seq += 1
        try:
            self._lay(seat, choice, state, by)
        except RuleError as exc:
            self._break(exc)
        self.changes.publish()
        self._bots_due.notify_all()

    def _lay(self, seat: int, choice: Choice, state: StateId, by: str) -> None:
        self.chosen[seat] = choice
        self._by[seat] = by
        game = self.game
        pending = game.pending()
        if all(d.seat in self.chosen for d in pending):
            choices = [self.chosen[d.seat] for d in pending]
            # Each record holds the game's position before its decision: made before apply.
            records = [decision_record(game, d, c, self._by[d.seat])
                       for d, c in zip(pending, choices, strict=True)]
            before = len(game.history)
            game.apply(choices, state)
            self.recorder.records += records
            self.chosen, self._by = {}, {}
            for record in game.history[before:]:
                self.rounds.append(round_summary(game, record))
            if game.over:
                self._finish()
            else:
                game.pending()  # the next step's decisions now: a rule failing there fails here
            REVIEWER.played(self.review, self.recorder.records, game.over)

    def _finish(self) -> None:
        """The game is over: its log (who played each seat: who made most of its decisions),
        its outcome, the evening's list (lock held)."""
        game = self.game
        records = self.recorder.finish(game)
        records[0] = {**records[0], "bots": who_played(records, records[0]["bots"])}
        self.records = records
        self.result = result = outcome(game)
        assert result is not None
        self.played.append(Played(game.number, mission_label(game.mission), result))
        self.last = (game.number, records)
        REVIEWER.forget(self.reviewing)  # an earlier game's, no longer reachable
        self.reviewing = self.review
        if self.store is not None:  # again when resuming: it may not have been written
            self.store.finish_game(self.id, game.number, outcome_record(game))

    def _break(self, exc: RuleError) -> None:
        """End the game on a campaign rule that fails in play (it passed validate's search):
        every page says which rule, where and for what input, the terminal says it in one
        line, and the state file keeps the game as ended (no log: the game has no end the
        referee settled). A new deal may follow. Lock held."""
        if self.broken is not None:
            return
        game = self.game
        self.broken = str(exc)
        self.chosen, self._by = {}, {}
        self.result = broken_outcome(self.broken, game.rounds_won, game.lives,
                                     len(game.history))
        self.played.append(Played(game.number, mission_label(game.mission), self.result))
        if self.store is not None:
            self.store.finish_game(self.id, game.number, {
                "type": "end", "result": "lost", "reason": RULE_FAILED, "rule": self.broken,
                "rounds_won": game.rounds_won, "lives": game.lives,
                "rounds_played": len(game.history)})
            self.store.logged(self.id, game.number)
        print(f"synergy-forge table: error: {self.broken}; the game cannot go on (every seat "
              "was told): mend the rule, then `synergy-forge validate`", file=sys.stderr,
              flush=True)

    def tell_end(self) -> None:
        """Outside the lock, after a change: the end of the game is told to `on_end` once (the
        log is written then), with the game as it ended, whatever happens at the table
        meanwhile (also a table resumed after its game ended, before its log was written)."""
        finished = None
        with self.lock:
            if self.records is not None and not self._told:
                self._told = True
                finished = Finished(self.game, self.records, self.number, self.options)
        if finished is not None:
            if self.on_end is not None:
                self.on_end(finished)
            if self.store is not None:
                self.store.logged(self.id, finished.number)

    # -- the host's controls ----------------------------------------------------------------

    def again(self, seed: int | None = None) -> None:
        """Deal the same mission again at the same seats, once the game is over (its log is
        kept: on_end had it); a new random deal unless `seed`. Raises Refused before then."""
        with self.lock:
            self._over_or_refuse()
            setup = self.game.setup
            seed = secrets.randbits(63) if seed is None else seed
            self._next_game(Game(setup.mission, setup.players, seed, setup.rulebook,
                                 setup.colors, number=self.number + 1), self.card)

    def rematch(self, deal: str) -> None:
        """The same mission again: `deal` "same" deals the same cards again (the same seed),
        "new" a new deal."""
        if deal not in ("same", "new"):
            raise Refused(422, 'deal is "same" or "new"')
        with self.lock:
            self._over_or_refuse()
            seed = self.game.seed if deal == "same" else None
        self.again(seed)

    def next_mission(self) -> None:
        """The campaign's next mission (by number) for this table's player count, at the same
        seats, once the game is over: a campaign evening (docs/rules.md: nothing carries from
        one mission to the next; the host's page lists each mission's result)."""
        from synergy_forge.errors import SynergyForgeError
        from synergy_forge.workspace.play import next_mission

        with self.lock:
            self._over_or_refuse()
            folder = self.options.get("campaign")
            mission, players = self.game.mission, self.game.players
        if folder is None:
            raise Refused(409, "this table's mission is not in a campaign: there is no next "
                          "mission")
        try:
            found = next_mission(Path(folder), mission.number, players)
        except SynergyForgeError as exc:
            raise Refused(409, str(exc).splitlines()[0]) from None
        if found is None:
            raise Refused(409, f"no mission after mission {mission.number} of the campaign is "
                          f"for {players} players")
        with self.lock:
            self._over_or_refuse()
            game = Game(found.mission, players, secrets.randbits(63), found.rulebook,
                        found.colors, number=self.number + 1)
            card = mission_card(found.mission, players, game.allowed_failures, found.rulebook,
                                found.actions, found.name or self.campaign_name)
            self._next_game(game, card)

    def _over_or_refuse(self) -> None:
        if self.ended:
            raise Refused(409, "the table has ended")
        if not self.over:
            raise Refused(409, "the game is not over")

    def _next_game(self, game: Game, card: dict[str, Any]) -> None:
        self._deal(game, card)
        self.changes.publish()
        self._bots_due.notify_all()

    def set_player(self, seat: int, player: str) -> None:
        """Hand `seat` to a bot (its name) or back to its person (PERSON), from the next
        decision on; a choice it laid face down stays."""
        if player != PERSON and player not in BOTS:
            raise Refused(422, f"no bot {player[:40]!r}: one of {', '.join(sorted(BOTS))}, "
                          "or null for a person")
        with self.lock:
            if not 0 <= seat < self.game.players:
                raise Refused(404, f"no seat {seat} at this table")
            if self.ended:
                raise Refused(409, "the table has ended")
            if self.store is not None:
                self.store.set_player(self.id, seat, player)
            self.players[seat] = player
            self.presence.back(seat)
            self.changes.publish()
            self._bots_due.notify_all()
        self.check_away()

    def set_away(self, seconds: float | None, bot: str | None = None) -> None:
        """A person's seat with no page open for longer than `seconds` is played by `bot`
        until they are back (None: never)."""
        bot = bot or str(self.options["away_bot"])
        if bot not in BOTS:
            raise Refused(422, f"no bot {bot[:40]!r}: one of {', '.join(sorted(BOTS))}")
        with self.lock:
            self.options = {**self.options, "away": seconds, "away_bot": bot}
            if self.store is not None:
                self.store.set_options(self.id, self.options)
        self.check_away()

    def end(self) -> None:
        """End the table: its pages say so, its bots stop, the store keeps it as ended."""
        with self.lock:
            if self.ended:
                return
            self.ended = True
            if self.store is not None:
                self.store.end_table(self.id)
            REVIEWER.forget(self.review, self.reviewing)
        self.stop()

    # -- bots -----------------------------------------------------------------------------

    def _bot(self, seat: int, name: str) -> Bot:
        bot = self._bots.get((seat, name))
        if bot is None:
            bot = self._bots[(seat, name)] = make_bot(
                name, self.game.seed, seat, memories=self.memories, model=self.mission_model)
        return bot

    def _bot_decisions(self) -> list[tuple[Decision, str]]:
        return [(d, player) for d in self.pending()
                if (player := self.player_of(d.seat)) != PERSON and d.seat not in self.chosen]

    def run_bots(self) -> None:
        """Play the bots' seats until the table stops (runs in a thread): each decision waits
        `pace` seconds first, so people can follow. Once a second it also sees who is away."""
        while not self.stopping.is_set():
            self.check_away()
            with self.lock:
                due = self._bot_decisions()
                if not due:  # people's turn, or the game is over (it may be dealt again)
                    self._bots_due.wait(timeout=1.0)
                    continue
                state = self.game.state
            if self.stopping.wait(float(self.options["pace"])):
                return
            with self.lock:
                if self.game.state != state or self.broken is not None:
                    continue
                asked = []
                for decision, name in self._bot_decisions():
                    bot = self._bot(decision.seat, name)
                    asked.append((decision, name, bot, view_for(bot, self.game, decision.seat)))
            # What a bot sees is an immutable value: it thinks without holding the table.
            try:
                with _BOTS_THINKING:
                    made = [(d, name, bot.choose(seen, d)) for d, name, bot, seen in asked]
            except RuleError as exc:  # the campaign's rule, weighed by the bot's plan
                with self.lock:
                    if self.game.state == state and self.broken is None:
                        self._break(exc)
                        self._changed()
                continue
            except Exception as exc:  # our mistake: say so; the people's pages still work
                print(f"synergy-forge table: internal error in a bot: {type(exc).__name__}: "
                      f"{exc}; this is a bug, please report it", file=sys.stderr)
                return
            with self.lock:
                if self.game.state == state and self.broken is None:  # else it moved on
                    for decision, name, choice in made:
                        # Still the bot's: not chosen meanwhile, nor given back to its person.
                        if decision.seat not in self.chosen and self.broken is None and \
                                self.player_of(decision.seat) == name:
                            self._take(decision.seat, choice, state, name)
            self.tell_end()

    def stop(self) -> None:
        self.stopping.set()
        with self.lock:
            self._bots_due.notify_all()
        self.changes.close()

    # -- the state file -------------------------------------------------------------------

    def take_stored(self, rows: Sequence[DecisionRow], logged: bool) -> None:
        """Take the game's stored decisions again, in order (before anyone sees the table):
        a step not yet complete has its choices laid face down again. A game over whose log
        was not `logged` is told to `on_end` by `tell_end`. Raises
        ValueError for a decision the game does not ask (a file changed by hand)."""
        for row in rows:
            game = self.game
            decision = None if game.over else self.decision(row.seat)
            if row.state != str(game.state) or decision is None or \
                    str(decision.kind) != row.kind or row.seat in self.chosen:
                raise ValueError(f"decision {row.seq} ({row.state}, seat {row.seat}, "
                                 f"{row.kind}) is not one the game asks at {game.state}")
            choice = choice_from_json(DecisionKind(row.kind), row.choice)
            if choice not in decision.choices:
                raise ValueError(f"decision {row.seq} is not a legal choice")
            self._seq += 1
            self._lay(row.seat, choice, game.state, row.by)
        self._told = logged
