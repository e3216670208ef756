"""Bots on random missions nobody tuned for: is each bot at least as good as random, and the
oracle at least as good as the expert? (Issue 19: "never below random on missions nobody
tuned for".)

    .venv/bin/python bench/sweep_bots.py [--seed 1] [--missions 30] [--games 40]

Each mission draws its rounds, lives, starting hand, play order, challenges, actions, super and
hyper cards and allowed failures from the seed, and is played at one random player count by
every bot on the same deals. A line is flagged when the expert wins fewer games than random,
greedy or coop, or the oracle fewer than the expert; with 40 games a flag within about 8 games
is noise: play that mission again with more games (`--only K --games 150`).
"""

from __future__ import annotations

import argparse
import random

from synergy_forge.authoring.loading import read_campaign
from synergy_forge.core.cards import Action, Order
from synergy_forge.core.mission import Mission
from synergy_forge.resources import starter_campaign
from synergy_forge.sim.playtest import game_seed, play_batch

BOTS = ("random", "greedy", "coop", "expert", "oracle")
CHALLENGES = ("uneven", "even", "low-to-high", "high-to-low", "minimum-5", "maximum-7",
              "no-doubles", "double-plus-3", "one-is-six", "five-is-ten", "difference")


def mission(rng: random.Random, k: int) -> tuple[Mission, int]:
    players = rng.choice([3, 4, 5])
    challenges = rng.sample(CHALLENGES, rng.choice([0, 0, 1, 1, 2]))
    if rng.random() < 0.3:
        challenges.append(rng.choice(["goals-left", "goals-right"]))
    return Mission(
        id=f"sweep-{k}", number=1, title={"en": f"Sweep {k}"}, stars=1,
        rounds=rng.randint(1, 5), lives=rng.randint(1, 4),
        hand_numbers=rng.choice([10, 10, 8, 6, 5, 4]), hand_goals=rng.choice([7, 7, 5, 4, 3]),
        order=rng.choice([Order.NUMBER_GOAL_NUMBER, Order.NUMBER_GOAL_NUMBER,
                          Order.GOAL_NUMBER_NUMBER]),
        allowed_failures={3: rng.randint(0, 2), 4: rng.randint(0, 3), 5: rng.randint(0, 4)},
        challenges=tuple(challenges),
        actions=tuple(rng.sample(list(Action), rng.choice([0, 0, 1, 2, 3]))),
        super=rng.random() < 0.25, hyper=rng.random() < 0.25), players


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--missions", type=int, default=30)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--only", type=int, help="play only the mission with this index")
    args = parser.parse_args()
    campaign = read_campaign(starter_campaign()).campaign
    rng = random.Random(args.seed)
    flagged = 0
    for k in range(args.missions):
        subject, players = mission(rng, k)
        if args.only is not None and k != args.only:
            continue
        seeds = [game_seed(args.seed, subject.id, players, i) for i in range(args.games)]
        wins = {bot: play_batch(subject, campaign.rulebook, campaign.colors, players, bot,
                                seeds).wins for bot in BOTS}
        flags = []
        if wins["expert"] < max(wins["random"], wins["greedy"], wins["coop"]):
            flags.append("expert below a baseline")
        if wins["expert"] < wins["random"]:
            flags.append("EXPERT BELOW RANDOM")
        if wins["oracle"] < wins["expert"]:
            flags.append("oracle below expert")
        flagged += bool(flags)
        print(f"{k:3} {players}p rounds {subject.rounds} lives {subject.lives} hand "
              f"{subject.hand_numbers}+{subject.hand_goals} {subject.order} "
              f"{','.join(subject.challenges) or '-'} actions "
              f"{''.join(subject.actions) or '-'}{' super' if subject.super else ''}"
              f"{' hyper' if subject.hyper else ''} may fail {subject.failures_allowed(players)}:"
              f" {wins} {'; '.join(flags)}", flush=True)
    print(f"{flagged} flagged")


if __name__ == "__main__":
    main()
