"""Changing a mission file's settings in place, keeping everything else the designer wrote.

`tune --write` changes a few values (stars, rounds, lives, allowed failures, the starting hand,
the action cards). Rather than load and dump the YAML (which would lose comments, quotes, key
order and layout), each value is replaced in the original text at the span the parser located
it at, and a missing key is added as a line of its own after its neighbour in the documented
order (docs/mission-format.md). The edited text is read back and must give exactly the mission
asked for, or nothing is written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from synergy_forge.authoring.diagnostics import Diagnostic, InvalidInput, Severity
from synergy_forge.authoring.lint import mission_diagnostics
from synergy_forge.authoring.loading import mission_from_data, mission_to_data
from synergy_forge.authoring.schema import schema_diagnostics
from synergy_forge.authoring.yamlfile import Document, parse_document
from synergy_forge.core.mission import Mission
from synergy_forge.core.rules import Rulebook
from synergy_forge.errors import CannotWrite, ChangedMeanwhile, WrongInput
from synergy_forge.fileio import replace_text

#: The top-level keys in the documented order: a missing key is added after the last of these
#: that the file has before it.
ORDER = ("id", "number", "title", "stars", "players", "rounds", "lives", "hand", "order",
         "allowed_failures", "challenges", "actions", "super", "hyper", "flavor")

Path_ = tuple[str | int, ...]


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    flow: bool  # a flow collection ({...} or [...]) or a scalar, rather than a block


class EditError(WrongInput):
    """The file's layout is one this editor does not change by itself."""


def _spans(text: str) -> tuple[dict[Path_, _Span], dict[Path_, int]]:
    """The character span of every value, and the start of every mapping key's line."""
    values: dict[Path_, _Span] = {}
    keys: dict[Path_, int] = {}
    loader = yaml.SafeLoader(text)
    stack: list[list[Any]] = []  # [path, is mapping, pending key, count, start, flow]
    try:
        while True:
            event: Any = loader.get_event()
            if event is None or isinstance(event, yaml.StreamEndEvent):
                break
            if isinstance(event, yaml.StreamStartEvent | yaml.DocumentStartEvent
                          | yaml.DocumentEndEvent):
                continue
            if isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
                opened, _, _, _, start, flow = stack.pop()
                values[opened] = _Span(start, _index(event.end_mark), flow)
                continue
            # A scalar or the start of a collection: a key, or a value at a path.
            if stack and stack[-1][1] and stack[-1][2] is None:
                frame = stack[-1]
                frame[2] = str(event.value)
                keys[(*frame[0], frame[2])] = _index(event.start_mark)
                continue
            if not stack:
                path: Path_ = ()
            elif stack[-1][1]:
                path = (*stack[-1][0], stack[-1][2])
                stack[-1][2] = None
            else:
                path = (*stack[-1][0], stack[-1][3])
                stack[-1][3] += 1
            if isinstance(event, yaml.ScalarEvent):
                values[path] = _Span(_index(event.start_mark), _index(event.end_mark), True)
            else:
                stack.append([path, isinstance(event, yaml.MappingStartEvent), None, 0,
                              _index(event.start_mark), bool(event.flow_style)])
    finally:
        loader.dispose()
    return values, keys


def _index(mark: Any) -> int:
    return int(mark.index)


def _flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return str(value)


def _wanted(mission: Mission) -> dict[str, Any]:
    """The tunable keys as the file would say them: one number of allowed failures when every
    player count has the same."""
    failures = {p: mission.allowed_failures[p] for p in sorted(mission.players)}
    same = len(set(failures.values())) == 1
    return {
        "stars": dict(mission.stars_per_count) or mission.stars,
        "rounds": mission.rounds, "lives": mission.lives,
        "hand": {"numbers": mission.hand_numbers, "goals": mission.hand_goals},
        "allowed_failures": next(iter(failures.values())) if same else failures,
        "actions": [str(a) for a in mission.actions],
    }


def edit_mission_text(text: str, name: str, before: Mission, after: Mission) -> str:
    """`text` (the file `before` was read from) changed to say `after`'s settings."""
    doc = parse_document(text.encode("utf-8"), name)
    if not isinstance(doc.data, dict):
        raise EditError(f"{name}: not a mission file")
    old, new = _wanted(before), _wanted(after)
    edit = _Edit(text, doc.data, *_spans(text))
    for key in ("rounds", "lives"):
        if old[key] != new[key]:
            edit.replace((key,), str(new[key]))
    if old["hand"] != new["hand"]:
        edit.hand(new["hand"], {"numbers": 10, "goals": len(before.goals)})
    for key in ("stars", "allowed_failures"):
        if old[key] != new[key]:
            edit.per_count(key, new[key])
    if old["actions"] != new["actions"]:
        edit.actions(new["actions"])
    out = edit.applied()
    _confirm(out, name, after)
    return out


@dataclass
class _Edit:
    """The changes to one mission file's text: each a span of the text replaced, and the
    top-level keys to add (placed by `applied`, in the format's order)."""

    text: str
    data: dict[str, Any]
    spans: dict[Path_, _Span]
    keys: dict[Path_, int]
    edits: list[tuple[int, int, str]] = field(default_factory=list)  # (start, end, new text)
    additions: dict[str, str] = field(default_factory=dict)  # top-level key -> its line

    def replace(self, path: Path_, replacement: str) -> None:
        span = self.spans[path]
        self.edits.append((span.start, span.end, replacement))

    def hand(self, wanted: dict[str, int], defaults: dict[str, int]) -> None:
        """The starting hand: only the counts that change, in the style the file uses."""
        hand = self.data.get("hand")
        said = hand if isinstance(hand, dict) else {}
        changed = {k: v for k, v in wanted.items() if said.get(k, defaults[k]) != v}
        if isinstance(hand, dict) and self.spans[("hand",)].flow:
            self.replace(("hand",), _flow({**hand, **changed}))
        elif isinstance(hand, dict) and hand:  # a block mapping: change or add each line
            for part, value in changed.items():
                if ("hand", part) in self.spans:
                    self.replace(("hand", part), str(value))
                else:
                    first = min(self.keys[("hand", k)] for k in hand)
                    indent = first - self.text.rfind("\n", 0, first) - 1
                    self.edits.append((first, first, f"{part}: {value}\n" + " " * indent))
        elif "hand" in self.data:
            self.replace(("hand",), _flow(changed))
        else:
            self.additions["hand"] = f"hand: {_flow(changed)}"

    def per_count(self, key: str, value: int | dict[int, int]) -> None:
        """A value that is one number or one per player count (stars, allowed failures): each
        count changed in place when the file already names the same counts."""
        current = self.data.get(key)
        if current is None:
            self.additions[key] = f"{key}: {_flow(value)}"
        elif isinstance(current, dict) and isinstance(value, dict) and \
                set(current) == {str(k) for k in value}:
            for count, number in value.items():
                if current[str(count)] != number:
                    self.replace((key, str(count)), str(number))
        elif self.spans[(key,)].flow:
            self.replace((key,), _flow(value))
        else:
            self.unblock(key, _flow(value))

    def unblock(self, key: str, value: str) -> None:
        """A top-level block collection replaced by `value` on its key's line, whose comment
        stays; the block's lines go, up to the end of its last item's line (a comment line
        after it stays too)."""
        colon = self.text.index(":", self.keys[(key,)]) + 1
        last = max(span.end for path, span in self.spans.items()
                   if len(path) > 1 and path[0] == key)
        end = self.text.find("\n", last - 1 if self.text[last - 1:last] == "\n" else last)
        start = self.text.rfind("\n", 0, self.spans[(key,)].start)
        self.edits.append((colon, colon, f" {value}"))
        self.edits.append((start, len(self.text) if end < 0 else end, ""))

    def actions(self, cards: list[str]) -> None:
        """The action cards, as a flow list or one "- X" line each, as the file has them."""
        if "actions" not in self.data:
            self.additions["actions"] = f"actions: {_flow(cards)}"
            return
        span = self.spans[("actions",)]
        if span.flow or not self.data["actions"] or not cards:
            self.replace(("actions",), _flow(cards))
            return
        indent = span.start - self.text.rfind("\n", 0, span.start) - 1
        items = ("\n" + " " * indent).join(f"- {a}" for a in cards)
        end = span.end
        if self.text[end - 1:end] == "\n":  # block ends after the newline of its last item
            end -= 1
        self.edits.append((span.start, end, items))

    def applied(self) -> str:
        """The text with every change made, the added keys each after its nearest preceding
        key."""
        text, edits = self.text, list(self.edits)
        inserted: dict[int, list[str]] = {}
        for key in ORDER:
            if key in self.additions:
                inserted.setdefault(_after(text, self.spans, self.data, key), []).append(
                    self.additions[key])
        for at, lines in inserted.items():
            block = "".join(line + "\n" for line in lines)
            if at == len(text) and text and not text.endswith("\n"):
                block = "\n" + block.removesuffix("\n")
            edits.append((at, at, block))
        for start, end, replacement in sorted(edits, reverse=True):
            text = text[:start] + replacement + text[end:]
        return text


def _after(text: str, spans: dict[Path_, _Span], data: dict[str, Any], key: str) -> int:
    """Where to add a top-level `key`: at the start of the line after its nearest preceding
    key's value (or at the end of the file)."""
    if spans[()].flow:
        raise EditError("the mission is written as one flow mapping ({...}); add "
                        f"'{key}' yourself")
    earlier = [k for k in ORDER[:ORDER.index(key)] if k in data]
    if not earlier:
        return 0
    end = spans[(earlier[-1],)].end
    newline = text.find("\n", end)
    if text[end - 1:end] == "\n":  # a block value ends after its own last newline
        return end
    return len(text) if newline < 0 else newline + 1


def _confirm(text: str, name: str, after: Mission) -> None:
    """Read the edited text back: it must be the mission asked for, in every tuned setting."""
    try:
        data = parse_document(text.encode("utf-8"), name).data
        got = mission_from_data(data, after.source)
    except (InvalidInput, KeyError, TypeError, ValueError) as exc:
        raise EditError(f"{name}: the edited file would not read back ({exc}); nothing was "
                        "written") from None
    if _wanted(got) != _wanted(after) or got.players != after.players:
        raise EditError(f"{name}: the edited file would not say what was asked; nothing was "
                        "written")


def rewrite_mission(path: Path, read: str, before: Mission, after: Mission,
                  name: str | None = None) -> str:
    """Change the file at `path`, which said `read` when `before` was loaded from it, to say
    `after`'s settings; returns the new text. The file keeps its comments, key order, layout
    and mode; a link's target is changed; a read-only file is refused (CannotWrite) and a save
    made since `read` is never overwritten (ChangedMeanwhile): fileio.replace_text."""
    edited = edit_mission_text(read, name or str(path), before, after)
    replace_text(path, read, edited)
    return edited


def candidate_problems(mission: Mission, rulebook: Rulebook,
                       languages: tuple[str, ...] = ("en",),
                       warnings: bool = False) -> list[Diagnostic]:
    """The errors (`warnings`: and warnings) `validate` would report for `mission` written as a
    file: a tuning candidate must be a valid mission (rounds ≤ 7, allowed failures < players,
    satisfiable challenges...) that earns no warning its original did not have."""
    data = mission_to_data(mission)
    doc = Document(mission.source or mission.id, data, {(): (1, 1)}, {})
    found = schema_diagnostics(doc, "mission") or mission_diagnostics(doc, rulebook, languages)
    return [d for d in found if warnings or d.severity is Severity.ERROR]


def no_new_problems(mission: Mission, rulebook: Rulebook) -> Callable[[Mission], bool]:
    """Whether a candidate setting of `mission` may be proposed: it earns no error and no
    warning of validate's that the mission did not already have: tune never proposes what
    validate would warn about."""
    had = {d.check for d in candidate_problems(mission, rulebook, warnings=True)}

    def valid(candidate: Mission) -> bool:
        found = candidate_problems(candidate, rulebook, warnings=True)
        return not any(d.severity == "error" or d.check not in had for d in found)

    return valid


@dataclass(frozen=True)
class Edit:
    """A change of a mission file: the text it would say (None: it could not be made), whether
    it was written, and why not when it could not be."""

    text: str | None
    written: bool = False
    failure: EditError | CannotWrite | ChangedMeanwhile | None = None

    @property
    def error(self) -> str:
        return "" if self.failure is None else str(self.failure)


def edit_mission(path: Path, read: str, before: Mission, after: Mission, write: bool) -> Edit:
    """The file at `path`, which said `read` when `before` was loaded from it, changed to say
    `after`'s settings; written in place when `write` (see rewrite_mission) and it changes."""
    try:
        edited = edit_mission_text(read, str(path), before, after)
        if write and edited != read:
            rewrite_mission(path, read, before, after, str(path))
            return Edit(edited, written=True)
        return Edit(edited)
    except (EditError, CannotWrite, ChangedMeanwhile) as exc:
        return Edit(None, failure=exc)
