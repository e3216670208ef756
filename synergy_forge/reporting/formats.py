"""Every reporter by the kind of result it renders and the name of its format: the CLI's
`--format` choices come from here, and a new format is one function and one entry."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from synergy_forge.reporting import Rendered, explain, playtest, validation

Reporter = Callable[[Any], Rendered]

REPORTERS: dict[str, dict[str, Reporter]] = {
    # validate: authoring.validate.Report
    "validate": {"text": validation.text, "json": validation.to_json,
                 "github": validation.github},
    # judge: authoring.judging.Judgement
    "judge": {"text": explain.text, "json": explain.to_json},
    # playtest: sim.playtest.PlaytestResult
    "playtest": {"text": playtest.text, "json": playtest.to_json, "html": playtest.html},
}


def formats(kind: str) -> tuple[str, ...]:
    return tuple(REPORTERS[kind])


def render(kind: str, name: str, result: Any) -> Rendered:
    return REPORTERS[kind][name](result)
