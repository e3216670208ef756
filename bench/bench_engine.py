"""Whole games per second with random bots: 5 players, a 5-round mission with actions and two
challenges, one core.

    .venv/bin/python bench/bench_engine.py [--games 2000]
"""

from __future__ import annotations

import argparse
import platform
import time

from synergy_forge.authoring.definitions import standard_rulebook
from synergy_forge.authoring.gamelog import Recorder
from synergy_forge.core.cards import Action
from synergy_forge.core.engine import Game
from synergy_forge.core.mission import Mission
from synergy_forge.sim.play import play

MISSION = Mission(
    id="bench", number=1, title={"en": "Bench"}, stars=3, rounds=5, lives=3, players=(5,),
    allowed_failures={5: 1}, challenges=("minimum-5", "double-plus-3"),
    actions=(Action.F, Action.H, Action.D),
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=2000)
    args = parser.parse_args()
    rulebook = standard_rulebook()
    print(f"python {platform.python_version()} on {platform.machine()}, one process")
    for record in (False, True):
        rounds = decisions = 0
        start = time.perf_counter()
        for seed in range(args.games):
            game = Game(MISSION, 5, seed, rulebook)
            recorder = Recorder(game, ["random"] * 5) if record else None
            play(game, ["random"] * 5, on_decision=recorder)
            assert game.outcome is not None
            rounds += game.outcome.rounds_played
            decisions += len(recorder.finish(game)) if recorder else 0
        elapsed = time.perf_counter() - start
        label = "with log" if record else "no log  "
        print(f"random bots, {label}: {args.games / elapsed:8,.0f} games/s "
              f"({rounds / args.games:.2f} rounds a game)")


if __name__ == "__main__":
    main()
