"""`synergy-forge replay`."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("replay")
@click.argument("log_file", type=click.Path(path_type=Path))
def command(log_file: Path) -> None:
    """Re-run a game log through the engine and confirm its outcome.

    Exits 0 when every record is what the engine accepts and the outcome is the same, 1
    naming the first record that is not, 2 naming the first line that cannot be read (too
    long, not UTF-8, not JSON) or when the file cannot be read at all.
    """
    from synergy_forge.authoring.gamelog import replay_file
    from synergy_forge.reporting.explain import outcome_text

    game = replay_file(log_file)
    outcome = game.outcome
    assert outcome is not None  # replay returns finished games only
    click.echo(f"{log_file}: replayed {outcome.rounds_played} round(s): {outcome_text(outcome)} "
               "(same outcome as recorded)")
