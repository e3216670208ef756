"""`synergy-forge tune`: the closest settings that give a mission the stars its designer wants."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import click

from synergy_forge.authoring.diagnostics import HasErrors
from synergy_forge.core.mission import FEWEST_STARS, MOST_STARS, Mission
from synergy_forge.core.rules import Rulebook
from synergy_forge.errors import EXIT_FAILED, CannotWrite, ChangedMeanwhile, CheckFailed

from ..params import PLAYER_COUNTS, SEED

#: Missions tuned side by side on a cluster.
MISSIONS_AT_ONCE = 4


@click.command("tune")
@click.argument("target", metavar="[MISSION|CAMPAIGN]", required=False,
                type=click.Path(exists=True, path_type=Path))
@click.option("--stars", type=click.IntRange(FEWEST_STARS, MOST_STARS),
              help="The stars wanted (one mission; default: its declared stars, changed "
              "only if the estimate disagrees).")
@click.option("--players", "counts", type=PLAYER_COUNTS, default="all", show_default=True,
              help="Player counts to tune for: e.g. 3,4 or all (the mission's own).")
@click.option("--budget", type=click.IntRange(100, 100_000_000), default=40_000,
              show_default=True, help="Games at most per mission.")
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
    from synergy_forge.authoring.edit import (
        EditError,
        candidate_problems,
        edit_mission_text,
        rewrite_mission,
    )
    from synergy_forge.authoring.loading import CAMPAIGN_FILE, read_campaign, read_mission_file
    from synergy_forge.fileio import editable
    from synergy_forge.reporting.tune import summary_line, tune_text
    from synergy_forge.sim.executors import LocalPool, executor_for
    from synergy_forge.sim.tune import tune as search

    from ..inputs import current_campaign

    target = current_campaign(target)
    players = ",".join(map(str, counts)) if counts else "all"
    if target.is_dir():
        if stars is not None:
            raise click.BadParameter("applies to one mission; in a campaign each mission is "
                                     "tuned to its declared stars", param_hint="--stars")
        if not (target / CAMPAIGN_FILE).is_file():
            raise click.BadParameter(f"{target} has no {CAMPAIGN_FILE}",
                                     param_hint="MISSION|CAMPAIGN")
        result = read_campaign(target)
        if result.campaign is None:
            raise HasErrors([d for d in result.diagnostics if d.severity == "error"])
        campaign = result.campaign
        assert campaign is not None
        # Each with the text it was read from: --write changes the file only if it still
        # says that.
        subjects = [(Path(m.source), m, campaign.rulebook, campaign.colors,
                     result.documents[m.source].text) for m in campaign.missions]
    else:
        mission, rulebook, colors, doc = read_mission_file(target)
        subjects = [(target, mission, rulebook, tuple(colors), doc.text)]
        if write:  # refused now rather than after the search
            editable(target)
    executor = executor_for(scheduler, jobs)

    def tune_one(subject: tuple[Path, Mission, Rulebook, tuple[str, ...], str]
                 ) -> tuple[str, bool, int, str]:
        """One mission's report, whether it can reach its stars, its exit code (0: it can, and
        its change was made if asked), and its summary line."""
        path, mission, rulebook, colors, text = subject
        if counts and not set(counts) & set(mission.players):
            skipped = (f"{mission.number} {mission.label()} ({path}): not made for {players} "
                       "players; skipped")
            return skipped, True, 0, skipped
        wanted = stars if stars is not None else mission.stars

        # A proposal earns no error and no warning of validate's that the mission did not
        # already have (issue 22: "never proposes what validate would warn about").
        had = {d.check for d in candidate_problems(mission, rulebook, warnings=True)}

        def valid(candidate: Mission) -> bool:
            found = candidate_problems(candidate, rulebook, warnings=True)
            return not any(d.severity == "error" or d.check not in had for d in found)

        found = search(mission, rulebook, colors, wanted, counts=counts, budget=budget,
                       games=games, seed=seed, with_actions=with_actions, executor=executor,
                       valid=valid, strict=stars is not None)
        edited = None
        written, code, problem = False, 0 if found.proposal is not None else EXIT_FAILED, ""
        if found.proposal is not None:
            after = found.proposal.setting.apply(mission, wanted)
            try:
                edited = edit_mission_text(text, str(path), mission, after)
                if write and edited != text:
                    rewrite_mission(path, text, mission, after, str(path))
                    written = True
            except EditError as exc:
                problem, code = f"\n  error: {exc}", EXIT_FAILED
            except (CannotWrite, ChangedMeanwhile) as exc:
                problem, code = f"\n  error: {exc.format_message()}", exc.exit_code
        # The very games the figure under "after:" counts: the same seeds, as many per player
        # count as the proposal played (the search may stop before --games), the same counts.
        shown = found.proposal or found.original
        check = (f"synergy-forge playtest {path} --games {shown.played} --seed {seed} "
                 f"--players {','.join(map(str, found.counts))} --check")
        return (tune_text(found, str(path), text, edited, written, check) + problem,
                found.proposal is not None, code, summary_line(found, bool(problem)))

    # On a cluster several missions are tuned at once, to keep its workers busy; the local
    # pool already has every core busy with one. Reports come in the campaign's order.
    short = failed = worst = 0
    threads = None
    if isinstance(executor, LocalPool) or len(subjects) == 1:
        # In this thread: Ctrl-C stops at once.
        reports: Iterator[tuple[str, bool, int, str]] = map(tune_one, subjects)
    else:
        threads = ThreadPoolExecutor(max_workers=MISSIONS_AT_ONCE)
        reports = threads.map(tune_one, subjects)
    summary = []
    try:
        for number, (report, reached, code, line) in enumerate(reports):
            short, worst = short + (not reached), max(worst, code)
            failed += reached and bool(code)
            summary.append(line)
            click.echo(("\n" if number else "") + report)
    except KeyboardInterrupt:
        # The missions in other threads: those not started never start, the others stop at
        # their next result (the command would otherwise wait for them before exiting).
        if threads is not None:
            threads.shutdown(wait=False, cancel_futures=True)
        executor.stop()
        raise
    if len(subjects) > 1:
        click.echo("\nSummary:\n" + "\n".join(summary))
        click.echo(f"{len(subjects) - short - failed} of {len(subjects)} missions at their "
                   "stars with the changes above"
                   + (f"; {short} cannot reach them" if short else "")
                   + (f"; {failed} not changed (see above)" if failed else ""))
    if worst:
        raise CheckFailed(exit_code=worst)

