"""How long a finished game's review takes to be ready after the game's end (issue 42: "within a
few seconds of the end on 2 cores"), on starter mission 12 (every card dealt) and starter
mission 5 (hands dealt from decks, R2: the expert's policy over hidden hands).

    .venv/bin/python bench/bench_review.py [--before OLD_TREE] [--repeats 2] [--rollouts 100]

Each game is played by a novice at seat 0 beside two coop bots (a person who errs among good
players: many choices are not the expert's) and logged. Measured, each in a fresh process,
alternating so that the load of the shared host falls on both alike:

- at the end: the whole review made from the finished log (`review_records`, one process), as
  `replay LOG --review` makes it and as the table made it before it reviewed during play;
  with `--before OLD_TREE` (a checkout of an older version, e.g. `git worktree add /tmp/old
  main~5`) the same with that tree's code;
- at a table: the game played at a `GameTable` whose three seats are these bots, at each of
  `--paces` seconds a step (as `table --pace`: 1.5 s, the bots' default; 6 s, about a person
  at a silent table), its steps reviewed while it is played (table/review.py); from the end
  of the game to the review ready.

Wall-clock seconds: what a player waits.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MISSIONS = (("12", 3), ("5", 1))  # (starter mission, seed)
SEATS = ("novice", "coop", "coop")


def play_log(mission: str, seed: int, path: Path) -> int:
    """Play the bench's game of `mission` and write its log at `path`; its decisions."""
    sys.path.insert(0, str(ROOT))
    from synergy_forge.authoring.gamelog import Recorder, write_log
    from synergy_forge.core.engine import Game
    from synergy_forge.sim.play import play
    from synergy_forge.workspace.play import mission_file

    found = mission_file(mission, lambda line: None)
    game = Game(found.mission, len(SEATS), seed, found.rulebook, found.colors)
    recorder = Recorder(game, SEATS)
    played = play(game.copy(), list(SEATS), on_decision=recorder)
    path.write_text(write_log(recorder.finish(played)), encoding="utf-8")
    return len(recorder.records) - 2


def time_review(log: Path, rollouts: int) -> float:
    """(In a process whose path starts with the tree to time.) The review of `log`."""
    from synergy_forge.authoring.gamelog import log_lines, parse_record
    from synergy_forge.reporting.review import review_records

    with log.open("rb") as stream:
        records = [parse_record(n, line) for n, line in log_lines(stream) if line.strip()]
    started = time.perf_counter()
    review_records(records, rollouts, 0, 1)
    return time.perf_counter() - started


def time_table(mission: str, seed: int, rollouts: int, pace: float) -> dict[str, float]:
    """The game played at a table of bots, reviewed during play: seconds from its end to its
    review ready, and how long it was played."""
    sys.path.insert(0, str(ROOT))
    import threading

    from synergy_forge.authoring.definitions import standard_actions
    from synergy_forge.table.model import GameTable
    from synergy_forge.table.review import review_of
    from synergy_forge.workspace.play import mission_file

    found = mission_file(mission, lambda line: None)
    ended = threading.Event()
    table = GameTable(found.mission, found.rulebook, found.colors, len(SEATS), seed, SEATS,
                      actions=standard_actions(), pace=pace,
                      options={"review_rollouts": rollouts},
                      on_end=lambda finished: ended.set())
    bots = threading.Thread(target=table.run_bots, daemon=True)
    started = time.perf_counter()
    bots.start()
    ended.wait()
    end = time.perf_counter()
    job = review_of(table)
    while job.result is None and job.error is None:
        time.sleep(0.02)
    ready = time.perf_counter()
    table.stop()
    assert job.error is None, job.error
    return {"played": end - started, "end_to_ready": ready - end}


def run(tree: Path, *args: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, __file__, *args], env=env, capture_output=True,
                          text=True, check=True)
    result: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", type=Path, help="an older tree to time at the end too")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--rollouts", type=int, default=100)
    parser.add_argument("--paces", default="1.5,6",
                        help="seconds a decision at the table: the bots' default pace, and "
                        "a person's")
    parser.add_argument("--no-table", action="store_true")
    parser.add_argument("--time-review", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--time-table", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.time_review:
        print(json.dumps({"seconds": time_review(args.time_review, args.rollouts)}))
        return
    if args.time_table:
        print(json.dumps(time_table(args.time_table[0], int(args.time_table[1]),
                                    args.rollouts, float(args.paces))))
        return
    print(f"python {platform.python_version()} on {platform.machine()}, "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; "
          f"{args.rollouts} rollouts at most; wall seconds")
    with tempfile.TemporaryDirectory() as folder:
        for mission, seed in MISSIONS:
            log = Path(folder) / f"{mission}.jsonl"
            decisions = play_log(mission, seed, log)
            print(f"mission {mission}, seed {seed}, {decisions} decisions:")
            for _ in range(args.repeats):
                trees = ([("before", args.before)] if args.before else []) + [("after", ROOT)]
                for name, tree in trees:
                    seconds = run(tree, "--time-review", str(log), "--rollouts",
                                  str(args.rollouts))["seconds"]
                    print(f"  {name}, the whole review at the end: {seconds:.1f} s", flush=True)
                for pace in [] if args.no_table else args.paces.split(","):
                    found = run(ROOT, "--time-table", mission, str(seed), "--rollouts",
                                str(args.rollouts), "--paces", pace)
                    print(f"  after, at a table (pace {pace} s, played in "
                          f"{found['played']:.0f} s): ready {found['end_to_ready']:.1f} s "
                          "after the end", flush=True)


if __name__ == "__main__":
    main()
