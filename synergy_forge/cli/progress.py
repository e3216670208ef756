"""Progress for long commands, on a terminal and off it (make, CI logs).

On a terminal: click's progress bar. Otherwise a bar is useless (no carriage returns, or one
line per update), and a log that stays silent looks hung: a plain line goes to stderr every few
seconds, from a timer thread so that it comes even while one slow unit of work runs, and a
last line says how long it took. A run shorter than the interval prints nothing.

    with Progress(total, "Playing") as progress:
        run(..., progress=progress.update)
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any, TextIO

import click

#: Seconds between two plain lines: CI logs are never silent for more than this.
EVERY = 4.0


def _duration(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


class Progress:
    """Counts done units out of `total` and shows them, as a bar or as plain timed lines.

    `bar=False` shows nothing on a terminal (a run too short for a bar) but still prints the
    plain lines elsewhere, where silence is what hurts.
    """

    def __init__(self, total: int, label: str, *, bar: bool = True,
                 stream: TextIO | None = None, every: float | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 detail: Callable[[], str] | None = None, unit: str = "") -> None:
        self.total, self.label, self.clock = total, label, clock
        #: more to say on each line ("12 settings tried"), and then the time left at most,
        #: from the pace so far: for work that may end before `total` (tune's budget)
        self.detail = detail
        self.unit = unit
        self.every = every if every is not None else EVERY
        self.stream = stream if stream is not None else sys.stderr
        self.done = 0
        self.lines = 0  # plain lines printed
        self._bar: Any = None
        self._plain = not _is_terminal(self.stream)
        self._show_bar = bar and not self._plain
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._start = 0.0

    def __enter__(self) -> Progress:
        self._start = self.clock()
        if self._show_bar:
            detail = self.detail
            shown = (lambda _: detail()) if detail is not None else None
            self._bar = click.progressbar(length=self.total, label=self.label, file=self.stream,
                                          item_show_func=shown)
            self._bar.__enter__()
        elif self._plain:
            self._thread = threading.Thread(target=self._tick, daemon=True)
            self._thread.start()
        return self

    def update(self, count: int = 1) -> None:
        with self._lock:
            self.done += count
        if self._bar is not None:
            self._bar.update(count, current_item=count)

    def line(self, final: bool = False) -> str:
        elapsed = self.clock() - self._start
        share = f" ({self.done / self.total:.0%})" if self.total else ""
        unit = f" {self.unit}" if self.unit else ""
        if self.detail is not None:
            counted = f"{self.label}: {self.done:,}/{self.total:,}{unit}"
            if final:
                return f"{counted}, {self.detail()}, done in {_duration(elapsed)}"
            left = f", at most {_duration(elapsed * (self.total - self.done) / self.done)} " \
                "left" if self.done else ""
            return f"{counted}{share}, {self.detail()}, {_duration(elapsed)} elapsed{left}"
        if final:
            return f"{self.label}: {self.done}/{self.total}{unit} done in {_duration(elapsed)}"
        return (f"{self.label}: {self.done}/{self.total}{unit}{share}, {_duration(elapsed)} "
                "elapsed")

    def _print(self, text: str) -> None:
        self.stream.write(text + "\n")
        self.stream.flush()
        self.lines += 1

    def _tick(self) -> None:
        while not self._stop.wait(self.every):
            with self._lock:
                self._print(self.line())

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.__exit__(kind, error, trace)
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            if self.lines and kind is None:
                self._print(self.line(final=True))


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
