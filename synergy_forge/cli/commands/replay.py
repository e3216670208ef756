"""`synergy-forge replay`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..params import SEED, report_format

if TYPE_CHECKING:
    from collections.abc import Mapping

    from synergy_forge.core.cards import Action
    from synergy_forge.core.rules import ActionText


@click.command("replay")
@click.argument("log_file", type=click.Path(path_type=Path))
@click.option("--campaign", "campaign_dir", type=click.Path(file_okay=False, path_type=Path),
              help="The campaign folder the log's mission belongs to (default: the campaign "
              "of the current folder or above it, else the starter campaign).")
@click.option("--review", is_flag=True,
              help="Also review the game: every decision with the table's chance of winning "
              "before and after it, as its seat could know it (docs/table.md, \"The "
              "review\").")
@report_format("review", help="With --review: text, json, or html (a page with its chart).")
@click.option("--rollouts", type=click.IntRange(1, 10000), default=100, show_default=True,
              help="With --review: games played on from each decision, per chance, at most "
              "(fewer once a chance's standard error is 5 points or less).")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="With --review: the seed of the review's deals and bots.")
@click.option("--jobs", type=click.IntRange(1, 64), default=1, show_default=True,
              help="With --review: worker processes (the same review for any number).")
@click.option("--lang", type=click.Choice(["en", "fr"]), default="en", show_default=True,
              help="With --review: the review's language (text and html).")
def command(log_file: Path, campaign_dir: Path | None, review: bool, fmt: str, rollouts: int,
            seed: int, jobs: int, lang: str) -> None:
    """Re-run a game log through the engine and confirm its outcome.

    When the log names a mission of the campaign (--campaign DIR, else the current folder's
    campaign, else the starter campaign),
    its header must play as that mission does (settings, goals, challenges and their rules;
    not stars, titles or texts); a log of any other mission replays as self-contained: its
    mission is not verified.

    With --review, the review follows on stdout (text, json or html; the replay's line goes
    to stderr then): each chance is the share of ROLLOUTS games played on from that point with
    the expert at every seat, the cards its seat had not seen dealt again each time.

    Exits 0 when every record is what the engine accepts and the outcome is the same, 1
    naming the first record that is not (a header that differs from the campaign's mission
    included), 2 naming the first line that cannot be read (too long, not UTF-8, not JSON)
    or when the file or the campaign cannot be read at all.
    """
    from synergy_forge.reporting.explain import outcome_text
    from synergy_forge.workspace.play import replay

    from ..output import say

    done = replay(log_file, campaign_dir, say)
    replayed = done.replayed
    outcome = replayed.game.outcome
    assert outcome is not None  # replay returns finished games only
    checked = f"mission {replayed.game.mission.id} as in {done.label}" if replayed.verified \
        else "self-contained: mission not verified"
    click.echo(f"{log_file}: replayed {outcome.rounds_played} round(s): {outcome_text(outcome)} "
               f"(same outcome as recorded; {checked})", err=review)
    if review:
        _review(log_file, fmt, rollouts, seed, jobs, lang, done.actions)


def _review(log_file: Path, fmt: str, rollouts: int, seed: int, jobs: int, lang: str,
            actions: Mapping[Action, ActionText]) -> None:
    """The review of the replayed log, on stdout in `fmt` (cards and actions named in `lang`,
    but in JSON: its notation)."""
    from synergy_forge.reporting.formats import render
    from synergy_forge.reporting.review import review_log

    from ..output import show

    reviewed = review_log(log_file, rollouts, seed, jobs)
    show(render("review", fmt, reviewed,
                **({} if fmt == "json" else {"language": lang, "actions": actions})))
