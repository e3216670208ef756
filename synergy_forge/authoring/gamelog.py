"""The game log: every decision of a game as JSON Lines, and replay through the engine.

The log's first record says everything needed to play the game again (the mission and any of
its campaign's own goals and challenges, the player count, the seed, the colours, the bots);
then one record per decision, in the order the engine asked; last, the outcome.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from synergy_forge import __version__
from synergy_forge.authoring.definitions import definition_from, standard_rulebook
from synergy_forge.authoring.loading import definition_to_data, mission_from_data, mission_to_data
from synergy_forge.authoring.schema import schema_diagnostics
from synergy_forge.authoring.yamlfile import Document
from synergy_forge.core.cards import Action, NumberCard
from synergy_forge.core.engine import Decision, DecisionKind, Game, GoalCard, IllegalChoice
from synergy_forge.core.mission import Mission
from synergy_forge.core.referee import ActionUse
from synergy_forge.core.rules import Rulebook
from synergy_forge.errors import EXIT_BAD_INPUT, UnreadableInput, WrongInput

LOG_FORMAT = 1


def encode(choice: Any) -> Any:
    """A choice as JSON data."""
    if choice is None or isinstance(choice, int):
        return choice
    if isinstance(choice, NumberCard):
        return {"value": choice.value, "color": choice.color}
    if isinstance(choice, GoalCard):
        return {"goal": choice.goal, "color": choice.color}
    if isinstance(choice, ActionUse):
        data: dict[str, Any] = {"card": str(choice.card), "seat": choice.seat}
        for name in ("target", "other"):
            if getattr(choice, name) is not None:
                data[name] = getattr(choice, name)
        if choice.seats is not None:
            data["seats"] = list(choice.seats)
        if choice.replacement is not None:
            data["with"] = encode(choice.replacement)
        if choice.cards is not None:
            data["cards"] = [encode(c) for c in choice.cards]
        return data
    raise TypeError(f"cannot record {choice!r}")


def decode(data: Any, kind: DecisionKind) -> Any:
    """A recorded choice back as a value; raises ValueError when it is not one."""
    if kind in (DecisionKind.SUPER, DecisionKind.HYPER):
        if not isinstance(data, int) or isinstance(data, bool):
            raise ValueError("expected a seat number")
        return data
    if kind is DecisionKind.GOAL:
        return GoalCard(str(data["goal"]), str(data["color"]))
    if kind in (DecisionKind.FIRST_NUMBER, DecisionKind.SECOND_NUMBER, DecisionKind.TAKE_BACK):
        return NumberCard(int(data["value"]), str(data["color"]))
    if data is None:
        return None
    return ActionUse(
        Action(data["card"]), int(data["seat"]), target=data.get("target"),
        other=data.get("other"),
        seats=tuple(data["seats"]) if "seats" in data else None,
        replacement=decode(data["with"], DecisionKind.FIRST_NUMBER) if "with" in data else None,
        cards=tuple(decode(c, DecisionKind.FIRST_NUMBER) for c in data["cards"])
        if "cards" in data else None,
    )


def header(game: Game, bots: Sequence[str]) -> dict[str, Any]:
    own = [d for d in [*game.rulebook.goals.values(), *game.rulebook.challenges.values()]
           if not d.builtin and (d.id in game.mission.challenges or d.id in game.mission.goals)]
    return {
        "type": "game", "format": LOG_FORMAT, "version": __version__,
        "mission": mission_to_data(game.mission),
        "definitions": [definition_to_data(d) for d in own],
        "players": game.players, "seed": game.seed, "colors": list(game.colors),
        "bots": list(bots),
    }


def outcome_record(game: Game) -> dict[str, Any]:
    outcome = game.outcome
    assert outcome is not None
    return {"type": "end", "result": "won" if outcome.won else "lost",
            "reason": str(outcome.reason) if outcome.reason else None,
            "rounds_won": outcome.rounds_won, "lives": outcome.lives,
            "rounds_played": outcome.rounds_played}


def decision_record(game: Game, decision: Decision, choice: Any) -> dict[str, Any]:
    """One decision as a log record (the game's position, the seat, what it chose)."""
    return {"type": "decision", "round": game.round_number, "seat": decision.seat,
            "kind": str(decision.kind), "choice": encode(choice)}


class Recorder:
    """Collects a game's log while it is played: pass it as `sim.play.play(on_decision=...)`,
    then `finish` adds the outcome record."""

    def __init__(self, game: Game, bots: Sequence[str]) -> None:
        self.records: list[dict[str, Any]] = [header(game, bots)]

    def __call__(self, game: Game, decision: Decision, choice: Any) -> None:
        self.records.append(decision_record(game, decision, choice))

    def finish(self, game: Game) -> list[dict[str, Any]]:
        self.records.append(outcome_record(game))
        return self.records


def write_log(records: Iterable[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n"
                   for r in records)


class ReplayError(WrongInput):
    """The log disagrees with the engine (exit 1): `line` is the first record that does,
    `reason` says how, `file` names the log (set by `replay`)."""

    def __init__(self, line: int, reason: str, file: str = "log") -> None:
        super().__init__(f"line {line}: {reason}")
        self.line, self.reason, self.file = line, reason, file

    def format_message(self) -> str:
        return f"{self.file}:{self.line}:1: error: {self.reason}"


class UnreadableLog(ReplayError, UnreadableInput):
    """A line of the log cannot be read as what it must be: not JSON, not a record, a game
    record that sets no game up, a choice that is no value (exit 2)."""

    exit_code = EXIT_BAD_INPUT


def read_log(path: Path) -> list[str]:
    """The lines of a log file; raises UnreadableLog when the file cannot be read."""
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise UnreadableLog(1, f"cannot read the log: {reason}", str(path)) from None


def game_from_header(data: dict[str, Any], line: int = 1) -> tuple[Game, list[str]]:
    """Set the game of a log's first record up again; raises ReplayError when it cannot be."""
    if not isinstance(data, dict) or data.get("type") != "game":
        raise UnreadableLog(line, "the first record must be the game record (type: game)")
    rulebook: Rulebook = standard_rulebook()
    own = []
    for raw in data.get("definitions", []):
        kind = "goal" if "kind" not in raw else "challenge"
        definition, found = definition_from(Document("log", raw, {(): (line, 1)}, {}), kind)
        if definition is None:
            raise UnreadableLog(line, f"definition {raw.get('id')!r}: {found[0].message}")
        own.append(definition)
    rulebook = rulebook.extended(own)
    mission_data: Any = data.get("mission")  # checked against the schema just below
    doc = Document("log", mission_data, {(): (line, 1)}, {})
    problems = schema_diagnostics(doc, "mission")
    if problems:
        raise UnreadableLog(line, f"the mission is not valid: {problems[0].message}")
    mission: Mission = mission_from_data(mission_data)
    try:
        game = Game(mission, int(data["players"]), int(data["seed"]), rulebook,
                    tuple(data["colors"]))
        bots = [str(b) for b in data["bots"]]
    except (KeyError, TypeError, ValueError) as exc:
        raise UnreadableLog(line, f"the game record is incomplete: {exc}") from None
    return game, bots


def replay(lines: Sequence[str], file: str = "log") -> Game:
    """Re-run a log through the engine; returns the finished game or raises ReplayError
    (UnreadableLog for a line that cannot be read) naming `file` and the first bad line."""
    try:
        return _replay(lines)
    except ReplayError as exc:
        exc.file = file
        raise


def _replay(lines: Sequence[str]) -> Game:
    records = []
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            records.append((number, json.loads(text)))
        except json.JSONDecodeError as exc:
            raise UnreadableLog(number, f"not JSON: {exc.msg}") from None
    if not records:
        raise UnreadableLog(1, "the log is empty")
    game, _ = game_from_header(records[0][1], records[0][0])
    position = 1
    while not game.over:
        decisions = game.pending()
        choices = []
        for decision in decisions:
            if position >= len(records):
                raise ReplayError(records[-1][0] + 1, f"the log ends, but seat {decision.seat} "
                                  f"still has a {decision.kind} decision to make")
            number, record = records[position]
            position += 1
            if not isinstance(record, dict):
                raise UnreadableLog(number, "expected a record (a JSON object)")
            if record.get("type") != "decision":
                raise ReplayError(number, f"expected seat {decision.seat}'s {decision.kind} "
                                  "decision")
            if record.get("seat") != decision.seat or record.get("kind") != decision.kind:
                raise ReplayError(number, f"the engine asks seat {decision.seat} for "
                                  f"{decision.kind}, the log has seat {record.get('seat')} "
                                  f"{record.get('kind')}")
            try:
                choice = decode(record.get("choice"), decision.kind)
            except (KeyError, TypeError, ValueError) as exc:
                raise UnreadableLog(number, f"the choice cannot be read: {exc}") from None
            if choice not in decision.choices:
                raise ReplayError(number, f"illegal: seat {decision.seat} cannot choose "
                                  f"{record.get('choice')} for {decision.kind}")
            choices.append(choice)
        try:
            game.apply(choices)
        except IllegalChoice as exc:
            raise ReplayError(records[position - 1][0], str(exc)) from None
    if position >= len(records):
        raise ReplayError(records[-1][0] + 1, "the log has no end record")
    number, end = records[position]
    expected = outcome_record(game)
    if end != expected:
        raise ReplayError(number, f"the log says {_summary(end)}, the engine {_summary(expected)}")
    if position + 1 < len(records):
        raise ReplayError(records[position + 1][0], "records after the end of the game")
    return game


def _summary(record: Any) -> str:
    if not isinstance(record, dict):
        return repr(record)
    result = record.get("result")
    reason = f" ({record.get('reason')})" if record.get("reason") else ""
    return f"{result}{reason} after {record.get('rounds_played')} round(s)"
