"""`synergy-forge judge`."""

from __future__ import annotations

from pathlib import Path

import click

from synergy_forge.reporting.formats import formats, render

from ..output import show


@click.command("judge")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(formats("judge")), default="text",
              show_default=True, help="text: each seat explained; json: one object per file "
              "(one a line).")
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as one JSON object "
              "(one per line when several files are given); the same as --format json.")
@click.option("--data-rules", is_flag=True, help="Evaluate goals and challenges through their "
              "rule expressions instead of the native fast path (the results are the same).")
def command(files: tuple[Path, ...], fmt: str, as_json: bool, data_rules: bool) -> None:
    """Settle the round written in FILE (YAML or JSON, see schemas/round.schema.json).

    Exits 0 with the verdict, whatever it is; 2 when a file cannot be judged.
    """
    from synergy_forge.authoring.diagnostics import InvalidInput
    from synergy_forge.authoring.judging import judge_paths

    judgement = judge_paths(files, native=not data_rules)
    show(render("judge", "json" if as_json else fmt, judgement))
    if judgement.problems:
        raise InvalidInput(judgement.problems)
