"""`playtest --human`'s report (sim.calibration.Calibration): the population of people, every
mission's predicted win rate for them, where the ladder is contradicted, what to playtest
next; as text, the JSON object of docs/playtest.md, and an HTML page."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from synergy_forge.core.playhash import PlayChange
from synergy_forge.reporting import Output
from synergy_forge.reporting.playtest import ladder_line
from synergy_forge.resources import templates_dir
from synergy_forge.sim.calibration import Calibration, PlayedGame, Row
from synergy_forge.sim.ladder import RUNGS
from synergy_forge.sim.people import LEVEL, NEXT_GAMES, Interval, Prediction

#: How long a changed value may be in a line before it is cut.
SHOWN = 40
#: How many missions "playtest next" names.
NEXT = 5


@dataclass(frozen=True)
class Context:
    """What the report says beside the model: the logs read and how the ladder was played."""

    logs: int = 0
    without_people: int = 0
    games: int = 0  # the ladder's, per mission and player count to start (--games)
    seed: int = 1
    changed: Sequence[PlayedGame] = ()
    include_changed: bool = False


def _value(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= SHOWN else text[:SHOWN - 1] + "…"


def change_text(change: PlayChange) -> str:
    """"rounds 4 → 3", "goal 'close-call': rule "…" → "…"": the log's side, then the
    campaign's."""
    where = change.key if change.subject == "mission" else \
        f"{change.subject} '{change.id}': {change.key}"
    return f"{where} {_value(change.before)} → {_value(change.after)}"


def changes_text(changes: Sequence[PlayChange]) -> str:
    return "; ".join(change_text(c) for c in changes)


def _pct(value: float) -> str:
    return f"{round(value * 100)}%"


def _rate(i: Interval) -> str:
    return f"{_pct(i.value)} [{_pct(i.low)}, {_pct(i.high)}]"


def _levels(row: Row) -> str:
    return ladder_line(row.ladder.curve)


def _name(row: Row) -> str:
    own = "" if row.in_campaign else " (as played; not the campaign's)"
    return f"{row.mission.number} {row.mission.label()}{own}"


def _by_mission(rows: Sequence[Row]) -> list[list[Row]]:
    found: dict[str, list[Row]] = {}
    for row in rows:
        found.setdefault(row.key, []).append(row)
    return list(found.values())


def text(result: Calibration, context: Context | None = None) -> Output:
    c = context or Context()
    m = result.model
    pct = round(LEVEL * 100)
    lines = [f"{c.logs} game log(s), {m.games} game(s) with people; the skill ladder of every "
             f"mission (tables of experts and novices, {c.games} games per mission and player "
             f"count to start, seed {c.seed}); intervals {pct}%"]
    if c.without_people:
        lines.append(f"  {c.without_people} game(s) without a person left out")
    if c.changed:
        lines.append(f"  {len(c.changed)} log(s) of a mission whose play changed since, "
                     + ("each counted as the mission it was:" if c.include_changed else
                        "left out (--include-changed counts each as the mission it was):"))
        lines += [f"    {g.source}: {g.mission.number} {g.mission.id}: {changes_text(g.changes)}"
                  for g in c.changed]
    if not m.games:
        lines.append("  no game with a person in these logs: the predictions below are the "
                     "model's before any game")
    low, high = m.middle_half
    lines += ["", f"people: a typical table plays at skill {m.skill.value:.2f} "
              f"[{m.skill.low:.2f}, {m.skill.high:.2f}]; the middle half of tables between "
              f"{low:.2f} and {high:.2f}",
              f"  missions differ from the ladder by about {m.tau.value:.1f} "
              f"[{m.tau.low:.1f}, {m.tau.high:.1f}] in log-odds", "",
              "predicted win rate for people, per mission and player count (games people "
              "played: won/played):"]
    for rows in _by_mission(result.rows):
        parts = [f"{r.players}p {_rate(_prediction(r).rate)}"
                 + (f" {r.wins}/{r.games}" if r.games else "") for r in rows]
        lines.append(f"  {_name(rows[0])}: " + "   ".join(parts))
    played = [r for r in result.rows if r.games]
    if played:
        lines += ["", "where people played, beside the ladder:"]
        for r in played:
            lines.append(f"  {_name(r)} at {r.players} players: people won {r.wins} of "
                         f"{r.games}; predicted {_rate(_prediction(r).rate)}, the ladder "
                         f"alone {_rate(_prediction(r).ladder)}; ladder {_levels(r)}")
    against = [(mission, d) for mission, d in result.discrepancies() if d.contradicts]
    lines += ["", "missions where people's results contradict the ladder:" if against else
              "no mission where people's results contradict the ladder"]
    for mission, d in against:
        side = "more" if d.delta.value > 0 else "less"
        lines.append(f"  {mission.number} {mission.label()}: people win {side} often than "
                     f"the ladder says at their skill ({d.wins} of {d.games}; discrepancy "
                     f"{d.delta.value:+.1f} [{d.delta.low:+.1f}, {d.delta.high:+.1f}] in "
                     "log-odds)")
    lines += ["", f"playtest next (what {NEXT_GAMES} more games would teach the model):"]
    for r in result.next(NEXT):
        p = _prediction(r)
        lines.append(f"  {_name(r)} at {r.players} players: {p.information:.2f} bits "
                     f"(predicted {_rate(p.rate)}; {r.games} game(s) so far)")
    return Output("\n".join(lines))


def _prediction(row: Row) -> Prediction:
    assert row.prediction is not None, "calibrate predicts every row"
    return row.prediction


def _interval_json(i: Interval) -> dict[str, float]:
    return {"win_rate": round(i.value, 4), "low": round(i.low, 4), "high": round(i.high, 4)}


def _row_json(r: Row) -> dict[str, Any]:
    p = _prediction(r)
    return {
        "id": r.mission.id, "number": r.mission.number, "title": r.mission.label(),
        "players": r.players, "in_campaign": r.in_campaign, "games": r.games, "wins": r.wins,
        "people_seats": r.people_seats, "logs": r.sources,
        "predicted": _interval_json(p.rate), "ladder_only": _interval_json(p.ladder),
        "information_bits": round(p.information, 4),
        "ladder": [{"skill": s, "win_rate": round(r.ladder.curve.rate(s), 4)} for s in RUNGS],
        "tables": [{"experts": k, "games": r.ladder.curve.games[k],
                    "wins": r.ladder.curve.wins[k]} for k in range(r.players + 1)],
    }


def to_json(result: Calibration, context: Context | None = None) -> Output:
    c = context or Context()
    m = result.model
    people = {
        "games": m.games, "level": LEVEL,
        "population": {"skill": round(m.skill.value, 4), "low": round(m.skill.low, 4),
                       "high": round(m.skill.high, 4),
                       "spread": round(m.spread.value, 4), "spread_low": round(m.spread.low, 4),
                       "spread_high": round(m.spread.high, 4),
                       "middle_half": [round(x, 4) for x in m.middle_half]},
        "discrepancy_scale": {"tau": round(m.tau.value, 4), "low": round(m.tau.low, 4),
                              "high": round(m.tau.high, 4)},
        "missions": [_row_json(r) for r in result.rows],
        "discrepancies": [{"id": mission.id, "number": mission.number, "games": d.games,
                           "wins": d.wins, "delta": round(d.delta.value, 4),
                           "low": round(d.delta.low, 4), "high": round(d.delta.high, 4),
                           "contradicts": d.contradicts}
                          for mission, d in result.discrepancies()],
        "next": [{"id": r.mission.id, "number": r.mission.number, "players": r.players,
                  "games": NEXT_GAMES, "information_bits": round(_prediction(r).information, 4)}
                 for r in result.next(NEXT)],
    }
    return Output(json.dumps({
        "logs": c.logs, "games_without_people": c.without_people, "games": c.games,
        "seed": c.seed, "rungs": list(RUNGS),
        "changed": changed_json(c.changed, c.include_changed), "people": people,
    }, indent=2, ensure_ascii=False))


def changed_json(games: Sequence[PlayedGame], included: bool) -> list[dict[str, Any]]:
    """The logs of missions whose play changed since: which log, which mission, what changed
    (`log`: the log's mission, `campaign`: the campaign's), and whether it was counted."""
    return [{"log": g.source, "id": g.mission.id,
             "number": g.known.number if g.known is not None else g.mission.number,
             "included": included,
             "changes": [{"subject": c.subject, "id": c.id, "key": c.key, "log": c.before,
                          "campaign": c.after} for c in g.changes]} for g in games]


def html(result: Calibration, context: Context | None = None) -> Output:
    # One self-contained page, its charts inline SVG drawn by the template (docs/decisions.md).
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    env = Environment(loader=FileSystemLoader(templates_dir()),
                      autoescape=select_autoescape(default=True, default_for_string=True))
    c = context or Context()
    return Output(env.get_template("people.html.j2").render(
        result=result, model=result.model, context=c, missions=_by_mission(result.rows),
        against=[(mission, d) for mission, d in result.discrepancies() if d.contradicts],
        discrepancies=result.discrepancies(), next=result.next(NEXT), level=LEVEL,
        next_games=NEXT_GAMES, changes_text=changes_text, levels=_levels, name=_name,
        played=[r for r in result.rows if r.games]))
