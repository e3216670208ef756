"""The studio's web server, on the stack the web apps share (synergy_forge/web/server.py).

It serves its own four assets (the page, its script, its style and its icon), the campaign's
rendered card faces (by the hash of their HTML) and the state as JSON. A page's event stream
sends the whole state once, then what changed (`Studio.changes`): a save's change at once, the
estimates' progress at most every PACE seconds. No other path exists: a URL is matched against
fixed routes, never joined to a folder.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from synergy_forge.studio.model import Studio, watch
from synergy_forge.web import server as web

ASSETS = web.Assets("synergy_forge.studio", ("studio.js", "studio.css", "index.html"))
CARD = re.compile(r"[0-9a-f]{64}\.png")
#: The estimates' progress reaches a page at most this often (seconds): an estimate redrawn
#: more often is not read, and the page and the server would spend a core on it.
PACE = 0.3
#: How long a stream waits for a change before it looks whether its page is still open.
LOOK = 0.25


def create_app(studio: Studio, hosts: list[str]) -> Starlette:
    async def page(request: Request) -> Response:
        return ASSETS.response("index.html")

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name == "favicon.svg":  # the icon the apps share (web/static)
            return web.ICON.response(name)
        return ASSETS.response(name) if name != "index.html" else web.not_found()

    async def card(request: Request) -> Response:
        name = request.path_params["name"]
        image = studio.image(name[:64]) if CARD.fullmatch(name) else None
        if image is None:
            return web.not_found()
        # A face's name is the hash of its HTML: the same name is always the same image.
        return Response(image, media_type="image/png",
                        headers={"cache-control": "max-age=31536000, immutable"})

    async def state(request: Request) -> Response:
        return JSONResponse(studio.state())

    async def events(request: Request) -> Response:
        return StreamingResponse(_stream(studio, request), media_type="text/event-stream",
                                 headers={"cache-control": "no-cache"})

    return web.create_app([Route("/", page), Route("/static/{name}", asset),
                           Route("/cards/{name}", card), Route("/api/state", state),
                           Route("/events", events), Route("/favicon.ico", web.favicon)], hosts)


async def _stream(studio: Studio, request: Request) -> AsyncIterator[str]:
    """The state once (event `state`), then what changed (event `change`, with the version it
    follows: a page that does not have that version asks for the state again), while the page
    stays open (counted: the estimates grow only while a page is open). A save's change is
    sent at once, with whatever else changed meanwhile; the estimates' progress alone waits
    until PACE seconds after the last event."""
    with studio.lock:
        studio.clients += 1
    try:
        state = studio.state()
        seen, sent = state["version"], time.monotonic()
        yield f"retry: {web.RECONNECT_MS}\nevent: state\ndata: {json.dumps(state)}\n\n"
        quiet = 0.0
        while not studio.stopping.is_set():
            version = await asyncio.to_thread(studio.wait_for_change, seen, LOOK)
            if await request.is_disconnected():
                return
            if version == seen:
                quiet += LOOK
                if quiet >= web.KEEPALIVE:  # said now and then, so a closed page is noticed
                    quiet = 0.0
                    yield ": still here\n\n"
                continue
            wait = sent + PACE - time.monotonic()
            if wait > 0 and studio.urgent <= seen:
                await asyncio.to_thread(studio.wait_for_change, seen, wait, True)
            changes = studio.changes(seen)
            seen, sent, quiet = changes["version"], time.monotonic(), 0.0
            yield f"event: change\ndata: {json.dumps(changes)}\n\n"
    finally:
        with studio.lock:
            studio.clients -= 1


def serve(studio: Studio, sock: socket.socket, on_ready: Callable[[str], None]) -> None:
    """Run until Ctrl-C (or SIGTERM): the watcher and the estimator in threads, uvicorn here."""
    host, port = sock.getsockname()[:2]

    def stop() -> None:
        studio.stopping.set()
        with studio.changed:
            studio.changed.notify_all()

    threads = [threading.Thread(target=watch, args=(studio,), name="studio-watch", daemon=True),
               threading.Thread(target=studio.estimate_forever, name="studio-estimate",
                                daemon=True)]
    on_ready(web.base_url(sock) + "/")
    web.serve(create_app(studio, web.allowed_hosts(host, port)), sock, stop, threads=threads)
