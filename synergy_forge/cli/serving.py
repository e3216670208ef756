"""What the commands that serve a web app (`studio`, `table`) share: the socket, listening
before anything is printed, with a warning when it is open to the network; the browser."""

from __future__ import annotations

import socket

import click


def listening(host: str, port: int, exposes: str) -> socket.socket:
    """The server's socket on `host`:`port` (CannotRun, exit 2, when it cannot), after
    a warning on stderr saying what `exposes` to the network when `host` is not the loopback."""
    from synergy_forge.web.server import LOOPBACK, listen

    if host not in LOOPBACK:
        click.echo(f"warning: listening on {host}: {exposes}", err=True)
    return listen(host, port)


def browse(url: str, no_browser: bool) -> None:
    """Open `url` in the user's browser, unless --no-browser."""
    if not no_browser:
        import webbrowser

        webbrowser.open(url)
