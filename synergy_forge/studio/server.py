"""The studio's web server: Starlette on uvicorn, bound to the loopback by default.

It serves its own four assets (the page, its script, its style and its icon), the campaign's
rendered card faces (by the hash of their HTML) and the state as JSON, pushed to the page by
server-sent events. No other path exists: a URL is matched against fixed routes, never joined
to a folder. Every response carries a strict Content-Security-Policy: scripts only from this
server (no inline script), nothing framed.
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import re
import socket
import threading
from collections.abc import AsyncIterator, Callable
from importlib.resources import files
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from synergy_forge.studio.model import Studio, watch

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
       "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
HEADERS = [(b"content-security-policy", CSP.encode()),
           (b"x-content-type-options", b"nosniff"),
           (b"referrer-policy", b"no-referrer"),
           (b"cross-origin-resource-policy", b"same-origin")]
ASSETS = {"studio.js": "text/javascript; charset=utf-8",
          "studio.css": "text/css; charset=utf-8",
          "index.html": "text/html; charset=utf-8",
          "favicon.svg": "image/svg+xml"}
CARD = re.compile(r"[0-9a-f]{64}\.png")
#: How often an idle event stream says it is still there (and notices a closed page).
KEEPALIVE = 10.0


class SecurityHeaders:
    """Adds the headers above to every HTTP response (a plain ASGI middleware, so that the
    event stream is not buffered)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *HEADERS]}
            await send(message)

        await self.app(scope, receive, with_headers)


def _asset(name: str) -> Response:
    data = files("synergy_forge.studio").joinpath("static", name).read_bytes()
    return Response(data, media_type=ASSETS[name], headers={"cache-control": "no-cache"})


def create_app(studio: Studio, hosts: list[str]) -> Starlette:
    async def page(request: Request) -> Response:
        return _asset("index.html")

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        return _asset(name) if name in ASSETS and name != "index.html" else _not_found()

    async def card(request: Request) -> Response:
        name = request.path_params["name"]
        image = studio.image(name[:64]) if CARD.fullmatch(name) else None
        if image is None:
            return _not_found()
        # A face's name is the hash of its HTML: the same name is always the same image.
        return Response(image, media_type="image/png",
                        headers={"cache-control": "max-age=31536000, immutable"})

    async def state(request: Request) -> Response:
        return JSONResponse(studio.state())

    async def events(request: Request) -> Response:
        return StreamingResponse(_stream(studio, request), media_type="text/event-stream",
                                 headers={"cache-control": "no-cache"})

    async def icon(request: Request) -> Response:  # what browsers ask for unprompted
        return _asset("favicon.svg")

    routes = [Route("/", page), Route("/static/{name}", asset), Route("/cards/{name}", card),
              Route("/api/state", state), Route("/events", events),
              Route("/favicon.ico", icon)]
    return Starlette(routes=routes, middleware=[
        Middleware(SecurityHeaders),
        # A page on another site cannot reach this server by a DNS name pointing here.
        Middleware(TrustedHostMiddleware, allowed_hosts=hosts)],
        exception_handlers={404: lambda request, exc: _not_found(),
                            405: lambda request, exc: _not_found()})


def _not_found() -> Response:
    return PlainTextResponse("not found", status_code=404)


async def _stream(studio: Studio, request: Request) -> AsyncIterator[str]:
    """The state once, then again after every change, while the page stays open."""
    with studio.lock:
        studio.clients += 1
    try:
        seen = -1
        while not studio.stopping.is_set():
            version = await asyncio.to_thread(studio.wait_for_change, seen, 0.25)
            if await request.is_disconnected():
                return
            if version != seen:
                seen = version
                yield f"event: state\ndata: {json.dumps(studio.state())}\n\n"
            else:
                yield ": still here\n\n"
    finally:
        with studio.lock:
            studio.clients -= 1


class _Server(uvicorn.Server):
    """Uvicorn, telling the studio to stop first: open event streams then end at once."""

    def __init__(self, config: uvicorn.Config, studio: Studio) -> None:
        super().__init__(config)
        self.studio = studio

    def handle_exit(self, sig: int, frame: Any) -> None:
        self.studio.stopping.set()
        with self.studio.changed:
            self.studio.changed.notify_all()
        super().handle_exit(sig, frame)


def listen(host: str, port: int) -> socket.socket:
    """The server's socket, bound and listening now: a port in use is a clear error, and the
    URL printed works at once."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)  # connections wait in the queue until uvicorn takes over
    except OSError:
        sock.close()
        raise
    return sock


def serve(studio: Studio, sock: socket.socket, on_ready: Callable[[str], None]) -> None:
    """Run until Ctrl-C (or SIGTERM): the watcher and the estimator in threads, uvicorn here."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    # On the loopback, only names of this machine: a page elsewhere cannot reach the studio
    # through a DNS name of its own pointing here. On every interface, the user chose the LAN.
    hosts = ["*"] if host in ("0.0.0.0", "::") else [host, shown, "localhost", "127.0.0.1",
                                                      "[::1]"]
    # The access lines go to stderr with every other message: stdout says only where the
    # studio is and that it stopped.
    log_config = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    log_config["handlers"]["access"]["stream"] = "ext://sys.stderr"
    config = uvicorn.Config(create_app(studio, hosts), log_level="info", access_log=True,
                            lifespan="off", timeout_graceful_shutdown=2, log_config=log_config)
    # One line per request; uvicorn's own start and stop messages would only repeat ours.
    logging.getLogger("uvicorn.error").setLevel(logging.WARNING)
    server = _Server(config, studio)
    threads = [threading.Thread(target=watch, args=(studio,), name="studio-watch", daemon=True),
               threading.Thread(target=studio.estimate_forever, name="studio-estimate",
                                daemon=True)]
    for thread in threads:
        thread.start()
    on_ready(url)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn raises the Ctrl-C again once it has shut down
        pass
    finally:
        studio.stopping.set()
        for thread in threads:
            thread.join(timeout=5)
