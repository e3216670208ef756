"""The command line: each command parses its options, calls one function, formats the result."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from synergy_forge import __version__
from synergy_forge.diagnostics import InvalidInput

#: Exit codes shared by every command.
EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


def fail_with(problem: InvalidInput) -> None:
    for diagnostic in problem.diagnostics:
        click.echo(str(diagnostic), err=True)
    sys.exit(EXIT_BAD_INPUT)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="synergy-forge")
def main() -> None:
    """Design, referee, playtest and print missions for the card game Synergy."""


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as one JSON object "
              "(one per line when several files are given).")
@click.option("--data-rules", is_flag=True, help="Evaluate goals and challenges through their "
              "rule expressions instead of the native fast path (the results are the same).")
def judge(files: tuple[Path, ...], as_json: bool, data_rules: bool) -> None:
    """Settle the round written in FILE (YAML or JSON, see schemas/round.schema.json).

    Exits 0 with the verdict, whatever it is; 2 when a file cannot be judged.
    """
    from synergy_forge.definitions import standard_rulebook
    from synergy_forge.explain import verdict_json, verdict_text
    from synergy_forge.referee import judge as settle_round
    from synergy_forge.roundfile import read_round

    rulebook = standard_rulebook(native=not data_rules)
    problems: list = []
    outputs = []
    for path in files:
        try:
            table = read_round(path, rulebook)
        except InvalidInput as exc:
            problems.extend(exc.diagnostics)
            continue
        verdict = settle_round(table, rulebook)
        if as_json:
            outputs.append(json.dumps(verdict_json(verdict, rulebook), ensure_ascii=False))
        else:
            header = f"== {path}\n" if len(files) > 1 else ""
            outputs.append(header + verdict_text(verdict, rulebook))
    click.echo(("\n" if as_json else "\n\n").join(outputs)) if outputs else None
    if problems:
        fail_with(InvalidInput(problems))


FORMATS = ("text", "json", "github")


def _github(diagnostic) -> str:
    # GitHub Actions workflow commands: data must have %, CR and LF escaped.
    def esc(text: str) -> str:
        return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    return (f"::{diagnostic.severity} file={esc(diagnostic.file)},line={diagnostic.line},"
            f"col={diagnostic.column},title={diagnostic.check}::{esc(diagnostic.message)}")


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="text: FILE:LINE:COLUMN: severity: message [check]; json: one object "
              "(docs/ci.md); github: GitHub Actions annotations.")
def validate(paths: tuple[Path, ...], fmt: str) -> None:
    """Check missions, campaigns, goals, challenges and rounds.

    PATHS are files or folders (a folder with campaign.yaml is a campaign; any other folder is
    searched for *.yaml and *.json). Default: the bundled starter campaign. Exits 0 when there
    is no error (warnings allowed), 1 when there are errors, 2 on a usage error.
    """
    from synergy_forge.resources import starter_campaign
    from synergy_forge.validate import validate_paths

    report = validate_paths(list(paths) or [starter_campaign()])
    if fmt == "json":
        click.echo(json.dumps(report.as_json(), indent=2, ensure_ascii=False))
    elif fmt == "github":
        for diagnostic in report.diagnostics:
            click.echo(_github(diagnostic))
    else:
        for diagnostic in report.diagnostics:
            click.echo(str(diagnostic))
        files = f"{report.files} file{'s' if report.files != 1 else ''}"
        summary = f"{files} checked: {report.errors} error(s), {report.warnings} warning(s)"
        click.echo(summary, err=bool(report.diagnostics))
    sys.exit(EXIT_FAILED if report.errors else EXIT_OK)


@main.group()
def new() -> None:
    """Start a new mission or campaign from a commented template that validates as written."""


@new.command("mission")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite an existing file.")
def new_mission(path: Path, force: bool) -> None:
    """Write a starting mission file at PATH."""
    from synergy_forge.scaffold import write_mission

    _scaffold(lambda: write_mission(path, force=force))


@new.command("campaign")
@click.argument("folder", type=click.Path(path_type=Path))
@click.option("--languages", default="en,fr", show_default=True,
              help="Comma-separated language codes.")
def new_campaign(folder: Path, languages: str) -> None:
    """Create a campaign folder: campaign.yaml, a first mission, a custom challenge and goal."""
    from synergy_forge.scaffold import write_campaign

    langs = tuple(x.strip() for x in languages.split(",") if x.strip())
    _scaffold(lambda: write_campaign(folder, langs))


def _scaffold(action) -> None:
    try:
        written = action()
    except FileExistsError as exc:
        click.echo(f"{exc.filename}: already exists; nothing was written (use another path"
                   " or --force for a single file)", err=True)
        sys.exit(EXIT_BAD_INPUT)
    except OSError as exc:
        click.echo(f"{exc.filename}: cannot write: {exc.strerror}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    for path in written:
        click.echo(f"wrote {path}")
