"""`playtest`'s report, rendered from its typed result (sim.playtest.PlaytestResult): a text
summary, the documented JSON object (docs/playtest.md) and an HTML report with charts."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from synergy_forge.core.mission import Mission
from synergy_forge.core.referee import LossReason
from synergy_forge.reporting import Output
from synergy_forge.reporting.losses import loss_cause, loss_label
from synergy_forge.reporting.people import changed_json, changes_text
from synergy_forge.resources import templates_dir
from synergy_forge.sim.calibration import ENOUGH_GAMES, Calibration, PlayedGame
from synergy_forge.sim.playtest import (
    LADDER,
    SKILL_BANDS,
    STAR_BOT,
    TARGET,
    Cell,
    Concern,
    Estimate,
    Finding,
    Level,
    PlaytestResult,
    Tally,
    describe_stars,
)

BOT_COLORS = {"random": "#9e9e9e", "greedy": "#f2b701", "coop": "#1b6fc2", "expert": "#2e7d32",
              "oracle": "#7b3fa0"}
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


def needs(e: Estimate) -> str:
    """"needs skill 0.35 [0.28, 0.41]": the skill needed and the range its intervals allow."""
    if e.skill_low == e.skill_high:
        return f"needs skill {skill_text(e.skill)}"
    return (f"needs skill {skill_text(e.skill)} [{skill_text(e.skill_low)}, "
            f"{skill_text(e.skill_high)}]")


def ladder_line(levels: list[Level]) -> str:
    """The ladder's levels played, the expert first: "expert 98%  @0.75 90%  @0.5 41%"."""
    parts = []
    for level in reversed(levels):
        name = STAR_BOT if level.skill >= LADDER[-1] else f"@{level.skill:g}"
        parts.append(f"{name} {_pct(level.tally.win_rate)}")
    return "  ".join(parts)


def _mission_lines(m: MissionReport) -> Iterator[str]:
    """A mission's heading, its win rates per player count and its warnings; each further
    section of the text report is one more generator of lines like this one."""
    e = m.estimate
    head = f"{m.mission.number:>3} {m.mission.label()} (declared {m.mission.stars}★)"
    if e is not None:
        gap = "" if e.gap is None else f"; oracle gap {_rate(e.gap) * 100:+.0f} pts"
        head += f": {describe_stars(e.fewest, e.most)} ({needs(e)}){gap}"
    yield head
    if e is not None:
        yield f"      skill ladder: {ladder_line(e.levels)}"
    by_count: dict[int, list[str]] = {}
    for cell in m.cells:
        by_count.setdefault(cell.player_count, []).append(
            f"{cell.label} {_pct(cell.tally.win_rate)} {_interval(*cell.tally.interval)}")
    for count, parts in sorted(by_count.items()):
        yield f"      {count} players: " + "  ".join(parts)
        yield from (f"        {line}" for cell in m.cells if cell.player_count == count
                    for line in [_losses(cell)] if line)
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
        return (f"too easy to be worth a card: even a careless table (skill {f.skill:g}) wins "
                f"{f.win_rate:.0%} of games")
    if f.concern is Concern.BEYOND_EXPERT:
        return f"not even the expert wins {TARGET:.0%} of its games ({f.win_rate:.0%})"
    assert f.concern is Concern.STARS_DISAGREE and f.stars is not None
    return (f"declared {mission.stars} star{'s' if mission.stars > 1 else ''}, estimated "
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
    if f.stars is not None:
        out["stars_low"], out["stars_high"] = f.stars
    if f.losses is not None:
        out["losses"] = dict(sorted(f.losses.losses.items()))
    return out


def text(result: PlaytestResult) -> Output:
    ladder = f" (the {STAR_BOT}'s at each level of skill it needs)" if STAR_BOT in result.bots \
        else ""
    lines = [f"{result.games} games per mission, player count and bot{ladder}; seed "
             f"{result.seed}"]
    for m in missions(result):
        lines.extend(_mission_lines(m))
    return Output("\n".join(lines))


def _cell_to_json(cell: Cell) -> dict[str, Any]:
    t = cell.tally
    low, high = t.interval
    return {
        "players": cell.player_count, "bot": cell.bot, "skill": cell.skill, "games": t.games,
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


def _estimate_to_json(e: Estimate) -> dict[str, Any]:
    expert = e.expert
    low, high = expert.interval
    return {
        "bot": STAR_BOT, "target_win_rate": TARGET,
        "skill_needed": _skill(e.skill), "skill_low": _skill(e.skill_low),
        "skill_high": _skill(e.skill_high),
        "levels": [{"skill": level.skill, **_tally_to_json(level.tally),
                    "players": {str(p): _tally_to_json(t)
                                for p, t in sorted(level.by_count.items())}}
                   for level in e.levels],
        "win_rate": _rate(expert.win_rate), "ci_low": _rate(low), "ci_high": _rate(high),
        "stars_low": e.fewest, "stars_high": e.most,
        "stars": describe_stars(e.fewest, e.most),
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
        if m.estimate is not None:
            entry["estimate"] = _estimate_to_json(m.estimate)
        out.append(entry)
    return {"games": result.games, "seed": result.seed, "bots": list(result.bots),
            "estimate": {"bot": STAR_BOT, "ladder": list(LADDER), "target_win_rate": TARGET,
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
        star_bot=STAR_BOT, skill_bands=SKILL_BANDS, ladder=LADDER, target=TARGET,
        describe_stars=describe_stars, needs=needs))


# -- playtest --human: people's games beside the ladder (sim.calibration) ---------------------


def _fitted(c: Calibration) -> str:
    if c.fitted is None:
        return "no games"
    spread = f" [{c.fitted_low:.2f}, {c.fitted_high:.2f}]" if c.fitted_low != c.fitted_high \
        else ""
    return f"{c.fitted:.2f}{spread}"


def _explained(c: Calibration) -> str:
    """What skill explains the people's games; beyond the ladder, that it cannot say."""
    if c.fitted_edge is not None:
        # The level people fell short of (or beat): the least (most) often won.
        level = (min if c.fitted_edge == "below" else max)(
            c.levels, key=lambda lv: lv.tally.win_rate)
        name = STAR_BOT if level.skill >= LADDER[-1] else f"skill {level.skill:g}"
        which = "least" if c.fitted_edge == "below" else "most"
        return (f"{c.fitted_edge} every level of the ladder: the one that wins {which}, "
                f"{name}, wins {_pct(level.tally.win_rate)}")
    said = f"best explained by skill {_fitted(c)}"
    if c.fitted is None or c.skill is None:
        return said
    side = "above" if c.fitted > c.skill else "below" if c.fitted < c.skill else "at"
    return f"{said}: {side} the skill the estimate says a table needs"


def human_text(calibrations: list[Calibration], logs: int = 0, without_people: int = 0,
               games: int = 0, seed: int = 1, changed: Sequence[PlayedGame] = (),
               include_changed: bool = False) -> Output:
    lines = [f"{logs} game log(s); people's games beside the skill ladder ({games} games per "
             f"level, seed {seed})"]
    if without_people:
        lines.append(f"  {without_people} game(s) without a person left out")
    if changed:
        lines.append(f"  {len(changed)} log(s) of a mission whose play changed since, "
                     + ("each counted as the mission it was:" if include_changed else
                        "left out (--include-changed counts each as the mission it was):"))
        lines += [f"    {g.source}: {g.mission.number} {g.mission.id}: {changes_text(g.changes)}"
                  for g in changed]
    if not calibrations:
        lines.append("  no game with a person in these logs: nothing to calibrate")
    for c in calibrations:
        low, high = c.interval
        fewest, most = c.stars
        lines.append(f"{c.mission.number:>3} {c.mission.label()} at {c.players} players "
                     f"(declared {c.mission.stars}★)")
        lines.append(f"      people: {c.wins} of {c.games} won, {_pct(c.rate)} "
                     f"{_interval(low, high)}; {c.people_seats} of {c.games * c.players} seats "
                     "played by people")
        lines.append(f"      estimate: {describe_stars(fewest, most)}, needs skill "
                     f"{skill_text(c.skill)}; skill ladder: {ladder_line(c.levels)}")
        lines.append(f"      their games are {_explained(c)}")
        if not c.enough:
            lines.append(f"      ! only {c.games} game(s): about {ENOUGH_GAMES} per mission and "
                         "player count place a table within one step of the ladder "
                         "(docs/difficulty.md)")
    return Output("\n".join(lines))


def human_json(calibrations: list[Calibration], logs: int = 0, without_people: int = 0,
               games: int = 0, seed: int = 1, changed: Sequence[PlayedGame] = (),
               include_changed: bool = False) -> Output:
    out = []
    for c in calibrations:
        low, high = c.interval
        fewest, most = c.stars
        out.append({
            "id": c.mission.id, "number": c.mission.number, "title": c.mission.label(),
            "declared_stars": c.mission.stars, "players": c.players,
            "people": {"games": c.games, "wins": c.wins, "win_rate": _rate(c.rate),
                       "ci_low": _rate(low), "ci_high": _rate(high),
                       "people_seats": c.people_seats, "logs": c.sources},
            "estimate": {"bot": STAR_BOT, "target_win_rate": TARGET,
                         "skill_needed": _skill(c.skill), "skill_low": _skill(c.skill_low),
                         "skill_high": _skill(c.skill_high), "stars_low": fewest,
                         "stars_high": most, "stars": describe_stars(fewest, most),
                         "levels": [{"skill": lv.skill, **_tally_to_json(lv.tally)}
                                    for lv in c.levels]},
            "fitted_skill": _skill(c.fitted), "fitted_low": _skill(c.fitted_low),
            "fitted_high": _skill(c.fitted_high), "fitted_edge": c.fitted_edge,
            "enough_games": c.enough,
        })
    return Output(json.dumps({"logs": logs, "games_without_people": without_people,
                              "games": games, "seed": seed, "ladder": list(LADDER),
                              "changed": changed_json(changed, include_changed),
                              "calibrations": out}, indent=2, ensure_ascii=False))
