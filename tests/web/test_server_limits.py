"""Servers that no client can starve (the table's and the studio's, web.server): connections
capped per address and in all below the open-file limit, a connection that sends no request
closed after web.server.HEADER_TIMEOUT, running out of descriptors one line on stderr, and no
line per refused connection or request. Every client here is on the loopback (127.0.0.0/8),
bounded in count and time."""

from __future__ import annotations

import resource
import time

import pytest
from support.web_limits import hold, seat_page, stderr_lines, table

from synergy_forge.web.server import HEADER_TIMEOUT, Guard


def test_one_client_holding_idle_connections_locks_no_seat_out_and_writes_one_line():
    """At `ulimit -n 256`, 400 idle connections from one address: the seat's page answers
    at once meanwhile (it was 503, or no answer, for as long as they were held), and stderr
    holds one line at most about descriptors, no traceback, no line per connection."""
    with table(256) as (link, port, process):
        held = hold(port, 400, "127.0.0.2")
        try:
            started = time.monotonic()
            assert seat_page(link) == 200
            assert time.monotonic() - started < 5
        finally:
            for sock in held:
                sock.close()
        assert seat_page(link) == 200
        lines = stderr_lines(process)
    assert not any("Traceback" in line or "Exceeded" in line for line in lines), lines[:10]
    assert len(lines) <= 3, lines[:10]  # the campaign it uses, and the descriptors' warning


@pytest.mark.slow  # waits for the header timeout
def test_a_connection_that_sends_no_request_is_closed():
    """Nothing sent, or half a request's head: closed after HEADER_TIMEOUT seconds, so that
    an idle client holds no descriptor for ever."""
    with table(1024) as (link, port, _):
        silent = hold(port, 1, "127.0.0.3")[0]
        half = hold(port, 1, "127.0.0.3")[0]
        half.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        for sock in (silent, half):
            sock.settimeout(HEADER_TIMEOUT + 10)
            started = time.monotonic()
            assert sock.recv(100) == b""  # closed by the server
            assert time.monotonic() - started < HEADER_TIMEOUT + 5
            sock.close()
        assert seat_page(link) == 200


def test_an_address_holds_at_most_its_share():
    guard = Guard(most=10, per_address=4)
    assert [guard.admit("a") for _ in range(5)] == [True] * 4 + [False]
    assert all(guard.admit("b") for _ in range(4))
    assert [guard.admit("c") for _ in range(3)] == [True, True, False]  # 10 in all
    guard.leave("a")
    assert guard.admit("a") and not guard.admit("d")
    assert Guard(most=100).per_address == 50


def test_the_limit_follows_the_open_file_limit():
    """Below `ulimit -n`, with descriptors to spare: the server never runs out by holding
    connections."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert Guard().most < soft
