"""`synergy-forge playtest`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from synergy_forge.errors import CheckFailed
from synergy_forge.reporting.formats import render

from ..output import HTML_REPORT, show, write_report
from ..params import BOTS, PLAYER_COUNTS, SEED, OutputFile, report_format

if TYPE_CHECKING:
    from synergy_forge.sim.executors import Executor

#: Below this many games the run is too short to be worth a progress bar.
PROGRESS_FROM = 2000


@click.command("playtest")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--games", type=click.IntRange(1, 1_000_000), default=100, show_default=True,
              help="Games per mission, player count and bot (and per level of the expert's "
              "skill ladder).")
@click.option("--players", "player_counts", type=PLAYER_COUNTS, default="all", show_default=True,
              help="3, 4, 5, a comma list such as 3,5, or all.")
@click.option("--bots", type=BOTS, default="expert", show_default=True,
              help="Comma-separated: random, greedy, coop, expert, oracle (oracle cheats: it "
              "sees every hand). The expert is played on the skill ladder that gives the stars "
              "(docs/difficulty.md); without it there is no estimate.")
@click.option("--seed", type=SEED, default=1, show_default=True)
@click.option("--jobs", type=click.IntRange(1, 64), help="Worker processes (default: all "
              "cores). Results are the same whatever the number.")
@click.option("--scheduler", metavar="ADDR", help="Play on a Dask cluster (tcp://HOST:PORT; "
              "default: $DASK_SCHEDULER_ADDRESS, else local processes). Same results "
              "(docs/scale.md).")
@report_format("playtest", help="text: a summary per mission; json: one object "
               "(docs/playtest.md); html: a page with charts.")
@click.option("--html", "html_path", type=OutputFile(HTML_REPORT),
              help="Also write an HTML report with charts to this file (a new file, or a "
              "report it replaces).")
@click.option("--check", is_flag=True, help="Exit 1 when a mission is unwinnable or its "
              "declared stars are outside the estimate.")
@click.option("--human", "logs", multiple=True, metavar="LOG",
              type=click.Path(exists=True, path_type=Path),
              help="Game logs people played (`play --log`, the table), or folders of *.jsonl "
              "logs; repeat for more. Instead of a playtest: one model of people over their "
              "games and the ladder of every mission of the campaign PATHS names (one "
              "folder; default: the current one): the population's skill, each mission's "
              "predicted win rate for people, where they contradict the ladder, what to "
              "playtest next (docs/playtest.md).")
@click.option("--include-changed", is_flag=True, help="With --human: also count the logs of "
              "missions whose play changed since (settings, goals, challenges), each as the "
              "mission it was; without it they are named and left out.")
def command(paths: tuple[Path, ...], games: int, player_counts: tuple[int, ...] | None,
            bots: tuple[str, ...], seed: int, jobs: int | None, scheduler: str | None,
            fmt: str, html_path: Path | None, check: bool,
            logs: tuple[Path, ...], include_changed: bool) -> None:
    """Estimate each mission's difficulty by playing it many times with bots.

    PATHS are campaign folders or mission files (default: the campaign of the current folder
    or the nearest one above it; the bundled starter campaign when there is none).
    """
    from synergy_forge.sim.executors import executor_for
    from synergy_forge.sim.playtest import games_to_play, playtest
    from synergy_forge.workspace.play import playables

    from ..output import say
    from ..progress import Progress

    if include_changed and not logs:
        raise click.UsageError("--include-changed goes with --human")
    if logs:
        _human(logs, paths, games, seed, fmt, html_path, check, include_changed,
               executor_for(scheduler, jobs))
        return
    sources = playables(paths, say)
    total = games_to_play(sources, bots, player_counts, games)
    # A bar on a terminal for long runs; off a terminal, a plain line every few seconds.
    with Progress(total, "Playing", bar=total >= PROGRESS_FROM and fmt == "text") as bar:
        result = playtest(sources, bots, player_counts, games, seed, progress=bar.update,
                          executor=executor_for(scheduler, jobs))
    show(render("playtest", fmt, result))
    if html_path is not None:
        write_report(html_path, render("playtest", "html", result))
    if check and result.failing:
        names = ", ".join(f"{e.mission.number} {e.mission.id}" for e in result.failing)
        raise CheckFailed(f"playtest --check: {len(result.failing)} mission(s) fail: {names}")


def _human(logs: tuple[Path, ...], paths: tuple[Path, ...], games: int, seed: int, fmt: str,
           html_path: Path | None, check: bool, include_changed: bool,
           executor: Executor) -> None:
    """`playtest [CAMPAIGN] --human`: replay the logs against the campaign, then fit the
    model of people over the ladder of every mission (sim.calibration)."""
    from synergy_forge.reporting.people import Context
    from synergy_forge.sim.calibration import calibrate, games_to_play
    from synergy_forge.workspace.people import people_logs

    from ..output import say
    from ..progress import Progress

    if len(paths) > 1 or (paths and not paths[0].is_dir()):
        raise click.UsageError("--human compares the logs with one campaign: give its folder "
                               "(default: the current folder's campaign), not mission files")
    if check:
        raise click.UsageError("--human reports; --check goes with a playtest of PATHS")
    read = people_logs(_log_files(logs), paths[0] if paths else None, say)
    kept = [g for g in read.played if include_changed or not g.changes]
    total = games_to_play(kept, read.playables, games)
    with Progress(total, "Playing", bar=total >= PROGRESS_FROM and fmt == "text") as bar:
        result = calibrate(kept, read.playables, games, seed, executor, bar.update)
    context = Context(len(read.files), sum(1 for g in kept if not g.people), games, seed,
                      [g for g in read.played if g.changes and g.people], include_changed)
    show(render("calibration", fmt, result, context=context))
    if html_path is not None:
        write_report(html_path, render("calibration", "html", result, context=context))


def _log_files(logs: tuple[Path, ...]) -> list[Path]:
    """The logs given, a folder's *.jsonl (searched recursively) in its place, each once."""
    files: list[Path] = []
    for path in logs:
        found = sorted(path.rglob("*.jsonl")) if path.is_dir() else [path]
        if path.is_dir() and not found:
            raise click.BadParameter(f"{path}: no *.jsonl game log in this folder",
                                     param_hint="'--human'")
        files += [f for f in found if f not in files]
    return files
