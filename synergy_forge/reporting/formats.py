"""Every reporter by the kind of result it renders and the name of its format: the CLI's
`--format` choices come from here, and a new format is one function and one entry."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from synergy_forge.reporting import Output

Reporter = Callable[..., Output]


class _Lazy:
    """A reporter imported when first used: `validate` on one file, as editors and pre-commit
    run it on every save, does not import the playtester (and numpy) to list its formats."""

    def __init__(self, module: str, function: str) -> None:
        self.module, self.function = module, function

    def __call__(self, result: Any, **options: Any) -> Output:
        found = importlib.import_module(f"{__package__}.{self.module}")
        reporter: Callable[..., Output] = getattr(found, self.function)
        return reporter(result, **options)


REPORTERS: dict[str, dict[str, Reporter]] = {
    # validate: workspace.validate.Report
    "validate": {"text": _Lazy("validation", "text"), "json": _Lazy("validation", "to_json"),
                 "github": _Lazy("validation", "github")},
    # judge: authoring.judging.Judgement
    "judge": {"text": _Lazy("explain", "text"), "json": _Lazy("explain", "to_json")},
    # playtest: sim.playtest.PlaytestResult
    "playtest": {"text": _Lazy("playtest", "text"), "json": _Lazy("playtest", "to_json"),
                 "html": _Lazy("playtest", "html")},
    # build: workspace.build.KitCheck before the print run (its note: the campaign's
    # problems), workspace.build.Kit after it (its note: what does not fit, on stderr)
    "kit-check": {"text": _Lazy("build", "check_text")},
    "build": {"text": _Lazy("build", "kit_text")},
    # replay --review: reporting.review.GameReview
    "review": {"text": _Lazy("review", "text"), "json": _Lazy("review", "to_json"),
               "html": _Lazy("review", "html")},
    # publish: workspace.build.KitCheck before any work (its note: the campaign's problems),
    # workspace.publish.Published after it
    "publish-check": {"text": _Lazy("publish", "check_text")},
    "publish": {"text": _Lazy("publish", "text")},
    # playtest --human: sim.calibration.Calibration (its context: reporting.people.Context)
    "calibration": {"text": _Lazy("people", "text"), "json": _Lazy("people", "to_json"),
                    "html": _Lazy("people", "html")},
}


def formats(kind: str) -> tuple[str, ...]:
    return tuple(REPORTERS[kind])


def render(kind: str, name: str, result: Any, **options: Any) -> Output:
    """`result` rendered by the reporter `name` of `kind`; `options` are that reporter's own
    (validate's text reporter takes `verbose`)."""
    return REPORTERS[kind][name](result, **options)
