"""The server stack of the web apps: Starlette on uvicorn, bound to the loopback by default.

An app serves a fixed list of files from its package's `static/` folder and its own routes; no
URL is ever joined to a folder. Every response carries a strict Content-Security-Policy
(scripts only from this server, no inline script, nothing framed) and the Host header is
checked, so that a page elsewhere cannot reach the server through a DNS name pointing here.
Changes reach open pages as server-sent events.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import socket
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from importlib.resources import files
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute

from synergy_forge.errors import CannotRun

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
       "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
HEADERS = [(b"content-security-policy", CSP.encode()),
           (b"x-content-type-options", b"nosniff"),
           (b"referrer-policy", b"no-referrer"),
           (b"cross-origin-resource-policy", b"same-origin")]
MEDIA_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
               ".html": "text/html; charset=utf-8", ".svg": "image/svg+xml"}
#: How often an idle event stream says it is still there (and notices a closed page).
KEEPALIVE = 10.0
#: The addresses that mean "this machine only".
LOOPBACK = ("127.0.0.1", "localhost", "::1")


class SecurityHeaders:
    """Adds the headers above to every HTTP response (a plain ASGI middleware, so that an
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


def not_found() -> Response:
    return PlainTextResponse("not found", status_code=404)


class Assets:
    """The files of one package's `static/` folder that may be served, by name."""

    def __init__(self, package: str, names: Iterable[str]) -> None:
        self.package = package
        self.names = frozenset(names)

    def read(self, name: str) -> bytes:
        """The file `name` of the list (KeyError for another)."""
        if name not in self.names:
            raise KeyError(name)
        return files(self.package).joinpath("static", name).read_bytes()

    def response(self, name: str) -> Response:
        """The file `name` if it is one of the list, else 404."""
        if name not in self.names:
            return not_found()
        data = self.read(name)
        media = MEDIA_TYPES[name[name.rindex("."):]]
        return Response(data, media_type=media, headers={"cache-control": "no-cache"})


#: The apps' icon (the table's and the studio's), at /favicon.ico, where browsers ask for it
#: unprompted on every page.
ICON = Assets("synergy_forge.web", ("favicon.svg",))


async def favicon(request: Any) -> Response:
    return ICON.response("favicon.svg")


def allowed_hosts(host: str, port: int) -> list[str]:
    """The Host headers the server answers: on the loopback, only names of this machine (a
    page elsewhere cannot reach it through a DNS name of its own pointing here); on every
    interface, the user chose the network."""
    if host in ("0.0.0.0", "::"):
        return ["*"]
    shown = f"[{host}]" if ":" in host else host
    return [host, shown, "localhost", "127.0.0.1", "[::1]"]


def create_app(routes: Sequence[BaseRoute], hosts: list[str]) -> Starlette:
    """A Starlette app of `routes` with the security headers and the Host check; any other
    path or method is a plain 404."""
    return Starlette(routes=list(routes), middleware=[
        Middleware(SecurityHeaders),
        Middleware(TrustedHostMiddleware, allowed_hosts=hosts)],
        exception_handlers={404: lambda request, exc: not_found(),
                            405: lambda request, exc: not_found()})


class Changes:
    """A version number that grows with every change, bumped from any thread, which event
    streams wait on without a thread each (hundreds of open pages cost nothing while idle)."""

    def __init__(self) -> None:
        self.version = 0
        self.closed = False
        self._lock = threading.Lock()
        self._waiters: dict[asyncio.Future[None], asyncio.AbstractEventLoop] = {}

    def publish(self) -> None:
        with self._lock:
            self.version += 1
            waiters, self._waiters = self._waiters, {}
        for future, loop in waiters.items():
            loop.call_soon_threadsafe(_wake, future)

    def close(self) -> None:
        """Wake every waiter for good: the server is stopping."""
        self.closed = True
        self.publish()

    async def wait(self, seen: int, timeout: float) -> int:
        """The version once it is not `seen`, or after `timeout` seconds."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if self.version != seen or self.closed:
                return self.version
            future: asyncio.Future[None] = loop.create_future()
            self._waiters[future] = loop
        try:
            await asyncio.wait_for(future, timeout)
        except TimeoutError:
            pass
        finally:
            with self._lock:
                self._waiters.pop(future, None)
        return self.version


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


#: How long a page waits before it opens its event stream again once it is lost (a network
#: gone, the server restarted): browsers wait 3 s by default, and a player whose network came
#: back waited that long to see the table again. Each try is one small request.
RECONNECT_MS = 1000


async def event_stream(request: Request, wait: Callable[[int], Awaitable[int]],
                       render: Callable[[], str], stopped: Callable[[], bool],
                       event: str = "state") -> AsyncIterator[str]:
    """Server-sent events: `render()` once, then again after every change `wait` reports,
    while the page stays open; a comment when nothing changed, so a closed page is noticed.
    The first event sets the page's reconnection delay (RECONNECT_MS)."""
    seen = -1
    retry = f"retry: {RECONNECT_MS}\n"
    while not stopped():
        version = await wait(seen)
        if await request.is_disconnected():
            return
        if version != seen:
            seen = version
            yield f"{retry}event: {event}\ndata: {render()}\n\n"
            retry = ""
        else:
            yield ": still here\n\n"


class RateLimit:
    """A token bucket per key (a seat, a client address): `rate` requests a second on
    average, `burst` at once. Keys unseen for a minute are forgotten, so memory stays
    bounded by the clients of the last minute."""

    #: The clock the buckets fill by (a test stops it: no request then waits on the time
    #: others took).
    clock = staticmethod(time.monotonic)

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()
        self._swept = self.clock()

    def allow(self, key: str) -> bool:
        now = self.clock()
        with self._lock:
            if now - self._swept > 60:
                self._buckets = {k: v for k, v in self._buckets.items() if now - v[1] < 60}
                self._swept = now
            level, then = self._buckets.get(key, (self.burst, now))
            level = min(self.burst, level + (now - then) * self.rate)
            if level < 1:
                self._buckets[key] = (level, now)
                return False
            self._buckets[key] = (level - 1, now)
            return True


class TooLarge(Exception):
    """A request body over the limit."""


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body, refused (TooLarge) as soon as it passes `limit` bytes: a client
    cannot make the server hold more, whatever its Content-Length says."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        raise TooLarge
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise TooLarge
    return bytes(body)


def listen(host: str, port: int) -> socket.socket:
    """The server's socket, bound and listening now, so that the URL printed works at once.
    A port in use or an address this machine does not have is CannotRun (exit 2), one
    line naming the address, for every command that serves."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(512)  # connections wait in the queue until uvicorn takes over
    except OSError as exc:
        sock.close()
        raise CannotRun(f"cannot listen on {host}:{port}: {exc.strerror or exc}") \
            from None
    return sock


def base_url(sock: socket.socket) -> str:
    """http://HOST:PORT of a listening socket (IPv6 addresses in brackets)."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def public_base(sock: socket.socket, host: str) -> str:
    """http://HOST:PORT as others reach it: on every interface, this machine's address on
    the network rather than 0.0.0.0."""
    base = base_url(sock)
    if host not in ("0.0.0.0", "::"):
        return base
    port = sock.getsockname()[1]
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the interface
        address = probe.getsockname()[0]
    except OSError:
        address = socket.gethostname()
    finally:
        probe.close()
    return f"http://{address}:{port}"


#: How long a connection may take to send a request's headers (from its opening, or from the
#: end of its previous response) before it is closed: an idle or trickling connection holds
#: a descriptor and must not hold it for ever.
HEADER_TIMEOUT = 10.0
#: Connections taken from the listening queue at once (uvicorn's `backlog`, which asyncio's
#: accept loop also takes at a time): a connection refused is closed a few turns of the loop
#: later, so a flood holds some bursts of descriptors more for a moment.
ACCEPT_BURST = 32
#: Descriptors kept free for everything else the server opens (files, the table's state,
#: the watcher, threads), and for the accept bursts in flight.
SPARE_DESCRIPTORS = 64 + 3 * ACCEPT_BURST
#: At most this many open connections from one address (and at most half of all): one client
#: cannot take every connection the server can hold. The bench's 20 tables of 3 pages, each
#: with its event stream and a keep-alive connection, are 120 from the loopback.
PER_ADDRESS = 256


class Guard:
    """Who holds the server's connections: at most `most` open in all, below the open-file
    limit, and `per_address` from one address; a connection past either is closed as it
    opens, without a word (no line per refused connection)."""

    def __init__(self, most: int | None = None, per_address: int | None = None) -> None:
        self.most = most if most is not None else _connections_possible()
        self.per_address = per_address if per_address is not None else \
            max(4, min(PER_ADDRESS, self.most // 2))
        self.open: dict[str, int] = {}
        self.total = 0

    def admit(self, address: str) -> bool:
        """Count a new connection from `address`, or False when it may not be held."""
        if self.total >= self.most or self.open.get(address, 0) >= self.per_address:
            return False
        self.open[address] = self.open.get(address, 0) + 1
        self.total += 1
        return True

    def leave(self, address: str) -> None:
        self.total -= 1
        self.open[address] -= 1
        if not self.open[address]:
            del self.open[address]


def _connections_possible() -> int:
    """The connections this process can hold: its open-file limit, less the descriptors open
    now and SPARE_DESCRIPTORS."""
    import os
    import resource

    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY:
        soft = 65536
    try:
        open_now = len(os.listdir("/proc/self/fd"))
    except OSError:
        open_now = 32
    return max(8, soft - open_now - SPARE_DESCRIPTORS)


def guarded_protocol(guard: Guard, header_timeout: float = HEADER_TIMEOUT) -> type:
    """Uvicorn's HTTP/1.1 protocol, each connection counted by `guard` and closed when it
    sends no whole request head within `header_timeout` seconds of opening or of its last
    response (uvicorn closes an idle kept-alive one sooner, but never one that never asks)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class Guarded(H11Protocol):
        _address: str | None = None
        _waiting: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            peer = transport.get_extra_info("peername")
            address = str(peer[0]) if isinstance(peer, tuple) and peer else "?"
            if not guard.admit(address):
                transport.abort()
                return
            self._address = address
            super().connection_made(transport)
            self._wait_for_head()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._address is None:  # never admitted
                return
            guard.leave(self._address)
            self._address = None
            self._stop_waiting()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.cycle is None or self.cycle.response_complete:
                if self._waiting is None:
                    self._wait_for_head()
            else:
                self._stop_waiting()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._stop_waiting()  # uvicorn's keep-alive timeout runs now, until more data

        def _wait_for_head(self) -> None:
            self._waiting = self.loop.call_later(header_timeout, self._too_slow)

        def _stop_waiting(self) -> None:
            if self._waiting is not None:
                self._waiting.cancel()
                self._waiting = None

        def _too_slow(self) -> None:
            self._waiting = None
            if self.cycle is None or self.cycle.response_complete:
                self.transport.close()

    return Guarded


#: The errors of accept() that mean the process is out of descriptors or memory for now.
_EXHAUSTED = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)
#: How often running out of descriptors is said again while it lasts.
EXHAUSTED_NOTE_EVERY = 60.0


class _Exhaustion:
    """The event loop's handler of errors no one awaits: running out of descriptors (accept()
    fails; asyncio tries again a second later) is one line on stderr, once a minute at most,
    instead of a traceback per try; anything else as asyncio says it."""

    def __init__(self) -> None:
        self.said = -EXHAUSTED_NOTE_EVERY

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if isinstance(exc, OSError) and exc.errno in _EXHAUSTED:
            now = time.monotonic()
            if now - self.said >= EXHAUSTED_NOTE_EVERY:
                self.said = now
                print(f"warning: out of file descriptors ({exc.strerror}): new connections "
                      "wait until some close; `ulimit -n` raises the limit", file=sys.stderr,
                      flush=True)
            return
        loop.default_exception_handler(context)


class _Server(uvicorn.Server):
    """Uvicorn, running `on_exit` first when asked to stop: open event streams end at once."""

    def __init__(self, config: uvicorn.Config, on_exit: Callable[[], None]) -> None:
        super().__init__(config)
        self.on_exit = on_exit

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        asyncio.get_running_loop().set_exception_handler(_Exhaustion())
        await super().serve(sockets)

    def handle_exit(self, sig: int, frame: Any) -> None:
        # A signal handler runs in the main thread between two of its bytecodes, perhaps while
        # it holds the lock `on_exit` takes (a page's state being drawn): called here, it would
        # wait for that lock for ever. So it runs in a thread of its own.
        threading.Thread(target=self.on_exit, name="stopping", daemon=True).start()
        super().handle_exit(sig, frame)


def _per_request(record: logging.LogRecord) -> bool:
    """Uvicorn's warnings about one client's request (a malformed one, an upgrade asked for):
    a client could make the server write one per request; none is the user's concern."""
    return not record.getMessage().startswith(("Invalid HTTP request", "Unsupported upgrade",
                                               "No supported WebSocket", "Exceeded concurrency"))


def serve(app: Starlette, sock: socket.socket, on_exit: Callable[[], None], *,
          threads: Sequence[threading.Thread] = (),
          options: Mapping[str, Any] | None = None,
          until: threading.Event | None = None) -> None:
    """Run `app` on `sock` until Ctrl-C (or SIGTERM), or until `until` is set, with `threads`
    started first and joined after; `on_exit` runs when the stop is asked for and again at
    the end."""
    # No line per request: a page asks often (the studio's card images, a seat's view, whose
    # token is in its path), and the lines buried what the command says. Uvicorn's own start
    # and stop messages would only repeat ours: its warnings and errors only.
    # Connections are capped per address and in all (Guard) and closed when they send no
    # request (guarded_protocol): no client can starve the others, nor run the process out of
    # descriptors.
    config = uvicorn.Config(app, log_level="info", access_log=False, lifespan="off",
                            timeout_graceful_shutdown=2, http=guarded_protocol(Guard()),
                            backlog=ACCEPT_BURST,
                            **(options or {}))
    logging.getLogger("uvicorn.error").setLevel(logging.WARNING)
    logging.getLogger("uvicorn.error").addFilter(_per_request)
    server = _Server(config, on_exit)
    threads = list(threads)
    if until is not None:
        def leave() -> None:
            until.wait()
            on_exit()
            server.should_exit = True  # uvicorn's main loop sees it within 0.1 s

        threads.append(threading.Thread(target=leave, name="until", daemon=True))
    for thread in threads:
        thread.start()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn raises the Ctrl-C again once it has shut down
        pass
    finally:
        on_exit()
        if until is not None:
            until.set()
        for thread in threads:
            thread.join(timeout=5)
