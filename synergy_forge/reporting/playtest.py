"""`playtest`'s report, rendered from its typed result (sim.playtest.PlaytestResult): a text
summary, the documented JSON object (docs/playtest.md) and an HTML report with charts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from synergy_forge.core.mission import Mission
from synergy_forge.reporting import Output
from synergy_forge.resources import templates_dir
from synergy_forge.sim.playtest import (
    LOSS_LABELS,
    STAR_BANDS,
    STAR_BOT,
    Cell,
    Estimate,
    PlaytestResult,
    Tally,
    describe_stars,
    star_range,
    stars_for,
)

BOT_COLORS = {"random": "#9e9e9e", "greedy": "#f2b701", "coop": "#1b6fc2", "oracle": "#7b3fa0"}
#: Rates are reported to 4 decimals (docs/playtest.md); the text shows the same figures.
DECIMALS = 4


@dataclass
class MissionReport:
    """One mission's part of a playtest: its cells in the order played, and its estimate."""

    mission: Mission
    cells: list[Cell]
    estimate: Estimate | None

    def pooled(self, bot: str) -> Tally:
        """The bot's games at every player count, added up."""
        total = Tally()
        for cell in self.cells:
            if cell.bot == bot:
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


def _mission_lines(m: MissionReport) -> Iterator[str]:
    """A mission's heading, its win rates per player count and its warnings; each further
    section of the text report is one more generator of lines like this one."""
    e = m.estimate
    head = f"{m.mission.number:>3} {m.mission.label()} (declared {m.mission.stars}★)"
    if e is not None:
        gap = "" if e.gap is None else f"; oracle gap {_rate(e.gap) * 100:+.0f} pts"
        head += (f": {describe_stars(e.fewest, e.most)} ({STAR_BOT} {_pct(e.rate)} "
                 f"{_interval(e.low, e.high)}){gap}")
    yield head
    by_count: dict[int, list[str]] = {}
    for cell in m.cells:
        by_count.setdefault(cell.player_count, []).append(
            f"{cell.bot} {_pct(cell.tally.win_rate)} {_interval(*cell.tally.interval)}")
    for count, parts in sorted(by_count.items()):
        yield f"      {count} players: " + "  ".join(parts)
        yield from (f"        {line}" for cell in m.cells if cell.player_count == count
                    for line in [_losses(cell)] if line)
    for warning in e.warnings if e is not None else ():
        yield f"      ! {warning}"


def _losses(cell: Cell) -> str:
    """One bot's lost games at one player count: why, with shares; rounds won, lives left."""
    t, mission = cell.tally, cell.mission
    lost = t.games - t.wins
    if not lost:
        return ""
    why = ", ".join(f"{LOSS_LABELS.get(reason, reason)} {_pct(count / lost)}" for reason, count
                    in sorted(t.losses.items(), key=lambda item: (-item[1], item[0])))
    return (f"{cell.bot} lost {lost}: {why}; per game {t.rounds_won / t.games:.1f}/"
            f"{mission.rounds} rounds won, {mission.lives - t.lives_lost / t.games:.1f}/"
            f"{mission.lives} lives left")


def text(result: PlaytestResult) -> Output:
    lines = [f"{result.games} games per mission, player count and bot; seed {result.seed}"]
    for m in missions(result):
        lines.extend(_mission_lines(m))
    return Output("\n".join(lines))


def _cell_to_json(cell: Cell) -> dict[str, Any]:
    t = cell.tally
    low, high = t.interval
    fewest, most = star_range(low, high)
    return {
        "players": cell.player_count, "bot": cell.bot, "games": t.games, "wins": t.wins,
        "win_rate": _rate(t.win_rate), "ci_low": _rate(low), "ci_high": _rate(high),
        "stars": stars_for(t.win_rate), "stars_low": fewest, "stars_high": most,
        "mean_rounds_won": round(t.rounds_won / t.games, 3) if t.games else 0,
        "mean_lives_lost": round(t.lives_lost / t.games, 3) if t.games else 0,
        "mean_lives_left": round(cell.mission.lives - t.lives_lost / t.games, 3)
        if t.games else 0,
        "losses": dict(sorted(t.losses.items())),
        "goals": {g: {"played": t.goals_played[g], "met": t.goals_met[g]}
                  for g in sorted(t.goals_played)},
    }


def _estimate_to_json(e: Estimate) -> dict[str, Any]:
    return {
        "bot": STAR_BOT, "win_rate": _rate(e.rate), "ci_low": _rate(e.low),
        "ci_high": _rate(e.high), "stars_low": e.fewest, "stars_high": e.most,
        "stars": describe_stars(e.fewest, e.most),
        "coordination_gap": None if e.gap is None else _rate(e.gap),
        "warnings": e.warnings, "fails_check": e.fails_check,
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
            "star_bands": [{"min_win_rate": b, "stars": s} for b, s in STAR_BANDS],
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
        star_bot=STAR_BOT, star_bands=STAR_BANDS, describe_stars=describe_stars))
