"""The missions a command plays: one by file, number or id (`play`, the table), every mission
of campaign folders and files with its file's text (`playtest`, `tune`), and a game log
replayed against its campaign (`replay`)."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from synergy_forge.authoring.diagnostics import HasErrors, InvalidInput, errors
from synergy_forge.authoring.loading import MissionFile, Reading, display, read_mission_file
from synergy_forge.resources import starter_campaign
from synergy_forge.workspace.campaign import (
    GAMES,
    TOOL_FOLDER,
    Say,
    UnknownMission,
    Workspace,
    numbers_text,
    open_workspace,
    workspace_here,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from synergy_forge.authoring.gamelog import Replayed
    from synergy_forge.core.cards import Action
    from synergy_forge.core.rules import ActionText

    # The playtester (the bots, numpy, the executors) is imported by the commands that play,
    # in `sources`: `validate` and `judge` read their inputs here and play no game.
    from synergy_forge.sim.playtest import Playable


def _in(workspace: Workspace, key: str | None) -> MissionFile:
    """The mission of `workspace` whose number or id is `key` (its only one for None), read
    with the campaign's goals and challenges, each file read once."""
    path, document = workspace.find_mission(key)
    return read_mission_file(path, document, workspace.read(Reading.CONTEXT))


def mission_file(spec: str, say: Say) -> MissionFile:
    """A mission file, or the number or id of a mission of the current campaign (see
    campaign.open_workspace). HasErrors when it, or its campaign, has errors."""
    path = Path(spec)
    if path.exists():
        return read_mission_file(path)
    workspace = open_workspace(None, say)
    try:
        return _in(workspace, spec)
    except UnknownMission as exc:
        raise UnknownMission(
            f"{spec}: no such file, nor a mission number or id of {workspace.named}{exc.hint} "
            f"(its mission numbers: {numbers_text(exc.numbers)})", exc.folder, exc.numbers,
            exc.hint) from None


@dataclass(frozen=True)
class MissionToPlay:
    """The mission a table plays, with its campaign's rules, and where its games' logs go."""

    file: MissionFile
    #: the folder each finished game's log is added to (games/ of its campaign; of the
    #: current folder for the bundled starter campaign, which is synergy-forge's own)
    games: Path


def mission_to_play(source: str, key: str | None, say: Say) -> MissionToPlay:
    """The mission `table` plays: in the campaign folder `source`, the one whose number or
    id is `key` (its only one without); else the mission file, number or id `source` (see
    mission_file)."""
    path = Path(source)
    found = _in(open_workspace(path, say), key) if path.is_dir() else mission_file(source, say)
    folder = found.campaign
    home = Path(".") if folder is None or folder == starter_campaign().resolve() else \
        Path(display(folder))
    return MissionToPlay(found, home / GAMES)


#: The tables' state file's name (synergy_forge/table/store.py).
STATE_FILE = "tables.sqlite3"


def user_data() -> Path:
    """The user's own folder for synergy-forge's data: $XDG_DATA_HOME/synergy-forge, else
    ~/.local/share/synergy-forge (~/Library/Application Support on macOS, %LOCALAPPDATA%
    on Windows)."""
    import os
    import sys

    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "synergy-forge"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "synergy-forge"
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "synergy-forge"


def state_file(campaign: Path | None) -> Path:
    """Where the tables of a campaign's missions are kept by default: in its .synergy/ folder;
    for the bundled starter campaign, or a mission in no campaign, in the user's data folder
    (synergy-forge's own files are no place for them)."""
    if campaign is None or campaign.resolve() == starter_campaign().resolve():
        return user_data() / STATE_FILE
    return Path(display(campaign)) / TOOL_FOLDER / STATE_FILE


def keep_out_of_git(state: Path) -> None:
    """A `.gitignore` beside a state file in a campaign's .synergy/ folder, when there is none,
    so that the file (every seat's token, every game's seed) is not committed with the
    campaign's copy of the schemas. Nothing is written where a .gitignore already is."""
    from synergy_forge.fileio import write_atomic

    if state.parent.name != TOOL_FOLDER or (state.parent / ".gitignore").exists():
        return
    # One made meanwhile is left as it is; a folder that cannot be written is said when the
    # state file is opened there.
    with contextlib.suppress(OSError):
        state.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(state.parent / ".gitignore",
                     "# synergy-forge table's state: seat links and seeds (docs/table.md)\n"
                     f"{STATE_FILE}*\n", overwrite=False)


def next_mission(folder: Path, after: int, players: int) -> MissionFile | None:
    """The campaign's mission after number `after` (the lowest number above it) that `players`
    may play, as the files say now; None when there is none. HasErrors when the campaign,
    or that mission, has errors."""
    workspace = Workspace(folder)
    for number in workspace.numbers():
        if number > after:
            found = _in(workspace, str(number))
            if players in found.mission.players:
                return found
    return None


@dataclass(frozen=True)
class Source:
    """A mission to play, with the file it was read from and that file's text then (what a
    change in place must still find there)."""

    playable: Playable
    path: Path
    text: str


def sources(paths: tuple[Path, ...], say: Say) -> list[Source]:
    """Every mission of the campaign folders (a folder inside a campaign: that campaign) and
    mission files (default: the current campaign, see campaign.open_workspace), with its
    campaign's rulebook and colours, its file and its text."""
    from synergy_forge.sim.playtest import Playable

    found: list[Source] = []
    for path in paths or (None,):
        if path is None or path.is_dir():
            result = open_workspace(path, say).read()
            if result.campaign is None:
                raise HasErrors(errors(result.diagnostics))
            campaign = result.campaign
            found += [Source(Playable(m, campaign.rulebook, campaign.colors), Path(m.source),
                             result.documents[m.source].text) for m in campaign.missions]
        else:
            loaded = read_mission_file(path)
            found.append(Source(Playable(loaded.mission, loaded.rulebook, loaded.colors), path,
                                loaded.document.text))
    return found


def playables(paths: tuple[Path, ...], say: Say) -> list[Playable]:
    """The missions of `sources`, to play."""
    return [source.playable for source in sources(paths, say)]


@dataclass(frozen=True)
class Replay:
    """A game log replayed against the campaign it was checked with, named in `label`, and
    that campaign's action cards as printed (a review names them so)."""

    replayed: Replayed
    label: str
    actions: Mapping[Action, ActionText]


def replay(log: Path, campaign: Path | None, say: Say) -> Replay:
    """The log replayed through the engine and checked against the campaign `campaign`, else
    the current folder's, else the starter campaign (named in the result, not said)."""
    from synergy_forge.authoring.gamelog import replay_file

    workspace = open_workspace(campaign, say) if campaign is not None else \
        workspace_here() or Workspace(starter_campaign())
    result = workspace.read(Reading.TO_PLAY)
    if result.campaign is None:
        raise InvalidInput(errors(result.diagnostics))
    label = "the starter campaign" if workspace.starter else \
        f"campaign {display(workspace.folder)}"
    return Replay(replay_file(log, result.campaign, label), label, result.campaign.actions)
