"""Playtest results for people: a text summary and an HTML report with charts."""

from __future__ import annotations

from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape

from synergy_forge.resources import templates_dir
from synergy_forge.sim.playtest import LOSS_LABELS, STAR_BOT, Tally, wilson

BOT_COLORS = {"random": "#9e9e9e", "greedy": "#f2b701", "coop": "#1b6fc2", "oracle": "#7b3fa0"}


def _pct(value: float) -> str:
    return f"{value * 100:.0f}%"


def playtest_text(report: dict[str, Any]) -> str:
    lines = [f"{report['games']} games per mission, player count and bot; seed {report['seed']}"]
    for m in report["missions"]:
        e = m.get("estimate")
        head = f"{m['number']:>3} {m['title']} (declared {m['declared_stars']}★)"
        if e:
            gap = "" if e["coordination_gap"] is None else \
                f"; oracle gap {e['coordination_gap'] * 100:+.0f} pts"
            head += (f": {e['stars']} ({STAR_BOT} {_pct(e['win_rate'])} "
                     f"[{_pct(e['ci_low'])}, {_pct(e['ci_high'])}]){gap}")
        lines.append(head)
        by_count: dict[int, list[str]] = {}
        for r in m["results"]:
            by_count.setdefault(r["players"], []).append(
                f"{r['bot']} {_pct(r['win_rate'])} [{_pct(r['ci_low'])}, {_pct(r['ci_high'])}]")
        for count, parts in sorted(by_count.items()):
            lines.append(f"      {count} players: " + "  ".join(parts))
            lines += [f"        {line}" for r in m["results"] if r["players"] == count
                      for line in [_losses(r, m)] if line]
        for warning in (e or {}).get("warnings", []):
            lines.append(f"      ! {warning}")
    return "\n".join(lines)


def _losses(result: dict[str, Any], mission: dict[str, Any]) -> str:
    """One bot's lost games at one player count: why, with shares; rounds won, lives left."""
    lost = result["games"] - result["wins"]
    if not lost:
        return ""
    why = ", ".join(f"{LOSS_LABELS.get(reason, reason)} {_pct(count / lost)}" for reason, count
                    in sorted(result["losses"].items(), key=lambda item: (-item[1], item[0])))
    return (f"{result['bot']} lost {lost}: {why}; per game {result['mean_rounds_won']:.1f}/"
            f"{mission['rounds']} rounds won, {result['mean_lives_left']:.1f}/"
            f"{mission['lives']} lives left")


def playtest_html(report: dict[str, Any]) -> str:
    # Charts are a few bars and whiskers drawn as inline SVG by the template: the report stays
    # one self-contained file and needs no plotting library (docs/decisions.md).
    env = Environment(loader=FileSystemLoader(templates_dir()),
                      autoescape=select_autoescape(default=True, default_for_string=True))
    pooled: dict[str, dict[str, Any]] = {}
    losses: dict[str, dict[str, int]] = {}
    reasons: set[str] = set()
    for m in report["missions"]:
        per_bot: dict[str, Tally] = {}
        for r in m["results"]:
            t = per_bot.setdefault(r["bot"], Tally())
            t.games += r["games"]
            t.wins += r["wins"]
            if r["bot"] == STAR_BOT:
                for reason, count in r["losses"].items():
                    losses.setdefault(m["id"], {}).setdefault(reason, 0)
                    losses[m["id"]][reason] += count
                    reasons.add(reason)
        pooled[m["id"]] = {}
        for bot in report["bots"]:
            t = per_bot.get(bot)
            if t and t.games:
                low, high = wilson(t.wins, t.games)
                pooled[m["id"]][bot] = {"rate": t.wins / t.games, "low": low, "high": high}
            else:
                pooled[m["id"]][bot] = None
        losses.setdefault(m["id"], {})
    return env.get_template("playtest.html.j2").render(
        report=report, pooled=pooled, losses=losses, reasons=sorted(reasons),
        colors=BOT_COLORS, star_bot=STAR_BOT)
