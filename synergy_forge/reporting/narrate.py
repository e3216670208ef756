"""Whole games in words, round by round, for `synergy-forge play`."""

from __future__ import annotations

from synergy_forge.core.actions import ActionUse
from synergy_forge.core.engine import Game, RoundRecord
from synergy_forge.reporting.explain import verdict_text


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


def describe_action(use: ActionUse) -> str:
    card = use.card
    taken = " and ".join(map(str, use.cards or ()))
    first, second = use.seats or (None, None)
    what = {
        "A": lambda: f"takes {taken} back from the discard row",
        "B": lambda: f"swaps its first number card for {use.replacement} from its hand",
        "C": lambda: f"takes {taken} back from the discard row",
        "D": lambda: f"exchanges goal cards with seat {use.other}",
        "E": lambda: f"exchanges the goal cards of seats {first} and {second}",
        "F": lambda: f"adds 1 to seat {use.target}'s first number card",
        "G": lambda: f"takes 1 from seat {use.target}'s first number card",
        "H": lambda: "lets one more player miss this round",
        "I": lambda: f"exchanges the first number cards of seats {first} and {second}",
        "J": lambda: "is ignored this round",
    }[str(card)]()
    return f"seat {use.seat} uses {card}: {what}"


def round_story(game: Game, record: RoundRecord) -> str:
    table = record.table
    lines = [f"Round {record.number}"]
    plays = [f"seat {i} {table.colors[i]}: {p.first.value}, {p.goal}, {p.second.value}"
             for i, p in enumerate(table.plays)]
    lines.append("  played: " + " | ".join(plays))
    passed = _passing(game, record)
    if passed:
        lines.append(f"  {passed}")
    lines += [f"  {describe_action(u)}" for u in table.actions]
    body = verdict_text(record.verdict, game.rulebook).splitlines()
    lines += [f"  {line}" for line in body if not line.startswith(("challenges:", "action "))]
    state = "won" if record.verdict.success else "failed"
    lines.append(f"  Round {state}: {record.lives_after} li"
                 f"{'fe' if record.lives_after == 1 else 'ves'} left, "
                 f"{record.rounds_won_after} of {game.mission.rounds} rounds won")
    return "\n".join(lines)


def _passing(game: Game, record: RoundRecord) -> str:
    """Goal passing (R4) in words: the goals under "played:" are the cards as played, the
    goals scored are the ones that lie in front of each seat after passing."""
    from synergy_forge.core.rulelang import RuleKind

    table = record.table
    n = len(table.plays)
    for cid in table.challenges:
        definition = game.rulebook.challenges.get(cid)
        if definition is None or definition.kind is not RuleKind.PASSING or \
                not definition.direction:
            continue
        way = "left" if definition.direction > 0 else "right"
        now = ", ".join(f"seat {i} {table.plays[(i - definition.direction) % n].goal}"
                        for i in range(n))
        return f"{cid}: every goal card passes to the {way} (R4); now {now}"
    return ""
