"""`judge`: settle the rounds written in files, gathering every verdict and every problem."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from synergy_forge.authoring.definitions import standard_rulebook
from synergy_forge.authoring.diagnostics import Diagnostic, InvalidInput
from synergy_forge.authoring.roundfile import read_round
from synergy_forge.core.referee import Verdict, judge
from synergy_forge.core.rules import Rulebook


@dataclass(frozen=True, slots=True)
class JudgedRound:
    path: Path
    verdict: Verdict


@dataclass
class Judgement:
    """The verdicts of the files that could be judged, in the order given, and the located
    problems of those that could not."""

    rulebook: Rulebook
    files: int
    rounds: list[JudgedRound] = field(default_factory=list)
    problems: list[Diagnostic] = field(default_factory=list)


def judge_paths(paths: Sequence[Path], native: bool = True) -> Judgement:
    """Judge every round file; `native=False` evaluates goals and challenges through their
    rule expressions (the results are the same)."""
    rulebook = standard_rulebook(native=native)
    result = Judgement(rulebook, len(paths))
    for path in paths:
        try:
            table = read_round(path, rulebook)
        except InvalidInput as exc:
            result.problems.extend(exc.diagnostics)
            continue
        result.rounds.append(JudgedRound(path, judge(table, rulebook)))
    return result
