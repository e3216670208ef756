"""The command line, on top of every layer: `group` (`main`, the group, which ends every
command with the code `exits` gives its error), `params` (click parameter types), `output`
(where reports and notes go), `progress`, `serving` (what `studio` and `table` share), and
one module per command in `commands/`. Each command parses its options, calls the use cases
of `synergy_forge.workspace` (or of the layer a use case belongs to), and hands the typed
result to a reporter of `synergy_forge.reporting`.

`main` is imported when first asked for, so that `exits` can be imported alone (by
`__main__`, before the program is)."""

from __future__ import annotations

TYPE_CHECKING = False  # as typing's, without importing typing before the program
if TYPE_CHECKING:
    from typing import Any

    from synergy_forge.cli.group import main

__all__ = ["main"]


def __getattr__(name: str) -> Any:
    if name == "main":
        from synergy_forge.cli.group import main

        return main
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
