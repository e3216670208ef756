"""What the studio shows of a campaign, read once per save: each mission file's mission (or
why it has none), its diagnostics, what its games depend on, and the games people played
of it at the table (the logs in games/)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from synergy_forge.authoring.diagnostics import Diagnostic, Severity
from synergy_forge.authoring.gamelog import (
    PERSON,
    ReplayError,
    UnreadableLog,
    game_from_header,
    log_lines,
    parse_record,
)
from synergy_forge.authoring.loading import (
    CAMPAIGN_FILE,
    Reading,
    check_mission,
    display,
    mission_from_data,
    overfull_mission_cards,
)
from synergy_forge.core.mission import Campaign, Mission
from synergy_forge.core.playhash import play_hash
from synergy_forge.fileio import open_regular
from synergy_forge.workspace.campaign import GAMES, Workspace

#: Errors that spoil only the printed card (a text that does not fit, a glyph the fonts lack):
#: the mission is still shown, drawn and estimated.
PRINT_ONLY = {"text.fit", "text.glyph"}
#: A game log is a few kilobytes; a bigger file in games/ is not read.
MAX_LOG = 1 << 20


@dataclass
class Entry:
    """One mission file as the studio shows it."""

    file: str
    diagnostics: list[Diagnostic]
    mission: Mission | None = None  # None when the file has errors
    number: int | None = None
    title: str = ""
    faces: tuple[str, str] | None = None  # front and back: hashes of their HTML
    play_key: str = ""  # what the estimate depends on
    rules_located: bool = False  # its rules block's overflow is a diagnostic at a line
    people: PeopleGames | None = None  # games people played, logged in games/


@dataclass
class PeopleGames:
    """The logged games of one mission that people played at the table (at least one seat
    was a person's): those on the mission's rules as they are now, and on earlier rules."""

    games: int = 0
    wins: int = 0
    earlier: int = 0


@dataclass
class Snapshot:
    """The campaign as last read."""

    name: str
    entries: list[Entry]
    problems: list[Diagnostic]  # diagnostics of files other than missions
    campaign: Campaign | None = None


def _play_key(mission: Mission, campaign: Campaign) -> str:
    """What a game of `mission` depends on: its play (core.playhash), its id (the estimate's
    seeds come from it) and the campaign's colours; a change to anything else (its title,
    stars, texts) does not restart the mission's estimate."""
    return f"{mission.id}:{play_hash(mission, campaign.rulebook)}:{','.join(campaign.colors)}"


def read_people_games(folder: Path, campaign: Campaign) -> dict[str, PeopleGames]:
    """Per mission id, the games people played, from the logs in the campaign's games/: each
    log's first record (the game: its mission and definitions, who sat where; compared with
    the campaign's mission as `replay` compares it) and last (the outcome). A log that cannot
    be read, of a game of bots only or of a mission the campaign does not have is skipped."""
    found: dict[str, PeopleGames] = {}
    for path in sorted((folder / GAMES).glob("*.jsonl")):
        try:
            if not path.is_file() or path.stat().st_size > MAX_LOG:
                continue
            with open_regular(path) as stream:  # its lines read as replay reads them
                lines = [(n, text) for n, text in log_lines(stream) if text.strip()]
            header, end = parse_record(*lines[0]), parse_record(*lines[-1])
            if header.get("type") != "game" or end.get("type") != "end" or \
                    PERSON not in header["bots"]:
                continue
            game = game_from_header(header, lines[0][0], campaign, changed=True)
        except (OSError, UnreadableLog, ReplayError, IndexError, KeyError, TypeError,
                AttributeError):
            continue
        if game.known is None:
            continue
        tally = found.setdefault(game.known.id, PeopleGames())
        if game.changes:  # played before the mission's play changed
            tally.earlier += 1
            continue
        tally.games += 1
        tally.wins += end.get("result") == "won"
    return found


def read_snapshot(place: Path | Workspace, language: str | None) -> Snapshot:
    """The campaign of a folder (or a workspace, which may keep what its readings before gave)
    with every diagnostic `validate` gives; when some files have errors, the other missions
    are still read, each on its own, so that their cards stay on show."""
    workspace = place if isinstance(place, Workspace) else Workspace(place)
    folder = workspace.folder
    result = workspace.read()
    rules = overfull_mission_cards(result)  # as validate: rules blocks that cannot fit
    result.diagnostics += rules
    campaign = result.campaign
    by_file: dict[str, list[Diagnostic]] = {}
    for diagnostic in result.diagnostics:
        by_file.setdefault(diagnostic.file, []).append(diagnostic)
    context = workspace.read(Reading.CONTEXT) if campaign is None else result
    if context.campaign is None:
        return Snapshot(folder.name, [], sorted(result.diagnostics))
    base = context.campaign
    # The files that are not missions: the campaign's, and its goals' and challenges'.
    own = {display(p) for p in context.paths} if campaign is None else \
        {display(folder / CAMPAIGN_FILE)} | {d.origin.rsplit(":", 1)[0] for d in [
            *base.rulebook.goals.values(), *base.rulebook.challenges.values()] if d.origin}
    mission_files = sorted(display(p) for p in result.paths if display(p) not in own)
    entries = []
    for file in mission_files:
        found = sorted(by_file.get(file, []))
        entry = Entry(file, found, rules_located=any(d.file == file for d in rules))
        if campaign is not None:
            entry.mission = next((m for m in campaign.missions if m.source == file), None)
        else:
            doc = result.documents.get(file)  # None: it cannot be read, as said already
            check = workspace.kept.mission if workspace.kept is not None else check_mission
            mission = check(doc, base.rulebook, base.languages, {})[0] if doc else None
            if not any(d.severity is Severity.ERROR for d in found):
                entry.mission = mission
            elif doc is not None and isinstance(doc.data, dict) and all(
                    d.check in PRINT_ONLY for d in found if d.severity is Severity.ERROR):
                # A text that cannot fit or be drawn spoils the print, not the mission: its
                # card stays on show, with the overflow marked (README).
                entry.mission = mission_from_data(doc.data, file)
            elif doc is not None and isinstance(doc.data, dict):  # to place it in the list
                number, title = doc.data.get("number"), doc.data.get("title")
                entry.number = number if isinstance(number, int) else None
                entry.title = title if isinstance(title, str) else \
                    str((title or {}).get(language or "en", "")) if isinstance(title, dict) \
                    else ""
        entries.append(entry)
    good = tuple(sorted((e.mission for e in entries if e.mission), key=lambda m: (m.number, m.id)))
    shown = campaign or dataclasses.replace(base, missions=good)
    for entry in entries:
        if entry.mission is not None:
            entry.number = entry.mission.number
            entry.title = entry.mission.label(language or shown.languages[0])
            entry.play_key = _play_key(entry.mission, shown)
    entries.sort(key=lambda e: (e.number is None, e.number or 0, e.file))
    people = read_people_games(folder, shown)
    for entry in entries:
        entry.people = people.get(entry.mission.id) if entry.mission is not None else None
    problems = sorted(d for f, ds in by_file.items() if f not in mission_files for d in ds)
    name = shown.name.get(language or "en") or next(iter(shown.name.values()), folder.name)
    return Snapshot(name, entries, problems, shown)
