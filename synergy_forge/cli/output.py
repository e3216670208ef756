"""Where rendered reports go: standard output, standard error, or a file the user named,
written atomically by the one output policy (fileio.OutputKind): over nothing, an empty file
or an earlier output of the same kind, never over anything else."""

from __future__ import annotations

from pathlib import Path

import click

from synergy_forge.errors import CannotWrite
from synergy_forge.fileio import OutputKind, write_atomic
from synergy_forge.reporting import Output

#: What `play --log` and `table --log` write: authoring.gamelog.write_log, the game record
#: first, its type first.
GAME_LOG = OutputKind("a game log of synergy-forge", b'{"type":"game",')
#: What `playtest --html` writes: templates/playtest.html.j2, as it has always begun.
HTML_REPORT = OutputKind("an HTML report of synergy-forge",
                         b'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
                         b"<title>Playtest report</title>")


def say(line: str) -> None:
    """A use case's word on what it works on (which campaign), on stderr."""
    click.echo(line, err=True)


def show(rendered: Output) -> None:
    """The report on stdout (nothing at all when it is empty), its note on stderr."""
    if rendered.text:
        click.echo(rendered.text)
    if rendered.note:
        click.echo(rendered.note, err=True)


def write_output(path: Path, text: str, kind: OutputKind) -> None:
    """`text` as the file `path` the user named for an output of `kind`; CannotWrite (exit 2)
    when it cannot be written there, the file in place untouched."""
    try:
        write_atomic(path, text, kind=kind)
    except OSError as exc:
        raise CannotWrite.from_os_error(exc, path) from None


def write_report(path: Path, rendered: Output) -> None:
    write_output(path, rendered.text, HTML_REPORT)
    click.echo(f"report written to {path}", err=True)
