"""The table's web server, on the stack the web apps share (synergy_forge/web/server.py).

Routes (docs/table.md): the seat page `/seat/TOKEN` and its two assets; the JSON API
`/api/seat/TOKEN` (the seat's view), `/api/seat/TOKEN/choose` (POST a choice),
`/api/seat/TOKEN/events` (the view again after every change, as server-sent events),
`/api/seat/TOKEN/again` (POST: the same mission dealt again, once the game is over); the
page's words, `/api/words`. Nothing else exists, and nothing lists the seats: a seat is
reached only by its secret token.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from synergy_forge.table.model import GameTable, Refused
from synergy_forge.table.words import words
from synergy_forge.web import server as web

ASSETS = web.Assets("synergy_forge.table", ("index.html", "table.js", "table.css"))
#: A choice is a short JSON object; anything longer is refused unread.
MAX_BODY = 1024
#: Requests a second per seat on average, and at once: far above what a page sends (a view
#: after each change, a choice now and then), far below what would slow the other tables.
SEAT_RATE, SEAT_BURST = 20.0, 60.0
#: Requests with a token that is no seat's, per client address: guessing is hopeless anyway
#: (192 random bits), and cheap to refuse.
STRANGER_RATE, STRANGER_BURST = 2.0, 20.0
#: Event streams open at once per seat (a few tabs of one person).
STREAMS_PER_SEAT = 8
NO_STORE = {"cache-control": "no-store"}


class Tables:
    """The tables one server hosts, and their seats by token."""

    def __init__(self, tables: Sequence[GameTable]) -> None:
        self.tables = list(tables)
        self.seats = {token: (table, seat) for table in self.tables
                      for seat, token in table.tokens.items()}
        self.stopping = threading.Event()
        self.seat_rate = web.RateLimit(SEAT_RATE, SEAT_BURST)
        self.stranger_rate = web.RateLimit(STRANGER_RATE, STRANGER_BURST)
        self.streams: dict[str, int] = {}
        self.lock = threading.Lock()

    def stop(self) -> None:
        self.stopping.set()
        for table in self.tables:
            table.stop()


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    return JSONResponse({"error": message}, status_code=status,
                        headers={**NO_STORE, **(headers or {})})


def _json(text: str) -> Response:
    return Response(text, media_type="application/json", headers=NO_STORE)


def create_app(tables: Tables, hosts: list[str]) -> Starlette:
    async def page(request: Request) -> Response:
        found = _seat_of(tables, request)
        if isinstance(found, Response) and found.status_code == 404:  # said to a person
            return PlainTextResponse("No such seat: check the link you were given (the table "
                                     "may also have stopped).", status_code=404)
        return found if isinstance(found, Response) else ASSETS.response("index.html")

    async def events(request: Request, table: GameTable, seat: int) -> Response:
        token = request.path_params["token"]
        if tables.streams.get(token, 0) >= STREAMS_PER_SEAT:
            return _error(429, f"at most {STREAMS_PER_SEAT} open pages per seat")
        return StreamingResponse(_stream(tables, table, seat, token, request),
                                 media_type="text/event-stream",
                                 headers={"cache-control": "no-store"})

    def seat(handler: _SeatHandler) -> Callable[[Request], Awaitable[Response]]:
        return _for_seat(tables, handler)

    return web.create_app([Route("/seat/{token}", page), Route("/static/{name}", _asset),
                           Route("/api/seat/{token}", seat(_view)),
                           Route("/api/seat/{token}/choose", seat(_choose), methods=["POST"]),
                           Route("/api/seat/{token}/again", seat(_again), methods=["POST"]),
                           Route("/api/seat/{token}/events", seat(events)),
                           Route("/api/words", _page_words)], hosts)


def _seat_of(tables: Tables, request: Request) -> tuple[GameTable, int] | Response:
    """The table and seat of the request's token, or the response refusing it: 404 for a
    token that is no seat's, 429 past the rate."""
    token = request.path_params["token"]
    found = tables.seats.get(token)
    if found is None:
        client = request.client.host if request.client else "?"
        if not tables.stranger_rate.allow(client):
            return _error(429, "too many requests", {"retry-after": "1"})
        return _error(404, "no such seat")
    if not tables.seat_rate.allow(token):
        return _error(429, "too many requests: slow down", {"retry-after": "1"})
    return found


#: What one seat's API request does once its seat is known: a response, or None for the
#: seat's view as it is then.
_SeatHandler = Callable[[Request, GameTable, int], Awaitable[Response | None]]


def _for_seat(tables: Tables, handler: _SeatHandler) -> Callable[[Request], Awaitable[Response]]:
    """One seat's API request: refused as `_seat_of` says, a move the table refuses as the
    error it gives, else the handler's response (None: the seat's view as it is now)."""
    async def handle(request: Request) -> Response:
        found = _seat_of(tables, request)
        if isinstance(found, Response):
            return found
        table, seat = found
        try:
            answer = await handler(request, table, seat)
        except Refused as refused:
            return _error(refused.status, refused.message)
        return _json(table.view_json(seat)) if answer is None else answer

    return handle


async def _asset(request: Request) -> Response:
    name = request.path_params["name"]
    return ASSETS.response(name) if name != "index.html" else web.not_found()


async def _page_words(request: Request) -> Response:
    return JSONResponse(words(), headers={"cache-control": "no-cache"})


async def _view(request: Request, table: GameTable, seat: int) -> None:
    return None


async def _choose(request: Request, table: GameTable, seat: int) -> Response | None:
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        return _error(415, 'send the choice as JSON: content-type application/json')
    try:
        body = await web.read_body(request, MAX_BODY)
    except web.TooLarge:
        return _error(413, f"a choice is at most {MAX_BODY} bytes")
    choice = _parse_choice(body)
    if isinstance(choice, Response):
        return choice
    table.choose(seat, choice)
    return None


async def _again(request: Request, table: GameTable, seat: int) -> None:
    table.again()


def _parse_choice(body: bytes) -> str | Response:
    """The choice's id from `{"choice": ID}`, or a 422 saying what is wrong."""
    try:
        data: Any = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return _error(422, 'the body is not JSON; send {"choice": ID}')
    if not isinstance(data, dict) or "choice" not in data:
        return _error(422, 'send {"choice": ID}, ID one of the view\'s legal choices')
    choice = data["choice"]
    if not isinstance(choice, str) or not choice:
        return _error(422, "the choice is the id (a string) of one of the view's legal "
                      "choices")
    return choice


async def _stream(tables: Tables, table: GameTable, seat: int, token: str,
                  request: Request) -> AsyncIterator[str]:
    # Counted once running: a stream whose client left before it started never counts.
    with tables.lock:
        tables.streams[token] = tables.streams.get(token, 0) + 1
    try:
        async for message in web.event_stream(
                request, lambda seen: table.changes.wait(seen, web.KEEPALIVE),
                lambda: table.view_json(seat), tables.stopping.is_set, event="view"):
            yield message
    finally:
        with tables.lock:
            tables.streams[token] -= 1
            if not tables.streams[token]:
                del tables.streams[token]


def serve(tables: Tables, sock: socket.socket, on_ready: Callable[[], None]) -> None:
    """Run until Ctrl-C (or SIGTERM): each table's bots in a thread, uvicorn here."""
    host, port = sock.getsockname()[:2]
    threads = [threading.Thread(target=t.run_bots, name=f"table-bots-{i}", daemon=True)
               for i, t in enumerate(tables.tables) if t.bots]
    on_ready()
    web.serve(create_app(tables, web.allowed_hosts(host, port)), sock, tables.stop, threads=threads)
