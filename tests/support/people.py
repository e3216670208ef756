"""A population of another policy family than the ladder's, for checking the model of people
(sim.people): per game, each seat is a bot drawn from a mix (random, greedy, coop, expert),
on missions drawn at random that nobody tuned for. Shared by tests/sim/test_people.py and the
figures in docs/difficulty.md (`python tests/support/people.py`)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from synergy_forge.authoring.definitions import standard_rulebook
from synergy_forge.core.cards import Action
from synergy_forge.core.engine import Game
from synergy_forge.core.mission import Mission
from synergy_forge.sim.ladder import RUNGS, Curve
from synergy_forge.sim.people import Cell, fit
from synergy_forge.sim.play import play
from synergy_forge.sim.playtest import STAR_BOT, Playable, estimates, game_seed, run

COLORS = ("red", "yellow", "green", "blue", "purple")
CHALLENGES = ("difference", "double-plus-3", "even", "five-is-ten", "goals-left",
              "high-to-low", "low-to-high", "maximum-7", "minimum-5", "no-doubles",
              "one-is-six", "uneven")
#: Each seat of each game: a bot drawn with these weights (not the ladder's expert@s).
MIX = {"random": 0.15, "greedy": 0.25, "coop": 0.3, "expert": 0.3}


def drawn_missions(count: int, seed: int) -> list[Mission]:
    """Short missions from the rules' pieces, each for one player count."""
    rng = random.Random(seed)
    out = []
    for k in range(count):
        players = rng.choice([3, 4, 5])
        out.append(Mission(
            f"drawn-{k}", k + 1, {"en": f"Drawn {k}"}, 3, players=(players,),
            rounds=rng.randint(1, 3), lives=rng.randint(1, 3),
            allowed_failures={p: rng.choice([0, 0, 1]) for p in (3, 4, 5)},
            challenges=tuple(rng.sample(CHALLENGES, rng.choice([0, 1, 1, 2]))),
            actions=tuple(rng.sample(list(Action), rng.randint(0, 2))),
            super=rng.random() < 0.2, hyper=rng.random() < 0.2,
            hand_numbers=rng.choice([10, 10, 7])))
    return out


def population_games(mission: Mission, games: int, seed: int) -> list[bool]:
    """`games` wins and losses of the mixed population, each game's seats drawn anew."""
    rulebook = standard_rulebook()
    players = mission.players[0]
    rng = random.Random(f"population:{seed}:{mission.id}")
    names, weights = list(MIX), list(MIX.values())
    out = []
    for i in range(games):
        game = Game(mission, players, game_seed(seed + 7, mission.id, players, i), rulebook,
                    COLORS)
        play(game, rng.choices(names, weights, k=players))
        assert game.outcome is not None
        out.append(game.outcome.won)
    return out


@dataclass
class World:
    """Missions with their ladder (each table's wins and games, k = 0..players experts) and
    the population's games on each."""

    missions: list[Mission]
    tables: dict[str, tuple[tuple[int, ...], tuple[int, ...]]]
    games: dict[str, list[bool]]

    def curve(self, mission: Mission) -> Curve:
        wins, games = self.tables[mission.id]
        return Curve(mission.players[0], wins, games)


def world(missions: int, ladder_games: int, people_games: int, seed: int) -> World:
    drawn = drawn_missions(missions, seed)
    rulebook = standard_rulebook()
    found = estimates(run([Playable(m, rulebook, COLORS) for m in drawn], [STAR_BOT], None,
                          ladder_games, seed, jobs=1, walk=False))
    tables = {e.mission.id: (e.by_count[e.mission.players[0]].curve.wins,
                             e.by_count[e.mission.players[0]].curve.games) for e in found}
    return World(drawn, tables, {m.id: population_games(m, people_games, seed)
                                 for m in drawn})


@dataclass
class Coverage:
    """Held-out missions' checks: `inside` of `total` held-out missions' wins (all their
    population games) fell in the central 90% of the wins predicted for that many games
    (randomised where a count straddles an edge: a discrete count's exact check); `rates`
    of `total` population win rates fell in the 90% interval of the long-run rate (that
    rate is itself estimated from the games); `widths`, those intervals' widths."""

    inside: int = 0
    rates: int = 0
    total: int = 0
    widths: list[float] = field(default_factory=list)


def coverage(w: World, trained: int, games: int, splits: int, seed: int) -> Coverage:
    """Over `splits` random splits: `trained` missions each with `games` of the population's
    games (drawn from its own), the others held out and predicted."""
    rng = random.Random(seed)
    found = Coverage()
    for _ in range(splits):
        order = rng.sample(w.missions, len(w.missions))
        train = {m.id for m in order[:trained]}
        cells = []
        for m in w.missions:
            won = rng.sample(w.games[m.id], games) if m.id in train else []
            cells.append(Cell(m.id, m.players[0], w.curve(m).rate, len(won), sum(won)))
        for p in fit(cells).predictions:
            if p.mission in train:
                continue
            played, wins = len(w.games[p.mission]), sum(w.games[p.mission])
            chances = p.chances(played)
            position = sum(chances[:wins]) + rng.random() * chances[wins]
            found.inside += 0.05 <= position <= 0.95
            found.rates += p.rate.low <= wins / played <= p.rate.high
            found.total += 1
            found.widths.append(p.rate.high - p.rate.low)
    return found


if __name__ == "__main__":  # the figures in docs/difficulty.md
    import pickle
    import sys
    import time
    from pathlib import Path

    missions, ladder, people, seed = (int(a) for a in sys.argv[1:5])
    cache = Path(sys.argv[5]) if len(sys.argv) > 5 else None
    start = time.time()
    if cache is not None and cache.exists():
        made = pickle.loads(cache.read_bytes())
    else:
        made = world(missions, ladder, people, seed)
        if cache is not None:
            cache.write_bytes(pickle.dumps(made))
    print(f"world: {missions} missions, {ladder} ladder games a level, {people} population "
          f"games each: {time.time() - start:.0f} s")
    for m in made.missions:
        rate = sum(made.games[m.id]) / len(made.games[m.id])
        ladder_line = " ".join(f"{made.curve(m).rate(r):.2f}" for r in RUNGS)
        print(f"  {m.id} at {m.players[0]}: ladder {ladder_line}  population {rate:.2f}")
    for trained, games in ((8, 10), (12, 20), (16, 30)):
        c = coverage(made, trained, games, 20, seed)
        print(f"trained on {trained} missions x {games} games: held-out wins inside "
              f"{c.inside}/{c.total} = {c.inside / c.total:.3f} (claimed 0.90); rates inside "
              f"the rate's interval {c.rates / c.total:.3f}; mean width "
              f"{sum(c.widths) / len(c.widths):.2f}")
