"""`synergy-forge validate`."""

from __future__ import annotations

from pathlib import Path

import click

from synergy_forge.errors import CheckFailed, UnreadableInput
from synergy_forge.reporting.formats import formats, render

from ..output import show


@click.command("validate")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(formats("validate")), default="text",
              show_default=True,
              help="text: FILE:LINE:COLUMN: severity: message [check]; json: one object "
              "(docs/ci.md); github: GitHub Actions annotations.")
def command(paths: tuple[Path, ...], fmt: str) -> None:
    """Check missions, campaigns, goals, challenges and rounds.

    PATHS are files or folders (a folder with campaign.yaml is a campaign; any other folder is
    searched for *.yaml, *.yml and *.json). Default: the bundled starter campaign. Exits 0 when
    there is no error (warnings allowed), 1 when there are errors, 2 on a usage error (a folder
    with no file to check is one).
    """
    from synergy_forge.authoring.validate import validate_paths
    from synergy_forge.resources import starter_campaign

    report = validate_paths(list(paths) or [starter_campaign()])
    if report.files == 0:  # a folder with nothing to check is a mistake in the command
        raise UnreadableInput(f"{', '.join(map(str, paths))}: no file to check (a "
                              "campaign.yaml, or *.yaml, *.yml, *.json files)")
    show(render("validate", fmt, report))
    if report.errors:
        raise CheckFailed()
