"""Playtest speed: games per second per bot, how time grows with games and --jobs, and the
full starter-campaign playtest.

    .venv/bin/python bench/bench_playtest.py [--full-games 1000]
    .venv/bin/python bench/bench_playtest.py --default-only   # `playtest missions/starter`

`--default-only` times what a user's `synergy-forge playtest missions/starter` does with every
default (its games, bots and workers), in one process tree; run it from two checkouts one
after the other for a before and after.

Workload for the per-bot figures: the engine benchmark's mission (5 players, 5 rounds,
minimum-5 and double-plus-3, actions F, H, D), one process.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_engine import MISSION

from synergy_forge.authoring.definitions import standard_rulebook
from synergy_forge.authoring.loading import read_campaign
from synergy_forge.resources import starter_campaign
from synergy_forge.sim.playtest import Playable, play_batch, run

COLORS = ("red", "yellow", "green", "blue", "purple")


def per_bot(games: dict[str, int], repeats: int = 3) -> None:
    """Games per second, best of `repeats` runs (as timeit does: a slower run measures the
    other work sharing the machine, not this code); every run is printed."""
    rulebook = standard_rulebook()
    for bot, count in games.items():
        rates = []
        for _ in range(repeats):
            start = time.perf_counter()  # each run from cold caches: the batch's own model
            play_batch(MISSION, rulebook, COLORS, 5, bot, range(count))
            rates.append(count / (time.perf_counter() - start))
        runs = ", ".join(f"{r:.1f}" for r in rates)
        print(f"{bot:>7}: {max(rates):8.1f} games/s on one core, best of {repeats} "
              f"({count} games each: {runs})")


def scaling() -> None:
    campaign = read_campaign(starter_campaign()).campaign
    sources = [Playable(m, campaign.rulebook, campaign.colors) for m in campaign.missions[:6]]
    for games in (100, 200, 400):
        for jobs in (1, 2):
            # Cold caches each time: a fresh rulebook, as workers get one.
            campaign = read_campaign(starter_campaign()).campaign
            sources = [Playable(m, campaign.rulebook, campaign.colors)
                       for m in campaign.missions[:6]]
            start = time.perf_counter()
            run(sources, ["coop"], [4], games, seed=1, jobs=jobs)
            elapsed = time.perf_counter() - start
            print(f"coop, 6 missions x {games:>3} games, --jobs {jobs}: {elapsed:6.1f} s")


def full(games: int) -> None:
    campaign = read_campaign(starter_campaign()).campaign
    sources = [Playable(m, campaign.rulebook, campaign.colors) for m in campaign.missions]
    start = time.perf_counter()
    cells = run(sources, ["coop"], None, games, seed=1, jobs=None)
    elapsed = time.perf_counter() - start
    played = sum(c.tally.games for c in cells)
    print(f"full starter campaign, coop, all player counts, {games} games each: {played} "
          f"games in {elapsed:.0f} s ({played / elapsed:.1f} games/s on all cores)")


def default_playtest() -> None:
    """`playtest missions/starter` with its defaults, as the CLI runs it (cold caches: each
    mission's model is made by the run)."""
    from click.testing import CliRunner

    from synergy_forge.cli import main as cli

    start = time.perf_counter()
    result = CliRunner().invoke(cli, ["playtest", str(starter_campaign()), "--json"])
    elapsed = time.perf_counter() - start
    assert result.exit_code in (0, 1), result.output
    print(f"playtest missions/starter with the defaults: {elapsed:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--full-games", type=int, default=1000)
    parser.add_argument("--default-only", action="store_true")
    args = parser.parse_args()
    if args.default_only:
        default_playtest()
        return
    per_bot({"random": 3000, "greedy": 300, "coop": 1000, "oracle": 1000})
    scaling()
    full(args.full_games)


if __name__ == "__main__":
    main()
