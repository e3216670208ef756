"""A table's review of its last finished game (reporting.review, sim.review), made in a thread
of its own once someone asks for it, one review at a time per server. Not on worker processes:
a server stopped (Ctrl-C, the last table ended) would wait for them at its exit, where a
thread of its own simply ends with it."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from synergy_forge.table.model import GameTable

#: Rollouts per chance of a game's review (a table's `review_rollouts` option, `table
#: --review-rollouts`).
REVIEW_ROLLOUTS = 100
#: One review at a time per server: each takes every core it is given.
_REVIEWING = threading.Lock()


class NoReview(Exception):
    """No review to give: no game has ended yet, or reviews are off (the message says)."""


class Reviewing:
    """The review of a table's finished game: how far it is, its result (a GameReview), or
    why it failed, and how long it took."""

    def __init__(self, number: int, records: list[dict[str, Any]], rollouts: int) -> None:
        self.number, self.records, self.rollouts = number, records, rollouts
        self.done, self.total = 0, len([r for r in records if r.get("type") == "decision"])
        self.result: Any = None
        self.error: str | None = None
        self.seconds: float | None = None

    def start(self) -> None:
        threading.Thread(target=self._run, name=f"review-{self.number}", daemon=True).start()

    def _run(self) -> None:
        from synergy_forge.reporting.review import review_records

        def progress(done: int, total: int) -> None:
            self.done = done

        started = time.monotonic()
        try:
            with _REVIEWING:
                started = time.monotonic()
                self.result = review_records(self.records, self.rollouts, 0, 1, progress)
        except Exception as exc:  # our mistake: said on the review's page and the terminal
            self.error = f"{type(exc).__name__}: {exc}"
            print(f"synergy-forge table: internal error in a review: {self.error}; this is a "
                  "bug, please report it", file=sys.stderr)
        self.seconds = time.monotonic() - started


def review_of(table: GameTable) -> Reviewing:
    """The review of the last game finished at `table`, started the first time it is asked
    for. Raises NoReview before any game has ended, or with reviews off."""
    with table.lock:
        table.reviewing = reviewing(table.reviewing, table.last, table.options)
        return table.reviewing


def reviewing(current: Reviewing | None, last: tuple[int, list[dict[str, Any]]] | None,
              options: Mapping[str, Any]) -> Reviewing:
    """The review of the `last` finished game (its number and log): `current` when it is that
    game's, else a new one, started. Raises NoReview when there is none to make."""
    if last is None:
        raise NoReview("no game has ended at this table yet: the review comes once the game "
                       "is over")
    number, records = last
    if current is not None and current.number == number:
        return current
    rollouts = int(options.get("review_rollouts", REVIEW_ROLLOUTS))
    if rollouts <= 0:
        raise NoReview("reviews are off at this table (--review-rollouts 0)")
    job = Reviewing(number, records, rollouts)
    job.start()
    return job
