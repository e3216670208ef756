"""The command line, on top of every layer: `main` (the group and the one mapping of errors
to exit codes), `params` (click parameter types), and one module per command in `commands/`.
Each command parses its options, calls one function, and hands the typed result to a
reporter of `synergy_forge.reporting`."""

from synergy_forge.cli.main import main

__all__ = ["main"]
