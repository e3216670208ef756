"""The difficulty estimate on missions nobody tuned for: the bots that estimate it never lose
to random play, and a mission made easier never rates harder (docs/difficulty.md)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from synergy_forge.authoring.loading import read_campaign
from synergy_forge.core.cards import Action
from synergy_forge.core.mission import Campaign, Mission
from synergy_forge.resources import starter_campaign
from synergy_forge.sim.playtest import Playable, estimates, game_seed, play_batch, run

COLORS = ("red", "yellow", "green", "blue", "purple")
CHALLENGES = ("difference", "double-plus-3", "even", "five-is-ten", "goals-left",
              "high-to-low", "low-to-high", "maximum-7", "minimum-5", "no-doubles",
              "one-is-six", "uneven")


def untuned(count: int, seed: int) -> list[Mission]:
    """Missions drawn at random from the rules' pieces: challenges, actions, the super and
    hyper cards, allowed failures, rounds, lives, a short hand: nobody tuned a bot for them."""
    rng = random.Random(seed)
    out = []
    for k in range(count):
        out.append(Mission(
            f"untuned-{k}", k + 1, {"en": f"Untuned {k}"}, 3, rounds=rng.randint(1, 4),
            lives=rng.randint(1, 3),
            allowed_failures={p: rng.randint(0, p - 1) for p in (3, 4, 5)},
            challenges=tuple(rng.sample(CHALLENGES, rng.choice([0, 1, 1, 2]))),
            actions=tuple(rng.sample(list(Action), rng.randint(0, 3))),
            super=rng.random() < 0.3, hyper=rng.random() < 0.3,
            hand_numbers=rng.choice([10, 10, 6])))
    return out


MISSIONS = untuned(8, seed=19)


def _seeds(mission: Mission, players: int, games: int) -> list[int]:
    return [game_seed(1, mission.id, players, i) for i in range(games)]


def _wins(rulebook, bot: str, games: int) -> dict[tuple[str, int, str], int]:
    found = {}
    for mission in MISSIONS:
        for players in mission.players:
            found[(mission.id, players, bot)] = play_batch(
                mission, rulebook, COLORS, players, bot, _seeds(mission, players, games)).wins
    return found


@pytest.fixture(scope="module")
def random_wins(rulebook) -> dict[int, dict[tuple[str, int, str], int]]:
    """Random play's wins on the untuned missions in their first 20 and first 30 games: the
    two tests below set the estimating bot (30 games) and coop (20) beside the same games,
    played once (a random seat keeps nothing from one game to the next)."""
    first, rest = {}, {}
    for mission in MISSIONS:
        for players in mission.players:
            seeds = _seeds(mission, players, 30)
            key = (mission.id, players, "random")
            first[key] = play_batch(mission, rulebook, COLORS, players, "random",
                                    seeds[:20]).wins
            rest[key] = play_batch(mission, rulebook, COLORS, players, "random",
                                   seeds[20:]).wins
    return {20: first, 30: {key: first[key] + rest[key] for key in first}}


@pytest.mark.slow
def test_the_estimating_bot_never_loses_to_random_play_on_untuned_missions(rulebook,
                                                                           random_wins):
    wins = {**random_wins[30], **_wins(rulebook, "expert", 30)}
    # The same deals at every mission and player count; 2 games of slack for ties broken
    # at random.
    behind = [(m, p, wins[(m, p, "expert")], wins[(m, p, "random")])
              for m, p, bot in wins if bot == "random"
              if wins[(m, p, "expert")] < wins[(m, p, "random")] - 2]
    assert behind == []


@pytest.mark.slow
def test_coop_beats_random_play_on_untuned_missions(rulebook, random_wins):
    # 20 games, not 30: the same five missions still give random play 5 wins or more, so the
    # check per mission below still bites on them.
    wins = {**random_wins[20], **_wins(rulebook, "coop", 20)}
    missions = {m for m, _, _ in wins}
    # Per mission, all player counts: with the opening convention no mission collapses to
    # nothing while random play wins (the old coop's symmetric openings did, issue 19).
    # Per player count coop still has blind spots (docs/difficulty.md: a hyper seat that
    # needs a neighbour's sum, which seats modelling each other as random do not give it);
    # the expert, which gives the stars, has none here (the test above).
    for mission in missions:
        ours = sum(w for (m, _, bot), w in wins.items() if m == mission and bot == "coop")
        theirs = sum(w for (m, _, bot), w in wins.items() if m == mission and bot == "random")
        assert ours > 0 or theirs < 5, (mission, ours, theirs)
    total = {bot: sum(w for (_, _, b), w in wins.items() if b == bot) for bot in ("coop",
                                                                                "random")}
    # Measured: coop 236 games to random's 123 at 30 games (2026-11-23), 151 to 87 at 20.
    assert total["coop"] >= 1.5 * total["random"]


def _skill(mission: Mission, rulebook, players: int) -> tuple[int, float]:
    """(stars, skill needed) of `mission` at `players`, 20 games per level, seed 1 (at 40,
    twice the CPU, the same orders: measured 2026-11-25)."""
    cells = run([Playable(mission, rulebook, COLORS)], ["expert"], [players], 20, seed=1,
                jobs=1)
    (estimate,) = estimates(cells)
    return estimate.stars, 2.0 if estimate.skill is None else estimate.skill


@pytest.fixture(scope="module")
def starter() -> Campaign:
    return read_campaign(starter_campaign()).campaign


@pytest.mark.parametrize("number", [4, 9, 14])
@pytest.mark.slow
def test_a_mission_made_easier_never_rates_harder(starter, number):
    mission = starter.mission(number)
    # 3 players: games of three seats cost 0.6 of four's, and the estimates spread wider
    # (measured 2026-11-26, 20 games a level: In step 0.16, Light touch 0.20, No echo 0.75;
    # at 4 players 0.10, 0.00, 0.40), so that an easier mission has room to rate lower.
    players = 3
    before = _skill(mission, starter.rulebook, players)
    easier = [
        replace(mission, lives=mission.lives + 1),
        replace(mission, allowed_failures={**mission.allowed_failures,
                                           players: min(players - 1,
                                                        mission.allowed_failures[players] + 1)}),
    ]
    if mission.rounds > 1:
        easier.append(replace(mission, rounds=mission.rounds - 1))
    for changed in easier:
        stars, skill = _skill(changed, starter.rulebook, players)
        assert stars <= before[0], changed
        # The skill itself may wiggle: an easier mission changes the bots' own choices, so
        # the same deals are not played alike (measured at 4 players: In step, a round fewer,
        # 0.095 -> 0.103 at 40 games, 0.096 -> 0.100 at 20; at 3 players, 20 games, every
        # easier setting rated at most its mission's skill). Never by more than a fifth of a
        # star.
        assert skill <= before[1] + 0.04, changed
