"""What the studio shows, kept up to date: each mission's card (as the kit prints it), its
diagnostics and a difficulty estimate that grows while the page is open.

Three threads share one `Studio`: the watcher reloads the campaign when a file changes and
renders the cards that changed; the estimator plays coop games in a worker process, a batch
at a time, for the mission and player count with the fewest games; the server reads `state()`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import multiprocessing
import os
import re
import signal
import sys
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from synergy_forge.authoring.diagnostics import Diagnostic, InvalidInput, Severity
from synergy_forge.authoring.gamelog import PERSON, UnreadableLog, log_lines, parse_record
from synergy_forge.authoring.loading import (
    CAMPAIGN_FILE,
    Reading,
    check_mission,
    display,
    mission_from_data,
    mission_to_data,
    read_campaign,
)
from synergy_forge.authoring.validate import overfull_mission_cards
from synergy_forge.authoring.yamlfile import read_document
from synergy_forge.core.mission import Campaign, Mission
from synergy_forge.core.rulelang import RuleError
from synergy_forge.fileio import open_regular
from synergy_forge.pool import ignore_interrupt, stop_workers
from synergy_forge.printing.kit import Face
from synergy_forge.printing.preview import CardPreview
from synergy_forge.sim.ladder import RUNGS, wilson
from synergy_forge.sim.playtest import (
    STAR_BOT,
    LadderTally,
    describe_stars,
    estimate_from,
    game_seed,
    play_tables,
)

#: Errors that spoil only the printed card (a text that does not fit, a glyph the fonts lack):
#: the mission is still shown, drawn and estimated.
PRINT_ONLY = {"text.fit", "text.glyph"}

#: Games per batch: small enough that a mission's first figures come within a second.
BATCH = 20
#: Games per mission, player count and table of the skill ladder after which a mission's
#: estimate stops growing.
ENOUGH = 1000
#: The playtest command's default seed: the studio's figures are the same games.
SEED = 1
PREVIEW_DPI = 150
#: The folder of a campaign where `synergy-forge table` adds each finished game's log.
GAMES = "games"
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

    def as_data(self) -> dict[str, Any]:
        low, high = wilson(self.wins, self.games)
        return {"games": self.games, "wins": self.wins,
                "rate": self.wins / self.games if self.games else None, "low": low,
                "high": high, "earlier": self.earlier}


@dataclass
class Snapshot:
    """The campaign as last read."""

    name: str
    entries: list[Entry]
    problems: list[Diagnostic]  # diagnostics of files other than missions
    campaign: Campaign | None = None


def _play_key(mission: Mission, campaign: Campaign) -> str:
    """Everything a game of `mission` depends on, not its title or flavour: a change to it
    restarts the mission's estimate, a change to anything else does not."""
    rules = campaign.rulebook
    used = [rules.goal(g) for g in mission.goals] + \
        [rules.challenge(c) for c in mission.challenges]
    playing = dataclasses.replace(mission, title={}, flavor={}, source="")
    text = repr((playing, [(d.id, d.kind, d.rule, d.direction, d.step) for d in used],
                 campaign.colors))
    return hashlib.sha256(text.encode()).hexdigest()


def _rules(data: dict[str, Any]) -> dict[str, Any]:
    """A mission's data less what does not change its play (names, stars, number)."""
    return {k: v for k, v in data.items() if k not in ("title", "flavor", "stars", "number")}


def read_people_games(folder: Path, missions: list[Mission]) -> dict[str, PeopleGames]:
    """Per mission id, the games people played, from the logs in the campaign's games/: each
    log's first record (the game: its mission, who sat where) and last (the outcome). A log
    that cannot be read, or of a game of bots only, is skipped."""
    current = {m.id: _rules(mission_to_data(m)) for m in missions}
    found: dict[str, PeopleGames] = {}
    for path in sorted((folder / GAMES).glob("*.jsonl")):
        try:
            if not path.is_file() or path.stat().st_size > MAX_LOG:
                continue
            with open_regular(path) as stream:  # its lines read as replay reads them
                lines = [(n, text) for n, text in log_lines(stream) if text.strip()]
            header, end = parse_record(*lines[0]), parse_record(*lines[-1])
            mission, seats = header["mission"], header["bots"]
            if header.get("type") != "game" or end.get("type") != "end" or \
                    PERSON not in seats or mission["id"] not in current:
                continue
        except (OSError, UnreadableLog, IndexError, KeyError, TypeError, AttributeError):
            continue
        tally = found.setdefault(mission["id"], PeopleGames())
        if _rules(mission) != current[mission["id"]]:
            tally.earlier += 1
            continue
        tally.games += 1
        tally.wins += end.get("result") == "won"
    return found


def read_snapshot(folder: Path, language: str | None) -> Snapshot:
    """The campaign with every diagnostic `validate` gives; when some files have errors, the
    other missions are still read, each on its own, so that their cards stay on show."""
    result = read_campaign(folder)
    rules = overfull_mission_cards(result)  # as validate: rules blocks that cannot fit
    result.diagnostics += rules
    campaign = result.campaign
    by_file: dict[str, list[Diagnostic]] = {}
    for diagnostic in result.diagnostics:
        by_file.setdefault(diagnostic.file, []).append(diagnostic)
    context = read_campaign(folder, Reading.CONTEXT) if campaign is None else result
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
            doc = None
            try:
                doc = read_document(Path(file), file)
                mission, _ = check_mission(doc, base.rulebook, base.languages)
            except InvalidInput:  # read_campaign has already said why
                mission = None
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
    people = read_people_games(folder, [e.mission for e in entries if e.mission is not None])
    for entry in entries:
        entry.people = people.get(entry.mission.id) if entry.mission is not None else None
    problems = sorted(d for f, ds in by_file.items() if f not in mission_files for d in ds)
    name = shown.name.get(language or "en") or next(iter(shown.name.values()), folder.name)
    return Snapshot(name, entries, problems, shown)


def _estimate(tallies: dict[int, LadderTally], mission: Mission) -> dict[str, Any] | None:
    """The skill a table needs, as `playtest` says it, from the games so far; the rates shown
    are the experts' own (the ladder's top)."""
    if not tallies or any(not t.games for t in tallies.values()):
        return None
    estimate = estimate_from(mission, tallies)
    if estimate is None:
        return None
    top = estimate.expert
    low, high = top.interval
    losses = Counter[str]()
    for ladder in tallies.values():
        losses.update(ladder.tables[ladder.players].losses)
    apart = {c.players for c in estimate.counts_apart()}
    fewest, most = estimate.fewest, estimate.most
    stars = describe_stars(fewest, most) if not estimate.limited_by_bot else \
        f"at most {describe_stars(most, most)} (limited by the bot)"
    return {
        "bot": STAR_BOT, "games": sum(t.games for ladder in tallies.values()
                                      for t in ladder.tables.values()),
        "rate": top.win_rate, "low": low, "high": high, "stars": stars,
        "fewest": fewest, "most": most, "limited_by_bot": estimate.limited_by_bot,
        "skill": estimate.skill, "skill_low": estimate.skill_low,
        "skill_high": estimate.skill_high,
        "rungs": [{"skill": s, "rate": estimate.curve.rate(s)} for s in RUNGS],
        "agrees": not any(f.concern.value == "declared-stars-outside-estimate"
                          for f in estimate.findings),
        "players": [{"players": p, "games": t.tables[p].games, "rate": t.tables[p].win_rate,
                     "low": t.tables[p].interval[0], "high": t.tables[p].interval[1],
                     "stars": describe_stars(estimate.by_count[p].reading.fewest,
                                             estimate.by_count[p].reading.most),
                     "apart": p in apart}
                    for p, t in sorted(tallies.items())],
        "losses": [{"reason": reason, "games": games}
                   for reason, games in sorted(losses.items(), key=lambda kv: (-kv[1], kv[0]))],
        "done": all(t.games >= ENOUGH for t in tallies.values()),
    }


class Studio:
    """The shared state of one studio session."""

    def __init__(self, folder: Path, language: str | None = None, jobs: int = 1) -> None:
        self.folder = folder
        self.language = language
        self.jobs = jobs
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        self.version = 0
        self.snapshot = Snapshot(folder.name, [], [])
        #: face hash -> its PNG, and the texts on it that do not fit ("file|field")
        self.images: dict[str, tuple[bytes, list[str]]] = {}
        # play key -> player count -> games at each level of the skill ladder
        self.tallies: dict[str, dict[int, LadderTally]] = {}
        self.clients = 0
        self.planned: Counter[tuple[str, int]] = Counter()  # games asked for, not yet counted
        #: (play key, player count) -> why its games cannot be played (a campaign's rule that
        #: fails in them): shown as a diagnostic, never asked for again until the key changes
        self.failed: dict[tuple[str, int], Diagnostic] = {}
        self.stopping = threading.Event()
        self._preview: CardPreview | None = None

    # -- the watcher's side ---------------------------------------------------------------

    def reload(self) -> None:
        """Read the campaign again, render the card faces that changed, publish."""
        snapshot = read_snapshot(self.folder, self.language)
        # A file too broken to say its number keeps its place in the list.
        before = {e.file: e for e in self.snapshot.entries}
        for entry in snapshot.entries:
            if entry.number is None and entry.file in before:
                entry.number = before[entry.file].number
                entry.title = entry.title or before[entry.file].title
        snapshot.entries.sort(key=lambda e: (e.number is None, e.number or 0, e.file))
        language = self.language or (snapshot.campaign.languages[0] if snapshot.campaign
                                     else "en")
        pending: dict[str, str] = {}
        if snapshot.campaign is not None:
            preview = self._preview
            if preview is None or preview.translator.language != language:
                preview = self._preview = CardPreview(snapshot.campaign, language)
            else:
                preview.use(snapshot.campaign)
            cards = {face.data.id: card for card in preview.kit["missions"]
                     for face in (card.front, card.back) if face.kind == "mission"}
            for entry in snapshot.entries:
                if entry.mission is None or entry.mission.id not in cards:
                    continue
                card = cards[entry.mission.id]
                faces: list[Face] = [card.front, card.back]
                if card.back.kind == "mission" and card.back.data.id == entry.mission.id:
                    faces.reverse()  # the mission's own side first
                hashes = []
                for face in faces:
                    html = preview.html("missions", face)
                    digest = hashlib.sha256(html.encode("utf-8")).hexdigest()
                    hashes.append(digest)
                    pending[digest] = html
                entry.faces = (hashes[0], hashes[1])
        # Publish the diagnostics at once; the cards follow, each as soon as it is drawn.
        with self.lock:
            missing = [d for d in pending if d not in self.images]
            self.snapshot = snapshot
            keys = {e.play_key for e in snapshot.entries if e.play_key}
            self.tallies = {k: v for k, v in self.tallies.items() if k in keys}
            self.failed = {k: v for k, v in self.failed.items() if k[0] in keys}
            for entry in snapshot.entries:
                if entry.play_key and entry.mission is not None:
                    self.tallies.setdefault(entry.play_key,
                                            {p: LadderTally(p) for p in entry.mission.players})
            used = set(pending)
            self.images = {k: v for k, v in self.images.items() if k in used}
            self._publish()
        for digest in missing:
            if self.stopping.is_set() or self._preview is None:
                return
            drawn = self._preview.render(pending[digest], PREVIEW_DPI)
            with self.lock:
                self.images[digest] = drawn
                self._publish()

    def _publish(self) -> None:
        self.version += 1
        self.changed.notify_all()

    # -- the estimator's side -------------------------------------------------------------

    def _next_batch(self) -> tuple[str, Mission, int, tuple[int, ...]] | None:
        best = None
        for entry in self.snapshot.entries:
            if entry.mission is None or entry.play_key not in self.tallies:
                continue
            for players, tally in self.tallies[entry.play_key].items():
                if (entry.play_key, players) in self.failed:
                    continue
                # Games already asked for count: their seeds are taken.
                games = tally.games + self.planned[(entry.play_key, players)]
                if games < ENOUGH and (best is None or games < best[0]):
                    best = (games, entry, players)
        if best is None:
            return None
        games, entry, players = best
        assert entry.mission is not None
        seeds = tuple(game_seed(SEED, entry.mission.id, players, i)
                      for i in range(games, games + BATCH))
        return entry.play_key, entry.mission, players, seeds

    def estimate_forever(self) -> None:
        """Play batches while a page is open, until the studio stops (runs in a thread)."""
        # Ctrl-C is the server's, in the main thread: blocked in this one, the workers it
        # starts inherit it blocked, and ignore it once started (synergy_forge.pool).
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        context = multiprocessing.get_context("spawn")  # this process has threads: no fork
        pool = ProcessPoolExecutor(max_workers=self.jobs, mp_context=context,
                                   initializer=ignore_interrupt)
        running: list[tuple[Future[LadderTally], str, int, int, str]] = []
        try:
            while not self.stopping.is_set():
                batch = None
                with self.lock:
                    for item in [r for r in running if r[0].done()]:
                        running.remove(item)
                        future, key, players, count, source = item
                        self.planned[(key, players)] -= count
                        failure = future.exception()
                        if key in self.tallies and failure is None:
                            self.tallies[key][players].add(future.result())
                            self._publish()
                        elif key in self.tallies and failure is not None:
                            # The same games would fail again: recorded, not retried.
                            self.failed[(key, players)] = _batch_failure(failure, players,
                                                                           source)
                            self._publish()
                    campaign = self.snapshot.campaign
                    if self.clients and campaign is not None and len(running) < self.jobs:
                        batch = self._next_batch()
                    if batch is not None:
                        self.planned[(batch[0], batch[2])] += len(batch[3])
                if batch is None or campaign is None:
                    self.stopping.wait(0.05)
                    continue
                key, mission, players, seeds = batch
                future = pool.submit(play_tables, mission, campaign.rulebook, campaign.colors,
                                     players, seeds)
                running.append((future, key, players, len(seeds), mission.source))
        finally:
            stop_workers(pool)  # a batch can run for a minute: not waited for

    # -- the server's side ----------------------------------------------------------------

    def image(self, digest: str) -> bytes | None:
        with self.lock:
            drawn = self.images.get(digest)
            return drawn[0] if drawn else None

    def state(self) -> dict[str, Any]:
        """Everything the page shows, as JSON data (the page escapes every text in it)."""
        with self.lock:
            snapshot = self.snapshot
            missions = []
            for entry in snapshot.entries:
                mission = entry.mission
                diagnostics = entry.diagnostics + [
                    self.failed[(entry.play_key, p)] for p in (mission.players if mission else ())
                    if (entry.play_key, p) in self.failed]
                errors = sum(d.severity is Severity.ERROR for d in diagnostics)
                item: dict[str, Any] = {
                    "file": entry.file, "number": entry.number, "title": entry.title,
                    "id": mission.id if mission else None,
                    "stars": mission.stars if mission else None,
                    "errors": errors, "warnings": len(diagnostics) - errors,
                    "diagnostics": [_diagnostic(d) for d in diagnostics],
                    # What the drawn card shows overflowing, unless already a diagnostic.
                    "overflows": [field for digest in entry.faces or () if digest in self.images
                                  for source, _, field in (o.partition("|") for o in
                                                           self.images[digest][1])
                                  if source == entry.file
                                  and not (field == "challenges" and entry.rules_located)
                                  and not any(d.check == "text.fit"
                                              and d.message.startswith(f"{field} ")
                                              for d in entry.diagnostics)],
                    "playable": mission is not None,
                    "card": None, "estimate": None,
                }
                if entry.faces is not None:
                    item["card"] = [f"/cards/{d}.png" if d in self.images else None
                                    for d in entry.faces]
                if mission is not None and entry.play_key in self.tallies:
                    item["estimate"] = _estimate(self.tallies[entry.play_key], mission)
                item["people"] = entry.people.as_data() if entry.people else None
                missions.append(item)
            return {"version": self.version, "campaign": snapshot.name,
                    "folder": _folder_name(self.folder), "problems": [_diagnostic(d) for d in
                                                                      snapshot.problems],
                    "missions": missions,
                    # Pages open, and games asked for but not yet counted: the estimates grow
                    # only while a page is open, and stop once both are 0.
                    "pages": self.clients, "playing": sum(self.planned.values())}

    def wait_for_change(self, seen: int, timeout: float) -> int:
        with self.changed:
            self.changed.wait_for(lambda: self.version != seen or self.stopping.is_set(),
                                  timeout)
            return self.version


_ORIGIN = re.compile(r"(?s)(.+?):(\d+): (.*)")


def _batch_failure(exc: BaseException, players: int, source: str) -> Diagnostic:
    """A batch of games that raised, as the diagnostic `play` would print: a campaign's rule
    that fails (RuleError, "FILE:LINE: why") at its file and line."""
    text = str(exc)
    match = _ORIGIN.fullmatch(text)
    if isinstance(exc, RuleError) and match:
        file, line, detail = match.group(1), int(match.group(2)), match.group(3)
        return Diagnostic(file, line, 1, Severity.ERROR,
                          f"fails in {players}-player games: {detail}", "mission.rule-fails")
    return Diagnostic(source or CAMPAIGN_FILE, 1, 1, Severity.ERROR,
                      f"{players}-player games cannot be played: {type(exc).__name__}: {text}",
                      "studio.estimate-failed")


def _folder_name(folder: Path) -> str:
    """The campaign's folder as the heading shows it: as typed when it names the folder, else
    (the current folder ".", or one above it) its whole path, the home folder as ~."""
    shown = display(folder)
    if shown not in (".", "") and not shown.startswith(".."):
        return shown
    whole = folder.resolve()
    try:
        return str(Path("~") / whole.relative_to(Path.home()))
    except (ValueError, RuntimeError):
        return str(whole)


def _diagnostic(d: Diagnostic) -> dict[str, Any]:
    return {"where": f"{d.file}:{d.line}:{d.column}", "severity": str(d.severity),
            "message": d.message, "check": d.check}


def _identity(folder: Path) -> tuple[int, int] | None:
    """The folder's (device, inode), or None when it is not there: a folder deleted and made
    again is another folder, which the watcher must watch anew."""
    try:
        found = os.stat(folder)
    except OSError:
        return None
    return found.st_dev, found.st_ino


#: How often the watcher looks whether its folder is still the one it watches (seconds).
RECHECK = 0.5


def watch(studio: Studio, on_reload: Callable[[], None] | None = None) -> None:
    """Reload on every save of a campaign file, until the studio stops (runs in a thread).

    The folder itself may go (deleted, renamed, replaced by a checkout): the watcher then
    shows why the campaign cannot be read, waits for the folder to be back and watches the
    new one."""
    import watchfiles

    root = os.path.abspath(studio.folder)

    def campaign_file(change: watchfiles.Change, path: str) -> bool:
        # A game log added to games/ by the table updates its mission's human results.
        return path.endswith((".yaml", ".yml", ".json", ".jsonl")) or \
            os.path.abspath(path) == root

    def reload() -> None:
        try:
            studio.reload()
        except Exception as exc:  # our mistake: say so, and keep watching for the next save
            print(f"synergy-forge studio: internal error while reading the campaign: "
                  f"{type(exc).__name__}: {exc}; this is a bug, please report it",
                  file=sys.stderr)
        if on_reload:
            on_reload()

    read: tuple[int, int] | None = (-1, -1)  # nothing read yet
    while not studio.stopping.is_set():
        armed = _identity(studio.folder)
        if armed is None:  # gone: show why the campaign cannot be read, wait for it
            if read is not None:
                read = None
                reload()
            studio.stopping.wait(RECHECK)
            continue
        try:
            # Watched first, then read: a save between the two is in the first changes.
            for changes in watchfiles.watch(
                    studio.folder, watch_filter=campaign_file, debounce=50, step=20,
                    stop_event=studio.stopping, yield_on_timeout=True,
                    rust_timeout=int(RECHECK * 1000), raise_interrupt=False):
                if any(os.path.abspath(path) == root for _, path in changes):
                    read = (-1, -1)  # the folder itself went or came: read it again, even
                    break  # if a new one has the old one's inode, and watch it anew
                if _identity(studio.folder) != armed:
                    break  # deleted or replaced: watch the folder there now
                if changes or read != armed:
                    read = armed
                    reload()
        except (OSError, RuntimeError):  # the folder went while the watch was set up
            studio.stopping.wait(RECHECK)
