"""`playtest`'s report, rendered from its typed result (sim.playtest.PlaytestResult): a text
summary, the documented JSON object (docs/playtest.md) and an HTML report with charts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from synergy_forge.core.mission import Mission
from synergy_forge.core.referee import LossReason
from synergy_forge.reporting import Output
from synergy_forge.reporting.losses import loss_cause, loss_label
from synergy_forge.resources import templates_dir
from synergy_forge.sim.ladder import (
    NOVICE,
    RUNGS,
    SKILL_BANDS,
    TARGET,
    Curve,
    PooledCurve,
    Reading,
)
from synergy_forge.sim.playtest import (
    STAR_BOT,
    Cell,
    Concern,
    Estimate,
    Finding,
    PlaytestResult,
    Tally,
    describe_stars,
)

BOT_COLORS = {"random": "#9e9e9e", "novice": "#c0a060", "greedy": "#f2b701",
              "coop": "#1b6fc2", "expert": "#2e7d32", "oracle": "#7b3fa0"}
#: Rates are reported to 4 decimals (docs/playtest.md); the text shows the same figures.
DECIMALS = 4


@dataclass
class MissionReport:
    """One mission's part of a playtest: its cells in the order played, and its estimate."""

    mission: Mission
    cells: list[Cell]
    estimate: Estimate | None

    def pooled(self, bot: str) -> Tally:
        """The bot's games at every player count, added up (the expert's at the ladder's
        top only)."""
        total = Tally()
        for cell in self.cells:
            if cell.label == bot:
                total.add(cell.tally)
        return total


def missions(result: PlaytestResult) -> list[MissionReport]:
    """Every mission of the result, by number then id."""
    found: dict[str, MissionReport] = {}
    for cell in result.cells:
        found.setdefault(cell.mission.id, MissionReport(cell.mission, [], None)).cells.append(
            cell)
    for estimate in result.estimates:
        found[estimate.mission.id].estimate = estimate
    return sorted(found.values(), key=lambda m: (m.mission.number, m.mission.id))


def _rate(value: float) -> float:
    return round(value, DECIMALS)


def _pct(value: float) -> str:
    return f"{_rate(value) * 100:.0f}%"


def _interval(low: float, high: float) -> str:
    return f"[{_pct(low)}, {_pct(high)}]"


def skill_text(skill: float | None) -> str:
    """A skill needed, for people: "0.35", or "more than the expert's" (None)."""
    return "more than the expert's" if skill is None else f"{skill:.2f}"


def needs(e: Estimate | Reading) -> str:
    """"needs skill 0.35 [0.28, 0.41]": the skill needed and the range its intervals allow."""
    if e.skill_low == e.skill_high:
        return f"needs skill {skill_text(e.skill)}"
    return (f"needs skill {skill_text(e.skill)} [{skill_text(e.skill_low)}, "
            f"{skill_text(e.skill_high)}]")


def rating(e: Estimate) -> str:
    """The estimate's stars in words: "3 stars", "between 2 and 3 stars", or, where the bot
    is the limit, "at most 4 stars (limited by the bot)"."""
    if e.limited_by_bot:
        return f"at most {describe_stars(e.most, e.most)} (limited by the bot)"
    return describe_stars(e.fewest, e.most)


def ladder_line(curve: Curve | PooledCurve) -> str:
    """The win rate at each rung of skill: "0: 12%  0.25: 35%  0.5: 54%  0.75: 89%  1: 100%"."""
    return "  ".join(f"{s:g}: {_pct(curve.rate(s))}" for s in RUNGS)


def tables_line(curve: Curve) -> str:
    """Each table's raw win rate and games: "novice 20% of 20, 1 expert 35% of 40, …"."""
    parts = []
    for k in range(curve.players + 1):
        games = curve.games[k]
        name = NOVICE + "s" if k == 0 else STAR_BOT + "s" if k == curve.players else \
            f"{k} expert{'s' if k > 1 else ''}"
        parts.append(f"{name} {_pct(curve.wins[k] / games)} of {games}" if games
                     else f"{name} not played")
    return ", ".join(parts)


def declared(mission: Mission) -> str:
    """The mission's declared stars: "2★", or per player count "3p 2★ · 4p 3★ · 5p 2★"."""
    per_count = mission.stars_per_count
    if per_count:
        return " · ".join(f"{p}p {s}★" for p, s in sorted(per_count.items()))
    return f"{mission.stars}★"


def _mission_lines(m: MissionReport) -> Iterator[str]:
    """A mission's heading, its win rates per player count and its warnings; each further
    section of the text report is one more generator of lines like this one."""
    e = m.estimate
    head = f"{m.mission.number:>3} {m.mission.label()} (declared {declared(m.mission)})"
    if e is not None:
        gap = "" if e.gap is None else f"; oracle gap {_rate(e.gap) * 100:+.0f} pts"
        head += f": {rating(e)} ({needs(e)}){gap}"
    yield head
    if e is not None:
        yield f"      skill ladder: {ladder_line(e.curve)}"
        for apart in e.counts_apart():
            reading = apart.reading
            yield (f"      at {apart.players} players: "
                   f"{describe_stars(reading.fewest, reading.most)} ({needs(reading)})")
    by_count: dict[int, list[str]] = {}
    for cell in m.cells:
        if cell.experts is None:
            by_count.setdefault(cell.player_count, []).append(
                f"{cell.label} {_pct(cell.tally.win_rate)} {_interval(*cell.tally.interval)}")
    counts = sorted(set(by_count) | (set(e.by_count) if e is not None else set()))
    for count in counts:
        parts = by_count.get(count, [])
        if e is not None and count in e.by_count and len(e.by_count) > 1:
            parts = [f"ladder {ladder_line(e.by_count[count].curve)}", *parts]
        yield f"      {count} players:" + "".join(f"  {part}" for part in parts)
        if e is not None and count in e.by_count:
            yield f"        tables: {tables_line(e.by_count[count].curve)}"
        # How games were lost: each bot's, and the experts' own table's (not each mix's).
        yield from (f"        {line}" for cell in m.cells if cell.player_count == count
                    and cell.experts in (None, count) for line in [_losses(cell)] if line)
    for finding in e.findings if e is not None else ():
        yield f"      ! {finding_text(finding, m.mission)}"


def _losses(cell: Cell) -> str:
    """One bot's lost games at one player count: why, with shares; rounds won, lives left."""
    t, mission = cell.tally, cell.mission
    lost = t.games - t.wins
    if not lost:
        return ""
    why = ", ".join(f"{loss_label(reason)} {_pct(count / lost)}" for reason, count
                    in sorted(t.losses.items(), key=lambda item: (-item[1], item[0])))
    return (f"{cell.label} lost {lost}: {why}; per game {t.rounds_won / t.games:.1f}/"
            f"{mission.rounds} rounds won, {mission.lives - t.lives_lost / t.games:.1f}/"
            f"{mission.lives} lives left")


def _shares(tally: Tally) -> list[tuple[LossReason, float]]:
    """(reason, share of the lost games), the commonest first."""
    lost = tally.games - tally.wins
    if not lost:
        return []
    return sorted(((reason, count / lost) for reason, count in tally.losses.items()),
                  key=lambda item: (-item[1], item[0]))


def why_lost(tally: Tally, mission: Mission, who: str) -> str:
    """What the figures say about how `who`'s games were lost: the commonest ends with their
    shares, the rounds won and lives left on average, and for goal cards the R23 arithmetic."""
    shares = _shares(tally)
    if not shares or not tally.games:
        return ""
    ends = ", ".join(f"{loss_cause(reason)} ({share:.0%})" for reason, share in shares[:2])
    rounds = tally.rounds_won / tally.games
    lives = mission.lives - tally.lives_lost / tally.games
    text = (f"{who} games ended when {ends}, after {rounds:.1f} of {mission.rounds} rounds won "
            f"with {lives:.1f} of {mission.lives} lives left on average")
    if shares[0][0] is LossReason.GOALS:
        deck, spare = len(mission.goals), len(mission.goals) - mission.rounds
        room = "no failed round" if spare <= 0 else \
            f"room for {spare} failed round{'s' if spare > 1 else ''}"
        text += (f": a {deck}-card goal deck with {mission.rounds} rounds to win leaves {room}"
                 " (R23)")
    elif shares[0][0] is LossReason.CHALLENGE:
        text += ": a player was left with no card that keeps the challenges (R9)"
    elif shares[0][0] is LossReason.NUMBERS:
        text += f": a hand of {mission.hand_numbers} number cards runs short (R21)"
    return text


def _cause(tally: Tally | None, mission: Mission, who: str) -> str:
    text = why_lost(tally, mission, who) if tally is not None else ""
    return f"; {text}" if text else ""


def finding_text(f: Finding, mission: Mission) -> str:
    """A playtest's finding about `mission` in words (the text report's "!" lines, and the
    JSON's `warnings`)."""
    bot = "the oracle" if f.bot == "oracle" else f"the {f.bot}"
    where = f" at {f.players} players" if f.players is not None else ""
    if f.concern is Concern.UNWINNABLE:
        who = "the oracle, which sees every hand" if f.bot == "oracle" else bot
        return f"unwinnable: no bot won, not even {who}{_cause(f.losses, mission, 'its')}"
    if f.concern is Concern.ORACLE_NEVER_WON:
        winners = ", ".join(f"{name} {wins}" for name, wins in f.winners)
        return (f"the oracle never won, though other bots did ({winners} games)"
                f"{_cause(f.losses, mission, 'its')}")
    if f.concern is Concern.UNWINNABLE_AT:
        return (f"unwinnable at {f.players} players: no bot won any of its {f.games} games "
                f"there, not even {bot}{_cause(f.losses, mission, bot)}")
    if f.concern is Concern.TOO_EASY:
        return (f"too easy to be worth a card: even a table of novices, who play at random, "
                f"wins {f.win_rate:.0%} of games")
    if f.concern is Concern.BEYOND_EXPERT:
        return f"not even the expert wins {TARGET:.0%} of its games ({f.win_rate:.0%})"
    if f.concern is Concern.LIMITED_BY_BOT:
        if f.violation is not None:
            v = f.violation
            return (f"limited by the bot{where}: the experts won {_pct(v.more_rate)} of their "
                    f"games, less than a table with {v.fewer} of them ({_pct(v.fewer_rate)}); "
                    "the stars are an upper bound")
        assert f.win_rate is not None and f.other_rate is not None
        return (f"limited by the bot{where}: the oracle, which sees every hand, wins "
                f"{_pct(f.other_rate)} where the expert wins {_pct(f.win_rate)} of the same "
                "deals; the stars are an upper bound")
    if f.concern is Concern.NOT_MONOTONE:
        assert f.violation is not None
        v = f.violation
        more = f"{v.more} expert{'s' if v.more != 1 else ''}"
        return (f"the ladder falls{where}: a table with {more} won {_pct(v.more_rate)}, less "
                f"than one with {v.fewer} ({_pct(v.fewer_rate)}); fitted flat there")
    assert f.concern is Concern.STARS_DISAGREE and f.stars is not None
    stars = mission.stars if f.players is None else \
        mission.stars_at(f.players)
    return (f"declared {stars} star{'s' if stars > 1 else ''}{where}, estimated "
            f"{describe_stars(*f.stars)}")


def _finding_to_json(f: Finding) -> dict[str, Any]:
    """A finding's machine form (docs/playtest.md): its code and the figures behind it."""
    out: dict[str, Any] = {"code": f.concern.value}
    if f.bot is not None:
        out["bot"] = f.bot
    if f.players is not None:
        out["players"] = f.players
    if f.games is not None:
        out["games"] = f.games
    if f.skill is not None:
        out["skill"] = f.skill
    if f.win_rate is not None:
        out["win_rate"] = _rate(f.win_rate)
    if f.winners:
        out["winners"] = dict(f.winners)
    if f.other_rate is not None:
        out["oracle_win_rate"] = _rate(f.other_rate)
    if f.violation is not None:
        v = f.violation
        out["tables"] = {"fewer_experts": v.fewer, "fewer_win_rate": _rate(v.fewer_rate),
                         "more_experts": v.more, "more_win_rate": _rate(v.more_rate)}
    if f.stars is not None:
        out["stars_low"], out["stars_high"] = f.stars
    if f.losses is not None:
        out["losses"] = dict(sorted(f.losses.losses.items()))
    return out


def text(result: PlaytestResult) -> Output:
    others = [b for b in result.bots if b != STAR_BOT]
    parts = []
    if STAR_BOT in result.bots:
        parts.append(f"the skill ladder: tables of experts and novices, {result.games} games "
                     "per mission and player count to start, more where a rating straddles "
                     "two bands and they can settle it")
    if others:
        parts.append(f"{', '.join(others)}: {result.games} games per mission and player count")
    lines = ["; ".join(parts) + f"; seed {result.seed}"]
    for m in missions(result):
        lines.extend(_mission_lines(m))
    return Output("\n".join(lines))


def _cell_to_json(cell: Cell) -> dict[str, Any]:
    t = cell.tally
    low, high = t.interval
    return {
        "players": cell.player_count, "bot": cell.bot, "experts": cell.experts,
        "table": cell.label, "games": t.games,
        "wins": t.wins, "win_rate": _rate(t.win_rate), "ci_low": _rate(low),
        "ci_high": _rate(high),
        "mean_rounds_won": round(t.rounds_won / t.games, 3) if t.games else 0,
        "mean_lives_lost": round(t.lives_lost / t.games, 3) if t.games else 0,
        "mean_lives_left": round(cell.mission.lives - t.lives_lost / t.games, 3)
        if t.games else 0,
        "losses": dict(sorted(t.losses.items())),
        "goals": {g: {"played": t.goals_played[g], "met": t.goals_met[g]}
                  for g in sorted(t.goals_played)},
    }


def _tally_to_json(t: Tally) -> dict[str, Any]:
    low, high = t.interval
    return {"games": t.games, "wins": t.wins, "win_rate": _rate(t.win_rate),
            "ci_low": _rate(low), "ci_high": _rate(high)}


def _skill(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def _rungs_to_json(curve: Curve | PooledCurve) -> list[dict[str, Any]]:
    return [{"skill": s, "win_rate": _rate(curve.rate(s)),
             "ci_low": _rate(curve.bounds(s)[0]), "ci_high": _rate(curve.bounds(s)[1])}
            for s in RUNGS]


def _reading_to_json(reading: Reading) -> dict[str, Any]:
    return {"skill_needed": _skill(reading.skill), "skill_low": _skill(reading.skill_low),
            "skill_high": _skill(reading.skill_high), "stars_low": reading.fewest,
            "stars_high": reading.most, "stars": describe_stars(reading.fewest, reading.most)}


def _estimate_to_json(e: Estimate) -> dict[str, Any]:
    expert = e.expert
    low, high = expert.interval
    return {
        "bot": STAR_BOT, "target_win_rate": TARGET,
        "skill_needed": _skill(e.skill), "skill_low": _skill(e.skill_low),
        "skill_high": _skill(e.skill_high),
        "rungs": _rungs_to_json(e.curve),
        "players": {str(p): {**_reading_to_json(c.reading), "rungs": _rungs_to_json(c.curve),
                             "tables": [{"experts": k, "games": c.curve.games[k],
                                         "wins": c.curve.wins[k],
                                         "win_rate": _rate(c.curve.table_rate(k))
                                         if c.curve.games[k] else None,
                                         "fitted": _rate(c.curve.fitted[k])}
                                        for k in range(p + 1)]}
                    for p, c in sorted(e.by_count.items())},
        "players_apart": [c.players for c in e.counts_apart()],
        "games": sum(c.curve.total_games for c in e.by_count.values()),
        "win_rate": _rate(expert.win_rate), "ci_low": _rate(low), "ci_high": _rate(high),
        "stars_low": e.fewest, "stars_high": e.most,
        "stars": rating(e), "limited_by_bot": e.limited_by_bot,
        "coordination_gap": None if e.gap is None else _rate(e.gap),
        "warnings": [finding_text(f, e.mission) for f in e.findings],
        "findings": [_finding_to_json(f) for f in e.findings],
        "fails_check": e.fails_check,
    }


def playtest_to_json(result: PlaytestResult) -> dict[str, Any]:
    """The documented JSON report (docs/playtest.md)."""
    out = []
    for m in missions(result):
        entry: dict[str, Any] = {
            "id": m.mission.id, "number": m.mission.number, "title": m.mission.label(),
            "declared_stars": m.mission.stars, "rounds": m.mission.rounds,
            "lives": m.mission.lives, "results": [_cell_to_json(c) for c in m.cells]}
        per_count = m.mission.stars_per_count
        if per_count:
            entry["declared_stars_per_players"] = {str(p): s for p, s in sorted(per_count.items())}
        if m.estimate is not None:
            entry["estimate"] = _estimate_to_json(m.estimate)
        out.append(entry)
    return {"games": result.games, "seed": result.seed, "bots": list(result.bots),
            "estimate": {"bot": STAR_BOT, "rungs": list(RUNGS), "target_win_rate": TARGET,
                         "skill_bands": [{"below_skill": b, "stars": s}
                                         for b, s in SKILL_BANDS]},
            "missions": out}


def to_json(result: PlaytestResult) -> Output:
    return Output(json.dumps(playtest_to_json(result), indent=2, ensure_ascii=False))


def html(result: PlaytestResult) -> Output:
    # Charts are a few bars and whiskers drawn as inline SVG by the template: the report stays
    # one self-contained file and needs no plotting library (docs/decisions.md).
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    env = Environment(loader=FileSystemLoader(templates_dir()),
                      autoescape=select_autoescape(default=True, default_for_string=True))
    rows = missions(result)
    losses = {m.mission.id: m.pooled(STAR_BOT).losses for m in rows}
    reasons = sorted(set().union(*losses.values())) if losses else []
    return Output(env.get_template("playtest.html.j2").render(
        result=result, missions=rows, losses=losses, reasons=reasons, colors=BOT_COLORS,
        star_bot=STAR_BOT, skill_bands=SKILL_BANDS, rungs=RUNGS, target=TARGET,
        describe_stars=describe_stars, needs=needs, rating=rating, declared=declared,
        finding_text=finding_text))
