"""What a command's arguments name, loaded: the campaign a command works on when it is given
none, a mission by file, number or id; the missions of campaign folders and files, to play."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import click

from synergy_forge.authoring.diagnostics import HasErrors, InvalidInput, errors
from synergy_forge.authoring.loading import (
    CAMPAIGN_FILE,
    Reading,
    display,
    find_campaign,
    load_mission_file,
    read_campaign,
    read_mission_file,
)
from synergy_forge.authoring.paths import expand, regular_file
from synergy_forge.authoring.yamlfile import read_document
from synergy_forge.core.cards import Action
from synergy_forge.core.mission import Mission
from synergy_forge.core.rules import ActionText, Rulebook
from synergy_forge.errors import NoCampaign
from synergy_forge.resources import starter_campaign

if TYPE_CHECKING:
    # The playtester (the bots, numpy, the executors) is imported by the commands that play,
    # in `sources`: `validate` and `judge` read their inputs here and play no game.
    from synergy_forge.sim.playtest import Playable


def shown(path: Path) -> str:
    """A path as a command says it: relative to the current folder, ./ for one inside it."""
    relative = os.path.relpath(path)
    return relative if relative.startswith("..") else os.path.join(".", relative)


def current_campaign(given: Path | None = None) -> Path:
    """The campaign folder a command works on: the folder given when it holds a campaign.yaml,
    else the campaign it lies in (find_campaign: `build .` in missions/ builds the campaign
    that holds missions/); given none, the campaign of the current folder or the nearest one
    above it, else the bundled starter campaign. Unless a campaign folder was given, stderr
    says which, so that a command never works on another campaign silently. A folder given
    in no campaign is refused (NoCampaign, exit 2)."""
    if given is not None and regular_file(given / CAMPAIGN_FILE):
        return given
    found = find_campaign(Path.cwd() if given is None else given)
    if found is None and given is not None:
        raise NoCampaign(f"{given / CAMPAIGN_FILE}: no campaign here nor in a folder above "
                         "it: give a campaign folder (synergy-forge new campaign DIR starts one)")
    if found is None:
        click.echo(f"no {CAMPAIGN_FILE} in this folder or above it: using the bundled starter "
                   "campaign (synergy-forge new campaign DIR starts your own)", err=True)
        return starter_campaign()
    lead, where = ("", f"the nearest {CAMPAIGN_FILE} from here") if given is None else \
        (f"{given} has no {CAMPAIGN_FILE}: ", "the nearest one above it")
    click.echo(f"{lead}using the campaign of {shown(found / CAMPAIGN_FILE)} ({where})", err=True)
    return Path(os.path.relpath(found))


def _mission_files(folder: Path) -> list[Path]:
    """The files a campaign.yaml lists as its missions, or its missions/ folder's."""
    patterns: list[str] = ["missions/*.yaml"]
    try:
        data = read_document(folder / CAMPAIGN_FILE).data
    except InvalidInput:
        data = None
    if isinstance(data, dict) and isinstance(data.get("missions"), list):
        patterns = [p for p in data["missions"] if isinstance(p, str)]
    found: list[Path] = []
    for pattern in patterns:  # through the campaign's path policy; validate reports the rest
        found += expand(folder, pattern)[0]
    return found


def resolve_mission(spec: str) -> tuple[Mission, Rulebook, tuple[str, ...]]:
    """A mission file, or the number or id of a mission of the current campaign (see
    current_campaign); raises InvalidInput when the file has errors."""
    path = Path(spec)
    if not path.exists():
        folder = current_campaign()
        matches = []
        for candidate in _mission_files(folder):
            try:
                data = read_document(candidate).data
            except InvalidInput:
                continue
            if isinstance(data, dict) and (data.get("id") == spec or (
                    spec.isdigit() and data.get("number") == int(spec))):
                matches.append(candidate)
        if not matches:
            raise click.BadParameter(f"{spec}: no such file, nor a mission number or id of the "
                                     f"campaign in {display(folder)}", param_hint="'MISSION'")
        path = matches[0]
    mission, rulebook, colors = load_mission_file(path)
    return mission, rulebook, tuple(colors)


class Source(NamedTuple):
    """A mission to play, with the file it was read from and that file's text then (what a
    change in place must still find there)."""

    playable: Playable
    path: Path
    text: str


def sources(paths: tuple[Path, ...]) -> list[Source]:
    """Every mission of the campaign folders (a folder inside a campaign: that campaign) and
    mission files (default: the current campaign, see current_campaign), with its campaign's
    rulebook and colours, its file and its text."""
    from synergy_forge.sim.playtest import Playable

    found: list[Source] = []
    for path in paths or (current_campaign(),):
        if path.is_dir():
            result = read_campaign(current_campaign(path))
            if result.campaign is None:
                raise HasErrors(errors(result.diagnostics))
            campaign = result.campaign
            found += [Source(Playable(m, campaign.rulebook, campaign.colors), Path(m.source),
                             result.documents[m.source].text) for m in campaign.missions]
        else:
            mission, rulebook, colors, document = read_mission_file(path)
            found.append(Source(Playable(mission, rulebook, tuple(colors)), path,
                                document.text))
    return found


def playables(paths: tuple[Path, ...]) -> list[Playable]:
    """The missions of `sources`, to play."""
    return [source.playable for source in sources(paths)]


def mission_to_play(source: str, mission_key: str | None) -> tuple[
        Mission, Rulebook, tuple[str, ...], dict[Action, ActionText], Path | None]:
    """The mission `table` plays (a campaign folder with --mission, a mission file, or a
    number or id, see resolve_mission), its rulebook, colours and action cards' texts, and
    the folder of its campaign (None for the bundled starter campaign)."""
    from synergy_forge.authoring.definitions import standard_actions

    path = Path(source)
    if path.is_dir():
        return _campaign_mission(path, mission_key)
    if mission_key is not None:
        raise click.BadParameter("--mission chooses a mission of a campaign folder; "
                                 f"{source} is already one mission", param_hint="'--mission'")
    mission, rulebook, colors = resolve_mission(source)
    # The campaign the mission was found in: its file's, or the current one's for a number.
    folder = find_campaign(Path(mission.source)) if mission.source else None
    actions = standard_actions()
    if folder is not None:
        context = read_campaign(folder, Reading.CONTEXT).campaign
        actions = dict(context.actions) if context is not None and context.actions else actions
    if folder is not None and folder == starter_campaign().resolve():
        folder = None
    return mission, rulebook, colors, actions, Path(display(folder)) if folder else None


def _campaign_mission(path: Path, mission_key: str | None) -> tuple[
        Mission, Rulebook, tuple[str, ...], dict[Action, ActionText], Path]:
    """The mission --mission names in the campaign folder `path` (a folder inside a campaign:
    that campaign), its only one without."""
    from synergy_forge.authoring.definitions import standard_actions

    path = current_campaign(path)
    result = read_campaign(path)
    if result.campaign is None or errors(result.diagnostics):
        raise HasErrors(errors(result.diagnostics))
    campaign = result.campaign
    numbers = ", ".join(str(m.number) for m in campaign.missions)
    if mission_key is None:
        if len(campaign.missions) != 1:
            raise click.BadParameter(f"{path} has {len(campaign.missions)} missions: choose "
                                     f"one with --mission (numbers {numbers})",
                                     param_hint="'--mission'")
        mission = campaign.missions[0]
    else:
        try:
            mission = campaign.mission(mission_key)
        except KeyError:
            raise click.BadParameter(f"{path} has no mission {mission_key!r} (numbers "
                                     f"{numbers})", param_hint="'--mission'") from None
    return (mission, campaign.rulebook, campaign.colors,
            dict(campaign.actions) or standard_actions(), path)
