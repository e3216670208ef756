"""The table's web server, on the stack the web apps share (synergy_forge/web/server.py).

Routes (docs/table.md), each reached only by a secret token, nothing listing them:
- a seat: its page `/seat/TOKEN`; `/api/seat/TOKEN` (its view), `…/choose` (POST a choice),
  `…/again` (POST: the same mission dealt again, once the game is over), `…/events` (the view
  again after every change, as server-sent events);
- the spectators: their page `/watch/TOKEN`; `/api/watch/TOKEN` and `…/events`;
- the host: the page `/host/TOKEN`; `/api/host/TOKEN` and `…/events`, and the controls, all
  POST: `…/seat/N` (a bot plays the seat, or its person again), `…/away` (the limit after
  which a bot plays for someone away), `…/rematch`, `…/next` (the campaign's next mission),
  `…/end`; each link's QR code, `…/qr/seat-N.svg` and `…/qr/watch.svg`;
- the review of a finished game, `/review/TOKEN` and `/api/review/TOKEN` (any of the table's
  tokens);
- the pages' words, `/api/words`, their scripts and styles, `/static/NAME`, and the icon,
  `/favicon.ico`.
"""

from __future__ import annotations

import io
import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from functools import cache
from html import escape
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route

from synergy_forge.table.model import PERSON, GameTable, Refused
from synergy_forge.table.review import NoReview, review_of
from synergy_forge.table.words import words
from synergy_forge.web import server as web

ASSETS = web.Assets("synergy_forge.table", ("page.js", "table.js", "table.css", "host.js"))
#: The pages, served at their own paths (not under /static/): each is the head and header
#: they share (static/page.html), then its own body; by name, its script and first title.
PAGES = {"index.html": ("table.js", "Synergy table"),
         "host.html": ("host.js", "Synergy table: host")}
#: What the pages are made of, never served as they are.
PAGE_PARTS = web.Assets("synergy_forge.table", ("page.html", *PAGES))
#: A choice or a host's control is a short JSON object; anything longer is refused unread.
MAX_BODY = 1024
#: Requests a second per seat on average, and at once: far above what a page sends (a view
#: after each change, a choice now and then), far below what would slow the other tables.
SEAT_RATE, SEAT_BURST = 20.0, 60.0
#: Requests with a token that is no seat's, per client address: guessing is hopeless anyway
#: (192 random bits), and cheap to refuse.
STRANGER_RATE, STRANGER_BURST = 2.0, 20.0
#: Event streams open at once per seat (a few tabs of one person), and on the spectators'
#: link (one link for everyone watching).
STREAMS_PER_SEAT = 8
STREAMS_PER_WATCH = 32
NO_STORE = {"cache-control": "no-store"}
#: How often tables nobody uses are looked for (seconds).
SWEEP_EVERY = 5.0


class Tables:
    """The tables one server hosts, and their links by token: seats', hosts', spectators'.

    A table ends when its host ends it, or when nobody has used it for `idle` seconds (None:
    never); it is then forgotten here (its memory freed) and `on_empty` is called once no
    table is left. `base` is the address the links are given with (phones on the network
    reach it)."""

    def __init__(self, tables: Sequence[GameTable], base: str = "http://127.0.0.1",
                 idle: float | None = None,
                 on_empty: Callable[[], None] | None = None) -> None:
        self.base = base
        self.idle = idle
        self.on_empty = on_empty
        self.tables: list[GameTable] = []
        self.seats: dict[str, tuple[GameTable, int]] = {}
        self.hosts: dict[str, GameTable] = {}
        self.watchers: dict[str, GameTable] = {}
        self.stopping = threading.Event()
        self.seat_rate = web.RateLimit(SEAT_RATE, SEAT_BURST)
        self.stranger_rate = web.RateLimit(STRANGER_RATE, STRANGER_BURST)
        self.streams: dict[str, int] = {}
        self.lock = threading.Lock()
        for table in tables:
            self.add(table)

    def add(self, table: GameTable) -> None:
        with self.lock:
            self.tables.append(table)
            self.seats.update({token: (table, seat) for seat, token in table.keys.items()})
            self.hosts[table.host] = table
            self.watchers[table.watch] = table

    def remove(self, table: GameTable) -> None:
        """Forget an ended table: its links are no table's any more."""
        with self.lock:
            if table not in self.tables:
                return
            self.tables.remove(table)
            for token in table.keys.values():
                self.seats.pop(token, None)
            self.hosts.pop(table.host, None)
            self.watchers.pop(table.watch, None)
            empty = not self.tables
        table.end()
        if empty and self.on_empty is not None:
            self.on_empty()

    def sweep(self) -> list[GameTable]:
        """End the tables nobody has used for `idle` seconds; returns them."""
        if self.idle is None:
            return []
        now = time.monotonic()
        with self.lock:
            idle = [t for t in self.tables if now - t.touched > self.idle]
        for table in idle:
            self.remove(table)
        return idle

    def run_sweeper(self) -> None:
        """Look for idle tables every SWEEP_EVERY seconds until the server stops (a thread)."""
        while not self.stopping.wait(SWEEP_EVERY):
            self.sweep()

    def stop(self) -> None:
        self.stopping.set()
        for table in list(self.tables):
            table.stop()


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    return JSONResponse({"error": message}, status_code=status,
                        headers={**NO_STORE, **(headers or {})})


def _json(text: str) -> Response:
    return Response(text, media_type="application/json", headers=NO_STORE)


#: What one request does once its table (and seat, for a seat's link) is known: a response,
#: or None for the link's view as it is then.
_Handler = Callable[[Request, GameTable, int | None], Awaitable[Response | None]]


class _Link:
    """One kind of link: where its tokens are, how its view is made, how many pages may
    stream it at once."""

    def __init__(self, tables: Tables, kind: str) -> None:
        self.tables, self.kind = tables, kind
        self.streams = STREAMS_PER_WATCH if kind == "watch" else STREAMS_PER_SEAT

    def find(self, token: str) -> tuple[GameTable, int | None] | None:
        tables = self.tables
        if self.kind == "seat":
            return tables.seats.get(token)
        found = (tables.hosts if self.kind == "host" else tables.watchers).get(token)
        return None if found is None else (found, None)

    def view(self, table: GameTable, seat: int | None) -> str:
        if self.kind == "seat":
            assert seat is not None
            return table.view_json(seat)
        if self.kind == "host":
            return table.host_json(self.tables.base)
        return table.watch_json()

    def of(self, request: Request) -> tuple[GameTable, int | None] | Response:
        """The table and seat of the request's token, or the response refusing it: 404 for a
        token that is no such link, 429 past the rate."""
        tables = self.tables
        token = request.path_params["token"]
        found = self.find(token)
        client = request.client.host if request.client else "?"
        if found is None:
            if not tables.stranger_rate.allow(client):
                return _error(429, "too many requests", {"retry-after": "1"})
            return _error(404, f"no such {self.kind} link")
        # The spectators share one link: each of them has the rate a seat has.
        key = f"{token} {client}" if self.kind == "watch" else token
        if not tables.seat_rate.allow(key):
            return _error(429, "too many requests: slow down", {"retry-after": "1"})
        found[0].seen(found[1])
        return found

    def api(self, handler: _Handler) -> Callable[[Request], Awaitable[Response]]:
        """One API request: refused as `of` says, a move the table refuses as the error it
        gives, else the handler's response (None: the link's view as it is now)."""
        async def handle(request: Request) -> Response:
            found = self.of(request)
            if isinstance(found, Response):
                return found
            table, seat = found
            try:
                answer = await handler(request, table, seat)
            except Refused as refused:
                return _error(refused.status, refused.message)
            return _json(self.view(table, seat)) if answer is None else answer

        return handle

    def page(self, name: str) -> Callable[[Request], Awaitable[Response]]:
        async def page(request: Request) -> Response:
            found = self.of(request)
            if isinstance(found, Response) and found.status_code == 404:  # said to a person
                return PlainTextResponse("No such table link: check the link you were given "
                                         "(the table may also have ended or stopped).",
                                         status_code=404)
            if isinstance(found, Response):
                return found
            return Response(page_html(name), media_type="text/html; charset=utf-8",
                            headers={"cache-control": "no-cache"})

        return page

    async def events(self, request: Request, table: GameTable, seat: int | None) -> Response:
        token = request.path_params["token"]
        if self.tables.streams.get(token, 0) >= self.streams:
            return _error(429, f"at most {self.streams} open pages per link")
        return StreamingResponse(self._stream(table, seat, token, request),
                                 media_type="text/event-stream",
                                 headers={"cache-control": "no-store"})

    async def _stream(self, table: GameTable, seat: int | None, token: str,
                      request: Request) -> AsyncIterator[str]:
        tables = self.tables
        # Counted once running: a stream whose client left before it started never counts.
        with tables.lock:
            tables.streams[token] = tables.streams.get(token, 0) + 1
        if seat is not None:
            table.connect(seat, True)
        try:
            async for message in web.event_stream(
                    request, lambda seen: table.changes.wait(seen, web.KEEPALIVE),
                    lambda: self.view(table, seat),
                    lambda: tables.stopping.is_set() or table.ended, event="view"):
                yield message
        finally:
            with tables.lock:
                tables.streams[token] -= 1
                if not tables.streams[token]:
                    del tables.streams[token]
            if seat is not None:
                table.connect(seat, False)


def create_app(tables: Tables, hosts: list[str]) -> Starlette:
    seat, watch, host = (_Link(tables, kind) for kind in ("seat", "watch", "host"))

    async def view(request: Request, table: GameTable, seat: int | None) -> None:
        return None

    async def end(request: Request, table: GameTable, seat: int | None) -> Response:
        tables.remove(table)
        return JSONResponse({"ended": True}, headers=NO_STORE)

    async def qr(request: Request, table: GameTable, seat: int | None) -> Response:
        name = request.path_params["name"]
        if name == "watch.svg":
            link = f"{tables.base}/watch/{table.watch}"
        elif name.startswith("seat-") and name.endswith(".svg") and \
                name[5:-4].isdigit() and int(name[5:-4]) in table.keys:
            link = f"{tables.base}/seat/{table.keys[int(name[5:-4])]}"
        else:
            return web.not_found()
        return Response(_qr_svg(link), media_type="image/svg+xml", headers=NO_STORE)

    routes = [
        Route("/seat/{token}", seat.page("index.html")),
        Route("/watch/{token}", watch.page("index.html")),
        Route("/host/{token}", host.page("host.html")),
        Route("/static/{name}", _asset),
        Route("/api/words", _page_words),
        Route("/favicon.ico", web.favicon),
        Route("/api/seat/{token}", seat.api(view)),
        Route("/api/seat/{token}/choose", seat.api(_choose), methods=["POST"]),
        Route("/api/seat/{token}/again", seat.api(_again), methods=["POST"]),
        Route("/api/seat/{token}/events", seat.api(seat.events)),
        Route("/api/watch/{token}", watch.api(view)),
        Route("/api/watch/{token}/events", watch.api(watch.events)),
        Route("/api/host/{token}", host.api(view)),
        Route("/api/host/{token}/events", host.api(host.events)),
        Route("/api/host/{token}/seat/{seat:int}", host.api(_hand_over), methods=["POST"]),
        Route("/api/host/{token}/away", host.api(_away), methods=["POST"]),
        Route("/api/host/{token}/rematch", host.api(_rematch), methods=["POST"]),
        Route("/api/host/{token}/next", host.api(_next), methods=["POST"]),
        Route("/api/host/{token}/end", host.api(end), methods=["POST"]),
        Route("/api/host/{token}/qr/{name}", host.api(qr)),
        Route("/review/{token}", _review_page(tables)),
        Route("/api/review/{token}", _review_api(tables)),
    ]
    return web.create_app(routes, hosts)


@cache
def page_html(name: str) -> bytes:
    """The page `name` of PAGES: the shared head (its script, its title) and its body."""
    script, title = PAGES[name]
    head = PAGE_PARTS.read("page.html").replace(b"{script}", script.encode())
    return head.replace(b"{title}", title.encode()) + PAGE_PARTS.read(name)


async def _asset(request: Request) -> Response:
    name = request.path_params["name"]
    if name == "review.css":  # the review page's style is reporting's, as `replay` writes it
        from synergy_forge.reporting.review import STYLE

        return Response(STYLE, media_type="text/css", headers={"cache-control": "no-cache"})
    return ASSETS.response(name)


def _language(request: Request) -> str:
    """The page's language: `?lang=`, else the browser's first, else English."""
    asked = request.query_params.get("lang") or \
        request.headers.get("accept-language", "en").split(",")[0].split("-")[0]
    return "fr" if asked.strip().lower() == "fr" else "en"


def _review_api(tables: Tables) -> Callable[[Request], Awaitable[Response]]:
    """`GET /api/review/TOKEN` (any of a table's links): the last finished game's review, or
    how far it is (docs/table.md, "The review")."""
    async def handle(request: Request) -> Response:
        found = _any_link(tables, request)
        if isinstance(found, Response):
            return found
        try:
            job = review_of(found)
        except NoReview as exc:
            return _error(409, str(exc))
        if job.error is not None:
            return _error(500, f"the review failed: {job.error}")
        if job.result is None:
            return JSONResponse({"ready": False, "game": job.number, "done": job.done,
                                 "total": job.total}, headers=NO_STORE)
        from synergy_forge.reporting.review import review_to_json

        return JSONResponse({"ready": True, "game": job.number, "seconds": job.seconds,
                             **review_to_json(job.result)}, headers=NO_STORE)

    return handle


def _review_page(tables: Tables) -> Callable[[Request], Awaitable[Response]]:
    """`/review/TOKEN`: the review as a page (reporting's, as `replay --review --format
    html` writes it), which reloads itself until the review is made."""
    async def handle(request: Request) -> Response:
        found = _any_link(tables, request)
        if isinstance(found, Response):
            return PlainTextResponse("No such table link, or the table has ended.",
                                     status_code=found.status_code)
        language = _language(request)
        served = words()[language]  # the words the table serves (/api/words)
        try:
            job = review_of(found)
        except NoReview as exc:
            return PlainTextResponse(str(exc), status_code=409)
        campaign = found.campaign_name
        if job.result is None:
            said = _reviewing(language, job.done, job.total, job.error)
            title = campaign.get(language) or campaign.get("en") or "Synergy"
            return HTMLResponse(
                f'<!doctype html><html lang="{language}"><head><meta charset="utf-8">'
                '<meta name="viewport" content="width=device-width, initial-scale=1">'
                f'{"" if job.error else "<meta http-equiv=refresh content=2>"}'
                f'{ICON_LINK}<link rel="stylesheet" href="/static/review.css">'
                f"<title>{escape(title)}</title></head><body><main>"
                f"<p role=status>{escape(said)}</p></main></body></html>",
                headers=NO_STORE)
        from synergy_forge.reporting.review import html

        return HTMLResponse(html(job.result, language, "/static/review.css", campaign=campaign,
                                 icon="/favicon.ico", words=served["review-page"],
                                 actions=job.actions).text,
                            headers=NO_STORE)

    return handle


#: The pages' icon, as the seat and host pages link it (static/page.html).
ICON_LINK = '<link rel="icon" href="/favicon.ico" type="image/svg+xml">'


def _reviewing(language: str, done: int, total: int, error: str | None) -> str:
    """How far the review is, or why it failed, in the page's language."""
    from synergy_forge.cardtext.i18n import Translator

    translator = Translator(language)
    if error is not None:
        return translator.gettext("The review failed: {error}").format(error=error)
    return translator.ngettext("Reviewing the game: {done} of {total} decision…",
                               "Reviewing the game: {done} of {total} decisions…",
                               total).format(done=done, total=total)


def _any_link(tables: Tables, request: Request) -> GameTable | Response:
    """The table of any of its links' tokens (a seat's, the host's, the spectators'), or the
    response refusing it (404; 429 past the rate)."""
    token = request.path_params["token"]
    client = request.client.host if request.client else "?"
    with tables.lock:
        seat = tables.seats.get(token)
        table = seat[0] if seat is not None else \
            tables.hosts.get(token) or tables.watchers.get(token)
    if table is None:
        if not tables.stranger_rate.allow(client):
            return _error(429, "too many requests", {"retry-after": "1"})
        return _error(404, "no such table link")
    if not tables.seat_rate.allow(f"{token} {client}"):
        return _error(429, "too many requests: slow down", {"retry-after": "1"})
    return table


async def _page_words(request: Request) -> Response:
    return JSONResponse(words(), headers={"cache-control": "no-cache"})


def _qr_svg(link: str) -> bytes:
    """The link as a QR code, an SVG drawn here (no service elsewhere sees the link)."""
    import segno

    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="svg", scale=4, border=2, xmldecl=False)
    return out.getvalue()


async def _body(request: Request) -> dict[str, Any] | Response:
    """The request's JSON object, or the response refusing it (415, 413, 422)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        return _error(415, "send JSON: content-type application/json")
    try:
        body = await web.read_body(request, MAX_BODY)
    except web.TooLarge:
        return _error(413, f"a request is at most {MAX_BODY} bytes")
    try:
        data: Any = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return _error(422, "the body is not JSON")
    if not isinstance(data, dict):
        return _error(422, "the body is a JSON object")
    return data


async def _choose(request: Request, table: GameTable, seat: int | None) -> Response | None:
    data = await _body(request)
    if isinstance(data, Response):
        if data.status_code == 422:
            return _error(422, 'send {"choice": ID}, ID one of the view\'s legal choices')
        return data
    choice = data.get("choice")
    if not isinstance(choice, str) or not choice:
        return _error(422, "the choice is the id (a string) of one of the view's legal "
                      'choices: send {"choice": ID}')
    assert seat is not None
    table.choose(seat, choice)
    return None


async def _again(request: Request, table: GameTable, seat: int | None) -> None:
    table.again()


async def _hand_over(request: Request, table: GameTable, seat: int | None) -> Response | None:
    data = await _body(request)
    if isinstance(data, Response):
        return data
    bot = data.get("bot")
    if set(data) != {"bot"} or (bot is not None and not isinstance(bot, str)):
        return _error(422, 'send {"bot": NAME} to hand the seat to a bot, {"bot": null} to '
                      "give it back to its person")
    table.set_player(request.path_params["seat"], PERSON if bot is None else bot)
    return None


async def _away(request: Request, table: GameTable, seat: int | None) -> Response | None:
    data = await _body(request)
    if isinstance(data, Response):
        return data
    seconds, bot = data.get("seconds", "missing"), data.get("bot")
    if not set(data) <= {"seconds", "bot"} or (seconds is not None and (
            isinstance(seconds, bool) or not isinstance(seconds, int | float) or
            not 0 <= seconds <= 86400)) or (bot is not None and not isinstance(bot, str)):
        return _error(422, 'send {"seconds": S} (0 to 86400; null: never) and, if you like, '
                      '"bot": NAME')
    table.set_away(None if seconds is None else float(seconds), bot)
    return None


async def _rematch(request: Request, table: GameTable, seat: int | None) -> Response | None:
    data = await _body(request)
    if isinstance(data, Response):
        return data
    if set(data) != {"deal"} or data["deal"] not in ("same", "new"):
        return _error(422, 'send {"deal": "same"} (the same cards again) or {"deal": "new"}')
    table.rematch(data["deal"])
    return None


async def _next(request: Request, table: GameTable, seat: int | None) -> None:
    table.next_mission()


def serve(tables: Tables, sock: socket.socket, on_ready: Callable[[], None]) -> None:
    """Run until Ctrl-C (or SIGTERM), or until the last table has ended: each table's bots in
    a thread, the idle tables' sweeper in another, uvicorn here."""
    host, port = sock.getsockname()[:2]
    done = threading.Event()
    tables.on_empty = done.set
    threads = [threading.Thread(target=t.run_bots, name=f"table-bots-{i}", daemon=True)
               for i, t in enumerate(tables.tables)]
    threads.append(threading.Thread(target=tables.run_sweeper, name="idle-tables",
                                    daemon=True))
    on_ready()
    web.serve(create_app(tables, web.allowed_hosts(host, port)), sock, tables.stop,
              threads=threads, until=done)
