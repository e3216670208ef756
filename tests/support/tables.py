"""Tables served in this process for the table's tests: the real app on a real loopback socket
(uvicorn in a thread), spoken to over HTTP exactly as a page or a community bot would, while
the test can look at the engine behind it; people playing at random through it, and a check
that nothing a page is sent holds another seat's hidden card (`leaks`)."""

from __future__ import annotations

import asyncio
import http.client
import json
import random
import socket
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import uvicorn

from synergy_forge.authoring.definitions import standard_actions
from synergy_forge.core.cards import NumberCard
from synergy_forge.core.engine import Game
from synergy_forge.table.model import GameTable
from synergy_forge.table.server import Tables, create_app
from synergy_forge.table.view import PERSON
from synergy_forge.web.server import allowed_hosts, listen
from synergy_forge.workspace.play import mission_file


def game_table(mission: str, seats: list[str], seed: int = 1, pace: float = 0.0,
               **options: Any) -> GameTable:
    """The browser table of MISSION (a file, or a starter mission's number or id), with who
    sits in each seat (PERSON or a bot), as `table` opens it; `options` go to GameTable (a
    store, the table's options). The referee's round is support.rounds.make_table."""
    found = mission_file(mission, lambda line: None)
    return GameTable(found.mission, found.rulebook, found.colors, len(seats), seed, seats,
                     actions=standard_actions(), pace=pace, **options)


def people(n: int) -> list[str]:
    return [PERSON] * n


class Client:
    """HTTP to one server, one connection per request (as simple as a bot script)."""

    def __init__(self, port: int) -> None:
        self.port = port

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        data = response.read()
        connection.close()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, data

    def polite(self, method: str, path: str, body: bytes | None = None,
               headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        """A request as a well-behaved bot sends it: after a 429, wait as told and again."""
        for _ in range(20):
            status, found, data = self.request(method, path, body, headers)
            if status != 429:
                break
            time.sleep(float(found.get("retry-after", "1")))
        return status, found, data

    def view(self, token: str) -> tuple[int, Any, bytes]:
        status, _, data = self.polite("GET", f"/api/seat/{token}")
        return status, json.loads(data), data

    def get(self, path: str) -> tuple[int, Any]:
        """A JSON resource: its status and data."""
        status, _, data = self.polite("GET", path)
        return status, json.loads(data)

    def post(self, path: str, data: Any) -> tuple[int, Any]:
        """A JSON object posted (a host's control): the status and the answer."""
        status, _, answer = self.polite("POST", path, json.dumps(data).encode(),
                                        {"content-type": "application/json"})
        return status, json.loads(answer)

    def choose(self, token: str, choice: Any) -> tuple[int, Any, bytes]:
        status, _, data = self.polite("POST", f"/api/seat/{token}/choose",
                                      json.dumps({"choice": choice}).encode(),
                                      {"content-type": "application/json"})
        return status, json.loads(data), data


class _Server(uvicorn.Server):
    """Uvicorn as the table serves with it, told to leave by the test: it leaves as soon as it
    is told, not at its main loop's next tick (every 0.1 s), and waits for its connections to
    close by watching them rather than by a fixed 0.1 s sleep. The leave is as clean as
    uvicorn's: no new connection is taken, each open one is closed once its response is sent,
    and the server returns only when every connection and request task has ended. With some
    forty tables served one after the other, uvicorn's own pauses were most of these tests'
    time, spent with a core idle."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = threading.Event()
        self._told: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        self._loop, self._told = asyncio.get_running_loop(), asyncio.Event()
        await super().startup(sockets=sockets)
        self.ready.set()

    async def main_loop(self) -> None:
        # uvicorn's loop (its tick keeps the Date header current), woken when told to leave.
        assert self._told is not None
        counter = 0
        while not await self.on_tick(counter):
            counter = (counter + 1) % 864000
            with suppress(TimeoutError):
                await asyncio.wait_for(self._told.wait(), 0.1)

    def leave(self) -> None:
        """Ask the server to stop (from any thread)."""
        self.should_exit = True
        if self._loop is not None and self._told is not None:
            self._loop.call_soon_threadsafe(self._told.set)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        # uvicorn's shutdown (lifespan is off here), polling what is still open every 5 ms.
        for server in self.servers:
            server.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        while self.server_state.connections or self.server_state.tasks:
            await asyncio.sleep(0.005)
        for server in self.servers:
            await server.wait_closed()


@contextmanager
def serving(*tables: GameTable, idle: float | None = None) -> Iterator[tuple[Client, Tables]]:
    sock = listen("127.0.0.1", 0)
    port = sock.getsockname()[1]
    group = Tables(list(tables), f"http://127.0.0.1:{port}", idle)
    config = uvicorn.Config(create_app(group, allowed_hosts("127.0.0.1", port)),
                            lifespan="off", log_level="warning", access_log=False)
    server = _Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    # Every table's bots' thread, as `table` runs them: the host may hand any seat to a bot.
    bots = [threading.Thread(target=t.run_bots, daemon=True) for t in tables]
    for bot in bots:
        bot.start()
    server.ready.wait(timeout=10)
    try:
        yield Client(port), group
    finally:
        group.stop()
        server.leave()
        thread.join(timeout=10)
        for bot in bots:
            bot.join(timeout=5)
        sock.close()


# -- what a page is sent, and people playing ------------------------------------------------

def cards_in(data: Any) -> list[dict[str, Any]]:
    """Every card object anywhere in a JSON value."""
    found = []
    if isinstance(data, dict):
        if {"kind", "color", "value"} <= set(data) and data["kind"] in ("number", "goal"):
            found.append(data)
        for value in data.values():
            found += cards_in(value)
    elif isinstance(data, list):
        for value in data:
            found += cards_in(value)
    return found


def ever_public(game: Game) -> dict[str, set[tuple[str, Any]]]:
    """Per colour, the (kind, value) of every card that has been face up at some time: laid in
    a round, used by an action, in a discard row, on the table now."""
    seen: dict[str, set[tuple[str, Any]]] = defaultdict(set)

    def number(card: NumberCard | None) -> None:
        if card is not None:
            seen[card.color].add(("number", card.value))

    def uses(actions: Any) -> None:
        for use in actions:
            number(use.replacement)
            for card in use.cards or ():
                number(card)

    for record in game.history:
        for i, play in enumerate(record.table.plays):
            number(play.first)
            number(play.second)
            seen[record.table.colors[i]].add(("goal", play.goal))
        uses(record.table.actions)
    for row in game.discards:
        for card in row:
            kind = "goal" if hasattr(card, "goal") else "number"
            seen[card.color].add((kind, card.goal if kind == "goal" else card.value))
    for card in [*game.firsts, *game.seconds, *game.arrangement().firsts]:
        number(card)
    for goal in game.goals_played:
        if goal is not None:
            seen[goal.color].add(("goal", goal.goal))
    uses(game.actions)
    return seen


def hidden(game: Game, seat: int) -> set[tuple[str, Any]]:
    """Cards of `seat` in its hands or decks no copy of which was ever face up."""
    color = game.colors[seat]
    held = {("number", c.value) for c in (*game.hands[seat], *game.decks[seat])} | \
        {("goal", g.goal) for g in (*game.goal_hands[seat], *game.goal_decks[seat])}
    return held - ever_public(game)[color]


def leaks(game: Game, reader: int, data: Any, text: str) -> list[str]:
    """Another seat's hidden cards found in what `reader` was sent."""
    found = []
    for other in range(game.players):
        if other == reader:
            continue
        secret = hidden(game, other)
        color = game.colors[other]
        for card in cards_in(data):
            if card["color"] == color and (card["kind"], card["value"]) in secret:
                found.append(f"seat {other}'s {card} in seat {reader}'s response")
        for kind, value in secret:
            if kind == "number" and f"{color} {value}" in text:
                found.append(f"'{color} {value}' in seat {reader}'s text")
    return found


def play_randomly(client: Client, table: GameTable, rng: random.Random,
                  check: Any = None, limit: int = 400) -> dict[int, Any]:
    """Every person's seat chooses at random until the game ends; returns each seat's last
    view. `check(seat, data, text)` sees every response."""
    last = {}
    for _ in range(limit):
        version = table.changes.version
        moved = False
        for seat, token in table.tokens.items():
            status, data, raw = client.view(token)
            assert status == 200
            if check:
                check(seat, data, raw.decode())
            last[seat] = data
            if data["legal"]:
                choice = rng.choice(data["legal"])["id"]
                status, data, raw = client.choose(token, choice)
                assert status == 200, data
                if check:
                    check(seat, data, raw.decode())
                last[seat] = data
                moved = True
        if table.game.over and not moved:
            return {seat: client.view(token)[1] for seat, token in table.tokens.items()}
        if not moved:  # the bots' turn: wait for the table to change, as a page waits for
            # its next event (the table's version is what the event stream waits on)
            deadline = time.monotonic() + 30
            while table.changes.version == version:
                assert time.monotonic() < deadline, "the bots did not move"
                time.sleep(0.005)
    raise AssertionError("the game did not end")


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


def played(table: GameTable) -> list[dict]:
    """The table's game played to its end, people taking their first legal choice."""
    while not table.game.over:
        assert first_legal(table)
    assert table.records is not None
    return table.records
