"""`publish`: a campaign's website, made from the same files. The kit is built into OUT/kit
(workspace.build, the build's own cache and rules), each mission's difficulty is estimated on
the skill ladder (sim.playtest) or read back from the estimate an earlier publish kept under
the mission's content hash (core.playhash); people's games (`--human`) are set against the
ladders in one model of people (sim.people). The pages
are rendered by the front end's `pages` (reporting.publish); every file of the site is
written inside OUT only when its bytes changed, and the files an earlier publish wrote that
this one no longer makes are removed (docs/publish.md)."""

from __future__ import annotations

import contextlib
import json
import os
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from synergy_forge import __version__
from synergy_forge.core.mission import Campaign, Mission
from synergy_forge.core.playhash import play_hash
from synergy_forge.core.referee import LossReason
from synergy_forge.fileio import read_regular, same_beneath, unlink_beneath, write_beneath
from synergy_forge.printing.output import (
    OutputFolderError,
    check_output_folder,
    inside,
    kit_folders,
    locked,
)
from synergy_forge.workspace.build import Kit, KitCheck, print_kit
from synergy_forge.workspace.people import PeopleLogs, people_logs

if TYPE_CHECKING:
    from synergy_forge.printing.jobs import Options
    from synergy_forge.sim.estimate import Estimate
    from synergy_forge.sim.executors import Executor
    from synergy_forge.sim.people import Discrepancy, PeopleFit, Prediction
    from synergy_forge.sim.tables import Cell

#: OUT/kit: what `build --out OUT/kit` writes (PDFs, 300 DPI PNGs, its cache in kit/.cache).
KIT = "kit"
#: OUT/missions/: a page per mission.
MISSIONS = "missions"
#: OUT/cards/<lang>/<face>.png: each mission card's face at the width a page shows it.
CARDS = "cards"
#: OUT/.publish/: the estimates by content hash and the list of the site's files, for the
#: next publish (a static host need not serve it: docs/publish.md).
STATE = ".publish"
ESTIMATES_FILE = "estimates.json"
WRITTEN_FILE = "written.json"
#: Pixels across a card image on the site: sharp at twice the width a page shows it.
CARD_PIXELS = 480
#: Bumped when what an estimate is kept as changes, so that an old entry is played again.
ESTIMATES_FORMAT = 1
#: What the site writes, the only kinds of file a publish removes (of an earlier publish).
SITE_SUFFIXES = (".html", ".png", ".json", ".css", ".js")


@dataclass(frozen=True)
class Settings:
    """How to publish: the kit's languages and options, and the ladder's games per level and
    seed (as `playtest --games --seed`)."""

    languages: list[str]
    options: Options
    games: int
    seed: int
    jobs: int | None = None
    cache: bool = True


@dataclass(frozen=True)
class PeopleAt:
    """People's games of a mission at one player count, and their long-run win rate there
    as the model of people predicts it (sim.people)."""

    players: int
    games: int
    wins: int
    prediction: Prediction


@dataclass
class MissionEntry:
    """One mission of the site: its content hash and its estimate (played now, or kept from
    an earlier publish of the same play, games, seed and version)."""

    mission: Mission
    hash: str
    estimate: Estimate | None
    #: people's games at each player count they played it, with the model's prediction
    people: list[PeopleAt] = field(default_factory=list)
    #: how much better (> 0) or worse people do here than the ladder says at their skill
    discrepancy: Discrepancy | None = None

    @property
    def games(self) -> int:
        """Games the ladder played for the estimate, every table and player count."""
        if self.estimate is None:
            return 0
        return sum(c.curve.total_games for c in self.estimate.by_count.values())


@dataclass(frozen=True)
class Download:
    """A file of the kit: its language, its document (`kind`, `group`: printing.jobs.Job),
    its path in the site and its size in bytes."""

    language: str
    kind: str
    group: str
    path: str
    bytes: int


@dataclass
class Site:
    """What a page is made from: the campaign, its kit, each mission with its estimate, and
    each mission face's image on the site (`images`: (language, face key) -> site path)."""

    check: KitCheck
    kit: Kit
    languages: list[str]
    missions: list[MissionEntry]
    games: int
    seed: int
    version: str
    images: dict[tuple[str, str], str]
    #: each kit file to download, by language
    downloads: list[Download]
    #: the card images' width and height in pixels
    image_size: tuple[int, int] = (CARD_PIXELS, CARD_PIXELS)
    #: the model of people, fitted where `--human` logs were given (sim.people)
    people: PeopleFit | None = None
    #: the logs read, and their games left out: no person played, or the mission's play
    #: changed since (or the campaign has no such mission)
    logs: int = 0
    left_out: int = 0

    @property
    def campaign(self) -> Campaign:
        assert self.check.campaign is not None  # a campaign with errors is not published
        return self.check.campaign

    @property
    def folder(self) -> Path:
        return self.check.workspace.folder

    @property
    def starter(self) -> bool:
        return self.check.workspace.starter


@dataclass(frozen=True)
class Published:
    """What a publish did: the site, the files it wrote (site paths; the others were the
    same already) and removed, and how many estimates it played anew."""

    site: Site
    written: list[str]
    unchanged: int
    removed: list[str]
    played: int


#: The site's pages and data, rendered from a Site: site path -> bytes (reporting.publish).
Pages = Callable[[Site], Mapping[str, bytes]]


#: The names a site has at its top, which a folder of someone else's may have too.
SITE_NAMES = ("index.html", "campaign.json", "site.css", "site.js", MISSIONS, CARDS)


def site_folders(languages: Sequence[str]) -> tuple[str, ...]:
    """The folders below OUT a publish writes in: its own, and the kit's below OUT/kit."""
    return (STATE, MISSIONS, CARDS, *(f"{CARDS}/{language}" for language in languages), KIT,
            *(f"{KIT}/{name}" for name in kit_folders(languages)))


def check_site_folder(check: KitCheck, out_dir: Path, languages: Sequence[str]) -> None:
    """--out as `build --out` takes it (printing.output.check_output_folder): not the
    campaign folder, not a folder it reads files from, none of the folders the site is
    written in (`site_folders`) holding the campaign, no link inside; and not a website that
    no publish made (its index.html would be replaced). Before any work."""
    check_output_folder(out_dir, check.workspace.folder, check.workspace.sources,
                        site_folders(languages))
    if (out_dir / STATE / WRITTEN_FILE).is_file():
        return  # an earlier publish's: its files are the ones it replaces
    found = sorted(name for name in SITE_NAMES if os.path.lexists(out_dir / name))
    if found:
        raise OutputFolderError(
            f"--out {out_dir}: holds {', '.join(found)}, which synergy-forge publish did not "
            "write there: choose a new or empty folder (nothing was written)")


class _Quiet:
    def update(self, count: int = 1) -> None:
        pass


@contextlib.contextmanager
def quiet(label: str, total: int) -> Iterator[_Quiet]:
    """A stage that shows nothing (the front end's own shows a progress bar)."""
    yield _Quiet()


#: A stage of the work, `label` with `total` steps: a context whose value counts them with
#: update(n) (cli.progress.Progress).
Stage = Callable[[str, int], AbstractContextManager[Any]]


def publish(check: KitCheck, out_dir: Path, settings: Settings, pages: Pages, *,
            people: Sequence[Path] = (), executor: Executor | None = None,
            stage: Stage = quiet, workers: Any = None) -> Published:
    """The site of the checked campaign (it has no errors) in OUT: its kit built, each
    mission estimated (or its estimate reused), people's logs `people` replayed against it
    and set against the ladders, the pages rendered by `pages`, every file written when it
    changed. One publish at a time per folder (printing.output.locked)."""
    from synergy_forge.printing.print_run import documents

    campaign = check.campaign
    assert campaign is not None  # a campaign with errors publishes nothing
    check_site_folder(check, out_dir, settings.languages)
    # People's logs are replayed first: one the engine disagrees with stops before any work.
    read = people_logs(people, check.workspace.folder, lambda _: None) if people else None
    with locked(out_dir):
        with stage("Rendering", documents(settings.languages)) as bar:
            kit = print_kit(check, out_dir / KIT, settings.languages, settings.options,
                            settings.jobs, cache=settings.cache,
                            progress=lambda _: bar.update(1), workers=workers)
        entries, played = _estimates(campaign, out_dir, settings, executor, stage)
        site = Site(check, kit, settings.languages, entries, settings.games, settings.seed,
                    __version__, {}, _downloads(kit, out_dir))
        images = _card_images(site)
        if read is not None:
            _people(site, read)
        files = {**images, **pages(site)}
        written, unchanged, removed = write_site(out_dir, files)
    return Published(site, written, unchanged, removed, played)


# -- estimates by content hash ------------------------------------------------------------------


def _tally_json(cell: Cell) -> dict[str, Any]:
    t = cell.tally
    return {"players": cell.player_count, "bot": cell.bot, "experts": cell.experts,
            "games": t.games, "wins": t.wins, "rounds_won": t.rounds_won,
            "rounds_played": t.rounds_played, "lives_lost": t.lives_lost,
            "losses": {str(k): v for k, v in sorted(t.losses.items())}}


def _cell(mission: Mission, data: Mapping[str, Any]) -> Cell:
    from synergy_forge.sim.tables import Cell, Tally

    tally = Tally(games=data["games"], wins=data["wins"], rounds_won=data["rounds_won"],
                  rounds_played=data["rounds_played"], lives_lost=data["lives_lost"],
                  losses=Counter({LossReason(k): v for k, v in data["losses"].items()}))
    return Cell(mission, data["players"], data["bot"], tally, data["experts"])


def _kept(out_dir: Path) -> dict[str, Any]:
    """The estimates an earlier publish kept, by content hash ({} when none can be read)."""
    try:
        data = json.loads(read_regular(out_dir / STATE / ESTIMATES_FILE).decode("utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != ESTIMATES_FORMAT or \
            not isinstance(data.get("missions"), dict):
        return {}
    return data["missions"]


def _reusable(entry: Any, settings: Settings) -> bool:
    return isinstance(entry, dict) and entry.get("games") == settings.games and \
        entry.get("seed") == settings.seed and entry.get("version") == __version__ and \
        isinstance(entry.get("cells"), list)


def _estimates(campaign: Campaign, out_dir: Path, settings: Settings,
               executor: Executor | None, stage: Stage) -> tuple[list[MissionEntry], int]:
    """Each mission with its estimate: kept from an earlier publish under its content hash
    (the same play, games, seed and version), else played on the ladder now. The estimates
    kept are then the ones used. (missions, how many were played)."""
    from synergy_forge.sim.estimate import estimates
    from synergy_forge.sim.playtest import STAR_BOT, games_to_play, playtest
    from synergy_forge.sim.tables import Playable

    kept = _kept(out_dir)
    hashes = {m.id: play_hash(m, campaign.rulebook) for m in campaign.missions}
    cells: dict[str, list[Cell]] = {}
    to_play = []
    for mission in campaign.missions:
        entry = kept.get(hashes[mission.id])
        if entry is not None and _reusable(entry, settings):
            try:
                cells[mission.id] = [_cell(mission, c) for c in entry["cells"]]
                continue
            except (KeyError, TypeError, ValueError):
                pass  # a damaged entry: played again
        to_play.append(mission)
    if to_play:
        playables = [Playable(m, campaign.rulebook, campaign.colors) for m in to_play]
        total = games_to_play(playables, (STAR_BOT,), None, settings.games)
        with stage("Playing", total) as bar:
            result = playtest(playables, (STAR_BOT,), None, settings.games, settings.seed,
                              jobs=settings.jobs, progress=bar.update, executor=executor)
        for cell in result.cells:
            cells.setdefault(cell.mission.id, []).append(cell)
    found = {e.mission.id: e for e in estimates([c for m in campaign.missions
                                                 for c in cells.get(m.id, [])])}
    record = {"format": ESTIMATES_FORMAT, "missions": {
        hashes[m.id]: {"id": m.id, "games": settings.games, "seed": settings.seed,
                       "version": __version__,
                       "cells": [_tally_json(c) for c in cells.get(m.id, [])]}
        for m in campaign.missions}}
    _write_if_changed(out_dir, out_dir / STATE / ESTIMATES_FILE,
                      json.dumps(record, indent=1, sort_keys=True).encode("utf-8"))
    return [MissionEntry(m, hashes[m.id], found.get(m.id)) for m in campaign.missions], \
        len(to_play)


def _people(site: Site, read: PeopleLogs) -> None:
    """People's games of the campaign's missions as they are now, set against each mission's
    ladder at each player count in one model of people (sim.people.fit, as `playtest
    --human` fits it): on each entry, its games and the model's prediction where people
    played it, and its discrepancy."""
    from synergy_forge.sim.people import Cell as PeopleCell
    from synergy_forge.sim.people import fit

    entries = {e.mission.id: e for e in site.missions}
    tallies: dict[tuple[str, int], list[int]] = {}
    for game in read.played:
        if game.people and game.key in entries:  # the key of a changed mission is another
            tally = tallies.setdefault((game.key, game.players), [0, 0])
            tally[0] += 1
            tally[1] += game.won
    site.logs = len(read.files)
    site.left_out = len(read.played) - sum(games for games, _ in tallies.values())
    cells = [PeopleCell(e.mission.id, count, ladder.curve.rate,
                        *tallies.get((e.mission.id, count), (0, 0)))
             for e in site.missions if e.estimate is not None
             for count, ladder in sorted(e.estimate.by_count.items())]
    if not any(c.games for c in cells):
        return
    site.people = fit(cells)
    for cell, prediction in zip(cells, site.people.predictions, strict=True):
        if cell.games:
            entries[cell.mission].people.append(
                PeopleAt(cell.players, cell.games, cell.wins, prediction))
    for discrepancy in site.people.discrepancies:
        entries[discrepancy.mission].discrepancy = discrepancy


# -- images and downloads -----------------------------------------------------------------------


#: The kit's documents in the order a reader wants them: everything at once first.
DOWNLOAD_ORDER = ("print-and-play", "sheets", "rulebook", "challenges", "calibration", "cards",
                  "tts", "dtc")


def _downloads(kit: Kit, out_dir: Path) -> list[Download]:
    """The kit's PDFs and Tabletop Simulator files, each with its size, by language."""
    found = []
    for r in kit.run.results:
        if r.job.kind not in DOWNLOAD_ORDER:
            continue
        path = Path(r.path)
        with contextlib.suppress(OSError):
            where = Path(os.path.relpath(path, out_dir)).as_posix()
            found.append(Download(r.job.language, r.job.kind, r.job.group, where,
                                  path.stat().st_size))
    return sorted(found, key=lambda d: (d.language, DOWNLOAD_ORDER.index(d.kind), d.path))


def _card_images(site: Site) -> dict[str, bytes]:
    """Each mission face (and the mission cards' back) of the kit's PNGs, at CARD_PIXELS
    across: site path -> PNG bytes; `site.images` says where each face is."""
    from synergy_forge.printing.preview import shrunk

    files: dict[str, bytes] = {}
    for r in site.kit.run.results:
        if (r.job.kind, r.job.group) != ("cards", "missions"):
            continue
        for png in r.pngs:
            key = Path(png).stem
            site_path = f"{CARDS}/{r.job.language}/{key}.png"
            files[site_path], site.image_size = shrunk(read_regular(Path(png)), CARD_PIXELS)
            site.images[(r.job.language, key)] = site_path
    return files


# -- writing the site -------------------------------------------------------------------------


def _write_if_changed(root: Path, path: Path, data: bytes) -> bool:
    if same_beneath(root, path, data):
        return False
    write_beneath(root, path, data)
    return True


def write_site(out_dir: Path, files: Mapping[str, bytes]) -> tuple[list[str], int, list[str]]:
    """Each file (site path -> bytes) written inside `out_dir` where its bytes differ from
    what is there (fileio.write_beneath: atomic, no link followed); then each file the last
    publish wrote that this one does not, removed, and only those (a note of the user's in
    OUT stays). (written, how many were the same, removed)."""
    written = []
    for name, data in sorted(files.items()):
        path = inside(out_dir, Path(name))
        if _write_if_changed(out_dir, path, data):
            written.append(name)
    record = out_dir / STATE / WRITTEN_FILE
    try:
        earlier = json.loads(read_regular(record).decode("utf-8"))
    except (OSError, ValueError):
        earlier = []
    removed = []
    for name in earlier if isinstance(earlier, list) else ():
        relative = PurePosixPath(name) if isinstance(name, str) else PurePosixPath("/")
        if name in files or relative.is_absolute() or ".." in relative.parts or \
                relative.suffix not in SITE_SUFFIXES or relative.parts[0] in (KIT, STATE):
            continue  # not a file of the site's own: left alone
        target = out_dir / relative
        with contextlib.suppress(OSError):
            if unlink_beneath(out_dir, target.parent, [target.name]):
                removed.append(name)
    _write_if_changed(out_dir, record, json.dumps(sorted(files), indent=1).encode("utf-8"))
    return written, len(files) - len(written), removed
