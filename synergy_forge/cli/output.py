"""Where rendered reports go: standard output, standard error, or a file written atomically."""

from __future__ import annotations

from pathlib import Path

import click

from synergy_forge.errors import CannotWrite
from synergy_forge.fileio import write_atomic
from synergy_forge.reporting import Output


def show(rendered: Output) -> None:
    """The report on stdout (nothing at all when it is empty), its note on stderr."""
    if rendered.text:
        click.echo(rendered.text)
    if rendered.note:
        click.echo(rendered.note, err=True)


def write_report(path: Path, rendered: Output) -> None:
    try:
        write_atomic(path, rendered.text)
    except OSError as exc:
        raise CannotWrite.from_os_error(exc, path) from None
    click.echo(f"report written to {path}", err=True)
