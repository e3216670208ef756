"""`judge`: settle the rounds written in files, gathering every verdict and every problem.

A round belongs to a campaign: its seats may play the campaign's own goals, its challenges
may be the campaign's, and its seats' colours default to the campaign's."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from synergy_forge.authoring.definitions import standard_rulebook
from synergy_forge.authoring.diagnostics import Diagnostic, InvalidInput, errors
from synergy_forge.authoring.loading import (
    Broken,
    CampaignResult,
    Reading,
    find_campaign,
    read_campaign,
)
from synergy_forge.authoring.roundfile import read_round
from synergy_forge.core.cards import DEFAULT_COLORS
from synergy_forge.core.referee import Verdict, judge
from synergy_forge.core.rules import Rulebook


@dataclass(frozen=True, slots=True)
class RoundContext:
    """What a round file is read with: its campaign's rulebook, colours and broken
    definitions, and the campaign's own errors (said once, whatever uses them)."""

    folder: Path | None
    rulebook: Rulebook
    colors: tuple[str, ...] = DEFAULT_COLORS
    broken: Broken = field(default_factory=dict)
    problems: tuple[Diagnostic, ...] = ()


def round_context(folder: Path | None, native: bool = True,
                  read: CampaignResult | None = None) -> RoundContext:
    """The context of the rounds of the campaign in `folder` (None: the built-in goals and
    challenges only), from `read`, that campaign read as Reading.LOOKUP, when it already is.
    `native=False` evaluates every rule through its expression."""
    builtin = standard_rulebook(native=native)
    if folder is None:
        return RoundContext(None, builtin)
    context = read if read is not None else read_campaign(folder, Reading.LOOKUP)
    if context.campaign is None:  # campaign.yaml itself cannot be read: the built-ins only
        return RoundContext(folder, builtin, problems=tuple(errors(context.diagnostics)))
    campaign = context.campaign
    own = [d for table, known in ((campaign.rulebook.goals, builtin.goals),
                                  (campaign.rulebook.challenges, builtin.challenges))
           for key, d in table.items() if key not in known]
    return RoundContext(folder, builtin.extended(own), campaign.colors, context.broken,
                        tuple(errors(context.diagnostics)))


@dataclass(frozen=True, slots=True)
class JudgedRound:
    path: Path
    verdict: Verdict
    rulebook: Rulebook


@dataclass
class Judgement:
    """The verdicts of the files that could be judged, in the order given, and the located
    problems of those that could not."""

    files: int
    rounds: list[JudgedRound] = field(default_factory=list)
    problems: list[Diagnostic] = field(default_factory=list)
    #: the campaign folders whose definitions were used
    campaigns: list[Path] = field(default_factory=list)


def judge_paths(paths: Sequence[Path], native: bool = True, campaign: Path | None = None,
                fallback: Path | None = None) -> Judgement:
    """Judge every round file with its campaign: `campaign` when given, else the campaign the
    file sits in, else `fallback` (the campaign of the current folder, say), else the
    built-in goals and challenges only. `native=False` evaluates goals and challenges through
    their rule expressions (the results are the same)."""
    result = Judgement(len(paths))
    contexts: dict[Path | None, RoundContext] = {}
    for path in paths:
        folder = campaign or find_campaign(path) or fallback
        key = folder.resolve() if folder is not None else None
        if key not in contexts:
            contexts[key] = round_context(folder, native)
            result.problems.extend(contexts[key].problems)
            if folder is not None:
                result.campaigns.append(folder)
        context = contexts[key]
        try:
            table = read_round(path, context.rulebook, default_colors=context.colors,
                               broken=context.broken)
        except InvalidInput as exc:
            result.problems.extend(exc.diagnostics)
            continue
        result.rounds.append(JudgedRound(path, judge(table, context.rulebook), context.rulebook))
    return result
