"""The campaign a command works on, found once and read once per reading, and its missions
found by number or id."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from synergy_forge.authoring.diagnostics import InvalidInput
from synergy_forge.authoring.kept import Kept
from synergy_forge.authoring.loading import (
    CAMPAIGN_FILE,
    CampaignResult,
    Reading,
    display,
    find_campaign,
    read_campaign,
)
from synergy_forge.authoring.paths import expand, regular_file
from synergy_forge.authoring.yamlfile import Document, read_document
from synergy_forge.core.rulelang import suggest
from synergy_forge.errors import NoCampaign, UnreadableInput
from synergy_forge.resources import starter_campaign
from synergy_forge.workspace.kinds import LAYOUT_FOLDERS

#: How a use case says which campaign it works on: a line for the front end to show (the
#: command line writes it on stderr), so that no command works on another campaign silently.
Say = Callable[[str], None]

#: The folder of a campaign's own copy of the schemas (authoring.scaffold.SCHEMAS_HOME).
TOOL_FOLDER = ".synergy"
#: The folder of a campaign where `table` adds each finished game's log, and the studio
#: reads people's games from.
GAMES = "games"


def shown(path: Path) -> str:
    """A path as a command says it: relative to the current folder, ./ for one inside it."""
    relative = os.path.relpath(path)
    return relative if relative.startswith("..") else os.path.join(".", relative)


def numbers_text(numbers: Iterable[int]) -> str:
    """Mission numbers as a person reads them: "1 to 30", "1, 2, 5 to 7"."""
    runs: list[list[int]] = []
    for number in sorted(set(numbers)):
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return ", ".join(f"{run[0]} to {run[-1]}" if len(run) > 2 else
                     ", ".join(map(str, run)) for run in runs) or "none"


class UnknownMission(UnreadableInput):
    """No mission of the campaign has the number or id asked for, or the campaign has several
    and none was asked for; the message names the numbers it has."""

    def __init__(self, message: str, folder: Path, numbers: tuple[int, ...],
                 hint: str = "") -> None:
        super().__init__(message)
        #: " (did you mean 'night-shift'?)" for a mistyped id, else ""
        self.folder, self.numbers, self.hint = folder, numbers, hint


@dataclass
class Workspace:
    """A campaign folder (as a command shows it) and what was read of it: each reading is
    made once, whatever asks for it."""

    folder: Path
    #: what the readings before gave, kept by a front end that reads it again after every
    #: save (the studio, build --watch): only the files that changed are read anew
    kept: Kept | None = field(default=None, repr=False)
    _readings: dict[Reading, CampaignResult] = field(default_factory=dict, repr=False)
    _missions: list[tuple[Path, Document | None]] | None = field(default=None, repr=False)

    def again(self) -> Workspace:
        """The same folder, to be read anew (after a save), with what this reading gave kept
        for it."""
        kept = self.kept or Kept()
        kept.turn()
        return Workspace(self.folder, kept)

    @property
    def starter(self) -> bool:
        """Whether this is the bundled starter campaign (synergy-forge's own)."""
        return self.folder.resolve() == starter_campaign().resolve()

    def read(self, reading: Reading = Reading.WHOLE) -> CampaignResult:
        """The campaign read for `reading` (authoring.loading.read_campaign), read once."""
        if reading not in self._readings:
            self._readings[reading] = read_campaign(self.folder, reading, self.kept)
        return self._readings[reading]

    @property
    def sources(self) -> list[Path]:
        """The folders the campaign reads files from, where an output would be read back as
        its own files (build refuses them): its copy of the schemas, the layout's folders
        and those its patterns name."""
        named = [self.folder / name for name in (TOOL_FOLDER, *LAYOUT_FOLDERS)]
        return list(dict.fromkeys(named + self.read().pattern_folders))

    def mission_documents(self) -> list[tuple[Path, Document | None]]:
        """The files campaign.yaml lists as its missions (its missions/ folder's when it
        lists none), each read once (None: it cannot be read; validate says why)."""
        if self._missions is None:
            patterns: list[str] = ["missions/*.yaml"]
            try:
                data = read_document(self.folder / CAMPAIGN_FILE).data
            except InvalidInput:
                data = None
            if isinstance(data, dict) and isinstance(data.get("missions"), list):
                patterns = [p for p in data["missions"] if isinstance(p, str)]
            files: list[Path] = []
            for pattern in patterns:  # through the campaign's path policy
                files += expand(self.folder, pattern)[0]
            self._missions = [(path, _document(path)) for path in files]
        return self._missions

    def numbers(self) -> tuple[int, ...]:
        """The numbers its mission files give, in order."""
        return tuple(sorted({number for _, doc in self.mission_documents()
                             if isinstance(number := _field(doc, "number"), int)}))

    def find_mission(self, key: str | None) -> tuple[Path, Document]:
        """The mission file whose number or id is `key` (the only one when `key` is None),
        and its document. UnknownMission names the numbers there are."""
        found = [(path, doc) for path, doc in self.mission_documents() if doc is not None and (
            key is None or _field(doc, "id") == key or
            (key.isdigit() and _field(doc, "number") == int(key)))]
        where = display(self.folder)
        numbers = self.numbers()
        if key is None and len(found) != 1:
            raise UnknownMission(f"{where} has {len(found)} missions: choose one by its "
                                 f"number or id (numbers {numbers_text(numbers)})",
                                 self.folder, numbers)
        if not found:
            assert key is not None  # None finds every mission: found is empty only without any
            ids = [str(i) for _, doc in self.mission_documents()
                   if isinstance(i := _field(doc, "id"), str)]
            hint = "" if key.isdigit() else suggest(key, ids)
            raise UnknownMission(f"{where} has no mission {key!r}{hint} (numbers "
                                 f"{numbers_text(numbers)})", self.folder, numbers, hint)
        return found[0]

    @property
    def named(self) -> str:
        """The campaign as a message names it: its campaign.yaml from here, or the bundled
        starter campaign (never ".")."""
        return "the bundled starter campaign" if self.starter else \
            f"the campaign of {shown(self.folder / CAMPAIGN_FILE)}"


def _document(path: Path) -> Document | None:
    try:
        return read_document(path, display(path))
    except InvalidInput:
        return None


def _field(doc: Document | None, name: str) -> object:
    return doc.data.get(name) if doc is not None and isinstance(doc.data, dict) else None


def open_workspace(given: Path | None, say: Say) -> Workspace:
    """The campaign a command works on: the folder given when it holds a campaign.yaml, else
    the campaign it lies in (`build .` in missions/ builds the campaign that holds missions/);
    given none, the campaign of the current folder or the nearest one above it, else the
    bundled starter campaign. Unless a campaign folder was given, `say` is told which. A
    folder given in no campaign is refused (NoCampaign, exit 2)."""
    if given is not None and regular_file(given / CAMPAIGN_FILE):
        return Workspace(given)
    found = find_campaign(Path.cwd() if given is None else given)
    if found is None and given is not None:
        raise NoCampaign(f"{given / CAMPAIGN_FILE}: no campaign here nor in a folder above "
                         "it: give a campaign folder (synergy-forge new campaign DIR starts one)")
    if found is None:
        say(f"no {CAMPAIGN_FILE} in this folder or above it: using the bundled starter "
            "campaign (synergy-forge new campaign DIR starts your own)")
        return Workspace(starter_campaign())
    lead, where = ("", f"the nearest {CAMPAIGN_FILE} from here") if given is None else \
        (f"{given} has no {CAMPAIGN_FILE}: ", "the nearest one above it")
    say(f"{lead}using the campaign of {shown(found / CAMPAIGN_FILE)} ({where})")
    return Workspace(Path(os.path.relpath(found)))


def workspace_here() -> Workspace | None:
    """The campaign of the current folder or the nearest one above it, said to nobody (the
    commands that use it name it in their result); None outside any."""
    found = find_campaign(Path.cwd())
    return Workspace(Path(display(found))) if found is not None else None
