"""The game log: every decision of a game as JSON Lines, and replay through the engine.

The log's first record says everything needed to play the game again (the mission and any of
its campaign's own goals and challenges, the player count, the seed, the colours, the bots);
then one record per decision, in the order the engine asked; last, the outcome.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from synergy_forge import __version__
from synergy_forge.authoring.definitions import definition_from, standard_rulebook
from synergy_forge.authoring.diagnostics import errors
from synergy_forge.authoring.loading import check_mission, definition_to_data, mission_to_data
from synergy_forge.authoring.schema import schema_diagnostics
from synergy_forge.authoring.yamlfile import Document
from synergy_forge.core.cards import GOAL_IDS
from synergy_forge.core.choices import (
    Choice,
    Decision,
    IllegalChoice,
    NotationError,
    choice_from_json,
    choice_json,
)
from synergy_forge.core.engine import Game
from synergy_forge.core.mission import Campaign, Mission
from synergy_forge.core.playhash import PlayChange, play_changes
from synergy_forge.core.rules import Definition, Rulebook
from synergy_forge.errors import UnreadableInput, WrongInput
from synergy_forge.fileio import open_regular

LOG_FORMAT = 1
#: What the game record's `bots` says of a seat a person played (`synergy-forge table`).
PERSON = "person"


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


def decision_record(game: Game, decision: Decision, choice: Choice,
                    by: str | None = None) -> dict[str, Any]:
    """One decision as a log record (the game's position, the seat, what it chose as JSON:
    `choices.choice_json`), and who made it (`by`: PERSON or a bot's name) when told."""
    record = {"type": "decision", "round": game.round_number, "seat": decision.seat,
              "kind": str(decision.kind)}
    if by is not None:
        record["by"] = by
    record["choice"] = choice_json(choice)
    return record


def who_played(records: Sequence[dict[str, Any]], seated: Sequence[str]) -> list[str]:
    """Who played each seat, for the game record's `bots`: the one who made most of its
    decisions by the records' `by` (a person on a tie: a seat a person played half of is
    a person's game), else who sat there (`seated`)."""
    made: list[dict[str, int]] = [{} for _ in seated]
    for record in records:
        by = record.get("by")
        if record.get("type") == "decision" and by is not None:
            made[record["seat"]][by] = made[record["seat"]].get(by, 0) + 1
    players = []
    for seat, counts in enumerate(made):
        if not counts:
            players.append(seated[seat])
            continue
        most = max(counts.values())
        players.append(PERSON if counts.get(PERSON) == most else
                       min(name for name, n in counts.items() if n == most))
    return players


class Recorder:
    """Collects a game's log while it is played: pass it as `sim.play.play(on_decision=...)`,
    then `finish` adds the outcome record."""

    def __init__(self, game: Game, bots: Sequence[str]) -> None:
        self.records: list[dict[str, Any]] = [header(game, bots)]

    def __call__(self, game: Game, decision: Decision, choice: Choice) -> None:
        self.records.append(decision_record(game, decision, choice))

    def finish(self, game: Game) -> list[dict[str, Any]]:
        self.records.append(outcome_record(game))
        return self.records


def write_log(records: Iterable[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n"
                   for r in records)


class ReplayError(WrongInput):
    """The log disagrees with the engine or its format: `line` is the first record
    that does (at `column`, when known within it), `message` says how, `file` names the log
    (set by `replay`)."""

    def __init__(self, line: int, message: str, file: str = "log", column: int = 1) -> None:
        super().__init__(f"line {line}: {message}")
        self.line, self.column, self.message, self.file = line, column, message, file

    def format_message(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: error: {self.message}"


class UnreadableLog(ReplayError, UnreadableInput):
    """The log, or one of its lines, cannot be read: the file is missing or is no regular
    file, or a line is too long, not UTF-8 or not JSON. A line that is JSON but not the
    record the engine expects is a plain ReplayError."""


#: The longest line a log may hold: a game record with a campaign's definitions is a few
#: kilobytes; past this the line is refused before it is parsed, so memory stays flat.
MAX_LINE = 256 * 1024


def log_lines(stream: BinaryIO) -> Iterator[tuple[int, str]]:
    """(line number, text) of each line of a binary stream, read one bounded line at a time.

    Raises UnreadableLog for a line longer than MAX_LINE or not UTF-8 (a BOM at the very start
    is dropped, as `validate` does).
    """
    number = 0
    while True:
        raw = stream.readline(MAX_LINE + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
            raise UnreadableLog(number, f"the line is longer than {MAX_LINE // 1024} KiB; a game "
                              "log's lines are far shorter")
        if number == 1:
            raw = raw.removeprefix(b"\xef\xbb\xbf")
        try:
            yield number, raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            column = len(raw[: exc.start].decode("utf-8")) + 1  # in characters, as editors count
            raise UnreadableLog(number, "the line is not UTF-8 text", column=column) from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise ValueError(f"the key {key!r} appears twice")
        found[key] = value
    return found


def parse_record(number: int, text: str) -> Any:
    """Line `number` of a game log, `text`, as JSON data: how every reader of logs reads a
    line. Raises UnreadableLog at the line, and at the column when JSON gives one."""
    # The line break ends the record: in a string cut off there, JSON would call it a
    # control character in the string rather than the string unterminated.
    text = text.removesuffix("\n").removesuffix("\r")
    try:
        return json.loads(text, parse_constant=_no_constant, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        # The place goes in the location; the words without it ("Unterminated string
        # starting at" says where the string starts: that is the column).
        words = exc.msg.removesuffix(" at").removesuffix(" starting")
        raise UnreadableLog(number + exc.lineno - 1, f"not JSON: {words[:1].lower()}{words[1:]}",
                            column=exc.colno) from None
    except RecursionError:
        raise UnreadableLog(number, "the record is nested too deeply") from None
    except ValueError as exc:  # our hooks, and integers of thousands of digits
        raise UnreadableLog(number, f"not valid JSON: {exc}") from None


def _check(number: int, record: Any, part: str) -> None:
    """The record against its $def of gamelog.schema.json: the first problem, at its line."""
    problems = schema_diagnostics(Document("log", record, {(): (number, 1)}, {}), "gamelog",
                                  part)
    if problems:
        raise ReplayError(number, f"{_WHAT[part]}: {problems[0].message}")


_WHAT = {"game": "the game record", "decision": "the decision record", "end": "the end record"}


def game_from_header(data: Any, line: int = 1, known: Campaign | None = None,
                     label: str = "the campaign", changed: bool = False) -> Header:
    """Set the game of a log's first record up again. Raises ReplayError.

    The record's schema is checked first; then every definition must be one the mission
    uses (anything else is refused before it costs anything); then the header is checked as
    `validate` checks files (each definition as a goal or challenge file, no built-in id
    redefined, the mission as a mission file with those definitions). When `known` (called
    `label`) has a mission of the header's id, the two must play alike (core.playhash: the
    same settings and rules; titles, stars and texts may differ), or PlayChanged names the
    first difference; with `changed`, such a log is set up as self-contained instead, its
    differences in `Header.changes`. Otherwise the game is self-contained: it replays, but
    nothing says it is the mission it claims. The log's own mission is played either way:
    its goal deck's order is the one its seed dealt."""
    if not isinstance(data, dict) or data.get("type") != "game":
        raise ReplayError(line, "the first record must be the game record (type: game)")
    if data.get("format") != LOG_FORMAT:
        raise ReplayError(line, f"log format {data.get('format')!r} is not one this version "
                          f"reads (format {LOG_FORMAT})")
    _check(line, data, "game")
    header_mission = data["mission"]
    used = set(header_mission.get("goals", GOAL_IDS)) | set(header_mission.get("challenges", []))
    for i, raw in enumerate(data["definitions"]):
        if raw["id"] not in used:
            raise ReplayError(line, f"definition {i + 1} ({raw['id']}) is not a goal or "
                              f"challenge of mission {header_mission['id']}; a log carries "
                              "only the definitions its mission uses")
    ours = _known_mission(known, header_mission["id"])
    if known is not None and ours is not None:
        _nothing_left_out(line, data, ours, known, label)
    rulebook = _header_rulebook(line, data["definitions"])
    mission, found = check_mission(Document("log", header_mission, {(): (line, 1)}, {}),
                                   rulebook)
    problems = errors(found)
    if mission is None or problems:
        raise ReplayError(line, f"the mission is not valid: {problems[0].message}")
    changes: tuple[PlayChange, ...] = ()
    if known is not None and ours is not None:
        changes = tuple(play_changes(mission, rulebook, ours, known.rulebook))
        if changes and not changed:
            raise PlayChanged(line, _difference(changes[0], ours, label), changes)
    verified = ours is not None and not changes
    players, colors, bots = data["players"], data["colors"], data["bots"]
    if players not in mission.players:
        raise ReplayError(line, f"mission {mission.id} is for "
                          f"{', '.join(map(str, mission.players))} players, not {players}")
    if len(colors) != players or len(bots) != players:
        raise ReplayError(line, f"{players} players need {players} colours and {players} bots, "
                          f"the log has {len(colors)} and {len(bots)}")
    if verified and known is not None and list(colors) != list(known.colors[:players]):
        raise ReplayError(line, f"the log's colours {', '.join(colors)} are not {label}'s "
                          f"({', '.join(known.colors[:players])})")
    game = Game(mission, players, data["seed"], rulebook, tuple(colors))
    return Header(game, list(bots), ours, changes)


@dataclass(frozen=True)
class Header:
    """A log's game set up from its first record: who plays each seat, the known campaign's
    mission of the same id (None: none, the log is self-contained) and how the log's mission
    plays otherwise than it (empty: alike, the log is verified)."""

    game: Game
    bots: list[str]
    known: Mission | None
    changes: tuple[PlayChange, ...]

    @property
    def verified(self) -> bool:
        return self.known is not None and not self.changes


class PlayChanged(ReplayError):
    """The log's mission has the id of a mission of the campaign but does not play as it
    does (the campaign changed it since the log was written, or the log was altered):
    `changes` says how, the campaign's version after."""

    def __init__(self, line: int, message: str, changes: tuple[PlayChange, ...],
                 file: str = "log") -> None:
        super().__init__(line, message, file)
        self.changes = changes


def _known_mission(known: Campaign | None, mission_id: str) -> Mission | None:
    if known is None:
        return None
    return next((m for m in known.missions if m.id == mission_id), None)


def _header_rulebook(line: int, definitions: list[dict[str, Any]]) -> Rulebook:
    """The built-in rulebook with the header's definitions, each checked as a file."""
    builtin = standard_rulebook()
    own: list[Definition] = []
    for i, raw in enumerate(definitions):
        doc = Document("log", raw, {(): (line, 1)}, {})
        definition, found = definition_from(doc, "challenge" if "kind" in raw else "goal")
        problems = errors(found)
        where = f"definition {i + 1} ({raw['id']})"
        if problems or definition is None:
            raise ReplayError(line, f"{where}: {problems[0].message}")
        if definition.id in builtin.goals or definition.id in builtin.challenges:
            raise ReplayError(line, f"{where}: '{definition.id}' is a built-in id; a log "
                              "cannot redefine it")
        if any(d.id == definition.id for d in own):
            raise ReplayError(line, f"{where}: '{definition.id}' is defined twice")
        own.append(definition)
    return builtin.extended(own)


def _nothing_left_out(line: int, data: dict[str, Any], mission: Mission, known: Campaign,
                      label: str) -> None:
    """A log carries every definition of its own that its mission uses: one the campaign
    defines and the log does not is a log cut short, not a change of play."""
    rulebook, builtin = known.rulebook, standard_rulebook()
    header_mission = data["mission"]
    used = [*header_mission.get("goals", GOAL_IDS), *header_mission.get("challenges", [])]
    given = {raw["id"] for raw in data["definitions"]}
    for definition_id in dict.fromkeys(used):
        if definition_id in given or definition_id in builtin.goals or \
                definition_id in builtin.challenges:
            continue
        if definition_id in rulebook.goals or definition_id in rulebook.challenges:
            raise ReplayError(line, f"the log leaves out {label}'s definition of "
                              f"'{definition_id}', which mission {mission.id} uses")


def _difference(change: PlayChange, mission: Mission, label: str) -> str:
    """A change of play in words: the log's side first, the campaign's after."""
    if change.subject == "mission":
        where = f"{label}'s {mission.source}" if mission.source else label
        return (f"the log's mission {mission.id} is not the one in {where}: its {change.key} "
                f"is {_shown(change.before)}, the mission's {_shown(change.after)}")
    return (f"the log's '{change.id}' is not {label}'s: its {change.key} is "
            f"{_shown(change.before)}, the campaign's {_shown(change.after)}")


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:59] + "…"


class _Records:
    """The log's records one at a time, blank lines skipped; `last` is the last line read."""

    def __init__(self, lines: Iterable[str] | Iterable[tuple[int, str]]) -> None:
        self._lines = iter(lines)
        self.last = 0

    def next(self) -> tuple[int, Any] | None:
        for item in self._lines:
            number, text = item if isinstance(item, tuple) else (self.last + 1, item)
            self.last = number
            if text.strip():
                return number, parse_record(number, text)
        return None


@dataclass(frozen=True)
class Replayed:
    """A replayed log: the finished game, whether its mission was confirmed against a
    known campaign (False: the log is self-contained, its mission not verified), who played
    each seat (the game record's `bots`), the campaign's mission of the log's id (None:
    none) and how the log's mission plays otherwise (only with `changed`; empty: alike)."""

    game: Game
    verified: bool
    bots: list[str]
    known: Mission | None = None
    changes: tuple[PlayChange, ...] = ()


def replay_file(path: Path, known: Campaign | None = None,
                label: str = "the campaign", changed: bool = False) -> Replayed:
    """Replay the log at `path`, read one bounded line at a time, against `known` (see
    game_from_header, and `changed` there); raises UnreadableLog when the file cannot be
    read, ReplayError (naming the file) at its first bad line."""
    try:
        stream = open_regular(path)
    except OSError as exc:
        raise UnreadableLog(1, f"cannot read the log: {exc.strerror}", str(path)) from None
    try:
        with stream:
            return replay_log(log_lines(stream), str(path), known, label, changed)
    except OSError as exc:  # a read error part way through
        raise UnreadableLog(1, f"cannot read the log: {exc.strerror}", str(path)) from None


def replay(lines: Iterable[str] | Iterable[tuple[int, str]], file: str = "log") -> Game:
    """A self-contained replay (no known campaign): the finished game. See replay_log."""
    return replay_log(lines, file).game


def replay_log(lines: Iterable[str] | Iterable[tuple[int, str]], file: str = "log",
               known: Campaign | None = None, label: str = "the campaign",
               changed: bool = False) -> Replayed:
    """Re-run a log through the engine; returns the finished game or raises ReplayError at the
    first record that is not what the engine would accept in its position (UnreadableLog at
    the first line that cannot be read), naming `file`.

    `lines` are the log's lines (or (number, line) pairs, as `log_lines` gives), read one at a
    time: nothing is kept but the game.
    """
    try:
        return _replay(lines, known, label, changed)
    except ReplayError as exc:
        exc.file = file
        raise


def _replay(lines: Iterable[str] | Iterable[tuple[int, str]], known: Campaign | None,
            label: str, changed: bool) -> Replayed:
    records = _Records(lines)
    first = records.next()
    if first is None:
        raise ReplayError(max(records.last, 1), "the log is empty")
    header = game_from_header(first[1], first[0], known, label, changed)
    game = header.game
    while not game.over:
        choices: list[Choice] = []
        for decision in game.pending():
            expected = f"seat {decision.seat}'s {decision.kind} decision " + \
                _round_name(game.round_number)
            found = records.next()
            if found is None:
                raise ReplayError(records.last + 1, f"the log ends early: expected {expected}")
            number, record = found
            if not isinstance(record, dict) or record.get("type") != "decision":
                raise ReplayError(number, f"expected {expected}, found "
                                  f"{_kind_of_record(record)}")
            _check(number, record, "decision")
            position = (record["round"], record["seat"], record["kind"])
            if position != (game.round_number, decision.seat, decision.kind):
                raise ReplayError(number, f"the engine asks for {expected}, the log has seat "
                                  f"{record['seat']}'s {record['kind']} decision "
                                  f"{_round_name(record['round'])}")
            try:
                choice = choice_from_json(decision.kind, record["choice"])
            except NotationError as exc:
                raise ReplayError(number, f"the choice cannot be read: {exc}") from None
            if choice not in decision.choices:
                shown = json.dumps(record["choice"])
                raise ReplayError(number, f"illegal: {game.refusal(decision, choice, shown)}")
            choices.append(choice)
        try:
            game.apply(choices)
        except IllegalChoice as exc:
            raise ReplayError(records.last, str(exc)) from None
    expected_end = outcome_record(game)
    found = records.next()
    if found is None:
        raise ReplayError(records.last + 1, f"the log has no end record; the engine finished "
                          f"the game: {_summary(expected_end)}")
    number, end = found
    if not isinstance(end, dict) or end.get("type") != "end":
        raise ReplayError(number, f"the engine finished the game ({_summary(expected_end)}); "
                          f"expected the end record, found {_kind_of_record(end)}")
    _check(number, end, "end")
    if end != expected_end:
        raise ReplayError(number, f"the log says {_summary(end)}, the engine "
                          f"{_summary(expected_end)}")
    after = records.next()
    if after is not None:
        raise ReplayError(after[0], "records after the end of the game")
    return Replayed(game, header.verified, header.bots, header.known, header.changes)


def _round_name(number: int) -> str:
    return "before round 1" if number == 0 else f"of round {number}"


def _kind_of_record(record: Any) -> str:
    if isinstance(record, dict) and isinstance(record.get("type"), str):
        return f"a record of type {record['type'][:20]!r}"
    return "a record without a type" if isinstance(record, dict) else "no record (not an object)"


def _summary(record: dict[str, Any]) -> str:
    reason = f" ({record['reason']})" if record["reason"] else ""
    return f"{record['result']}{reason} after {record['rounds_played']} round(s)"
