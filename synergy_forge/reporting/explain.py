"""Verdicts in words and in JSON: what a player at the table, or a program, reads; `judge`'s
reporters (`text`, `to_json`)."""

from __future__ import annotations

import json
from typing import Any

from synergy_forge.authoring.judging import Judgement
from synergy_forge.core.cards import NumberCard
from synergy_forge.core.engine import Outcome
from synergy_forge.core.referee import LossReason, SeatVerdict, Verdict
from synergy_forge.core.rulelang import RuleKind
from synergy_forge.core.rules import Rulebook
from synergy_forge.reporting import Output
from synergy_forge.reporting.losses import loss_cause
from synergy_forge.reporting.words import ENGLISH, Words
from synergy_forge.typography import typeset


def goal_name(key: str, rulebook: Rulebook, tr: Words) -> str:
    """A goal or challenge by its id in English (the notation of logs and rounds), by its
    name in another language."""
    found = rulebook.goals.get(key) or rulebook.challenges.get(key)
    if tr.language == "en" or found is None:
        return key
    return typeset(found.label(tr.language), tr.language)


def card_name(card: NumberCard, tr: Words) -> str:
    """"red 1": a number card by its colour and value."""
    return f"{tr.gettext(card.color)} {card.value}"


def _card(printed: int, effective: int, counted: int, tr: Words) -> str:
    text = str(counted)
    notes = []
    if effective != printed:
        change = effective - printed
        notes.append(f"{printed}{change:+d}")
    if counted != effective:
        notes.append(tr.gettext("a {effective} counting {counted}").format(
            effective=effective, counted=counted))
    return f"{text} ({', '.join(notes)})" if notes else text


def _sum_steps(seat: SeatVerdict, verdict: Verdict, rulebook: Rulebook,
               tr: Words = ENGLISH) -> str:
    """'3 + 4 = 7', with every challenge that changed the sum, replayed from its definition."""
    challenges = [rulebook.challenge(c) for c in verdict.table.challenges]
    a = _card(seat.first.value, seat.first_effective, seat.counted_first, tr)
    b = _card(seat.second.value, seat.second_effective, seat.counted_second, tr)
    combine = next((c for c in challenges if c.kind is RuleKind.COMBINE), None)
    if combine is None or combine.check is None:
        total = seat.counted_first + seat.counted_second
        text = f"{a} + {b} = {total}"
    else:
        assert combine.check is not None  # combine and sum rules are compiled in a rulebook
        total = combine.check(seat.counted_first, seat.counted_second)
        text = tr.gettext("{rule} of {a} and {b} = {total}").format(
            rule=combine.id, a=a, b=b, total=total)
    identical = seat.first.color == seat.second.color and \
        seat.first_effective == seat.second_effective
    for rule in sorted((c for c in challenges if c.kind is RuleKind.SUM), key=lambda c: c.step):
        if rule.check is None:  # every loaded challenge has one; a hand-made one may not
            continue
        after = rule.check(total, seat.counted_first, seat.counted_second, identical)
        if after != total:
            text += tr.gettext(", {rule} makes it {after}").format(rule=rule.id, after=after)
            total = after
    return text


def _listing(values: list[int], tr: Words) -> str:
    return ", ".join(str(v) for v in values) or tr.pgettext("sums", "none")


def explain(verdict: Verdict, seat: SeatVerdict, rulebook: Rulebook,
            tr: Words = ENGLISH) -> str:
    """One line a player understands: 'seat 2, green: 3 + 4 = 7; goal …; …; met'."""
    _ = tr.gettext
    color = _(verdict.table.colors[seat.seat])
    parts = [_("seat {seat}, {color}: {steps}").format(
                 seat=seat.seat, color=color, steps=_sum_steps(seat, verdict, rulebook, tr)),
             _("goal {goal}").format(goal=goal_name(seat.goal, rulebook, tr))]
    others = verdict.counted_sums(excluding=seat.seat)
    if seat.goal == "between":
        if seat.left is None:
            parts.append(_("no two different neighbours to be between"))
        else:
            parts.append(_("neighbours {left} (left) and {right} (right)").format(
                left=seat.left, right=seat.right))
    elif seat.goal in ("second-highest", "second-lowest"):
        everyone = set(others) | {seat.sum}
        order = sorted(everyone, reverse=seat.goal == "second-highest")
        parts.append(_("distinct sums {sums}").format(sums=_listing(order, tr)))
    else:
        parts.append(_("others' sums {sums}").format(sums=_listing(sorted(others), tr)))
    for broken in seat.violations:
        parts.append(_("breaks {challenge}").format(
            challenge=goal_name(broken, rulebook, tr)))
    if not seat.counted:
        parts.append(_("met but ignored (J)") if seat.met else _("missed but ignored (J)"))
    else:
        parts.append(_("met") if seat.met else _("missed"))
    return _("; ").join(parts)


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


def verdict_text(verdict: Verdict, rulebook: Rulebook, tr: Words = ENGLISH) -> str:
    _ = tr.gettext
    table = verdict.table
    lines = []
    if table.challenges:
        lines.append(_("challenges: {challenges}").format(challenges=", ".join(table.challenges)))
    lines += [_("action {card} used by seat {seat}").format(card=use.card, seat=use.seat)
              for use in table.actions]
    lines += [explain(verdict, s, rulebook, tr) for s in verdict.seats]
    if verdict.success:
        summary = tr.ngettext("Round: success ({failures} failure, {allowed} allowed",
                              "Round: success ({failures} failures, {allowed} allowed",
                              verdict.failures)
    else:
        summary = tr.ngettext("Round: failure ({failures} failure, {allowed} allowed",
                              "Round: failure ({failures} failures, {allowed} allowed",
                              verdict.failures)
    summary = summary.format(failures=verdict.failures, allowed=verdict.allowed_failures)
    if table.super_seat is not None:
        met = verdict.seats[table.super_seat].met
        summary += (_("; super holder seat {seat} met its goal") if met else
                    _("; super holder seat {seat} missed its goal")).format(
                        seat=table.super_seat)
    lines.append(summary + ")")
    for reason in verdict.lost_reasons:
        seat = _(" (seat {seat})").format(seat=table.hyper_seat) \
            if reason is LossReason.HYPER else ""
        lines.append(_("Mission lost: {cause}").format(cause=loss_cause(reason, tr)) + seat)
    return "\n".join(lines)


def outcome_text(outcome: Outcome, tr: Words = ENGLISH) -> str:
    """'Won', or 'Lost: ' and why (R20, R21)."""
    if outcome.won:
        return tr.pgettext("outcome", "Won")
    assert outcome.reason is not None, "the engine says why every lost mission was lost"
    return tr.gettext("Lost: {cause}").format(cause=loss_cause(outcome.reason, tr))


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
