"""Tables served in this process for the table's tests: the real app on a real loopback socket
(uvicorn in a thread), spoken to over HTTP exactly as a page or a community bot would, while
the test can look at the engine behind it."""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import uvicorn

from synergy_forge.authoring.definitions import standard_actions
from synergy_forge.table.model import GameTable
from synergy_forge.table.server import Tables, create_app
from synergy_forge.table.view import PERSON
from synergy_forge.web.server import allowed_hosts, listen
from synergy_forge.workspace.play import mission_file


def game_table(mission: str, seats: list[str], seed: int = 1, pace: float = 0.0) -> GameTable:
    """The browser table of MISSION (a file, or a starter mission's number or id), with who
    sits in each seat (PERSON or a bot). The referee's round is support.rounds.make_table."""
    found = mission_file(mission, lambda line: None)
    return GameTable(found.mission, found.rulebook, found.colors, len(seats), seed, seats,
                     actions=standard_actions(), pace=pace)


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
def serving(*tables: GameTable) -> Iterator[tuple[Client, Tables]]:
    group = Tables(list(tables))
    sock = listen("127.0.0.1", 0)
    port = sock.getsockname()[1]
    config = uvicorn.Config(create_app(group, allowed_hosts("127.0.0.1", port)),
                            lifespan="off", log_level="warning", access_log=False)
    server = _Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    bots = [threading.Thread(target=t.run_bots, daemon=True) for t in tables if t.bots]
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
