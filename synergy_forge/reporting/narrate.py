"""Whole games in words, round by round, for `synergy-forge play`."""

from __future__ import annotations

from synergy_forge.core.actions import ActionUse
from synergy_forge.core.engine import Game, RoundRecord
from synergy_forge.reporting.explain import card_name, goal_name, verdict_text
from synergy_forge.reporting.words import ENGLISH, Words


def heading(game: Game, bots: list[str]) -> str:
    m = game.mission
    who = bots[0] if len(set(bots)) == 1 else ", ".join(bots)
    lines = [f'Mission {m.number} "{m.label()}": {game.players} players, seed {game.seed}, '
             f"{who} bots",
             f"Win {m.rounds} round(s) with {m.lives} li{'fe' if m.lives == 1 else 'ves'}; "
             f"{game.allowed_failures} player(s) may miss their goal each round"]
    extras = []
    if m.challenges:
        extras.append(f"challenges: {', '.join(m.challenges)}")
    if m.actions:
        extras.append(f"actions: {', '.join(m.actions)}")
    if game.super_seat is not None:
        extras.append(f"super card: seat {game.super_seat}")
    if game.hyper_seat is not None:
        extras.append(f"hyper card: seat {game.hyper_seat}")
    if extras:
        lines.append("; ".join(extras))
    return "\n".join(lines)


def describe_action(use: ActionUse, tr: Words = ENGLISH) -> str:
    _ = tr.gettext
    card = use.card
    taken = _(" and ").join(card_name(c, tr) for c in use.cards or ())
    first, second = use.seats or (None, None)
    what = {
        "A": lambda: _("takes {cards} back from the discard row").format(cards=taken),
        "B": lambda: _("swaps its first number card for {card} from its hand").format(
            card=card_name(use.replacement, tr) if use.replacement else ""),
        "C": lambda: _("takes {cards} back from the discard row").format(cards=taken),
        "D": lambda: _("exchanges goal cards with seat {other}").format(other=use.other),
        "E": lambda: _("exchanges the goal cards of seats {a} and {b}").format(a=first,
                                                                              b=second),
        "F": lambda: _("adds 1 to seat {target}'s first number card").format(
            target=use.target),
        "G": lambda: _("takes 1 from seat {target}'s first number card").format(
            target=use.target),
        "H": lambda: _("lets one more player miss this round"),
        "I": lambda: _("exchanges the first number cards of seats {a} and {b}").format(
            a=first, b=second),
        "J": lambda: _("is ignored this round"),
    }[str(card)]()
    return _("seat {seat} uses {card}: {what}").format(seat=use.seat, card=card, what=what)


def round_story(game: Game, record: RoundRecord, tr: Words = ENGLISH) -> str:
    _ = tr.gettext
    table = record.table
    lines = [_("Round {round}").format(round=record.number)]
    plays = [_("seat {seat} {color}: {first}, {goal}, {second}").format(
                 seat=i, color=_(table.colors[i]), first=p.first.value,
                 goal=goal_name(p.goal, game.rulebook, tr), second=p.second.value)
             for i, p in enumerate(table.plays)]
    lines.append("  " + _("played: {plays}").format(plays=" | ".join(plays)))
    passed = _passing(game, record, tr)
    if passed:
        lines.append(f"  {passed}")
    lines += [f"  {describe_action(u, tr)}" for u in table.actions]
    body = verdict_text(record.verdict, game.rulebook, tr).splitlines()
    skipped = (_("challenges: {challenges}").split("{")[0],
               _("action {card} used by seat {seat}").split("{")[0])
    lines += [f"  {line}" for line in body if not line.startswith(skipped)]
    lives = tr.ngettext("{lives} life left", "{lives} lives left", record.lives_after).format(
        lives=record.lives_after)
    won = tr.ngettext("{won} of {rounds} round won", "{won} of {rounds} rounds won",
                      game.mission.rounds).format(won=record.rounds_won_after,
                                                  rounds=game.mission.rounds)
    state = _("Round won: {lives}, {won}") if record.verdict.success else \
        _("Round failed: {lives}, {won}")
    lines.append("  " + state.format(lives=lives, won=won))
    return "\n".join(lines)


def _passing(game: Game, record: RoundRecord, tr: Words = ENGLISH) -> str:
    """Goal passing (R4) in words: the goals under "played:" are the cards as played, the
    goals scored are the ones that lie in front of each seat after passing."""
    from synergy_forge.core.rulelang import RuleKind

    _ = tr.gettext
    table = record.table
    n = len(table.plays)
    for cid in table.challenges:
        definition = game.rulebook.challenges.get(cid)
        if definition is None or definition.kind is not RuleKind.PASSING or \
                not definition.direction:
            continue
        now = ", ".join(_("seat {seat} {goal}").format(
                            seat=i, goal=goal_name(table.plays[(i - definition.direction) % n].goal,
                                               game.rulebook, tr))
                        for i in range(n))
        line = _("{challenge}: every goal card passes to the left (R4); now {now}") \
            if definition.direction > 0 else \
            _("{challenge}: every goal card passes to the right (R4); now {now}")
        return line.format(challenge=goal_name(cid, game.rulebook, tr), now=now)
    return ""
