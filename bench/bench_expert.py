"""The expert's time per game against the coop bot's, and the oracle's.

    .venv/bin/python bench/bench_expert.py [--games 20] [--players 4] [--bots coop,expert,oracle]

"Before" figures run this script with an older tree first on the path:
`PYTHONPATH=OLD .venv/bin/python bench/bench_expert.py --bots coop,oracle`.

Three workloads, one process, each bot from cold caches (as every playtest worker starts):
the engine benchmark's mission (5 players, 5 rounds, minimum-5 and double-plus-3, actions F,
H, D), every starter mission at one player count, and the deck missions of bench/hidden/ at
one player count (hands dealt from decks: the expert's opening policy over hidden hands).
Each figure is the best of three runs (as timeit does: a slower run measures the other work
sharing the machine), in CPU time.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_engine import MISSION

from synergy_forge.authoring.definitions import standard_rulebook
from synergy_forge.authoring.loading import read_campaign
from synergy_forge.resources import starter_campaign
from synergy_forge.sim.playtest import game_seed, play_batch

BOTS = ("coop", "expert", "oracle")
COLORS = ("red", "yellow", "green", "blue", "purple")


def best_of(repeats: int, work) -> float:
    times = []
    for _ in range(repeats):
        # CPU time: the host is shared, wall time waits for it. Cold: each batch makes its
        # own mission model.
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--bots", default=",".join(BOTS),
                        help="comma-separated (coop first: the others are compared to it)")
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, one process, "
          f"CPU time, best of 3")
    rulebook = standard_rulebook()
    bench_games = args.games * 5
    campaign = read_campaign(starter_campaign()).campaign
    missions = [m for m in campaign.missions if args.players in m.players]
    hidden = read_campaign(Path(__file__).resolve().parent / "hidden").campaign
    rows = {}
    for bot in args.bots.split(","):
        engine = best_of(3, lambda bot=bot: play_batch(MISSION, rulebook, COLORS, 5, bot,
                                                       range(bench_games)))
        starter = best_of(3, lambda bot=bot: [
            play_batch(m, campaign.rulebook, campaign.colors, args.players, bot,
                       [game_seed(1, m.id, args.players, i) for i in range(args.games)])
            for m in missions])
        decks = best_of(3, lambda bot=bot: [
            play_batch(m, hidden.rulebook, hidden.colors, args.players, bot,
                       [game_seed(1, m.id, args.players, i) for i in range(args.games)])
            for m in hidden.missions])
        rows[bot] = (engine / bench_games, starter / (args.games * len(missions)),
                     decks / (args.games * len(hidden.missions)))
    coop = rows["coop"]
    for bot, (engine, starter, decks) in rows.items():
        print(f"{bot:>7}: bench mission {engine * 1000:6.2f} ms/game "
              f"({engine / coop[0]:4.2f}x coop); starter campaign at {args.players} "
              f"players {starter * 1000:6.2f} ms/game ({starter / coop[1]:4.2f}x coop); "
              f"deck missions {decks * 1000:6.2f} ms/game ({decks / coop[2]:4.2f}x coop)")


if __name__ == "__main__":
    main()
