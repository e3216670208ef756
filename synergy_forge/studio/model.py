"""What the studio shows, kept up to date: each mission's card (as the kit prints it), its
diagnostics and a difficulty estimate that grows while the page is open.

Three threads share one `Studio`: the watcher reloads the campaign when a file changes and
renders the cards that changed; the estimator plays coop games in a worker process, a batch
at a time, for the mission and player count with the fewest games; the server reads `state()`
once per page and then `changes(since)`: each mission in three parts (its card, its problems,
its estimate), each stamped with the version it last changed at, so that a page is sent and
redraws only what changed (README.md, the studio).
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import re
import signal
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

from synergy_forge.authoring.diagnostics import Diagnostic, Severity
from synergy_forge.authoring.loading import CAMPAIGN_FILE, display
from synergy_forge.core.mission import Mission
from synergy_forge.core.rulelang import RuleError
from synergy_forge.pool import in_background, stop_workers
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
from synergy_forge.workspace.campaign import Workspace
from synergy_forge.workspace.snapshot import Entry, PeopleGames, Snapshot, read_snapshot

#: Games per batch: small enough that a mission's first figures come within a second.
BATCH = 20
#: Games per mission, player count and table of the skill ladder after which a mission's
#: estimate stops growing.
ENOUGH = 1000
#: The playtest command's default seed: the studio's figures are the same games.
SEED = 1
PREVIEW_DPI = 150
#: A mission's parts, each drawn by its own part of the page and sent when it changed: what its
#: heading and card show, its problems, its difficulty estimate and people's games.
PARTS = ("card", "problems", "estimate")
#: The campaign's own part (its name, folder and problems) and the missions' order, keyed
#: beside the missions' parts under this file name, which no mission file has.
CAMPAIGN = ""


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
                     "skill": estimate.by_count[p].reading.skill,
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
        self.workspace = Workspace(folder)
        self.language = language
        self.jobs = jobs
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        #: grows with every change of what the page shows; `urgent`, the last one a save made
        #: (sent at once, where the estimates' progress is paced)
        self.version = 0
        self.urgent = 0
        #: (file, part) -> the version it last changed at, and what it is compared by (its
        #: JSON; an estimate's by what it is computed from, computed only when sent)
        self._parts: dict[tuple[str, str], tuple[int, str]] = {}
        # play key -> (batches counted, the estimate from them): computed once per batch
        self._estimates: dict[str, tuple[int, dict[str, Any] | None]] = {}
        self.batches: Counter[str] = Counter()  # play key -> batches counted
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
        self.workspace = self.workspace.again()  # the files that did not change kept
        snapshot = read_snapshot(self.workspace, self.language)
        # A file too broken to say its number keeps its place in the list.
        before = {e.file: e for e in self.snapshot.entries}
        for entry in snapshot.entries:
            if entry.number is None and entry.file in before:
                entry.number = before[entry.file].number
                entry.title = entry.title or before[entry.file].title
        snapshot.entries.sort(key=lambda e: (e.number is None, e.number or 0, e.file))
        # Published at once: the titles and problems; each card as it was until its faces are
        # known (the kit's HTML of every face, next), then drawn.
        for entry in snapshot.entries:
            if entry.mission is not None and entry.file in before:
                entry.faces = before[entry.file].faces
        with self.lock:
            self.snapshot = snapshot
            keys = {e.play_key for e in snapshot.entries if e.play_key}
            self.tallies = {k: v for k, v in self.tallies.items() if k in keys}
            self.failed = {k: v for k, v in self.failed.items() if k[0] in keys}
            for entry in snapshot.entries:
                if entry.play_key and entry.mission is not None:
                    self.tallies.setdefault(entry.play_key,
                                            {p: LadderTally(p) for p in entry.mission.players})
            self.batches = Counter({k: v for k, v in self.batches.items() if k in keys})
            self._estimates = {k: v for k, v in self._estimates.items() if k in keys}
            self._publish(urgent=True)
        pending = self._faces(snapshot)
        with self.lock:
            for entry in snapshot.entries:
                entry.faces = pending[1].get(entry.file)
            missing = [d for d in pending[0] if d not in self.images]
            self.images = {k: v for k, v in self.images.items() if k in pending[0]}
            self._publish(urgent=True)
        for digest in missing:
            if self.stopping.is_set() or self._preview is None:
                return
            drawn = self._preview.render(pending[0][digest], PREVIEW_DPI)
            with self.lock:
                self.images[digest] = drawn
                self._publish(urgent=True)

    def _faces(self, snapshot: Snapshot) -> tuple[dict[str, str], dict[str, tuple[str, str]]]:
        """The HTML of every mission card's faces (by the hash of it), and each mission file's
        two faces' hashes, its own side first."""
        language = self.language or (snapshot.campaign.languages[0] if snapshot.campaign
                                     else "en")
        html: dict[str, str] = {}
        faces: dict[str, tuple[str, str]] = {}
        if snapshot.campaign is None:
            return html, faces
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
            sides: list[Face] = [card.front, card.back]
            if card.back.kind == "mission" and card.back.data.id == entry.mission.id:
                sides.reverse()  # the mission's own side first
            hashes = []
            for face in sides:
                text = preview.html("missions", face)
                digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
                hashes.append(digest)
                html[digest] = text
            faces[entry.file] = (hashes[0], hashes[1])
        return html, faces

    def _publish(self, urgent: bool) -> None:
        """Stamp each part that changed with a new version and wake the pages' streams; with
        `urgent` (a save's doing), they send it at once. Holds the lock."""
        version = self.version + 1
        parts: dict[tuple[str, str], tuple[int, str]] = {}
        for key, text in self._compared():
            known = self._parts.get(key)
            parts[key] = known if known is not None and known[1] == text else (version, text)
        if parts == self._parts:
            return
        self._parts = parts
        self.version = version
        if urgent:
            self.urgent = version
        self.changed.notify_all()

    def _compared(self) -> Iterator[tuple[tuple[str, str], str]]:
        """Every part as it is compared with what was sent: its JSON; an estimate by what it
        is computed from (its games), not computed here."""
        yield (CAMPAIGN, "campaign"), _json(self._campaign_part())
        yield (CAMPAIGN, "order"), _json([e.file for e in self.snapshot.entries])
        for entry in self.snapshot.entries:
            yield (entry.file, "card"), _json(self._card(entry))
            yield (entry.file, "problems"), _json(self._problems(entry))
            yield (entry.file, "estimate"), _json(
                [entry.play_key, entry.mission is not None, self.batches[entry.play_key],
                 entry.people and _people(entry.people)])

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
        # The games are background work: at a lower priority than the studio's own process
        # and the browser, a save reaches the page as fast while they are played.
        pool = ProcessPoolExecutor(max_workers=self.jobs, mp_context=context,
                                   initializer=in_background)
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
                            self.batches[key] += 1
                            self._publish(urgent=False)
                        elif key in self.tallies and failure is not None:
                            # The same games would fail again: recorded, not retried.
                            self.failed[(key, players)] = _batch_failure(failure, players,
                                                                           source)
                            self._publish(urgent=False)
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
        """Everything the page shows, as JSON data (the page escapes every text in it), at
        `version`."""
        with self.lock:
            missions = []
            for entry in self.snapshot.entries:
                item: dict[str, Any] = {"file": entry.file}
                for part in PARTS:
                    item.update(self._part(entry, part))
                missions.append(item)
            return {"version": self.version, **self._campaign_part(), "missions": missions,
                    # Pages open, and games asked for but not yet counted: the estimates grow
                    # only while a page is open, and stop once both are 0.
                    "pages": self.clients, "playing": sum(self.planned.values())}

    def changes(self, since: int) -> dict[str, Any]:
        """What changed after version `since`, up to `version`: the campaign's part and the
        missions' order if they did, and each mission's parts that did (by file). Applied to
        the state at `since` or later, it gives the state at `version`."""
        with self.lock:
            found: dict[str, Any] = {"version": self.version, "since": since, "missions": {}}
            entries = {e.file: e for e in self.snapshot.entries}
            for (file, part), (version, text) in self._parts.items():
                if version <= since:
                    continue
                if file == CAMPAIGN:
                    value = json.loads(text)
                    found.update(value if part == "campaign" else {part: value})
                else:
                    found["missions"].setdefault(file, {}).update(self._part(entries[file], part))
            return found

    def _part(self, entry: Entry, part: str) -> dict[str, Any]:
        if part == "card":
            return self._card(entry)
        if part == "problems":
            return self._problems(entry)
        mission = entry.mission
        estimate = None
        if mission is not None and entry.play_key in self.tallies:
            counted = self.batches[entry.play_key]
            cached = self._estimates.get(entry.play_key)
            if cached is None or cached[0] != counted:
                cached = self._estimates[entry.play_key] = \
                    (counted, _estimate(self.tallies[entry.play_key], mission))
            estimate = cached[1]
        return {"playable": mission is not None, "estimate": estimate,
                "people": _people(entry.people) if entry.people else None}

    def _campaign_part(self) -> dict[str, Any]:
        return {"campaign": self.snapshot.name, "folder": _folder_name(self.folder),
                "problems": [_diagnostic(d) for d in self.snapshot.problems]}

    def _card(self, entry: Entry) -> dict[str, Any]:
        """What the mission's heading and card show."""
        mission = entry.mission
        return {"number": entry.number, "title": entry.title,
                "id": mission.id if mission else None,
                "stars": mission.stars if mission else None,
                "card": None if entry.faces is None else
                [f"/cards/{d}.png" if d in self.images else None for d in entry.faces]}

    def _problems(self, entry: Entry) -> dict[str, Any]:
        """The mission's problems: its diagnostics, and what its drawn card shows overflowing."""
        mission = entry.mission
        diagnostics = entry.diagnostics + [
            self.failed[(entry.play_key, p)] for p in (mission.players if mission else ())
            if (entry.play_key, p) in self.failed]
        errors = sum(d.severity is Severity.ERROR for d in diagnostics)
        return {
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
                                      for d in entry.diagnostics)]}

    def wait_for_change(self, seen: int, timeout: float, urgent: bool = False) -> int:
        """The version once it is past `seen` (with `urgent`, once a save's change is), or
        after `timeout` seconds, or as the studio stops."""
        with self.changed:
            self.changed.wait_for(lambda: (self.urgent if urgent else self.version) > seen
                                  or self.stopping.is_set(), timeout)
            return self.version


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


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


def _people(played: PeopleGames) -> dict[str, Any]:
    """People's games of a mission as the page shows them, with the 95% interval."""
    low, high = wilson(played.wins, played.games)
    return {"games": played.games, "wins": played.wins,
            "rate": played.wins / played.games if played.games else None, "low": low,
            "high": high, "earlier": played.earlier}


def _diagnostic(d: Diagnostic) -> dict[str, Any]:
    return {"where": f"{d.file}:{d.line}:{d.column}", "severity": str(d.severity),
            "message": d.message, "check": d.check}


def watch(studio: Studio, on_reload: Callable[[], None] | None = None) -> None:
    """Reload on every save of a campaign file, or of a game log the table adds to games/,
    until the studio stops (runs in a thread; workspace.watch)."""
    from synergy_forge.workspace.watch import CAMPAIGN_FILES
    from synergy_forge.workspace.watch import watch as watch_folder

    def reload() -> None:
        try:
            studio.reload()
        except Exception as exc:  # our mistake: say so, and keep watching for the next save
            print(f"synergy-forge studio: internal error while reading the campaign: "
                  f"{type(exc).__name__}: {exc}; this is a bug, please report it",
                  file=sys.stderr)

    watch_folder(studio.folder, reload, studio.stopping, files=(*CAMPAIGN_FILES, ".jsonl"),
                 after=on_reload)
