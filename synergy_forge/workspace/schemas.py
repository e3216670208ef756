"""A campaign's own copy of the schemas its files' first line names (`new campaign` writes
it): whether it is this synergy-forge's (`schemas`, and a warning of `validate`), and bringing
it up to date (`schemas --update`)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from synergy_forge.authoring.diagnostics import Diagnostic, Severity
from synergy_forge.authoring.loading import CAMPAIGN_FILE, display
from synergy_forge.authoring.scaffold import (
    SCHEMA_COPY,
    campaign_schemas,
    schema_line,
    shipped_schemas,
)
from synergy_forge.errors import CannotWrite
from synergy_forge.fileio import (
    editable,
    inside_problem,
    open_regular,
    outside_problem,
    read_regular,
    replace_text,
    write_inside,
)
from synergy_forge.workspace.kinds import SCHEMA_LINE


@dataclass
class SchemaState:
    """How a campaign's copy of the schemas compares with this synergy-forge's."""

    folder: Path
    missing: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    #: the campaign's files whose schema line points elsewhere than its copy
    lines: list[Path] = field(default_factory=list)

    @property
    def current(self) -> bool:
        return not (self.missing or self.stale or self.lines)


def _campaign_files(folder: Path) -> list[Path]:
    """The YAML and JSON files of a campaign folder a schema line may head, dot-folders left
    out."""
    found = []
    for here, subfolders, names in os.walk(folder):
        subfolders[:] = sorted(s for s in subfolders if not s.startswith(".")
                               and s not in ("node_modules", "__pycache__"))
        found += [Path(here) / n for n in sorted(names)
                  if n.endswith((".yaml", ".yml")) and not n.startswith(".")]
    return found


def _line_target(path: Path) -> tuple[str, str] | None:
    """(path, kind) a file's first line names as its schema, if it has such a line."""
    try:
        with open_regular(path) as handle:  # a FIFO would block a plain open for ever
            first = handle.readline(4096).decode("utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return None
    match = SCHEMA_LINE.match(first.rstrip("\n"))
    return (match.group(1) + match.group(2) + ".schema.json", match.group(2)) if match else None


def schema_state(folder: Path) -> SchemaState:
    state = SchemaState(campaign_schemas(folder))
    for name, data in shipped_schemas().items():
        try:
            if read_regular(state.folder / name) != data:
                state.stale.append(name)
        except OSError:  # missing, or not a file: a FIFO left there is refused by --update
            state.missing.append(name)
    for path in _campaign_files(folder):
        line = _line_target(path)
        if line is not None and \
                (path.parent / line[0]).resolve() != (state.folder / f"{line[1]}.schema.json"
                                                       ).resolve():
            state.lines.append(path)
    return state


def write_schemas(folder: Path) -> list[Path]:
    """Bring the campaign's copy of the schemas up to date with this synergy-forge, and point
    the schema line of each of its files at it; the files written.

    The designer's files are changed in place as `tune --write` changes a mission
    (fileio.replace_text: a read-only one refused, a save made meanwhile kept), each checked
    before anything is written (CannotWrite, exit 2: nothing written at all), as is each copy
    of a schema (fileio.write_inside: never through a link out of the campaign, never over a
    file that is not a schema of synergy-forge). The copies, the tool's own files, are
    written first, one by one: one that cannot be (a FIFO put in its place meanwhile) stops
    the update there, exit 2, before any designer's file."""
    written = []
    state = schema_state(folder)
    copies = [state.folder / name for name in state.missing + state.stale]
    for path in state.lines:
        problem = outside_problem(folder, path)
        if problem is not None:
            raise CannotWrite(str(path), problem)
        editable(path)
    for path in copies:
        problem = inside_problem(folder, path, SCHEMA_COPY)
        if problem is not None:
            raise CannotWrite(str(path), problem)
    shipped = shipped_schemas()
    for path in copies:
        written.append(write_inside(folder, path, shipped[path.name], kind=SCHEMA_COPY))
    for path in state.lines:
        line = _line_target(path)
        assert line is not None
        # As replace_text reads it (byte-order mark dropped, line ends kept), without
        # blocking on a FIFO.
        text = read_regular(path).decode("utf-8-sig")
        replace_text(path, text, schema_line(path, line[1], folder) + text.partition("\n")[2])
        written.append(path)
    return written


def schema_copy_warnings(folder: Path) -> list[Diagnostic]:
    """A warning when the campaign's copy of the schemas is not this synergy-forge's: editors
    would check its files against another version. None when it keeps no copy."""
    from synergy_forge import __version__

    if not campaign_schemas(folder).is_dir():
        return []
    state = schema_state(folder)
    if not (state.missing or state.stale):
        return []
    return [Diagnostic(display(folder / CAMPAIGN_FILE), 1, 1, Severity.WARNING,
                       f"the campaign's schemas ({display(state.folder)}) are not those of "
                       f"synergy-forge {__version__}: run `synergy-forge schemas --update` "
                       "and commit them", "campaign.schemas")]
