"""`synergy-forge schemas`: the campaign's own copy of the schemas its files' first line names."""

from __future__ import annotations

import os
from pathlib import Path

import click

from synergy_forge.errors import CannotWrite, CheckFailed


@click.command("schemas")
@click.argument("campaign_dir", required=False, type=click.Path(exists=True, file_okay=False,
                                                                path_type=Path))
@click.option("--update", is_flag=True, help="Write this synergy-forge's schemas into the "
              "campaign and point its files' schema lines at them.")
def command(campaign_dir: Path | None, update: bool) -> None:
    """Check (or with --update, refresh) the campaign's copy of the JSON Schemas.

    A campaign keeps the schemas in .synergy/schemas/ and its files name them by a relative
    path on their first line (# yaml-language-server: $schema=…), so that editors check the
    files in every clone of the repository. After upgrading synergy-forge, run
    `synergy-forge schemas --update` and commit the result. CAMPAIGN_DIR defaults to the
    campaign of the current folder or the nearest one above it. Exits 1 when the copy is
    missing or out of date, or a file's schema line points elsewhere (without --update).
    """
    from synergy_forge import __version__
    from synergy_forge.authoring.loading import display
    from synergy_forge.workspace.schemas import schema_state

    folder = _campaign(campaign_dir)
    state = schema_state(folder)
    home = display(state.folder) + os.sep
    if update:
        _update(folder, state.folder, home)
        return
    if state.current:
        click.echo(f"{home}: up to date with synergy-forge {__version__}")
        return
    if state.missing:
        click.echo(f"{home}: {len(state.missing)} schema(s) missing: "
                   f"{', '.join(state.missing)}")
    if state.stale:
        click.echo(f"{home}: {len(state.stale)} schema(s) differ from synergy-forge "
                   f"{__version__}'s: {', '.join(state.stale)}")
    for path in state.lines:
        click.echo(f"{display(path)}:1:1: the schema line does not name {home}")
    raise CheckFailed("run `synergy-forge schemas --update` and commit the result")


def _campaign(campaign_dir: Path | None) -> Path:
    """The campaign of CAMPAIGN_DIR, else of the current folder (workspace.open_workspace);
    never the bundled starter campaign, which is synergy-forge's own."""
    from synergy_forge.authoring.loading import CAMPAIGN_FILE
    from synergy_forge.workspace.campaign import open_workspace, workspace_here

    from ..output import say

    if campaign_dir is None and workspace_here() is None:
        raise click.UsageError(f"no {CAMPAIGN_FILE} in this folder or above it: run this in "
                               "a campaign, or give its folder")
    return open_workspace(campaign_dir, say).folder


def _update(folder: Path, schemas: Path, home: str) -> None:
    """--update: this synergy-forge's schemas written into the campaign's copy."""
    from synergy_forge import __version__
    from synergy_forge.authoring.loading import display
    from synergy_forge.workspace.schemas import write_schemas

    try:
        written = write_schemas(folder)
    except OSError as exc:
        raise CannotWrite.from_os_error(exc, schemas) from None
    for path in written:
        click.echo(f"wrote {display(path)}")
    click.echo(f"{home}: the schemas of synergy-forge {__version__}"
               + ("" if written else " already; nothing to do"))
