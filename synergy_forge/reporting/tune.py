"""What `tune` found, for people: the change as a YAML diff, the estimate before and after, the
loss reasons that moved, and what the search cost."""

from __future__ import annotations

import difflib
import shlex
from collections.abc import Sequence
from pathlib import Path

from synergy_forge.authoring.edit import Edit
from synergy_forge.core.mission import Mission
from synergy_forge.core.referee import LossReason
from synergy_forge.reporting.losses import loss_cause
from synergy_forge.sim.knobs import Setting
from synergy_forge.sim.ladder import stars_for
from synergy_forge.sim.playtest import STAR_BOT, Tally, describe_stars
from synergy_forge.sim.tune import CHECK_GAMES, Trial, TuneResult


def _pct(value: float) -> str:
    return f"{value * 100:.0f}%"


def _stars(count: int) -> str:
    return f"{count} star{'s' if count != 1 else ''}"


def _skill(value: float | None) -> str:
    return "more than the expert's" if value is None else f"{value:.2f}"


def _estimate(trial: Trial) -> str:
    """The trial's estimate: a default `playtest`'s of the tuned file where tune verified it
    (what the confirm command prints), else tune's own from the games it played."""
    shown = trial.verified
    if shown is not None:
        fewest, most, skill = shown.fewest, shown.most, shown.skill
        low, high, tally = shown.skill_low, shown.skill_high, shown.expert
        games = sum(c.curve.total_games for c in shown.by_count.values())
    else:
        (fewest, most), skill, (low, high) = trial.stars, trial.skill, trial.skill_range
        tally = trial.tally
        games = sum(t.games for t in trial.by_table.values())
    spread = "" if low == high else f" [{_skill(low)}, {_skill(high)}]"
    return (f"{describe_stars(fewest, most)} (needs skill {_skill(skill)}{spread}; "
            f"{STAR_BOT}s {_pct(tally.win_rate)}, {games:,} games)")


def loss_rates(tally: Tally) -> dict[str, float]:
    """Each loss reason's share of all games."""
    return {reason: count / tally.games for reason, count in sorted(tally.losses.items())} \
        if tally.games else {}


def moved_losses(before: Tally, after: Tally, threshold: float = 0.02
                 ) -> list[tuple[str, float, float]]:
    """(reason, share before, share after) for every loss reason whose share moved."""
    shares_before, shares_after = loss_rates(before), loss_rates(after)
    reasons = sorted(set(shares_before) | set(shares_after),
                     key=lambda r: -abs(shares_after.get(r, 0) - shares_before.get(r, 0)))
    return [(r, shares_before.get(r, 0.0), shares_after.get(r, 0.0)) for r in reasons
            if abs(shares_after.get(r, 0.0) - shares_before.get(r, 0.0)) >= threshold]



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
    elif result.undecided:
        lines.append(f"  no answer with {result.games_per_count} games per table: "
                     f"{result.undecided} setting(s) came near {_stars(result.target)} but "
                     "their range still straddled a bound of its band; raise --games")
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
    if result.undecided:
        return f"{head}{aim}: undecided with these games (raise --games)"
    reached = stars_for(result.extreme.skill) if result.extreme else mission.stars
    return f"{head}{aim}: out of reach ({_stars(reached)} at best)"


def mission_report(path: Path, mission: Mission, result: TuneResult | None, read: str,
                   edit: Edit | None, seed: int, counts: Sequence[int] | None) -> tuple[str, str]:
    """`tune`'s report of one mission (None: not made for `counts`) and its summary line;
    `edit` is its file changed as proposed (None: no proposal)."""
    if result is None:
        players = ",".join(map(str, counts)) if counts else "all"
        skipped = (f"{mission.number} {mission.label()} ({path}): not made for {players} "
                   "players; skipped")
        return skipped, skipped
    # The very games the figure under "after:" counts: a default playtest of the tuned file
    # (tune verified it so), at the same seed and counts.
    check = (f"synergy-forge playtest {shlex.quote(str(path))} --games {CHECK_GAMES} "
             f"--seed {seed} --players {','.join(map(str, result.counts))} --check")
    problem = f"\n  error: {edit.error}" if edit is not None and edit.error else ""
    report = tune_text(result, str(path), read, edit.text if edit is not None else None,
                       edit is not None and edit.written, check)
    return report + problem, summary_line(result, bool(problem))


def campaign_summary(lines: Sequence[str], short: int, failed: int) -> str:
    """The end of a campaign's tuning: each mission's summary line, and how many reach their
    stars (`short`: cannot; `failed`: found, but the change could not be made)."""
    return ("\nSummary:\n" + "\n".join(lines) + "\n"
            f"{len(lines) - short - failed} of {len(lines)} missions at their stars with the "
            "changes above" + (f"; {short} cannot reach them" if short else "")
            + (f"; {failed} not changed (see above)" if failed else ""))
