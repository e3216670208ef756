"""`synergy-forge new mission|campaign`."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import click

from synergy_forge.errors import CannotWrite


@click.group("new")
def command() -> None:
    """Start a new mission or campaign from a commented template that validates as written."""


@command.command("mission")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite an existing file.")
def new_mission(path: Path, force: bool) -> None:
    """Write a starting mission file at PATH."""
    from synergy_forge.authoring.scaffold import write_new_mission

    _scaffold(lambda: write_new_mission(path, force=force), path,
              " (use another path, or --force to replace it)")


@command.command("campaign")
@click.argument("folder", type=click.Path(path_type=Path))
@click.option("--languages", default="en,fr", show_default=True,
              help="Comma-separated language codes.")
def new_campaign(folder: Path, languages: str) -> None:
    """Create a campaign folder: campaign.yaml, a first mission, a custom challenge and goal,
    a round for `judge`, a GitHub workflow and a pre-commit configuration that validate it, a
    .gitignore for the kit, and the copy of the schemas (docs/ci.md)."""
    from synergy_forge.authoring.scaffold import language_problem, write_campaign

    langs = tuple(x.strip() for x in languages.split(",") if x.strip())
    problem = language_problem(langs)
    if problem is not None:  # before anything is written: campaign.yaml would not validate
        raise click.BadParameter(problem, param_hint="'--languages'")
    _scaffold(lambda: write_campaign(folder, langs), folder, " (use another folder)")


def _scaffold(action: Callable[[], list[Path]], target: Path, hint: str) -> None:
    try:
        written = action()
    except OSError as exc:
        raise CannotWrite.from_os_error(exc, target, hint) from None
    from synergy_forge.authoring.scaffold import SCHEMAS_HOME

    schemas = [p for p in written if p.parent.parts[-2:] == SCHEMAS_HOME.parts]
    for path in written:
        if path not in schemas:
            click.echo(f"wrote {path}")
    if schemas:
        click.echo(f"wrote {schemas[0].parent}{os.sep} ({len(schemas)} schemas, which the "
                   "first line of each file names for your editor; keep them in git)")
    if any(path.name == ".pre-commit-config.yaml" for path in written):
        click.echo("in .github/workflows/missions.yml and .pre-commit-config.yaml, replace "
                   "SYNERGY_FORGE_GIT by where you install synergy-forge from (docs/ci.md)")
