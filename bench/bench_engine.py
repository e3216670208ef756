"""Whole games per second with random bots: 5 players, a 5-round mission with actions and two
challenges, one core.

    .venv/bin/python bench/bench_engine.py [--games 2000]
"""

from __future__ import annotations

import argparse
import platform
import time

from synergy_forge.cards import Action
from synergy_forge.definitions import standard_rulebook
from synergy_forge.engine import Game
from synergy_forge.mission import Mission
from synergy_forge.session import play

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
            played = play(game, ["random"] * 5, record=record)
            rounds += game.outcome.rounds_played  # type: ignore[union-attr]
            decisions += len(played.records)
        elapsed = time.perf_counter() - start
        label = "with log" if record else "no log  "
        print(f"random bots, {label}: {args.games / elapsed:8,.0f} games/s "
              f"({rounds / args.games:.2f} rounds a game)")


if __name__ == "__main__":
    main()
