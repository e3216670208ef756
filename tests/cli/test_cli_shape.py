"""The command line stays thin: each command parses its options, calls one use-case
function of the layer it belongs to and hands the typed result to a reporter. Read from the
source (AST), so that a new command is held to it without being listed here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

COMMANDS = Path(__file__).resolve().parents[2] / "synergy_forge" / "cli" / "commands"
#: The longest a function of a command module may be, from its `def` to its last line
#: (docstring included; the option decorators above it are the command's parsing).
MOST_LINES = 40


def functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def too_long(source: str) -> list[str]:
    """The functions of `source` longer than MOST_LINES, with their length."""
    found = []
    for node in functions(ast.parse(source)):
        length = (node.end_lineno or node.lineno) - node.lineno + 1
        if length > MOST_LINES:
            found.append(f"{node.name} ({length} lines)")
    return found


def exits(source: str) -> list[int]:
    """The lines of `source` that end the process themselves (sys.exit, exit(), os._exit)
    instead of raising the error that carries its exit code (synergy_forge.errors)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if name in ("exit", "_exit", "quit"):
                found.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module == "sys" and any(
                a.name == "exit" for a in node.names):
            found.append(node.lineno)
    return found


MODULES = sorted(COMMANDS.glob("*.py"))


@pytest.mark.parametrize("module", MODULES, ids=lambda p: p.stem)
def test_every_command_function_is_at_most_40_lines(module: Path) -> None:
    assert too_long(module.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("module", MODULES, ids=lambda p: p.stem)
def test_no_command_exits_by_itself(module: Path) -> None:
    assert exits(module.read_text(encoding="utf-8")) == []


def test_the_checks_can_fail() -> None:
    """Both checks find what they are for (a check that finds nothing proves nothing)."""
    long = "@click.command()\ndef command():\n" + "    x = 1\n" * 40
    assert too_long(long) == ["command (41 lines)"]
    assert too_long("def command():\n" + "    x = 1\n" * 39) == []
    assert exits("import sys\ndef command():\n    sys.exit(2)\n") == [3]
    assert exits("from sys import exit\ndef command():\n    exit(2)\n") == [1, 3]
    assert exits("def command():\n    raise SystemExit(2)\n") == []
    assert len(MODULES) >= 10  # the commands are where this test looks for them


def test_json_is_the_same_as_format_json_in_every_command_that_has_formats() -> None:
    """`--json` is an alias of `--format json` everywhere or nowhere: here,
    everywhere; both are the one option pair of cli.params.report_format."""
    import click

    from synergy_forge.cli.group import main
    from synergy_forge.cli.params import JSON_FLAG

    ctx = click.Context(main)
    with_formats = []
    for name in main.list_commands(ctx):
        command = main.get_command(ctx, name)
        assert command is not None
        options = {o: p for p in command.params for o in p.opts}
        if "--format" in options:
            with_formats.append(name)
            assert "--json" in options, name
            # --json's own flag (so that --format can refuse a conflict), which only --format
            # reads: the command gets one value, fmt.
            assert options["--format"].name == "fmt" and not options["--json"].expose_value
            assert options["--json"].name == JSON_FLAG, name
    assert {"validate", "judge", "playtest"} <= set(with_formats)


@pytest.mark.parametrize("args", [["validate", "missions/starter/missions/01-first-notes.yaml"],
                                  ["judge", "missions/rounds/crossed-goals.yaml"]])
def test_json_and_format_json_print_the_same(args: list[str]) -> None:
    from click.testing import CliRunner

    from synergy_forge.cli.group import main

    root = COMMANDS.parents[2]
    args = [args[0], str(root / args[1])]
    alias = CliRunner().invoke(main, [*args, "--json"])
    long = CliRunner().invoke(main, [*args, "--format", "json"])
    text = CliRunner().invoke(main, args)
    assert alias.exit_code == long.exit_code == 0, alias.output
    assert alias.output == long.output != text.output
    assert alias.output.lstrip().startswith("{")


@pytest.mark.parametrize("args", [
    ["playtest", "missions/starter/missions/01-first-notes.yaml", "--games", "2", "--format",
     "html", "--json"],
    ["playtest", "missions/starter/missions/01-first-notes.yaml", "--json", "--format", "text"],
    ["validate", "missions/starter/missions/01-first-notes.yaml", "--format", "github",
     "--json"],
    ["judge", "--json", "--format", "text", "missions/rounds/crossed-goals.yaml"]])
def test_json_with_another_format_is_a_usage_error_not_one_dropped(args: list[str]) -> None:
    from click.testing import CliRunner

    from synergy_forge.cli.group import main

    root = COMMANDS.parents[2]
    result = CliRunner().invoke(main, [str(root / a) if a.startswith("missions/") else a
                                       for a in args])
    assert result.exit_code == 2, result.output
    assert "--json is --format json: it cannot go with --format " in result.output
    assert "{" not in result.output and "<" not in result.output


def test_json_with_format_json_is_json() -> None:
    from click.testing import CliRunner

    from synergy_forge.cli.group import main

    mission = str(COMMANDS.parents[2] / "missions/starter/missions/01-first-notes.yaml")
    both = CliRunner().invoke(main, ["validate", mission, "--format", "json", "--json"])
    assert both.exit_code == 0
    assert both.output == CliRunner().invoke(main, ["validate", mission, "--json"]).output
    assert both.output.lstrip().startswith("{")
