"""A table served with an open-file limit, and clients that hold its connections from other
loopback addresses (tests/web/test_server_limits.py, the fuzz suite's class 13). Every client
is on the loopback, bounded in count and time."""

from __future__ import annotations

import contextlib
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from support import ROOT

LINK = re.compile(r"^seat 0: (http://127\.0\.0\.1:(\d+)/seat/[A-Za-z0-9_-]{32})$")


@contextlib.contextmanager
def table(files: int) -> Iterator[tuple[str, int, subprocess.Popen[str]]]:
    """`synergy-forge table` for one person and two bots, with an open-file limit of `files`
    (as `ulimit -n`): its seat link, port and process."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    folder = tempfile.mkdtemp()  # its own state file: tables of other tests run meanwhile
    process = subprocess.Popen(
        [sys.executable, "-m", "synergy_forge", "table", "1", "--players", "3", "--humans",
         "1", "--port", "0", "--no-browser", "--pace", "0", "--state", str(Path(folder) /
                                                                          "tables.sqlite3")],
        cwd=folder,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=limit,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"})
    try:
        assert process.stdout is not None
        for _ in range(5):
            found = LINK.match(process.stdout.readline().rstrip("\n"))
            if found:
                break
        assert found, "no seat link"
        yield found.group(1), int(found.group(2)), process
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()


def hold(port: int, count: int, source: str) -> list[socket.socket]:
    """`count` idle connections from the loopback address `source` (those the kernel
    completes; the server may close them at once)."""
    held = []
    for _ in range(count):
        sock = socket.socket()
        sock.settimeout(2)
        sock.bind((source, 0))
        with contextlib.suppress(OSError):
            sock.connect(("127.0.0.1", port))
            held.append(sock)
            continue
        sock.close()
    return held


def seat_page(link: str) -> int:
    with urllib.request.urlopen(link, timeout=10) as response:
        return response.status


def stderr_lines(process: subprocess.Popen[str]) -> list[str]:
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    return err.splitlines()
