"""What each page of a table is sent (docs/table.md): a seat's view, the spectators', the
host's, as JSON text; the part they all share is encoded once per change of the table."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from synergy_forge.sim.bots import BOTS
from synergy_forge.table.view import PERSON, own_view, public_view, revealed

if TYPE_CHECKING:
    from synergy_forge.table.model import GameTable


def _with_table(own: dict[str, Any], public_text: str) -> str:
    text = json.dumps(own, ensure_ascii=False, separators=(",", ":"))
    return f'{text[:-1]},"table":{public_text}}}'


def public_text(table: GameTable) -> str:
    """The part every seat and spectator sees alike, encoded once per change (lock held)."""
    version = table.changes.version
    if table.public_cache is None or table.public_cache[0] != version:
        game = table.game
        public = public_view(game.observe(0), seat_states(table), table.pending(),
                             table.chosen, table.card, table.rounds, game.outcome)
        public["game"] = game.number
        table.public_cache = (version, json.dumps(public, ensure_ascii=False,
                                                  separators=(",", ":")))
    return table.public_cache[1]


def seat_states(table: GameTable) -> list[dict[str, Any]]:
    """Per seat, who plays it and whether its person is here, as everyone sees it."""
    states = []
    for seat in range(table.game.players):
        player = table.player_of(seat)
        states.append({"player": PERSON if player == PERSON else "bot",
                       "bot": None if player == PERSON else player,
                       "away": seat in table.presence.away,
                       "connected": table.presence.connected(seat)})
    return states


def seat_json(table: GameTable, seat: int) -> str:
    """The seat's view: its own part, then the public part."""
    with table.lock:
        game, version = table.game, table.changes.version
        seen = game.observe(seat)
        shared = public_text(table)
        own = own_view(seen, game.state, table.player_of(seat), table.decision(seat),
                       table.chosen.get(seat), seat in table.chosen, table.result, version)
    return _with_table(own, shared)


def watch_json(table: GameTable) -> str:
    """What a spectator sees (the seat view's shape, with no seat): during the game, only
    what is face up for everyone; once it is over, every hand and every decision."""
    with table.lock:
        game, version = table.game, table.changes.version
        shared = public_text(table)
        own: dict[str, Any] = {
            "seat": None, "color": None, "symbol": None, "player": "watch", "hand": [],
            "goal_hand": [], "decision": None, "laid": None, "legal": [],
            "outcome": table.result, "version": version,
            "revealed": revealed(game, table.records) if table.records is not None
            else None}
    return _with_table(own, shared)


def host_json(table: GameTable, base: str) -> str:
    """What the host sees: the table as spectators see it (no hand during the game: the
    host often plays a seat too), every link (at `base`), who plays each seat and whether
    its person has a page open, the limit after which a bot plays for someone away, and
    the games played at this table so far."""
    with table.lock:
        game, version = table.game, table.changes.version
        shared = public_text(table)
        seats = [{"seat": seat, "link": f"{base}/seat/{table.keys[seat]}",
                  "qr": f"/api/host/{table.host}/qr/seat-{seat}.svg",
                  "seated": table.seats[seat], "player": table.players[seat],
                  "playing": table.player_of(seat), "away": seat in table.presence.away,
                  "connected": table.presence.connected(seat),
                  "pages": table.presence.streams[seat]}
                 for seat in range(game.players)]
        own = {
            "host": True, "version": version, "seats": seats,
            "watch": {"link": f"{base}/watch/{table.watch}",
                      "qr": f"/api/host/{table.host}/qr/watch.svg"},
            "away": {"seconds": table.options.get("away"),
                     "bot": table.options["away_bot"]},
            "bots": sorted(BOTS), "over": table.over, "ended": table.ended,
            "campaign": table.options.get("campaign") is not None,
            "outcome": table.result,
            "games": [p._asdict() for p in table.played]}
    return _with_table(own, shared)
