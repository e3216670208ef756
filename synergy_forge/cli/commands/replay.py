"""`synergy-forge replay`."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("replay")
@click.argument("log_file", type=click.Path(path_type=Path))
@click.option("--campaign", "campaign_dir", type=click.Path(file_okay=False, path_type=Path),
              help="The campaign folder the log's mission belongs to (default: the campaign "
              "of the current folder or above it, else the starter campaign).")
def command(log_file: Path, campaign_dir: Path | None) -> None:
    """Re-run a game log through the engine and confirm its outcome.

    When the log names a mission of the campaign (--campaign DIR, else the current folder's
    campaign, else the starter campaign),
    its header must play as that mission does (settings, goals, challenges and their rules;
    not stars, titles or texts); a log of any other mission replays as self-contained: its
    mission is not verified.

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
               f"(same outcome as recorded; {checked})")
