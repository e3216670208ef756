"""`synergy-forge publish`."""

from __future__ import annotations

from pathlib import Path

import click

from synergy_forge.errors import CheckFailed
from synergy_forge.printing.workers import prepare_workers
from synergy_forge.reporting.formats import render

from ..output import say, show
from ..params import SEED
from ..progress import Progress
from .build import _check_options, _languages, _out_folder
from .playtest import PROGRESS_FROM, _log_files


@click.command("publish")
@click.argument("campaign_dir", required=False, type=click.Path(exists=True, file_okay=False,
                                                                path_type=Path))
@click.option("--out", "out_dir", default="site", show_default=True, callback=_out_folder,
              help="Folder for the website (the kit in OUT/kit, as `build --out OUT/kit`).")
@click.option("--lang", "lang", default="all", show_default=True,
              help="A language of the campaign (en, fr), or all of them: one page each.")
@click.option("--games", type=click.IntRange(1, 1_000_000), default=100, show_default=True,
              help="Games per mission and player count for the estimates, as "
              "`playtest --games` plays them.")
@click.option("--seed", type=SEED, default=1, show_default=True)
@click.option("--human", "logs", multiple=True, metavar="LOG",
              type=click.Path(exists=True, path_type=Path),
              help="Game logs people played (`play --log`, the table), or folders of *.jsonl "
              "logs; repeat for more. Each mission page shows their games and what the model "
              "of people predicts (as `playtest --human`).")
@click.option("--paper", type=click.Choice(["a4", "letter"]), default="a4", show_default=True,
              help="The kit's paper.")
@click.option("--tts", is_flag=True, help="Also offer the kit for Tabletop Simulator "
              "(build --tts).")
@click.option("--tts-url-base", metavar="URL", help="Where the site's kit/<lang>/tts/ will be "
              "served, so that Tabletop Simulator can fetch its sheets.")
@click.option("--jobs", type=click.IntRange(1, 64), help="Worker processes (default: all "
              "cores). Results are the same whatever the number.")
@click.option("--scheduler", metavar="ADDR", help="Play on a Dask cluster (tcp://HOST:PORT), "
              "as `playtest --scheduler`.")
def command(campaign_dir: Path | None, out_dir: Path, lang: str, games: int, seed: int,
            logs: tuple[Path, ...], paper: str, tts: bool, tts_url_base: str | None,
            jobs: int | None, scheduler: str | None) -> None:
    """Write CAMPAIGN_DIR's website into --out: a gallery of its missions, a page per
    mission (its card, its rules in words, its stars and where they come from, its content
    hash), campaign.json and the print-and-play kit, in each of its languages (default: the
    campaign of the current folder or the nearest one above it, else the starter campaign).

    Every link is relative: open OUT/index.html, or put OUT on any static host. Publishing
    again reuses the kit's cache and each unchanged mission's estimate, and rewrites only what
    changed. A campaign with errors publishes nothing (exit 1)."""
    _check_options(False, tts, tts_url_base, None)
    workers = prepare_workers() if jobs != 1 else None
    from synergy_forge.cardtext.geometry import POKER
    from synergy_forge.printing.jobs import Options
    from synergy_forge.reporting.publish import pages
    from synergy_forge.sim.executors import executor_for
    from synergy_forge.workspace.build import check_kit
    from synergy_forge.workspace.campaign import open_workspace
    from synergy_forge.workspace.publish import Settings, check_site_folder, publish

    workspace = open_workspace(campaign_dir, say)
    check = check_kit(workspace, POKER)
    show(render("publish-check", "text", check))
    if check.campaign is None or check.cards:
        raise CheckFailed()
    languages = _languages(check.campaign, lang)
    check_site_folder(check, out_dir, languages)
    settings = Settings(languages, Options(paper, POKER, tts=tts, tts_url_base=tts_url_base),
                        games, seed, jobs)

    def stage(label: str, total: int) -> Progress:
        return Progress(total, label, bar=label != "Playing" or total >= PROGRESS_FROM)

    published = publish(check, out_dir, settings, pages, people=_log_files(logs),
                        executor=executor_for(scheduler, jobs), stage=stage, workers=workers)
    show(render("publish", "text", published, out_dir=out_dir))
    if not published.site.kit.fits:
        raise CheckFailed()
