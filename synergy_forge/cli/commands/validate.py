"""`synergy-forge validate`."""

from __future__ import annotations

from pathlib import Path

import click

from synergy_forge.errors import CheckFailed, UnreadableInput
from synergy_forge.reporting.formats import render

from ..output import say, show
from ..params import report_format


@click.command("validate")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@report_format("validate", help="text: FILE:LINE:COLUMN: severity: message [check]; json: one "
               "object (docs/ci.md); github: GitHub Actions annotations.")
@click.option("--verbose", "-v", is_flag=True, help="Also list the files a folder walk "
              "skipped, and why.")
def command(paths: tuple[Path, ...], fmt: str, verbose: bool) -> None:
    """Check missions, campaigns, goals, challenges and rounds.

    PATHS are files or folders. In a folder, a campaign.yaml's files, files with a synergy-forge
    schema line and files under missions/, goals/, challenges/, rounds/ are checked; dot-folders,
    tool configs and other YAML are skipped (--verbose lists them). A file named here is always
    checked. Default: the campaign of the current folder or the nearest one above it (the
    bundled starter campaign when there is none). Exits 0 when there is no error (warnings
    allowed), 1 when there are errors (a file that cannot be read is one), 2 on a usage error
    (nothing to check is one).
    """
    from synergy_forge.workspace.campaign import open_workspace
    from synergy_forge.workspace.validate import validate_paths

    report = validate_paths(list(paths) or [open_workspace(None, say).folder])
    if verbose:
        for where, why in report.skipped:
            click.echo(f"skipped {where}: {why}", err=True)
    if report.files == 0:  # a folder with nothing to check is a mistake in the command
        skipped = f" ({len(report.skipped)} skipped; --verbose lists them)" \
            if report.skipped and not verbose else ""
        raise UnreadableInput(f"{', '.join(map(str, paths))}: no Synergy file found{skipped}: "
                              "a file is checked when a campaign.yaml lists it, it starts with a "
                              "schema line, or it sits under missions/ (docs/ci.md); name a "
                              "file to check it anyway")
    show(render("validate", fmt, report, verbose=verbose) if fmt == "text"
         else render("validate", fmt, report))
    if report.errors:
        raise CheckFailed()

