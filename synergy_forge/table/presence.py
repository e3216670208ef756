"""Who is at a table: each seat's open pages and when its person was last heard from, who is
away (a bot plays for them past the host's limit), and when anyone last used the table (an
idle table ends). Its caller holds the table's lock around every call."""

from __future__ import annotations

import time
from collections.abc import Iterable


class Presence:
    def __init__(self, seats: int) -> None:
        now = time.monotonic()
        #: per seat, its open pages (event streams) and when it was last heard from
        self.streams = [0] * seats
        self.last_seen = [now] * seats
        self.touched = now  # any request to any of the table's links, any change
        self.away: frozenset[int] = frozenset()

    def connected(self, seat: int) -> bool:
        return self.streams[seat] > 0

    def seen(self, seat: int | None) -> None:
        """A request of one of the table's links (`seat`'s: its person is here)."""
        now = time.monotonic()
        self.touched = now
        if seat is not None:
            self.last_seen[seat] = now

    def back(self, seat: int) -> None:
        """`seat` is its person's again (the host gave it back): not away before the limit."""
        self.last_seen[seat] = time.monotonic()

    def page(self, seat: int, opened: bool) -> bool:
        """A page of `seat` opened (or closed) its event stream; whether the seat's being
        connected changed (its first page opened, or its last closed)."""
        before = self.connected(seat)
        self.streams[seat] += 1 if opened else -1
        self.seen(seat)
        return self.connected(seat) != before

    def check(self, limit: float | None, people: Iterable[int]) -> bool:
        """Who of `people`'s seats is away: no page open, not heard from for longer than
        `limit` seconds (None: nobody ever is). Whether that changed."""
        now = time.monotonic()
        away = frozenset() if limit is None else frozenset(
            seat for seat in people
            if not self.streams[seat] and now - self.last_seen[seat] > limit)
        changed = away != self.away
        self.away = away
        return changed
