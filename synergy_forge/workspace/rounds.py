"""`judge`: round files settled with the goals and challenges of the campaign each belongs to."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from synergy_forge.authoring.judging import Judgement, judge_paths
from synergy_forge.authoring.loading import CAMPAIGN_FILE
from synergy_forge.workspace.campaign import Say, open_workspace, shown, workspace_here


def judge_rounds(files: Sequence[Path], native: bool, campaign: Path | None,
                 say: Say) -> Judgement:
    """Every round file judged with `campaign` when given, else with the campaign it lies
    in, else with the current folder's, else with the built-in goals and challenges only;
    `say` is told each campaign used unless one was given."""
    if campaign is not None:
        campaign = open_workspace(campaign, say).folder
    here = workspace_here() if campaign is None else None
    judgement = judge_paths(files, native=native, campaign=campaign,
                            fallback=here.folder if here is not None else None)
    if campaign is None:
        for folder in judgement.campaigns:
            say(f"using the campaign of {shown(folder / CAMPAIGN_FILE)}")
    return judgement
