"""Win rates on the deck missions of bench/hidden/ (hands dealt from decks, R2), per bot and
player count, on the deals `playtest --seed 1` plays (the same `game_seed`s), and each bot's
CPU time per game there.

    nice -n 10 .venv/bin/python bench/hidden_table.py [--games 200] [--jobs 2]
        [--bots expert,oracle,coop,random,expert@0] [--missions ID,...] [--campaign DIR]

`expert@K` is the ladder's table of K experts beside novices (`expert@0`: its lowest rung). The
table is Markdown, as docs/bots.md shows it: per mission and bot, the rate over the three player
counts, then 3/4/5 players in percent.
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from synergy_forge.authoring.loading import read_campaign
from synergy_forge.sim.playtest import game_seed, play_batch

HERE = Path(__file__).resolve().parent / "hidden"


def _run(job: tuple[str, str, int, str, int, int]) -> tuple[str, int, str, int, float]:
    folder, mission_id, players, bot, games, seed = job
    campaign = read_campaign(Path(folder)).campaign
    mission = next(m for m in campaign.missions if m.id == mission_id)
    name, _, skill = bot.partition("@")
    start = time.process_time()  # cold: the batch makes its own mission model
    tally = play_batch(mission, campaign.rulebook, campaign.colors, players, name,
                       [game_seed(seed, mission.id, players, i) for i in range(games)],
                       experts=int(skill) if skill else None)
    return mission_id, players, bot, tally.wins, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bots", default="expert,oracle,coop,random,expert@0")
    parser.add_argument("--missions", default="", help="ids, comma-separated (default: all)")
    parser.add_argument("--campaign", default=str(HERE), help="another campaign folder")
    args = parser.parse_args()
    campaign = read_campaign(Path(args.campaign)).campaign
    missions = [m for m in campaign.missions
                if not args.missions or m.id in args.missions.split(",")]
    bots = args.bots.split(",")
    jobs = [(args.campaign, m.id, p, b, args.games, args.seed) for m in missions for p in (3, 4, 5)
            for b in bots]
    wins: dict[tuple[str, int, str], int] = {}
    cpu: dict[str, float] = dict.fromkeys(bots, 0.0)
    with ProcessPoolExecutor(args.jobs) as pool:
        for mission_id, players, bot, won, seconds in pool.map(_run, jobs):
            wins[mission_id, players, bot] = won
            cpu[bot] += seconds
    print("| # | mission | hand | " + " | ".join(f"`{b}`" for b in bots) + " |")
    print("| --- | --- | --- | " + " | ".join("---" for _ in bots) + " |")
    for m in missions:
        hand = f"{m.hand_numbers} + {m.hand_goals}"
        cells = []
        for b in bots:
            rates = [100 * wins[m.id, p, b] / args.games for p in (3, 4, 5)]
            cells.append(f"{sum(rates) / 3:.1f}% ({'/'.join(f'{r:.0f}' for r in rates)})")
        print(f"| {m.number} | {m.title['en']} | "
              f"{hand} | " + " | ".join(cells) + " |")
    games = args.games * 3 * len(missions)
    print()
    print("CPU ms per game: " + ", ".join(f"{b} {1000 * cpu[b] / games:.1f}" for b in bots))


if __name__ == "__main__":
    main()
