"""What `tune` found, for people: the change as a YAML diff, the estimate before and after, the
loss reasons that moved, and what the search cost."""

from __future__ import annotations

import difflib

from synergy_forge.core.referee import LossReason
from synergy_forge.reporting.losses import loss_cause
from synergy_forge.sim.playtest import STAR_BOT, describe_stars, stars_for
from synergy_forge.sim.tune import Setting, Trial, TuneResult, moved_losses


def _pct(value: float) -> str:
    return f"{value * 100:.0f}%"


def _stars(count: int) -> str:
    return f"{count} star{'s' if count != 1 else ''}"


def _skill(value: float | None) -> str:
    return "more than the expert's" if value is None else f"{value:.2f}"


def _estimate(trial: Trial) -> str:
    fewest, most = trial.stars
    low, high = trial.skill_range
    spread = "" if low == high else f" [{_skill(low)}, {_skill(high)}]"
    return (f"{describe_stars(fewest, most)} (needs skill {_skill(trial.skill)}{spread}; "
            f"{STAR_BOT} {_pct(trial.tally.win_rate)}, {trial.games} games per level)")


def _setting_text(before: Setting, after: Setting) -> str:
    changes = before.changes(after)
    if not changes:
        return "the mission as it is"
    return ", ".join(f"{knob} {old} -> {new}" for knob, old, new in changes)


def _reason(reason: str) -> str:
    try:
        return loss_cause(LossReason(reason))
    except ValueError:
        return reason


def tune_text(result: TuneResult, name: str, before_text: str | None,
              after_text: str | None, written: bool = False, command: str = "") -> str:
    """The report of one mission's tuning; `before_text`/`after_text` give the file's diff."""
    mission = result.mission
    counts = ", ".join(map(str, result.counts))
    lines = [f"{mission.number} {mission.label()} ({name}): declared {_stars(mission.stars)}, "
             f"target {_stars(result.target)}, at {counts} players"]
    original, proposal = result.original, result.proposal
    lines.append(f"  before: {_estimate(original)}")
    if proposal is not None and proposal.setting == original.setting:
        if mission.stars == result.target:
            lines.append(f"  agrees: nothing to change at {_stars(result.target)}")
        else:
            lines.append(f"  already {_stars(result.target)}: only the declared stars change")
    elif proposal is not None:
        lines.append(f"  after:  {_estimate(proposal)}")
        lines.append(f"  change: {_setting_text(original.setting, proposal.setting)}")
    elif result.exhausted:
        lines.append("  no answer within the budget of games: raise --budget, or tune "
                     "fewer player counts")
    elif result.extreme is not None:
        reached = stars_for(result.extreme.skill)
        bound = "at most" if result.target > reached else "at least"
        lines.append(f"  {bound} {_stars(reached)} with these challenges; the closest is "
                     f"{_setting_text(original.setting, result.extreme.setting)}: "
                     f"{_estimate(result.extreme)}")
    if proposal is not None and before_text is not None and after_text is not None \
            and before_text != after_text:
        diff = difflib.unified_diff(before_text.splitlines(keepends=True),
                                    after_text.splitlines(keepends=True), name,
                                    f"{name} (tuned)", n=1)
        lines += ["    " + line.rstrip("\n") for line in diff]
    if proposal is not None and proposal.setting != original.setting:
        moved = moved_losses(original.tally, proposal.tally)
        if moved:
            lines.append("  losses that moved (share of games): " + "; ".join(
                f"{_reason(r)} {_pct(a)} -> {_pct(b)}" for r, a, b in moved))
    lines.append(f"  search: {result.tried} setting(s) played, {result.skipped} ruled out "
                 f"unplayed, {result.games:,} games in {result.seconds:.1f} s")
    if proposal is not None and before_text != after_text:
        if written:
            lines.append(f"  written to {name}")
        if command:
            lines.append(f"  confirm: {command}" if written else
                         f"  confirm, once the change is in the file (--write): {command}")
    return "\n".join(lines)


def summary_line(result: TuneResult, problem: bool = False) -> str:
    """One line per mission for the end of a campaign's tuning."""
    mission, proposal = result.mission, result.proposal
    head = f"{mission.number:>3} {mission.label()}: {mission.stars}★"
    aim = "" if result.target == mission.stars else f" -> {result.target}★"
    if problem:
        return f"{head}{aim}: found but not applied (see above)"
    if proposal is not None and proposal.setting == result.original.setting:
        return f"{head} agrees" if mission.stars == result.target else \
            f"{head} -> {result.target}★ (stars only)"
    if proposal is not None:
        return f"{head}{aim}: {_setting_text(result.original.setting, proposal.setting)}"
    if result.exhausted:
        return f"{head}{aim}: no answer within the budget"
    reached = stars_for(result.extreme.skill) if result.extreme else mission.stars
    return f"{head}{aim}: out of reach ({_stars(reached)} at best)"
