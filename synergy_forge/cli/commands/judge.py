"""`synergy-forge judge`."""

from __future__ import annotations

from pathlib import Path

import click

from synergy_forge.reporting.formats import render

from ..output import say, show
from ..params import report_format


@click.command("judge")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@report_format("judge", help="text: each seat explained; json: one object per file (one a "
               "line).")
@click.option("--data-rules", is_flag=True, help="Evaluate goals and challenges through their "
              "rule expressions instead of the native fast path (the results are the same).")
@click.option("--campaign", "campaign_dir", type=click.Path(exists=True, file_okay=False,
                                                           path_type=Path),
              help="The campaign whose goals, challenges and colours the rounds use (default: "
              "the campaign each file sits in, else the one of the current folder or the "
              "nearest one above it, else the built-in ones only).")
def command(files: tuple[Path, ...], fmt: str, data_rules: bool,
            campaign_dir: Path | None) -> None:
    """Settle the round written in FILE (YAML or JSON, see schemas/round.schema.json), with
    its campaign's own goals and challenges.

    Exits 0 with the verdict, whatever it is; 2 when a file cannot be judged.
    """
    from synergy_forge.authoring.diagnostics import InvalidInput
    from synergy_forge.workspace.rounds import judge_rounds

    judgement = judge_rounds(files, not data_rules, campaign_dir, say)
    show(render("judge", fmt, judgement))
    if judgement.problems:
        raise InvalidInput(judgement.problems)
