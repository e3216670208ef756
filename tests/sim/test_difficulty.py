"""The difficulty estimate on missions drawn at random for the check, never tuned to
(docs/difficulty.md): the bots that estimate it never lose to random play, every rung of the
ladder is at least random play, a relaxation never raises the stars, and the ladder's tables
rise with their experts."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from synergy_forge.core.cards import GOAL_IDS, Action
from synergy_forge.core.mission import Mission
from synergy_forge.sim.ladder import RUNGS, wilson
from synergy_forge.sim.playtest import Estimate, estimate_from, game_seed, play_batch, play_tables

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


# -- the ladder on drawn missions ---------------------------------------------------------------

CONSTRAINTS = ("even", "uneven", "low-to-high", "high-to-low", "minimum-5", "maximum-7",
               "no-doubles")
#: Constraint pairs no hand keeps together (such a mission is lost at its first card 3).
CLASHES = ({"even", "uneven"}, {"low-to-high", "high-to-low"})
#: The relaxations the ladder must never rate harder (issue 40's list).
KINDS = ("constraint", "life", "failure", "round", "goal")


def drawn(count: int, seed: int) -> list[tuple[Mission, int]]:
    """`count` missions, each with one or two constraint challenges (so that one can be taken
    away), some other challenge now and then, 4 to 6 of the 7 goals (so that one can be
    added), and the rest of the rules' pieces drawn too; each with the player count it is
    checked at."""
    rng = random.Random(seed)
    others = [c for c in CHALLENGES if c not in CONSTRAINTS]
    out: list[tuple[Mission, int]] = []
    while len(out) < count:
        constraints = tuple(rng.sample(CONSTRAINTS, rng.choice((1, 1, 2))))
        if any(clash <= set(constraints) for clash in CLASHES):
            continue
        k = len(out)
        goals = tuple(sorted(rng.sample(GOAL_IDS, rng.randint(4, 6))))
        out.append((Mission(
            f"drawn-{seed}-{k}", k + 1, {"en": f"Drawn {k}"}, 3, rounds=rng.randint(1, 4),
            lives=rng.randint(1, 3),
            allowed_failures={p: rng.randint(0, p - 2) for p in (3, 4, 5)},
            challenges=constraints + tuple(rng.sample(others, rng.choice((0, 0, 1)))),
            actions=tuple(rng.sample(list(Action), rng.randint(0, 2))), goals=goals,
            hand_goals=len(goals), super=rng.random() < 0.2, hyper=rng.random() < 0.2),
            rng.choice((3, 4, 5))))
    return out


def relaxations(mission: Mission, players: int) -> list[tuple[str, str, Mission]]:
    """(kind, name, mission) for each way to make `mission` easier at `players`: a constraint
    challenge taken away, a life more, a failure more allowed, a round fewer, a goal card more
    (dealt into the hand, as every goal card of these missions is: every hand stays counted).
    The id is kept: the same seeds deal the games."""
    out = [("constraint", f"-{c}", replace(mission, challenges=tuple(
        x for x in mission.challenges if x != c))) for c in mission.challenges
        if c in CONSTRAINTS]
    out.append(("life", "+life", replace(mission, lives=mission.lives + 1)))
    if mission.allowed_failures[players] < players - 1:
        out.append(("failure", "+failure", replace(mission, allowed_failures={
            **mission.allowed_failures, players: mission.allowed_failures[players] + 1})))
    if mission.rounds > 1:
        out.append(("round", "-round", replace(mission, rounds=mission.rounds - 1)))
    missing = sorted(set(GOAL_IDS) - set(mission.goals))
    if missing:
        out.append(("goal", f"+{missing[0]}", replace(
            mission, goals=tuple(sorted((*mission.goals, missing[0]))),
            hand_goals=mission.hand_goals + 1)))
    return out


#: Drawn once for these checks (seed and count chosen before any was played) and never
#: changed to make a check pass.
DRAWN = drawn(6, seed=7)
#: Games per table of the ladder: at 60 a rating's 95% interval spans about 0.1 of skill
#: (measured 2026-11-29), narrow enough for a systematic rise of a star to show.
LADDER_GAMES = 60
_LADDERS: dict[tuple[int, str], Estimate] = {}


def _ladder(rulebook, index: int, name: str = "") -> Estimate:
    """The estimate of drawn mission `index` (relaxed as `name` says) at its player count:
    every table of the ladder on the same deals, as the studio plays them; remembered."""
    key = (index, name)
    if key not in _LADDERS:
        mission, players = DRAWN[index]
        if name:
            mission = next(m for _, label, m in relaxations(mission, players) if label == name)
        seeds = _seeds(mission, players, LADDER_GAMES)
        tables = play_tables(mission, rulebook, COLORS, players, seeds)
        estimate = estimate_from(mission, {players: tables})
        assert estimate is not None
        _LADDERS[key] = estimate
    return _LADDERS[key]


#: Random play's games per drawn mission: its rate is known well (about a point at 5%), so
#: that the rungs are set against random play's rate, not against its luck in 60 games.
RANDOM_GAMES = 20 * LADDER_GAMES


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(DRAWN)))
def test_every_rung_of_the_ladder_is_at_least_random_play(rulebook, index):
    mission, players = DRAWN[index]
    curve = _ladder(rulebook, index).by_count[players].curve
    # The ladder's deals and more (the ladder's are the first LADDER_GAMES).
    seeds = _seeds(mission, players, RANDOM_GAMES)
    random_low, _ = wilson(play_batch(mission, rulebook, COLORS, players, "random",
                                      seeds).wins, RANDOM_GAMES)
    # Within the intervals: no rung's 95% interval lies wholly below random play's.
    below = [(s, curve.bounds(s)) for s in RUNGS if curve.bounds(s)[1] < random_low]
    assert below == [], (mission.id, random_low, below)


def _claimed(estimate: Estimate, players: int) -> int | None:
    """The stars an estimate claims at `players`; None where it says the bot limits it
    (the oracle beats the expert by more than BOT_LIMIT): it then claims none."""
    return None if estimate.limited_by_bot else estimate.by_count[players].reading.stars


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_a_relaxation_never_raises_the_stars(rulebook, kind):
    # The criterion: on the same deals, the stars the relaxed mission is given (read where
    # its fitted curve crosses TARGET) are at most the most stars the mission's own 95%
    # interval allows. The tolerance is that interval and no more; both ladders play the very
    # same deals (a paired comparison). Experts that trusted novices to follow the plan, as
    # before sim.mixed, rated a mission without a constraint more stars than that
    # (docs/difficulty.md, "Relaxations"; bench/relaxations.py --trusting). A relaxed estimate
    # that says the bot limits it (action I) claims no stars.
    judged, raised = 0, []
    for index, (mission, players) in enumerate(DRAWN):
        before = _ladder(rulebook, index).by_count[players].reading
        for found, name, _ in relaxations(mission, players):
            if found != kind:
                continue
            stars = _claimed(_ladder(rulebook, index, name), players)
            if stars is None:
                continue
            judged += 1
            if stars > before.most:
                raised.append((mission.id, players, name, before, stars))
    assert judged >= 2, kind
    assert raised == []


@pytest.mark.slow
def test_the_ladder_s_tables_win_more_with_more_experts(rulebook):
    # No table wins less than one with fewer experts beyond both 95% intervals (the curve's
    # `violations`, which a playtest reports): the raw tables, before the monotone fit.
    falls = {DRAWN[index][0].id: _ladder(rulebook, index).by_count[players].curve.violations()
             for index, (_, players) in enumerate(DRAWN)}
    assert {m: v for m, v in falls.items() if v} == {}
