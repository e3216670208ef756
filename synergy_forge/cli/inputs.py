"""What a command's arguments name, loaded: a mission by file, number or id; the missions of
campaign folders and files, to play."""

from __future__ import annotations

from pathlib import Path

import click

from synergy_forge.authoring.diagnostics import InvalidInput, errors
from synergy_forge.authoring.loading import CAMPAIGN_FILE, load_mission_file, read_campaign
from synergy_forge.core.mission import Mission
from synergy_forge.core.rules import Rulebook
from synergy_forge.resources import starter_campaign
from synergy_forge.sim.playtest import Playable


def resolve_mission(spec: str) -> tuple[Mission, Rulebook, tuple[str, ...]]:
    """A mission file, or the number or id of a mission of the bundled starter campaign;
    raises InvalidInput when the file has errors."""
    path = Path(spec)
    if not path.exists():
        folder = starter_campaign() / "missions"
        matches = [p for p in sorted(folder.glob("*.yaml"))
                   if (spec.isdigit() and p.name.split("-")[0].lstrip("0") == spec.lstrip("0"))
                   or p.stem.split("-", 1)[-1] == spec]
        if not matches:
            raise click.BadParameter(f"{spec}: no such file, nor a mission number or id of the "
                                     "starter campaign", param_hint="'MISSION'")
        path = matches[0]
    mission, rulebook, colors = load_mission_file(path)
    return mission, rulebook, tuple(colors)


def playables(paths: tuple[Path, ...]) -> list[Playable]:
    """Every mission of the campaign folders and mission files (default: the starter
    campaign), with its campaign's rulebook and colours."""
    found: list[Playable] = []
    for path in paths or (starter_campaign(),):
        if path.is_dir():
            if not (path / CAMPAIGN_FILE).is_file():
                raise click.BadParameter(f"{path} has no {CAMPAIGN_FILE}", param_hint="'PATHS'")
            result = read_campaign(path)
            if result.campaign is None:
                raise InvalidInput(errors(result.diagnostics))
            campaign = result.campaign
            found += [Playable(m, campaign.rulebook, campaign.colors) for m in campaign.missions]
        else:
            mission, rulebook, colors = load_mission_file(path)
            found.append(Playable(mission, rulebook, tuple(colors)))
    return found
