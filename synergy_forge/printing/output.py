"""The output folder: refused when it could lead writes outside it, held by one build at a
time, and every path written inside it (fileio.write_beneath opens its folders without
following links, so a folder swapped for a link during the build is refused)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from synergy_forge.errors import UnreadableInput

TEMP_DIR = ".tmp"
LOCK_FILE = ".lock"


class OutputFolderError(UnreadableInput):
    """--out cannot be used as it is (a usage error: nothing was written)."""


def check_output_folder(out_dir: Path) -> None:
    """Refuse a folder we could be tricked into writing outside of: a symbolic link anywhere
    inside it (the folder itself may be one: the user chose it)."""
    if out_dir.exists() and not out_dir.is_dir():
        raise OutputFolderError(f"{out_dir}: not a folder")
    if not out_dir.exists():
        return
    for folder, subfolders, files in os.walk(out_dir):
        for name in subfolders + files:
            if os.path.islink(os.path.join(folder, name)):
                raise OutputFolderError(
                    f"{os.path.join(folder, name)}: a symbolic link inside the output folder; "
                    "remove it or choose another --out (nothing was written)")


@contextlib.contextmanager
def locked(out_dir: Path) -> Iterator[None]:
    """Hold an exclusive lock on the output folder, so that two builds never mix their files."""
    import fcntl

    out_dir.mkdir(parents=True, exist_ok=True)
    handle = open(out_dir / LOCK_FILE, "a+b")  # noqa: SIM115 - held for the whole build
    try:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OutputFolderError(f"{out_dir}: another build is writing into this folder; "
                                    "wait for it to finish or choose another --out") from None
        yield
    finally:
        handle.close()  # closing releases the lock


def inside(root: Path, relative: Path) -> Path:
    """`relative` in `root`, by name only: no `..`, nothing absolute. Whether its folders are
    still folders when it is written is fileio.write_beneath's to check, at that moment."""
    if relative.is_absolute() or ".." in relative.parts:
        raise ValueError(f"{relative} would be written outside {root}")
    return root / relative
