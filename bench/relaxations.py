"""Does making a mission easier ever rate it harder? Drawn missions, each relaxation on the
same deals, the ladder's estimate before and after (docs/difficulty.md, "Relaxations").

    .venv/bin/python bench/relaxations.py [--seeds 500:516] [--games 60] [--trusting]

Each seed draws a mission from the rules' pieces (one or two constraint challenges, 4 to 6 of
the 7 goals, every card in the hand) and a player count; every relaxation (a constraint
challenge taken away, a life more, a failure more allowed, a round fewer, a goal card more in
the hand) plays the ladder's every table on the same seeds. Prints the skill needed with its
range, the stars, and each table's win rate (no expert … all experts), and flags a relaxation
rated more stars than the mission's own range allows. `--trusting` seats the plain expert at
the mixed tables (it plans as if every seat followed the convention), as before sim.mixed.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import replace

from synergy_forge.authoring.definitions import standard_rulebook
from synergy_forge.core.cards import GOAL_IDS, Action
from synergy_forge.core.mission import Mission
from synergy_forge.sim import bots
from synergy_forge.sim.expert import ExpertBot
from synergy_forge.sim.ladder import Reading
from synergy_forge.sim.playtest import estimate_from, game_seed, play_tables

COLORS = ("red", "yellow", "green", "blue", "purple")
CONSTRAINTS = ("even", "uneven", "low-to-high", "high-to-low", "minimum-5", "maximum-7",
               "no-doubles")
OTHERS = ("difference", "double-plus-3", "five-is-ten", "one-is-six", "goals-left")
CLASHES = ({"even", "uneven"}, {"low-to-high", "high-to-low"})


def draw(seed: int) -> tuple[Mission, int]:
    rng = random.Random(seed)
    while True:
        constraints = tuple(rng.sample(CONSTRAINTS, rng.choice((1, 1, 2))))
        if not any(clash <= set(constraints) for clash in CLASHES):
            break
    goals = tuple(sorted(rng.sample(GOAL_IDS, rng.randint(4, 6))))
    mission = Mission(
        f"m-{seed}", 1, {"en": f"M{seed}"}, 3, rounds=rng.randint(1, 4), lives=rng.randint(1, 3),
        allowed_failures={p: rng.randint(0, p - 2) for p in (3, 4, 5)},
        challenges=constraints + tuple(rng.sample(OTHERS, rng.choice((0, 0, 1)))),
        actions=tuple(rng.sample(list(Action), rng.randint(0, 2))), goals=goals,
        super=rng.random() < 0.2, hyper=rng.random() < 0.2, hand_goals=len(goals))
    return mission, rng.choice((3, 4, 5))


def relaxations(mission: Mission, players: int) -> list[tuple[str, Mission]]:
    out = [(f"-{c}", replace(mission, challenges=tuple(x for x in mission.challenges if x != c)))
           for c in mission.challenges if c in CONSTRAINTS]
    out.append(("+life", replace(mission, lives=mission.lives + 1)))
    if mission.allowed_failures[players] < players - 1:
        out.append(("+failure", replace(mission, allowed_failures={
            **mission.allowed_failures, players: mission.allowed_failures[players] + 1})))
    if mission.rounds > 1:
        out.append(("-round", replace(mission, rounds=mission.rounds - 1)))
    missing = sorted(set(GOAL_IDS) - set(mission.goals))
    if missing:
        out.append((f"+{missing[0]}", replace(mission, goals=tuple(sorted(
            (*mission.goals, missing[0]))), hand_goals=mission.hand_goals + 1)))
    return out


def ladder(mission: Mission, players: int, games: int) -> tuple[Reading, str]:
    seeds = [game_seed(1, mission.id, players, i) for i in range(games)]
    estimate = estimate_from(mission, {players: play_tables(mission, standard_rulebook(),
                                                            COLORS, players, seeds)})
    assert estimate is not None
    curve = estimate.by_count[players].curve
    return estimate.by_count[players].reading, "/".join(
        f"{w * 100 / g:.0f}" for w, g in zip(curve.wins, curve.games, strict=True))


def shown(reading: Reading) -> str:
    def skill(s: float | None) -> str:
        return "none" if s is None else f"{s:.2f}"
    return (f"{skill(reading.skill)} [{skill(reading.skill_low)}, {skill(reading.skill_high)}]"
            f" {reading.fewest}-{reading.most}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", default="500:516")
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--trusting", action="store_true")
    args = parser.parse_args()
    if args.trusting:
        bots.BOTS["expert"] = ExpertBot
    first, last = map(int, args.seeds.split(":"))
    for seed in range(first, last):
        mission, players = draw(seed)
        started = time.process_time()
        before, rates = ladder(mission, players, args.games)
        print(f"seed {seed}, {players} players, {','.join(mission.challenges)}, "
              f"{mission.rounds} rounds, {mission.lives} lives, "
              f"{mission.allowed_failures[players]} failures, {len(mission.goals)} goals: "
              f"{shown(before)}  {rates}", flush=True)
        for name, relaxed in relaxations(mission, players):
            after, rates = ladder(relaxed, players, args.games)
            flag = "  <-- more stars" if after.stars > before.most else ""
            print(f"   {name:16} {shown(after)}  {rates}{flag}", flush=True)
        print(f"   ({time.process_time() - started:.0f} CPU s)", flush=True)


if __name__ == "__main__":
    main()
