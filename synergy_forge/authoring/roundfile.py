"""Reading a round file (schemas/round.schema.json) into a Table for the referee."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from synergy_forge.authoring.diagnostics import InvalidInput
from synergy_forge.authoring.schema import schema_diagnostics
from synergy_forge.authoring.yamlfile import Document, read_document
from synergy_forge.core.cards import DEFAULT_COLORS, Action, NumberCard
from synergy_forge.core.referee import ActionUse, SeatPlay, Table, table_problems
from synergy_forge.core.rules import Rulebook


def _card(raw: Any, color: str) -> NumberCard:
    if isinstance(raw, dict):
        return NumberCard(raw["value"], raw.get("color", color))
    return NumberCard(raw, color)


def table_from(doc: Document, rulebook: Rulebook) -> Table:
    """The Table a round document describes; raises InvalidInput with located diagnostics."""
    found = schema_diagnostics(doc, "round")
    if found:
        raise InvalidInput(found)
    data = doc.data
    seats = data["seats"]
    colors = tuple(data.get("colors") or DEFAULT_COLORS[: len(seats)])
    if len(colors) != len(seats):
        raise InvalidInput([doc.diagnostic(
            ("colors",), f"'colors' names {len(colors)} colours for {len(seats)} seats; "
            "expected one per seat", "round.colors")])
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
    problems = table_problems(table, rulebook)
    if problems:
        raise InvalidInput([doc.diagnostic(p.where, p.message, "round.rules") for p in problems])
    return table


def read_round(path: Path, rulebook: Rulebook, display: str | None = None) -> Table:
    return table_from(read_document(path, display), rulebook)
