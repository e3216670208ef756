"""Verdicts in words and in JSON: what a player at the table, or a program, reads; `judge`'s
reporters (`text`, `to_json`)."""

from __future__ import annotations

import json
from typing import Any

from synergy_forge.authoring.judging import Judgement
from synergy_forge.core.engine import Outcome
from synergy_forge.core.referee import LossReason, SeatVerdict, Verdict
from synergy_forge.core.rulelang import RuleKind
from synergy_forge.core.rules import Rulebook
from synergy_forge.reporting import Output
from synergy_forge.reporting.losses import loss_cause


def _card(printed: int, effective: int, counted: int) -> str:
    text = str(counted)
    notes = []
    if effective != printed:
        change = effective - printed
        notes.append(f"{printed}{change:+d}")
    if counted != effective:
        notes.append(f"a {effective} counting {counted}")
    return f"{text} ({', '.join(notes)})" if notes else text


def _sum_steps(seat: SeatVerdict, verdict: Verdict, rulebook: Rulebook) -> str:
    """'3 + 4 = 7', with every challenge that changed the sum, replayed from its definition."""
    challenges = [rulebook.challenge(c) for c in verdict.table.challenges]
    a = _card(seat.first.value, seat.first_effective, seat.counted_first)
    b = _card(seat.second.value, seat.second_effective, seat.counted_second)
    combine = next((c for c in challenges if c.kind is RuleKind.COMBINE), None)
    if combine is None or combine.check is None:
        total = seat.counted_first + seat.counted_second
        text = f"{a} + {b} = {total}"
    else:
        assert combine.check is not None  # combine and sum rules are compiled in a rulebook
        total = combine.check(seat.counted_first, seat.counted_second)
        text = f"{combine.id} of {a} and {b} = {total}"
    identical = seat.first.color == seat.second.color and \
        seat.first_effective == seat.second_effective
    for rule in sorted((c for c in challenges if c.kind is RuleKind.SUM), key=lambda c: c.step):
        if rule.check is None:  # every loaded challenge has one; a hand-made one may not
            continue
        after = rule.check(total, seat.counted_first, seat.counted_second, identical)
        if after != total:
            text += f", {rule.id} makes it {after}"
            total = after
    return text


def _listing(values: list[int]) -> str:
    return ", ".join(str(v) for v in values) or "none"


def explain(verdict: Verdict, seat: SeatVerdict, rulebook: Rulebook) -> str:
    """One line a player understands: 'seat 2, green: 3 + 4 = 7; goal …; …; met'."""
    color = verdict.table.colors[seat.seat]
    parts = [f"seat {seat.seat}, {color}: {_sum_steps(seat, verdict, rulebook)}",
             f"goal {seat.goal}"]
    others = verdict.counted_sums(excluding=seat.seat)
    if seat.goal == "between":
        if seat.left is None:
            parts.append("no two different neighbours to be between")
        else:
            parts.append(f"neighbours {seat.left} (left) and {seat.right} (right)")
    elif seat.goal in ("second-highest", "second-lowest"):
        everyone = set(others) | {seat.sum}
        order = sorted(everyone, reverse=seat.goal == "second-highest")
        parts.append(f"distinct sums {_listing(order)}")
    else:
        parts.append(f"others' sums {_listing(sorted(others))}")
    for broken in seat.violations:
        parts.append(f"breaks {broken}")
    if not seat.counted:
        parts.append(f"{'met' if seat.met else 'missed'} but ignored (J)")
    else:
        parts.append("met" if seat.met else "missed")
    return "; ".join(parts)


def verdict_to_json(verdict: Verdict, rulebook: Rulebook) -> dict[str, Any]:
    """The documented JSON verdict (README, `judge --json`)."""
    return {
        "round": "success" if verdict.success else "failure",
        "failures": verdict.failures,
        "allowed_failures": verdict.allowed_failures,
        "mission_lost": verdict.mission_lost,
        "lost_reasons": [str(r) for r in verdict.lost_reasons],
        "seats": [
            {
                "seat": s.seat,
                "goal": s.goal,
                "sum": s.sum,
                "counted": s.counted,
                "success": s.met,  # the documented key: the seat met its goal
                "violations": list(s.violations),
                "explanation": explain(verdict, s, rulebook),
            }
            for s in verdict.seats
        ],
    }


def verdict_text(verdict: Verdict, rulebook: Rulebook) -> str:
    table = verdict.table
    lines = []
    if table.challenges:
        lines.append(f"challenges: {', '.join(table.challenges)}")
    lines += [f"action {use.card} used by seat {use.seat}" for use in table.actions]
    lines += [explain(verdict, s, rulebook) for s in verdict.seats]
    result = "success" if verdict.success else "failure"
    plural = "" if verdict.failures == 1 else "s"
    summary = (f"Round: {result} ({verdict.failures} failure{plural}, "
               f"{verdict.allowed_failures} allowed")
    if table.super_seat is not None:
        met = verdict.seats[table.super_seat].met
        summary += f"; super holder seat {table.super_seat} {'met' if met else 'missed'} its goal"
    lines.append(summary + ")")
    for reason in verdict.lost_reasons:
        seat = f" (seat {table.hyper_seat})" if reason is LossReason.HYPER else ""
        lines.append(f"Mission lost: {loss_cause(reason)}{seat}")
    return "\n".join(lines)


def outcome_text(outcome: Outcome) -> str:
    """'Won', or 'Lost: ' and why (R20, R21)."""
    if outcome.won:
        return "Won"
    assert outcome.reason is not None, "the engine says why every lost mission was lost"
    return f"Lost: {loss_cause(outcome.reason)}"


def text(judgement: Judgement) -> Output:
    """Each verdict in words, headed by its file when several files were given."""
    several = judgement.files > 1
    return Output("\n\n".join(
        (f"== {r.path}\n" if several else "") + verdict_text(r.verdict, r.rulebook)
        for r in judgement.rounds))


def to_json(judgement: Judgement) -> Output:
    """One JSON verdict a line (JSON Lines when several files were given), then for each file
    that could not be judged one error object, {"file", "error", "diagnostics"}: a script
    reading the output always gets JSON, whatever the round."""
    unjudged: dict[str, list[dict[str, object]]] = {}
    for problem in judgement.problems:
        unjudged.setdefault(problem.file, []).append(problem.to_json())
    return Output("\n".join(
        [json.dumps(verdict_to_json(r.verdict, r.rulebook), ensure_ascii=False)
         for r in judgement.rounds] +
        [json.dumps({"file": file, "error": "the round cannot be judged",
                     "diagnostics": found}, ensure_ascii=False)
         for file, found in unjudged.items()]))
