"""What a mission's games say: its difficulty read on the skill ladder, per player count and
pooled, and what looks wrong (unwinnable, too easy, limited by the bot, a ladder that falls,
declared stars outside the estimate). docs/difficulty.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from synergy_forge.core.mission import Mission
from synergy_forge.core.rules import Rulebook
from synergy_forge.sim.ladder import RUNGS, Curve, PooledCurve, Reading, Violation, read
from synergy_forge.sim.model import MissionModel
from synergy_forge.sim.tables import (
    CEILING_BOT,
    NOVICE,
    STAR_BOT,
    Cell,
    Tally,
    ceiling_needed,
    play_batch,
)

#: Win rates of the novices' table above which a mission is too easy to be worth a card.
TOO_EASY = 0.97
#: The oracle beating the expert by more than this says the expert, not the mission, is the
#: limit (docs/difficulty.md).
BOT_LIMIT = 0.10


def describe_stars(fewest: int, most: int) -> str:
    if fewest == most:
        return f"{fewest} star{'s' if fewest > 1 else ''}"
    return f"between {fewest} and {most} stars"


class Concern(StrEnum):
    """What a playtest finds wrong with a mission; the value is its code in the JSON report
    (docs/playtest.md), the words are the reporters' (reporting.playtest)."""

    UNWINNABLE = "unwinnable"  # no bot won any game
    UNWINNABLE_AT = "unwinnable-at-players"  # no bot won at one player count
    ORACLE_NEVER_WON = "oracle-never-won"  # the oracle lost every game other bots won some of
    TOO_EASY = "too-easy"  # the novices' table wins nearly always
    BEYOND_EXPERT = "beyond-expert"  # not even the expert wins TARGET of its games
    LIMITED_BY_BOT = "limited-by-bot"  # the expert, not the mission, sets the ladder's top
    NOT_MONOTONE = "ladder-not-monotone"  # a table won less than one with fewer experts
    STARS_DISAGREE = "declared-stars-outside-estimate"


@dataclass(frozen=True)
class Finding:
    """One concern about a mission, with the figures that show it: `bot` and `losses` are the
    bot whose games show it and those games (how they were lost); `players` a player count;
    `games` and `win_rate` the games it rests on; `winners` (bot, wins) of the others."""

    concern: Concern
    bot: str | None = None
    losses: Tally | None = None
    players: int | None = None
    games: int | None = None
    win_rate: float | None = None
    skill: float | None = None
    winners: tuple[tuple[str, int], ...] = ()
    stars: tuple[int, int] | None = None  # the estimate's fewest and most, against declared
    #: the rate it is compared with (the oracle's, a table with fewer experts)
    other_rate: float | None = None
    violation: Violation | None = None

    @property
    def fails_check(self) -> bool:
        """What `playtest --check` fails on: an unwinnable mission or player count, declared
        stars outside the estimate."""
        return self.concern in (Concern.UNWINNABLE, Concern.UNWINNABLE_AT,
                                Concern.STARS_DISAGREE)


@dataclass
class CountEstimate:
    """The ladder at one player count: its tables' games, the curve and what it reads."""

    players: int
    curve: Curve
    reading: Reading


@dataclass
class Estimate:
    """A mission's difficulty: the skill a table needs to win it (TARGET of its games), with
    the range its intervals allow, and the stars that skill earns; pooled over the player
    counts, and at each."""

    mission: Mission
    curve: PooledCurve
    reading: Reading
    by_count: dict[int, CountEstimate]
    #: the oracle's games per player count, where they were played (it sees every hand)
    ceiling: dict[int, Tally]
    #: the expert, not the mission, is the limit: the rating may be too high (see findings)
    limited_by_bot: bool
    findings: list[Finding]

    @property
    def skill(self) -> float | None:
        """The skill needed; None: not even the expert wins TARGET of its games."""
        return self.reading.skill

    @property
    def skill_low(self) -> float | None:
        return self.reading.skill_low

    @property
    def skill_high(self) -> float | None:
        return self.reading.skill_high

    @property
    def fewest(self) -> int:
        """The fewest stars the intervals allow; where the bot is the limit, any fewer."""
        return 1 if self.limited_by_bot else self.reading.fewest

    @property
    def most(self) -> int:
        return self.reading.most

    @property
    def stars(self) -> int:
        return self.reading.stars

    @property
    def fails_check(self) -> bool:
        """An unwinnable mission (or player count) or declared stars outside the estimate:
        what `playtest --check` fails on."""
        return any(f.fails_check for f in self.findings)

    @property
    def expert(self) -> Tally:
        """The ladder's top: the experts' own games, every player count."""
        total = Tally()
        for count, entry in self.by_count.items():
            total.add(_table(entry, count))
        return total

    @property
    def gap(self) -> float | None:
        """The oracle's win rate minus the expert's on the same deals, where it played."""
        if not self.ceiling:
            return None
        oracle, expert = Tally(), Tally()
        for count, tally in self.ceiling.items():
            oracle.add(tally)
            expert.add(_table(self.by_count[count], count))
        return oracle.win_rate - expert.win_rate

    def rungs(self, players: int | None = None) -> list[tuple[float, float, float, float]]:
        """(skill, win rate, low, high) at each rung, pooled or at one player count."""
        curve = self.curve if players is None else self.by_count[players].curve
        return [(s, curve.rate(s), *curve.bounds(s)) for s in RUNGS]

    def rate_at(self, players: int) -> Callable[[float], float]:
        """The win rate over skill at one player count (people's games are set against it)."""
        return self.by_count[players].curve.rate

    def counts_apart(self) -> list[CountEstimate]:
        """The player counts whose stars differ from the pooled rating by a star or more."""
        return [e for e in self.by_count.values() if e.reading.stars != self.reading.stars]


def _table(entry: CountEstimate, experts: int) -> Tally:
    curve = entry.curve
    return Tally(games=curve.games[experts], wins=curve.wins[experts])


def estimates(cells: Sequence[Cell]) -> list[Estimate]:
    """Per mission: the skill a table needs and its stars, and what looks wrong."""
    own: dict[str, list[Cell]] = {}
    missions: dict[str, Mission] = {}
    for cell in cells:
        missions[cell.mission.id] = cell.mission
        own.setdefault(cell.mission.id, []).append(cell)
    out = []
    for mission_id, mine in own.items():
        estimate = _estimate(missions[mission_id], mine)
        if estimate is not None:
            out.append(estimate)
    return out


def _estimate(mission: Mission, cells: list[Cell]) -> Estimate | None:
    ladder: dict[int, dict[int, Tally]] = {}
    ceiling: dict[int, Tally] = {}
    for cell in cells:
        if cell.experts is not None:
            ladder.setdefault(cell.player_count, {})[cell.experts] = cell.tally
        elif cell.bot == CEILING_BOT:
            ceiling[cell.player_count] = cell.tally
    if not ladder:
        return None
    by_count = {}
    for count in sorted(ladder):
        tables = [ladder[count].get(k, Tally()) for k in range(count + 1)]
        curve = Curve(count, [t.wins for t in tables], [t.games for t in tables])
        by_count[count] = CountEstimate(count, curve, read(curve))
    pooled = PooledCurve([e.curve for e in by_count.values()])
    reading = read(pooled)
    findings = _winnable(mission, cells)
    limited = False
    for count, entry in by_count.items():
        oracle = ceiling.get(count)
        top = _table(entry, count)
        if oracle is not None and oracle.games and top.games and \
                oracle.win_rate - top.win_rate > BOT_LIMIT:
            limited = True
            findings.append(Finding(Concern.LIMITED_BY_BOT, CEILING_BOT, players=count,
                                    games=oracle.games, win_rate=top.win_rate,
                                    other_rate=oracle.win_rate))
        for violation in entry.curve.violations():
            if violation.more == count:  # the experts below a table with fewer of them
                limited = True
                findings.append(Finding(Concern.LIMITED_BY_BOT, STAR_BOT, players=count,
                                        violation=violation))
            else:
                findings.append(Finding(Concern.NOT_MONOTONE, STAR_BOT, players=count,
                                        violation=violation))
    novices = Tally()
    for entry in by_count.values():
        novices.add(_table(entry, 0))
    if novices.games and novices.interval[0] >= TOO_EASY:
        findings.append(Finding(Concern.TOO_EASY, NOVICE, skill=0.0,
                                win_rate=novices.win_rate))
    if reading.skill is None and not limited:
        findings.append(Finding(Concern.BEYOND_EXPERT, STAR_BOT,
                                win_rate=_expert_rate(by_count)))
    estimate = Estimate(mission, pooled, reading, by_count, ceiling, limited, findings)
    fewest, most = estimate.fewest, estimate.most
    # Stars declared per player count are checked at each count; one number, pooled.
    if not mission.stars_per_count and not fewest <= mission.stars <= most:
        findings.append(Finding(Concern.STARS_DISAGREE, stars=(fewest, most)))
    for count, declared in sorted(mission.stars_per_count.items()):
        at = by_count.get(count)
        if at is None:
            continue
        low = 1 if limited else at.reading.fewest
        if not low <= declared <= at.reading.most:
            findings.append(Finding(Concern.STARS_DISAGREE, players=count,
                                    stars=(low, at.reading.most)))
    return estimate


def _expert_rate(by_count: dict[int, CountEstimate]) -> float:
    total = Tally()
    for count, entry in by_count.items():
        total.add(_table(entry, count))
    return total.win_rate


def _winnable(mission: Mission, cells: list[Cell]) -> list[Finding]:
    """Unwinnable, at all or at a player count: claimed only with the expert or the oracle in
    the run, and disproved by any bot's win (neither is exhaustive); each claim comes with the
    games that show its cause."""
    findings: list[Finding] = []
    by_count: dict[int, Tally] = {}
    experts: dict[int, Tally] = {}  # the experts' own table at each count
    ceiling: dict[int, Tally] = {}  # the oracle's games at each count
    oracle = Tally()
    by_bot: dict[str, Tally] = {}
    for cell in cells:
        by_count.setdefault(cell.player_count, Tally()).add(cell.tally)
        if cell.bot == CEILING_BOT:
            oracle.add(cell.tally)
        if cell.experts == cell.player_count:
            experts.setdefault(cell.player_count, Tally()).add(cell.tally)
        if cell.bot == CEILING_BOT:
            ceiling.setdefault(cell.player_count, Tally()).add(cell.tally)
        by_bot.setdefault(cell.label if cell.experts is None else cell.bot,
                          Tally()).add(cell.tally)
    # The strongest player's games show the cause: the oracle's where it played.
    name, best = (CEILING_BOT, ceiling) if oracle.games else (STAR_BOT, experts)
    top = Tally()
    for tally in best.values():
        top.add(tally)
    if not any(t.wins for t in by_count.values()):
        return [Finding(Concern.UNWINNABLE, name, top)]
    if oracle.games and not oracle.wins:
        winners = tuple((bot, t.wins) for bot, t in by_bot.items() if t.wins)
        findings.append(Finding(Concern.ORACLE_NEVER_WON, CEILING_BOT, oracle, winners=winners))
    for count, tally in sorted(by_count.items()):
        if tally.games and not tally.wins:
            findings.append(Finding(Concern.UNWINNABLE_AT, name, best.get(count, tally),
                                    players=count, games=tally.games))
    return findings


# -- a ladder grown batch by batch (the studio) -------------------------------------------------


@dataclass
class LadderTally:
    """One player count's games at every table of the ladder (and the oracle's beside its
    top where hands cannot be counted), growing batch by batch: the studio's estimate, which
    plays every table evenly, not knowing how long a page stays open."""

    players: int
    tables: dict[int, Tally] = field(default_factory=dict)
    ceiling: Tally | None = None

    def add(self, other: LadderTally) -> None:
        for experts, tally in other.tables.items():
            self.tables.setdefault(experts, Tally()).add(tally)
        if other.ceiling is not None:
            if self.ceiling is None:
                self.ceiling = Tally()
            self.ceiling.add(other.ceiling)

    @property
    def games(self) -> int:
        """Games per table."""
        return min((t.games for t in self.tables.values()), default=0)


def play_tables(mission: Mission, rulebook: Rulebook, colors: Sequence[str], players: int,
                seeds: Sequence[int]) -> LadderTally:
    """The same deals at every table of the ladder at one player count (and the oracle's,
    where it tells whether the expert is the limit), with one mission model for them all."""
    model = MissionModel()
    out = LadderTally(players, {k: play_batch(mission, rulebook, colors, players, STAR_BOT,
                                              seeds, experts=k, model=model)
                                for k in range(players + 1)})
    if ceiling_needed(mission):
        out.ceiling = play_batch(mission, rulebook, colors, players, CEILING_BOT, seeds,
                                 model=model)
    return out


def estimate_from(mission: Mission, by_count: dict[int, LadderTally]) -> Estimate | None:
    """The estimate from each player count's ladder, as `playtest` makes it from its cells."""
    cells = [Cell(mission, count, STAR_BOT, tally, experts)
             for count, ladder in sorted(by_count.items())
             for experts, tally in sorted(ladder.tables.items())]
    cells += [Cell(mission, count, CEILING_BOT, ladder.ceiling)
              for count, ladder in sorted(by_count.items()) if ladder.ceiling is not None]
    return _estimate(mission, cells) if cells else None
