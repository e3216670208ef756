"""A table's games reviewed while they are played (sim.review, reporting.review).

A decision's review needs only what was played up to its step, so each step is reviewed as
soon as it is complete, while people think about the next one: when the game ends, only its
last steps are left, and the review is ready seconds later. The work is done by one process
per server, at a low priority (nice 10: people's pages and the bots come first; a process, not
a thread, so that it never holds the server's interpreter), started at the first step to
review and fed one decision at a time, a finished game's before the steps of games still being
played. Each decision reviewed is kept in the state file (a restart does not review it again).
Nothing of a review is shown before its game is over (server.py).
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from synergy_forge.core.cards import Action
from synergy_forge.core.rules import ActionText
from synergy_forge.reporting.review import GameReview, reviewed_from_json, reviewed_records
from synergy_forge.sim.review import PRECISION, Reviewed

if TYPE_CHECKING:
    from synergy_forge.table.model import GameTable
    from synergy_forge.table.store import Store

#: The review's seed at a table: `replay LOG --review` gives the same review.
SEED = 0
#: How much lower than the server the reviewing process runs.
NICE = 10


class NoReview(Exception):
    """No review to give: no game has ended yet, or reviews are off (the message says)."""


class Reviewing:
    """The review of one game of a table: its log so far, its decisions reviewed, and once the
    game is over and every decision reviewed, the result (a GameReview), or why it failed;
    `seconds`: from the game's end to the review ready; `actions`: the action cards as its
    mission card printed them (its page names them so)."""

    def __init__(self, number: int, rollouts: int,
                 on_reviewed: Callable[[dict[str, Any]], None] | None = None,
                 actions: Mapping[Action, ActionText] | None = None) -> None:
        self.number, self.rollouts, self.seed = number, rollouts, SEED
        self.actions = actions
        self.on_reviewed = on_reviewed
        self.records: list[dict[str, Any]] = []
        self.reviewed: dict[int, Reviewed] = {}
        self.ended_at: float | None = None  # time.monotonic() when the game ended
        self.result: GameReview | None = None
        self.error: str | None = None
        self.seconds: float | None = None

    @property
    def settings(self) -> str:
        """What the review's figures depend on, beside the game (kept with each decision)."""
        return f"rollouts={self.rollouts} seed={self.seed} precision={PRECISION}"

    @property
    def total(self) -> int:
        return sum(1 for r in self.records if r.get("type") == "decision")

    @property
    def done(self) -> int:
        return min(len(self.reviewed), self.total)


    def _next(self) -> int | None:
        """The first decision not yet reviewed, if any is due."""
        return next((i for i in range(self.total) if i not in self.reviewed), None)

    def _took(self, data: dict[str, Any]) -> None:
        item = reviewed_from_json(data)
        self.reviewed[item.index] = item
        if self.on_reviewed is not None:
            self.on_reviewed(data)

    def _complete(self) -> None:
        """Every decision of the finished game reviewed: the review, whole."""
        try:
            self.result = reviewed_records(self.records, list(self.reviewed.values()),
                                           self.rollouts, self.seed)
        except Exception as exc:  # our mistake: said on the review's page and the terminal
            self._failed(f"{type(exc).__name__}: {exc}")
            return
        assert self.ended_at is not None
        self.seconds = time.monotonic() - self.ended_at

    def _failed(self, error: str) -> None:
        self.error = error
        print(f"synergy-forge table: internal error in a review: {error}; this is a bug, "
              "please report it", file=sys.stderr)


class Reviewer:
    """The reviews of every table of this process, made in one worker process by one thread
    that feeds it (both started at the first review)."""

    def __init__(self) -> None:
        self._jobs: list[Reviewing] = []
        self._due = threading.Condition()
        self._thread: threading.Thread | None = None
        self._process: subprocess.Popen[str] | None = None
        self._stopping = False

    def played(self, job: Reviewing | None, records: Sequence[dict[str, Any]],
               over: bool) -> None:
        """`job`'s game's log as it is now (complete steps only), `over` once it has ended:
        its new steps are reviewed (None: reviews are off)."""
        if job is None:
            return
        with self._due:
            job.records = list(records)
            if over and job.ended_at is None:
                job.ended_at = time.monotonic()
            if job not in self._jobs:
                self._jobs.append(job)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="reviews", daemon=True)
                self._thread.start()
            self._due.notify_all()

    def forget(self, *jobs: Reviewing | None) -> None:
        """No longer review these jobs (their table has ended, or they cannot be reached)."""
        with self._due:
            self._jobs = [job for job in self._jobs if job not in jobs]

    def _task(self) -> tuple[Reviewing, int | None]:
        """The next decision to review (wait for one): a finished game's first, else the
        oldest game's; None: the game is over and every decision reviewed."""
        with self._due:
            while True:
                due = sorted(self._jobs, key=lambda j: j.ended_at is None)
                for job in due:
                    if job.result is not None or job.error is not None:
                        self._jobs.remove(job)
                        continue
                    index = job._next()
                    if index is not None or job.ended_at is not None:
                        return job, index
                self._due.wait()

    def _run(self) -> None:
        while True:
            job, index = self._task()
            try:
                if index is None:
                    job._complete()
                    continue
                try:
                    answer = self._ask({"log": job.records, "index": index,
                                        "rollouts": job.rollouts, "seed": job.seed})
                except OSError as exc:
                    if self._stopping:  # the server's exit: nothing went wrong
                        return
                    answer = {"error": f"the reviewing process stopped ({exc})"}
                if "error" in answer:
                    job._failed(str(answer["error"]))
                else:
                    job._took(answer["reviewed"])
            except Exception as exc:  # our mistake (the state file closed?): that review only
                job._failed(f"{type(exc).__name__}: {exc}")

    def _ask(self, task: dict[str, Any]) -> dict[str, Any]:
        """One task to the worker process (started if need be), and its answer."""
        process = self._process
        if process is None or process.poll() is not None:
            process = self._process = _start()
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps(task, ensure_ascii=True) + "\n")
        process.stdin.flush()
        line = process.stdout.readline()
        if not line:
            raise OSError(f"exit status {process.wait()}")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def stop(self) -> None:
        """End the worker process (at the server's exit: a review under way is lost with it;
        what was reviewed is in the state file)."""
        self._stopping = True
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()


def _start() -> subprocess.Popen[str]:
    """The worker process: this interpreter, with this package first on its path, at NICE;
    it ends when its tasks' pipe closes, after the decision under review (this process ended,
    however it ended). In a session of its own: a Ctrl-C at the terminal is the server's to
    handle (it kills this one)."""
    package = str(Path(__file__).resolve().parents[2])
    path = os.pathsep.join(p for p in (package, os.environ.get("PYTHONPATH")) if p)
    return subprocess.Popen(
        [sys.executable, "-c", f"import os, sys; os.nice({NICE}); "
         "from synergy_forge.reporting.review import work; work(sys.stdin, sys.stdout)"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="ascii",
        env={**os.environ, "PYTHONPATH": path}, start_new_session=True)


#: This process's reviewer: one worker process for every table.
REVIEWER = Reviewer()
atexit.register(REVIEWER.stop)


def new_review(number: int, options: dict[str, Any], store: Store | None, table: int,
               actions: Mapping[Action, ActionText] | None = None) -> Reviewing | None:
    """The review of game `number` of table `table` with these `options` (None: reviews are
    off, `review_rollouts` 0 or not given), with the decisions of it that `store` already
    holds, each one reviewed from now on written there; `actions`: its mission's action
    cards as printed."""
    rollouts = int(options.get("review_rollouts", 0))
    if rollouts <= 0:
        return None
    job = Reviewing(number, rollouts, actions=actions)
    if store is not None:
        for data in store.reviews(table, number, job.settings):
            item = reviewed_from_json(data)
            job.reviewed[item.index] = item
        job.on_reviewed = lambda data: store.add_review(table, number, data["index"],
                                                        job.settings, data)
    return job


def review_of(table: GameTable) -> Reviewing:
    """The review of the last game finished at `table`. Raises NoReview before any game has
    ended, or with reviews off."""
    with table.lock:
        if table.last is None:
            raise NoReview("no game has ended at this table yet: the review comes once the "
                           "game is over")
        if table.reviewing is None:
            raise NoReview("reviews are off at this table (--review-rollouts 0)")
        return table.reviewing
