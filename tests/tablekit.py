"""Tables served in this process for the table's tests: the real app on a real loopback socket
(uvicorn in a thread), spoken to over HTTP exactly as a page or a community bot would, while
the test can look at the engine behind it."""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from synergy_forge.authoring.definitions import standard_actions
from synergy_forge.cli.inputs import resolve_mission
from synergy_forge.table.model import GameTable
from synergy_forge.table.server import Tables, create_app
from synergy_forge.table.view import PERSON
from synergy_forge.web.server import allowed_hosts, listen


def make_table(mission: str, seats: list[str], seed: int = 1, pace: float = 0.0) -> GameTable:
    loaded, rulebook, colors = resolve_mission(mission)
    return GameTable(loaded, rulebook, colors, len(seats), seed, seats,
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


@contextmanager
def serving(*tables: GameTable) -> Iterator[tuple[Client, Tables]]:
    group = Tables(list(tables))
    sock = listen("127.0.0.1", 0)
    port = sock.getsockname()[1]
    config = uvicorn.Config(create_app(group, allowed_hosts("127.0.0.1", port)),
                            lifespan="off", log_level="warning", access_log=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    bots = [threading.Thread(target=t.run_bots, daemon=True) for t in tables if t.bots]
    for bot in bots:
        bot.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    try:
        yield Client(port), group
    finally:
        group.stop()
        server.should_exit = True
        thread.join(timeout=10)
        for bot in bots:
            bot.join(timeout=5)
        sock.close()
