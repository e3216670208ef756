"""The table under load: 20 tables of 3 people at once, each person a page with its event
stream open, on one server (issue 20: p95 request latency at most 100 ms on this 2-core machine).

    .venv/bin/python bench/bench_table.py [--tables 20] [--seconds 60] [--think 0.2,1.0]

The server is `synergy-forge table`'s own app and settings (uvicorn, no access log), started in
a subprocess with `--tables × 4` tables of 3 people (mission 22: super card, a challenge, two
action cards) so that a table whose game ends is followed by a fresh one. Each person is what
the seat page does: one event stream open (`/api/seat/TOKEN/events`), and on each view pushed
where it may choose, a pause to think (uniform in --think seconds, far quicker than people),
then `POST …/choose` with a random legal choice and `GET /api/seat/TOKEN` (a refresh), on a
keep-alive connection of its own. Measured: the latency of every request (choose and view),
and how long a change takes to reach the chooser's own event stream; the server's CPU time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MISSION = "22"
GAMES_PER_SLOT = 4


def serve(count: int) -> None:
    """The server: `count` tables of three people; their seats' tokens on stdout, one JSON
    line; then serve until SIGINT/SIGTERM."""
    from synergy_forge.authoring.definitions import standard_actions
    from synergy_forge.table import server
    from synergy_forge.table.model import GameTable
    from synergy_forge.table.view import PERSON
    from synergy_forge.web.server import listen
    from synergy_forge.workspace.play import mission_file

    found = mission_file(MISSION, lambda line: print(line, file=sys.stderr))
    mission, rulebook, colors = found.mission, found.rulebook, found.colors
    tables = [GameTable(mission, rulebook, colors, 3, seed, [PERSON] * 3,
                        actions=standard_actions()) for seed in range(count)]
    sock = listen("127.0.0.1", 0)

    def ready() -> None:
        tokens = [[t.tokens[s] for s in range(3)] for t in tables]
        print(json.dumps({"port": sock.getsockname()[1], "tables": tokens}), flush=True)

    server.serve(server.Tables(tables), sock, ready)


class Connection:
    """One keep-alive HTTP/1.1 connection, as a browser keeps per page."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.used = 0.0

    async def request(self, method: str, path: str, body: bytes = b"") -> tuple[int, bytes]:
        # Uvicorn closes a connection idle for 5 s, as servers do; a browser then opens
        # another (counted in the request's time, as a page would feel it).
        if self.writer is not None and time.perf_counter() - self.used > 4:
            self.close()
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        assert self.reader is not None
        head = f"{method} {path} HTTP/1.1\r\nhost: 127.0.0.1:{self.port}\r\n"
        if body:
            head += f"content-type: application/json\r\ncontent-length: {len(body)}\r\n"
        self.writer.write(head.encode() + b"\r\n" + body)
        await self.writer.drain()
        status = int((await self.reader.readline()).split()[1])
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        data = await self.reader.readexactly(length)
        self.used = time.perf_counter()
        return status, data

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


async def events(port: int, token: str):
    """The views pushed on a seat's event stream (chunked transfer), as they arrive."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET /api/seat/{token}/events HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\n\r\n"
                 .encode())
    await writer.drain()
    while (await reader.readline()) not in (b"\r\n", b""):
        pass
    buffer = b""
    try:
        while True:
            size = int((await reader.readline()).strip() or b"0", 16)
            if size == 0:
                return
            buffer += await reader.readexactly(size)
            await reader.readline()
            while b"\n\n" in buffer:
                message, buffer = buffer.split(b"\n\n", 1)
                for line in message.split(b"\n"):
                    if line.startswith(b"data: "):
                        yield json.loads(line[6:])
    finally:
        writer.close()


class Figures:
    def __init__(self) -> None:
        self.requests: list[float] = []
        self.pushes: list[float] = []
        self.statuses: dict[int, int] = {}
        self.games = 0
        self.choices = 0


async def person(port: int, token: str, think: tuple[float, float], until: float,
                 figures: Figures, rng: random.Random) -> bool:
    """One seat's page until its game ends or time is up; True when the game ended."""
    connection = Connection(port)
    sent: dict[int, float] = {}  # a choice's response version -> when it was sent
    latest: list[dict] = []
    arrived = asyncio.Event()

    async def listen() -> None:
        # Apart from the person's thinking, as a page's event handler: the push's time is
        # its arrival.
        async for view in events(port, token):
            now = time.perf_counter()
            for version in [v for v in sent if v <= view["version"]]:
                figures.pushes.append(now - sent.pop(version))
            latest[:] = [view]
            arrived.set()
            if view["outcome"] is not None:
                return

    listener = asyncio.create_task(listen())
    acted = -1  # the version of our last choice's response: views before it are stale
    try:
        while time.perf_counter() < until:
            await arrived.wait()
            arrived.clear()
            view = latest[0]
            if view["outcome"] is not None:
                return True
            if view["version"] < acted or not view["legal"]:
                continue
            await asyncio.sleep(rng.uniform(*think))
            choice = rng.choice(view["legal"])["id"]
            started = time.perf_counter()
            status, body = await connection.request(
                "POST", f"/api/seat/{token}/choose", json.dumps({"choice": choice}).encode())
            figures.requests.append(time.perf_counter() - started)
            figures.statuses[status] = figures.statuses.get(status, 0) + 1
            if status == 200:
                figures.choices += 1
                answer = json.loads(body)
                acted = answer["version"]
                sent[acted] = started
                if answer["legal"] and latest[0]["version"] <= acted:  # our turn again
                    latest[:] = [answer]
                    arrived.set()
            started = time.perf_counter()
            status, _ = await connection.request("GET", f"/api/seat/{token}")
            figures.requests.append(time.perf_counter() - started)
            figures.statuses[status] = figures.statuses.get(status, 0) + 1
        return False
    finally:
        listener.cancel()
        connection.close()


async def slot(port: int, tables: list[list[str]], think: tuple[float, float], until: float,
               figures: Figures, seed: int) -> None:
    """Three people at one table; when their game ends, the next table."""
    for tokens in tables:
        ended = await asyncio.gather(*(person(port, t, think, until, figures,
                                              random.Random(f"{seed}:{t}")) for t in tokens))
        if not all(ended):
            return
        figures.games += 1


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--think", default="0.2,1.0", help="min,max seconds before a choice")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return
    think = tuple(float(x) for x in args.think.split(","))
    server = subprocess.Popen([sys.executable, __file__, "--serve",
                               str(args.tables * GAMES_PER_SLOT)],
                              stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    started = json.loads(server.stdout.readline())
    port, tokens = started["port"], started["tables"]
    figures = Figures()
    cpu_before, wall = cpu_seconds(server.pid), time.perf_counter()
    clients_before = time.process_time()

    async def everyone() -> None:
        until = time.perf_counter() + args.seconds
        playing = asyncio.gather(*(slot(port, tokens[i::args.tables], think, until, figures, i)
                                   for i in range(args.tables)))
        # Games still on at the end wait for views that will not come: stop them.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(playing, args.seconds + 2)

    try:
        asyncio.run(everyone())
    finally:
        cpu = cpu_seconds(server.pid) - cpu_before
        wall = time.perf_counter() - wall
        clients = time.process_time() - clients_before
        server.terminate()
        server.wait(timeout=20)
    ms = [x * 1000 for x in figures.requests]
    pushes = [x * 1000 for x in figures.pushes]
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f} at the end")
    print(f"{args.tables} tables x 3 people, {wall:.0f} s, think {think[0]}-{think[1]} s, "
          f"mission {MISSION}: {figures.games} games finished, {figures.choices} choices, "
          f"{len(ms)} requests ({len(ms) / wall:.0f}/s), statuses {figures.statuses}")
    print(f"request latency ms: median {statistics.median(ms):.1f}, p95 {percentile(ms, .95):.1f}, "
          f"p99 {percentile(ms, .99):.1f}, max {max(ms):.1f}")
    print(f"choice to own event stream ms: median {statistics.median(pushes):.1f}, "
          f"p95 {percentile(pushes, .95):.1f}")
    print(f"server CPU: {cpu:.1f} s in {wall:.0f} s ({100 * cpu / wall:.0f}% of one core); "
          f"the {3 * args.tables} people's (this process): {clients:.1f} s")
    target = percentile(ms, .95) <= 100
    print(f"target p95 <= 100 ms: {'met' if target else 'MISSED'}")


if __name__ == "__main__":
    main()
