"""`synergy-forge tune`: the closest settings that give a mission the stars its designer wants."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import click

from synergy_forge.core.mission import FEWEST_STARS, MOST_STARS

from ..exits import EXIT_FAILED, exit_code
from ..params import PLAYER_COUNTS, SEED
from ..progress import Progress

if TYPE_CHECKING:
    from synergy_forge.sim.tune import TuneResult
    from synergy_forge.workspace.play import Source


@click.command("tune")
@click.argument("target", metavar="[MISSION|CAMPAIGN]", required=False,
                type=click.Path(exists=True, path_type=Path))
@click.option("--stars", type=click.IntRange(FEWEST_STARS, MOST_STARS),
              help="The stars wanted (one mission; default: its declared stars, changed "
              "only if the estimate disagrees).")
@click.option("--players", "counts", type=PLAYER_COUNTS, default="all", show_default=True,
              help="Player counts to tune for: e.g. 3,4 or all (the mission's own).")
@click.option("--budget", type=click.IntRange(100, 100_000_000), default=40_000,
              show_default=True, help="Games at most per mission, every game at every level "
              "of the skill ladder counted (what the report's `search:` line adds up).")
@click.option("--games", type=click.IntRange(25, 1_000_000), default=400, show_default=True,
              help="Games per player count before a setting is accepted.")
@click.option("--seed", type=SEED, default=1, show_default=True,
              help="The deals every setting plays (playtest's seeds).")
@click.option("--actions", "with_actions", is_flag=True,
              help="Also try one action card more or less.")
@click.option("--jobs", type=click.IntRange(1, 64), help="Worker processes (default: all "
              "cores).")
@click.option("--scheduler", metavar="ADDR", help="Play on a Dask cluster (tcp://HOST:PORT; "
              "default: $DASK_SCHEDULER_ADDRESS, else local processes).")
@click.option("--write", is_flag=True, help="Apply each change to its file in place (comments "
              "and layout kept), with the declared stars.")
def command(target: Path | None, stars: int | None, counts: tuple[int, ...] | None, budget: int,
            games: int, seed: int, with_actions: bool, jobs: int | None, scheduler: str | None,
            write: bool) -> None:
    """Find the settings closest to a mission's own (rounds, lives, allowed failures, starting
    hand) that give it the stars wanted, as a diff of its file.

    MISSION|CAMPAIGN is a mission file, or a campaign folder: then every mission whose
    estimate disagrees with its declared stars is tuned towards them; by default, the campaign
    of the current folder or the nearest one above it. Exit 1 when some
    mission cannot reach its stars (docs/scale.md).
    """
    from synergy_forge.authoring.edit import no_new_problems
    from synergy_forge.fileio import editable
    from synergy_forge.sim.executors import executor_for
    from synergy_forge.sim.tune import tune_each
    from synergy_forge.workspace.campaign import open_workspace
    from synergy_forge.workspace.play import sources

    from ..output import say

    if target is None or target.is_dir():
        target = open_workspace(target, say).folder
    if target.is_dir() and stars is not None:
        raise click.BadParameter("applies to one mission; in a campaign each mission is "
                                 "tuned to its declared stars", param_hint="--stars")
    subjects = sources((target,), say)
    _check_budget(subjects, counts, budget, games)
    if write and not target.is_dir():  # refused now rather than after the search
        editable(target)
    worst = _tune(subjects, lambda progress: tune_each(
        [s.playable for s in subjects], stars, counts=counts, budget=budget, games=games,
        seed=seed, with_actions=with_actions, executor=executor_for(scheduler, jobs),
        valid_for=lambda p: no_new_problems(p.mission, p.rulebook), progress=progress),
        budget, counts, seed, write)
    if worst:  # once the progress said it is done
        raise click.exceptions.Exit(worst)


def _tune(subjects: list[Source],
          search: Callable[[Callable[[int, int], None]], Iterator[TuneResult | None]],
          budget: int, counts: tuple[int, ...] | None, seed: int, write: bool) -> int:
    """The `search`, told its progress, shown as settings tried, games played out of the
    budget and time left at most (a search often ends before its budget); each mission's
    report as it ends. The worst exit code (_report)."""
    tried = 0

    def settings() -> str:
        return f"{tried} setting(s) tried"

    with Progress(budget * len(subjects), "Tuning", detail=settings, unit="games") as bar:
        def told(new: int, played: int) -> None:
            nonlocal tried
            tried += new
            bar.update(played)

        return _report(subjects, search(told), counts, seed, write)


def _check_budget(subjects: list[Source], counts: tuple[int, ...] | None, budget: int,
                  games: int) -> None:
    """Refuse, before any game, a budget that cannot pay for a first look at some mission."""
    from synergy_forge.sim.tune import LOOKS, first_look, reserve

    played = [sorted(set(s.playable.mission.players) & set(counts or s.playable.mission.players))
              for s in subjects]
    need, players = max((first_look(players, games), players) for players in played)
    if budget < need:
        raise click.BadParameter(
            f"{budget:,} games cannot pay for a first look at a mission: {need:,} games "
            f"({min(LOOKS[0], games)} at each table of the skill ladder, n + 1 tables at n "
            f"players, and up to {reserve(players):,} to check an answer as playtest does)",
            param_hint="'--budget'")


def _report(subjects: list[Source], found: Iterator[TuneResult | None],
            counts: tuple[int, ...] | None, seed: int, write: bool) -> int:
    """Each mission's report as its search ends (its file changed if asked), a campaign's
    summary; the worst exit code of what failed when some mission does not get its stars
    (0: every one does)."""
    from synergy_forge.authoring.edit import edit_mission
    from synergy_forge.reporting.tune import campaign_summary, mission_report

    short = failed = worst = 0
    lines = []
    for number, (subject, result) in enumerate(zip(subjects, found, strict=True)):
        mission = subject.playable.mission
        edit = None
        if result is not None and result.tuned is not None:
            edit = edit_mission(subject.path, subject.text, mission, result.tuned, write)
        report, line = mission_report(subject.path, mission, result, subject.text, edit, seed,
                                      counts)
        reached = result is None or result.proposal is not None
        code = exit_code(edit.failure) if edit is not None and edit.failure is not None \
            else 0 if reached else EXIT_FAILED
        short, worst, failed = short + (not reached), max(worst, code), failed + (
            reached and bool(code))
        lines.append(line)
        click.echo(("\n" if number else "") + report)
    if len(subjects) > 1:
        click.echo(campaign_summary(lines, short, failed))
    return worst
