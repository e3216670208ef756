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
