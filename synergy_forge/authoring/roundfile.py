"""Reading a round file (schemas/round.schema.json) into a Table for the referee, with the
goals, challenges and colours of the campaign it belongs to."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from synergy_forge.authoring.diagnostics import Diagnostic, InvalidInput
from synergy_forge.authoring.schema import schema_problems
from synergy_forge.authoring.yamlfile import Document, read_document
from synergy_forge.core.actions import ActionUse
from synergy_forge.core.cards import DEFAULT_COLORS, Action, NumberCard
from synergy_forge.core.referee import SeatPlay, Table, table_problems, unknown
from synergy_forge.core.rules import Rulebook


def _card(raw: Any, color: str) -> NumberCard:
    if isinstance(raw, dict):
        return NumberCard(raw["value"], raw.get("color", color))
    return NumberCard(raw, color)


def table_from(doc: Document, rulebook: Rulebook,
               default_colors: tuple[str, ...] = DEFAULT_COLORS,
               broken: Mapping[tuple[str, str], str] | None = None) -> Table:
    """The Table a round document describes; raises InvalidInput with every located
    diagnostic. A schema error in one field does not hide the rules' checks of the others
    (R4, R12, R15…): those run on the fields that passed, so one run shows every mistake; a
    round whose seats cannot be read is not set out to the rules, but the goals and
    challenges it names are still checked. `broken`: the campaign's goals and challenges that
    exist but have errors ("has an error", not "unknown")."""
    found, bad = schema_problems(doc, "round")
    data = doc.data
    if not isinstance(data, dict):
        raise InvalidInput(found)
    if "seats" in bad or not isinstance(data.get("seats"), list):
        found += _broken_definitions(doc, data, bad, broken or {})
        raise InvalidInput(found + _unknown_ids(doc, data, bad, rulebook, found))
    data = {k: v for k, v in data.items() if k not in bad}
    seats = data["seats"]
    colors = tuple(data.get("colors") or default_colors[: len(seats)])
    if len(colors) != len(seats):
        found.append(doc.diagnostic(
            ("colors",), f"'colors' names {len(colors)} colours for {len(seats)} seats; "
            "expected one per seat", "round.colors"))
        colors = tuple(default_colors[: len(seats)])
    plays = tuple(
        SeatPlay(_card(s["numbers"][0], colors[i]), _card(s["numbers"][1], colors[i]), s["goal"])
        for i, s in enumerate(seats)
    )
    actions = []
    for a in data.get("actions", []):
        user = a["seat"]
        replacement = None
        if "with" in a:
            replacement = _card(a["with"], colors[user] if user < len(colors) else "")
        actions.append(ActionUse(
            card=Action(a["card"]), seat=user, target=a.get("target"), other=a.get("other"),
            seats=tuple(a["seats"]) if "seats" in a else None, replacement=replacement,
        ))
    table = Table(
        plays=plays, challenges=tuple(data.get("challenges", [])),
        allowed_failures=data.get("allowed_failures", 0), super_seat=data.get("super"),
        hyper_seat=data.get("hyper"), actions=tuple(actions), colors=colors,
    )
    found += _broken_definitions(doc, data, bad, broken or {})
    named = {(d.line, d.column) for d in found}
    found += [d for d in (doc.diagnostic(p.where, p.message, "round.rules")
                          for p in table_problems(table, rulebook))
              if (d.line, d.column) not in named]  # said already: "has an error"
    if found:
        raise InvalidInput(found)
    return table


def _named_ids(data: dict[str, Any], bad: set[str | int]) -> list[tuple[tuple[str | int, ...],
                                                                      str, str]]:
    """(where, "goal" or "challenge", id) of every id the round names, in the seats even
    when some seat is misspelt and in the challenges when they passed the schema."""
    seats = data.get("seats")
    named: list[tuple[tuple[str | int, ...], str, str]] = [
        (("seats", i, "goal"), "goal", seat["goal"]) for i, seat in
        enumerate(seats if isinstance(seats, list) else [])
        if isinstance(seat, dict) and isinstance(seat.get("goal"), str)]
    challenges = data.get("challenges") if "challenges" not in bad else None
    return named + [(("challenges", i), "challenge", cid) for i, cid in
                    enumerate(challenges if isinstance(challenges, list) else [])
                    if isinstance(cid, str)]


def _broken_definitions(doc: Document, data: dict[str, Any], bad: set[str | int],
                        broken: Mapping[tuple[str, str], str]) -> list[Diagnostic]:
    """A goal or challenge of the campaign that exists but has errors, where the round uses
    it: the same words as for a mission (mission.broken-definition)."""
    return [doc.diagnostic(where, f"{kind} '{ident}' has an error ({broken[kind, ident]})",
                           "round.broken-definition")
            for where, kind, ident in _named_ids(data, bad) if (kind, ident) in broken]


def _unknown_ids(doc: Document, data: dict[str, Any], bad: set[str | int], rulebook: Rulebook,
                 said: list[Diagnostic]) -> list[Diagnostic]:
    """The ids the rulebook lacks, in the referee's words, for a round the referee cannot
    read; not where something is said already (a schema error, "has an error")."""
    known = {"goal": rulebook.goals, "challenge": rulebook.challenges}
    named = {(d.line, d.column) for d in said}
    found = []
    for where, kind, ident in _named_ids(data, bad):
        message = unknown(kind, ident, known[kind])
        diagnostic = message and doc.diagnostic(where, message, "round.rules")
        if diagnostic and (diagnostic.line, diagnostic.column) not in named:
            found.append(diagnostic)
    return found


def read_round(path: Path, rulebook: Rulebook, display: str | None = None,
               default_colors: tuple[str, ...] = DEFAULT_COLORS,
               broken: Mapping[tuple[str, str], str] | None = None) -> Table:
    return table_from(read_document(path, display), rulebook, default_colors, broken)
