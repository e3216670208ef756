"""`build`: a campaign read once and its mission cards checked from the fonts' metrics, then
its kit printed, each text that does not fit reported once."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from synergy_forge.authoring.diagnostics import Diagnostic
from synergy_forge.authoring.loading import CampaignResult, overfull_mission_cards
from synergy_forge.cardtext.geometry import CardSize
from synergy_forge.core.mission import Campaign
from synergy_forge.workspace.campaign import Workspace

if TYPE_CHECKING:
    from synergy_forge.printing.jobs import Options, Rendered
    from synergy_forge.printing.print_run import PrintRun


@dataclass(frozen=True)
class KitCheck:
    """A campaign read for its kit: every problem `validate` would give, and among them the
    mission cards whose rules cannot fit on a card of the kit's size."""

    workspace: Workspace
    result: CampaignResult
    #: errors at the mission files' fields, found before any rendering
    cards: list[Diagnostic]

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return self.result.diagnostics + self.cards

    @property
    def campaign(self) -> Campaign | None:
        """The campaign to print; None when it has errors (nothing is built)."""
        return self.result.campaign


def check_kit(workspace: Workspace, card: CardSize) -> KitCheck:
    """The campaign read and its mission cards checked for cards of `card`'s size."""
    result = workspace.read()
    return KitCheck(workspace, result, overfull_mission_cards(result, card))


@dataclass(frozen=True)
class Kit:
    """What a build wrote, each text that does not fit reported once: a rules block the check
    found is not counted again when drawn."""

    check: KitCheck
    run: PrintRun

    @property
    def fits(self) -> bool:
        """Whether every text fits on its card: what a build exits 0 with."""
        return not self.run.overflows and not self.check.cards


def print_kit(check: KitCheck, out_dir: Path, languages: list[str], options: Options,
              jobs: int | None, *, cache: bool = True,
              progress: Callable[[Rendered], None] | None = None,
              workers: Any = None) -> Kit:
    """Every document of the checked campaign in `languages`, written into `out_dir`
    (printing.print_run), never into the folders the campaign reads its files from."""
    from synergy_forge.cardtext.mission import RULES_BLOCK
    from synergy_forge.printing.jobs import Overflow
    from synergy_forge.printing.print_run import print_run

    assert check.campaign is not None  # a campaign with errors is not printed
    run = print_run(check.campaign, out_dir, languages, options, jobs, cache=cache,
                    progress=progress, workers=workers, sources=check.workspace.sources)
    found = {Overflow(d.file, RULES_BLOCK) for d in check.cards}
    results = [dataclasses.replace(r, overflows=[o for o in r.overflows if o not in found])
               for r in run.results]
    return Kit(check, dataclasses.replace(run, results=results))
